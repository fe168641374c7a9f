#!/usr/bin/env bash
# tests/netns/late_rank.sh -- rank R does not start libgex in time (it waits
# on purpose, 60 s); every other rank runs the program.  For the bootstrap
# timeout test: gexrun must end the job long before the wait is over.
# usage: late_rank.sh R program [args...]
late=$1
shift
[ "$GEX_RANK" = "$late" ] && exec sleep 60
exec "$@"
