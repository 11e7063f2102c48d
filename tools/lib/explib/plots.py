"""PNG plots of merged results (matplotlib, Debian python3-matplotlib; without
it: none, and one message). Every plot is of means over repeats.

    write_plots(outdir, groups, log) -> [(kind, file, caption)]

Kinds: energy (per cluster, stacked, one bar per pack mode and governor (the
governor named when some cell ran under another than performance), 95% CI on
the total; the seeds' values beside for their cyclictest), oracle (energy /
the oracle bound per workload, pack mode and governor), timeline (per-CPU busy fraction over time,
simulator traces), latency (CDF of wake-up latency, simulator traces),
cyclictest (min/avg/max), sysbench (time / off's, seeds' pack/default
marked).
"""
import os
import sys

import governors  # noqa: E402  (tools/lib)

from . import report as rp
from . import seeds as sd
from . import workloads as wl
from .cells import safe_name
from .stats import mean_ci


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(plt, fig, outdir, name):
    fig.tight_layout()
    path = os.path.join(outdir, name)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return name


def energy_plot(plt, outdir, engine, board, workload, bypack, show=False):
    """One stacked bar (clusters) per Mode (pack mode, governor) of @bypack."""
    packs = rp.mode_order(list(bypack))
    clusters = sorted({c for p in packs for m in bypack[p] for c in rp.clusters_of(m)})
    if not clusters:
        return None
    norm = None
    labels, stacks, errs, hatch = [], [], [], []
    if workload == "cyclictest-seed":
        norm = mean_ci(rp.values(bypack.get(rp.Mode("off", governors.DEFAULT), []), "energy_c0"))[0]
        if norm:
            for k, (a15, a7) in sd.SEED_ENERGY_VALUES.items():
                labels.append("seed %s" % k)
                stacks.append([a15, a7])
                errs.append(0)
                hatch.append(True)
    for p in packs:
        ms = bypack[p]
        vals = [mean_ci(rp.values(ms, "energy_c%d" % c))[0] or 0 for c in clusters]
        h = mean_ci(rp.values(ms, "energy"))[1] or 0
        if norm:
            vals, h = [100.0 * v / norm for v in vals], 100.0 * h / norm
        labels.append(p.label(show).replace("/", "\n"))
        stacks.append(vals)
        errs.append(h)
        hatch.append(False)
    fig, ax = plt.subplots(figsize=(max(6.5, 0.75 * len(labels) + 1.5), 3.6))
    bottoms = [0.0] * len(labels)
    colors = ["tab:orange", "tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:gray"]
    for j, c in enumerate(clusters):
        vals = [s[j] if j < len(s) else 0 for s in stacks]
        bars = ax.bar(range(len(labels)), vals, bottom=bottoms, color=colors[j % len(colors)],
                      label="cluster %d" % c)
        for b, hh in zip(bars, hatch):
            if hh:
                b.set_hatch("//")
                b.set_alpha(0.5)
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    ax.errorbar(range(len(labels)), bottoms, yerr=errs, fmt="none", ecolor="black", capsize=3)
    for x, t in enumerate(bottoms):
        ax.text(x, t, "%.3g" % t, ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=8 if len(labels) < 9 else 6)
    ax.set_ylabel("energy, off's A15 = 100" if norm else "energy (model units x ms)")
    n = max(len(v) for v in bypack.values())
    ax.set_title("%s on %s (%s, n=%d): energy per cluster%s%s" % (
        wl.short_name(workload), board, engine, n, " by pack mode and governor" if show else "",
        "; hatched: the seeds' TC2" if norm else ""), fontsize=9)
    ax.legend(fontsize=7)
    return _save(plt, fig, outdir, "energy-%s-%s-%s.png" % (safe_name(wl.short_name(workload)), board, engine))


def oracle_plot(plt, outdir, engine, board, groups, show=False):
    items = [(w, bypack) for (e, b, w), bypack in groups.items() if e == engine and b == board]
    data = []
    for w, bypack in items:
        eo = rp.oracle_bound(board, bypack)
        if eo:
            data.append((wl.short_name(w), {p: (rp.mean_of(ms, "energy") or 0) / eo for p, ms in bypack.items()
                                            if rp.mean_of(ms, "energy") is not None}))
    if not data:
        return None
    packs = rp.mode_order(list({p for _, d in data for p in d}))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(data) + 2), 3.8))
    width = 0.8 / len(packs)
    for j, p in enumerate(packs):
        ax.bar([i + j * width for i in range(len(data))], [d.get(p, 0) for _, d in data], width, label=p.label(show))
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.set_xticks([i + width * (len(packs) - 1) / 2 for i in range(len(data))])
    ax.set_xticklabels([w for w, _ in data], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("energy / oracle lower bound")
    ax.set_title("%s (%s): energy against the oracle, per pack mode%s" % (
        board, engine, " and governor" if show else ""), fontsize=9)
    ax.legend(fontsize=7, ncol=min(len(packs), 4))
    return _save(plt, fig, outdir, "oracle-%s-%s.png" % (board, engine))


def timeline_plot(plt, outdir, engine, board, workload, bypack, show=False):
    packs = [p for p in rp.mode_order(list(bypack)) if bypack[p][0].get("timeline")]
    if not packs:
        return None
    fig, axes = plt.subplots(len(packs), 1, figsize=(7, 1.0 + 0.9 * len(packs)), squeeze=False)
    for ax, p in zip(axes[:, 0], packs):
        tl = bypack[p][0]["timeline"]
        cpus = sorted(tl["cpus"], key=int)
        grid = [tl["cpus"][c] for c in cpus]
        width = len(grid[0]) * tl["bin_s"]
        ax.imshow(grid, aspect="auto", cmap="Reds", vmin=0, vmax=1, interpolation="nearest",
                  extent=(0, width, len(cpus) - 0.5, -0.5))
        ax.set_yticks(range(len(cpus)))
        ax.set_yticklabels(["cpu%s" % c for c in cpus], fontsize=6)
        ax.set_ylabel(p.label(show).replace("/", "\n"), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
    axes[-1, 0].set_xlabel("s from the workload's start (first repeat)", fontsize=8)
    axes[0, 0].set_title("%s on %s (%s): per-CPU busy fraction over time" % (wl.short_name(workload), board, engine),
                         fontsize=9)
    return _save(plt, fig, outdir, "timeline-%s-%s-%s.png" % (safe_name(wl.short_name(workload)), board, engine))


def latency_plot(plt, outdir, engine, board, workload, bypack, show=False):
    packs = [p for p in rp.mode_order(list(bypack)) if any(m.get("latency_ns") for m in bypack[p])]
    if not packs:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for p in packs:
        lat = sorted(x / 1000.0 for m in bypack[p] for x in m.get("latency_ns", []))
        n = len(lat)
        ax.step([max(x, 0.1) for x in lat], [(i + 1) / n for i in range(n)], where="post",
                label="%s (%d)" % (p.label(show), n))
    ax.set_xscale("log")
    ax.set_xlabel("wake-up latency: sched_wakeup -> running (us, log)")
    ax.set_ylabel("fraction of wake-ups")
    ax.set_ylim(0, 1.01)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("%s on %s (%s): wake-up latency CDF, all repeats" % (wl.short_name(workload), board, engine),
                 fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return _save(plt, fig, outdir, "latency-%s-%s-%s.png" % (safe_name(wl.short_name(workload)), board, engine))


def cyclictest_plot(plt, outdir, engine, board, workload, bypack, show=False):
    packs = [p for p in rp.mode_order(list(bypack)) if rp.values(bypack[p], "cyc_lat_avg_us")]
    if not packs:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.27
    for j, (key, name, color) in enumerate((("cyc_lat_min_us", "min", "tab:green"),
                                            ("cyc_lat_avg_us", "avg", "tab:blue"),
                                            ("cyc_lat_max_us", "max", "tab:red"))):
        vals = [mean_ci(rp.values(bypack[p], key))[0] for p in packs]
        xs = [i + (j - 1) * width for i in range(len(packs))]
        ax.bar(xs, vals, width, label=name, color=color)
        for xv, v in zip(xs, vals):
            ax.text(xv, v, "%g" % round(v, 1), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(packs)))
    ax.set_xticklabels([p.label(show).replace("/", "\n") for p in packs], fontsize=8)
    ax.set_ylabel("wake-up latency (us)")
    ax.set_title("%s on %s (%s): cyclictest latency" % (workload, board, engine), fontsize=9)
    ax.legend(fontsize=8)
    return _save(plt, fig, outdir, "cyclictest-%s-%s-%s.png" % (safe_name(workload), board, engine))


def sysbench_plot(plt, outdir, engine, board, groups, show=False):
    """Time / off's, pack modes under the default governor (or the first the runs have)."""
    base = groups.get_ms(engine, board, "sysbench-seed")
    ctl = groups.get_ms(engine, board, "sysbench-control")
    off = base.get("off", [])
    keys = sorted({k for m in off for k in m.get("sysbench", {})})
    if not keys:
        return None
    series = [(p, base[p]) for p in rp.pack_order(list(base)) if p != "off"] + \
        ([("control (taskset 0x1)", ctl["off"])] if ctl.get("off") else [])
    gov = groups.main_governor(engine, board, "sysbench-seed")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.8 / max(1, len(series))

    def t(ms, k):
        return mean_ci([m["sysbench"][k] for m in ms if k in m.get("sysbench", {})])[0]

    for j, (name, ms) in enumerate(series):
        vals = [(t(ms, k) or 0) / t(off, k) for k in keys]
        ax.bar([i + j * width for i in range(len(keys))], vals, width, label=name)
    seeds = [sd.SEED_SYSBENCH.get((k[0], wl.SEED_REQUESTS[wl.sysbench_requests(True).index(k[1])]
                                   if k[1] in wl.sysbench_requests(True) else k[1])) for k in keys]
    xs = [i + width * (len(series) - 1) / 2 for i in range(len(keys))]
    ax.plot([x for x, s in zip(xs, seeds) if s], [s[1] / s[0] for s in seeds if s], "k*", ms=9,
            label="seeds: pack / default")
    ax.axhline(1.0, color="black", lw=0.8, ls="--")
    ax.set_xticks(xs)
    ax.set_xticklabels(["N=%d R=%d" % k for k in keys], fontsize=7)
    ax.set_ylabel("time / pack=off's")
    ax.set_ylim(0, None)
    ax.set_title("sysbench on %s (%s): time against off%s" % (board, engine, ", governor %s" % gov if show else ""),
                 fontsize=9)
    ax.legend(fontsize=7)
    return _save(plt, fig, outdir, "sysbench-%s-%s.png" % (board, engine))


def write_plots(outdir, groups, log=print):
    """PNGs into @outdir; [(kind, file name, caption)] (empty without matplotlib)."""
    if not have_matplotlib():
        log("experiment: matplotlib is not installed for %s (Debian: apt-get install python3-matplotlib): "
            "skipping the PNG plots" % sys.executable)
        return []
    plt = _plt()
    out = []

    def add(kind, name, caption):
        if name:
            out.append((kind, name, caption))

    show = getattr(groups, "show_governor", False)
    by = " by pack mode and governor" if show else ""
    for (engine, board, workload), bypack in groups.items():
        what = "%s on %s (%s)" % (wl.short_name(workload), board, engine)
        add("energy", energy_plot(plt, outdir, engine, board, workload, bypack, show),
            "Energy per cluster%s: %s" % (by, what))
        add("timeline", timeline_plot(plt, outdir, engine, board, workload, bypack, show),
            "Per-CPU busy timeline: " + what)
        add("latency", latency_plot(plt, outdir, engine, board, workload, bypack, show),
            "Wake-up latency CDF: " + what)
        add("cyclictest", cyclictest_plot(plt, outdir, engine, board, workload, bypack, show),
            "cyclictest latency: " + what)
    for engine, board in dict.fromkeys((e, b) for e, b, _ in groups):
        add("oracle", oracle_plot(plt, outdir, engine, board, groups, show),
            "Energy / oracle%s: %s (%s)" % (by, board, engine))
        add("sysbench", sysbench_plot(plt, outdir, engine, board, groups, show),
            "sysbench / off: %s (%s)" % (board, engine))
    return out
