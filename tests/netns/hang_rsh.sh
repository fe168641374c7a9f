#!/usr/bin/env bash
# tests/netns/hang_rsh.sh -- a "remote shell" that never connects (it just
# waits, as ssh waiting for a password would), for the bootstrap timeout
# test.  gexrun must give up after GEX_BOOTSTRAP_TIMEOUT and kill it.
# usage (as GEX_RSH): hang_rsh.sh host command...
exec sleep 600
