#!/usr/bin/env python3
"""sock_storm.py -- a stranger's connection storm against every rank of a
job over libgex's own TCP transport (tests/sock_storm.sh).

  sock_storm.py SECONDS STARTED ADDRFILE...

Each ADDRFILE holds one rank's listening address ("ip port").  For SECONDS
the storm opens connections to every rank as fast as it can, without ever
waiting for one, and keeps at most HOLD of them open (the oldest closes
first); each connection, once made, does one of three things in turn:
nothing (held silent), 64 random bytes (a handshake that fails at once),
or a well-formed HELLO claiming a random rank of the job (which passes the
address check on loopback and holds a slot until its PROOF times out).
STARTED is created once the storm has reached every rank.

Prints one line: connections made, refused or reset, per kind.  Exit 0
(the storm's success is not the test's: the job's is), 2 on a usage error.
"""

import errno
import os
import random
import selectors
import socket
import struct
import sys
import time

MAGIC = 0x316B636F73786567  # "gexsock1"
HS = struct.Struct("<QIIII16s16sQ")  # magic, step, from, to, pad, nonce_c, nonce_l, mac
HELLO = 1
HOLD = 800  # connections held at once (well below the descriptor limit)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    seconds = float(sys.argv[1])
    started = sys.argv[2]
    targets = []
    for path in sys.argv[3:]:
        with open(path) as f:
            ip, port = f.read().split()
        targets.append((ip, int(port)))
    nranks = len(targets)
    sel = selectors.DefaultSelector()
    held = []  # (socket, made)
    made = refused = 0
    kinds = [0, 0, 0]
    end = time.time() + seconds
    i = 0
    reached = set()
    while time.time() < end:
        # Open a batch of new connections (non-blocking: never wait).
        for _ in range(32):
            rank = i % nranks
            i += 1
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(targets[rank])
            except BlockingIOError:
                pass
            except OSError:
                refused += 1
                s.close()
                continue
            held.append((s, rank))
            sel.register(s, selectors.EVENT_WRITE, (rank, i % 3))
            reached.add(rank)
            while len(held) > HOLD:
                old, _ = held.pop(0)
                try:
                    sel.unregister(old)
                except (KeyError, ValueError):
                    pass
                old.close()
        if started and len(reached) == nranks:
            open(started, "w").close()
            started = None
        # Connections made: do their kind's thing once.
        for key, _ in sel.select(timeout=0):
            s = key.fileobj
            rank, kind = key.data
            sel.unregister(s)
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                refused += 1
                continue
            made += 1
            kinds[kind] += 1
            try:
                if kind == 1:
                    s.send(os.urandom(64))
                elif kind == 2:
                    claim = random.randrange(nranks)
                    s.send(HS.pack(MAGIC, HELLO, claim, rank, 0, os.urandom(16), bytes(16), 0))
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.ECONNRESET, errno.EPIPE):
                    raise
    for s, _ in held:
        s.close()
    print("sock_storm.py: %d connections made (%d silent, %d garbage, %d hello), %d refused or "
          "failed, over %.0f s" % (made, kinds[0], kinds[1], kinds[2], refused, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
