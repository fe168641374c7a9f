"""bench/report_load.py -- bench/report's crowded cores.

Two crowds, each run for both libraries (the same sources, built by
bench/report_ref.py), interleaved, for several rounds, on one host and over
the network (libgex over its sock transport, the reference over its udp
conduit, both on loopback with GASNET_SUPERNODE_MAXSIZE=1):

  busy          PROCS processes spin beside a 2-rank job (started here, at
                the job's own priority, and killed when its runs end):
                  gex-testsmall ITERS 8 A   8-byte blocking Put round trip
                  gex-testam ITERS 1 A      AM Short Request + Reply round trip
  outnumbered   4 and 7 ranks on the machine's cores, nothing else running:
                  gex-testam ITERS 1 A      AM Short Request + Reply round
                                            trip, the slowest pair's
                  gex-testbarrier ITERS A   barrier latency, the slowest
                                            rank's mean
                  testacc ITERS             the reference's own lock ring
                                            (blocking 4-byte Gets and Puts,
                                            GEX_REFERENCE_TESTS_DIR): wall
                                            time of ITERS rounds less that of
                                            one, per lock handoff

Every round's figure is kept; the table gives each library's median and
range over the rounds (the maximum is the tail a user meets) and the ratio
of the medians, against the row's target where it has one.
"""

import os
import re
import statistics
import subprocess
import sys
import time

import report_ref

SPIN = "while True: pass"
ONNODE, NETWORK = report_ref.ONNODE, report_ref.NETWORK
OUTNUMBER = (4, 7)
# (crowd, program, arguments after ITERS, what the row measures)
RUNS = (("busy", "gex-testsmall", "8 A", "8-byte blocking Put (over the network a round trip)"),
        ("busy", "gex-testam", "1 A", "AM Short Request + Reply round trip"),
        ("outnumbered", "gex-testam", "1 A", "AM Short Request + Reply round trip"),
        ("outnumbered", "gex-testbarrier", "A", "barrier"),
        ("outnumbered", "testacc", "", "lock handoff (reference's `testacc`)"))
# Targets, as libgex's median over the reference's: (crowd, program,
# where) -> at most.  Rows without one are measured only.
TARGETS = {("busy", "gex-testam", ONNODE): 1.0, ("busy", "gex-testsmall", NETWORK): 1.0,
           ("outnumbered", "gex-testam", ONNODE): 1.0, ("outnumbered", "gex-testbarrier", ONNODE): 1.0,
           ("outnumbered", "testacc", NETWORK): 1.5}
RE_US = re.compile(r"^A: .*?([0-9]+(?:\.[0-9]+)?) us(?:/op| ave\.)", re.M)


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


def _rows():
    """Every (crowd, where, ranks, program, arguments, label) measured."""
    out = []
    for crowd, prog, args, label in RUNS:
        for where in (ONNODE, NETWORK):
            for ranks in ((2,) if crowd == "busy" else OUTNUMBER):
                out.append((crowd, where, ranks, prog, args, label))
    return out


def _figure(prog, text, wall, wall_one, iters, ranks):
    """Microseconds of one run (ValueError when the output has none)."""
    if prog == "testacc":
        if wall_one is None:
            raise ValueError("its one-iteration run failed")
        return max(wall - wall_one, 0.0) * 1e6 / ((iters - 1) * ranks)
    v = [float(x) for x in RE_US.findall(text)]
    if not v:
        raise ValueError("no section A figure in the output")
    return max(v)


def _run(build, notes, lib, row, iters, rawdir, tag):
    """(text, wall seconds) of one run, or raises ValueError."""
    crowd, where, ranks, prog, args, _ = row
    cmd, env, why = report_ref.run_of(build, notes, lib, prog, [str(iters)] + args.split(), where, ranks)
    if why:
        raise LookupError(why)
    t0 = time.monotonic()
    rc, text = report_ref._sh(cmd, env=dict(os.environ, **env), timeout=300)
    wall = time.monotonic() - t0
    with open(os.path.join(rawdir, "raw-crowd-%s-%s-%s-%d-%s-%s.txt" % (crowd, lib, where, ranks, prog, tag)),
              "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + text)
    if rc != 0:
        raise ValueError("exit status %d: %s" % (rc, report_ref._last_line(text)))
    why = report_ref.check_path(where, ranks, text)
    if why:
        raise ValueError(why)
    return text, wall


def run(build, notes, rounds, procs, iters, say, rawdir):
    """Runs the crowded rounds; returns the table's data (a dict), which
    table() turns into Markdown."""
    rows = _rows()
    out = {"rounds": rounds, "procs": procs, "cores": os.cpu_count() or 1, "iters": iters, "values": {},
           "failed": {}, "why": notes.get("same-source")}
    if out["why"]:
        return out
    for crowd in ("busy", "outnumbered"):
        mine = [r for r in rows if r[0] == crowd]
        say("== crowded cores, %s: %d rounds of %d runs%s" % (
            crowd, rounds, 2 * len(mine), ", %d spinning processes" % procs if crowd == "busy" else ""))
        spin = Spinners(procs) if crowd == "busy" else None
        try:
            if spin:
                time.sleep(2)  # the spinners get going (a start, not a synchronisation)
            for r in range(rounds):
                for i, row in enumerate(mine):
                    libs = report_ref.LIBS if (r + i) % 2 == 0 else report_ref.LIBS[::-1]
                    for lib in libs:
                        key = (lib,) + row[:4]
                        if key in out["failed"]:
                            continue
                        say("  round %d/%d: %s %s %d ranks %s ..." % (r + 1, rounds, lib, row[1], row[2], row[3]))
                        try:
                            one = None
                            if row[3] == "testacc":
                                try:
                                    one = _run(build, notes, lib, row, 1, rawdir, "r%d-one" % (r + 1))[1]
                                except ValueError:
                                    one = None
                            text, wall = _run(build, notes, lib, row, iters, rawdir, "r%d" % (r + 1))
                            v = _figure(row[3], text, wall, one, iters, row[2])
                        except LookupError as e:
                            out["failed"][key] = "not built: %s" % e
                            say("        skipped: %s" % e)
                            continue
                        except ValueError as e:
                            out["failed"][key] = str(e)
                            say("        failed: %s" % e)
                            continue
                        out["values"].setdefault(key, []).append(v)
                        say("        %.3f us" % v)
            out["load-" + crowd] = "%.2f" % os.getloadavg()[0]
        finally:
            if spin:
                spin.stop()
    return out


def _us(v):
    return "%.0f" % v if v >= 1000 else "%.3g" % v


def _cell(data, key):
    """(median or None, the table cell) of the runs of key."""
    v = data["values"].get(key)
    if not v:
        why = data["failed"].get(key)
        return None, "%s" % why if why else "—"
    m = statistics.median(v)
    return m, "%s (%s–%s)" % (_us(m), _us(min(v)), _us(max(v)))


def table(L, data):
    """The "Crowded cores" section."""
    L.append("### Crowded cores")
    L.append("")
    if data is None:
        L.append("(not measured: bench/report --no-load)")
        L.append("")
        return
    if not data["values"]:
        L.append("(not measured: %s)" % (data["why"] or "every run failed"))
        L.append("")
        return
    L.append("The same sources built against both libraries, interleaved, %d round%s (bench/report_load.py): "
             "**busy**, %d processes spinning on the %d cores beside a 2-rank job (started by the report at "
             "the job's own priority; load average over 1 minute at the end: %s); **outnumbered**, 4 and 7 "
             "ranks on the %d cores and nothing else (load average at the end: %s). On one host through "
             "shared memory, and over the network: libgex over its sock transport, the reference over its udp "
             "conduit, both on loopback with `GASNET_SUPERNODE_MAXSIZE=1`. ITERS %d: `gex-testsmall ITERS 8 A`, "
             "`gex-testam ITERS 1 A` (the slowest pair), `gex-testbarrier ITERS A` (the slowest rank's mean), "
             "and the reference's own `testacc ITERS` (a lock passed around the ranks with blocking 4-byte Gets "
             "and Puts: wall time of ITERS rounds less that of one, per handoff). Microseconds: median over "
             "the rounds (minimum–maximum); the ratio is of the medians." % (
                 data["rounds"], "s" if data["rounds"] > 1 else "", data["procs"], data["cores"],
                 data.get("load-busy", "?"), data["cores"], data.get("load-outnumbered", "?"), data["iters"]))
    L.append("")
    L.append("| crowd | path | ranks | what | libgex | reference | libgex ÷ reference | target |")
    L.append("| --- | --- | ---: | --- | ---: | ---: | ---: | --- |")
    for crowd, where, ranks, prog, _, label in _rows():
        g, gcell = _cell(data, ("libgex", crowd, where, ranks, prog))
        r, rcell = _cell(data, ("reference", crowd, where, ranks, prog))
        t = TARGETS.get((crowd, prog, where))
        ratio = "%s×" % _us(g / r) if g and r else "—"
        if t is None:
            verdict = "—"
        elif g and r:
            verdict = "≤ %.3g×: %s" % (t, "met" if g / r <= t else "**not met**")
        else:
            verdict = "≤ %.3g×: not measured" % t
        L.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (crowd, where, ranks, label, gcell, rcell, ratio,
                                                              verdict))
    L.append("")
