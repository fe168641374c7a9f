#!/usr/bin/env python3
"""plan.py -- decide which ctest tests the gasnet-tests stage registers.

Run by CMake at configure time (tests/gasnet-tests/gasnet_tests.cmake).
Reads the reference suite's Makefile.in (which programs exist in each thread
mode, after the same @...@ substitution the build fixture applies) and
harness/gasnet-tests/harness.conf (arguments, environment, rank counts,
time limits and required features of each run), evaluates the harness
conditions for this platform, and writes:

  plan.json    every registered test with what run_test.py needs to run it
  plan.cmake   one gex_ref_test(...) call per registered test
  not-registered.txt   the harness entries not registered, with the reason

Runs per thread mode (seq, par), for each program <p> and harness entry <e>
(the TestName without its -<mode> suffix):
  ref_<mode>_<p>_compile      the program compiled (no warnings from libgex's
                              headers under -Wall -Wextra)
  ref_<mode>_<e>_host_n<N>    N ranks on this host (N = 2 unless the entry's
                              DynamicThreads gives fixed counts)
  ref_<mode>_<e>_net_n<N>     N = 4 ranks with every peer reached through the
                              network (the provider libgex picks: net on
                              Ethernet); base entries only
  ref_<mode>_<e>_host_n7      7 ranks on this host: PAR programs that start
                              threads; base entries only
  ref_<mode>_testexit_<case>  testexit's cases, each with its expected status
A program that Makefile.in's run-tests target runs but that has no runnable
harness entry in a mode is run as run-tests runs it (no arguments).
"""

import argparse
import ctypes
import json
import os
import platform
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness_conf  # noqa: E402

# The provider libgex picks by default (net here), as a user's job gets it;
# tcp;ofi_rxm, udp;ofi_rxd and shm have the project's own network suites
# (tests/net.cmake).  Over tcp;ofi_rxm, testvis at 4 ranks hung now and then
# with messages never delivered (docs/network.md).
NET_ENV = [("GEX_SUPERNODE_MAXSIZE", "1")]
HOST_RANKS = 2
NET_RANKS = 4
# The harness's time limits assume no more ranks than cores; a network run
# has 4 ranks on 2 cores, each message through the kernel's TCP stack.
NET_TIME_FACTOR = 2
THREADED_RANKS = 7
# testexit: the cases of the program (its usage text lists them); each one
# must end the job with the case number as its status.
TESTEXIT_CASES = {"seq": list(range(1, 16)), "par": list(range(1, 16)) + list(range(51, 56))}
# MakeFlags values that only change warnings need no build of their own.
WARNING_ONLY_MAKEFLAGS = re.compile(r'^MANUAL_C(XX)?FLAGS="?(\s*-W[^\s"]*)+\s*"?$')


def make_variables(text):
    """Variables of a (substituted) Makefile: NAME = value lines, with
    backslash continuations; commented-out lines are ignored."""
    variables = {}
    logical = []
    buf = ""
    for line in text.splitlines():
        if buf:
            buf += " " + line
        else:
            buf = line
        if buf.endswith("\\"):
            buf = buf[:-1]
            continue
        logical.append(buf)
        buf = ""
    for line in logical:
        if line.lstrip().startswith("#") or line.startswith("\t"):
            continue
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:+]?=\s*(.*)$", line)
        if m and not re.match(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*:[^=]", line):
            variables[m.group(1)] = m.group(2).strip()
    return variables


def expand(variables, name, depth=0):
    """The words of $(name), with $(VAR) references expanded."""
    if depth > 20:
        raise ValueError("recursive make variable " + name)
    words = []
    for word in variables.get(name, "").split():
        m = re.fullmatch(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", word)
        if m:
            words += expand(variables, m.group(1), depth + 1)
        else:
            words.append(word)
    return words


def program_lists(suite, sed_script):
    text = subprocess.run(["sed", "-f", sed_script, os.path.join(suite, "Makefile.in")],
                          check=True, capture_output=True, text=True).stdout
    v = make_variables(text)
    seq = expand(v, "testprograms_seq")
    par = seq + expand(v, "testprograms_parsync") + expand(v, "testprograms_par")
    cxx = expand(v, "CXX_TESTS")
    progs = {"seq": seq + cxx, "par": par + cxx}
    for mode in progs:  # testhello: built and run by the harness, in no list
        if "testhello" not in progs[mode]:
            progs[mode].append("testhello")
        progs[mode] = list(dict.fromkeys(progs[mode]))  # no duplicates, order kept
    return {
        "programs": progs,
        "run_tests_err": set(expand(v, "testprograms_err")),
        "nongasnet": set(expand(v, "testprograms_nongasnet")),
    }


def features(args):
    f = {"gasnet", "gasnet_has_seq", "gasnet_has_par", "gasnet_has_ofi", "gasnet_has_smp",
         "network_ofi", "nodebug", "pshm", "os_linux"}
    machine = platform.machine().lower()
    f.add("cpu_" + machine)
    if machine in ("x86_64", "aarch64", "ppc64le", "riscv64"):
        f.add("cpu_64")
    if args.cc_family == "GNU":
        f.add("cc_gnu")
    elif args.cc_family == "Clang":
        f.add("cc_clang")
    if args.cuda_uva and cuda_driver():
        f.add("kind_cuda_uva")
    if args.mpi:
        f.add("mpi_compat")
        if args.mpirun_pmix:
            f.add("mpi_compat_mpirun")
    try:
        with open("/proc/cpuinfo") as c:
            if re.search(r"^flags\s*:.*\bhypervisor\b", c.read(), re.M):
                f.add("kvm")  # a virtual machine: timers are less exact
    except OSError:
        pass
    return f


def cuda_driver():
    """Can this process load the CUDA driver (a GPU machine)?"""
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def threaded(suite, prog):
    """Does the program start threads of its own (in PAR mode)?"""
    for ext in (".c", ".cc"):
        path = os.path.join(suite, prog + ext)
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                src = f.read()
            return "test_createandjoin_pthreads" in src or "pthread_create" in src
    return False


class Planner:
    def __init__(self, args):
        self.args = args
        self.lists = program_lists(args.suite, args.sed)
        self.features = features(args)
        self.tests = {}
        self.not_registered = []
        self.runnable = {"seq": set(), "par": set()}

    def add(self, name, **t):
        if name in self.tests:
            raise ValueError("two tests named " + name)
        self.tests[name] = t

    def skip(self, entry, reason):
        self.not_registered.append((entry, reason))

    def limit(self, seconds):
        return int(min(max(seconds, 1), self.args.timelimit_max))

    def run(self, mode, prog, label, kind, ranks, launcher, entry, timelimit):
        env = []
        args = []
        if entry is not None:
            for v in entry.conditional("AppEnv", self.features, ranks):
                env += harness_conf.split_env(v)
            for v in entry.conditional("AppArgs", self.features, ranks):
                args += harness_conf.split_words(v)
        if kind == "net":
            env += NET_ENV
            timelimit *= NET_TIME_FACTOR
        self.add("ref_%s_%s_%s_n%d" % (mode, label, kind, ranks), kind=kind, mode=mode, prog=prog,
                 ranks=ranks, launcher=launcher, args=args, env=env,
                 timelimit=self.limit(timelimit), status=0,
                 harness=entry.name if entry is not None else "")

    def no_cuda_run(self, prog):
        """A program that cannot start here: linked with the CUDA driver, which is absent."""
        return prog == "testcudauva" and self.args.cuda_uva and not cuda_driver()

    def harness_entry(self, entry):
        parts = entry.split_name()
        if parts is None:
            return self.skip(entry.name, "not a test program run (harness-internal entry)")
        prog, variant, mode = parts
        label = prog + ("_" + variant if variant else "")
        if mode == "parsync":
            return self.skip(entry.name, "PARSYNC mode is not built (libgex builds SEQ and PAR)")
        if prog not in self.lists["programs"][mode]:
            return self.skip(entry.name, "%s is not a %s program of Makefile.in" % (prog, mode))
        if self.no_cuda_run(prog):
            return self.skip(entry.name, "built with GASNET_HAVE_MK_CLASS_CUDA_UVA, it is linked "
                             "with the CUDA driver, which this machine lacks (libcuda.so.1); "
                             "ref_%s_testcudauva_compile covers it" % mode)
        if prog == "testexit":
            return self.skip(entry.name, "testexit: its exit cases run as ref_%s_testexit_<case> "
                             "(expected status = case number); its crash and backtrace cases "
                             "are not run" % mode)
        req = entry.last("RequireFeature")
        if req and not harness_conf.evaluate(req, self.features, HOST_RANKS):
            return self.skip(entry.name, "RequireFeature not met: " + req)
        pro = entry.last("ProhibitFeature")
        if pro and harness_conf.evaluate(pro, self.features, HOST_RANKS):
            return self.skip(entry.name, "ProhibitFeature met: " + pro)
        seconds = harness_conf.time_limit(entry.last("TimeLimit", "$DEFAULT$"), self.args.timelimit)
        if seconds == 0:
            return self.skip(entry.name, "compile-only in the harness (TimeLimit 0); "
                             "ref_%s_%s_compile covers it" % (mode, prog))
        flags = [f for f in entry.conditional("MakeFlags", self.features, HOST_RANKS) if f]
        special = [f for f in flags if not WARNING_ONLY_MAKEFLAGS.match(f)]
        if special:
            return self.skip(entry.name, "needs a build of its own (MakeFlags %s)" % "; ".join(special))
        if entry.last("PassExpr", "0") != "0" or entry.last("FailExpr", "ERROR") != "ERROR":
            return self.skip(entry.name, "pass condition other than exit 0 without ERROR (PassExpr/FailExpr)")
        launcher = "gasnetrun"
        runcmd = entry.conditional("RunCmd", self.features, HOST_RANKS)
        if runcmd:
            if re.fullmatch(r"mpirun -np %N %P %A", runcmd[-1]):
                launcher = "mpirun"
            else:
                return self.skip(entry.name, "runs through its own command (RunCmd %s)" % runcmd[-1])
        if prog in self.lists["nongasnet"]:
            launcher = "direct"
        self.runnable[mode].add(prog)
        self.register_runs(mode, prog, label, variant == "", launcher, entry, seconds)

    def register_runs(self, mode, prog, label, base, launcher, entry, seconds):
        has_default, counts = harness_conf.dynamic_threads(
            entry.last("DynamicThreads", "$DEFAULT$") if entry is not None else "$DEFAULT$")
        if launcher == "direct":
            return self.run(mode, prog, label, "host", 1, launcher, entry, seconds)
        host_n = HOST_RANKS if has_default or not counts else max(counts)
        self.run(mode, prog, label, "host", host_n, launcher, entry, seconds)
        if not base:
            return
        net_n = NET_RANKS if has_default or not counts else max(counts)
        if net_n > 1:
            self.run(mode, prog, label, "net", net_n, launcher, entry, seconds)
        else:
            self.skip("%s-%s (network run)" % (label, mode), "DynamicThreads %s: one rank" % counts)
        if mode == "par" and has_default and launcher == "gasnetrun" and threaded(self.args.suite, prog):
            self.run(mode, prog, label, "host", THREADED_RANKS, launcher, entry, seconds)

    def plan(self):
        for mode in ("seq", "par"):
            for prog in self.lists["programs"][mode]:
                self.add("ref_%s_%s_compile" % (mode, prog), kind="compile", mode=mode, prog=prog,
                         timelimit=30, status=0)
        for entry in harness_conf.parse(os.path.join(self.args.suite, "harness", "gasnet-tests",
                                                     "harness.conf")):
            self.harness_entry(entry)
        for mode in ("seq", "par"):
            # the time limit of harness.conf's default blocks: SEQ tests, then threaded ones
            default = harness_conf.time_limit("1.5 * $DEFAULT$" if mode == "seq" else "2 * $DEFAULT$",
                                              self.args.timelimit)
            for prog in self.lists["programs"][mode]:
                if prog in self.runnable[mode] or prog == "testexit" or self.no_cuda_run(prog):
                    continue
                if prog in self.lists["run_tests_err"] and prog != "testhello":
                    self.skip("%s-%s" % (prog, mode), "no runnable harness entry, and Makefile.in's "
                              "run-tests target does not run it")
                    continue
                self.skip("%s-%s (harness)" % (prog, mode), "no runnable harness entry: run as "
                          "Makefile.in's run-tests target runs it (no arguments)")
                launcher = "direct" if prog in self.lists["nongasnet"] else "gasnetrun"
                self.register_runs(mode, prog, prog, True, launcher, None, default)
            if "testexit" in self.lists["programs"][mode]:
                for case in TESTEXIT_CASES[mode]:
                    self.add("ref_%s_testexit_%d" % (mode, case), kind="exit", mode=mode,
                             prog="testexit", ranks=HOST_RANKS, launcher="gasnetrun",
                             args=[str(case)], env=[], timelimit=self.limit(default), status=case,
                             harness="")


def cmake_word(s):
    return s if re.fullmatch(r"[A-Za-z0-9_.+-]+", s) else '"%s"' % s.replace("\\", "/").replace('"', "'")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", required=True, help="the reference tests directory")
    ap.add_argument("--sed", required=True, help="the sed script substituting Makefile.in")
    ap.add_argument("--workdir", required=True, help="the stage's directory in the build tree")
    ap.add_argument("--out", required=True, help="directory for plan.json, plan.cmake, not-registered.txt")
    ap.add_argument("--timelimit", type=float, default=60, help="seconds of the harness's $DEFAULT$")
    ap.add_argument("--timelimit-max", type=float, default=240, help="upper bound of any time limit")
    ap.add_argument("--cc-family", default="GNU")
    ap.add_argument("--mpi", type=int, default=0)
    ap.add_argument("--mpirun-pmix", type=int, default=0)
    ap.add_argument("--cuda-uva", type=int, default=0,
                    help="1: this build defines GASNET_HAVE_MK_CLASS_CUDA_UVA")
    args = ap.parse_args()

    p = Planner(args)
    p.plan()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "plan.json"), "w") as f:
        json.dump({"workdir": args.workdir, "suite": args.suite, "tests": p.tests,
                   "programs": p.lists["programs"], "features": sorted(p.features),
                   "not_registered": p.not_registered}, f, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "plan.cmake"), "w") as f:
        f.write("# generated by tests/gasnet-tests/plan.py; do not edit\n")
        for name in sorted(p.tests):
            t = p.tests[name]
            f.write("gex_ref_test(%s %s %s %d %d %s)\n" % (
                name, t["mode"], t["kind"], t["timelimit"], t["status"],
                cmake_word(t.get("launcher", "none"))))
    with open(os.path.join(args.out, "not-registered.txt"), "w") as f:
        f.write("# harness.conf entries and runs the gasnet-tests stage does not register, and why\n")
        for entry, reason in p.not_registered:
            f.write("%s: %s\n" % (entry, reason))
    print("gasnet-tests: %d tests planned, %d harness entries or runs not registered (see %s)" % (
        len(p.tests), len(p.not_registered), os.path.join(args.out, "not-registered.txt")))


if __name__ == "__main__":
    main()
