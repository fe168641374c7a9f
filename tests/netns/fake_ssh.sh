#!/usr/bin/env bash
# tests/netns/fake_ssh.sh -- behaves like "ssh host command..." for a host
# that is a network namespace: the words of the command are joined with
# blanks and run by a shell there (which is what sshd does with them), and
# the shell stays the parent of the command.
# usage (as GEX_RSH): fake_ssh.sh host command...
host=$1
shift
exec ip netns exec "$host" sh -c "$*; exit \$?"
