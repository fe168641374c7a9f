"""bench/report_runs.py -- what bench/report runs: the configurations of
every benchmark on every path this machine has (on-node, the network paths,
two namespaces, MPI, the kernel's and libfabric's floors), and the
interleaved rounds that run them.
"""

import atexit
import os
import re
import shutil
import socket
import subprocess
import sys
import time

import report_ref
from report_common import (
    ROOT, COLL_RANKS, FIPP, FI_LOOPBACK_ENV, FLOOR_PROVIDERS, KERNEL, KERNEL_MODES, MPI_TCP_VARIANTS,
    NET, NETNS, NETNS_SH, NET_PROVIDER, NEW_BENCHES, OMPI_ENV, RE_MPI, RE_SMALL, SOCK,
    SOCK_ENV, die, first_line, net_env, net_path, ranks_path, say, sh)
from report_parse import parse


class Config:
    """One configuration run every round.  An optional one (the network floor
    rows) that fails is reported and not run again, instead of ending the
    report; 'runner', if given, is called instead of running cmd (which is
    then only what the raw output shows)."""
    def __init__(self, label, path, bench, cmd, env=None, optional=False, runner=None):
        self.label, self.path, self.bench, self.cmd, self.env = label, path, bench, cmd, env
        self.optional, self.runner = optional, runner
        self.failed = None
        self.times = []


def failure(rc, out, err, skip="#"):
    """'exit status N: first line of the output' of a failed run."""
    lines = [l.strip() for l in (err + "\n" + out).splitlines() if l.strip() and not l.startswith(skip)]
    return "exit status %d%s" % (rc, (": " + lines[0]) if lines else "")


def mpi_probe(bindir, extra):
    """Can mpirun start mpi-rma-bench with these options?  Returns (ok, detail)."""
    env = dict(os.environ, **OMPI_ENV)
    cmd = ["mpirun", "--oversubscribe", "-n", "2"] + extra + [os.path.join(bindir, "mpi-rma-bench"), "2", "8", "AC"]
    rc, out, err = sh(cmd, env=env, timeout=120)
    if rc == 0 and any(RE_MPI.match(l) for l in out.splitlines()):
        return True, ""
    lines = [l for l in (err + out).splitlines() if l.strip() and not l.startswith("-----")]
    return False, (lines[0] if lines else "exit status %d" % rc)


def fabric_built(build):
    """(True, "") if BUILD compiled the libfabric transport, else (False, reason)."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            cache = f.read()
    except OSError:
        return False, "%s has no CMakeCache.txt" % build
    if re.search(r"^GEX_WITH_OFI:BOOL=(OFF|0|FALSE|NO)$", cache, re.M | re.I):
        return False, "%s was configured with -DGEX_WITH_OFI=OFF (no src/transport/ofi compiled)" % os.path.relpath(build, ROOT)
    if not re.search(r"^GEX_FABRIC_LIB:FILEPATH=/", cache, re.M):
        return False, ("%s was built without libfabric (CMake found no libfabric, so src/transport/ofi was not "
                       "compiled; Debian: apt-get install libfabric-dev)" % os.path.relpath(build, ROOT))
    return True, ""


def gex_probe(cmd, env):
    """Does a tiny gex-testsmall run work?  Returns (ok, detail)."""
    rc, out, err = sh(cmd, env=env, timeout=120)
    if rc == 0 and any(RE_SMALL.match(l) for l in out.splitlines()):
        return True, ""
    return False, failure(rc, out, err)


def netns_names():
    return "gxrep%da" % os.getpid(), "gxrep%db" % os.getpid()


def netns_down():
    a, b = netns_names()
    sh(["bash", NETNS_SH, "down", a, b], timeout=60)


def net_configs(gexrun, bindir, path, env, benches, args, hosts=(), optional=False):
    """A Config per benchmark, run by 'gexrun -n 2 [hosts]' with env on a
    libgex network path; args(bench) is the benchmark's command line."""
    return [Config("%-15s %s" % (path, b), path, b,
                   [gexrun, "-n", "2"] + list(hosts) + [os.path.join(bindir, b)] + args(b).split(), env, optional)
            for b in benches]


def plan_network(build, it, gexrun, bindir, configs, skipped, notes):
    """The libgex network paths: loopback, and two network namespaces."""
    ok, why = fabric_built(build)
    if not ok:
        skipped.append((NET, why))
        skipped.append((NETNS, why))
        notes["floor libgex"] = why
        return
    env = dict(os.environ, **net_env(NET_PROVIDER))
    ok, why = gex_probe([gexrun, "-n", "2", os.path.join(bindir, "gex-testsmall"), "10", "8"], env)
    if not ok:
        skipped.append((NET, "a tiny gex-testsmall run with GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER='%s' "
                        "failed: %s" % (NET_PROVIDER, why)))
    else:
        configs += net_configs(gexrun, bindir, NET, env, ("gex-testsmall", "gex-testlarge", "gex-testam") + NEW_BENCHES,
                               lambda b: it["net-" + b[4:]])
        notes[NET] = "GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER='%s' gexrun -n 2" % NET_PROVIDER
        for n in COLL_RANKS:
            p = ranks_path(NET, n)
            configs.append(Config("%-15s gex-testcoll -n %d" % (NET, n), p, "gex-testcoll",
                                  [gexrun, "-n", str(n), os.path.join(bindir, "gex-testcoll")]
                                  + it["net-coll-ranks"].split(), env))
            notes[p] = "GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER='%s' gexrun -n %d" % (NET_PROVIDER, n)

    # Two "hosts": network namespaces joined by a veth pair (tests/netns/netns.sh).
    if not os.access(NETNS_SH, os.R_OK):
        skipped.append((NETNS, "tests/netns/netns.sh not found"))
        return
    a, b = netns_names()
    rc, out, err = sh(["bash", NETNS_SH, "up", a, b], timeout=60)
    if rc != 0:
        text = (out + err).strip().splitlines()
        skipped.append((NETNS, (text[0] if text else "netns.sh up failed (exit status %d)" % rc)
                        .replace("SKIP: ", "")))
        netns_down()
        return
    atexit.register(netns_down)
    nenv = dict(env, GEX_RSH="ip netns exec")
    hosts = ["--hosts", "%s:1,%s:1" % (a, b)]
    ok, why = gex_probe([gexrun, "-n", "2"] + hosts + [os.path.join(bindir, "gex-testsmall"), "10", "8"], nenv)
    if not ok:
        skipped.append((NETNS, "a tiny gex-testsmall run on two namespaces failed: " + why))
        return
    configs += net_configs(gexrun, bindir, NETNS, nenv, ("gex-testsmall", "gex-testlarge", "gex-testam"),
                           lambda b: it["net-" + b[4:]], hosts)
    notes[NETNS] = ("GEX_RSH='ip netns exec' GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER='%s' gexrun -n 2 "
                    "--hosts NS1:1,NS2:1" % NET_PROVIDER)


def free_port():
    """A TCP port of 127.0.0.1 that nothing uses now (the kernel's choice)."""
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def listening(port):
    """Is a TCP socket listening on this port?  None if /proc/net cannot tell."""
    seen = False
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(f) as fh:
                rows = fh.read().splitlines()[1:]
        except OSError:
            continue
        seen = True
        for r in rows:
            x = r.split()
            if len(x) > 3 and x[3] == "0A" and x[1].endswith(":%04X" % port):
                return True
    return False if seen else None


def fi_pingpong(prov, iters, timeout=120):
    """Runs fi_pingpong's server, then its client pointed at 127.0.0.1, for
    8-byte messages over provider prov's RDM endpoint; returns (status, the
    client's output, the client's stderr and the server's output).  The
    server is always waited for, and killed when the client failed or it
    does not end by itself."""
    args = ["fi_pingpong", "-p", prov, "-e", "rdm", "-S", "8", "-I", str(iters)]
    env = dict(os.environ, **FI_LOOPBACK_ENV)
    port = free_port()
    try:
        srv = subprocess.Popen(args + ["-B", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)
    except OSError as e:
        return 127, "", str(e)
    rc, out, err = 1, "", "the fi_pingpong server (control port %d) did not listen within 20 s" % port
    try:
        deadline = time.time() + 20
        while srv.poll() is None and time.time() < deadline:
            up = listening(port)
            if up or up is None:      # None: no /proc/net; the client's connect then decides
                rc, out, err = sh(args + ["-P", str(port), "127.0.0.1"], env=env, timeout=timeout)
                break
            time.sleep(0.01)
        if srv.returncode is not None:
            err = "the fi_pingpong server exited with status %d before a client connected" % srv.returncode
    finally:
        try:
            sout = srv.communicate(timeout=10 if rc == 0 else 0.1)[0]
        except subprocess.TimeoutExpired:
            srv.kill()
            sout = srv.communicate()[0]
    if rc == 0 and srv.returncode != 0:
        rc, err = 1, "the fi_pingpong server %s" % (
            "did not end within 10 s of the client" if srv.returncode < 0 else "exited with status %d" % srv.returncode)
    if rc != 0:     # the first line says what both ends said
        first = [next((l.strip() for l in t.splitlines() if l.strip()), "") for t in (err + "\n" + out, sout)]
        err = "client: %s; server: %s\n%s" % (first[0] or "-", first[1] or "-", err)
    return rc, out, (err + "\n" if err else "") + "--- server (fi_pingpong -B %d) ---\n%s" % (port, sout)


def fi_listed(prov):
    """None if fi_info lists an RDM endpoint of prov, else why not."""
    rc, out, err = sh(["fi_info", "-p", prov, "-t", "FI_EP_RDM"], timeout=60)
    if rc == 127:
        return "fi_info not found (Debian: apt-get install libfabric-bin)"
    if rc != 0 or "provider:" not in out:
        return "not available: 'fi_info -p %s -t FI_EP_RDM' lists no endpoint (%s)" % (prov, failure(rc, out, err))
    return None


def plan_floor(it, gexrun, bindir, configs, notes):
    """The network floor rows: the kernel (sock-pingpong), each provider
    (fi_pingpong), libgex over each provider (gex-testsmall Put and gex-testam
    Short ping-pong; over NET_PROVIDER the NET path's runs serve); the
    reference GASNet-EX's row comes from the same-source runs
    (bench/report_ref.py).  All optional: what cannot run is noted in
    notes["floor"] (row -> reason)."""
    why_not = notes.setdefault("floor", {})
    exe = os.path.join(bindir, "sock-pingpong")
    if os.access(exe, os.X_OK):
        for mode in KERNEL_MODES:
            configs.append(Config("%-15s sock-pingpong %s" % (KERNEL, mode), KERNEL, "sock-pingpong",
                                  [exe] + mode.split() + [it["sock-pingpong"]], optional=True))
    else:
        why_not[KERNEL] = "%s not found (built from bench/sockpingpong.c)" % exe
    # libgex's own transport (sock): the full sweeps (its Put, AM and flood rows).
    configs += net_configs(gexrun, bindir, SOCK, dict(os.environ, **SOCK_ENV),
                           ("gex-testsmall", "gex-testlarge", "gex-testam"), lambda b: it["net-" + b[4:]],
                           optional=True)
    notes[SOCK] = "GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock gexrun -n 2"
    have_fipp = shutil.which("fi_pingpong")
    for prov in FLOOR_PROVIDERS:
        why = fi_listed(prov)
        if why and "fi_info not found" not in why:
            why_not[FIPP + " " + prov] = why_not[net_path(prov)] = why
            continue
        if not have_fipp:
            why_not[FIPP + " " + prov] = "fi_pingpong not found (Debian: apt-get install libfabric-bin)"
        else:
            cmd = ["fi_pingpong", "-p", prov, "-e", "rdm", "-S", "8", "-I", it["fi_pingpong"], "-P", "PORT", "127.0.0.1"]
            configs.append(Config("%-15s %s" % (FIPP, prov), FIPP + " " + prov, "fi_pingpong", cmd, FI_LOOPBACK_ENV,
                                  True, lambda prov=prov: fi_pingpong(prov, it["fi_pingpong"])))
        if "floor libgex" in notes:
            why_not[net_path(prov)] = notes["floor libgex"]
        elif prov != NET_PROVIDER:
            configs += net_configs(gexrun, bindir, net_path(prov), dict(os.environ, **net_env(prov)),
                                   ("gex-testsmall", "gex-testam"), lambda b: it["prov-" + b[4:]], optional=True)


def plan(build, it):
    """Every configuration: libgex's paths, MPI's, then the same-source
    comparison with the reference (which needs to know MPI's)."""
    configs, skipped, notes = plan_gex_mpi(build, it)
    report_ref.plan(build, it, Config, configs, notes, say)
    return configs, skipped, notes


def plan_gex_mpi(build, it):
    bindir = os.path.join(build, "bin")
    gexrun = os.path.join(bindir, "gexrun")
    configs, skipped, notes = [], [], {}
    for b in ("gex-testsmall", "gex-testlarge", "gex-testam") + NEW_BENCHES:
        exe = os.path.join(bindir, b)
        if not os.access(exe, os.X_OK):
            die("%s not found: build with -DGEX_BUILD_BENCH=ON" % exe)
        configs.append(Config("libgex on-node  %s" % b, "libgex on-node", b,
                              [gexrun, "-n", "2", exe] + it[b].split()))
    plan_network(build, it, gexrun, bindir, configs, skipped, notes)
    plan_floor(it, gexrun, bindir, configs, notes)

    mpi = os.path.join(bindir, "mpi-rma-bench")
    if not os.access(mpi, os.X_OK):
        reason = "mpi-rma-bench was not built (CMake found no MPI; Debian: apt-get install libopenmpi-dev openmpi-bin)"
        skipped += [("MPI on-node", reason), ("MPI TCP", reason)]
        return configs, skipped, notes
    if not shutil.which("mpirun"):
        skipped += [("MPI on-node", "mpirun not found"), ("MPI TCP", "mpirun not found")]
        return configs, skipped, notes
    version = first_line(["mpirun", "--version"]) or "?"
    notes["mpirun"] = version
    if "Open MPI" not in version and "OpenRTE" not in version:
        skipped += [("MPI on-node", "mpirun is not Open MPI (%s); bench/report knows only Open MPI's options" % version),
                    ("MPI TCP", "as MPI on-node")]
        return configs, skipped, notes
    env = dict(os.environ, **OMPI_ENV)
    base = ["mpirun", "--oversubscribe", "-n", "2"]
    ok, why = mpi_probe(bindir, [])
    if ok:
        configs.append(Config("MPI on-node     mpi-rma-bench", "MPI on-node", "mpi-rma-bench",
                              base + [mpi] + it["mpi-onnode"].split(), env))
        notes["MPI on-node"] = "mpirun --oversubscribe -n 2"
        coll = os.path.join(bindir, "mpi-coll-bench")
        if os.access(coll, os.X_OK):
            configs.append(Config("MPI on-node     mpi-coll-bench", "MPI on-node", "mpi-coll-bench",
                                  base + [coll] + it["mpi-coll-onnode"].split(), env))
    else:
        skipped.append(("MPI on-node", "mpirun cannot run mpi-rma-bench: " + why))
    for extra in MPI_TCP_VARIANTS:
        ok, why = mpi_probe(bindir, extra)
        if ok:
            configs.append(Config("MPI TCP         mpi-rma-bench", "MPI TCP", "mpi-rma-bench",
                                  base + extra + [mpi] + it["mpi-tcp"].split(), env))
            notes["MPI TCP"] = "mpirun --oversubscribe -n 2 " + " ".join(extra)
            coll = os.path.join(bindir, "mpi-coll-bench")
            if os.access(coll, os.X_OK):
                configs.append(Config("MPI TCP         mpi-coll-bench", "MPI TCP", "mpi-coll-bench",
                                      base + extra + [coll] + it["mpi-coll-tcp"].split(), env))
            for n in COLL_RANKS:
                p = ranks_path("MPI TCP", n)
                if not os.access(coll, os.X_OK):
                    skipped.append((p, "mpi-coll-bench was not built"))
                    continue
                configs.append(Config("MPI TCP         mpi-coll-bench -n %d" % n, p, "mpi-coll-bench",
                                      ["mpirun", "--oversubscribe", "-n", str(n)] + extra + [coll]
                                      + it["mpi-coll-ranks"].split(), env))
                notes[p] = "mpirun --oversubscribe -n %d %s" % (n, " ".join(extra))
            break
        say("  note: MPI TCP with '%s' does not work here: %s" % (" ".join(extra), why))
    else:
        skipped.append(("MPI TCP", "none of the TCP-only option sets works with this Open MPI"))
    return configs, skipped, notes


def run_all(configs, rounds, rawdir, res, notes):
    total = len(configs) * rounds
    k = 0
    for r in range(rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]  # rotate: no config always first
        for c in order:
            k += 1
            if c.failed:
                say("[%2d/%d] round %d/%d: %s: not run (failed before)" % (k, total, r + 1, rounds, c.label))
                continue
            say("[%2d/%d] round %d/%d: %s ..." % (k, total, r + 1, rounds, c.label))
            t0 = time.time()
            rc, out, err = c.runner() if c.runner else sh(c.cmd, env=c.env, timeout=120 if c.optional else 600)
            dt = time.time() - t0
            c.times.append(dt)
            fname = os.path.join(rawdir, "raw-%s-r%d.txt" % (raw_name(c, configs), r + 1))
            with open(fname, "w") as f:
                f.write("$ " + " ".join(c.cmd) + "\n" + out + ("\n--- stderr ---\n" + err if err else ""))
            if rc != 0 and c.optional:
                note_failure(c, r, failure(rc, out, err), notes)
                continue
            if rc != 0:
                sys.stderr.write(out + err)
                die("%s failed (exit status %d): %s" % (c.label, rc, " ".join(c.cmd)))
            m = re.search(r"^# mpi-rma-bench: .*; MPI (\d+\.\d+), (.*)$", out, re.M)
            if m and "mpi_library" not in notes:
                notes["mpi_library"] = "%s (MPI standard %s)" % (m.group(2).strip(), m.group(1))
            try:
                n = parse(c.bench, c.path, out, res)
            except ValueError as e:
                if not c.optional:
                    die("%s: %s" % (c.label, e))
                note_failure(c, r, str(e), notes)
                continue
            say("        %d points in %.1f s" % (n, dt))


def raw_name(c, configs):
    """PATH-BENCH, or the label where that is not unique (sock-pingpong's modes); file-name safe."""
    same = sum(1 for x in configs if (x.path, x.bench) == (c.path, c.bench))
    return re.sub(r"[^\w.+-]+", "_", "%s-%s" % (c.path, c.bench) if same == 1 else " ".join(c.label.split()))


def note_failure(c, r, why, notes):
    """An optional configuration failed in round r: noted (notes["failed"],
    keyed by its label with single spaces) and not run again."""
    c.failed = "round %d: %s" % (r + 1, why)
    notes.setdefault("failed", {})[" ".join(c.label.split())] = c.failed
    say("        SKIP from now on: %s" % c.failed)
