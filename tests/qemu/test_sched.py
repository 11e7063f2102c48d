"""Scheduler core behaviour in QEMU: fair shares across CPUs,
no lost wake-ups among many sleepers, and a stopped tick on idle CPUs."""
import re

from qemulib import boot, stress_verdict


def shares(output):
    return [float(m.group(1)) for m in re.finditer(r"^fair: task \d+ nice -?\d+ runtime_us=\d+ share=([\d.]+)%$",
                                                    output, re.M)]


def per_cpu(output, cpus):
    """Each CPU's busy_pct and each task's runtime as a fraction of the wall time:
    shares of the tasks' total hide four tasks stacked on one CPU (25% each still),
    these do not."""
    busy = {int(c): int(p) for c, p in re.findall(r"^fair: cpu(\d+) busy_pct=(\d+)$", output, re.M)}
    wall = re.search(r"^fair: tasks=\d+ cpus=\d+ wall_us=(\d+) ", output, re.M)
    assert sorted(busy) == list(range(cpus)) and wall, output[-2000:]
    runtimes = [int(x) for x in re.findall(r"^fair: task \d+ nice -?\d+ runtime_us=(\d+) ", output, re.M)]
    return busy, [rt / int(wall.group(1)) for rt in runtimes]


def test_four_cpu_bound_tasks_get_a_quarter_each():
    r = boot("vexpress-a9", run="schedtest fair 4 1000", timeout=120)
    assert r.status == 0, r
    s = shares(r.output)
    assert len(s) == 4, r
    for share in s:
        assert abs(share - 25.0) <= 2.0, "share %.2f%% not 25%%+-2: %r" % (share, r)
    # ... of four CPUs: each CPU busy, each task a whole CPU's worth of the wall time.
    busy, of_wall = per_cpu(r.output, 4)
    assert all(p >= 95 for p in busy.values()), busy
    assert all(0.9 <= f <= 1.02 for f in of_wall), of_wall


def test_eight_tasks_on_four_cpus_share_fairly():
    # 3 s: over 1 s the two tasks of one CPU were seen to split it 60/40 in some
    # builds (the trajectory of icount's round-robin vCPUs, start-up placement
    # and tick-grid preemption); over 3 s every build measured 12.1-12.9%.
    r = boot("vexpress-a9", run="schedtest fair 8 3000", timeout=300)
    assert r.status == 0, r
    s = shares(r.output)
    assert len(s) == 8, r
    for share in s:
        assert abs(share - 12.5) <= 1.5, "share %.2f%% not 12.5%%+-1.5: %r" % (share, r)
    busy, of_wall = per_cpu(r.output, 4)
    assert all(p >= 95 for p in busy.values()), busy
    assert all(0.44 <= f <= 0.52 for f in of_wall), of_wall


def test_hundred_sleepers_lose_no_wakeups():
    r = boot("qemu-tc2", run="schedtest wake 100 50 2000", timeout=180)
    assert r.status == 0, r
    m = re.search(r"^wake: tasks=100 iterations=(\d+) expected=(\d+) lost=(\d+)$", r.output, re.M)
    assert m, r
    assert m.group(1) == m.group(2) == "5000" and m.group(3) == "0", r


def test_idle_cpus_stop_their_tick():
    r = boot("vexpress-a9", run="schedtest idle 1000", timeout=60)
    assert r.status == 0, r
    ticks = {int(c): int(t) for c, t in re.findall(r"^idle: cpu(\d+) ticks=(\d+) over 1000 ms$", r.output, re.M)}
    assert sorted(ticks) == [0, 1, 2, 3], r
    for cpu, t in ticks.items():
        assert t <= 5, "cpu%d took %d ticks while idle for 1 s: %r" % (cpu, t, r)


def test_nice_levels_share_one_cpu_by_weight():
    # Weights 1024 (nice 0) and 335 (nice 5): 75.35% / 24.65%.
    r = boot("vexpress-a9", run="schedtest nice 1 2000 0 5", timeout=120)
    assert r.status == 0, r
    s = shares(r.output)
    assert len(s) == 2, r
    assert abs(s[0] - 75.35) <= 1.0 and abs(s[1] - 24.65) <= 1.0, r


def test_pinned_tasks_stay_and_follow_a_new_mask():
    r = boot("qemu-tc2", run="schedtest pin 3 400 1 3", timeout=120)
    assert r.status == 0, r
    assert re.search(r"^pin: tasks=3 first=cpu1 then=cpu3 misplaced=0$", r.output, re.M), r


def test_no_task_lost_after_mixed_load():
    r = boot("qemu-tc2", run="spawn 12 300 5; schedtest wake 40 30 1500; schedtest fair 7 300; "
                              "schedcheck", timeout=180)
    assert r.status == 0, r
    assert "lost=0" in r.output, r
    assert re.search(r"^schedcheck: ok, \d+ tasks, every one in exactly one place$", r.output, re.M), r


def test_debug_build_asserts_invariants_under_load():
    # The debug kernel checks from the tick, twice a second, that every task
    # is in exactly one place; a broken invariant would panic the run.
    r = boot("qemu-tc2", debug=True, timeout=180,
             run="spawn 10 800 3; schedtest wake 60 40 1000; schedtest fair 9 600; "
                 "schedtest pin 4 400 2 0; schedtest light 12 800 200 5000; schedcheck")
    assert r.status == 0, r
    assert "panic" not in r.output, r
    assert "lost=0" in r.output and "misplaced=0" in r.output, r
    assert "schedcheck: ok" in r.output, r


def test_cpus_that_never_arrive_get_no_tasks():
    # -smp 3 on a 5-CPU DT: cpu3 and cpu4 stay offline; nothing may be placed there.
    r = boot("qemu-tc2", smp=3, timeout=120,
             run="spawn 6 300; schedtest fair 4 300; schedtest light 8 400 100 5000; top 1; schedcheck; "
                 "stress 2 3 50")
    assert r.status == 0, r
    assert "3 of 5 CPUs online" in r.output, r
    # CPUs that never came online appear in no figure; the online ones hold every task.
    assert re.search(r"^fair: cpu2 busy_pct=\d+$", r.output, re.M), r
    assert not re.search(r"^(fair|light): cpu[34] ", r.output, re.M), r
    assert sum(int(n) for n in re.findall(r"^light: cpu[012] .* tasks=(\d+)$", r.output, re.M)) == 8, r
    assert "schedcheck: ok" in r.output, r
    stress_verdict(r.output, 3, 2, 50)
