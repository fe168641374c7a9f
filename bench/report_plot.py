"""bench/report_plot.py -- bench/report's figures: bandwidth, latency and
collectives against size (matplotlib, in the python that has it).
"""

import os
import shutil
import sys

from report_common import GIB, NET, NETNS, NET_PROVIDER, first_line
from report_parse import Results
from report_tables import fmt_size


STYLE = {
    "libgex": dict(color="tab:blue"),
    "MPI on-node": dict(color="tab:orange"),
    "MPI TCP": dict(color="tab:green"),
    NET: dict(color="tab:red"),
    NETNS: dict(color="tab:purple"),
}
NET_SHORT = {NET: "network, loopback", NETNS: "network, 2 namespaces"}


def plot(data, figdir):
    """Draws the figures from the results dict (see results.json); returns [(file, alt)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    res = Results()
    res.series = data["series"]
    os.makedirs(figdir, exist_ok=True)
    out = []

    def size_axis(ax, sizes):
        ax.set_xscale("log", base=2)
        ticks = [s for s in sizes if s & (s - 1) == 0 and (s.bit_length() - 1) % 2 == 0]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([fmt_size(t).replace(" ", "") for t in ticks], rotation=45, fontsize=8)
        ax.set_xlabel("transfer size")
        ax.grid(True, which="major", alpha=0.3)

    def line(ax, name, label, style, kind, scale, marker, ls="-", min_size=0):
        b = {s: v for s, v in res.best(name).items() if s >= min_size}
        if not b:
            return []
        xs = sorted(b)
        ax.plot(xs, [b[x] / scale for x in xs], ls, marker=marker, markersize=3, label=label, **style)
        return xs

    # Bandwidth: Put panel and Get panel.
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.5), sharey=True)
    for ax, op in zip(axes, ("Put", "Get")):
        xs = []
        xs += line(ax, "libgex on-node %sNBI" % op, "libgex %sNBI (on-node)" % op, STYLE["libgex"], "bw", GIB, "o", min_size=16)
        xs += line(ax, "libgex on-node %sNB" % op, "libgex %sNB + WaitAll (on-node)" % op, STYLE["libgex"], "bw", GIB, ".", ":", min_size=16)
        for p in (NET, NETNS):
            xs += line(ax, "%s %sNBI" % (p, op), "libgex %sNBI (%s)" % (op, NET_SHORT[p]), STYLE[p], "bw", GIB, "o", min_size=16)
            xs += line(ax, "%s %sNB" % (p, op), "libgex %sNB + WaitAll (%s)" % (op, NET_SHORT[p]), STYLE[p], "bw", GIB, ".", ":",
                       min_size=16)
        for p in ("MPI on-node", "MPI TCP"):
            xs += line(ax, "%s MPI_%s aggregate" % (p, op), "MPI_%s aggregate (%s)" % (op, p.replace("MPI ", "Open MPI ")),
                       STYLE[p], "bw", GIB, "s", min_size=16)
            xs += line(ax, "%s Isend/Irecv Uniband" % p, "MPI Isend/Irecv Uniband (%s)" % p.replace("MPI ", "Open MPI "),
                       STYLE[p], "bw", GIB, "^", "--", min_size=16)
        if xs:
            size_axis(ax, sorted(set(xs)))
        ax.set_yscale("log")
        ax.set_title("%s: flood bandwidth" % op)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    axes[0].set_ylabel("bandwidth (GiB/s, log scale)")
    fig.suptitle("libgex vs MPI, 2 processes on one host; network paths over %s / TCP (max over rounds)" % NET_PROVIDER,
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(figdir, "bandwidth.png"), dpi=110)
    plt.close(fig)
    out.append(("bandwidth.png", "Flood bandwidth against transfer size, Put and Get, libgex and MPI"))

    # Latency: Put and Get (and PingPong) in one log-log plot.
    fig, ax = plt.subplots(figsize=(8, 7))
    xs = []
    xs += line(ax, "libgex on-node Put (blocking)", "libgex PutBlocking (on-node)", STYLE["libgex"], "lat", 1, "o")
    xs += line(ax, "libgex on-node Get (blocking)", "libgex GetBlocking (on-node)", STYLE["libgex"], "lat", 1, "x", ":")
    for p in (NET, NETNS):
        xs += line(ax, "%s Put (blocking)" % p, "libgex PutBlocking (%s)" % NET_SHORT[p], STYLE[p], "lat", 1, "o")
        xs += line(ax, "%s Get (blocking)" % p, "libgex GetBlocking (%s)" % NET_SHORT[p], STYLE[p], "lat", 1, "x", ":")
    for p in ("MPI on-node", "MPI TCP"):
        q = p.replace("MPI ", "Open MPI ")
        xs += line(ax, "%s MPI_Put+flush" % p, "MPI_Put + flush (%s)" % q, STYLE[p], "lat", 1, "s")
        xs += line(ax, "%s MPI_Get+flush" % p, "MPI_Get + flush (%s)" % q, STYLE[p], "lat", 1, "x", ":")
        xs += line(ax, "%s PingPong half round trip" % p, "MPI PingPong, half round trip (%s)" % q, STYLE[p], "lat", 1, "^", "--")
    if xs:
        size_axis(ax, sorted(set(xs)))
    ax.set_yscale("log")
    ax.set_ylabel("latency (us, log scale)")
    ax.set_title("Blocking RMA latency, 2 processes on one host (min over rounds)", fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(figdir, "latency.png"), dpi=110)
    plt.close(fig)
    out.append(("latency.png", "Blocking Put/Get latency against transfer size, libgex and MPI"))

    # Collectives: Broadcast and ReduceToAll latency against size.
    if any(n.endswith(" Broadcast") for n in res.series):
        fig, axes = plt.subplots(1, 2, figsize=(12, 6.5), sharey=True)
        for ax, (key, title) in zip(axes, (("Broadcast", "Broadcast (root 0)"),
                                           ("ReduceToAll U64", "ReduceToAll, U64 sum"))):
            xs = []
            xs += line(ax, "libgex on-node %s" % key, "libgex (on-node)", STYLE["libgex"], "lat", 1, "o")
            xs += line(ax, "%s %s" % (NET, key), "libgex (%s)" % NET_SHORT[NET], STYLE[NET], "lat", 1, "o")
            mname = "MPI_Bcast" if key == "Broadcast" else "MPI_Allreduce"
            for p in ("MPI on-node", "MPI TCP"):
                xs += line(ax, "%s %s" % (p, key), "%s (%s)" % (mname, p.replace("MPI ", "Open MPI ")), STYLE[p],
                           "lat", 1, "s", "--")
            if xs:
                size_axis(ax, sorted(set(xs)))
            ax.set_yscale("log")
            ax.set_title(title)
            ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
        axes[0].set_ylabel("latency (us, log scale; slowest rank's mean)")
        fig.suptitle("Collective latency, 2 processes on one host (min over rounds)", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(figdir, "collectives.png"), dpi=110)
        plt.close(fig)
        out.append(("collectives.png", "Broadcast and ReduceToAll latency against size, libgex and MPI"))
    return out


def find_plotter():
    """A Python interpreter that has matplotlib: this one, or the system's."""
    try:
        import matplotlib  # noqa: F401
        return sys.executable, matplotlib.__version__
    except ImportError:
        pass
    for py in ("/usr/bin/python3", shutil.which("python3") or ""):
        if py and os.path.realpath(py) != os.path.realpath(sys.executable) and os.access(py, os.X_OK):
            v = first_line([py, "-c", "import matplotlib; print(matplotlib.__version__)"])
            if v:
                return py, v
    return None, None
