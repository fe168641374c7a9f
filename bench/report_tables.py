"""bench/report_tables.py -- bench/report's analysis: the machine's
description, the tables of docs/performance.md and the Markdown that holds
them.
"""

import os
import platform
import re
import time

import report_ref
import report_load
import report_large
from report_common import (
    ROOT, BEGIN_MARK, COLL_RANKS, COLL_RANKS_OPS, COLL_RANKS_SIZES, END_MARK, FIPP, FI_LOOPBACK_ENV,
    FLOOR_NETWORK, FLOOR_PROVIDERS, GIB, KERNEL, KERNEL_MODES, NET, NETNS, NET_PROVIDER,
    NEW_BENCHES, PATH_LABEL, REF_NET, SOCK, first_line, net_path, ranks_path, sh)
from report_parse import AM_PATTERNS


def fmt_size(n):
    for unit, v in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= v and n % v == 0:
            return "%d %s" % (n // v, unit)
    return "%d B" % n


def fmt_us(v):
    if v is None:
        return "—"
    if v < 0.1:
        return "%.4f" % v
    if v < 10:
        return "%.3f" % v
    return "%.1f" % v


def ratio(a, b):
    if a is None or b is None or a <= 0:
        return "—"
    x = b / a
    if x < 1:
        return "%.2f×" % x
    return ("%.0f×" % x) if x >= 100 else ("%.1f×" % x)


def at(res, name, size):
    return res.best(name).get(size)


def ninety(res, name, min_size=16):
    """(peak bytes/s, size of the peak, first size reaching 90% of the peak)."""
    pts = {s: v for s, v in res.best(name).items() if s >= min_size}
    if not pts:
        return None
    peak_size = max(pts, key=lambda s: pts[s])
    peak = pts[peak_size]
    first = min(s for s, v in pts.items() if v >= 0.9 * peak)
    return peak, peak_size, first


BW_SERIES = [
    ("libgex on-node PutNBI", "libgex Put (PutNBI), on-node"),
    ("libgex on-node GetNBI", "libgex Get (GetNBI), on-node"),
    ("libgex on-node PutNB", "libgex Put (PutNB + WaitAll), on-node"),
    ("libgex on-node GetNB", "libgex Get (GetNB + WaitAll), on-node"),
    ("MPI on-node MPI_Put aggregate", "MPI RMA Put (Unidir_put aggregate), Open MPI on-node"),
    ("MPI on-node MPI_Get aggregate", "MPI RMA Get (Unidir_get aggregate), Open MPI on-node"),
    ("MPI on-node Isend/Irecv Uniband", "MPI Isend/Irecv (Uniband), Open MPI on-node"),
    ("MPI TCP MPI_Put aggregate", "MPI RMA Put (Unidir_put aggregate), Open MPI TCP"),
    ("MPI TCP MPI_Get aggregate", "MPI RMA Get (Unidir_get aggregate), Open MPI TCP"),
    ("MPI TCP Isend/Irecv Uniband", "MPI Isend/Irecv (Uniband), Open MPI TCP"),
]
for _p, _where in ((NET, "network (%s, loopback)" % NET_PROVIDER),
                   (NETNS, "network (%s, two namespaces)" % NET_PROVIDER)):
    BW_SERIES += [
        ("%s PutNBI" % _p, "libgex Put (PutNBI), " + _where),
        ("%s GetNBI" % _p, "libgex Get (GetNBI), " + _where),
        ("%s PutNB" % _p, "libgex Put (PutNB + WaitAll), " + _where),
        ("%s GetNB" % _p, "libgex Get (GetNB + WaitAll), " + _where),
    ]


def fraction_words(g, m, what):
    """'libgex takes 0.62 of MPI's time (target ≤ 0.8: met)' for latencies g (libgex) and m (MPI)."""
    if g is None or m is None or m <= 0:
        return "%s: not measured" % what
    f = g / m
    return "%s: libgex's latency is %.2f × MPI's (target ≤ 0.80 ×: %s)" % (
        what, f, "**met**" if f <= 0.8 else "**not met**")


def machine_info(build, notes):
    info = []
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info.append(("CPU", "%s, %d cores (`nproc`)" % (cpu or platform.processor() or "?", os.cpu_count() or 0)))
    caches = []
    cdir = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for idx in sorted(os.listdir(cdir)):
            def rd(x):
                with open(os.path.join(cdir, idx, x)) as f:
                    return f.read().strip()
            if rd("type") in ("Data", "Unified"):
                sz = rd("size")
                sz = fmt_size(int(sz[:-1]) * 1024) if sz.endswith("K") and sz[:-1].isdigit() else sz
                caches.append("L%s %s" % (rd("level"), sz))
    except OSError:
        pass
    if caches:
        info.append(("caches seen by cpu0", ", ".join(caches)))
    mem = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem = int(line.split()[1]) / 1048576.0
    except OSError:
        pass
    if mem:
        info.append(("memory", "%.0f GiB" % mem))
    osname = "?"
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    info.append(("OS, kernel", "%s, Linux %s" % (osname, platform.release())))
    cc = None
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            cache = f.read()
        m = re.search(r"^CMAKE_C_COMPILER:\w+=(.*)$", cache, re.M)
        if m:
            cc = first_line([m.group(1).strip(), "--version"])
        bt = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", cache, re.M)
        ck = re.search(r"^GEX_CHECKS:\w+=(.*)$", cache, re.M)
        info.append(("libgex build", "`%s`: CMAKE_BUILD_TYPE=%s, GEX_CHECKS=%s" % (
            os.path.relpath(build, ROOT), bt.group(1) if bt else "?", ck.group(1) if ck else "?")))
    except OSError:
        pass
    info.append(("compiler", cc or "?"))
    info.append(("MPI", notes.get("mpi_library") or notes.get("mpirun") or "not available"))
    rc, head, _ = sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    commit = head.strip() if rc == 0 else "?"
    # Files that go into the build and differ from the commit (untracked
    # sources count: the build globs src/).
    rc, dirty, _ = sh(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=all", "--",
                       "CMakeLists.txt", "cmake", "src", "include", "bench", "tools"])
    if rc == 0 and dirty.strip():
        dirs = sorted({l[3:].split("/")[0] + ("/" if "/" in l[3:] else "") for l in dirty.splitlines() if len(l) > 3})
        commit += " plus uncommitted changes in %s" % ", ".join(dirs)
    info.append(("libgex commit", "`%s`" % commit))
    info.append(("Python (report), plots", "%s, %s" % (platform.python_version(), notes.get("matplotlib", "not drawn"))))
    return info


def am_table(res, path="libgex on-node"):
    rows = []
    for cat in ("Short", "Medium", "Long"):
        cells = [cat]
        sizes = None
        for pat in AM_PATTERNS:
            b = res.best("%s AM %s %s us/op" % (path, cat, pat))
            if not b:
                cells.append("—")
                continue
            s = min(b)
            sizes = s
            cells.append(fmt_us(b[s]))
        peak = ninety(res, "%s AM %s flood Req bw" % (path, cat), min_size=1)
        cells.append("%.2f GiB/s at %s" % (peak[0] / GIB, fmt_size(peak[1])) if peak else "—")
        cells.insert(1, fmt_size(sizes) if sizes is not None else "—")
        rows.append(cells)
    return rows


def flood_table(L, res):
    """Small-message floods over the network, each against the like of it in
    Open MPI: one-sided (Put x N, one wait) against MPI_Put x N + one
    MPI_Win_flush; Active Messages against two-sided messages (Uniband)."""
    def per_msg(name, size):
        return report_ref.per_msg(res, at, name, size)
    uniband = per_msg("MPI TCP Isend/Irecv Uniband", 8)
    mpi_put = per_msg("MPI TCP MPI_Put aggregate", 8)
    one_sided = "`MPI_Put` flood + `MPI_Win_flush`"
    two_sided = "`MPI_Isend`/`MPI_Irecv` Uniband"
    rows = [
        ("libgex", "`gex_RMA_PutNBI` flood, 8 bytes, each to its own address and checked, then one "
         "`gex_NBI_Wait` (`gex-testlarge` E)", per_msg(NET + " PutNBI distinct", 8), mpi_put, one_sided),
        ("libgex", "the same, every Put to one address (`gex-testlarge` A, the reference testlarge's method)",
         per_msg(NET + " PutNBI", 8), mpi_put, one_sided),
        ("reference GASNet-EX udp", "the same `gex-testlarge` E built against the reference (`amudprun`, "
         "`GASNET_SUPERNODE_MAXSIZE=1`)", per_msg(REF_NET + " PutNBI distinct", 8), mpi_put, one_sided),
        ("libgex sock", "the same `gex-testlarge` E over the sock transport (TCP)",
         per_msg(SOCK + " PutNBI distinct", 8), mpi_put, one_sided),
        ("Open MPI TCP", "`MPI_Put` flood, 8 bytes, then one `MPI_Win_flush`", mpi_put, None, None),
        ("libgex", "AM Short Request flood (`gex-testam` C)", at(res, NET + " AM Short flood Req us/op", 0),
         uniband, two_sided),
        ("libgex", "AM Short Request flood, each answered by a Reply (`gex-testam` D)",
         at(res, NET + " AM Short flood Req/Rep us/op", 0), uniband, two_sided),
        ("libgex", "AM Medium Request flood, 8 bytes (`gex-testam` G)",
         at(res, NET + " AM Medium flood Req us/op", 8), uniband, two_sided),
        ("libgex sock", "AM Short Request flood over the sock transport (`gex-testam` C)",
         at(res, SOCK + " AM Short flood Req us/op", 0), uniband, two_sided),
        ("Open MPI TCP", "`MPI_Isend` / `MPI_Irecv` Uniband, 8 bytes", uniband, None, None),
    ]
    if all(v is None for _, _, v, _, _ in rows):
        return
    L.append("### Small-message floods over the network (8 bytes, loopback)")
    L.append("")
    L.append("Microseconds per message (elapsed ÷ messages, the inverse of the message rate) over the "
             "network path (`net`; rows of libgex sock: libgex's own transport, UDP datagrams and TCP for bulk), against Open MPI over TCP in the "
             "same run, like with like: "
             "one-sided Puts against MPI's one-sided Puts, Active Messages against MPI's two-sided "
             "messages. The ratio is the named MPI flood's time per message ÷ the row's (above 1: "
             "more messages per second than that MPI flood).")
    L.append("")
    L.append("| who | flood | us per message | rate | against | MPI ÷ row |")
    L.append("| --- | --- | ---: | ---: | --- | ---: |")
    for who, what, v, base, base_name in rows:
        if v is None and who.startswith("reference"):
            continue  # measured only when GASNET_REF names an install
        L.append("| %s | %s | %s | %s | %s | %s |" % (who, what, fmt_us(v), fmt_rate(v),
                                                     base_name or "—", ratio(v, base) if base_name else "—"))
    L.append("")


def fmt_rate(us):
    """us/op -> 'N.NN Mop/s'."""
    if not us:
        return "—"
    r = 1.0 / us
    return ("%.3g Mop/s" % r) if r >= 0.1 else ("%.3g kop/s" % (r * 1000))


def coll_tables(L, res, it, load, rounds):
    """The section beyond RMA and AMs: atomics, barrier, collectives, strided."""
    L.append("### Atomics, barrier and collectives")
    L.append("")
    if max(float(x) for x in load) > (os.cpu_count() or 1):
        L.append("**Caution:** the load average (%s / %s) was above the number of cores (%d) while this ran. "
                 "Barrier and collective latencies need every rank running at once; when a rank waits for a "
                 "core (libgex's polling loops yield the core after a run of empty polls, Open MPI's spin), "
                 "they grow several times, and the minimum over %d round%s can still be such a figure. "
                 "Rerun on a quiet machine before drawing conclusions." % (
                     load[0], load[1], os.cpu_count() or 1, rounds, "s" if rounds > 1 else ""))
        L.append("")
    L.append("libgex (`gex-testbarrier`, `gex-testratomic`, `gex-testcoll`) against Open MPI "
             "(`mpi-coll-bench`: `MPI_Barrier`, `MPI_Fetch_and_op` / `MPI_Accumulate` on `MPI_UINT64_T` with "
             "`MPI_SUM` in one `MPI_Win_lock_all` epoch, `MPI_Bcast`, `MPI_Allreduce`), 2 ranks on this host. "
             "Microseconds per operation: the latency, or for the floods elapsed ÷ operations (the inverse "
             "of the rate, also given in Mop/s). Barrier and collective figures are the slowest rank's mean "
             "over the iterations; the report keeps the minimum over the rounds. The ratio is MPI ÷ libgex "
             "(above 1: libgex is faster).")
    L.append("")
    L.append("The reference GASNet-EX is compared in \"Same source on both libraries\" below, with the same "
             "programs built against it.")
    L.append("")
    on, net = "libgex on-node", NET
    rows = [
        ("barrier (primordial team)", "barrier primordial", 0, "barrier primordial"),
        ("barrier (a `gex_TM_Split` team of both ranks)", "barrier split", 0, None),
        ("legacy anonymous barrier (`gasnet_barrier_notify` + `wait`)", "barrier legacy anonymous", 0,
         "barrier primordial"),
        ("legacy named barrier", "barrier legacy named", 0, "barrier primordial"),
        ("8-byte fetch-add latency, U64, remote rank", "atomic U64 FADD latency remote", 8, "atomic U64 FADD latency remote"),
        ("8-byte fetch-add latency, I64, remote rank", "atomic I64 FADD latency remote", 8, "atomic U64 FADD latency remote"),
        ("8-byte fetch-add latency, U64, own rank", "atomic U64 FADD latency own", 8, "atomic U64 FADD latency own"),
        ("fetch-add throughput, U64 NB FADD flood, remote", "atomic U64 FADD flood remote", 8, "atomic U64 FADD flood remote"),
        ("add throughput, U64 NBI ADD flood, remote (MPI: `MPI_Accumulate`)", "atomic U64 ADD flood remote", 8, "atomic U64 ADD flood remote"),
        ("add throughput, I64 NBI ADD flood, remote", "atomic I64 ADD flood remote", 8, None),
    ]
    sizes = [8, 4096, 65536, 1 << 20]
    for op, key in (("Broadcast", "Broadcast"), ("ReduceToAll U64 SUM", "ReduceToAll U64"),
                    ("ReduceToAll DBL SUM", "ReduceToAll DBL"), ("ReduceToOne U64 SUM", "ReduceToOne U64")):
        for sz in sizes:
            rows.append(("%s, %s" % (op, fmt_size(sz)), key, sz, key))
    L.append("| operation | libgex on-node (us) | Open MPI on-node (us) | ratio | libgex network, loopback (us) | Open MPI TCP (us) | ratio |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, gkey, sz, mkey in rows:
        g, n = at(res, "%s %s" % (on, gkey), sz), at(res, "%s %s" % (net, gkey), sz)
        m = at(res, "MPI on-node %s" % mkey, sz) if mkey else None
        t = at(res, "MPI TCP %s" % mkey, sz) if mkey else None
        if mkey and "I64" in gkey:
            label += " (MPI: U64)"
        if "flood" in gkey:
            cell = lambda v: "—" if v is None else "%s (%s)" % (fmt_us(v), fmt_rate(v))
        else:
            cell = fmt_us
        if all(v is None for v in (g, n, m, t)):
            continue
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (label, cell(g), cell(m), ratio(g, m), cell(n), cell(t), ratio(n, t)))
    L.append("")
    gb, mb = at(res, on + " barrier primordial", 0), at(res, "MPI on-node barrier primordial", 0)
    ga, ma = at(res, on + " atomic U64 FADD latency remote", 8), at(res, "MPI on-node atomic U64 FADD latency remote", 8)
    L.append("On-node, 2 ranks: barrier %s us (MPI %s us), 8-byte fetch-add %s us (MPI %s us). The "
             "collectives' full size sweeps (8 B to 1 MiB) are in `results.json` and in the figure below." % (
                 fmt_us(gb), fmt_us(mb), fmt_us(ga), fmt_us(ma)))
    L.append("")

    # strided
    L.append("### Strided Put/Get (`gex-teststrided`)")
    L.append("")
    tops = {}
    for p in (on, net):
        szs = set()
        for name in res.series:
            if name.startswith(p + " StridedPutNBI chunk"):
                szs |= set(int(k) for k in res.series[name]["points"])
        if szs:
            tops[p] = max(szs)
    if not tops:
        L.append("(not run)")
        L.append("")
        return
    L.append("Flood bandwidth (GiB/s, maximum over the rounds) of transfers of the size shown, made of `chunk`-byte pieces, "
             "2 × chunk apart at the target and packed locally: one `gex_VIS_StridedPutNBI` / `StridedGetNBI` "
             "per transfer, against the same pieces moved with one `gex_RMA_PutNBI` / `GetNBI` each "
             "(\"chunked\"), and against one contiguous `PutNBI` / `GetNBI` of the same bytes.")
    L.append("")
    L.append("| path | transfer | chunk | StridedPutNBI | chunked PutNBI | StridedGetNBI | chunked GetNBI |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in (on, net):
        if p not in tops:
            continue
        top = tops[p]
        for chunk in (8, 64, 512, 4096):
            cells = []
            for k in ("StridedPutNBI", "chunked PutNBI", "StridedGetNBI", "chunked GetNBI"):
                v = at(res, "%s %s chunk %d" % (p, k, chunk), top)
                cells.append("—" if v is None else "%.2f" % (v / GIB))
            if all(c == "—" for c in cells):
                continue
            L.append("| %s | %s | %s | %s |" % (PATH_LABEL[p], fmt_size(top), fmt_size(chunk), " | ".join(cells)))
        cp, cg = at(res, "%s contiguous PutNBI" % p, top), at(res, "%s contiguous GetNBI" % p, top)
        if cp is not None or cg is not None:
            L.append("| %s | %s | contiguous | %s | | %s | |" % (
                PATH_LABEL[p], fmt_size(top), "—" if cp is None else "%.2f" % (cp / GIB), "—" if cg is None else "%.2f" % (cg / GIB)))
    L.append("")


def coll_ranks_table(L, res, skipped, busy):
    """The section "Collectives at 2 and 4 ranks over the network"."""
    L.append("### Collectives at %s ranks over the network" % " and ".join(str(n) for n in COLL_RANKS))
    L.append("")
    L.append("Broadcast (root 0) and ReduceToAll (U64 sum) over the network: libgex's network path (`gex-testcoll`, "
             "provider %s on loopback, every rank its own node) against Open MPI over TCP (`mpi-coll-bench`: "
             "`MPI_Bcast`, `MPI_Allreduce`), all ranks on this host; the broadcast root passes its source as its "
             "destination, as `MPI_Bcast`'s root sends from its one buffer. Microseconds per collective: the slowest rank's "
             "mean over the iterations, minimum over the rounds. The ratio is MPI ÷ libgex (above 1: libgex is "
             "faster); the target is libgex no slower than Open MPI over TCP (ratio ≥ 1)." % NET_PROVIDER)
    L.append("")
    cores = os.cpu_count() or 1
    over = [n for n in COLL_RANKS if n > cores]
    caution = []
    if over:
        caution.append("%s ranks on this host's %d cores are oversubscribed: ranks wait for a core (libgex's "
                   "polling loops, on a host with more ranks than cores, yield it at every empty poll; Open "
                   "MPI's spin), so those rows measure the scheduler as much as the libraries." % (" and ".join(str(n) for n in over), cores))
    if busy:
        caution.append("The load average was above the number of cores while this ran.")
    if caution:
        L.append("**Caution:** " + " ".join(caution))
        L.append("")
    skip = dict(skipped)

    def cell(p, n, v):
        if v is not None:
            return fmt_us(v)
        why = skip.get(ranks_path(p, n)) or skip.get(p)
        return ("skipped: " + why).replace("|", "\\|") if why else "—"

    L.append("| operation | size | ranks | libgex (us) | Open MPI TCP (us) | ratio MPI ÷ libgex | no slower than Open MPI TCP |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for key, label in COLL_RANKS_OPS:
        for sz in COLL_RANKS_SIZES:
            for n in COLL_RANKS:
                g = at(res, "%s %s" % (ranks_path(NET, n), key), sz)
                m = at(res, "%s %s" % (ranks_path("MPI TCP", n), key), sz)
                met = "—" if g is None or m is None else ("**met**" if m >= g else "**not met**")
                L.append("| %s | %s | %d | %s | %s | %s | %s |" % (label, fmt_size(sz), n, cell(NET, n, g),
                                                                  cell("MPI TCP", n, m), ratio(g, m), met))
    L.append("")


def floor_rows(res, skipped, notes):
    """The rows of the network floor table: (layer, what, round trip in us or
    None, why not measured, the same provider's fi_pingpong round trip)."""
    why_not, failed, skip = notes.get("floor", {}), notes.get("failed", {}), dict(skipped)

    def why(*keys):
        return next((w for w in keys if w), "not measured")

    rows = []
    for mode in KERNEL_MODES:
        what = "%s sockets%s, %s" % (mode[-3:].upper(), ", TCP_NODELAY" if mode.endswith("tcp") else "",
                                     "polling" if "-spin" in mode else "blocking `recv`")
        key = mode[-3:] + ("-spin" if "-spin" in mode else "")
        rows.append(("kernel", "%s (`sock-pingpong %s`)" % (what, mode), at(res, "%s %s round trip" % (KERNEL, key), 8),
                     why(why_not.get(KERNEL), failed.get("%s sock-pingpong %s" % (KERNEL, mode))), None))
    fipp = {p: at(res, "%s %s round trip" % (FIPP, p), 8) for p in FLOOR_PROVIDERS}
    for p in FLOOR_PROVIDERS:
        rows.append(("provider", "`fi_pingpong -p '%s' -e rdm -S 8`" % p, fipp[p],
                     why(why_not.get(FIPP + " " + p), failed.get(FIPP + " " + p)), None))
    for p in FLOOR_PROVIDERS:
        path = net_path(p)
        base = (why_not.get(path) or skip.get(path)) if p == NET_PROVIDER else why_not.get(path)
        rows.append(("libgex", "`gex_RMA_PutBlocking`, %s" % p, at(res, path + " Put (blocking)", 8),
                     why(base, failed.get("%s gex-testsmall" % path)), fipp[p]))
        rows.append(("libgex", "AM Short Request + Reply, %s" % p, at(res, path + " AM Short ping-pong Req/Rep us/op", 0),
                     why(base, failed.get("%s gex-testam" % path)), fipp[p]))
    ktcp = at(res, "%s tcp-spin round trip" % KERNEL, 8)
    rows.append(("libgex", "`gex_RMA_PutBlocking`, sock transport (TCP)", at(res, SOCK + " Put (blocking)", 8),
                 why(failed.get("%s gex-testsmall" % SOCK)), ktcp))
    rows.append(("libgex", "AM Short Request + Reply, sock transport (TCP)",
                 at(res, SOCK + " AM Short ping-pong Req/Rep us/op", 0), why(failed.get("%s gex-testam" % SOCK)),
                 ktcp))
    pp = at(res, "MPI TCP PingPong half round trip", 8)
    rows.append(("Open MPI TCP", "`MPI_Put` + `MPI_Win_flush`", at(res, "MPI TCP MPI_Put+flush", 8),
                 why(skip.get("MPI TCP")), None))
    rows.append(("Open MPI TCP", "`MPI_Send` / `MPI_Recv` PingPong (2 × IMB's half round trip)", 2 * pp if pp else None,
                 why(skip.get("MPI TCP")), None))
    rows.append(("reference GASNet-EX", "udp conduit (`amudprun`, `GASNET_SUPERNODE_MAXSIZE=1`), `gex-testsmall` "
                 "built against it, blocking Put", at(res, REF_NET + " Put (blocking)", 8),
                 why(notes.get("same-source"), report_ref.why_not_measured(notes, REF_NET, "gex-testsmall")),
                 None))
    return rows, fipp


def floor_table(L, res, skipped, notes, it, busy):
    """The section "Network floor: kernel, provider, libgex, MPI"."""
    L.append("### Network floor: kernel, provider, libgex, MPI (8 bytes, loopback)")
    L.append("")
    rows, fipp = floor_rows(res, skipped, notes)
    kudp = at(res, KERNEL + " udp-spin round trip", 8)
    fast = min((p for p in FLOOR_NETWORK if fipp[p] is not None), key=lambda p: fipp[p], default=None)
    L.append("8-byte round trips between two processes of this host over the loopback interface (the `shm` "
             "provider: shared memory), all in the same "
             "run and interleaved with the configurations above; microseconds, minimum over the rounds. A "
             "blocking Put (libgex, and MPI's `MPI_Put` + `MPI_Win_flush`) waits for the target's "
             "acknowledgement, so it is one round trip too. The kernel floor is `sock-pingpong`: two processes, "
             "`send`/`recv` on 127.0.0.1, polling with `MSG_DONTWAIT` as `fi_pingpong` and libgex poll (libgex "
             "gives up the core after a run of empty polls), or sleeping in a blocking `recv`, which adds the "
             "wake-up of the sleeping process (on a virtual machine with idle CPUs, several times the polling "
             "round trip). The provider floor is libfabric's `fi_pingpong` on an RDM "
             "endpoint (its usec/xfer is half a round trip, so it is doubled here), with FI_TCP_IFACE, FI_NET_IFACE "
             "and FI_UDP_IFACE set to `lo`. The ratios divide the row's round trip by the kernel's polling UDP round trip, "
             "by the fastest network provider's `fi_pingpong` round trip (%s; `shm` is node-local and not a "
             "candidate) and, for libgex, by `fi_pingpong` over the same provider (over the sock transport: by "
             "the kernel's polling TCP round trip, the floor of the sockets it uses)." % (
                 "`%s`" % fast if fast else "none measured"))
    L.append("")
    if busy:
        L.append("**Caution:** the load average was above the number of cores while this ran; both ends of every "
                 "round trip need a core at once, so these figures can be several times those of a quiet machine.")
        L.append("")
    L.append("| layer | round trip of | us | × kernel UDP (polling) | × fastest fi_pingpong | × same provider's fi_pingpong |")
    L.append("| --- | --- | ---: | ---: | ---: | ---: |")
    for layer, what, v, why, same in rows:
        if v is None:
            why = why if why.startswith("not ") else "skipped: " + why
            L.append("| %s | %s | %s | | | |" % (layer, what, why.replace("|", "\\|")))
            continue
        L.append("| %s | %s | %s | %s | %s | %s |" % (layer, what, fmt_us(v), ratio(kudp, v),
                                                    ratio(fipp[fast] if fast else None, v),
                                                    ratio(same, v) if layer == "libgex" else ""))
    L.append("")
    shown = {w for _, _, v, w, _ in rows if v is None}
    late = [(k, w) for k, w in sorted(notes.get("failed", {}).items()) if w not in shown]
    if late:
        L.append("Runs that failed (not run again; the rounds before, if any, count):")
        L.append("")
        L.extend("- %s: %s" % (k, w) for k, w in late)
        L.append("")
    L.append("Commands (per round; `sock-pingpong` forks its server, `fi_pingpong`'s server is started first on a "
             "free control port, `-B PORT`, and the client pointed at it):")
    L.append("")
    L.append("```")
    L.append("; ".join("sock-pingpong %s %s" % (m, it["sock-pingpong"]) for m in KERNEL_MODES))
    L.append("%s fi_pingpong -p PROVIDER -e rdm -S 8 -I %s [-B PORT | -P PORT 127.0.0.1]" % (
        " ".join("%s=%s" % kv for kv in sorted(FI_LOOPBACK_ENV.items())), it["fi_pingpong"]))
    L.append("GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=PROVIDER gexrun -n 2 gex-testsmall %s" % it["prov-testsmall"])
    L.append("GEX_SUPERNODE_MAXSIZE=1 GEX_OFI_PROVIDER=PROVIDER gexrun -n 2 gex-testam %s" % it["prov-testam"])
    L.append("GEX_SUPERNODE_MAXSIZE=1 GEX_NET_TRANSPORT=sock gexrun -n 2 gex-testsmall|gex-testlarge|gex-testam "
             "(the \"libgex network\" path's arguments)")
    L.append("```")
    L.append("")
    L.append("libgex over %s is the \"libgex network\" path above (its size sweeps give the 8-byte and Short "
             "figures); the other providers run only these two commands." % NET_PROVIDER)
    L.append("")


def write_markdown(path, res, skipped, notes, info, opcount, figs, runtime, rounds, it, fig_rel, load,
                   loaded):
    L = []
    L.append("## Measured by `bench/report`")
    L.append("")
    L.append("Generated by `bench/report` on %s in %.0f s (%d round%s of every configuration, "
             "interleaved; minimum latency and maximum bandwidth of every point over the rounds). "
             "Load average (1 min) before / after: %s / %s." % (
                 time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), runtime, rounds, "s" if rounds > 1 else "",
                 load[0], load[1]))
    L.append("")
    L.append("### Machine and versions")
    L.append("")
    L.append("| item | value |")
    L.append("| --- | --- |")
    for k, v in info:
        L.append("| %s | %s |" % (k, v))
    L.append("")
    L.append("### Paths")
    L.append("")
    L.append("| path | how |")
    L.append("| --- | --- |")
    L.append("| libgex on-node | `gexrun -n 2`: Put/Get are copies into the peer's mapped segment; AMs go through shared-memory queues |")
    how = {NET: "every peer is another node (supernodes of one process), so Put/Get and AMs go through "
                "the libfabric transport, provider %s over the loopback interface" % NET_PROVIDER,
           NETNS: "the two ranks on two \"hosts\", network namespaces joined by a veth pair "
                  "(`tests/netns/netns.sh`); the second rank is started through `ip netns exec`",
           "MPI on-node": "Open MPI's default component selection",
           "MPI TCP": "point-to-point and one-sided traffic forced through the TCP BTL (loopback)"}
    for p in (NET, NETNS, "MPI on-node", "MPI TCP"):
        if p in notes:
            L.append("| %s | `%s`: %s |" % (PATH_LABEL[p], notes[p], how[p]))
    for p, why in skipped:
        L.append("| %s | **skipped**: %s |" % (PATH_LABEL.get(p, p), why))
    L.append("")
    L.append("Command lines (per round):")
    L.append("")
    L.append("```")
    for b in ("gex-testsmall", "gex-testlarge", "gex-testam") + NEW_BENCHES:
        L.append("gexrun -n 2 %s %s" % (b, it[b]))
    for p in (NET, NETNS):
        if p in notes:
            for b in ("gex-testsmall", "gex-testlarge", "gex-testam") + (NEW_BENCHES if p == NET else ()):
                L.append("%s %s %s" % (notes[p], b, it["net-" + b[4:]]))
    if "MPI on-node" in notes:
        L.append("%s mpi-rma-bench %s" % (notes["MPI on-node"], it["mpi-onnode"]))
        L.append("%s mpi-coll-bench %s" % (notes["MPI on-node"], it["mpi-coll-onnode"]))
    if "MPI TCP" in notes:
        L.append("%s mpi-rma-bench %s" % (notes["MPI TCP"], it["mpi-tcp"]))
        L.append("%s mpi-coll-bench %s" % (notes["MPI TCP"], it["mpi-coll-tcp"]))
    for n in COLL_RANKS:
        for p, b, k in ((NET, "gex-testcoll", "net-coll-ranks"), ("MPI TCP", "mpi-coll-bench", "mpi-coll-ranks")):
            if ranks_path(p, n) in notes:
                L.append("%s %s %s" % (notes[ranks_path(p, n)], b, it[k]))
    L.extend(report_ref.command_lines(it, notes))
    L.append("```")
    L.append("")

    L.append("### 8-byte RMA latency (the form of Table 1)")
    L.append("")
    L.append("Mean time of one 8-byte blocking Put or Get: libgex `gex_RMA_PutBlocking` / "
             "`gex_RMA_GetBlocking` (`gex-testsmall`), MPI `MPI_Put` or `MPI_Get` followed by "
             "`MPI_Win_flush` inside a `MPI_Win_lock_all` epoch (`mpi-rma-bench`, IMB-RMA "
             "Unidir_put / Unidir_get non-aggregate). Microseconds; the ratio is MPI ÷ libgex "
             "(how many times longer MPI takes).")
    L.append("")
    L.append("| path | libgex Put (us) | MPI RMA Put (us) | ratio | libgex Get (us) | MPI RMA Get (us) | ratio |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    gp, gg = at(res, "libgex on-node Put (blocking)", 8), at(res, "libgex on-node Get (blocking)", 8)
    mp, mg = at(res, "MPI on-node MPI_Put+flush", 8), at(res, "MPI on-node MPI_Get+flush", 8)
    L.append("| on-node: libgex shared memory vs Open MPI on-node | %s | %s | %s | %s | %s | %s |" % (
        fmt_us(gp), fmt_us(mp), ratio(gp, mp), fmt_us(gg), fmt_us(mg), ratio(gg, mg)))
    tp, tg = at(res, "MPI TCP MPI_Put+flush", 8), at(res, "MPI TCP MPI_Get+flush", 8)
    words = []
    for p, where in ((NET, "loopback"), (NETNS, "two network namespaces")):
        np_, ng = at(res, "%s Put (blocking)" % p, 8), at(res, "%s Get (blocking)" % p, 8)
        if np_ is None and ng is None:
            if p == NET:
                L.append("| network: libgex network transport (not run) vs Open MPI over TCP (loopback) | — | %s | — | — | %s | — |" % (
                    fmt_us(tp), fmt_us(tg)))
            continue
        L.append("| network: libgex %s (%s) vs Open MPI over TCP (loopback) | %s | %s | %s | %s | %s | %s |" % (
            NET_PROVIDER, where, fmt_us(np_), fmt_us(tp), ratio(np_, tp), fmt_us(ng), fmt_us(tg), ratio(ng, tg)))
        words.append("- %s; %s." % (fraction_words(np_, tp, "Put, libgex network (%s) vs MPI TCP" % where),
                                     fraction_words(ng, tg, "Get")))
    L.append("")
    busy = max(float(x) for x in load) > (os.cpu_count() or 1)
    if words and busy:
        L.append("**Caution:** the load average (%s / %s) was above the number of cores (%d) while this ran. "
                 "The network latencies of both libraries then depend mostly on when the kernel schedules the "
                 "two processes, and the minimum over %d round%s can differ several times between runs; "
                 "rerun on a quiet machine before drawing conclusions from the network rows." % (
                     load[0], load[1], os.cpu_count() or 1, rounds, "s" if rounds > 1 else ""))
        L.append("")
    if words:
        L.append("The network rows as fractions, libgex latency ÷ MPI latency (the goal is libgex ≤ 0.8 × MPI's "
                 "latency over the same kind of network):")
        L.append("")
        L.extend(words)
        L.append("")
    pp, tpp = at(res, "MPI on-node PingPong half round trip", 8), at(res, "MPI TCP PingPong half round trip", 8)
    amrt = at(res, "libgex on-node AM Short ping-pong Req/Rep us/op", 0)
    namrt = at(res, NET + " AM Short ping-pong Req/Rep us/op", 0)
    L.append("For scale: MPI message passing PingPong, 8 bytes, half round trip: %s us on-node, %s us over TCP; "
             "libgex AM Short round trip (Request + Reply): %s us on-node, %s us over the network (loopback)." % (
                 fmt_us(pp), fmt_us(tpp), fmt_us(amrt), fmt_us(namrt)))
    L.append("")

    floor_table(L, res, skipped, notes, it, busy)

    L.append("### Bandwidth: where each series reaches 90% of its peak")
    L.append("")
    L.append("Flood bandwidth (many non-blocking operations, one wait) for sizes from 16 B to 4 MiB. "
             "Peak = the highest bandwidth of the series; the last column is the smallest size whose "
             "bandwidth is at least 90% of that peak. GiB/s = 2^30 bytes/s (the benchmarks print MiB/s "
             "for libgex and MB/s and MiB/s for MPI; converted here).")
    L.append("")
    L.append("| series | peak (GiB/s) | at size | first size ≥ 90% of peak |")
    L.append("| --- | ---: | ---: | ---: |")
    for name, label in BW_SERIES:
        n = ninety(res, name)
        if n:
            L.append("| %s | %.2f | %s | **%s** |" % (label, n[0] / GIB, fmt_size(n[1]), fmt_size(n[2])))
    L.append("")
    L.append("On one node a libgex Put or Get is a `memcpy`, and the benchmark reuses one source and "
             "one destination buffer (as the reference testlarge does), so the figures are cache-to-cache "
             "copy speeds that drop once the buffers leave the caches, not main-memory or network bandwidth. "
             "The network series (libgex over %s, MPI over TCP) move every byte through the kernel's TCP "
             "stack, on the loopback interface or a veth pair, on the same two cores as both processes." % NET_PROVIDER)
    L.append("")

    L.append("### Figures")
    L.append("")
    if figs:
        for f, alt in figs:
            L.append("![%s](%s)" % (alt, os.path.join(fig_rel, f)))
            L.append("")
    else:
        L.append("(not drawn: matplotlib was not available when the report ran)")
        L.append("")

    L.append("### Active Messages (`gex-testam`)")
    L.append("")
    L.append("Microseconds per operation at the smallest size (0 bytes for Short, 1 byte otherwise): "
             "round trip for ping-pong, elapsed ÷ messages for floods. The last column is the peak "
             "one-way flood bandwidth.")
    L.append("")
    L.append("| path | category | size | ping-pong Req/Rep | ping-pong Req/Req | flood Req | flood Req/Rep | peak flood Req bandwidth |")
    L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in ("libgex on-node", NET, NETNS):
        rows = am_table(res, p)
        if all(c == "—" for r in rows for c in r[1:]):
            continue
        for row in rows:
            L.append("| " + " | ".join([PATH_LABEL[p]] + row) + " |")
    L.append("")
    flood_table(L, res)
    report_large.table(L, res, SOCK, NET, fmt_size)

    coll_tables(L, res, it, load, rounds)
    coll_ranks_table(L, res, skipped, busy)
    report_ref.tables(L, res, notes, at, fmt_us, ratio)
    report_load.table(L, loaded)

    L.append("### Instructions per operation (`bench/opcount.sh`)")
    L.append("")
    if opcount:
        L.append("```")
        L.extend(opcount.rstrip("\n").splitlines())
        L.append("```")
    else:
        L.append("(not run: %s)" % notes.get("opcount", "--no-opcount"))
    L.append("")

    section = "\n".join([BEGIN_MARK, ""] + L + [END_MARK]) + "\n"
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if BEGIN_MARK in old and END_MARK in old:
        a = old.index(BEGIN_MARK)
        b = old.index(END_MARK) + len(END_MARK)
        new = old[:a] + section.rstrip("\n") + old[b:]
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + section
    with open(path, "w") as f:
        f.write(new)
