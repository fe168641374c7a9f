"""bench/report_block.py -- what the report parts that keep a block of their
own in docs/performance.md share (report_runtimes.py, report_shmem.py):
replacing the block between their markers, and running alone from the
command line.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_block(path, lines, begin, end):
    """Replace the block between the markers begin and end in path (appended
    when absent)."""
    text = open(path).read() if os.path.exists(path) else ""
    block = begin + "\n" + "\n".join(lines).rstrip("\n") + "\n" + end
    if begin in text and end in text:
        a = text.index(begin)
        b = text.index(end) + len(end)
        text = text[:a] + block + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def libgex_version(prefix):
    """What a libgex install says it is (share/doc/GASNet/version.git)."""
    try:
        with open(os.path.join(prefix, "share", "doc", "GASNet", "version.git")) as f:
            return f.readline().strip() or "?"
    except OSError:
        return "?"


def run_captured(cmd, env, timeout):
    """Run cmd with stdout and stderr together: (text, exit status, or
    "timeout" with what it printed by then)."""
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, universal_newlines=True, errors="replace")
        return p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return out, "timeout"


class Crowd:
    """Two processes spinning beside the job while it is alive."""

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()


def standalone_main(argv, part):
    """A part's command line: [--rounds N] [--out FILE] [--raw DIR], or
    --self-test.  'part' is the part's module: its __doc__, self_test(),
    configured(), run(rounds, say, rawdir), table(L, data), write_block(path,
    lines) and RAW (the raw directory's name under build-bench/bench-report)."""
    name = "bench/" + os.path.basename(part.__file__)
    if argv[1:] == ["--self-test"]:
        return part.self_test()
    rounds, out, raw = 5, os.path.join(ROOT, "docs", "performance.md"), None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(part.__doc__)
            return 0
        if a == "--rounds" and i + 1 < len(argv) and argv[i + 1].isdigit() and int(argv[i + 1]) > 0:
            rounds = int(argv[i + 1])
            i += 1
        elif a == "--out" and i + 1 < len(argv):
            out = os.path.abspath(argv[i + 1])
            i += 1
        elif a == "--raw" and i + 1 < len(argv):
            raw = os.path.abspath(argv[i + 1])
            i += 1
        else:
            print("usage: %s [--rounds N] [--out FILE] [--raw DIR]" % name, file=sys.stderr)
            return 2
        i += 1
    paths, why = part.configured()
    if not paths:
        print("%s: %s" % (name, why), file=sys.stderr)
        return 2
    raw = raw or os.path.join(ROOT, "build-bench", "bench-report", part.RAW)
    data = part.run(rounds, lambda s: print(s, flush=True), raw)
    L = []
    part.table(L, data)
    part.write_block(out, L)
    print("\n".join(L))
    return 0


def block_check(write_block, begin):
    """A part's write_block, tried on a scratch file: written twice, the
    block is there once, with the second lines, after the file's own."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "p.md")
        with open(f, "w") as fh:
            fh.write("head\n")
        write_block(f, ["one"])
        write_block(f, ["two"])
        text = open(f).read()
        return text.startswith("head\n") and text.count(begin) == 1 and "two" in text and "one" not in text


def verdict(name, checks):
    """Print a self-test's verdict line; its exit status."""
    bad = [i for i, ok in enumerate(checks) if not ok]
    print("%s self-test: %s" % (name, "PASS" if not bad else "FAIL (checks %s)" % bad))
    return 1 if bad else 0


def notes(L, lines):
    """A part's notes (runs not counted, ...) as a list after its table."""
    for n in lines:
        L.append("- %s" % n)
    if lines:
        L.append("")
