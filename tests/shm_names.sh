# tests/shm_names.sh -- sourced by expect.sh and fault.sh: the /dev/shm
# entries a job of libgex can leave behind, and the check that a job left
# none.  Only names that libgex or the libfabric providers it drives make
# are counted: "gex-*" (the shm provider's objects, named by libgex
# "<GEX_JOBID>.<rank>" or "gex-<pid>-<random>.<rank>") and the shm
# provider's own default "<pid>:<uid>:<n>".  Other programs' objects (an
# Open MPI job's vader_segment.*, ...) that appear meanwhile on a busy
# machine are not the job's.

# The job-made entries now, sorted.
gex_shm_list() {
  ls -A /dev/shm 2>/dev/null | grep -E '^(gex-.*|[0-9]+:[0-9]+:[0-9]+)$' | sort
}

# gex_shm_new <entries before>: prints those gained since, waiting up to
# 5 s for them to go (an orphaned rank's death is asynchronous).
gex_shm_new() {
  local new=
  for _ in $(seq 1 50); do
    new=$(comm -13 <(echo "$1") <(gex_shm_list))
    [ -z "$new" ] && break
    sleep 0.1
  done
  echo "$new"
}
