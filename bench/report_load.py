"""bench/report_load.py -- bench/report's round trips under load.

With the machine's cores kept busy by processes that spin (started here, at
the job's own priority, and killed when the runs end), two same-source
network programs run for both libraries, interleaved, for several rounds:

  gex-testsmall ITERS 8 A   8-byte blocking Put (a round trip)
  gex-testam ITERS 1 A      AM Short Request + Reply round trip

libgex over its sock transport, the reference GASNet-EX over its udp
conduit, both on loopback with GASNET_SUPERNODE_MAXSIZE=1: the programs and
the command lines of bench/report_ref.py's "network" runs.  Every round's
figure is kept; the table gives each library's median and range and the
ratio of the medians, against the target of libgex within 1.5x of the
reference measured beside it.
"""

import os
import statistics
import subprocess
import sys
import time

import report_ref

SPIN = "while True: pass"
PROGS = (("gex-testsmall", "8 A", "Put (blocking)", 8, "8-byte blocking Put"),
         ("gex-testam", "1 A", "AM Short ping-pong Req/Rep us/op", 0, "AM Short Request + Reply"))
TARGET = 1.5


class Spinners:
    """n processes that spin until stop() (or the interpreter's exit)."""
    def __init__(self, n):
        self.procs = [subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                      for _ in range(n)]

    def stop(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []


def plan(build, notes, iters):
    """[(lib, prog, series, size, label, cmd, env)] of the loaded runs, or
    ([], why not)."""
    runs, why = [], None
    for prog, args, series, size, label in PROGS:
        for lib in report_ref.LIBS:
            cmd, env, why_not = report_ref.network_run(build, notes, lib, prog, [str(iters)] + args.split())
            if why_not:
                why = why or why_not
                continue
            runs.append((lib, prog, series, size, label, cmd, dict(os.environ, **env)))
    return runs, why


def run(build, notes, rounds, procs, iters, Results, parse, say, rawdir):
    """Runs the loaded rounds; returns the table's data (a dict), which
    table() turns into Markdown."""
    runs, why = plan(build, notes, iters)
    out = {"rounds": rounds, "procs": procs, "cores": os.cpu_count() or 1, "why": why, "values": {},
           "failed": {}}
    if not runs:
        out["why"] = why or "no program to run"
        return out
    say("== under load: %d spinning processes, %d rounds of %d runs" % (procs, rounds, len(runs)))
    spin = Spinners(procs)
    try:
        time.sleep(2)  # the spinners get going (a start, not a synchronisation)
        for r in range(rounds):
            order = runs[r % len(runs):] + runs[:r % len(runs)]
            for lib, prog, series, size, label, cmd, env in order:
                key = (lib, label)
                if key in out["failed"]:
                    continue
                say("  round %d/%d: %s %s ..." % (r + 1, rounds, lib, prog))
                rc, text = report_ref._sh(cmd, env=env, timeout=300)
                with open(os.path.join(rawdir, "raw-load-%s-%s-r%d.txt" % (lib, prog, r + 1)), "w") as f:
                    f.write("$ " + " ".join(cmd) + "\n" + text)
                path = report_ref.path_of(lib, report_ref.NETWORK, 2)
                res = Results()
                try:
                    if rc != 0:
                        raise ValueError("exit status %d: %s" % (rc, report_ref._last_line(text)))
                    parse("ss:" + prog, path, text, res)
                    v = res.best("%s %s" % (path, series)).get(size)
                    if v is None:
                        raise ValueError("no %d-byte figure in the output" % size)
                except ValueError as e:
                    out["failed"][key] = str(e)
                    say("        failed: %s" % e)
                    continue
                out["values"].setdefault(key, []).append(v)
                say("        %.3f us" % v)
        out["load"] = "%.2f" % os.getloadavg()[0]
    finally:
        spin.stop()
    return out


def _cell(data, lib, label):
    """(median or None, the table cell) of lib's runs of label."""
    v = data["values"].get((lib, label))
    if not v:
        why = data["failed"].get((lib, label))
        return None, "failed: %s" % why if why else "—"
    m = statistics.median(v)
    return m, "%.1f (%.1f–%.1f)" % (m, min(v), max(v))


def table(L, data):
    """The "Round trips under load" section."""
    L.append("### Round trips under load")
    L.append("")
    if data is None:
        L.append("(not measured: bench/report --no-load)")
        L.append("")
        return
    if not data["values"]:
        L.append("(not measured: %s)" % (data["why"] or "every run failed"))
        L.append("")
        return
    L.append("With %d processes spinning on the %d cores (started by the report at the job's own priority; "
             "load average over 1 minute at the end of the runs: %s), the same-source network programs "
             "run for both libraries, interleaved, %d round%s: libgex over its sock transport, the reference "
             "GASNet-EX over its udp conduit, both on loopback with `GASNET_SUPERNODE_MAXSIZE=1` "
             "(`gex-testsmall N 8 A`, `gex-testam N 1 A`; bench/report_load.py). Microseconds per round "
             "trip: median over the rounds (range). The target is libgex within %.1f× of the reference "
             "measured beside it." % (data["procs"], data["cores"], data.get("load", "?"), data["rounds"],
                                      "s" if data["rounds"] > 1 else "", TARGET))
    L.append("")
    L.append("| round trip | libgex, sock | reference, udp | libgex ÷ reference | within %.1f× |" % TARGET)
    L.append("| --- | ---: | ---: | ---: | --- |")
    for _, _, _, _, label in PROGS:
        g, gcell = _cell(data, "libgex", label)
        r, rcell = _cell(data, "reference", label)
        if g and r:
            ratio, verdict = "%.3g×" % (g / r), "yes" if g / r <= TARGET else "**no**"
        else:
            ratio, verdict = "—", "not measured" + (": " + data["why"] if data["why"] and not r else "")
        L.append("| %s | %s | %s | %s | %s |" % (label, gcell, rcell, ratio, verdict))
    L.append("")
