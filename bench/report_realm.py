#!/usr/bin/env python3
"""bench/report_realm.py -- Realm's memspeed on libgex and on the reference
GASNet-EX, side by side ("Realm on both libraries" in docs/performance.md).

Nothing here fetches or builds Realm: it is built by hand (docs/clients.md),
from the same Legion sources, against a libgex install (once with its ofi
identity, once with its udp identity) and against the reference's udp
conduit.  This script is told where they are:

  GEX_REALM_GEX    a libgex install: its bin/gasnetrun_ofi and bin/amudprun
                   start the libgex runs, and its lib/ comes first in
                   LD_LIBRARY_PATH (Realm built against any libgex install
                   with the same headers runs on this one)
  GEX_REALM_REF    the reference's install (its bin/amudprun)
  GEX_REALM_BENCH  a directory holding gex-ofi/memspeed, gex-udp/memspeed and
                   ref-udp/memspeed, Realm's memspeed of each build

Each round runs memspeed at 2 ranks on one host with every peer through the
network (GASNET_SUPERNODE_MAXSIZE=1) and with Realm's own shared-memory path
between ranks off (-ll:ipc_limit 1), four ways: libgex's ofi identity over
its default transport (sock) and over libfabric tcp;ofi_rxm, libgex's udp
identity (amudprun), and the reference's udp conduit (amudprun); and then
again with two processes spinning beside the job (crowded).  memspeed
copies a 16 MiB buffer between every pair of memories: SYSTEM_MEM (client
memory Realm binds to an endpoint of its own) and REGDMA_MEM (in the
primordial segment).  The table gives, per pair of memories on different
ranks, the bandwidth of the whole copy (bytes over memspeed's latency plus
bytes over its bandwidth, steadier than its bandwidth alone), median and
range of the rounds; a libgex run that does not print its transport line is
not counted.

Usage:  bench/report_realm.py [--rounds N] [--out FILE] [--raw DIR]
  Runs the rounds (default 5) and rewrites the part of FILE (default
  docs/performance.md) between the "bench/report realm" markers.
  bench/report runs it too when the three variables are set.
Exit status: 0 on success, 2 when the variables do not name the builds.
"""

import os
import re
import statistics
import sys
import time

import report_block

BEGIN = "<!-- bench/report realm: begin -->"
END = "<!-- bench/report realm: end -->"
RAW = "realm"  # the raw directory's name under build-bench/bench-report
BUF = 16 << 20  # memspeed -b 16 (MiB)
ARGS = ["-ll:rsize", "128", "-b", "16", "-reps", "10", "-level", "app=2", "-ll:ipc_limit", "1"]
# (name, build under GEX_REALM_BENCH, launcher's install, extra environment)
RUNS = [
    ("libgex sock", "gex-ofi", "gex", {"GEX_NET_VERBOSE": "1"}),
    ("libgex tcp;ofi_rxm", "gex-ofi", "gex",
     {"GEX_NET_VERBOSE": "1", "GEX_NET_TRANSPORT": "ofi", "GEX_OFI_PROVIDER": "tcp;ofi_rxm"}),
    ("libgex udp identity", "gex-udp", "gex", {"GEX_NET_VERBOSE": "1"}),
    ("reference udp", "ref-udp", "ref", {}),
]
LOADS = ("quiet", "crowded")
PAIRS = [("SYSTEM_MEM", "SYSTEM_MEM"), ("SYSTEM_MEM", "REGDMA_MEM"),
         ("REGDMA_MEM", "SYSTEM_MEM"), ("REGDMA_MEM", "REGDMA_MEM")]


def configured():
    """The three paths, or the reason they are not usable."""
    paths = {k: os.environ.get(k, "") for k in ("GEX_REALM_GEX", "GEX_REALM_REF", "GEX_REALM_BENCH")}
    missing = [k for k, v in paths.items() if not v]
    if missing:
        return None, "%s not set" % ", ".join(missing)
    for k, tools in (("GEX_REALM_GEX", ("gasnetrun_ofi", "amudprun")), ("GEX_REALM_REF", ("amudprun",))):
        for t in tools:
            if not os.access(os.path.join(paths[k], "bin", t), os.X_OK):
                return None, "%s: no bin/%s in %s" % (k, t, paths[k])
    for _, build, _, _ in RUNS:
        exe = os.path.join(paths["GEX_REALM_BENCH"], build, "memspeed")
        if not os.access(exe, os.X_OK):
            return None, "GEX_REALM_BENCH: no program %s" % exe
    return paths, None


_MEM = re.compile(r"Memory: ([0-9a-f]{16}) Kind:(\w+)")
_COPY = re.compile(r"copy ([0-9a-f]{16}) -> ([0-9a-f]{16}): bw:(\S+) lat:([^,\s]+)")


def parse(text, nbytes=BUF):
    """{(src rank, src kind, dst rank, dst kind): GB/s of the whole copy}.
    A Realm id holds the rank in its bits 40..55 (hex digits 2..5)."""
    kind = {m.group(1): m.group(2) for m in _MEM.finditer(text)}
    out = {}
    for m in _COPY.finditer(text):
        s, d = m.group(1), m.group(2)
        if s not in kind or d not in kind:
            continue
        try:
            bw, lat = float(m.group(3)), float(m.group(4))
        except ValueError:
            continue
        full_ns = lat + nbytes / bw if bw > 0 else 0
        if full_ns <= 0:
            continue  # (memspeed's bandwidth is a difference of two times: it can come out negative)
        out[(int(s[2:6], 16), kind[s], int(d[2:6], 16), kind[d])] = nbytes / full_ns
    return out


class _Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def run_one(paths, name, build, inst, extra, rawdir, tag):
    exe = os.path.join(paths["GEX_REALM_BENCH"], build, "memspeed")
    prefix = paths["GEX_REALM_GEX" if inst == "gex" else "GEX_REALM_REF"]
    env = dict(os.environ, GASNET_SUPERNODE_MAXSIZE="1", GASNET_SPAWNFN="L", **extra)
    for k in ("GEX_SUPERNODE_MAXSIZE", "GEX_NET_TRANSPORT", "GEX_OFI_PROVIDER", "FI_PROVIDER"):
        if k not in extra:
            env.pop(k, None)
    if inst == "gex":
        env["LD_LIBRARY_PATH"] = os.path.join(prefix, "lib") + (
            ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
    if build == "gex-ofi":
        cmd = [os.path.join(prefix, "bin", "gasnetrun_ofi"), "-n", "2", exe] + ARGS
    else:
        cmd = [os.path.join(prefix, "bin", "amudprun"), "-np", "2", exe] + ARGS
    text, rc = report_block.run_captured(cmd, env, 300)
    if rawdir:
        with open(os.path.join(rawdir, "memspeed-%s-%s.txt" % (re.sub(r"[^a-z0-9]+", "-", name), tag)), "w") as f:
            f.write(" ".join(cmd) + "\n" + text)
    if rc != 0:
        return None, "exit %s" % rc
    if inst == "gex" and "libgex: network transport" not in text:
        return None, "no 'libgex: network transport' line"
    if "ofi" in extra.get("GEX_NET_TRANSPORT", "") and "ofi" not in _transport_line(text):
        return None, "libgex did not use libfabric"
    got = parse(text)
    if not any(a != b for a, _, b, _ in got):
        return None, "no copy between ranks in its output"
    return got, None


def _transport_line(text):
    for line in text.splitlines():
        if "libgex: network transport" in line:
            return line
    return ""


def run(rounds, say, rawdir):
    """Interleaved rounds; returns {"values": {"name|pair": [GB/s...]}, "notes": [...], ...}."""
    paths, why = configured()
    if not paths:
        return {"skipped": why}
    os.makedirs(rawdir, exist_ok=True)
    values, notes, t0 = {}, [], time.time()
    for rnd in range(1, rounds + 1):
        for load in LOADS:
            with report_block.Crowd() if load == "crowded" else _Quiet():
                for name, build, inst, extra in RUNS:
                    got, bad = run_one(paths, name, build, inst, extra, rawdir, "%s-%d" % (load, rnd))
                    if bad:
                        notes.append("round %d, %s, %s: not counted (%s)" % (rnd, load, name, bad))
                        continue
                    for (sr, sk, dr, dk), v in got.items():
                        if sr != dr:
                            values.setdefault("%s|%s|%d %s -> %d %s" % (name, load, sr, sk, dr, dk), []).append(v)
        say("  realm: round %d of %d (%.0f s)" % (rnd, rounds, time.time() - t0))
    return {"values": values, "notes": notes, "rounds": rounds, "seconds": time.time() - t0,
            "load": "%.2f" % os.getloadavg()[0], "libgex": report_block.libgex_version(paths["GEX_REALM_GEX"])}


def _med(data, name, load, key):
    v = data["values"].get("%s|%s|%s" % (name, load, key))
    return (statistics.median(v), min(v), max(v)) if v else None


def table(L, data):
    """Append the section's Markdown lines to L."""
    L.append("## Realm on both libraries")
    L.append("")
    if not data or "skipped" in data:
        L.append("Not measured: %s (bench/report_realm.py says what to set)." %
                 (data or {}).get("skipped", "not run"))
        return
    L.append("Realm's `memspeed`, built from the same Legion sources against libgex (its ofi and udp "
             "identities) and against the reference's udp conduit, interleaved rounds (%d) at 2 ranks on "
             "one host, every copy between the ranks through the network (`GASNET_SUPERNODE_MAXSIZE=1`, "
             "`-ll:ipc_limit 1`), quiet and with two spinning processes beside the job (crowded), "
             "libgex `%s`, %.0f s, load average %s at the end (bench/report_realm.py; reproduce with "
             "`GEX_REALM_GEX=... GEX_REALM_REF=... GEX_REALM_BENCH=... bench/report_realm.py`). GB/s "
             "of a whole 16 MiB copy, median (range); SYSTEM is client memory Realm binds to an "
             "endpoint of its own, REGDMA lies in the primordial segment. The last column is libgex's "
             "udp identity against the reference's udp conduit (above 1: libgex is better)." % (
                 data["rounds"], data.get("libgex", "?"), data.get("seconds", 0), data.get("load", "?")))
    L.append("")
    names = [r[0] for r in RUNS]
    L.append("| copy | load | " + " | ".join(names) + " | udp ratio |")
    L.append("| --- | --- |" + " --- |" * (len(names) + 1))
    cell = lambda m: "%.3g (%.3g–%.3g)" % m if m else "–"
    for a, b in ((0, 1), (1, 0)):
        for sk, dk in PAIRS:
            key = "%d %s -> %d %s" % (a, sk, b, dk)
            for load in LOADS:
                ms = [_med(data, n, load, key) for n in names]
                if not any(ms):
                    continue
                g, r = ms[names.index("libgex udp identity")], ms[names.index("reference udp")]
                ratio = "%.2f" % (g[0] / r[0]) if g and r else "–"
                L.append("| rank %d %s → rank %d %s | %s | %s | %s |" % (
                    a, sk.replace("_MEM", ""), b, dk.replace("_MEM", ""), load,
                    " | ".join(cell(m) for m in ms), ratio))
    L.append("")
    # The registered-memory target: REGDMA -> REGDMA against SYSTEM -> SYSTEM, same run.
    for load in LOADS:
        parts = []
        for n in names:
            rs = []
            for a, b in ((0, 1), (1, 0)):
                reg = _med(data, n, load, "%d REGDMA_MEM -> %d REGDMA_MEM" % (a, b))
                sys_ = _med(data, n, load, "%d SYSTEM_MEM -> %d SYSTEM_MEM" % (a, b))
                if reg and sys_:
                    rs.append("%.0f %%" % (100 * reg[0] / sys_[0]))
            if rs:
                parts.append("%s %s" % (n, " and ".join(rs)))
        if parts:
            L.append("REGDMA → REGDMA against SYSTEM → SYSTEM between the ranks, %s (rank 0 to 1, and "
                     "1 to 0): %s." % (load, "; ".join(parts)))
            L.append("")
    report_block.notes(L, data["notes"])


def write_block(path, lines):
    """Replace the block between this part's markers in path (appended when absent)."""
    report_block.write_block(path, lines, BEGIN, END)


def self_test():
    """The parser, the table and the block, on lines written here in
    memspeed's output format; 0 when all hold."""
    log = ("[0 - 7f] 0.18 {3}{app}: Memory: 1e00000000000000 Kind:SYSTEM_MEM Capacity: 536870912\n"
           "[0 - 7f] 0.18 {3}{app}: Memory: 1e00010000000002 Kind:REGDMA_MEM Capacity: 134217728\n"
           "[0 - 7f] 4.2 {2}{app}: copy 1e00000000000000 -> 1e00010000000002: bw:0.5 lat:1e+06, "
           "num_hops_full_copy:2, num_hops_short_copy:2\n"
           "[0 - 7f] 6.5 {2}{app}: copy 1e00010000000002 -> 1e00000000000000: bw:-25.8 lat:2e+06, "
           "num_hops_full_copy:1, num_hops_short_copy:1\n")
    got = parse(log)
    want = BUF / (1e6 + BUF / 0.5)
    checks = [
        list(got) == [(0, "SYSTEM_MEM", 1, "REGDMA_MEM")] and abs(got[(0, "SYSTEM_MEM", 1, "REGDMA_MEM")] - want) < 1e-9,
    ]
    k = "0 SYSTEM_MEM -> 1 SYSTEM_MEM"
    r = "0 REGDMA_MEM -> 1 REGDMA_MEM"
    data = {"rounds": 2, "notes": ["a note"], "values": {
        "libgex udp identity|quiet|" + k: [0.8, 1.0], "reference udp|quiet|" + k: [0.5, 0.5],
        "libgex udp identity|quiet|" + r: [0.7, 0.7]}}
    L = []
    table(L, data)
    rows = [x for x in L if x.startswith("| rank 0 SYSTEM")]
    checks.append(len(rows) == 1 and "| quiet |" in rows[0] and rows[0].endswith("| 1.80 |"))
    checks.append(any("libgex udp identity 78 %" in x for x in L))
    checks.append(report_block.block_check(write_block, BEGIN))
    return report_block.verdict("report_realm", checks)


def main(argv):
    return report_block.standalone_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
