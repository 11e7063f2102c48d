"""The seeds' tables and pack=energy's verdicts on both engines: the cells
they need (seeds_cells) and seeds.md from any set of results (seeds_markdown).

Boards: the simulator runs the real TC2's DT (build/tc2/tc2.dtb: A7s at
capacity 516, so their work takes twice as long, as on the board) and the
CoreTile A9x4's; QEMU runs qemu-tc2 (the TC2 topology, rails and energy
model on QEMU virt, every vCPU at one speed) and vexpress-a9.
"""
import governors  # noqa: E402  (tools/lib)

from . import cells as cl
from . import report as rp
from . import workloads as wl
from .stats import fmt_ci, mean_ci

SIM_TC2, QEMU_TC2, A9 = "tc2", "qemu-tc2", "vexpress-a9"
ONE_CPU = 1.0   # rt-app files whose peak demand exceeds one capacity-1024 CPU are "beyond one CPU"

# 001-cover-sched-packing-small-tasks.txt: average of 3 runs on the quad CA-9.
SEED_SYSBENCH = {  # (N, R): (default s, pack s)
    (8, 200): (3.1999, 3.1921), (8, 2000): (31.4939, 31.4844),
    (12, 200): (3.2043, 3.2084), (12, 2000): (31.4897, 31.4831),
    (16, 200): (3.1774, 3.1824), (16, 2000): (31.4899, 31.4897),
}
# TC2 cyclictest energy over 16 s, default CA15 = 100: CA15, CA7, total.
SEED_ENERGY = (("seed default", "100", "40", "140"), ("seed pack", "<1", "45", "<46"))
SEED_ENERGY_VALUES = {"default": (100.0, 40.0), "pack": (1.0, 45.0)}   # for the plot's markers ("<1" drawn at 1)


def rtapp_sets():
    """(within one CPU, beyond one CPU): the rtapp:FILE workload names of tests/workloads/."""
    within, beyond = [], []
    for path in wl.rtapp_files():
        name = "rtapp:" + path
        w, _ = wl.rtapp_workload(name, path)
        spec = wl.RtappSpec.from_script(w.script) if w else None
        (beyond if spec and spec.demand() > ONE_CPU else within).append(name)
    return within, beyond


def seeds_cells(modes, quick=False, repeat=3, engines=("sim", "qemu"), govs=(None,)):
    """The cells of `make experiment`, in the order to run them (slowest first);
    each under every governor of @govs (None: none passed, the kernel's default)."""
    within, beyond = rtapp_sets()
    out = []

    def add(engine, board, workload, packs, reps, q=False):
        w, msg = wl.builtin_workload(workload, q)
        if w is None:
            return
        for r in range(reps):
            for p in packs:
                for g in govs:
                    out.append(cl.Cell(engine, board, p, w, repeat=r, quick=q, governor=g))

    if "qemu" in engines:
        # QEMU's sysbench runs R/10 always: under icount its time is one CPU's whatever the
        # placement (the control shows it), so the full R would add minutes and nothing else.
        add("qemu", A9, "sysbench-seed", [m for m in ("off", "all", "energy") if m in modes], 1, q=True)
        add("qemu", A9, "sysbench-control", ["off"], 1, q=True)
        add("qemu", QEMU_TC2, "cyclictest-seed", modes, 1)
        if not quick:
            for w in beyond + within + ["light"]:
                add("qemu", QEMU_TC2, w, modes, 1)
    if "sim" in engines:
        add("sim", A9, "sysbench-seed", modes, repeat, q=False)
        add("sim", A9, "sysbench-control", ["off"], repeat, q=False)
        for w in ["cyclictest-seed", "light"] + within:
            add("sim", SIM_TC2, w, modes, repeat)
        add("sim", SIM_TC2, "cyclictest-seed-uniform", [m for m in ("off", "energy") if m in modes], repeat)
        for board in (SIM_TC2, A9):
            for w in beyond:
                add("sim", board, w, modes, repeat)
    return out


# ------------------------------------------------------------------ seeds.md
TRUST = {
    "sysbench": "**Engine to trust: the simulator.** Its CPUs run in parallel, so a placement that "
                "serialised the threads would cost time there: the control (every thread pinned to CPU0 with "
                "`taskset 0x1`) takes ~4x as long. Under QEMU icount the four vCPUs take turns on one host "
                "thread: any placement, the control included, takes one CPU's time, so QEMU's figure cannot "
                "show a throughput loss (its control/off is ~1) and only checks that the real kernel runs "
                "the benchmark.",
    "cyclictest": "**Engine to trust: the simulator** (on the real TC2's DT: an A7 takes 1024/516 as long as "
                  "an A15 for the same work, as on the board). QEMU runs every vCPU at one speed (its A7s are as "
                  "fast as its A15s, so the A7 cluster is busy for less time than on a TC2) and icount stretches "
                  "the busy time of CPUs busy at once (sixteen threads wake every millisecond): its figures are "
                  "not a measurement of the kernel's energy; they check that the real kernel makes the same "
                  "placement decisions (the ranking below).",
    "within": "**Engine to trust: the simulator.** Each workload stays under one CPU in all, but its tasks' "
              "busy periods overlap on several CPUs, and QEMU icount stretches every overlap (it favours "
              "packing); QEMU's columns are the real kernel's behaviour under that distortion.",
    "beyond": "**Engine to trust: the simulator; QEMU's figures here are not measurements.** These workloads "
              "ask for more than one CPU: under QEMU icount all vCPUs share one host thread, i.e. the guest "
              "has one CPU's throughput, so tasks fall behind whatever the placement (throughput < 1, missed "
              "deadlines in every mode) and energy follows the stretch, not the placement.",
}


def _norm(values, ref):
    return [100.0 * v / ref for v in values] if ref else []


def sysbench_section(groups, quick_qemu):
    out = ["## 1. sysbench on the quad Cortex-A9 (vexpress-a9)", ""]
    out.append("`sysbench --test=cpu --num-threads=N --max-requests=R run`: total time in seconds (simulator: "
               "mean ± 95% CI over its repeats; QEMU: one deterministic run). Seed \"default\" = our `off`; "
               "seed \"pack\" = their ARM patch clearing SD_SHARE_POWERLINE everywhere = our `all` (the "
               "CoreTile is one rail, so `rails` has no buddies: the same as `off`). \"control\" = `taskset "
               "0x1`: every thread on CPU0, a negative control that shows what a throughput loss looks like.")
    if quick_qemu:
        out += ["", "QEMU runs R/10 (R=%s): compare its ratios, not its times." %
                ",".join(str(r) for r in wl.sysbench_requests(True))]
    out.append("")
    sim = groups.get_ms("sim", A9, "sysbench-seed")
    simc = groups.get_ms("sim", A9, "sysbench-control")
    qem = groups.get_ms("qemu", A9, "sysbench-seed")
    qemc = groups.get_ms("qemu", A9, "sysbench-control")

    def times(bypack, pack, key):
        return [m["sysbench"][key] / 1e6 for m in bypack.get(pack, []) if key in m.get("sysbench", {})]

    def ratio(a, b):
        ma, mb = mean_ci(a)[0], mean_ci(b)[0]
        return "%.4f" % (ma / mb) if ma is not None and mb else "-"

    body = []
    for n in wl.SEED_THREADS:
        for i, sr in enumerate(wl.SEED_REQUESTS):
            qr = wl.sysbench_requests(quick_qemu)[i]
            sd, sp = SEED_SYSBENCH[(n, sr)]
            so, sa, se = (times(sim, p, (n, sr)) for p in ("off", "all", "energy"))
            sc = times(simc, "off", (n, sr))
            qo, qa = times(qem, "off", (n, qr)), times(qem, "all", (n, qr))
            qc = times(qemc, "off", (n, qr))
            body.append(["N=%d; R=%d" % (n, sr), "%.4f" % sd, "%.4f" % sp, "%.4f" % (sp / sd),
                         fmt_ci(so, 4), fmt_ci(sa, 4), ratio(sa, so), ratio(se, so), fmt_ci(sc, 4), ratio(sc, so),
                         fmt_ci(qo, 4), fmt_ci(qa, 4), ratio(qa, qo), ratio(qc, qo)])
    out += [rp.md_table(["", "seed default", "seed pack", "seed pack/default", "sim off", "sim all",
                         "sim all/off", "sim energy/off", "sim control", "sim control/off", "QEMU off",
                         "QEMU all", "QEMU all/off", "QEMU control/off"], body), ""]
    out += [TRUST["sysbench"], ""]
    v = [rp.sysbench_ratio_verdict(groups, "sim", A9, "all", "off"),
         rp.sysbench_ratio_verdict(groups, "sim", A9, "energy", "off")]
    out += rp.verdict_lines(v, "simulator")
    ctl = control_check(groups, "sim")
    out += ["- check (simulator): the control shows a loss: %s" % ctl,
            "- check (QEMU): the control shows a loss: %s" % control_check(groups, "qemu"), ""]
    return out


def control_check(groups, engine):
    """The least control/off time ratio over (N, R), and whether it is a loss (> 1.5)."""
    off = groups.get_ms(engine, A9, "sysbench-seed").get("off", [])
    ctl = groups.get_ms(engine, A9, "sysbench-control").get("off", [])
    ratios = []
    for k in sorted({k for m in off for k in m.get("sysbench", {})}):
        a = [m["sysbench"][k] for m in ctl if k in m.get("sysbench", {})]
        b = [m["sysbench"][k] for m in off if k in m.get("sysbench", {})]
        if a and b:
            ratios.append(mean_ci(a)[0] / mean_ci(b)[0])
    if not ratios:
        return "missing runs"
    return "control/off at least %.3f over %d (N, R): %s" % (
        min(ratios), len(ratios), "yes" if min(ratios) > 1.5 else "NO (this engine cannot see placement)")


def cyclictest_section(groups, modes):
    out = ["## 2. cyclictest energy on TC2 (simulator: tc2's DT; QEMU: qemu-tc2)", ""]
    out.append("`%s` twice at once; energy of each cluster over 16 s (from 2 s to 18 s of the 20 s run, the "
               "kernel's `energy mark` / `energy` window) from the board's energy model (the EAS TC2 figures), "
               "normalised per engine so that its `off` A15 cluster = 100 (simulator: mean ± 95%% CI over its "
               "repeats)." % wl.CYCLIC_SEED)
    out.append("")
    body = [list(s) for s in SEED_ENERGY]
    raw, lat = [], []
    for engine, board in (("sim", SIM_TC2), ("qemu", QEMU_TC2)):
        bypack = groups.get_ms(engine, board, "cyclictest-seed")
        ref = mean_ci(rp.values(bypack.get("off", []), "energy_c0"))[0]
        for p in modes:
            ms = bypack.get(p, [])
            label = "%s %s" % ("sim" if engine == "sim" else "QEMU", p)
            if not ms or not ref:
                body.append([label, "-", "-", "-"])
                continue
            c0, c1 = rp.values(ms, "energy_c0"), rp.values(ms, "energy_c1")
            body.append([label, fmt_ci(_norm(c0, ref), 1), fmt_ci(_norm(c1, ref), 1),
                         fmt_ci(_norm([a + b for a, b in zip(c0, c1)], ref), 1)])
            raw.append([engine, p, len(ms), fmt_ci(rp.values(ms, "window_ms"), 0), fmt_ci(c0, 0), fmt_ci(c1, 0),
                        fmt_ci(rp.values(ms, "energy"), 0),
                        fmt_ci([100.0 * m["cluster0_off_us"] / 1000.0 / m["window_ms"] for m in ms
                                if m.get("cluster0_off_us") is not None and m.get("window_ms")], 1),
                        fmt_ci([100.0 * m["cluster1_off_us"] / 1000.0 / m["window_ms"] for m in ms
                                if m.get("cluster1_off_us") is not None and m.get("window_ms")], 1)])
            lat.append([engine, p, fmt_ci(rp.values(ms, "cyc_lat_min_us"), 1),
                        fmt_ci(rp.values(ms, "cyc_lat_avg_us"), 2), fmt_ci(rp.values(ms, "cyc_lat_max_us"), 1)])
    out += [rp.md_table(["", "CA15 (cluster 0)", "CA7 (cluster 1)", "total"], body), ""]
    out += [TRUST["cyclictest"], ""]
    ranks = {}
    for engine, board in (("sim", SIM_TC2), ("qemu", QEMU_TC2)):
        bypack = groups.get_ms(engine, board, "cyclictest-seed")
        tot = {p: mean_ci(rp.values(bypack[p], "energy"))[0] for p in modes if bypack.get(p)}
        ranks[engine] = sorted((v, p) for p, v in tot.items() if v is not None)
    if ranks["sim"] and ranks["qemu"]:
        order = {e: " < ".join(p for _, p in r) for e, r in ranks.items()}
        out += ["- check: the engines rank the modes alike (total energy): %s (simulator %s; QEMU %s)" % (
            "yes" if order["sim"] == order["qemu"] else "NO", order["sim"], order["qemu"]), ""]
    out.append("Seed \"pack\" is their ARM patch, i.e. our `all`; `rails` packs by the DT's rails (buddies "
               "2,2,2,3,4). The seeds measured real TC2 meters; ours is the energy model over the kernel's "
               "residencies. The A15's floor under packing is the model's: a powered-off A15 cluster costs 25 "
               "units in the EAS model, ~10 of the 100 over 16 s, where the real cluster draws almost nothing.")
    out.append("")
    if raw:
        out += ["Raw window figures (model units x ms):", ""]
        out += [rp.md_table(["engine", "pack", "n", "window (ms)", "energy_c0", "energy_c1", "energy",
                             "cluster0 off %", "cluster1 off %"], raw), ""]
        out += ["cyclictest latencies (both instances; us):", ""]
        out += [rp.md_table(["engine", "pack", "min", "avg", "max"], lat), ""]
    return out


def energy_rows_md(table_sim, table_qemu):
    """One row per (workload, pack): the simulator's figures beside QEMU's."""
    q = {(r["workload"], r["pack"]): r for r in table_qemu}
    body = []
    for r in table_sim:
        o = q.get((r["workload"], r["pack"]), {})
        body.append([r["workload"], r["pack"], r["energy"], r["vs_best"], r["vs_oracle"], r["overruns"],
                     o.get("energy", "-"), o.get("vs_best", "-"), o.get("vs_oracle", "-"), o.get("overruns", "-")])
    for r in table_qemu:
        if not any((x["workload"], x["pack"]) == (r["workload"], r["pack"]) for x in table_sim):
            body.append([r["workload"], r["pack"], "-", "-", "-", "-", r["energy"], r["vs_best"], r["vs_oracle"],
                         r["overruns"]])
    return rp.md_table(["workload", "pack", "sim energy", "sim vs best other", "sim vs oracle", "sim missed",
                        "QEMU energy", "QEMU vs best other", "QEMU vs oracle", "QEMU missed"], body)


def within_section(groups, within):
    names = ["cyclictest-seed", "light"] + within
    out = ["## 3. pack=energy against the other modes: the energy policy's workloads (within one CPU)", ""]
    out.append("The seeds' cyclictest (16 s window), `light` (16 small tasks) and the rt-app workloads of "
               "`tests/workloads/` whose demand stays within one CPU, under every pack mode: simulator on tc2's "
               "DT (mean ± 95% CI over its repeats), QEMU on qemu-tc2. Energy in model units x ms over the "
               "window (the rt-app run for rt-app workloads); \"vs best other\" = energy / the lowest of the "
               "other modes' means; \"vs oracle\" = energy / the oracle lower bound of tools/bench for the least "
               "work any mode did in the window (on the simulator, busy time x capacity / 1024); \"missed\" = "
               "rt-app overruns.")
    out.append("")
    ts, vs = rp.energy_verdicts(groups, "sim", SIM_TC2, names)
    tq, vq = rp.energy_verdicts(groups, "qemu", QEMU_TC2, names)
    out += [energy_rows_md(ts, tq), ""]
    out += [TRUST["within"], ""]
    out += ["Targets: energy <= best other mode + 2% on every workload (of the modes that do as much of the "
            "work and miss no more deadlines: one that saves energy by doing less is not a cheaper way to run "
            "it; the verdict names the modes left out); no more missed deadlines than `off`; "
            "sysbench time within 1% and cyclictest average latency within 10% of `off` (on the simulator, judged "
            "with every CPU at capacity 1024, `cyclictest-seed-uniform`: with the A15 cluster off every wake-up "
            "runs on an A7, which takes 1024/516 as long for the same path; the line at the CPUs' own speeds is "
            "reported beside it).", ""]
    vs.append(rp.sysbench_ratio_verdict(groups, "sim", A9))
    raw = rp.latency_verdict(groups, "sim", SIM_TC2)
    uniform = rp.latency_verdict(groups, "sim", SIM_TC2, "cyclictest-seed-uniform")
    reported = []
    if uniform[3] is None:
        vs.append(raw)
    else:
        # The simulator runs each CPU at its capacity: with the A15 cluster off every
        # wake-up runs on an A7, 1024/516 as long. The same runs with every CPU at
        # capacity 1024 measure what the placement itself adds; that decides.
        vs.append(uniform)
        reported.append("- reported (simulator): %s: %s (at the CPUs' own speeds; not the verdict)" % raw[:2])
        note = rp.latency_speed_note(groups, "sim", SIM_TC2)
        if note:
            reported.append(note)
    vq.append(rp.sysbench_ratio_verdict(groups, "qemu", A9))
    vq.append(rp.latency_verdict(groups, "qemu", QEMU_TC2))
    out += reported
    out += rp.verdict_lines(vs, "simulator")
    out.append("")
    out += rp.verdict_lines(vq, "QEMU, for reference")
    out.append("")
    return out, vs


def beyond_section(groups, beyond):
    out = ["## 4. Workloads beyond one CPU", ""]
    out.append("rt-app workloads of `tests/workloads/` that ask for more than one CPU (README there), under "
               "every pack mode, on the simulator with the TC2 and CoreTile A9x4 DTs and in QEMU on qemu-tc2. "
               "\"throughput\" = work done / work asked (each finished rt-app loop's configured run time, "
               "against the loops that end within the run on the ideal timeline); \"missed\" = rt-app "
               "overruns (a timer reached after its deadline); slack = time left before each loop's deadline "
               "(mean over loops); timer lat = wake-up latency after a timer (rt-app's); wake-up p99 = the "
               "99th percentile of sched_wakeup -> running (simulator trace).")
    out.append("")
    verdicts = []
    for engine, board in (("sim", SIM_TC2), ("sim", A9), ("qemu", QEMU_TC2)):
        table, v = rp.energy_verdicts(groups, engine, board, beyond, tag=" (%s)" % board)
        if not any(groups.get_ms(engine, board, w) for w in beyond):
            continue
        extra = {}
        for w in beyond:
            for p, ms in groups.get_ms(engine, board, w).items():
                extra[(wl.short_name(w), p)] = fmt_ci(rp.values(ms, "wake_p99_us"), 0)
        out += ["### %s, %s" % ("simulator" if engine == "sim" else "QEMU", board), ""]
        body = [[r["workload"], r["pack"], r["n"], r["energy"], r["clusters"], r["vs_best"], r["vs_oracle"],
                 r["throughput"], r["overruns"], r["slack"], r["lat"], extra.get((r["workload"], r["pack"]), "-")]
                for r in table]
        out += [rp.md_table(["workload", "pack", "n", "energy", "per cluster", "vs best other", "vs oracle",
                             "throughput", "missed", "slack avg (us)", "timer lat avg (us)", "wake-up p99 (us)"],
                            body), ""]
        if engine == "sim":
            out += rp.verdict_lines(v, "simulator, %s" % board)
            verdicts += v
            if board == A9:
                out += ["", "The CoreTile A9x4 is one power rail: `rails` gives no buddies (the same as `off`); "
                        "only `all` (buddies 0,0,0,0) and `energy` place differently."]
        out.append("")
    out += [TRUST["beyond"], ""]
    return out, verdicts


def seeds_markdown(results, modes, quick_qemu=True, notes=()):
    """seeds.md; with cells under a governor other than performance, one part
    per governor (the seeds' figures and verdicts compare pack modes under one
    governor)."""
    govs = governors.order({governors.of(r["cell"]) for r in results})
    if govs == [governors.DEFAULT]:
        return _seeds_markdown(results, modes, quick_qemu, notes)
    return "\n".join(_tag_verdicts(_seeds_markdown([r for r in results if governors.of(r["cell"]) == g], modes,
                                                   quick_qemu, notes, governor=g), g) for g in govs)


def _tag_verdicts(md, governor):
    """Verdict, check and MISSED lines that say their governor (tools/experiment seeds prints them)."""
    out = []
    for line in md.splitlines():
        for head in ("- verdict (simulator", "- check (simulator", "- check (QEMU"):
            if line.startswith(head + ")"):
                line = "%s, governor %s%s" % (head, governor, line[len(head):])
        if line.startswith("- MISSED: "):
            line = "- MISSED (governor %s): %s" % (governor, line[len("- MISSED: "):])
        out.append(line)
    return "\n".join(out)


def _seeds_markdown(results, modes, quick_qemu=True, notes=(), governor=None):
    groups = rp.Groups(results)
    within, beyond = rtapp_sets()
    out = ["# The seeds' tables and pack=energy, on the simulator and in QEMU%s" % (
        ", governor %s" % governor if governor else ""), ""]
    builds = sorted({"%s: %s sha256 %s" % (r["cell"]["engine"], (r.get("build") or {}).get("binary", "?"),
                                            (r.get("build") or {}).get("binary_sha256", "?")) for r in results})
    gits = sorted({(r.get("build") or {}).get("git", "?") for r in results})
    reps = sorted({r["cell"]["seed"] for r in results if r["cell"]["engine"] == "sim"})
    out.append("Tree %s. Builds: %s. Seeds: `001-cover-sched-packing-small-tasks.txt` (averages of 3 runs on "
               "real boards)." % (", ".join(gits), "; ".join(builds)))
    out.append("")
    out.append("- simulator: %s; %d repeat%s (seeds %s)." % (rp.ENGINE_TEXT["sim"], len(reps),
                                                           "s" if len(reps) != 1 else "",
                                                           ", ".join(str(r) for r in reps) or "-"))
    out.append("- QEMU: %s; one run per cell." % rp.ENGINE_TEXT["qemu"])
    out += ["- " + n for n in notes if n]
    out.append("")
    out += sysbench_section(groups, quick_qemu)
    out += cyclictest_section(groups, modes)
    sec3, v3 = within_section(groups, within)
    out += sec3
    sec4, v4 = beyond_section(groups, beyond)
    out += sec4
    missed = [v for v in v3 + v4 if v[3] is False]
    unknown = [v for v in v3 + v4 if v[3] is None]
    out += ["## Summary of the simulator's verdicts", ""]
    out.append("%d met, %d missed, %d missing." % (sum(1 for v in v3 + v4 if v[3]), len(missed), len(unknown)))
    out.append("")
    for what, meas, target, _, why in missed:
        out.append("- MISSED: %s: %s (target %s)%s" % (what, meas, target, (" — " + why) if why else ""))
    if groups.failed:
        out += ["", "Failed cells: " + "; ".join("%s %s %s %s r%s: %s" % (
            r["cell"]["engine"], r["cell"]["board"], r["cell"]["pack"], r["cell"]["workload"], r["cell"]["repeat"],
            r.get("error")) for r in groups.failed)]
    out.append("")
    return "\n".join(out)
