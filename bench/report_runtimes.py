#!/usr/bin/env python3
"""bench/report_runtimes.py -- UPC++'s own benchmarks on libgex and on the
reference GASNet-EX, side by side ("Runtimes on both libraries" in
docs/performance.md).

Nothing here fetches or builds a runtime: UPC++ is built by hand, twice from
the same sources, once against each library (docs/clients.md), and its
bench/ programs with each build's own `upcxx` wrapper.  This script is told
where they are:

  GEX_UPCXX_GEX    the UPC++ install built against libgex (its bin/upcxx-run)
  GEX_UPCXX_REF    the UPC++ install built against the reference
  GEX_UPCXX_BENCH  a directory holding gex/<net>/<prog> and ref/<net>/<prog>,
                   each built by that install's `upcxx -O -network=<net>
                   -threadmode=seq`, for <net> in smp, udp and <prog> in
                   misc_perf, put_flood, nebr_exchange

Each round runs every program on both networks, libgex first then the
reference, at 2 ranks with each install's `upcxx-run -n 2`, quiet and again
with two processes spinning beside the job (crowded): smp on one host,
udp with every peer through the network (GASNET_SUPERNODE_MAXSIZE=1 for
both; GASNET_SPAWNFN=L, which the reference's amudprun needs to start ranks
here).  A udp run must show that it went through the network (misc_perf's
remote section names world(), put_flood measures no local peer, libgex
prints its network transport line), else it is not counted.  The table
gives the median and range of the rounds per library and the ratio, read so
that above 1 means libgex is better (reference / libgex for times,
libgex / reference for bandwidths).

Usage:  bench/report_runtimes.py [--rounds N] [--out FILE] [--raw DIR]
  Runs the rounds (default 5) and rewrites the part of FILE (default
  docs/performance.md) between the "bench/report runtimes" markers.
  bench/report runs it too when the three variables are set.
Exit status: 0 on success, 2 when the variables do not name the builds.
"""

import contextlib
import os
import re
import statistics
import subprocess
import sys
import time

import report_block

BEGIN = "<!-- bench/report runtimes: begin -->"
END = "<!-- bench/report runtimes: end -->"
RAW = "runtimes"  # the raw directory's name under build-bench/bench-report
PROGS = ("misc_perf", "put_flood", "nebr_exchange")
NETS = ("smp", "udp")
LOADS = ("quiet", "crowded")
LIBS = ("gex", "ref")
LIB_NAME = {"gex": "libgex", "ref": "reference"}
# Arguments and environment of each program: one round takes about 30 s here.
ARGS = {"misc_perf": ["20000"]}
ENV = {"put_flood": {"sizes": "8 4096 65536", "wait_secs": "0.1"},
       # (the reference's udp conduit refuses Longs above 65000 bytes)
       "nebr_exchange": {"sizes": "1024 16384", "nebrs": "4", "wait_secs": "0.3"}}
# The rows of the table: (program, metric) as parsed below.
ROWS = [
    ("misc_perf", "upcxx::progress"),
    ("misc_perf", "upcxx::rpc(self,noop0)"),
    ("misc_perf", "upcxx::rpc(peer,noop0)"),
    ("misc_perf", "upcxx::rput<double>(peer)"),
    ("misc_perf", "atomic_domain<int64>::fetch_add(relaxed) peer latency"),
    ("misc_perf", "atomic_domain<int64>::add(relaxed) peer overhead"),
    ("put_flood", "lat gasnet 8"),
    ("put_flood", "bw gasnet 8"),
    ("put_flood", "bw gasnet-nbi 8"),
    ("put_flood", "bw gasnet-nbi 4096"),
    ("put_flood", "bw upcxx-fut 4096"),
    ("put_flood", "bw gasnet-nbi 65536"),
    ("put_flood", "bw upcxx-fut 65536"),
    ("nebr_exchange", "rput 4 nebrs 1024"),
    ("nebr_exchange", "rput 4 nebrs 16384"),
    ("nebr_exchange", "long 4 nebrs 16384"),
    ("nebr_exchange", "rdzv 4 nebrs 16384"),
]


def configured():
    """The three paths, or the reason they are not usable."""
    paths = {k: os.environ.get(k, "") for k in ("GEX_UPCXX_GEX", "GEX_UPCXX_REF", "GEX_UPCXX_BENCH")}
    missing = [k for k, v in paths.items() if not v]
    if missing:
        return None, "%s not set" % ", ".join(missing)
    for lib, k in (("gex", "GEX_UPCXX_GEX"), ("ref", "GEX_UPCXX_REF")):
        if not os.access(os.path.join(paths[k], "bin", "upcxx-run"), os.X_OK):
            return None, "%s: no bin/upcxx-run in %s" % (k, paths[k])
        for net in NETS:
            for p in PROGS:
                exe = os.path.join(paths["GEX_UPCXX_BENCH"], lib, net, p)
                if not os.access(exe, os.X_OK):
                    return None, "GEX_UPCXX_BENCH: no program %s" % exe
    return paths, None


_MISC = re.compile(r"^0: (.*?) +: .* s +([0-9.eE+-]+) us$")
_FIELD = {k: re.compile(r"\b%s=\"?([^\",)]*)" % k) for k in ("size", "kind", "how", "bw", "nebrs", "via")}


def _field(line, k):
    m = _FIELD[k].search(line)
    return m.group(1) if m else None


def parse(prog, text):
    """{metric: value}: microseconds for misc_perf, bytes/s otherwise."""
    out = {}
    for line in text.splitlines():
        if prog == "misc_perf":
            m = _MISC.match(line)
            if m:
                out[m.group(1)] = float(m.group(2))
        elif line.startswith("emit(") and _field(line, "bw"):
            if prog == "put_flood":
                key = "%s %s %s" % (_field(line, "kind"), _field(line, "how"), _field(line, "size"))
            else:
                key = "%s %s nebrs %s" % (_field(line, "via"), _field(line, "nebrs"), _field(line, "size"))
            out[key] = float(_field(line, "bw"))
    return out


def _through_network(prog, lib, text):
    """Why a udp run did not go through the network, or None."""
    if prog == "misc_perf" and "(world())" not in text:
        return "misc_perf's peer is in its local team"
    if prog == "put_flood" and 'peer="local"' in text:
        return "put_flood measured a local peer"
    if lib == "gex" and "libgex: network transport" not in text:
        return "no 'libgex: network transport' line"
    return None


def run_one(paths, lib, net, prog, rawdir, tag):
    install = paths["GEX_UPCXX_GEX" if lib == "gex" else "GEX_UPCXX_REF"]
    exe = os.path.join(paths["GEX_UPCXX_BENCH"], lib, net, prog)
    env = dict(os.environ, GASNET_SPAWNFN="L", report_file="-")
    for k in ("GASNET_SUPERNODE_MAXSIZE", "GEX_SUPERNODE_MAXSIZE", "report_args"):
        env.pop(k, None)
    env.update(ENV.get(prog, {}))
    if net == "udp":
        env["GASNET_SUPERNODE_MAXSIZE"] = "1"
        if lib == "gex":
            env["GEX_NET_VERBOSE"] = "1"
    cmd = [os.path.join(install, "bin", "upcxx-run"), "-n", "2", exe] + ARGS.get(prog, [])
    text, rc = report_block.run_captured(cmd, env, 120)
    if rawdir:
        with open(os.path.join(rawdir, "upcxx-%s-%s-%s-%s.txt" % (prog, lib, net, tag)), "w") as f:
            f.write(" ".join(cmd) + "\n" + text)
    if rc != 0 or not re.search(r"^SUCCESS", text, re.M):
        return None, "exit %s" % rc
    why = _through_network(prog, lib, text) if net == "udp" else None
    if why:
        return None, why
    return parse(prog, text), None


def run(rounds, say, rawdir):
    """Interleaved rounds; returns {"values": {"prog|metric|net|load|lib": [..]}, "notes": [...], ...}."""
    paths, why = configured()
    if not paths:
        return {"skipped": why}
    os.makedirs(rawdir, exist_ok=True)
    values, notes, t0 = {}, [], time.time()
    for rnd in range(1, rounds + 1):
        for load in LOADS:
            with report_block.Crowd() if load == "crowded" else contextlib.nullcontext():
                for prog in PROGS:
                    for net in NETS:
                        for lib in LIBS:
                            got, bad = run_one(paths, lib, net, prog, rawdir, "%s-%d" % (load, rnd))
                            if bad:
                                notes.append("round %d, %s, %s %s on %s: not counted (%s)" % (
                                    rnd, load, prog, net, LIB_NAME[lib], bad))
                                continue
                            for metric, v in got.items():
                                values.setdefault("|".join((prog, metric, net, load, lib)), []).append(v)
        say("  runtimes: round %d of %d (%.0f s)" % (rnd, rounds, time.time() - t0))
    return {"values": values, "notes": notes, "rounds": rounds, "seconds": time.time() - t0,
            "paths": paths, "identity": _identity(paths), "load": "%.2f" % os.getloadavg()[0]}


def _identity(paths):
    """What each UPC++ install says of itself and of its GASNet (upcxx --version)."""
    out = {}
    for lib, k in (("gex", "GEX_UPCXX_GEX"), ("ref", "GEX_UPCXX_REF")):
        try:
            p = subprocess.run([os.path.join(paths[k], "bin", "upcxx"), "--version"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30,
                               universal_newlines=True)
            out[lib] = " ".join(p.stdout.splitlines()[0].split()) if p.stdout else "?"
        except (OSError, subprocess.TimeoutExpired):
            out[lib] = "?"
    return out


def _fmt(v, unit):
    if unit == "us":
        return "%.3g" % v
    return "%.3g" % (v / 1e9)


def table(L, data):
    """Append the section's Markdown lines to L."""
    L.append("## Runtimes on both libraries")
    L.append("")
    if not data or "skipped" in data:
        L.append("Not measured: %s (bench/report_runtimes.py says what to set)." %
                 (data or {}).get("skipped", "not run"))
        return
    L.append("UPC++'s own bench/ programs, built from the same sources against libgex and against the "
             "reference, %d interleaved rounds at 2 ranks (bench/report_runtimes.py): smp on one host, udp "
             "with every peer through the network on loopback; quiet, and crowded: two spinning processes "
             "beside the job on the 2 cores. Median (range) of the rounds; times in "
             "µs, bandwidths in GB/s; the ratio is above 1 where libgex is better. libgex is built "
             "with -DGEX_CHECKS=OFF, as for the rest of this report." % data["rounds"])
    L.append("")
    ident = data.get("identity", {})
    if ident:
        L.append("Builds: `%s` (libgex), `%s` (reference); %.0f s, load average %s at the end; "
                 "reproduce with `GEX_UPCXX_GEX=... GEX_UPCXX_REF=... GEX_UPCXX_BENCH=... "
                 "bench/report_runtimes.py`." % (ident.get("gex", "?"), ident.get("ref", "?"),
                                                 data.get("seconds", 0), data.get("load", "?")))
        L.append("")
    L.append("| program | measure | network | load | libgex | reference | ratio | libgex at least the reference |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for prog, metric in ROWS:
        unit = "us" if prog == "misc_perf" else "bw"
        for net in NETS:
            for load in LOADS:
                g = data["values"].get("|".join((prog, metric, net, load, "gex")))
                r = data["values"].get("|".join((prog, metric, net, load, "ref")))
                if not g or not r:
                    continue
                mg, mr = statistics.median(g), statistics.median(r)
                ratio = mr / mg if unit == "us" else mg / mr
                cell = lambda v, m: "%s (%s–%s)" % (_fmt(m, unit), _fmt(min(v), unit), _fmt(max(v), unit))
                L.append("| %s | %s | %s | %s | %s | %s | %.2f | %s |" % (
                    prog, metric, net, load, cell(g, mg), cell(r, mr), ratio, "yes" if ratio >= 1 else "no"))
    L.append("")
    report_block.notes(L, data["notes"])


def write_block(path, lines):
    """Replace the block between this part's markers in path (appended when absent)."""
    report_block.write_block(path, lines, BEGIN, END)


def self_test():
    """The parsers, the network checks, the table and the block, on lines
    written here in the programs' output formats; 0 when all hold."""
    misc = ("0: upcxx::progress                   :   0.000002 s    0.016606 us\n"
            "0: atomic_domain<int64>::add(relaxed) peer overhead :   0.000000 s    0.008937 us\n"
            "Remote UPC++ tests: (world())\nSUCCESS\n")
    flood = ('emit(["bw",], app="put_flood", peer="remote", size=4096, kind="bw", how="gasnet-nbi", '
             'bw=4.18e+08, ranks=2,)\nSUCCESS\n')
    nebr = 'emit(["bw",], size=16384, nebrs=4, via="rput", bw=9.2e+08, ranks=2,)\n'
    checks = [
        parse("misc_perf", misc) == {"upcxx::progress": 0.016606,
                                     "atomic_domain<int64>::add(relaxed) peer overhead": 0.008937},
        parse("put_flood", flood) == {"bw gasnet-nbi 4096": 4.18e8},
        parse("nebr_exchange", nebr) == {"rput 4 nebrs 16384": 9.2e8},
        _through_network("misc_perf", "ref", misc) is None,
        _through_network("misc_perf", "gex", misc) is not None,  # no transport line
        _through_network("put_flood", "ref", flood.replace("remote", "local")) is not None,
    ]
    data = {"rounds": 2, "notes": ["a note"], "values": {
        "misc_perf|upcxx::progress|smp|quiet|gex": [0.016, 0.018],
        "misc_perf|upcxx::progress|smp|quiet|ref": [0.014, 0.015],
        "put_flood|bw gasnet-nbi 4096|udp|crowded|gex": [6e8, 7e8],
        "put_flood|bw gasnet-nbi 4096|udp|crowded|ref": [6e8, 6e8]}}
    L = []
    table(L, data)
    rows = [x for x in L if x.startswith("| misc_perf") or x.startswith("| put_flood")]
    checks.append(len(rows) == 2 and "| smp | quiet |" in rows[0] and rows[0].endswith("| 0.85 | no |")
                  and "| udp | crowded |" in rows[1] and rows[1].endswith("| 1.08 | yes |"))
    checks.append(report_block.block_check(write_block, BEGIN))
    return report_block.verdict("report_runtimes", checks)


def main(argv):
    return report_block.standalone_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
