"""The simulator's fast checks (no QEMU; `make mutate` runs this file with
the host tests): where parallel time matters and QEMU's icount cannot show
it. Each check can fail on a broken kernel (tests/mutants.txt lists the
mutants each one kills):
- stress on the simulator: its one verdict line (tokens, lost wake-ups,
  sync invariants), with and without real-time workers;
- the seeds' tables: pack=rails keeps the A15 cluster off, and sysbench
  time is the same in every mode (under QEMU's icount throughput is the
  instruction count's whatever the placement: that half of test_bench.py
  could not fail, so it lives here);
- capacity-aware balancing on TC2 (2 A15 + 3 A7): CPU-bound work ends
  where capacity says, not where CPU counts say (placement of new tasks:
  tests/host/test_pack_select.c);
- the real-time class: RR shares its priority, FIFO does not; throttling
  leaves the fair class its 5%; RT tasks spread over CPUs running fair ones.
"""
import os
import re
import subprocess
import tempfile

import simlib
from qemulib import rtapp_script, stress_verdict
from simlib import result, results


def sim(*args, **kw):
    """simlib.sim with 30 simulated seconds at most: every script here needs
    under 25, and a kernel that never lets one end fails it in seconds."""
    kw.setdefault("max_time", 30)
    return simlib.sim(*args, **kw)


def test_stress_verdict_on_the_simulator():
    for board, script, seed in (("vexpress-a9", "stress 2 5 40", 5), ("qemu-tc2", "stress 2 7 40 rt", 7)):
        p = sim(board, script, timeout=300)
        assert p.returncode == 0, p.stderr
        v = stress_verdict(p.stdout, seed, 2, 40)
        assert v["tokens_sent"] > 10000 and v["invariant_checks"] >= 10, v
        sync = re.search(r"^stress: sync mutex_acquisitions=(\d+) .* cond_produced=(\d+) cond_consumed=(\d+) "
                         r"barrier_rounds=(\d+) sem_posted=(\d+) sem_taken=(\d+) violations=0$", p.stdout, re.M)
        assert sync and all(int(x) > 100 for x in sync.groups()), p.stdout[-2000:]
        if script.endswith("rt"):
            assert v["policy_changes"] > 0, v



SEED_CYCLIC = "cyclictest -t 8 -q -e 1000000 -D 20"
SEED_WINDOW = "%s &; %s &; sleep 2000; energy mark; sleep 16000; energy; wait" % (SEED_CYCLIC, SEED_CYCLIC)


def window(out):
    """The `energy` line of the 16 s window (not the benches' RESULT lines)."""
    m = re.search(r"^energy: (energy=.*)$", out, re.M)
    assert m, out[-2000:]
    return dict((k, int(v)) for k, v in (kv.split("=", 1) for kv in m.group(1).split()))


def test_the_seeds_headline_packing_keeps_the_a15_cluster_off():
    # The seeds' TC2 run (two cyclictest -t 8, 16 s window) on qemu-tc2's DT,
    # where CPUs are busy at once for real (docs/schedsim.md). A wake-up that
    # took an idle CPU of another cluster (docs/placement.md forbids it) sends
    # light tasks whose A7 buddy is busy to an idle A15, and the A15 cluster
    # stops staying off under rails and all.
    w, lat = {}, {}
    for mode in ("off", "rails", "all", "energy"):
        p = sim("qemu-tc2", SEED_WINDOW, "--pack=" + mode)
        assert p.returncode == 0, p.stderr
        w[mode] = window(p.stdout)
        lat[mode] = max(int(r["lat_max_us"]) for r in
                        (dict(kv.split("=", 1) for kv in line.split()[1:])
                         for line in p.stdout.splitlines() if line.startswith("RESULT bench=cyclictest")))
    span = 16000000
    for mode in ("rails", "all", "energy"):
        assert w[mode]["cluster0_off_us"] >= 0.99 * span, (mode, w[mode])
        assert w[mode]["cpu0_busy_us"] + w[mode]["cpu1_busy_us"] <= 100, (mode, w[mode])
    # off spreads as the seeds' default did: both clusters work, the A7s
    # 25..45% of the A15s' energy (the seeds: 40).
    off = w["off"]
    assert off["cluster0_off_us"] == 0 and all(off["cpu%d_busy_us" % c] > 10000 for c in range(5)), off
    assert 0.25 <= off["energy_c1"] / off["energy_c0"] <= 0.45, off
    # The energy: energy-aware placement is no worse than rails; and what the
    # model allows (docs/schedsim.md: a powered-off A15 cluster still costs
    # 25 units, and the A7s' cost is their busy time's, so ~0.48 is the floor
    # with off spreading; the seeds' board measured 0.33).
    ratio = dict((m, w[m]["energy"] / off["energy"]) for m in w)
    assert ratio["energy"] <= ratio["rails"] <= 0.50, ratio
    assert ratio["all"] <= 0.55, ratio
    # Latency: the A7s run the wake-up path at half the A15s' speed, 16
    # threads on 3 CPUs instead of 5: within 3x of off's worst (measured 2.8x).
    assert lat["rails"] <= 3 * lat["off"], lat


def seeds_sysbench_us(*opts):
    """The seeds' sysbench table (001-cover: N = 8, 12, 16 threads; R = 200, 2000 requests) in one
    qemu-tc2 script: the six times in us, in the table's order."""
    script = "; ".join("sysbench --num-threads=%d --max-requests=%d" % (n, r) for n in (8, 12, 16) for r in (200, 2000))
    p = sim("qemu-tc2", script, *opts)
    assert p.returncode == 0, p.stderr
    times = [int(r["time_us"]) for r in results(p.stdout, "sysbench")]
    assert len(times) == 6, p.stdout[-1500:]
    return times


def test_the_seeds_sysbench_table_is_the_same_in_every_mode():
    times = {mode: seeds_sysbench_us("--pack=" + mode) for mode in ("off", "rails", "all", "energy")}
    for mode in times:
        assert all(abs(a - b) <= 0.01 * b for a, b in zip(times[mode], times["off"])), times


def test_the_seeds_sysbench_table_under_schedutil_within_3_percent_of_performance():
    # The seeds' six rows, one after another from boot (the clusters at their boot OPPs). A new task's
    # first share (half its CPU's spare capacity) joins the CPU's util at once and that CPU looks then, so
    # the CPU that decides for the domain reads it, not a look from before the threads came (which took
    # the A15s to 1 000 MHz for the 10 ms rate limit: the first row +6%). From an idle machine the first
    # row pays the rate limit after the console's own wake-up drops the OPP, as in Linux 6.1
    # (docs/cpufreq.md).
    times = {gov: seeds_sysbench_us("--governor=" + gov) for gov in ("performance", "schedutil")}
    assert all(s <= 1.03 * f for f, s in zip(times["performance"], times["schedutil"])), times


def fair_runtimes(out):
    return [int(x) for x in re.findall(r"^fair: task \d+ nice -?\d+ runtime_us=(\d+) ", out, re.M)]


def test_capacity_aware_balancing_fills_the_a15s_first_on_tc2():
    # Eight CPU-bound tasks spawned on TC2 (A15 1024, A7 516), 1.5 s on. By
    # load per unit of capacity each A7 holds one task and the A15s the other
    # five, 3 and 2 (moving one more to an A7 gives it 2/516 = 0.0039 against
    # the A15's 3/1024 = 0.0029, worse). A balancer counting tasks alone moves
    # a second task to an A7 (2,2,2,1,1: 1024 : 3072 raw becomes 2048 : 2048).
    p = sim("tc2", "spawn 8 2000; sleep 1500; load", "--pack=off")
    assert p.returncode == 0, p.stderr
    nr = {int(c): int(n) for c, n in re.findall(r"^load: cpu(\d+) nr_running=(\d+) ", p.stdout, re.M)}
    spawned = [int(c) for c in re.findall(r"^load: task \d+ spawned +cpu=(\d+) ", p.stdout, re.M)]
    assert sorted(nr) == [0, 1, 2, 3, 4] and len(spawned) == 8, p.stdout[-2000:]
    per_cpu = [spawned.count(c) for c in range(5)]
    assert per_cpu[2:] == [1, 1, 1] and sorted(per_cpu[:2]) == [2, 3], per_cpu


def test_rr_shares_its_priority_and_fifo_does_not():
    p = sim("vexpress-a9", "taskset 1 chrt -r 10 schedtest fair 2 1000; taskset 1 chrt -f 10 schedtest fair 2 1000")
    assert p.returncode == 0, p.stderr
    rt = fair_runtimes(p.stdout)
    assert len(rt) == 4, p.stdout[-2000:]
    rr, fifo = rt[:2], rt[2:]
    # RR: 100 ms slices over 1 s, about half each (throttling takes 5% of the CPU).
    assert all(400000 <= r <= 550000 for r in rr), rr
    # FIFO: the first runs to its end, the second never before it.
    assert fifo[0] > 900000 and fifo[1] < 50000, fifo


def test_rt_throttling_leaves_fair_tasks_their_five_percent():
    # An RT hog and a fair task on cpu0: the fair task gets 50 ms per 1 s period.
    p = sim("vexpress-a9", "taskset 1 chrt -f 50 spawn 1 3000; taskset 1 schedtest fair 1 2000")
    assert p.returncode == 0, p.stderr
    rt = fair_runtimes(p.stdout)
    assert len(rt) == 1 and 80000 <= rt[0] <= 120000, rt


def test_rt_throttling_period_starts_with_the_rt_work_whenever_it_comes():
    # An RT hog and a fair task on cpu1 (the console on cpu0), started 0, 0.3 and
    # 0.7 s after boot: the fair task's 50 ms of the hog's first second do not
    # depend on when it starts (a period anchored at boot's whole seconds gives
    # it nothing at 0.3 and 0.7: 0.7 + 0.3 s of RT each side of a boundary).
    for off in (0, 300, 700):
        p = sim("vexpress-a9", "sleep %d; taskset 2 chrt -f 50 spawn 1 1500; taskset 2 schedtest fair 1 1000" % off)
        assert p.returncode == 0, p.stderr
        rt = fair_runtimes(p.stdout)
        assert len(rt) == 1 and 45000 <= rt[0] <= 51000, (off, rt)


def test_rt_tasks_spread_over_cpus_running_fair_tasks():
    # Four fair hogs on the four CPUs: two RT threads each take a CPU from a
    # fair task (the lowest priority, cpupri level 0), none waits behind the
    # other: the time of two threads on an idle machine.
    idle = int(result(sim("vexpress-a9", "sysbench --num-threads=2 --max-requests=40").stdout, "sysbench")["time_us"])
    p = sim("vexpress-a9", "spawn 4 3000; chrt -f 50 sysbench --num-threads=2 --max-requests=40")
    assert p.returncode == 0, p.stderr
    busy = results(p.stdout, "sysbench")
    assert len(busy) == 1 and abs(int(busy[0]["time_us"]) - idle) <= 0.05 * idle, (idle, busy)


def test_load_figures_per_cpu_and_task_by_value():
    # After 2 s: cpu1 runs one hog (runnable = usage = 100%), cpu2 two hogs
    # (the run queue 100%, each task runnable 100% but running about half),
    # cpu3 a 25% duty task of 10 ms period (PELT's usage oscillates around
    # 25% by less than 5 points), cpu0 only the console (0%). load = runnable
    # x 1024; light = usage < 25%.
    p = sim("vexpress-a9", "taskset 2 spawn 1 3000; taskset 4 spawn 2 3000; "
            "taskset 8 schedtest duty 2500 10000 25 &; sleep 2000; load; wait")
    assert p.returncode == 0, p.stderr
    cpu = {int(m[0]): (int(m[1]), float(m[2]), float(m[3]), int(m[4]), int(m[5])) for m in re.findall(
        r"^load: cpu(\d+) nr_running=(\d+) runnable=([\d.]+)% usage=([\d.]+)% load=(\d+) light=(\d)$",
        p.stdout, re.M)}
    tasks = re.findall(r"^load: task \d+ (\w+) +cpu=(\d+) runnable=([\d.]+)% usage=([\d.]+)% load=(\d+) light=(\d)$",
                       p.stdout, re.M)
    assert sorted(cpu) == [0, 1, 2, 3], p.stdout[-2000:]
    assert cpu[0][1:3] == (0.0, 0.0) and cpu[1][1:3] == (100.0, 100.0) and cpu[2][1:3] == (100.0, 100.0), cpu
    assert 20.0 <= cpu[3][2] <= 30.0 and cpu[3][1] == cpu[3][2], cpu
    for n, runnable, usage, load, light in cpu.values():
        assert abs(load - runnable * 1024 / 100) <= 1 and light == (usage < 25.0), cpu
    on2 = [(float(r), float(u)) for name, c, r, u, _, _ in tasks if name == "spawned" and c == "2"]
    assert len(on2) == 2 and all(r == 100.0 and 40.0 <= u <= 60.0 for r, u in on2), on2
    assert abs(sum(u for _, u in on2) - 100.0) <= 0.5, on2
    duty = [(float(r), float(u)) for name, c, r, u, _, _ in tasks if name == "duty"]
    assert len(duty) == 1 and 20.0 <= duty[0][1] <= 30.0 and duty[0][0] == duty[0][1], duty


def test_an_rt_wake_up_preempts_the_fair_class_at_once():
    # Four nice -20 hogs on the four CPUs: a SCHED_FIFO cyclictest thread
    # takes a CPU the moment it wakes (a higher class always preempts); a
    # fair one waits for the hogs' slices (5.6 ms measured).
    lat = {}
    for name, prio in (("rt", "-p 80 "), ("fair", "")):
        p = sim("vexpress-a9", "spawn 4 3000 -20; cyclictest %s-t 1 -i 1000 -q -D 2" % prio)
        assert p.returncode == 0, p.stderr
        lat[name] = int(result(p.stdout, "cyclictest")["lat_max_us"])
    assert lat["rt"] <= 20 and lat["fair"] >= 1000, lat


def test_fifo_waits_behind_its_equal_and_preempts_a_lower():
    # On cpu1 a SCHED_FIFO 50 hog for 1.5 s. A cyclictest thread at 50 waits
    # until the hog ends (FIFO: an equal does not preempt); at 51 it preempts
    # at once, and only RT throttling (50 ms a second for the whole class)
    # delays it.
    lat = {}
    for prio in (50, 51):
        p = sim("vexpress-a9", "taskset 2 chrt -f 50 spawn 1 1500; taskset 2 cyclictest -p %d -t 1 -i 1000 -q -D 1"
                % prio)
        assert p.returncode == 0, p.stderr
        lat[prio] = int(result(p.stdout, "cyclictest")["lat_max_us"])
    assert lat[50] >= 1400000 and lat[51] <= 50000, lat


RAMP = "rtapp clear; rtapp add ramp %s; rtapp run 1800" % " ".join(
    "x20,r%d000,t10000:u0" % k for k in range(1, 10))   # 10% .. 90% of an A15, 200 ms each


def test_energy_moves_a_ramp_that_outgrows_its_a7_to_an_a15():
    # pack=energy on TC2 (A7 capacity 516 of 1024): the ramp starts on an A7
    # (its buddy) and must be on an A15 within 3 balance periods (the DIE
    # level's busy interval, 5 ms x 8) of crossing the A7's capacity (the
    # 60% step, 1 s in): a periodic task leaves at a wake-up once it no
    # longer fits the A7 (prev_unfit; docs/placement.md). Without capacity
    # fitness it stays on the A7 (as pack=off does) and overruns from the
    # 60% step on.
    p, events = sim_trace("tc2", RAMP, "--pack=energy")
    start = next(float(ln.split()[2].rstrip(":")) for ln in events if "sched_wakeup_new: comm=ramp-0" in ln)
    first_cpu = next(int(ln.split("target_cpu=")[1]) for ln in events if "sched_wakeup_new: comm=ramp-0" in ln)
    assert first_cpu >= 2, "the ramp started on an A15 (cpu%d): nothing to show" % first_cpu
    moves = [(float(ln.split()[2].rstrip(":")), int(ln.split("dest_cpu=")[1]))
             for ln in events if "sched_migrate_task: comm=ramp-0" in ln]
    to_a15 = [t for t, cpu in moves if cpu < 2]
    assert to_a15 and to_a15[0] <= start + 1.0 + 3 * 0.040, (start, moves)
    why = [ln for ln in events if "sched_pack: comm=ramp-0" in ln and "target_cpu=%d " % to_a15_cpu(moves) in ln
           and ("reason=prev_unfit" in ln or "reason=misfit_moved" in ln)]
    assert why, "no fitness decision (prev_unfit, misfit_moved) in the trace"
    assert int(result(p.stdout, "rtapp")["overruns"]) <= 2, result(p.stdout, "rtapp")


def sim_trace(board, script, *args):
    """The simulator's run of @script and its trace dump's lines (--trace)."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.txt")
        p = sim(board, script, *args, "--trace=%s" % trace)
        assert p.returncode == 0, p.stderr
        with open(trace) as f:
            return p, f.read().splitlines()


def to_a15_cpu(moves):
    return next(cpu for _, cpu in moves if cpu < 2)


def test_energy_pushes_a_running_task_that_outgrows_its_a7():
    # A task light for 300 ms (10% of an A15: packed on an A7) then busy
    # for 600 ms without sleeping: no wake-up to move it, only the misfit
    # push (its CPU's balance tick sees it above 80% of the A7, PELT's
    # ~64 ms from 20%, and pushes it at its switch) takes it to an A15.
    # Without the push, or with the switch not honouring it, it runs on the
    # A7 at half speed to the end.
    script = "rtapp clear; rtapp add grow x30,r1000,t10000:u0 x1,r600000; rtapp run 1200"
    p, events = sim_trace("tc2", script, "--pack=energy")
    start = next(float(ln.split()[2].rstrip(":")) for ln in events if "sched_wakeup_new: comm=grow-0" in ln)
    assert next(int(ln.split("target_cpu=")[1]) for ln in events if "sched_wakeup_new: comm=grow-0" in ln) >= 2
    pushes = [(float(ln.split()[2].rstrip(":")), int(ln.split("target_cpu=")[1].split()[0]))
              for ln in events if "sched_pack: comm=grow-0" in ln and "reason=misfit_moved" in ln]
    moves = [(float(ln.split()[2].rstrip(":")), int(ln.split("dest_cpu=")[1]))
             for ln in events if "sched_migrate_task: comm=grow-0" in ln]
    busy_from = start + 0.300
    assert pushes and pushes[0][1] < 2 and busy_from < pushes[0][0] <= busy_from + 0.064 + 3 * 0.024, (start, pushes)
    # The push is carried out at the task's next switch: a move to the push's
    # CPU within a tick of it (the trace's clock may step between the two).
    assert any(cpu == pushes[0][1] and 0 <= t - pushes[0][0] <= 0.004 for t, cpu in moves), (pushes, moves)


def test_energy_without_a_choice_says_why_once_at_boot():
    # One cluster (vexpress-a9): pack=energy places by the buddy rule, and
    # boot says why in one line; TC2 (a model, two clusters, two kinds of
    # CPU) has nothing to say.
    p = sim("vexpress-a9", "cpus", "--pack=energy")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("pack: energy: ")]
    assert lines == ["pack: energy: one cluster only; placing by the buddy rule"], p.stdout[:1500]
    p = sim("tc2", "cpus", "--pack=energy")
    assert p.returncode == 0, p.stderr
    assert "placing by the buddy rule" not in p.stdout, p.stdout[:1500]
    # Two clusters of equal CPUs (tools/gen-machine-dt, all little), and the
    # same machine without its energy model.
    with tempfile.TemporaryDirectory() as tmp:
        dts = subprocess.run([os.path.join(simlib.ROOT, "tools", "gen-machine-dt"), "--clusters", "2",
                              "--cpus-per-cluster", "2", "--big", "0"], capture_output=True, text=True, check=True).stdout
        bare = "\n".join(ln for ln in dts.splitlines() if "sched-energy-costs" not in ln)
        for name, text, why in (("equal", dts, "all CPUs equal (capacity and busy power)"),
                                ("bare", bare, "no energy model in the DT")):
            path = os.path.join(tmp, name + ".dtb")
            subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", path, "-"], input=text, text=True,
                           check=True)
            p = sim(path, "cpus", "--pack=energy")
            assert p.returncode == 0, p.stderr
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith("pack: energy: ")]
            assert lines == ["pack: energy: %s; placing by the buddy rule" % why], p.stdout[:1500]


def tc2_rtapp(workload, mode, seed=1):
    """tests/workloads/@workload.json, translated by tools/rtapp, on TC2's DT under pack=@mode
    with --seed=@seed: its RESULT bench=rtapp line as a dict."""
    script = rtapp_script(os.path.join(simlib.ROOT, "tests", "workloads", workload + ".json"))
    p = sim("tc2", script, "--pack=%s" % mode, "--seed=%d" % seed)
    assert p.returncode == 0, p.stderr
    return result(p.stdout, "rtapp")


def test_energy_keeps_buddy_overloads_deadlines():
    # tests/workloads/buddy-overload.json on TC2: eight tasks light for 300
    # ms (packed on the A7s) turn to 20% of an A15 each (160% in all). A
    # packed A7 whose queue lasts two ticks is overutilized at once (PELT
    # would see it ~60 ms late): the energy choice steps aside and the
    # balancer spreads, so pack=energy misses no more deadlines than off.
    # Looking only at balance ticks (16-24 ms apart), it missed 7-11.
    missed = dict((mode, int(tc2_rtapp("buddy-overload", mode)["overruns"])) for mode in ("off", "energy"))
    assert missed["energy"] <= missed["off"], missed


def test_energy_spreads_over_a_clusters_idle_cpus_at_equal_power():
    # tests/workloads/medium.json on TC2: four tasks of 2 ms every 10 ms,
    # all woken at once (~40% of an A7 each). At equal power an idle A7
    # whose siblings are busy costs less than queueing behind a busy one:
    # a CPU runs one task at a time, so its own work overlaps nothing
    # (Linux's EAS takes a domain's CPU with the most spare capacity). Counting
    # the candidate's own busy time as overlap, pack=energy queued two tasks
    # on cpu2 every period (1.7 ms waits, lat_avg 851 us) while cpu4 sat idle,
    # and paid 1.13 x pack=all's energy.
    r = dict((mode, tc2_rtapp("medium", mode)) for mode in ("all", "energy"))
    e = r["energy"]
    assert int(e["overruns"]) == 0 and int(e["lat_avg_us"]) <= 500, e
    assert all(int(e["cpu%d_busy_us" % c]) >= 300000 for c in (2, 3, 4)), e
    assert int(e["energy"]) <= 1.02 * int(r["all"]["energy"]), (e, r["all"])


def test_energy_holds_the_tipping_point_through_a_burst():
    # tests/workloads/burst16.json on TC2: sixteen tasks quiet at 1% (packed
    # on the A7s) burst to 20% each (320% of an A15 in all) for 100 ms. The
    # overutilized state lasts ~5 ms after a CPU's look last found it (Linux
    # clears its flag at a load balance, not when a queue drains): released
    # as soon as a queue drained, the energy choice packed the burst back onto
    # the A7s between two ticks. Seeds 1-20 (a run is ~60 ms of wall time):
    # without the hold energy missed 505 deadlines against off's 296 (1.71x);
    # with it 391 (1.32x). What is left is the burst's onset, where every task
    # still looks light and is placed by energy (docs/placement.md); six seeds
    # were too few to tell 1.32 from 1.15, and any change of timing moved
    # them across. The bound sits between the two.
    missed = dict((mode, sum(int(tc2_rtapp("burst16", mode, seed)["overruns"]) for seed in range(1, 21)))
                  for mode in ("off", "energy"))
    assert missed["energy"] <= 1.5 * missed["off"], missed
