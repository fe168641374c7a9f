#!/usr/bin/env python3
"""bench/report_shmem.py -- libgex's OpenSHMEM beside Sandia OpenSHMEM (SOS)
on the same network ("OpenSHMEM beside Sandia OpenSHMEM" in
docs/performance.md).

Nothing here fetches or builds SOS: it is built by hand over Debian's
libfabric, and the programs of its performance suite
(test/performance/shmem_perf_suite) by hand with each library's own oshcc.
This script is told where they are:

  GEX_SHMEM_GEX    the libgex install that built the gex/ programs (its
                   bin/oshcc, bin/oshrun)
  GEX_SHMEM_SOS    the SOS install (its bin/oshcc, bin/oshrun)
  GEX_SHMEM_BENCH  a directory holding gex/<prog> and sos/<prog> for <prog>
                   in shmem_latency_put_perf, shmem_latency_get_perf,
                   shmem_bw_put_perf, each built from the suite's source
                   by that library's oshcc
  GEX_SHMEM_SOS_LAUNCHER  how SOS's oshrun starts ranks (its
                   OSHRUN_LAUNCHER); default "mpirun --oversubscribe", with
                   --allow-run-as-root when run as root

It builds two programs of this repository with each library's oshcc:
bench/shmem_amo_lat.c (blocking atomics' latency) and bench/shmem_opcount.c
(the instruction count of an 8-byte shmem_putmem_nbi, under callgrind).

Every run is 2 PEs on this host with every transfer through the network:
SOS over libfabric tcp;ofi_rxm (SHMEM_OFI_PROVIDER), libgex with
GEX_SUPERNODE_MAXSIZE=1 over its default transport (sock) and over libfabric
tcp;ofi_rxm (GEX_NET_TRANSPORT=ofi).  A libgex run that does not print the
transport it was asked for is not counted.  Each round runs every program
in every configuration, interleaved, quiet and then crowded (two spinning
processes beside the job, for the latency programs).  The table gives the
median and range of the rounds and the ratio to SOS, read so that above 1
means libgex is better (SOS / libgex for times, libgex / SOS for rates).

Usage:  bench/report_shmem.py [--rounds N] [--out FILE] [--raw DIR]
  Runs the rounds (default 5) and rewrites the part of FILE (default
  docs/performance.md) between the "bench/report shmem" markers.
  bench/report runs it too when the three GEX_SHMEM_* paths are set.
Exit status: 0 on success, 2 when the variables do not name the builds.
"""

import os
import re
import shutil
import statistics
import sys
import time

import report_block

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = "<!-- bench/report shmem: begin -->"
END = "<!-- bench/report shmem: end -->"
RAW = "shmem"  # the raw directory's name under build-bench/bench-report
PERF = ("shmem_latency_put_perf", "shmem_latency_get_perf", "shmem_bw_put_perf")
CFGS = ("sos", "gex-sock", "gex-ofi")
CFG_NAME = {"sos": "SOS tcp;ofi_rxm", "gex-sock": "libgex sock", "gex-ofi": "libgex tcp;ofi_rxm"}
PROVIDER = "tcp;ofi_rxm"
# What each program is run with: (program, arguments, crowded too).
RUNS = [
    ("shmem_latency_put_perf", ["-s", "8", "-e", "8", "-n", "10000"], True),
    ("shmem_latency_get_perf", ["-s", "8", "-e", "8", "-n", "10000"], False),
    ("shmem_amo_lat", ["10000"], True),
    ("shmem_bw_put_perf", ["-s", "8", "-e", "65536", "-n", "300"], False),
]
# The rows: (key, label, unit).  "us" is lower-better, "rate" and "MBps"
# higher-better.
ROWS = [
    ("long_p_pingpong", "shmem_long_atomic_set + wait_until ping-pong, one way", "us"),
    ("int_p", "shmem_int_p + quiet", "us"),
    ("putmem8", "shmem_putmem 8 B + quiet", "us"),
    ("long_g", "shmem_long_g", "us"),
    ("getmem8", "shmem_getmem 8 B", "us"),
    ("amo_fetch_add", "shmem_long_atomic_fetch_add", "us"),
    ("amo_fetch", "shmem_long_atomic_fetch", "us"),
    ("amo_add_quiet", "shmem_long_atomic_add + quiet", "us"),
    ("rate8", "shmem_putmem 8 B flood (window 64), messages/s", "rate"),
    ("bw4096", "shmem_putmem 4 KiB flood, MB/s", "MBps"),
    ("bw65536", "shmem_putmem 64 KiB flood, MB/s", "MBps"),
]
LOWER_BETTER = {k: u == "us" for k, _, u in ROWS}


def configured():
    """The three paths, or the reason they are not usable."""
    paths = {k: os.environ.get(k, "") for k in ("GEX_SHMEM_GEX", "GEX_SHMEM_SOS", "GEX_SHMEM_BENCH")}
    missing = [k for k, v in paths.items() if not v]
    if missing:
        return None, "%s not set" % ", ".join(missing)
    for k in ("GEX_SHMEM_GEX", "GEX_SHMEM_SOS"):
        for tool in ("oshcc", "oshrun"):
            if not os.access(os.path.join(paths[k], "bin", tool), os.X_OK):
                return None, "%s: no bin/%s in %s" % (k, tool, paths[k])
    for lib in ("gex", "sos"):
        for p in PERF:
            exe = os.path.join(paths["GEX_SHMEM_BENCH"], lib, p)
            if not os.access(exe, os.X_OK):
                return None, "GEX_SHMEM_BENCH: no program %s" % exe
    return paths, None


# ---- parsing the programs' output ------------------------------------------
_ROW = re.compile(r"^\s+(\d+)\s+([0-9.]+)(?:\s+([0-9.]+))?\s*$")
_AMO = re.compile(r"^shmem_amo_lat: fetch_add_us ([0-9.]+) fetch_us ([0-9.]+) add_quiet_us ([0-9.]+)")


def parse(prog, text):
    """{key: value} of one run's output (keys as in ROWS)."""
    rows = [_ROW.match(l) for l in text.splitlines()]
    rows = [(int(m.group(1)), float(m.group(2)), m.group(3) and float(m.group(3))) for m in rows if m]
    out = {}
    if prog in ("shmem_latency_put_perf", "shmem_latency_get_perf") and len(rows) == 3:
        # ping-pong (put only), then the int element, then the 8-byte stream
        names = (("long_p_pingpong", "int_p", "putmem8") if prog == "shmem_latency_put_perf"
                 else ("long_g", "int_g", "getmem8"))
        out = {n: r[1] for n, r in zip(names, rows)}
    elif prog == "shmem_bw_put_perf":
        for size, bw, rate in rows:
            if size == 8 and rate:
                out["rate8"] = rate
            elif size in (4096, 65536):
                out["bw%d" % size] = bw
    elif prog == "shmem_amo_lat":
        for l in text.splitlines():
            m = _AMO.match(l)
            if m:
                out = dict(zip(("amo_fetch_add", "amo_fetch", "amo_add_quiet"), map(float, m.groups())))
    return out


def _went_as_asked(cfg, text):
    """Why a libgex run did not use the transport it was asked for, or None."""
    if cfg == "gex-sock" and "libgex: network transport sock" not in text:
        return "no 'libgex: network transport sock' line"
    if cfg == "gex-ofi" and ("libgex: network provider %s," % PROVIDER) not in text:
        return "no 'libgex: network provider %s' line" % PROVIDER
    return None


def _passed(prog, text, rc):
    if rc != 0:
        return False
    if prog == "shmem_amo_lat":
        return "PASS shmem_amo_lat" in text
    return True


# ---- running -----------------------------------------------------------------
def _launch(paths, cfg, exe, args):
    """The command and environment of a 2-PE run of exe in configuration cfg."""
    env = dict(os.environ)
    for k in ("GEX_SUPERNODE_MAXSIZE", "GASNET_SUPERNODE_MAXSIZE", "GEX_NET_TRANSPORT",
              "GEX_OFI_PROVIDER", "SHMEM_OFI_PROVIDER"):
        env.pop(k, None)
    if cfg == "sos":
        launcher = os.environ.get("GEX_SHMEM_SOS_LAUNCHER")
        if not launcher:
            launcher = "mpirun --oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else "")
        env.update(SHMEM_OFI_PROVIDER=PROVIDER, OSHRUN_LAUNCHER=launcher)
        return [os.path.join(paths["GEX_SHMEM_SOS"], "bin", "oshrun"), "-np", "2", exe] + args, env
    env.update(GEX_SUPERNODE_MAXSIZE="1", GEX_NET_VERBOSE="1", GEX_OFI_VERBOSE="1")
    if cfg == "gex-ofi":
        env.update(GEX_NET_TRANSPORT="ofi", GEX_OFI_PROVIDER=PROVIDER)
    return [os.path.join(paths["GEX_SHMEM_GEX"], "bin", "oshrun"), "-n", "2", exe] + args, env


def _run(cmd, env, timeout=120):
    return report_block.run_captured(cmd, env, timeout)


def _exe(paths, built, cfg, prog):
    lib = "sos" if cfg == "sos" else "gex"
    return built[lib][prog] if prog in built[lib] else os.path.join(paths["GEX_SHMEM_BENCH"], lib, prog)


def build_own(paths, rawdir):
    """This repository's two programs, built with each library's oshcc:
    {lib: {prog: path}}, or a string saying what failed."""
    built = {}
    for lib, k in (("gex", "GEX_SHMEM_GEX"), ("sos", "GEX_SHMEM_SOS")):
        built[lib] = {}
        for prog, src in (("shmem_amo_lat", "shmem_amo_lat.c"), ("shmem_opcount", "shmem_opcount.c")):
            exe = os.path.join(rawdir, "%s-%s" % (lib, prog))
            cmd = [os.path.join(paths[k], "bin", "oshcc"), "-O2", "-g", "-o", exe,
                   os.path.join(ROOT, "bench", src)]
            out, rc = _run(cmd, dict(os.environ), timeout=300)
            if rc != 0:
                return "%s failed: %s" % (" ".join(cmd), out.strip().splitlines()[-1:] or rc)
            built[lib][prog] = exe
    return built


def run_one(paths, built, cfg, prog, args, rawdir, tag):
    cmd, env = _launch(paths, cfg, _exe(paths, built, cfg, prog), args)
    text, rc = _run(cmd, env)
    with open(os.path.join(rawdir, "%s-%s-%s.txt" % (prog, cfg, tag)), "w") as f:
        f.write(" ".join(cmd) + "\n" + text)
    if not _passed(prog, text, rc):
        return None, "exit %s" % rc
    why = _went_as_asked(cfg, text)
    if why:
        return None, why
    got = parse(prog, text)
    if not got:
        return None, "no figures in its output"
    return got, None


# ---- instruction count of shmem_putmem_nbi off-node ---------------------------
_ANN = re.compile(r"^\s*([0-9,]+)\s.*\[(.*)\]\s*$")


def _split(ann_text):
    """Exclusive Ir by object class: (library's own, libfabric, libc and ld.so)."""
    own = prov = rest = 0
    for line in ann_text.splitlines():
        m = _ANN.match(line)
        if not m:
            continue
        x, obj = int(m.group(1).replace(",", "")), os.path.basename(m.group(2))
        if "libfabric" in obj:
            prov += x
        elif re.match(r"(libc|ld-linux|libpthread|libm)[.-]", obj) or obj.startswith("[vdso"):
            rest += x
        else:
            own += x
    return own, prov, rest


def opcount(paths, built, rawdir, say):
    """{cfg: (own, libfabric, rest) per operation} of loop_shputnbi, or a reason."""
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        return "valgrind (callgrind) not found"
    wrap = os.path.join(rawdir, "callgrind-rank0.sh")
    with open(wrap, "w") as f:
        f.write("#!/bin/sh\n# PE 0 under callgrind, collecting inside loop_shputnbi only\n"
                "out=$1; shift\n"
                "r=${GEX_RANK:-${PMIX_RANK:-${OMPI_COMM_WORLD_RANK:-x}}}\n"
                "if [ \"$r\" = 0 ]; then exec valgrind -q --tool=callgrind --callgrind-out-file=\"$out\" "
                "--toggle-collect=loop_shputnbi --collect-atstart=no \"$@\"; fi\n"
                "exec \"$@\"\n")
    os.chmod(wrap, 0o755)
    n1, n2 = 1000, 11000
    result = {}
    for cfg in CFGS:
        split = []
        for n in (n1, n2):
            out = os.path.join(rawdir, "callgrind-%s-%d.out" % (cfg, n))
            if os.path.exists(out):
                os.unlink(out)
            cmd, env = _launch(paths, cfg, wrap, [out, built["sos" if cfg == "sos" else "gex"]["shmem_opcount"],
                                                  "--iters", str(n)])
            text, rc = _run(cmd, env, timeout=600)
            with open(out + ".log", "w") as f:
                f.write(" ".join(cmd) + "\n" + text)
            if rc != 0 or "PASS shmem-opcount" not in text or not os.path.exists(out):
                return "the %s %d-iteration run failed (%s.log)" % (cfg, n, out)
            why = _went_as_asked(cfg, text)
            if why:
                return "the %s run: %s" % (cfg, why)
            ann, _ = _run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", out],
                          dict(os.environ))
            split.append(_split(ann))
        result[cfg] = tuple((b - a) / float(n2 - n1) for a, b in zip(*split))
        say("  shmem opcount: %s %.0f instructions per shmem_putmem_nbi" % (cfg, sum(result[cfg])))
    return result


def identity(paths):
    """What each install says it is: libgex's share/doc/GASNet/version.git,
    SOS's pkg-config Name and Version."""
    out = {"gex": report_block.libgex_version(paths["GEX_SHMEM_GEX"]), "sos": "?"}
    import glob
    for pc in glob.glob(os.path.join(paths["GEX_SHMEM_SOS"], "lib*", "pkgconfig", "*.pc")):
        fields = {}
        for line in open(pc):
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                fields[k.strip()] = v.strip()
        if fields.get("Version"):
            out["sos"] = "%s %s" % (fields.get("Name", "sos"), fields["Version"])
            break
    return out


def run(rounds, say, rawdir):
    """Interleaved rounds; returns the data table() takes."""
    paths, why = configured()
    if not paths:
        return {"skipped": why}
    os.makedirs(rawdir, exist_ok=True)
    built = build_own(paths, rawdir)
    if isinstance(built, str):
        return {"skipped": built}
    values, notes, t0 = {}, [], time.time()
    for rnd in range(1, rounds + 1):
        for crowded in (False, True):
            for prog, args, crowd_too in RUNS:
                if crowded and not crowd_too:
                    continue
                load = "crowded" if crowded else "quiet"
                for cfg in CFGS:
                    if crowded:
                        with report_block.Crowd():
                            got, bad = run_one(paths, built, cfg, prog, args, rawdir, "%s-%d" % (load, rnd))
                    else:
                        got, bad = run_one(paths, built, cfg, prog, args, rawdir, "%s-%d" % (load, rnd))
                    if bad:
                        notes.append("round %d, %s %s on %s: not counted (%s)" % (rnd, load, prog, CFG_NAME[cfg], bad))
                        continue
                    for key, v in got.items():
                        values.setdefault("|".join((key, load, cfg)), []).append(v)
        say("  shmem: round %d of %d (%.0f s)" % (rnd, rounds, time.time() - t0))
    ops = opcount(paths, built, rawdir, say)
    return {"values": values, "notes": notes, "rounds": rounds, "seconds": time.time() - t0,
            "opcount": ops, "load": "%.2f" % os.getloadavg()[0], "identity": identity(paths)}


# ---- the table -------------------------------------------------------------
def _fmt(v, unit):
    if unit == "rate":
        return "%.3g M" % (v / 1e6)
    return "%.3g" % v


def table(L, data):
    """Append the section's Markdown lines to L."""
    L.append("## OpenSHMEM beside Sandia OpenSHMEM")
    L.append("")
    if not data or "skipped" in data:
        L.append("Not measured: %s (bench/report_shmem.py says what to set)." %
                 (data or {}).get("skipped", "not run"))
        return
    L.append("Sandia OpenSHMEM's performance suite and this repository's `bench/shmem_amo_lat.c`, each "
             "built against both libraries, %d interleaved rounds of 2 PEs on one host with every transfer "
             "through the network on loopback (bench/report_shmem.py): SOS over libfabric %s, libgex "
             "(`GEX_SUPERNODE_MAXSIZE=1`) over its default transport sock and over libfabric %s. "
             "Crowded: two spinning processes beside the job on the 2 cores. Median (range) of the rounds; "
             "times in µs; the ratio to SOS is above 1 where libgex is better. libgex is built with "
             "-DGEX_CHECKS=OFF, as for the rest of this report; %.0f s, load average %s at the end; "
             "reproduce with `GEX_SHMEM_GEX=... GEX_SHMEM_SOS=... GEX_SHMEM_BENCH=... "
             "bench/report_shmem.py`." % (data["rounds"], PROVIDER, PROVIDER, data.get("seconds", 0),
                                          data.get("load", "?")))
    L.append("")
    ident = data.get("identity")
    if ident:
        L.append("Builds: `%s` (libgex), `%s` (SOS)." % (ident.get("gex", "?"), ident.get("sos", "?")))
        L.append("")
    L.append("| measure | load | %s | %s | %s | sock ÷ SOS | ofi ÷ SOS |" % tuple(CFG_NAME[c] for c in CFGS))
    L.append("| --- | --- | --- | --- | --- | --- | --- |")
    for key, label, unit in ROWS:
        for load in ("quiet", "crowded"):
            v = {c: data["values"].get("|".join((key, load, c))) for c in CFGS}
            if not all(v.values()):
                continue
            med = {c: statistics.median(x) for c, x in v.items()}
            cells = ["%s (%s–%s)" % (_fmt(med[c], unit), _fmt(min(v[c]), unit), _fmt(max(v[c]), unit))
                     for c in CFGS]
            ratios = []
            for c in ("gex-sock", "gex-ofi"):
                r = med["sos"] / med[c] if LOWER_BETTER[key] else med[c] / med["sos"]
                ratios.append("%.2f" % r)
            L.append("| %s | %s | %s | %s |" % (label, load, " | ".join(cells), " | ".join(ratios)))
    L.append("")
    ops = data.get("opcount")
    if isinstance(ops, dict):
        L.append("Instructions per 8-byte `shmem_putmem_nbi` to the other PE through the network "
                 "(bench/shmem_opcount.c built by each library's oshcc; callgrind, PE 0, "
                 "(Ir(11000) − Ir(1000)) / 10000 inside the loop, split by object):")
        L.append("")
        L.append("| library | total | the library's own | libfabric | libc, ld.so |")
        L.append("| --- | --- | --- | --- | --- |")
        for c in CFGS:
            own, prov, rest = ops[c]
            L.append("| %s | %.0f | %.0f | %.0f | %.0f |" % (CFG_NAME[c], own + prov + rest, own, prov, rest))
        L.append("")
    elif ops:
        L.append("Instruction counts not measured: %s." % ops)
        L.append("")
    report_block.notes(L, data["notes"])


def write_block(path, lines):
    """Replace the block between this part's markers in path (appended when absent)."""
    report_block.write_block(path, lines, BEGIN, END)


def self_test():
    """The parsers, the transport checks, the object split, the table and the
    block, on lines written here in the programs' formats; 0 when all hold."""
    lat = ("Ping-Pong shmem_long_p results:\nMessage Size               Latency\n"
           "    in bytes                 in us\n           8                 16.63\n\n"
           "shmem_int_p results:\n           4                 16.52\n\n"
           "           8                 16.31\n")
    bw = ("           8                 28.91              3612950.14\n"
          "        4096                576.27               140691.98\n"
          "       65536               2276.07                34730.17\n")
    amo = "shmem_amo_lat: fetch_add_us 9.001 fetch_us 8.980 add_quiet_us 9.150\nPASS shmem_amo_lat (5 iterations)\n"
    ann = ("  1,000 (50.0%)  ???:gexi_ofi_put [/x/lib/libgex.so.0.1.0]\n"
           "  600 (30.0%)  ???:fi_write [/usr/lib/x86_64-linux-gnu/libfabric.so.1.18.2]\n"
           "  400 (20.0%)  ???:memcpy [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
           "  2,000  PROGRAM TOTALS\n")
    checks = [
        parse("shmem_latency_put_perf", lat) == {"long_p_pingpong": 16.63, "int_p": 16.52, "putmem8": 16.31},
        parse("shmem_latency_get_perf", lat) == {"long_g": 16.63, "int_g": 16.52, "getmem8": 16.31},
        parse("shmem_bw_put_perf", bw) == {"rate8": 3612950.14, "bw4096": 576.27, "bw65536": 2276.07},
        parse("shmem_amo_lat", amo) == {"amo_fetch_add": 9.001, "amo_fetch": 8.98, "amo_add_quiet": 9.15},
        parse("shmem_latency_put_perf", "\n".join(lat.splitlines()[:4])) == {},  # a cut-off run
        _passed("shmem_amo_lat", amo, 0) and not _passed("shmem_amo_lat", amo.replace("PASS", "FAIL"), 0),
        _went_as_asked("gex-sock", "libgex: network transport sock (UDP lane, TCP), rank 0 ...") is None,
        _went_as_asked("gex-ofi", "libgex: network transport sock (UDP lane, TCP)") is not None,
        _went_as_asked("gex-ofi", "libgex: network provider tcp;ofi_rxm, domain lo, inject 64") is None,
        _went_as_asked("sos", "") is None,
        _split(ann) == (1000, 600, 400),
    ]
    vals = {}
    for c, x in (("sos", [14.0, 14.5]), ("gex-sock", [9.0, 9.2]), ("gex-ofi", [16.0, 17.0])):
        vals["putmem8|quiet|" + c] = x
    for c, x in (("sos", [1.7e5]), ("gex-sock", [5.0e6]), ("gex-ofi", [3.4e6])):
        vals["rate8|quiet|" + c] = x
    data = {"rounds": 2, "notes": ["a note"], "values": vals,
            "identity": {"gex": "libgex-2025.8.0-gabc1234", "sos": "sandia-openshmem 1.5.3"},
            "opcount": {"sos": (900.0, 380.0, 3.0), "gex-sock": (150.0, 0.0, 2.0), "gex-ofi": (60.0, 110.0, 2.0)}}
    L = []
    table(L, data)
    put = [x for x in L if x.startswith("| shmem_putmem 8 B + quiet")]
    rate = [x for x in L if x.startswith("| shmem_putmem 8 B flood")]
    checks.append(len(put) == 1 and put[0].endswith("| 1.57 | 0.86 |"))
    checks.append(len(rate) == 1 and rate[0].endswith("| 29.41 | 20.00 |"))
    checks.append("| libgex sock | 152 | 150 | 0 | 2 |" in L and "- a note" in L)
    checks.append("Builds: `libgex-2025.8.0-gabc1234` (libgex), `sandia-openshmem 1.5.3` (SOS)." in L)
    checks.append(report_block.block_check(write_block, BEGIN))
    return report_block.verdict("report_shmem", checks)


def main(argv):
    return report_block.standalone_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
