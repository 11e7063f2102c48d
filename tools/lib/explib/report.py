"""From cell results (cells.py) to tables: results.csv rows, per-cell
measures (energy, residency, throughput, latency), means with 95% CIs over
repeats, summary.md, and pack=energy's verdicts.

    rows_of(res)                 -> results.csv rows of one cell
    measure(res)                 -> the figures of one cell
    Groups(results)              -> {(engine, board, workload): {Mode(pack, governor): [measure per repeat]}}
    Groups(results).get_ms(engine, board, workload[, governor]) -> {pack: [measure per repeat]}
    summary_markdown(results, ...)
    energy_verdicts(groups, engine, board, workloads, model) -> (table, verdicts)
"""
import collections
import csv
import os
import re

import governors  # noqa: E402  (tools/lib)

from . import parse
from . import stats
from . import workloads as wl
from .stats import fmt_ci, fmt_num, mean_ci

ENERGY_SLACK = 1.02     # pack=energy: energy <= best other mode + 2%, on every workload
SYSBENCH_SLACK = 1.01   # sysbench time <= pack=off's + 1%
LATENCY_SLACK = 1.10    # cyclictest average latency <= pack=off's + 10%


def bench_tool():
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("bench_tool", os.path.join(wl.ROOT, "tools", "bench"))
    spec = importlib.util.spec_from_loader("bench_tool", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


bench = bench_tool()


def pack_order(packs):
    """@packs in the policy table's order (unknown ones last, sorted)."""
    try:
        import packmodes
        table = list(packmodes.names(wl.ROOT))
    except Exception:  # noqa: BLE001 - merging elsewhere may lack the build: keep the order seen
        table = []
    return [p for p in table if p in packs] + sorted(p for p in packs if p not in table)


class Mode(collections.namedtuple("Mode", "pack governor")):
    """A row of the tables: a pack mode under a cpufreq governor."""

    def label(self, show_governor):
        return "%s/%s" % self if show_governor else self.pack

    def cols(self, show_governor):
        return list(self) if show_governor else [self.pack]


def mode_order(modes):
    """@modes (Mode) by pack mode in the policy table's order, then governor in the governors' order."""
    packs = pack_order(list({m.pack for m in modes}))
    govs = governors.order({m.governor for m in modes})
    return sorted(modes, key=lambda m: (packs.index(m.pack), govs.index(m.governor)))


def shows_governor(modes):
    """Whether tables and plots name the governor: some cell ran under another than the default."""
    return any(m.governor != governors.DEFAULT for m in modes)


def mode_header(show_governor):
    return ["pack", "governor"] if show_governor else ["pack"]


# ------------------------------------------------------------------ one cell
def rows_of(res):
    """results.csv rows of a cell: its console's rows with the cell's
    coordinates, rt-app rows with throughput and mean slack (kept in @res)."""
    if "_rows" not in res:
        res["_rows"] = _rows_of(res)
    return res["_rows"]


def _rows_of(res):
    c = res["cell"]
    spec = wl.RtappSpec.from_script(c.get("script", "")) if c["workload"].startswith("rtapp:") else None
    out = []
    for d in parse.parse_console(res.get("output", "")):
        row = {"engine": c["engine"], "board": c["board"], "pack": c["pack"], "governor": governors.of(c),
               "workload": c["workload"], "repeat": c["repeat"], "seed": "" if c.get("seed") is None else c["seed"]}
        row.update({k: v for k, v in d.items() if k not in ("board", "pack", "governor", "engine")})
        row["bench"] = d.get("bench", "")
        if row["bench"] == "rtapp":
            row.update(parse.rtapp_derived(parse.rtapp_threads(res.get("output", "")), spec))
        row["cell"] = os.path.basename(res.get("path", ""))
        out.append(row)
    return out


def source_rows(rows):
    """The rows a cell's energy and residency come from, and what they are:
    its energy window, else its rt-app run, else the sum of its RESULTs."""
    win = [r for r in rows if r["bench"] == "energy-window"]
    if win:
        return win[-1:], "energy window"
    rt = [r for r in rows if r["bench"] == "rtapp"]
    if rt:
        return rt[-1:], "rt-app run"
    res = [r for r in rows if r["bench"] not in ("energy-window", "light")]
    return res, "sum of %d RESULT%s" % (len(res), "s" if len(res) != 1 else "")


TOTAL_RE = re.compile(r"energy(_c\d+)?|cpu\d+_(busy|idle)_us|cluster\d+_off_us")
FREQ_RE = re.compile(r"cluster(\d+)_freq_khz_avg")


def measure(res):
    """The figures of one cell (a dict; absent keys: not measured; kept in @res)."""
    if "_measure" not in res:
        res["_measure"] = _measure(res)
    return res["_measure"]


def _measure(res):
    rows = rows_of(res)
    m = {"ok": res.get("status") == "ok", "rows": rows}
    src, what = source_rows(rows)
    m["source"] = what
    for r in src:
        for k, v in r.items():
            if TOTAL_RE.fullmatch(k) and parse.num(v) is not None:
                m[k] = m.get(k, 0) + parse.num(v)
    if src and src[0]["bench"] == "energy-window" and parse.num(src[0].get("window_us")):
        m["window_ms"] = parse.num(src[0]["window_us"]) / 1000.0
    elif src and src[0]["bench"] == "rtapp" and parse.num(src[0].get("duration_us")):
        m["window_ms"] = parse.num(src[0]["duration_us"]) / 1000.0
    else:
        spans = [m.get("cpu%d_busy_us" % c, 0) + m.get("cpu%d_idle_us" % c, 0) for c in cpus_of(m)]
        if spans:
            m["window_ms"] = max(spans) / 1000.0
    # DVFS: each RESULT's time-weighted average frequency per cluster; the cell's: their mean.
    freqs = {}
    for r in rows:
        if r["bench"] in ("energy-window", "light"):
            continue
        for k, v in r.items():
            f = FREQ_RE.fullmatch(k)
            if f and parse.num(v) is not None:
                freqs.setdefault(int(f.group(1)), []).append(parse.num(v))
        if r.get("freq_speed") == "none":
            m["freq_speed_none"] = True
    for c, fs in freqs.items():
        m["freq_c%d_khz" % c] = sum(fs) / float(len(fs))
    machine = res.get("machine") or {}
    speed = {c["cpu"]: c["capacity"] for c in machine.get("cpus", [])} if machine.get("speed") == "capacity" else {}
    busy = [(c, m["cpu%d_busy_us" % c]) for c in cpus_of(m)]
    if busy:
        m["busy_ms"] = sum(b for _, b in busy) / 1000.0
        m["work_ms"] = sum(b * speed.get(c, 1024) / 1024.0 for c, b in busy) / 1000.0
    rt = [r for r in rows if r["bench"] == "rtapp"]
    if rt:
        r = rt[-1]
        for k in ("throughput", "overruns", "lat_avg_us", "lat_max_us", "slack_min_us", "slack_avg_us", "loops"):
            if parse.num(r.get(k)) is not None:
                m[k] = parse.num(r[k])
    cyc = [r for r in rows if r["bench"] == "cyclictest"]
    if cyc:
        m["cyc_lat_min_us"] = min(parse.num(r.get("lat_min_us")) or 0 for r in cyc)
        m["cyc_lat_avg_us"] = sum(parse.num(r.get("lat_avg_us")) or 0 for r in cyc) / len(cyc)
        m["cyc_lat_max_us"] = max(parse.num(r.get("lat_max_us")) or 0 for r in cyc)
    sysb = {}
    for r in rows:
        if r["bench"] == "sysbench" and parse.num(r.get("time_us")):
            sysb[(parse.num(r.get("threads")), parse.num(r.get("requests")))] = parse.num(r["time_us"])
    if sysb:
        m["sysbench"] = sysb
    tr = res.get("trace") or {}
    lat = tr.get("latency_ns") or []
    if lat:
        m["latency_ns"] = lat
        m["wake_p50_us"] = lat[len(lat) // 2] / 1000.0
        m["wake_p99_us"] = lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1000.0
    if tr.get("timeline"):
        m["timeline"] = tr["timeline"]
    m["machine"] = machine
    return m


def cpus_of(m):
    return sorted(int(k[3:-8]) for k in m if re.fullmatch(r"cpu\d+_busy_us", k))


def clusters_of(m):
    return sorted(int(k[8:]) for k in m if re.fullmatch(r"energy_c\d+", k))


def freq_clusters_of(m):
    return sorted(int(k[6:-4]) for k in m if re.fullmatch(r"freq_c\d+_khz", k))


# ------------------------------------------------------------------ groups of repeats
class Groups(dict):
    """{(engine, board, workload): {Mode(pack, governor): [measure, ...]}} in
    first-seen order, failed cells left out (they are listed apart);
    show_governor: whether any cell ran under another governor than the
    default (then tables and plots name it)."""

    def __init__(self, results):
        super().__init__()
        self.failed = [r for r in results if r.get("status") != "ok"]
        for res in results:
            if res.get("status") != "ok":
                continue
            c = res["cell"]
            self.setdefault((c["engine"], c["board"], c["workload"]), {}).setdefault(
                Mode(c["pack"], governors.of(c)), []).append(measure(res))
        self.show_governor = shows_governor({Mode("", governors.of(r["cell"])) for r in results})

    def get_ms(self, engine, board, workload, governor=None):
        """{pack: [measure, ...]} under @governor (None: the default if the
        group has it, else the first it has): pack modes compared under one
        governor (the seeds' tables, pack=energy's verdicts)."""
        bymode = self.get((engine, board, workload), {})
        if governor is None:
            governor = self.main_governor(engine, board, workload)
        return {m.pack: ms for m, ms in bymode.items() if m.governor == governor}

    def main_governor(self, engine, board, workload):
        """The default governor if the group has it, else the first it has."""
        govs = {m.governor for m in self.get((engine, board, workload), {})}
        return governors.DEFAULT if governors.DEFAULT in govs or not govs else governors.order(govs)[0]


def values(ms, key):
    return [m[key] for m in ms if m.get(key) is not None]


def mean_of(ms, key):
    return mean_ci(values(ms, key))[0]


def energy_model(board):
    """tools/bench's model of boards/<board>/<board>.dts, or None."""
    try:
        return bench.parse_energy_model(board)
    except (OSError, KeyError, IndexError, TypeError, AttributeError, ValueError):
        return None


def oracle_bound(board, bypack):
    """The oracle lower bound for a workload on @board: for the least work
    any mode measured (busy time, converted to capacity-1024 work where the
    engine runs CPUs at their capacity), over the longest window. None
    without a model for the board."""
    model = energy_model(board)
    if not model:
        return None
    ms = [m for v in bypack.values() for m in v]
    works = [mean_of(v, "work_ms") for v in bypack.values() if mean_of(v, "work_ms") is not None]
    windows = values(ms, "window_ms")
    if not works or not windows:
        return None
    machine = next((m["machine"] for m in ms if m.get("machine")), {})
    speeds = None
    if machine.get("speed") == "capacity":
        cap = {c["cpu"]: c["capacity"] for c in machine.get("cpus", [])}
        try:
            speeds = [cap[r["cpus"][0]] for r in model]
        except (KeyError, IndexError):
            return None
    return bench.oracle(model, min(works), max(windows), speeds)[0][0]


# ------------------------------------------------------------------ markdown
def md_table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


def reps(ms):
    return len(ms)


def _show(bymode, show_governor):
    return shows_governor(bymode) if show_governor is None else show_governor


def energy_table(engine, board, bypack, cpus=True, show_governor=None):
    """Energy (mean +- CI), per cluster, vs the best other mode (pack mode and
    governor), vs the oracle, busy % per CPU and cluster off %: rows per Mode."""
    show = _show(bypack, show_governor)
    packs = mode_order(list(bypack))
    allm = [m for p in packs for m in bypack[p]]
    clusters = sorted({c for m in allm for c in clusters_of(m)})
    cpu_ids = sorted({c for m in allm for c in cpus_of(m)}) if cpus else []
    eo = oracle_bound(board, bypack)
    header = mode_header(show) + ["n", "energy"] + ["c%d" % c for c in clusters] + ["vs best other", "vs oracle"] + \
        ["cpu%d busy %%" % c for c in cpu_ids] + ["cluster%d off %%" % c for c in clusters]
    body = []
    for p in packs:
        ms = bypack[p]
        e = mean_of(ms, "energy")
        others = [mean_of(bypack[q], "energy") for q in packs if q != p and mean_of(bypack[q], "energy")]
        row = p.cols(show) + [reps(ms), fmt_ci(values(ms, "energy"), 0)]
        row += [fmt_ci(values(ms, "energy_c%d" % c), 0) for c in clusters]
        row.append("%.3f" % (e / min(others)) if e is not None and others else "-")
        row.append("%.2f" % (e / eo) if e is not None and eo else "-")
        for c in cpu_ids:
            fr = [100.0 * m["cpu%d_busy_us" % c] / (m["cpu%d_busy_us" % c] + m["cpu%d_idle_us" % c])
                  for m in ms if m.get("cpu%d_idle_us" % c) is not None and
                  m["cpu%d_busy_us" % c] + m["cpu%d_idle_us" % c] > 0]
            row.append(fmt_ci(fr, 1))
        for c in clusters:
            fr = [100.0 * m["cluster%d_off_us" % c] / (1000.0 * m["window_ms"]) for m in ms
                  if m.get("cluster%d_off_us" % c) is not None and m.get("window_ms")]
            row.append(fmt_ci(fr, 1))
        body.append(row)
    return md_table(header, body), eo


def freq_table(bypack, show_governor=None):
    """Average frequency per cluster (kHz, means over repeats of the cells'
    RESULT averages): rows per Mode; None when no RESULT carried one."""
    show = _show(bypack, show_governor)
    packs = mode_order(list(bypack))
    clusters = sorted({c for p in packs for m in bypack[p] for c in freq_clusters_of(m)})
    if not clusters:
        return None
    body = [p.cols(show) + [reps(bypack[p])] + [fmt_ci(values(bypack[p], "freq_c%d_khz" % c), 0) for c in clusters]
            for p in packs]
    return md_table(mode_header(show) + ["n"] + ["cluster%d avg kHz" % c for c in clusters], body)


FREQ_SPEED_NOTE = ("QEMU runs do not change speed (their RESULT lines say freq_speed=none): work takes as long "
                   "at any frequency there, so QEMU's run and busy times do not show the governor; the "
                   "simulator runs work at the CPU's frequency (work at f takes fmax/f as long).")


def rtapp_table(bypack, show_governor=None):
    show = _show(bypack, show_governor)
    packs = mode_order(list(bypack))
    header = mode_header(show) + ["n", "throughput", "missed (overruns)", "slack avg (us)", "slack min (us)",
              "timer lat avg (us)", "timer lat max (us)", "wake-up p50 (us)", "wake-up p99 (us)"]
    body = []
    for p in packs:
        ms = bypack[p]
        body.append(p.cols(show) + [reps(ms), fmt_ci(values(ms, "throughput"), 3), fmt_ci(values(ms, "overruns"), 1),
                     fmt_ci(values(ms, "slack_avg_us"), 0), fmt_ci(values(ms, "slack_min_us"), 0),
                     fmt_ci(values(ms, "lat_avg_us"), 0), fmt_ci(values(ms, "lat_max_us"), 0),
                     fmt_ci(values(ms, "wake_p50_us"), 1), fmt_ci(values(ms, "wake_p99_us"), 0)])
    return md_table(header, body)


def sysbench_table(bypack, show_governor=None):
    show = _show(bypack, show_governor)
    packs = mode_order(list(bypack))
    keys = sorted({k for p in packs for m in bypack[p] for k in m.get("sysbench", {})})
    body = []
    for p in packs:
        for k in keys:
            ts = [m["sysbench"][k] / 1e6 for m in bypack[p] if k in m.get("sysbench", {})]
            body.append(p.cols(show) + [k[0], k[1], len(ts), fmt_ci(ts, 4)])
    return md_table(mode_header(show) + ["threads", "requests", "n", "time (s)"], body)


def cyclictest_table(bypack, show_governor=None):
    show = _show(bypack, show_governor)
    packs = mode_order(list(bypack))
    body = [p.cols(show) + [reps(bypack[p]), fmt_ci(values(bypack[p], "cyc_lat_min_us"), 1),
                            fmt_ci(values(bypack[p], "cyc_lat_avg_us"), 2),
                            fmt_ci(values(bypack[p], "cyc_lat_max_us"), 1)]
            for p in packs]
    return md_table(mode_header(show) + ["n", "lat min (us)", "lat avg (us, mean of instances)", "lat max (us)"],
                    body)


def light_table(bypack, show_governor=None):
    show = _show(bypack, show_governor)
    packs = mode_order(list(bypack))
    first = [(p, next((r for r in bypack[p][0]["rows"] if r["bench"] == "light"), None)) for p in packs]
    first = [(p, r) for p, r in first if r]
    if not first:
        return None
    cpus = sorted({int(k[3:-9]) for _, r in first for k in r if re.fullmatch(r"cpu\d+_busy_pct", k)})
    body = [p.cols(show) + ["%s%% (%s)" % (r.get("cpu%d_busy_pct" % c, "-"), r.get("cpu%d_tasks" % c, "-"))
                            for c in cpus]
            for p, r in first]
    return md_table(mode_header(show) + ["cpu%d (cluster %s)" % (c, first[0][1].get("cpu%d_cluster" % c, "?"))
                                         for c in cpus], body)


def other_table(bypack, show_governor=None):
    show = _show(bypack, show_governor)
    rows = [r for p in mode_order(list(bypack)) for r in bypack[p][0]["rows"]
            if r["bench"] not in ("sysbench", "cyclictest", "light", "energy-window", "rtapp")]
    if not rows:
        return None
    keys = [k for k in dict.fromkeys(k for r in rows for k in r)
            if k not in ("engine", "board", "workload", "raw", "cell", "repeat", "seed") +
            (() if show else ("governor",))
            and not re.fullmatch(r"cpu\d+_\w+|cluster\d+_off_us", k)]
    return md_table(keys, [[r.get(k, "") for k in keys] for r in rows])


ENGINE_TEXT = {
    "sim": "simulator (build/host/schedsim: the kernel's scheduler on a machine whose CPUs run in parallel, "
           "each at its DT capacity; repeat k runs with --seed=k+1: every piece of work and kernel cost up to 1% off, "
           "boot clocks skewed, deterministic per seed)",
    "qemu": "QEMU (icount: one instruction = 1 ns, vCPUs run in turn on one host thread, so CPUs busy at "
            "once stretch each other; deterministic unless --icount 0)",
    "hw": "a real board over its serial console (tools/powerrun; energy from its meters or the energy model)",
}


def summary_markdown(results, warnings=(), notes=(), intro=None):
    """summary.md; @intro: a paragraph after the title."""
    groups = Groups(results)
    out = ["# Experiment summary", ""] + ([intro, ""] if intro else [])
    engines = sorted({r["cell"]["engine"] for r in results})
    builds = sorted({"%s %s %s" % (r["cell"]["engine"], r["build"].get("binary", "?"),
                                   r["build"].get("binary_sha256", "?")) for r in results if r.get("build")})
    hosts = sorted({r.get("host", "?") for r in results})
    out.append("%d cells (%d failed) from %d host%s: %s." % (
        len(results), len(groups.failed), len(hosts), "s" if len(hosts) != 1 else "", ", ".join(hosts)))
    out.append("")
    for e in engines:
        out.append("- %s: %s." % (e, ENGINE_TEXT.get(e, e)))
    if builds:
        mixed = len(builds) > len({tuple(b.split()[:2]) for b in builds})
        out.append("- builds: %s%s." % ("; ".join(builds), " (**cells made by different builds of one binary**)"
                                       if mixed else ""))
    show = groups.show_governor
    govs = governors.order({governors.of(r["cell"]) for r in results})
    if show:
        out.append("- cpufreq governors: %s (a governor column beside the pack mode; cells that named none ran "
                   "under the kernel's default, %s)." % (", ".join(govs), governors.DEFAULT))
    elif results:
        out.append("- cpufreq governor: %s in every cell (the kernel's default)." % governors.DEFAULT)
    out += ["- " + n for n in list(notes) + list(warnings) if n]
    out += ["", "Figures are means over the repeats (n) with the 95% confidence interval (Student's t) "
            "after ±; energy in the board's energy-model units x ms; \"vs best other\" = energy / the lowest "
            "mean of the other modes (pack mode and governor); \"vs oracle\" = energy / the oracle lower bound "
            "of tools/bench for the least work any mode did (busy time x capacity / 1024 on the simulator).", ""]
    wls = {}
    for r in results:
        wls.setdefault(r["cell"]["workload"], r["cell"].get("script", ""))
    out += ["Workloads:", ""]
    for name, script in wls.items():
        out.append("- `%s`: `%s`" % (name, script if len(script) < 300 else script[:297] + "..."))
    out.append("")
    for (engine, board, workload), bypack in groups.items():
        out += ["## %s on %s (%s)" % (workload, board, engine), ""]
        allm = [m for ms in bypack.values() for m in ms]
        if any(m.get("sysbench") for m in allm):
            out += ["### sysbench (total time)", "", sysbench_table(bypack, show), ""]
        if any(m.get("cyc_lat_avg_us") is not None for m in allm):
            out += ["### cyclictest", "", cyclictest_table(bypack, show), ""]
        t = light_table(bypack, show)
        if t:
            out += ["### schedtest light (busy % and tasks per CPU at the end, first repeat)", "", t, ""]
        if any(m.get("throughput") is not None or m.get("overruns") is not None for m in allm):
            out += ["### rt-app", "", rtapp_table(bypack, show), ""]
        t = other_table(bypack, show)
        if t:
            out += ["### other results (first repeat)", "", t, ""]
        if any(m.get("energy") is not None or cpus_of(m) for m in allm):
            table, _ = energy_table(engine, board, bypack, show_governor=show)
            out += ["### energy and residency (%s)" % allm[0]["source"], "", table, ""]
        t = freq_table(bypack, show)
        if t:
            out += ["### frequency (kHz per cluster: each RESULT's time-weighted average, their mean per cell)", "",
                    t, ""]
            if any(m.get("freq_speed_none") for m in allm):
                out += [FREQ_SPEED_NOTE, ""]
    if groups.failed:
        out += ["## Failed cells", ""]
        for r in groups.failed:
            c = r["cell"]
            gov = governors.of(c)
            out.append("- engine=%s board=%s pack=%s%s workload=%s repeat=%s: %s (%s)" % (
                c["engine"], c["board"], c["pack"], "" if gov == governors.DEFAULT else " governor=" + gov,
                c["workload"], c["repeat"], r.get("error"), os.path.basename(r.get("path", ""))))
        out.append("")
    out += ["## Cells", ""]
    cells = []
    for r in results:
        c = r["cell"]
        cells.append([c["engine"], c["board"]] + Mode(c["pack"], governors.of(c)).cols(show) +
                     [c["workload"], c["repeat"], "-" if c.get("seed") is None else c["seed"], r.get("host", "?"),
                      "%.1f" % r.get("wall_s", 0), "ok" if r.get("status") == "ok" else "FAILED"])
    out += [md_table(["engine", "board"] + mode_header(show) + ["workload", "repeat", "seed", "host", "wall (s)",
                                                                "status"], cells), ""]
    return "\n".join(out)


# ------------------------------------------------------------------ results.csv
def column_rank(key, first_seen):
    """CSV order: the benches' own keys as first seen, then energy, energy_c<k>,
    cpu<n>_* by CPU, cluster<k>_* by cluster."""
    m = re.fullmatch(r"energy(?:_c(\d+))?", key)
    if m:
        return (1, int(m.group(1) or -1), 0)
    m = re.fullmatch(r"cpu(\d+)_\w+", key)
    if m:
        return (2, int(m.group(1)), first_seen.index(key))
    m = re.fullmatch(r"cluster(\d+)_\w+", key)
    if m:
        return (3, int(m.group(1)), first_seen.index(key))
    return (0, first_seen.index(key), 0)


FIRST_COLS = ["engine", "board", "pack", "governor", "workload", "repeat", "seed", "bench"]


def write_csv(path, rows):
    """FIRST_COLS (those the rows have), every other key, then cell and raw."""
    keys = []
    seen = set(FIRST_COLS) | {"raw", "cell"}
    for row in rows:
        for k in row:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    have = {k for row in rows for k in row}
    cols = [c for c in FIRST_COLS if c in have] + sorted(keys, key=lambda k: column_rank(k, keys)) + \
        [c for c in ("cell", "raw") if c in have]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, restval="")
        w.writeheader()
        for row in rows:
            w.writerow(row)
    return cols


# ------------------------------------------------------------------ pack=energy's verdicts
def verdict_word(ok):
    return "missing" if ok is None else ("met" if ok else "MISSED")


def why_energy(bypack, best_mode):
    """Where pack=energy's extra energy goes against @best_mode: the cluster
    that differs most, its busy time, and the throughput of both."""
    e, b = bypack["energy"], bypack[best_mode]
    clusters = sorted({c for m in e + b for c in clusters_of(m)})
    if not clusters:
        return ""
    diffs = [((mean_of(e, "energy_c%d" % c) or 0) - (mean_of(b, "energy_c%d" % c) or 0), c) for c in clusters]
    d, c = max(diffs)
    machine = next((m["machine"] for m in e if m.get("machine")), {})
    cpus = [x["cpu"] for x in machine.get("cpus", []) if x["cluster"] == c]

    def busy(ms):
        return sum(mean_of(ms, "cpu%d_busy_us" % x) or 0 for x in cpus) / 1000.0

    text = "%+.0f on cluster %d (its CPUs busy %.0f ms vs %.0f ms)" % (d, c, busy(e), busy(b)) if cpus else \
        "%+.0f on cluster %d" % (d, c)
    te, tb = mean_of(e, "throughput"), mean_of(b, "throughput")
    if te is not None and tb is not None:
        text += "; throughput %.3f vs %.3f" % (te, tb)
        if tb < 0.99 * te:
            text += " (%s saves energy by doing %.0f%% less of the work)" % (best_mode, 100.0 * (1 - tb / te))
    oe, ob = mean_of(e, "overruns"), mean_of(b, "overruns")
    if oe is not None and ob is not None:
        text += "; missed deadlines %.0f vs %.0f" % (oe, ob)
    return text


def less_work(bypack, p):
    """Why mode @p did not do pack=energy's job (means over repeats), or None
    when it did: at least as much of the work (throughput within 1%) and no
    more missed deadlines than energy's (within 10% + 2, the repeats' noise).
    Workloads without those figures (cyclictest, light): None."""
    why = []
    te, tp = mean_of(bypack["energy"], "throughput"), mean_of(bypack[p], "throughput")
    if te is not None and tp is not None and tp < te - 0.01:
        why.append("%.1f%% less work" % (100.0 * (1 - tp / te)))
    oe, op = mean_of(bypack["energy"], "overruns"), mean_of(bypack[p], "overruns")
    if oe is not None and op is not None and op > 1.10 * oe + 2:
        why.append("%.0f more missed deadlines" % (op - oe))
    return " and ".join(why) or None


def energy_vs_same_work(bypack, name, others):
    """pack=energy's energy against the cheapest other mode (means in @others)
    that did the same job (less_work): a mode that saves energy by doing less
    of the work, or by missing deadlines energy keeps, is not a cheaper way to
    run the workload. The modes left out are named with why; with none left,
    the verdict is met and says what the cheapest did instead."""
    e = mean_of(bypack["energy"], "energy")
    out = {p: less_work(bypack, p) for p in others}
    same = {p: v for p, v in others.items() if out[p] is None}
    left = ", ".join("%s: %s for %.2fx the energy" % (p, out[p], others[p] / e) for p in sorted(others, key=others.get)
                     if out[p])
    what, target = "energy, %s" % name, "<= %.2f" % ENERGY_SLACK
    if not same:
        return (what, "no other mode does this work: %s" % left, target, True, "")
    best_mode = min(same, key=same.get)
    meas = "%.3f of the best other (%s)" % (e / same[best_mode], best_mode)
    if left:
        meas += "; left out, doing less: %s" % left
    ok = e <= ENERGY_SLACK * same[best_mode]
    return (what, meas, target, ok, "" if ok else why_energy(bypack, best_mode))


def energy_verdicts(groups, engine, board, workloads, tag=""):
    """pack=energy on each of @workloads (names) on (@engine, @board): energy
    <= the best other mode's that does the same work + 2% (means over repeats,
    energy_vs_same_work) and, for rt-app, no more missed deadlines (overruns)
    than pack=off. Returns (table rows, verdicts
    [(what, measured, target, ok or None, why)])."""
    table, verdicts = [], []
    for w in workloads:
        bypack = groups.get_ms(engine, board, w)
        name = wl.short_name(w) + tag
        if not bypack:
            verdicts.append(("energy, %s" % name, "missing runs", "<= %.2f" % ENERGY_SLACK, None, ""))
            continue
        eo = oracle_bound(board, bypack)
        packs = pack_order(list(bypack))
        means = {p: mean_of(bypack[p], "energy") for p in packs if mean_of(bypack[p], "energy") is not None}
        others = {p: v for p, v in means.items() if p != "energy"}
        best = min(others.values()) if others else None
        for p in packs:
            ms = bypack[p]
            e = means.get(p)
            rest = [v for q, v in means.items() if q != p]
            clusters = sorted({c for m in ms for c in clusters_of(m)})
            table.append({"workload": wl.short_name(w), "pack": p, "n": len(ms), "energy": fmt_ci(values(ms, "energy"), 0),
                          "clusters": " / ".join(fmt_ci(values(ms, "energy_c%d" % c), 0) for c in clusters),
                          "vs_best": "%.3f" % (e / min(rest)) if e is not None and rest else "-",
                          "vs_oracle": "%.2f" % (e / eo) if e is not None and eo else "-",
                          "throughput": fmt_ci(values(ms, "throughput"), 3),
                          "overruns": fmt_ci(values(ms, "overruns"), 1),
                          "lat": fmt_ci(values(ms, "lat_avg_us"), 0),
                          "slack": fmt_ci(values(ms, "slack_avg_us"), 0)})
        if "energy" in bypack and best:
            verdicts.append(energy_vs_same_work(bypack, name, others))
        else:
            verdicts.append(("energy, %s" % name, "missing runs", "<= %.2f" % ENERGY_SLACK, None, ""))
        oe = mean_of(bypack.get("energy", []), "overruns")
        oo = mean_of(bypack.get("off", []), "overruns")
        if oe is not None or oo is not None:
            if oe is None or oo is None:
                verdicts.append(("missed deadlines, %s" % name, "missing runs", "<= off's", None, ""))
            else:
                ok = oe <= oo
                why = ""
                if not ok:
                    te = mean_of(bypack["energy"], "throughput")
                    why = "pack=energy misses %.0f more deadlines than off%s" % (
                        oe - oo, "" if te is None else " (throughput %.3f)" % te)
                verdicts.append(("missed deadlines, %s" % name, "energy %s, off %s (overruns, n=%d)" % (
                    fmt_ci(values(bypack["energy"], "overruns"), 1), fmt_ci(values(bypack["off"], "overruns"), 1),
                    len(bypack["energy"])), "<= off's (means)", ok, why))
    return table, verdicts


def verdict_lines(verdicts, engine_label):
    out = []
    for what, meas, target, ok, why in verdicts:
        out.append("- verdict (%s): %s: %s (target %s): %s%s" % (engine_label, what, meas, target,
                                                                  verdict_word(ok), (" — why: " + why) if why else ""))
    return out


def sysbench_ratio_verdict(groups, engine, board, num="energy", den="off", slack=SYSBENCH_SLACK, workload="sysbench-seed"):
    """The worst (over N, R) ratio of mean sysbench times @num / @den."""
    bypack = groups.get_ms(engine, board, workload)
    ratios = []
    for k in sorted({k for ms in bypack.values() for m in ms for k in m.get("sysbench", {})}):
        a = [m["sysbench"][k] for m in bypack.get(num, []) if k in m.get("sysbench", {})]
        b = [m["sysbench"][k] for m in bypack.get(den, []) if k in m.get("sysbench", {})]
        if a and b:
            ratios.append(mean_ci(a)[0] / mean_ci(b)[0])
    if not ratios:
        return ("sysbench time, %s / %s (%s)" % (num, den, board), "missing runs", "<= %.2f" % slack, None, "")
    return ("sysbench time, %s / %s (%s, worst of %d)" % (num, den, board, len(ratios)), "%.4f" % max(ratios),
            "<= %.2f" % slack, max(ratios) <= slack, "")


def latency_verdict(groups, engine, board, workload="cyclictest-seed"):
    """cyclictest's average latency, pack=energy / pack=off, on @workload."""
    bypack = groups.get_ms(engine, board, workload)
    lo, le = mean_of(bypack.get("off", []), "cyc_lat_avg_us"), mean_of(bypack.get("energy", []), "cyc_lat_avg_us")
    what = "cyclictest avg latency, energy / off (%s%s)" % (
        board, ", every CPU at capacity 1024" if workload.endswith("-uniform") else "")
    if lo is None or le is None:
        return (what, "missing runs", "<= %.2f" % LATENCY_SLACK, None, "")
    if lo == 0:
        return (what, "%.2f us / %.2f us" % (le, lo), "<= %.2f" % LATENCY_SLACK, le <= lo, "")
    return (what, "%.2f us / %.2f us = %.3f" % (le, lo, le / lo), "<= %.2f" % LATENCY_SLACK,
            le <= LATENCY_SLACK * lo, "")


def latency_speed_note(groups, engine, board, workload="cyclictest-seed"):
    """Where the simulator runs CPUs at their capacities, a line saying how
    much slower per unit of work the CPUs that ran each mode's cyclictest
    were (busy time / capacity-1024 work), energy against off; None when
    either is missing or the engine runs every CPU at one speed."""
    bypack = groups.get_ms(engine, board, workload)
    slow = {}
    for p in ("off", "energy"):
        b, w = mean_of(bypack.get(p, []), "busy_ms"), mean_of(bypack.get(p, []), "work_ms")
        if not b or not w:
            return None
        slow[p] = b / w
    if abs(slow["energy"] - slow["off"]) < 0.01:
        return None
    return ("- the CPUs (%s): busy time per unit of capacity-1024 work, energy %.2f, off %.2f: pack=energy's "
            "wake-ups run on CPUs %.2fx slower on average; the uniform-speed runs below take that away, "
            "and that verdict decides." % (board, slow["energy"], slow["off"], slow["energy"] / slow["off"]))


__all__ = ["rows_of", "measure", "Groups", "summary_markdown", "write_csv", "energy_verdicts", "stats"]
