"""The real-time class (kernel/sched/rt.c) and its interfaces (docs/interfaces.md):
chrt, ps, sysctl, cyclictest -p, FIFO/RR semantics and throttling, under QEMU
icount (one CPU's share is exact there), and cyclictest's latency under load
in the simulator (CPUs busy at once)."""
import os
import re
import sys

from qemulib import boot, rtapp_script, stress_verdict

sys.path.insert(0, os.path.dirname(__file__))
from test_schedsim import result, sim  # noqa: E402


def shares(out):
    """schedtest's per-task runtimes (us), in task order, and the wall time of each run."""
    runs, cur = [], []
    for line in out.splitlines():
        m = re.match(r"fair: task \d+ nice -?\d+ runtime_us=(\d+)", line)
        if m:
            cur.append(int(m.group(1)))
        m = re.match(r"fair: tasks=\d+ cpus=\d+ wall_us=(\d+)", line)
        if m:
            runs.append((cur, int(m.group(1))))
            cur = []
    return runs


def test_chrt_ps_and_sysctl_as_util_linux_and_linux_print_them():
    r = boot("qemu-tc2", run="chrt -m; chrt -f 50 ps; chrt -p 1; chrt -r 20 chrt -p 1; sysctl; "
             "sysctl kernel.sched_rr_timeslice_ms=0 kernel.sched_rt_runtime_us=-1", timeout=60)
    assert r.status == 0, r
    out = r.output
    assert "SCHED_FIFO min/max priority\t: 1/99" in out, out
    # The console runs the command: ps shows it FF at 50 while it does, back to TS after.
    assert re.search(r"^\s+1 console\s+running\s+\d+ FF\s+50 ", out, re.M), out
    assert "pid 1's current scheduling policy: SCHED_OTHER\npid 1's current scheduling priority: 0" in out, out
    assert "pid 1's current scheduling policy: SCHED_RR\npid 1's current scheduling priority: 20" in out, out
    assert "kernel.sched_rt_period_us = 1000000" in out and "kernel.sched_rt_runtime_us = 950000" in out, out
    assert "kernel.sched_rr_timeslice_ms = 100" in out and "kernel.sched_rt_runtime_us = -1" in out, out


def test_bad_input_is_one_error_line_and_nothing_changes():
    bad = ["chrt -f 0 ps", "chrt -f 100 ps", "chrt -o 5 ps", "chrt -d 1 ps", "chrt -x 1 ps", "chrt -p 999999",
           "chrt -p abc", "chrt -f -p 200 1", "chrt -f -r 5 ps", "sysctl kernel.bogus=1",
           "sysctl kernel.sched_rt_runtime_us=2000000", "sysctl kernel.sched_rt_period_us=x",
           "cyclictest -p 120 -D 1", "cyclictest --policy=deadline -p 5 -D 1", "cyclictest --policy=rr -D 1",
           "cyclictest --policy=other -p 5 -D 1"]
    r = boot("qemu-tc2", run="; ".join(bad + ["chrt -p 1", "sysctl"]), timeout=60)
    assert r.status == 0, r
    for cmd in bad:
        chunk = r.output.split("sched> " + cmd + "\n", 1)[1].split("sched> ", 1)[0]
        lines = [ln for ln in chunk.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (cmd, chunk)
    assert "pid 1's current scheduling policy: SCHED_OTHER" in r.output, r.output
    assert "kernel.sched_rt_runtime_us = 950000" in r.output, r.output


def test_rr_spinners_alternate_at_the_slice_fifo_ones_never_do():
    # Two equal-priority spinners on cpu1 for 1 s, throttling off: RR shares the CPU
    # in 100 ms slices (10 of them), FIFO gives it all to one until it ends.
    r = boot("qemu-tc2", run="sysctl kernel.sched_rt_runtime_us=-1; chrt -r 10 schedtest nice 1 1000 0 0; "
             "chrt -f 10 schedtest nice 1 1000 0 0; schedtest nice 1 1000 0 0", timeout=120)
    assert r.status == 0, r
    (rr, _), (fifo, _), (fair, _) = shares(r.output)
    assert all(abs(x - 500000) < 60000 for x in rr), rr
    assert min(fifo) < 10000 and max(fifo) > 980000, fifo
    assert all(abs(x - 500000) < 60000 for x in fair), fair


def test_throttling_leaves_fair_tasks_a_share_and_minus_one_takes_it_away():
    # A FIFO spinner on cpu1 beside a fair one: RT may use 950 ms of each 1 s period,
    # the fair task the rest; with kernel.sched_rt_runtime_us=-1 it gets nothing.
    script = ("taskset 2 chrt -f 10 spawn 1 4000; schedtest nice 1 3000 0; sleep 1200; "
              "sysctl kernel.sched_rt_runtime_us=-1; taskset 2 chrt -f 10 spawn 1 2500; schedtest nice 1 2000 0")
    r = boot("qemu-tc2", run=script, timeout=180)
    assert r.status == 0, r
    (throttled, wall), (unthrottled, _) = shares(r.output)
    frac = throttled[0] / wall
    assert 0.02 <= frac <= 0.08, (throttled, wall, r.output[-1500:])
    assert unthrottled[0] == 0, unthrottled


def test_rtstat_shows_each_cpus_rt_queue_and_throttling():
    # schedsim: a FIFO spinner on cpu1 with 100 ms of RT runtime per 1 s period. At 1.6 s
    # it has throttled in both periods begun, is throttled now, after ~100 ms of RT time.
    out = sim("qemu-tc2", "sysctl kernel.sched_rt_runtime_us=100000; taskset 2 chrt -f 10 spawn 1 2500; "
                          "sleep 1600; rtstat; rtstat x").stdout
    rows = {int(m.group(1)): dict(kv.split("=") for kv in m.group(2).split())
            for m in re.finditer(r"^rtstat: cpu(\d+) (.*)$", out, re.M)}
    assert sorted(rows) == [0, 1, 2, 3, 4], out
    one = rows.pop(1)
    assert (one["rt_nr_running"], one["highest"], one["waiting"], one["throttled"], one["nr_throttled"]) == \
        ("1", "10", "0", "1", "2"), one
    assert 100000 <= int(one["rt_time_us"]) <= 105000, one
    assert all(set(r.values()) == {"0"} for r in rows.values()), rows
    assert "error: rtstat takes no arguments" in out, out


def test_cyclictest_p_gives_threads_decreasing_fifo_priorities():
    r = boot("qemu-tc2", run="cyclictest -p 80 -t 4 -q -D 1; cyclictest --policy=rr -p 5 -t 2 -q -D 1", timeout=60)
    assert r.status == 0, r
    assert re.findall(r"^T:\s*\d+ \(\s*\d+\) P:\s*(\d+)", r.output, re.M) == ["80", "79", "78", "77", "5", "4"], \
        r.output
    assert re.search(r"threads=4 .* policy=fifo prio=80 ", r.output) and re.search(r"threads=2 .* policy=rr prio=5 ", r.output), \
        r.output


def test_fifo_cyclictest_keeps_its_latency_beside_fair_spinners_in_the_simulator():
    # schedsim runs every CPU at once: 20 fair spinners at nice -20 over qemu-tc2's
    # five CPUs. cyclictest -p 80 preempts them at once (max within 2x of the idle
    # machine's); without -p its nice-0 threads wait behind their weight (ms).
    quiet = result(sim("qemu-tc2", "cyclictest -p 80 -t 4 -q -D 2").stdout, "cyclictest")
    rt = result(sim("qemu-tc2", "spawn 20 4000 -20; cyclictest -p 80 -t 4 -q -D 2").stdout, "cyclictest")
    fair = result(sim("qemu-tc2", "spawn 20 4000 -20; cyclictest -t 4 -q -D 2").stdout, "cyclictest")
    q, p, f = int(quiet["lat_max_us"]), int(rt["lat_max_us"]), int(fair["lat_max_us"])
    assert rt["policy"] == "fifo" and fair["policy"] == "other", (rt, fair)
    assert p <= max(2 * q, q + 2), (q, p, f)
    assert f >= 10 * max(p, 1), (q, p, f)


def test_rt_stress_loses_nothing_and_keeps_the_invariant():
    # Debug kernel: workers flip between SCHED_OTHER, FIFO and RR at random
    # priorities (their own and each other's, queued, running or asleep), and the
    # RT invariant is checked on every tick.
    r = boot("qemu-tc2", run="stress 4 31 120 rt", debug=True, timeout=300)
    assert r.status == 0, r
    assert stress_verdict(r.output, 31, 4, 120)["policy_changes"] > 0, r.output[-3000:]


# The classic three-task inversion, as an rt-app file (tools/rtapp), all on CPU 1:
# low (FIFO 10) takes the mutex and works 20 ms; high (FIFO 90) wakes at 2 ms and
# waits for it; mid (FIFO 50) wakes at 5 ms and works 100 ms. With inheritance low
# runs at 90 until it unlocks: high's loop ends at ~20 ms, bounded by low's critical
# section. Without it (rt-app's default, pi_enabled false) mid holds off low, and
# with it high, for its 100 ms.
INVERSION = """{"global": {"duration": 0, "pi_enabled": %s},
  "tasks": {
    "low":  {"policy": "SCHED_FIFO", "priority": 10, "cpus": [1], "loop": 1, "lock": "m", "run": 20000, "unlock": "m"},
    "high": {"policy": "SCHED_FIFO", "priority": 90, "cpus": [1], "loop": 1, "sleep": 2000, "lock": "m", "unlock": "m"},
    "mid":  {"policy": "SCHED_FIFO", "priority": 50, "cpus": [1], "loop": 1, "sleep": 5000, "run": 100000}}}"""


def inversion_periods(out):
    """Each task's loop time (us) in the run's `rtapp: task=` lines."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^rtapp: task=(\w+) .* act_period_us=(\d+) ", out, re.M)}


def test_priority_inheritance_bounds_the_three_task_inversion_on_both_engines():
    for pi in ("true", "false"):
        cmds = rtapp_script("-", INVERSION % pi)
        assert cmds.endswith("rtapp run 0 pi=1" if pi == "true" else "rtapp run 0"), cmds
        q = boot("qemu-tc2", run=cmds, timeout=120)
        assert q.status == 0 and "error" not in q.output, q
        s = sim("qemu-tc2", cmds)
        assert s.returncode == 0 and "error" not in s.stdout, s.stderr
        for engine, out in (("QEMU icount", q.output), ("schedsim", s.stdout)):
            t = inversion_periods(out)
            assert set(t) == {"low", "high", "mid"}, (engine, out[-1500:])
            if pi == "true":
                # 20 ms of low's work from the start, then high's lock and unlock at once.
                assert 19000 <= t["high"] <= 23000, (engine, t)
            else:
                # ... and mid's 100 ms in between.
                assert t["high"] >= 115000, (engine, t)
