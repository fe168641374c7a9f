#!/usr/bin/env python3
"""run_test.py -- one test of the gasnet-tests stage (see plan.py).

usage: run_test.py --plan <build>/gasnet-tests/plan.json --test <name> [--token T]

compile tests: print the program's build log and pass when the program
  compiled and the compile printed no warning located in libgex's headers.
run tests (host, net, exit): fail at once, naming the log, when the program
  did not compile; otherwise run it from a directory of its own,
  <workdir>/<mode>/run/<token>/, through the installed gasnetrun_ofi (or
  mpirun, or directly for the tools-only programs), with the environment and
  arguments of the plan, and exit with the job's status, or 1 when a job
  that ended with 0 printed an error line (see FAILURE).  tests/expect.sh,
  which runs this script, judges the status, the time and what the job
  leaves behind; the token in the program's path lets it find every process
  of the job afterwards.
"""

import argparse
import json
import os
import re
import shutil
import shlex
import signal
import subprocess
import sys
import tempfile


# A run fails when a line of its output matches FAILURE and not NOT_FAILURE,
# as the reference's run-tests target judges (the exceptions are lines that
# name GASNET_FREEZE_ON_ERROR, e.g. in a GASNET_VERBOSEENV listing).
FAILURE = re.compile(r"ERROR|fatal signal")
NOT_FAILURE = re.compile(r"Retrying allocation|GASNET_FREEZE_ON_ERROR")

# The status of a run that could not start: "cannot execute" to expect.sh,
# and never a status a test expects (testexit's cases expect 1..15, 51..55).
NOT_RUN = 126


def read_status(path):
    st = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.strip().split("=", 1)
                    st[k] = v
    except OSError:
        pass
    return st


def print_file(path, title):
    print("---- %s (%s)" % (title, path))
    try:
        with open(path, errors="replace") as f:
            sys.stdout.write(f.read())
    except OSError as e:
        print("(cannot read: %s)" % e)
    print("----")


def compile_test(plan, t):
    d = os.path.join(plan["workdir"], t["mode"])
    st = read_status(os.path.join(d, "status", t["prog"]))
    log = os.path.join(d, "logs", t["prog"] + ".log")
    print_file(log, "build log of %s (%s)" % (t["prog"], t["mode"]))
    if not st:
        print("FAIL: no build status for %s: did ref_%s_build run?" % (t["prog"], t["mode"]))
        return 1
    if st.get("compiled") != "1":
        print("FAIL: %s did not compile in %s mode (make status %s)" % (t["prog"], t["mode"], st.get("rc")))
        return 1
    hw = int(st.get("header_warnings", "0"))
    if hw:
        include = os.path.join(plan["workdir"], "prefix", "include") + os.sep
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith(include) and ": warning:" in line:
                    sys.stdout.write(line)
        print("FAIL: %s compiled with %d warning(s) located in libgex's headers" % (t["prog"], hw))
        return 1
    print("OK: %s compiled in %s mode (%s warning(s), none from libgex's headers)" % (
        t["prog"], t["mode"], st.get("warnings", "0")))
    return 0


def mpirun_command(ranks):
    # As tests/launch/mpirun.sh: Open MPI refuses root without the flag;
    # oversubscribe lets more ranks than cores run; no binding.
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)]


def run_test(plan, t, token):
    work = plan["workdir"]
    d = os.path.join(work, t["mode"])
    st = read_status(os.path.join(d, "status", t["prog"]))
    exe = os.path.join(d, "obj", t["prog"], t["prog"])
    if st.get("compiled") != "1" or not os.access(exe, os.X_OK):
        print("FAIL: %s did not compile in %s mode: nothing to run (see %s)" % (
            t["prog"], t["mode"], os.path.join(d, "logs", t["prog"] + ".log")))
        return NOT_RUN
    rundir = os.path.join(d, "run", token or "notoken")
    os.makedirs(rundir, exist_ok=True)
    prog = os.path.join(rundir, t["prog"])
    if os.path.lexists(prog):
        os.unlink(prog)
    os.symlink(exe, prog)

    env = dict(os.environ)
    for name, val in t["env"]:
        env[name] = val
    session = None
    if t["launcher"] == "direct":
        cmd = [prog]
    elif t["launcher"] == "mpirun":
        session = tempfile.mkdtemp(prefix="gex_ompi.")
        env["OMPI_MCA_orte_tmpdir_base"] = session  # a private session directory
        cmd = mpirun_command(t["ranks"]) + [prog]
    else:
        cmd = [os.path.join(work, "prefix", "bin", "gasnetrun_ofi"), "-n", str(t["ranks"]), prog]
    cmd += t["args"]
    shown = " ".join(shlex.quote("%s=%s" % tuple(kv)) for kv in t["env"])
    print("gasnet-tests: %s%s%s" % (shown, " " if shown else "", shlex.join(cmd)), flush=True)

    # Ended by expect.sh's timeout (SIGTERM): end the job too, then clean up.
    child = None

    def forward(signum, frame):
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    error_lines = []
    try:
        child = subprocess.Popen(cmd, cwd=rundir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        for raw in child.stdout:
            sys.stdout.buffer.write(raw)
            sys.stdout.flush()
            line = raw.decode("utf-8", "replace")
            if FAILURE.search(line) and not NOT_FAILURE.search(line):
                error_lines.append(line.rstrip("\n"))
        rc = child.wait()
    finally:
        shutil.rmtree(rundir, ignore_errors=True)
        if session:
            shutil.rmtree(session, ignore_errors=True)
    if rc < 0:
        print("gasnet-tests: the job was killed by signal %d" % -rc)
        return 128 - rc
    if t["kind"] != "exit" and rc == 0 and error_lines:
        print("FAIL: status 0, but %d output line(s) report an error (as the reference's run-tests "
              "judges): %s" % (len(error_lines), error_lines[0]))
        return 1
    return rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--token", default="")
    args = ap.parse_args()
    with open(args.plan) as f:
        plan = json.load(f)
    t = plan["tests"].get(args.test)
    if t is None:
        print("FAIL: %s is not in %s (re-run cmake)" % (args.test, args.plan))
        return 1
    if t["kind"] == "compile":
        return compile_test(plan, t)
    if t.get("harness"):
        print("gasnet-tests: harness.conf entry %s, %d rank(s), time limit %d s" % (
            t["harness"], t["ranks"], t["timelimit"]))
    return run_test(plan, t, args.token)


if __name__ == "__main__":
    sys.exit(main())
