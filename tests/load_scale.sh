# tests/load_scale.sh -- sourced by the test drivers: time limits that hold
# on a busy machine.  A limit is given in *fair-share seconds*: wall-clock
# time divided by the machine's load factor L = max(1, load1 / CPUs), where
# load1 is the kernel's one-minute load average.  On an idle machine a
# limit is that many seconds; with a parallel build beside the suite
# (load 10 on 2 CPUs, L = 5) it stretches five-fold, so a slow run that
# progresses is not failed, while a hang is still caught.  L is read again
# at every check, so a limit follows the load as it changes.  The functions
# set variables instead of printing, so that a polling loop forks nothing.
# tests/test_util.c applies the same rule to the test programs' watchdog.

gex_ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$gex_ncpu" -ge 1 ] 2>/dev/null || gex_ncpu=1

# gex_load: sets gex_lx to the load factor now, times 100 (100: no stretch).
gex_load() {
  local l1 rest whole frac
  gex_lx=100
  read -r l1 rest </proc/loadavg 2>/dev/null || return 0
  whole=${l1%%.*} frac=${l1#*.}
  frac=${frac:0:2}
  [ ${#frac} = 1 ] && frac=${frac}0
  gex_lx=$(((10#$whole * 100 + 10#${frac:-0}) / gex_ncpu))
  [ "$gex_lx" -lt 100 ] && gex_lx=100
  return 0
}

# gex_scaled <ms>: sets gex_ms to a bound of <ms> fair-share milliseconds
# in wall milliseconds at the current load.
gex_scaled() {
  gex_load
  gex_ms=$(($1 * gex_lx / 100))
}

# A bounded wait: gex_clock_start, then `while gex_clock_below <ms>; do ...;
# done` runs until <ms> fair-share milliseconds have passed since the start
# (wall time over the load factor at each check).
gex_clock_start() { gex_t0=${EPOCHREALTIME/./}; }
gex_clock_below() {
  gex_scaled "$1"
  [ $(((${EPOCHREALTIME/./} - gex_t0) / 1000)) -lt "$gex_ms" ]
}
