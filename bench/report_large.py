"""bench/report_large.py -- bench/report's large transfers over the network:
libgex's two network transports side by side.

The flood bandwidth of gex_RMA_PutNBI and gex_RMA_GetNBI (gex-testlarge A
and B, every operation to one address) from 64 KiB to 4 MiB, on loopback:
over the sock transport (GEX_NET_TRANSPORT=sock) and over libfabric's
`net` provider, both from the report's own interleaved rounds.  Loopback
bandwidth on a 2-core machine moves a lot from round to round, so the table
gives each transport's median and maximum over the rounds, and the ratios
of both; the target (sock's bandwidth at least net's) is read on the
medians, which one lucky round does not decide.
"""

import statistics

GIB = float(1 << 30)
SIZES = [64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20]
OPS = (("PutNBI", "`gex_RMA_PutNBI`"), ("GetNBI", "`gex_RMA_GetNBI`"))


def table(L, res, sock, net, fmt_size):
    """Append the section to L; 'sock' and 'net' are the series prefixes of
    the two paths (e.g. "libgex sock", "libgex network"); nothing when
    either was not measured."""
    rows = []
    for op, label in OPS:
        for size in SIZES:
            a, b = res.rounds("%s %s" % (sock, op), size), res.rounds("%s %s" % (net, op), size)
            if a and b:
                rows.append((label, size, a, b))
    if not rows:
        return
    L.append("### Large transfers over the network: sock against net (loopback)")
    L.append("")
    L.append("Flood bandwidth (GiB/s) of `gex-testlarge` A and B (many non-blocking operations to one "
             "address, one wait) from the report's interleaved rounds, over libgex's own TCP "
             "transport (`GEX_NET_TRANSPORT=sock`) and over libfabric's `net` provider, both with "
             "`GEX_SUPERNODE_MAXSIZE=1` on loopback: the median and the maximum over the rounds, "
             "and sock ÷ net of each. Loopback bandwidth moves a lot between rounds on 2 cores, so "
             "the target (sock at least net's bandwidth) is read on the medians (bench/report_large.py).")
    L.append("")
    L.append("| operation | size | sock median | net median | sock ÷ net (median) | sock max | net max "
             "| sock ÷ net (max) | rounds | at least net's |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    met = 0
    for label, size, a, b in rows:
        ma, mb = statistics.median(a), statistics.median(b)
        ok = ma >= mb
        met += ok
        L.append("| %s | %s | %.2f | %.2f | %.2f× | %.2f | %.2f | %.2f× | %d | %s |" % (
            label, fmt_size(size), ma / GIB, mb / GIB, ma / mb, max(a) / GIB, max(b) / GIB,
            max(a) / max(b), min(len(a), len(b)), "yes" if ok else "**no**"))
    L.append("")
    L.append("Sizes where sock's median is at least net's: %d of %d." % (met, len(rows)))
    L.append("")
