"""Topology, pack buddies and small-task packing in QEMU."""
import os
import re

from qemulib import ROOT, boot

LIGHT = re.compile(r"^light: cpu(\d) cluster=(\d) busy_pct=([\d.]+) tasks=(\d+)$", re.M)


def modes():
    """The policy table's names, from the kernel's own objects (tools/lib/packmodes.py)."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
    import packmodes
    return list(packmodes.names(ROOT))


def buddies(output):
    return [int(m) for m in re.findall(r"^CPU\d+ packing on CPU(-?\d+)$", output, re.M)]


def light_run(mode):
    r = boot("qemu-tc2", run="schedtest light 16 2000 100 10000; pack", append="pack=" + mode, timeout=180)
    assert r.status == 0, r
    rows = {int(c): (int(k), float(b), int(t)) for c, k, b, t in LIGHT.findall(r.output)}
    assert sorted(rows) == [0, 1, 2, 3, 4], r
    assert re.search(r"^light: tasks=16 pack=%s window_us=\d+$" % mode, r.output, re.M), r
    return r, rows


def test_boot_log_buddies_per_board_and_mode():
    r = boot("qemu-tc2", run="")
    assert buddies(r.output) == [2, 2, 2, 3, 4], r
    r = boot("vexpress-a9", run="")
    assert buddies(r.output) == [-1, -1, -1, -1], r
    r = boot("vexpress-a9", run="", append="pack=all")
    assert buddies(r.output) == [0, 0, 0, 0], r
    r = boot("vexpress-a15", run="", append="pack=off")
    assert buddies(r.output) == [-1, -1, -1, -1], r


def test_light_tasks_pack_on_the_little_cluster():
    r, rows = light_run("rails")
    a15 = [rows[c] for c in (0, 1)]
    a7 = [rows[c] for c in (2, 3, 4)]
    assert all(k == 0 for k, _, _ in a15) and all(k == 1 for k, _, _ in a7), r
    assert sum(t for _, _, t in a7) >= 14, r
    for _, busy, _ in a15:
        assert busy < 5.0, "an A15 CPU was busy %.2f%% under pack=rails: %r" % (busy, r)
    m = re.search(r"^pack: cpu2 buddy=2 packed=(\d+) ", r.output, re.M)
    assert m and int(m.group(1)) > 100, r


def test_light_tasks_spread_without_packing():
    r, rows = light_run("off")
    assert all(t >= 1 for _, _, t in rows.values()), r
    assert re.search(r"^pack: cpu0 buddy=-1 packed=0 no_buddy=[1-9]\d* ", r.output, re.M), r


def test_cpu_bound_tasks_are_never_packed():
    for mode in ("rails", "off", "all"):
        r = boot("qemu-tc2", run="schedtest fair 8 1000", append="pack=" + mode, timeout=180)
        assert r.status == 0, r
        busy = [int(b) for b in re.findall(r"^fair: cpu\d busy_pct=(\d+)$", r.output, re.M)]
        assert len(busy) == 5 and min(busy) >= 90, "pack=%s: %r" % (mode, r)


def test_pack_mode_switch_at_run_time_and_topo():
    r = boot("qemu-tc2", run="spawn 4 300; pack all; topo; pack rails; pack bogus; schedcheck", timeout=120)
    assert r.status == 0, r
    out = r.output
    assert re.search(r"^pack: mode all$", out, re.M) and re.search(r"^pack: mode rails$", out, re.M), r
    assert "error: unknown pack mode 'bogus' (%s)" % ", ".join(modes()) in out, r
    assert re.search(r"^topo: 5 CPUs, 2 clusters, pack=all$", out, re.M), r
    assert re.search(r"^cpu0 mpidr=0x0 cluster=0 capacity=1024 rail=0 arm,cortex-a15: "
                     r"MC\[0-1: \{0\}/1024 \{1\}/1024\] DIE\[0-4: \{0-1\}/2048 \{2-4\}/1548\]$", out, re.M), r
    # After `pack all`: 2,0,2,2,2 (topo says so on one line); after `pack rails`: 2,2,2,3,4.
    # Each switch moved the buddies, so each lists them once: boot, all, rails.
    b = buddies(out)
    assert b == [2, 2, 2, 3, 4, 2, 0, 2, 2, 2, 2, 2, 2, 3, 4], b
    assert re.search(r"^topo: buddies 2,0,2,2,2$", out, re.M), r
    assert "schedcheck: ok" in out, r
    # A switch that leaves the buddies as they are does not repeat them.
    r = boot("vexpress-a9", run="pack off; pack rails; pack all; pack all", timeout=60)
    assert r.status == 0 and buddies(r.output) == [-1] * 4 + [0] * 4, r


def test_energy_mode_decides_by_the_model():
    # pack=energy: every wake-up is placed by the energy model. On the
    # seeds' small-task workload and on 16 light tasks it must use no more energy
    # than the best other mode (within 2%), with cyclictest latency within 2x pack=off's.
    cyc = ("cyclictest -t 8 -q -e 1000000 -D 3 &; cyclictest -t 8 -q -e 1000000 -D 3 &; sleep 500; "
           "energy mark; sleep 2000; energy; wait; pack")
    light = "energy mark; schedtest light 16 1500 100 10000; energy"
    e, lat = {}, {}
    for mode in ("off", "rails", "all", "energy"):
        for name, script in (("cyc", cyc), ("light", light)):
            r = boot("qemu-tc2", append="pack=" + mode, run=script, timeout=180)
            assert r.status == 0, r
            m = re.search(r"^energy: energy=(\d+) ", r.output, re.M)
            assert m, r
            e[mode, name] = int(m.group(1))
            if name == "cyc":
                lat[mode] = [int(x) for x in re.findall(r"lat_avg_us=(\d+)", r.output)]
                if mode == "energy":
                    assert re.search(r"^pack: mode energy$", r.output, re.M), r
                    assert re.search(r"^pack: cpu2 buddy=2 .* energy_prev=[1-9]\d* energy_idle=\d+ "
                                     r"energy_none=\d+ prev_unfit=\d+ overutilized=\d+ misfit_moved=\d+ "
                                     r"buddy_rule=0$", r.output, re.M), r
    for name in ("cyc", "light"):
        best = min(e[m, name] for m in ("off", "rails", "all"))
        assert e["energy", name] <= 1.02 * best, (name, e)
    # Latency: at most twice pack=off's. Packing puts some of an instance's threads
    # behind one another on an A7, and whether it does in this short run turns on the
    # run's phase: the same scheduler gave energy [2, 2] or [2, 4] us (off [2, 2]) with
    # only unexecuted code (the stress command) changed. The simulator, which runs the
    # whole window, gives energy ~2.5x off's average (issue 36's open gap, target 1.10x).
    assert max(lat["energy"]) <= 2 * max(lat["off"]), lat


def test_energy_mode_on_the_rtapp_workloads():
    # The energy policy's workloads (tests/workloads/*.json: medium tasks overloading the
    # buddy, bursts, latency + background, ramp): pack=energy uses no more energy
    # than the best of off, rails and all (within 3%) over each rt-app run, and
    # its tasks keep their periods (no more overruns than 5% of their loops).
    from qemulib import rtapp_script
    # Only those within one CPU (tests/workloads/README.md): under icount the guest has one
    # CPU's throughput, so the files beyond it overrun in every mode; their verdicts are the
    # simulator's (tools/experiment seeds).
    files = [os.path.join(ROOT, "tests", "workloads", f) for f in
             ("bursts.json", "medium.json", "mixed-latency.json", "ramp.json")]
    for path in files:
        script = rtapp_script(path)
        e = {}
        for mode in ("off", "rails", "all", "energy"):
            r = boot("qemu-tc2", append="pack=" + mode, run=script, timeout=180)
            assert r.status == 0, r
            m = re.search(r"^RESULT bench=rtapp board=qemu-tc2 pack=%s .*loops=(\d+) overruns=(\d+) .*"
                          r"energy=(\d+) " % mode, r.output, re.M)
            assert m, (path, mode, r)
            loops, overruns, e[mode] = (int(x) for x in m.groups())
            if mode == "energy":
                assert overruns <= loops // 20, (path, loops, overruns)
        best = min(e[m] for m in ("off", "rails", "all"))
        if os.path.basename(path) == "ramp.json":
            # Its 50% and 70% phases do not fit an A7 (capacity fitness, issue 36):
            # pack=energy runs them on an A15, which QEMU, whose CPUs all run at one
            # speed, does not need; the others keep them on the A7 (on a real TC2,
            # and in the simulator, missing 40 deadlines). The energy comparison is
            # the simulator's (tools/experiment seeds); here, only the deadlines.
            continue
        # 3%: under icount each mode's figure is exact but chaotic in the timeline. On
        # mixed-latency.json rails reads 9.27 M, or 30.7 M when one more console command
        # follows the run (a latency task lands on an A15 once), while pack=energy reads
        # 9.47 M both ways; the hot-path cuts of issue 34 moved rails' from 9.75 M to 9.27 M.
        assert e["energy"] <= 1.03 * best, (os.path.basename(path), e)
