#!/usr/bin/env python3
"""sock_attack.py -- a stranger attacking a rank of a job that runs over
libgex's own TCP transport (GEX_NET_TRANSPORT=sock; tests/sec_attack.sh,
label security).  It is not part of the job and does not know its secret.

  sock_attack.py MODE sock ADDRFILE NRANKS
      ADDRFILE is what t_sec_victim wrote: "sock", the rank's listening
      address (ip:port), its segment base and size, its pid.  MODE:

      hello  connections that send what a handshake might start with:
             random bytes, hellos of the right shape for every claimed
             rank (then random PROOFs), hellos naming the wrong listener,
             truncated ones (1..63 bytes, then silence), and oversized
             ones (a hello followed by 1 MiB).  The rank must close every
             one (or refuse it at the address check) without admitting it:
             the attacker checks that no connection gets past the
             challenge.
      hold   1100 connections opened and held, sending nothing.  While they
             are held the rank's descriptors may grow by at most the bound
             of connections not authenticated (64) plus a small slack.
      flood  1 GiB of random bytes over 64 connections, as fast as the rank
             takes it: each must be closed after at most one handshake
             message's worth (the rank's own growth is checked by the job).

  sock_attack.py sniff CAPTURE READY STOP
      The capture of sec_replay.py (which see).

  sock_attack.py replay CAPTURE DIR_A DIR_B NRANKS
      Every TCP flow captured (sec_replay.py sniff) that went to rank R's
      listening address in job A is written, over a new connection, to
      rank R of job B.  Passes when at least one flow was replayed and no
      replayed connection was accepted (each is closed by the rank).

Prints one summary line; exit 0 when every attack failed as it should, 1
when one did not, 2 on a usage error.
"""

import json
import os
import random
import socket
import struct
import sys
import time

MAGIC = 0x316B636F73786567  # "gexsock1"
HS = struct.Struct("<QIIII16s16sQ")  # magic, step, from, to, pad, nonce_c, nonce_l, mac
HELLO, CHALLENGE, PROOF, ACCEPT, REFUSE = 1, 2, 3, 4, 5
PENDING_MAX = 64  # SOCK_PENDING_MAX (transport/sock/sock.h)


def read_addr(path):
    with open(path) as f:
        lines = f.read().split("\n")
    if lines[0] != "sock":
        raise SystemExit("sock_attack.py: %s is not a sock rank's address" % path)
    host, port = lines[1].rsplit(":", 1)
    return (host, int(port)), int(lines[3])


def connect(addr, timeout=5.0):
    s = socket.create_connection(addr, timeout=timeout)
    s.settimeout(timeout)
    return s


def closed_by_peer(s, timeout=5.0):
    """True when the rank closes the connection (EOF or reset) within timeout,
    discarding whatever it sends first (a CHALLENGE, a REFUSE)."""
    s.settimeout(timeout)
    end = time.time() + timeout
    try:
        while time.time() < end:
            d = s.recv(4096)
            if not d:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False
    return False


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d:
            break
        b += d
    return b


def recv_msg(s):
    """One handshake message's worth of what the rank sends, or b"" if it
    closes the connection first."""
    try:
        return recv_exact(s, HS.size)
    except (ConnectionResetError, socket.timeout):
        return b""


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def mode_hello(addr, rank, nranks):
    bad = []
    tried = 0
    # random bytes (a whole handshake message's worth or more)
    for n in (64, 65, 200, 4096):
        s = connect(addr)
        s.sendall(os.urandom(n))
        tried += 1
        if not closed_by_peer(s):
            bad.append("random %d bytes: not closed" % n)
        s.close()
    # well-formed hellos claiming every rank, then a random PROOF
    for claimed in range(nranks + 2):
        for to in (rank, (rank + 1) % max(nranks, 2), 0xFFFFFFFF):
            s = connect(addr)
            s.sendall(HS.pack(MAGIC, HELLO, claimed, to, 0, os.urandom(16), bytes(16), 0))
            tried += 1
            m = recv_msg(s)
            if len(m) == HS.size:
                magic, step, frm, t, _, nc, nl, mac = HS.unpack(m)
                if step != CHALLENGE:
                    bad.append("hello from %d to %d: answered with step %d" % (claimed, to, step))
                s.sendall(HS.pack(MAGIC, PROOF, claimed, to, 0, nc, nl, random.getrandbits(64)))
                m2 = recv_msg(s)
                # Only a proven peer gets a verdict (ACCEPT, or REFUSE when
                # the rank is connected already): anything but the close
                # means the PROOF was taken.
                if m2:
                    bad.append("a random PROOF claiming rank %d was answered" % claimed)
            if not closed_by_peer(s):
                bad.append("hello from %d to %d: not closed" % (claimed, to))
            s.close()
    # wrong magic and step, mutated fields
    for i in range(32):
        m = bytearray(HS.pack(MAGIC, HELLO, 0, rank, 0, os.urandom(16), bytes(16), 0))
        m[random.randrange(len(m))] ^= 1 << random.randrange(8)
        s = connect(addr)
        s.sendall(bytes(m))
        tried += 1
        got = recv_msg(s)
        if len(got) == HS.size:
            # a mutation of the nonce still makes a valid hello: the rank
            # answers with a CHALLENGE and waits for the PROOF
            s.sendall(os.urandom(HS.size))
        if not closed_by_peer(s):
            bad.append("mutated hello %d: not closed" % i)
        s.close()
    # oversized: a hello followed by 1 MiB
    s = connect(addr)
    try:
        s.sendall(HS.pack(MAGIC, HELLO, 0, rank, 0, os.urandom(16), bytes(16), 0) + os.urandom(1 << 20))
    except (ConnectionResetError, BrokenPipeError):
        pass
    tried += 1
    if not closed_by_peer(s):
        bad.append("oversized hello: not closed")
    s.close()
    # truncated (1..63 bytes), then silence: the bound of connections not
    # authenticated is reached by as many silent ones again, which closes
    # the oldest -- the truncated ones -- at once
    held = []
    for n in range(1, 64, 4):
        s = connect(addr)
        s.sendall(os.urandom(n) if n < 8 else HS.pack(MAGIC, HELLO, 0, rank, 0, bytes(16), bytes(16), 0)[:n])
        held.append(s)
        tried += 1
        time.sleep(0.01)
    extra = [connect(addr) for _ in range(PENDING_MAX + 1)]
    closed = sum(1 for s in held if closed_by_peer(s, 12.0))
    if closed < len(held):
        bad.append("truncated hellos: %d of %d still open past the bound" % (len(held) - closed, len(held)))
    for s in held + extra:
        s.close()
    return tried, bad


def mode_hold(addr, pid):
    base = fd_count(pid)
    conns = []
    for _ in range(1100):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(addr)
        except BlockingIOError:
            pass
        conns.append(s)
    peak = base
    end = time.time() + 3.0
    while time.time() < end:
        peak = max(peak, fd_count(pid))
        time.sleep(0.05)
    for s in conns:
        s.close()
    bad = []
    if peak > base + PENDING_MAX + 8:
        bad.append("descriptors grew from %d to %d while 1100 connections were held" % (base, peak))
    return 1100, bad, "descriptors %d -> at most %d" % (base, peak)


def mode_flood(addr):
    """1 GiB over 64 connections: each must be closed by the rank (it reads
    at most one handshake message's worth of each).  What the kernel took
    before the close (the attacker's own send buffer included) is reported;
    what the rank kept is checked by t_sec_victim (its growth)."""
    per = (1 << 30) // 64
    sent, open_left = 0, 0
    chunk = os.urandom(1 << 16)
    for _ in range(64):
        s = connect(addr)
        n, closed = 0, False
        try:
            while n < per:
                n += s.send(chunk)
        except (ConnectionResetError, BrokenPipeError):
            closed = True
        except socket.timeout:
            pass
        if not closed:
            closed = closed_by_peer(s, 10.0)
        open_left += not closed
        sent += n
        s.close()
    bad = ["%d of 64 flooding connections were not closed" % open_left] if open_left else []
    return 64, bad, "%d KiB taken by the kernel of 1 GiB" % (sent >> 10)


def mode_replay(capture, dir_a, dir_b, nranks):
    with open(capture) as f:
        flows = json.load(f)
    replayed, bad = 0, []
    for r in range(nranks):
        (a_host, a_port), _ = read_addr(os.path.join(dir_a, "rank%d.addr" % r))
        addr_b, _ = read_addr(os.path.join(dir_b, "rank%d.addr" % r))
        for fl in flows:
            if tuple(fl["dst"]) != (a_host, a_port) or not fl["data"]:
                continue
            data = bytes.fromhex(fl["data"])
            s = connect(addr_b)
            accepted = False
            try:
                s.sendall(data[: HS.size])
                m = recv_exact(s, HS.size)
                if len(m) == HS.size and HS.unpack(m)[1] == CHALLENGE:
                    s.sendall(data[HS.size:])
                    m2 = recv_exact(s, HS.size)
                    accepted = len(m2) > 0  # a verdict of either kind: the PROOF was taken
            except (ConnectionResetError, BrokenPipeError, socket.timeout):
                pass
            if accepted:
                bad.append("a replayed flow to rank %d was accepted" % r)
            # A flow that held only a HELLO (its rank gave the attempt up)
            # waits for a PROOF until the rank's 10 s bound closes it.
            if not closed_by_peer(s, 12.0):
                bad.append("a replayed flow to rank %d was not closed" % r)
            s.close()
            replayed += 1
    if not replayed:
        bad.append("nothing captured to replay")
    return replayed, bad


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "sniff":  # the capture, as sec_replay.py does it
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import sec_replay
        sec_replay.sniff(*sys.argv[2:5])
        sys.exit(0)
    if len(sys.argv) >= 2 and sys.argv[1] == "replay":
        if len(sys.argv) != 6:
            sys.exit(2)
        n, bad = mode_replay(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        note = ""
    else:
        if len(sys.argv) != 5 or sys.argv[2] != "sock":
            print("usage: sock_attack.py hello|hold|flood sock ADDRFILE NRANKS", file=sys.stderr)
            sys.exit(2)
        mode, addrfile, nranks = sys.argv[1], sys.argv[3], int(sys.argv[4])
        addr, pid = read_addr(addrfile)
        rank = int(os.path.basename(addrfile)[4:].split(".")[0])
        note = ""
        if mode == "hello":
            n, bad = mode_hello(addr, rank, nranks)
        elif mode == "hold":
            n, bad, note = mode_hold(addr, pid)
        elif mode == "flood":
            n, bad, note = mode_flood(addr)
        else:
            sys.exit(2)
    for b in bad:
        print("sock_attack.py: FAILED: " + b)
    print("sock_attack.py: %d attempts, %d succeeded%s" % (n, len(bad), (" (" + note + ")") if note else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
