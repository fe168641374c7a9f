#!/usr/bin/env bash
# tests/expect.sh -- run one test command and judge its outcome.
#
# usage: expect.sh [options] -- command [args...]
#   --pass            exit status 0 and a line starting "PASS " (default)
#   --status N        exit status exactly N
#   --nonzero         exit status not 0
#   --grep RE         output (stdout+stderr) must have a line matching RE (grep -E)
#   --nogrep RE       output must have no line matching RE
#   --within SECS     the command must end within SECS fair-share seconds
#                     (load_scale.sh: wall seconds stretched by the machine's
#                     load; at most 10 x SECS of wall time), else it is killed
#                     and the test fails
#   --skip-status N   exit status N means "skipped": print SKIP and exit 77
#
# A sanitizer report anywhere in the output fails the test, whatever the
# status (ranks end through _exit, so ThreadSanitizer's exit code is lost).
#
# Any argument equal to @TOKEN@ is replaced by a token unique to this run.
# Test programs ignore it; it lets this script find every process of the job
# afterwards: none may survive the job (checked with a bounded poll, as the
# death of orphaned ranks is asynchronous).  /dev/shm must not gain entries.
set -u

want=pass
status=
within=110
greps=()
nogreps=('WARNING: ThreadSanitizer' 'ERROR: AddressSanitizer' 'ERROR: LeakSanitizer'
         'runtime error: ' 'AddressSanitizer:DEADLYSIGNAL' 'ThreadSanitizer:DEADLYSIGNAL')
skip_status=
while [ $# -gt 0 ]; do
  case "$1" in
    --pass) want=pass; shift ;;
    --status) want=status; status=$2; shift 2 ;;
    --nonzero) want=nonzero; shift ;;
    --grep) greps+=("$2"); shift 2 ;;
    --nogrep) nogreps+=("$2"); shift 2 ;;
    --within) within=$2; shift 2 ;;
    --skip-status) skip_status=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "expect.sh: no command" >&2; exit 2; }

token="gextok_$$_${RANDOM}${RANDOM}"
cmd=()
for a in "$@"; do
  if [ "$a" = "@TOKEN@" ]; then cmd+=("$token"); else cmd+=("$a"); fi
done

out=$(mktemp "${TMPDIR:-/tmp}/gex_expect.XXXXXX")
trap 'rm -f "$out"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/shm_names.sh"
shm_before=$(gex_shm_list)

. "$(dirname "${BASH_SOURCE[0]}")/load_scale.sh"
t0=$(date +%s%N)
# timeout runs the command in a process group of its own, sends it SIGTERM
# (then SIGKILL 5 s later) at the wall-clock cap or when it gets SIGTERM
# itself, which the fair-share clock below sends.
timeout -k 5 $((within * 10)) "${cmd[@]}" >"$out" 2>&1 &
tpid=$!
fair_us=0 last=${EPOCHREALTIME/./} over=0
while kill -0 "$tpid" 2>/dev/null; do
  sleep 0.25
  now=${EPOCHREALTIME/./}
  gex_load
  fair_us=$((fair_us + (now - last) * 100 / gex_lx))
  last=$now
  if [ "$over" = 0 ] && [ "$fair_us" -ge $((within * 1000000)) ]; then
    over=1
    kill -TERM "$tpid" 2>/dev/null
  fi
done
wait "$tpid"
rc=$?
t1=$(date +%s%N)
elapsed_ms=$(((t1 - t0) / 1000000))

cat "$out"
gex_load
echo "---- expect.sh: exit status $rc after ${elapsed_ms} ms ($((fair_us / 1000)) fair-share ms, load factor now $gex_lx/100): ${cmd[*]}"

fail=0
problem() { echo "expect.sh: FAILED: $*"; fail=1; }

if [ -n "$skip_status" ] && [ "$rc" = "$skip_status" ]; then
  grep -E '^SKIP' "$out" >/dev/null || echo "SKIP: (test reported skip status $rc)"
  exit 77
fi

if [ "$over" = 1 ] || { [ "$rc" = 124 ] && [ "$elapsed_ms" -ge $((within * 10000)) ]; }; then
  problem "did not end within ${within} fair-share seconds (killed)"
fi
# (unless that status is the one expected: a launcher's own for a program
# it cannot start)
if { [ "$rc" = 126 ] || [ "$rc" = 127 ]; } && [ "$want:$status" != "status:$rc" ]; then
  problem "the command could not be run (status $rc)"
fi
case "$want" in
  pass)
    [ "$rc" = 0 ] || problem "exit status $rc, expected 0"
    grep -E '^PASS ' "$out" >/dev/null || problem "no 'PASS' line in the output"
    ;;
  status)
    [ "$rc" = "$status" ] || problem "exit status $rc, expected $status"
    ;;
  nonzero)
    [ "$rc" != 0 ] || problem "exit status 0, expected non-zero"
    ;;
esac
for re in ${greps[@]+"${greps[@]}"}; do
  grep -E -- "$re" "$out" >/dev/null || problem "no output line matches: $re"
done
for re in ${nogreps[@]+"${nogreps[@]}"}; do
  if grep -E -- "$re" "$out" >/dev/null; then problem "output has a line matching: $re"; fi
done

# No process of the job may outlive it (bounded poll: PDEATHSIG is asynchronous).
survivors=
for _ in $(seq 1 100); do
  survivors=$(pgrep -f -- "$token" || true)
  [ -z "$survivors" ] && break
  sleep 0.1
done
if [ -n "$survivors" ]; then
  problem "processes of the job survive it: $(ps -o pid=,args= -p "$(echo $survivors | tr ' ' ',')" 2>/dev/null)"
  kill -9 $survivors 2>/dev/null
fi

# /dev/shm must not gain entries of the job's (libgex maps memfd memory
# only; the shm provider's objects are removed: shm_names.sh).
shm_new=$(gex_shm_new "$shm_before")
[ -z "$shm_new" ] || problem "new entries in /dev/shm: $shm_new"

if [ "$fail" = 0 ]; then
  echo "expect.sh: ok"
  exit 0
fi
exit 1
