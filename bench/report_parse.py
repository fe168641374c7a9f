"""bench/report_parse.py -- bench/report's measured points: the series of
every path (series[name][size] = [values of all rounds]) and the parsers
that fill them from each benchmark's output.
"""

import re

import report_ref
from report_common import MIB, NEW_BENCHES, NUM, RE_AM, RE_LARGE, RE_MPI, RE_OP, RE_SMALL, RE_SOCK


# Every measured point is stored as series[name][size] = [values of all rounds].
# Latencies in us, bandwidths in bytes/s.  'kind' says how to combine rounds.

class Results:
    def __init__(self):
        self.series = {}   # name -> {"kind": "lat"|"bw"|"am", "unit": ..., "points": {size: [v...]}}

    def add(self, name, kind, size, value):
        s = self.series.setdefault(name, {"kind": kind, "points": {}})
        s["points"].setdefault(str(size), []).append(value)

    def rounds(self, name, size):
        """Every round's value of one point ([] where it was not measured)."""
        s = self.series.get(name)
        return s["points"].get(str(size), []) if s else []

    def best(self, name):
        """{size: best value}: min for latencies, max for bandwidths."""
        s = self.series.get(name)
        if not s:
            return {}
        pick = min if s["kind"] == "lat" else max
        return {int(k): pick(v) for k, v in s["points"].items()}


GEX_LARGE_OPS = {"A": "PutNBI", "B": "GetNBI", "C": "PutNB", "D": "GetNB",
                 "E": "PutNBI distinct", "F": "GetNBI distinct"}
MPI_OPS = {"A": ("lat", "MPI_Put+flush"), "B": ("lat", "MPI_Get+flush"),
           "C": ("bw", "MPI_Put aggregate"), "D": ("bw", "MPI_Get aggregate"),
           "E": ("bw", "Isend/Irecv Uniband"), "F": ("lat", "PingPong half round trip")}
# Series keys of the op-line benchmarks (gex-testratomic's sections: U64
# A-F, I64 G-L; latency, ADD NBI flood, FADD NB flood; remote, own rank).
RATOMIC_PATS = ["FADD latency", "ADD flood", "FADD flood"]
MPI_COLL_KEYS = {"A": "barrier primordial", "B": "atomic U64 FADD latency remote",
                 "C": "atomic U64 FADD latency own", "D": "atomic U64 FADD flood remote",
                 "E": "atomic U64 ADD flood remote", "F": "Broadcast", "G": "ReduceToAll U64",
                 "H": "ReduceToAll DBL", "I": "ReduceToOne U64"}
COLL_KEYS = {"A": "Broadcast", "B": "ReduceToAll U64", "C": "ReduceToAll DBL", "D": "ReduceToOne U64"}
BARRIER_KEYS = {"A": "barrier primordial", "B": "barrier split", "C": "barrier legacy anonymous",
                "D": "barrier legacy named"}
STRIDED_KEYS = {"A": "StridedPutNBI", "B": "StridedGetNBI", "C": "chunked PutNBI", "D": "chunked GetNBI",
                "E": "contiguous PutNBI", "F": "contiguous GetNBI"}


def op_key(bench, m):
    """(series key, kind, size, value) of one op line (RE_OP match)."""
    sec, size, us, desc = m.group(1), int(m.group(3)), float(m.group(5)), m.group(8)
    if bench == "gex-testbarrier":
        return BARRIER_KEYS[sec], "lat", size, us
    if bench == "gex-testratomic":
        i = ord(sec) - ord("A")
        return "atomic %s %s %s" % ("I64" if i >= 6 else "U64", RATOMIC_PATS[(i % 6) // 2],
                                    "own" if i % 2 else "remote"), "lat", 8, us
    if bench == "gex-testcoll":
        return COLL_KEYS[sec], "lat", size, us
    if bench == "gex-teststrided":
        c = re.search(r"chunk (\d+) B", desc)
        chunk = int(c.group(1)) if c else size
        key = STRIDED_KEYS[sec] + ("" if sec in "EF" else " chunk %d" % chunk)
        return key, "bw", size, size / us * 1e6
    return MPI_COLL_KEYS[sec], "lat", size, us


FLOOR_BENCHES = ("sock-pingpong", "fi_pingpong")
AM_PATTERNS = ["ping-pong Req/Rep", "ping-pong Req/Req", "flood Req", "flood Req/Rep"]


def parse_fi_pingpong(text):
    """fi_pingpong's table -> the 8-byte usec/xfer (half a round trip: the
    time of each run is divided by the messages sent both ways), or None."""
    col = None
    for line in text.splitlines():
        f = line.split()
        if "usec/xfer" in f:
            col = f.index("usec/xfer")
        elif col is not None and len(f) > col and f[0] == "8" and re.match(NUM + "$", f[col]):
            return float(f[col])
    return None


def parse_floor(bench, path, text, res):
    """sock-pingpong and fi_pingpong: one 8-byte round trip per run, stored
    as 'PATH round trip' at size 8."""
    if bench == "sock-pingpong":
        m = RE_SOCK.match(text.strip())
        if not m:
            raise ValueError("unparsable output: " + text.strip())
        res.add("%s %s%s round trip" % (path, m.group(1), m.group(2) or ""), "lat", 8, float(m.group(3)))
        return 1
    us = parse_fi_pingpong(text)
    if us is None:
        raise ValueError("no 8-byte line with usec/xfer in: " + " / ".join(text.strip().splitlines()))
    res.add(path + " round trip", "lat", 8, 2 * us)
    return 1


def parse(bench, path, text, res):
    """Parses one run's stdout into res; returns the number of result lines."""
    if bench.startswith("ss:"):
        return report_ref.parse(bench, path, text, res, parse)
    if bench in FLOOR_BENCHES:
        return parse_floor(bench, path, text, res)
    n = 0
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if bench == "gex-testsmall":
            m = RE_SMALL.match(line)
            if not m:
                raise ValueError("unparsable line: " + line)
            op = "Put" if m.group(1) == "A" else "Get"
            res.add("%s %s (blocking)" % (path, op), "lat", int(m.group(3)), float(m.group(6)))
        elif bench == "gex-testlarge":
            m = RE_LARGE.match(line)
            if not m:
                raise ValueError("unparsable line: " + line)
            res.add("%s %s" % (path, GEX_LARGE_OPS[m.group(1)]), "bw", int(m.group(3)),
                    float(m.group(5)) * MIB)
        elif bench in NEW_BENCHES or bench == "mpi-coll-bench":
            m = RE_OP.match(line)
            if not m:
                raise ValueError("unparsable line: " + line)
            key, kind, size, v = op_key(bench, m)
            res.add("%s %s" % (path, key), kind, size, v)
        elif bench == "gex-testam":
            m = RE_AM.match(line)
            if not m:
                raise ValueError("unparsable line: " + line)
            name = "%s AM %s %s" % (path, m.group(3), m.group(8))
            res.add(name + " us/op", "lat", int(m.group(4)), float(m.group(6)))
            if m.group(7) != "-":
                res.add(name + " bw", "bw", int(m.group(4)), float(m.group(7)) * MIB)
        else:
            m = RE_MPI.match(line)
            if not m:
                raise ValueError("unparsable line: " + line)
            kind, label = MPI_OPS[m.group(1)]
            size = int(m.group(3))
            if kind == "lat":
                res.add("%s %s" % (path, label), "lat", size, float(m.group(6)))
            else:
                res.add("%s %s" % (path, label), "bw", size, float(m.group(7)) * 1e6)
        n += 1
    return n
