#!/usr/bin/env python3
"""sec_replay.py -- capture a job's TCP streams and replay them into another
job with a plain socket (tests/sec_replay.sh, label security).

  sec_replay.py sniff CAPTURE READY STOP
      Capture every IPv4 TCP segment seen on any interface of the current
      network namespace (a raw AF_PACKET socket; needs root) until the file
      STOP exists; touch READY once capturing.  Writes CAPTURE (JSON): one
      entry per flow (source, destination, the bytes it carried in sequence
      order).  Run it in a namespace the test created, so that only the
      test's own traffic is there.

  sec_replay.py replay CAPTURE DIR_A DIR_B NRANKS
      DIR_A and DIR_B hold what t_sec_victim wrote for two jobs
      (rank<R>.addr: provider name, address in hex).  Every captured flow
      that went to rank R's listening address in job A is written, over a
      new TCP connection made with a plain socket, to rank R of job B.
      Prints one line per flow; exit 0 when at least one flow was replayed,
      1 when there was nothing to replay or the writes failed.

The bytes are replayed as captured except for the tcp provider's responses
(acknowledgements of delivery-complete writes, read responses): libfabric
1.17's tcp provider matches a response to the oldest request it has
outstanding on that connection without checking that there is one, so an
unsolicited response crashes the receiving process inside libfabric, before
libgex sees anything (docs/security.md).  Every other frame -- the
connection request, every message (libgex's handshake and Active Messages
inside the rxm layer's packets), every write and read request -- is
replayed.
"""

import json
import os
import socket
import struct
import sys
import time


def sniff(capture, ready, stop):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0003))  # ETH_P_ALL
    sock.settimeout(0.1)
    open(ready, "w").close()
    segments = {}  # (src, sport, dst, dport) -> {seq: payload}
    while not os.path.exists(stop):
        try:
            pkt = sock.recv(1 << 17)
        except socket.timeout:
            continue
        if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 6:
            continue
        ihl = (pkt[0] & 15) * 4
        total = struct.unpack("!H", pkt[2:4])[0]
        src, dst = socket.inet_ntoa(pkt[12:16]), socket.inet_ntoa(pkt[16:20])
        tcp = pkt[ihl:total]
        if len(tcp) < 20:
            continue
        sport, dport, seq = struct.unpack("!HHI", tcp[:8])
        payload = tcp[(tcp[12] >> 4) * 4:]
        if payload:
            # A packet is seen once per interface and direction: keep one copy.
            segments.setdefault((src, sport, dst, dport), {}).setdefault(seq, payload)
    flows = []
    for (src, sport, dst, dport), segs in segments.items():
        first = min(segs, key=lambda s: (s - min(segs)) & 0xFFFFFFFF)
        data = bytearray()
        for seq in sorted(segs, key=lambda s: (s - first) & 0xFFFFFFFF):
            off = (seq - first) & 0xFFFFFFFF
            if off + len(segs[seq]) > len(data):  # skip retransmitted bytes
                data += segs[seq][max(0, len(data) - off):]
        flows.append({"src": [src, sport], "dst": [dst, dport], "data": data.hex()})
    with open(capture, "w") as f:
        json.dump(flows, f)
    print("sec_replay: captured %d TCP flows, %d bytes"
          % (len(flows), sum(len(fl["data"]) // 2 for fl in flows)))


# libfabric 1.17 tcp provider framing (observed on the wire): a connection
# request (32-byte header, big-endian data length at bytes 2-3, then the
# data), then frames of a 16-byte header: version (3), op, flags (16 bits),
# op_data, rma_iov_cnt, hdr_size, id, and the frame's total size (64 bits).
TCP_VERSION = 3
OP_READ_RSP = 3
OP_DATA_RESP = 2  # op_data of an acknowledgement


def replayable(data):
    """The captured bytes without the provider's responses, and how many
    frames were kept and withheld (framing that does not parse ends it)."""
    if len(data) < 32 or data[0] != TCP_VERSION:
        return data, 0, 0
    off = 32 + struct.unpack("!H", data[2:4])[0]
    out = bytearray(data[:off])
    kept = withheld = 0
    while off + 16 <= len(data):
        version, op, _flags, op_data, _cnt, _hsz, _id, size = struct.unpack_from("<BBHBBBBQ", data, off)
        if version != TCP_VERSION or size < 16 or off + size > len(data):
            break
        if op == OP_READ_RSP or op_data == OP_DATA_RESP:
            withheld += 1
        else:
            out += data[off:off + size]
            kept += 1
        off += size
    return bytes(out), kept, withheld


def rank_address(directory, rank):
    """(ip, port) of a rank's provider address (a struct sockaddr_in)."""
    with open(os.path.join(directory, "rank%d.addr" % rank)) as f:
        lines = f.read().split("\n")
    raw = bytes.fromhex(lines[1].strip())
    family = struct.unpack("<H", raw[:2])[0]
    if family != socket.AF_INET:
        raise SystemExit("sec_replay: rank %d's address is not IPv4 (family %d)" % (rank, family))
    return socket.inet_ntoa(raw[4:8]), struct.unpack("!H", raw[2:4])[0]


def replay(capture, dir_a, dir_b, nranks):
    with open(capture) as f:
        flows = json.load(f)
    targets = {rank_address(dir_a, r): r for r in range(nranks)}
    replayed = 0
    for fl in flows:
        rank = targets.get(tuple(fl["dst"]))
        if rank is None:
            continue
        data, kept, withheld = replayable(bytes.fromhex(fl["data"]))
        b_addr = rank_address(dir_b, rank)
        try:
            with socket.create_connection(b_addr, timeout=5) as s:
                s.sendall(data)
                # Leave the receiver time to read and judge the bytes.
                s.settimeout(0.5)
                end = time.monotonic() + 1.0
                answered = 0
                while time.monotonic() < end:
                    try:
                        got = s.recv(65536)
                    except socket.timeout:
                        continue
                    except OSError:
                        break
                    if not got:
                        break
                    answered += len(got)
            print("sec_replay: replayed %d bytes (%d frames; %d responses withheld) of %s:%d -> "
                  "rank %d (job A %s:%d) into job B's rank %d at %s:%d; it answered %d bytes"
                  % (len(data), kept, withheld, fl["src"][0], fl["src"][1], rank, fl["dst"][0],
                     fl["dst"][1], rank, b_addr[0], b_addr[1], answered))
            replayed += 1
        except OSError as e:
            print("sec_replay: replay into rank %d at %s:%d failed: %s" % (rank, b_addr[0], b_addr[1], e))
            return 1
    if not replayed:
        print("sec_replay: nothing to replay (no captured flow went to job A's ranks)")
        return 1
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "sniff":
        sniff(*sys.argv[2:5])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "replay":
        return replay(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
