"""build/host/schedsim (docs/schedsim.md): the kernel's scheduler on a
simulated parallel machine. What it must get right, each against something
that could fail: QEMU where QEMU is exact (one CPU busy at a time), real
parallelism where QEMU serialises (sysbench on 4 CPUs), determinism, the
console's own output and errors, taskset, traces."""
import os
import re
import subprocess
import sys

from qemulib import ROOT, boot
from simlib import SIM, dtb, result, sim

sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
import packmodes  # noqa: E402


def test_bad_input_is_one_error_line_and_exit_2():
    for args, want in (
        ([dtb("qemu-tc2"), "cpus; frobnicate 3"], "schedsim: error: script: unknown command 'frobnicate'"),
        ([dtb("qemu-tc2"), "taskset 1 frob"], "schedsim: error: script: unknown command 'frob'"),
        (["--pack=fast", dtb("qemu-tc2"), "cpus"],
         "schedsim: error: unknown pack mode 'fast' (%s)" % ", ".join(packmodes.names(ROOT))),
        (["--hz=999", dtb("qemu-tc2"), "cpus"], "schedsim: error: --hz=999 is not a divisor"),
        (["--overheads=maybe", dtb("qemu-tc2"), "cpus"], "schedsim: error: unknown option '--overheads=maybe'"),
        ([os.path.join(ROOT, "README.md"), "cpus"], "invalid device tree"),
        (["/nonexistent.dtb", "cpus"], "schedsim: error: /nonexistent.dtb: No such file"),
        ([dtb("qemu-tc2")], "schedsim: error: give a DTB and a script"),
    ):
        p = subprocess.run([SIM, *args], capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, (args, p.returncode, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and want in lines[0], (args, p.stderr)
        assert p.stdout == "", (args, p.stdout)


def test_same_arguments_give_the_same_bytes():
    script = "cyclictest -t 4 -q -D 2 &; sysbench --num-threads=3 --max-requests=30; wait; pack; load"
    a = sim("qemu-tc2", script, "--pack=energy")
    b = sim("qemu-tc2", script, "--pack=energy")
    assert a.returncode == 0 and a.stdout == b.stdout, a.stderr
    # A seed skews the CPUs' boot clocks: another interleaving, still deterministic.
    c = sim("qemu-tc2", script, "--pack=energy", "--seed=7")
    d = sim("qemu-tc2", script, "--pack=energy", "--seed=7")
    assert c.stdout == d.stdout and c.stdout != a.stdout


def test_result_lines_say_engine_sim_and_the_dtb_name():
    p = sim("vexpress-a9", "sysbench --num-threads=2 --max-requests=4")
    assert p.returncode == 0, p.stderr
    r = result(p.stdout, "sysbench")
    assert r["board"] == "vexpress-a9" and r["pack"] == "rails" and r["engine"] == "sim", r


def test_cpus_run_in_parallel_and_taskset_serialises_them():
    # sysbench: R requests on N threads take T1 / min(N, 4) on the CoreTile's 4 CPUs.
    times = {}
    for n in (1, 2, 4, 8):
        p = sim("vexpress-a9", "sysbench --num-threads=%d --max-requests=40" % n)
        assert p.returncode == 0, p.stderr
        times[n] = int(result(p.stdout, "sysbench")["time_us"])
    for n in (2, 4, 8):
        want = times[1] / min(n, 4)
        assert abs(times[n] - want) <= 0.05 * want, times
    p = sim("vexpress-a9", "taskset 0x1 sysbench --num-threads=8 --max-requests=40")
    r = result(p.stdout, "sysbench")
    assert abs(int(r["time_us"]) - times[1]) <= 0.05 * times[1], (r, times)
    assert all(int(r["cpu%d_busy_us" % c]) < 0.01 * times[1] for c in (1, 2, 3)), r
    # Every pack mode keeps the throughput (the seeds' claim), which now could fail.
    for mode in ("off", "all", "energy"):
        p = sim("vexpress-a9", "sysbench --num-threads=8 --max-requests=40", "--pack=" + mode)
        t = int(result(p.stdout, "sysbench")["time_us"])
        assert abs(t - times[8]) <= 0.01 * times[8], (mode, t, times)


def test_sysbench_request_cost_matches_qemu():
    # One thread, one CPU busy at a time: QEMU icount is exact here.
    for board in ("vexpress-a9", "qemu-tc2"):
        script = "sysbench --num-threads=1 --max-requests=5"
        q = boot(board, run=script, timeout=120)
        assert q.status == 0, q
        s = sim(board, script, "--speed=uniform")
        tq, ts = int(result(q.output, "sysbench")["time_us"]), int(result(s.stdout, "sysbench")["time_us"])
        assert abs(ts - tq) <= 0.02 * tq, (board, tq, ts)


def pack_counters(out, cpu):
    line = re.search(r"^pack: cpu%d .*$" % cpu, out, re.M).group(0)
    return dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", line) if k != "buddy")


def both_engines(script, bench, keys, within=0.05):
    """@script under QEMU on qemu-tc2 and in the simulator on its DT at QEMU's uniform
    speed (QEMU is exact with one CPU busy at a time): each of @bench's RESULT @keys
    within @within of QEMU's. Returns both consoles."""
    q = boot("qemu-tc2", run=script, timeout=120)
    assert q.status == 0, q
    s = sim("qemu-tc2", script, "--speed=uniform")
    assert s.returncode == 0, s.stderr
    rq, rs = result(q.output, bench), result(s.stdout, bench)
    assert rs["board"] == "qemu-tc2" and rs["engine"] == "sim", rs
    for key in keys:
        a, b = int(rq[key]), int(rs[key])
        # Residencies get 10 us besides: a new task's first IPI wakes a powered-off
        # cluster a few us into QEMU's window (4 us on qemu-tc2), at once in the simulator.
        slack = 10 if key.endswith("_us") else 0
        assert abs(a - b) <= within * max(a, 1) + slack, (key, a, b)
    return q.output, s.stdout


def test_single_thread_cyclictest_agrees_with_qemu():
    # Residency, cluster off time and energy within 5% of QEMU on qemu-tc2's DT,
    # where QEMU is exact (one CPU busy at a time; the sim runs every CPU at
    # QEMU's uniform speed for the comparison).
    qout, sout = both_engines("cyclictest -t 1 -q -e 1000000 -D 3; pack", "cyclictest",
                              ("energy", "energy_c0", "energy_c1", "cluster0_off_us", "cluster1_off_us",
                               "cpu2_busy_us", "cpu2_idle_us"))
    # Every wake-up goes to the A7 buddy in both, for the same reasons (packed
    # or waiting) within 2% of the decisions. The interval is the tick's own
    # period: this failed (QEMU packed 179 / waiting 2 816, the simulator
    # 2 976 / 19) while a restarted tick took its phase from the wake-up that
    # restarted it, so that every tick fell ~1 us after the task's timer, in
    # its wait under QEMU and in its run in the simulator, by a few
    # instructions' difference (docs/schedsim.md). Ticks now keep one grid.
    # The task starts on cpu2 (the idlest cluster's first CPU, docs/placement.md) with
    # a busy history: its first few wake-ups are not light yet.
    for out in (qout, sout):
        c = pack_counters(out, 2)
        assert c["packed"] + c["waiting"] >= 2990 and c["packed"] + c["waiting"] + c["not_light"] == sum(c.values()), \
            out[-1500:]
        assert c["not_light"] <= 5 and all(sum(pack_counters(out, cpu).values()) == 0 for cpu in (0, 1, 3, 4)), \
            out[-1500:]
    cq, cs = pack_counters(qout, 2), pack_counters(sout, 2)
    decisions = sum(cq.values())
    assert all(abs(cq[k] - cs[k]) <= 0.02 * decisions for k in cq), (cq, cs)


def test_pack_reasons_agree_with_qemu_within_two_percent_of_decisions():
    # At an interval the tick does not lock onto, the reasons themselves: the
    # seeds' waiting rule (waiting > 3/8 of runnable) sits near cyclictest's
    # ratio (~0.42 under QEMU), so this fails if the simulator's kernel costs
    # fall on the wrong side of the enqueue's or the pick's timestamp (before
    # they were placed by measurement, packed 2 291 here vs QEMU's 195).
    qout, sout = both_engines("cyclictest -t 1 -q -i 1237 -e 1000000 -D 3; pack", "cyclictest",
                              ("energy", "cpu2_busy_us"))
    for cpu in range(5):
        cq, cs = pack_counters(qout, cpu), pack_counters(sout, cpu)
        decisions = max(sum(cq.values()), 1)
        for reason in cq:
            assert abs(cq[reason] - cs[reason]) <= max(1, 0.02 * decisions), (cpu, reason, cq, cs)


def test_periodic_rtapp_task_agrees_with_qemu():
    # One periodic rt-app task (20% of 10 ms), QEMU exact: residency, energy and
    # the pack counters agree.
    qout, sout = both_engines("rtapp clear; rtapp add p0 r2000,t10000:u0; rtapp run 3000; pack", "rtapp",
                              ("loops", "energy", "energy_c0", "energy_c1", "cpu2_busy_us", "cpu2_idle_us",
                               "cluster0_off_us"))
    for cpu in range(5):
        cq, cs = pack_counters(qout, cpu), pack_counters(sout, cpu)
        assert all(abs(cq[k] - cs[k]) <= max(1, 0.02 * cq[k]) for k in cq), (cpu, cq, cs)


def test_capacity_slows_work_and_overheads_can_be_turned_off():
    # One request pinned to an A7 (capacity 516) takes 1024/516 of an A15's.
    a15 = sim("qemu-tc2", "taskset 0x1 sysbench --num-threads=1 --max-requests=4")
    a7 = sim("qemu-tc2", "taskset 0x4 sysbench --num-threads=1 --max-requests=4")
    t15, t7 = (int(result(p.stdout, "sysbench")["time_us"]) for p in (a15, a7))
    assert abs(t7 / t15 - 1024 / 516) < 0.02, (t15, t7)
    # Without overheads an idle machine is busy for nothing but its work.
    on = sim("qemu-tc2", "cyclictest -t 1 -q -D 1")
    off = sim("qemu-tc2", "cyclictest -t 1 -q -D 1", "--overheads=off")
    bon = sum(int(v) for k, v in result(on.stdout, "cyclictest").items() if k.endswith("_busy_us"))
    boff = sum(int(v) for k, v in result(off.stdout, "cyclictest").items() if k.endswith("_busy_us"))
    assert bon > 1000 and boff == 0, (bon, boff)


def test_taskset_on_the_console():
    p = sim("qemu-tc2", "taskset 0x18 cyclictest -t 2 -q -D 200ms; taskset zz cpus; taskset 0 cpus; "
            "taskset 0x60 cpus; taskset 3")
    assert p.returncode == 0, p.stderr
    r = result(p.stdout, "cyclictest")
    assert int(r["cpu3_busy_us"]) > 0 and int(r["cpu4_busy_us"]) > 0, r
    assert all(int(r["cpu%d_busy_us" % c]) < 50 for c in (0, 1, 2)), r
    out = p.stdout
    assert "error: taskset: 'zz' is not a hex CPU mask" in out, out
    assert "error: taskset: mask 0 has no CPU" in out, out
    assert "error: taskset: mask 0x60 has no online CPU" in out, out
    assert "error: taskset: usage: taskset <hexmask> <command ...>" in out, out


def test_trace_file_is_the_kernels_dump(tmp=None):
    path = os.path.join(ROOT, "build", "host", "schedsim-trace-test.txt")
    p = sim("qemu-tc2", "cyclictest -t 2 -q -D 20ms", "--trace=" + path)
    assert p.returncode == 0, p.stderr
    text = open(path).read()
    assert text.startswith("# tracer: nop"), text[:200]
    assert re.search(r"cyclictest-\d+ +\[00\d\] +0\.\d{6}: sched_switch: prev_comm=cyclictest", text), text[:3000]
    assert "sched_wakeup: comm=cyclictest" in text and "cpu_idle: state=" in text
    assert re.search(r"^# end of trace: \d+ events$", text, re.M)


def test_script_that_cannot_end_is_an_error():
    p = subprocess.run([SIM, dtb("qemu-tc2"), "sleep 100000"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ))
    assert p.returncode == 0, p.stderr  # 100 s of sleeping is fine
    p = subprocess.run([SIM, "--max-time=2", dtb("qemu-tc2"), "sleep 5000"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1 and "did not end within --max-time=2 s" in p.stderr, p.stderr


def test_the_demo_table_shows_packing_on_tc2():
    # make run's first screen (tools/demo-table): four rows, the engine named,
    # the A15 cluster off under every packing mode and each cheaper than off.
    p = subprocess.run([os.path.join(ROOT, "tools", "demo-table"), "--booting", "vexpress-a9"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "Engine: schedsim" in p.stdout and "one power rail, so nothing is packed" in p.stdout, p.stdout
    rows = re.findall(r"^(off|rails|all|energy) +([\d ]+?) +([\d ]+?) +([\d ]+?) +(\d+)% +([\d.]+) s +(\d+) us$",
                      p.stdout, re.M)
    assert [r[0] for r in rows] == ["off", "rails", "all", "energy"], p.stdout
    pct = dict((r[0], int(r[4])) for r in rows)
    off_s = dict((r[0], float(r[5])) for r in rows)
    assert pct["off"] == 100 and all(pct[m] < 60 for m in ("rails", "all", "energy")), p.stdout
    assert off_s["off"] == 0 and all(off_s[m] >= 2.9 for m in ("rails", "all", "energy")), p.stdout
    bad = subprocess.run([os.path.join(ROOT, "tools", "demo-table"), "--seconds", "0"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "--seconds must be 1..60" in bad.stderr, bad
