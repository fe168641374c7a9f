"""bench/report_common.py -- what every part of bench/report shares: the
repository's root, the report's markers, the iteration counts of a full and
a quick report, the series names of the paths, the output formats the
benchmarks print, and running a command.
"""

import os
import re
import subprocess
import sys

import report_ref

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


BEGIN_MARK = "<!-- bench/report: begin (generated; edit bench/report, not this part) -->"
END_MARK = "<!-- bench/report: end -->"

# Iteration counts: ITERS per size, capped by -budget BYTES per size (see
# docs/benchmarks.md).  The on-node and MPI on-node counts make a round of
# those about 15 s on an idle 2-core machine.  The network paths (libgex
# net-*, MPI TCP) have latencies of 10-200 us, so their counts are much
# smaller: about 10-30 s per benchmark and path.  With both libgex network
# paths a full round is 1.5-2 minutes on a busy 2-core machine; use --rounds
# to shorten the report.
FULL = {
    "rounds": 10,
    "gex-testsmall": "-m -budget 256M 500000 4M",
    "gex-testlarge": "-m -budget 1G 1000000 4M",
    "gex-testam": "-m -budget 256M 20000 4M",
    "mpi-onnode": "-m -budget 512M 40000 4M ABCDEF",
    "mpi-tcp": "-m -budget 64M 2000 4M ABCDEF",
    "net-testsmall": "-m -budget 64M 2000 4M",
    "net-testlarge": "-m -minsz 8 -budget 64M 2000 4M",
    "net-testam": "-m -budget 16M 1000 4M",
    # atomics, barrier, collectives, strided; the network paths
    # run these over loopback only (not in the two namespaces)
    "gex-testbarrier": "100000",
    "gex-testratomic": "200000",
    "gex-testcoll": "-m -budget 256M 10000 1M",
    "gex-teststrided": "-m -budget 64M 1000 1M",
    "mpi-coll-onnode": "-m -budget 256M 10000 1M",
    "mpi-coll-tcp": "-m -budget 16M 1000 1M",
    "net-testbarrier": "2000",
    "net-testratomic": "2000",
    "net-testcoll": "-m -budget 16M 500 1M",
    "net-teststrided": "-budget 16M 50 1M ABEF",
    # collectives at COLL_RANKS ranks over the network, 64 KiB to 1 MiB
    "net-coll-ranks": "-m -minsz 65536 200 1048576 AB",
    "mpi-coll-ranks": "-m -minsz 65536 200 1048576 FG",
    # the network floor: 8-byte round trips (see FLOOR_PROVIDERS)
    "sock-pingpong": "50000",
    "fi_pingpong": "50000",
    "prov-testsmall": "5000 8 A",
    "prov-testam": "5000 1 A",
    # the crowded cores (bench/report_load.py): rounds, iterations
    "load-rounds": 5,
    "load-iters": 1000,
    **report_ref.ITERS_FULL,
}
QUICK = {
    "rounds": 1,
    "gex-testsmall": "-m -budget 4M 1000 4M",
    "gex-testlarge": "-m -budget 16M 1000 4M",
    "gex-testam": "-m -budget 4M 200 4M",
    "mpi-onnode": "-m -budget 8M 500 4M ABCDEF",
    "mpi-tcp": "-m -budget 4M 100 4M ABCDEF",
    "net-testsmall": "-m -budget 4M 100 4M",
    "net-testlarge": "-m -minsz 8 -budget 4M 100 4M",
    "net-testam": "-m -budget 4M 100 4M",
    "gex-testbarrier": "5000",
    "gex-testratomic": "5000",
    "gex-testcoll": "-m -budget 2M 200 1M",
    "gex-teststrided": "-budget 8M 50 1M",
    "mpi-coll-onnode": "-m -budget 2M 200 1M",
    "mpi-coll-tcp": "-m -budget 1M 20 1M",
    "net-testbarrier": "200",
    "net-testratomic": "100",
    "net-testcoll": "-m -budget 1M 20 1M",
    "net-teststrided": "-budget 2M 10 256K ABEF",
    "net-coll-ranks": "-m -minsz 65536 20 1048576 AB",
    "mpi-coll-ranks": "-m -minsz 65536 20 1048576 FG",
    "sock-pingpong": "5000",
    "fi_pingpong": "5000",
    "prov-testsmall": "300 8 A",
    "prov-testam": "300 1 A",
    "load-rounds": 1,
    "load-iters": 100,
    **report_ref.ITERS_QUICK,
}
# The benchmarks beyond RMA and AMs and the key of their entry above.
NEW_BENCHES = ("gex-testbarrier", "gex-testratomic", "gex-testcoll", "gex-teststrided")
# The libgex network paths: GEX_SUPERNODE_MAXSIZE=1 makes every peer a
# different node, so everything goes through the libfabric transport even on
# one host; the provider is libgex's default, the one MPI TCP is compared with.
NET_PROVIDER = "net"
NET = "libgex network"        # series prefix of the loopback network path
NETNS = "libgex netns"        # series prefix of the two-namespace path
# libgex's own transport (GEX_NET_TRANSPORT=sock: its UDP lane, TCP for bulk) on loopback.
SOCK = "libgex sock"
SOCK_ENV = {"GEX_SUPERNODE_MAXSIZE": "1", "GEX_NET_TRANSPORT": "sock"}
# "Collectives at 2 and 4 ranks over the network": the job sizes, the sizes
# shown, the operations (series key, label) of gex-testcoll AB / mpi-coll-bench FG.
COLL_RANKS = (2, 4)
COLL_RANKS_SIZES = (65536, 1 << 20)
COLL_RANKS_OPS = (("Broadcast", "Broadcast"), ("ReduceToAll U64", "ReduceToAll U64 SUM"))


def net_env(provider):
    """The environment (beyond the caller's) of a libgex network path over a provider."""
    return {"GEX_SUPERNODE_MAXSIZE": "1", "GEX_OFI_PROVIDER": provider}


def net_path(provider):
    """The series prefix of libgex over a provider on loopback: NET for NET_PROVIDER."""
    return NET if provider == NET_PROVIDER else "%s %s" % (NET, provider)


def ranks_path(path, n):
    """The series prefix of the n-rank collective runs of NET or "MPI TCP"."""
    return "%s %d ranks" % (path, n)


# The network floor: libfabric providers measured with fi_pingpong and, where
# the build has the libfabric transport, with libgex (8-byte Put and AM Short
# round trips).  'net' is listed by some libfabric versions only.  The
# FI_*_IFACE variables keep fi_pingpong's endpoints on the loopback
# interface (libgex picks loopback itself when all ranks share one host).
FLOOR_PROVIDERS = ("tcp;ofi_rxm", "net", "udp;ofi_rxd", "shm")
FLOOR_NETWORK = ("tcp;ofi_rxm", "net", "udp;ofi_rxd")   # not node-local: candidates for "fastest provider"
FI_LOOPBACK_ENV = {"FI_TCP_IFACE": "lo", "FI_NET_IFACE": "lo", "FI_UDP_IFACE": "lo"}
KERNEL = "kernel"             # series prefix of sock-pingpong
# sock-pingpong's modes: polling (the floor of polling libraries: the ratios'
# base is -spin udp) and blocking recv (adds the wake-up of a sleeping process)
KERNEL_MODES = ("-spin udp", "-spin tcp", "udp", "tcp")
FIPP = "fi_pingpong"          # series prefix of fi_pingpong (one per provider)
# The reference's network path: the same-source runs of bench/report_ref.py.
REF_NET = report_ref.path_of("reference", report_ref.NETWORK, 2)
PATH_LABEL = {
    "libgex on-node": "libgex on-node",
    NET: "libgex network (%s, loopback)" % NET_PROVIDER,
    NETNS: "libgex network (%s, two network namespaces)" % NET_PROVIDER,
    SOCK: "libgex network (sock transport, TCP, loopback)",
    "MPI on-node": "Open MPI on-node",
    "MPI TCP": "Open MPI TCP (loopback)",
}
for _p in FLOOR_PROVIDERS:
    PATH_LABEL.setdefault(net_path(_p), "libgex network (%s, loopback)" % _p)
for _n in COLL_RANKS:
    for _p in (NET, "MPI TCP"):
        PATH_LABEL[ranks_path(_p, _n)] = "%s, %d ranks" % (PATH_LABEL[_p], _n)
NETNS_SH = os.path.join(ROOT, "tests", "netns", "netns.sh")
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
MPI_TCP_VARIANTS = [
    ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "osc", "pt2pt"],
    ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "osc", "rdma"],
]

NUM = r"[0-9]+(?:\.[0-9]+)?"
RE_SMALL = re.compile(r"^([A-Z]): +(\d+) - +(\d+) byte : +(\d+) iters, latency +(%s) us total, +(%s) us ave\. \((.+)\)$" % (NUM, NUM))
RE_LARGE = re.compile(r"^([A-Z]): +(\d+) - +(\d+) byte : +(\d+) iters, throughput +(%s) MiB/s \((.+)\)$" % NUM)
RE_AM = re.compile(r"^([A-Z]): +(\d+) - (Short|Medium|Long) +(\d+) byte : +(\d+) iters, +(%s) us/op, +(%s|-) MiB/s \((.+)\)$" % (NUM, NUM))
RE_OP = re.compile(r"^([A-Z]): +(\d+) - +(\d+) byte : +(\d+) iters, +(%s) us/op, +(%s) op/s, +(%s|-) MiB/s \((.+)\)$" % (NUM, NUM, NUM))
RE_SOCK = re.compile(r"^sock-pingpong (udp|tcp)(-spin)? 8 bytes: (%s) us round trip \((\d+) iters\)$" % NUM)
# the reference testsmall's line (GASNet's tests print it like gex-testsmall)
RE_MPI = re.compile(r"^([A-Z]): +(\d+) - +(\d+) byte : +(\d+) iters, latency +(%s) us total, +(%s) us ave\., +(%s) MB/s, +(%s) MiB/s \((.+)\)$" % (NUM, NUM, NUM, NUM))

MIB = 1048576.0
GIB = 1073741824.0


def die(msg, code=1):
    print("bench/report: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)


def say(msg):
    print(msg, flush=True)


def sh(cmd, **kw):
    """Runs a command, returns (status, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, **kw)
        return p.returncode, p.stdout, p.stderr
    except FileNotFoundError as e:
        return 127, "", str(e)
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or "", (e.stderr or "") + "\n(timed out)"


def first_line(cmd):
    rc, out, err = sh(cmd)
    text = (out or err).strip().splitlines()
    return text[0].strip() if rc == 0 and text else None
