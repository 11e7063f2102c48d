"""rt-app workloads: tools/rtapp (JSON -> console commands) and the kernel's
`rtapp` command (kernel/apps/rtapp.c), on qemu-tc2. The tool-only tests are here
too: tests/run.py runs the Python tests of tests/qemu only."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from qemulib import ROOT, boot, skip

TOOL = os.path.join(ROOT, "tools", "rtapp")
EXAMPLES = os.path.join(ROOT, "tools", "rtapp-examples")
# rt-app's own examples and binary, from Debian's rt-app package (make outside:
# tools/outside-inputs.sh), and rt-app files others wrote (../shared/outside).
UPSTREAM = os.path.join(ROOT, "build", "outside", "rt-app", "examples")
RTAPP_BIN = os.path.join(ROOT, "build", "outside", "rt-app", "rt-app")
OUTSIDE = os.path.join(os.path.dirname(ROOT), "shared", "outside")

TASK = re.compile(
    r"^rtapp: task=(?P<task>\S+) inst=(?P<inst>f?\d+) tid=\d+ cpu=\d+ phase=(?P<phase>\d+) loops=(?P<loops>\d+) "
    r"period_us=(?P<period>\d+) c_run_us=(?P<c_run>\d+) run_us=(?P<run>\d+) run_max_us=(?P<run_max>\d+) "
    r"act_period_us=(?P<act_period>\d+) slack_us=(?P<slack>-?\d+) slack_min_us=(?P<slack_min>-?\d+) "
    r"wakeups=(?P<wakeups>\d+) lat_min_us=(?P<lat_min>\d+) lat_avg_us=(?P<lat_avg>\d+) "
    r"lat_max_us=(?P<lat_max>\d+) overruns=(?P<overruns>\d+)$", re.M)
RESULT = re.compile(
    r"^RESULT bench=rtapp board=qemu-tc2 pack=(?:off|rails|all) tasks=(?P<tasks>\d+) specs=(?P<specs>\d+) "
    r"duration_us=(?P<duration>\d+) loops=(?P<loops>\d+) overruns=\d+ slack_min_us=-?\d+ lat_avg_us=\d+ "
    r"lat_max_us=\d+ energy=\d+ energy_c0=\d+ energy_c1=\d+"
    r"(?: cpu\d_busy_us=\d+ cpu\d_idle_us=\d+){5} cluster0_off_us=\d+ cluster1_off_us=\d+"
    # qemu-tc2's DT has OPP tables: each cluster's average frequency, and QEMU changes no speed.
    r" cluster0_freq_khz_avg=\d+ cluster1_freq_khz_avg=\d+ freq_speed=none$", re.M)


def tool(*args, stdin=None):
    p = subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True, input=stdin,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def tool_json(doc, *args):
    """Run the tool on @doc (a str, written as is, or an object, dumped)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
        path = f.name
    try:
        return tool(path, *args)
    finally:
        os.unlink(path)


def rows(output):
    return [{k: (v if k == "task" or v.startswith("f") else int(v)) for k, v in m.groupdict().items()}
            for m in TASK.finditer(output)]


def run_example(name, expect_lines, expect_tasks):
    rc, line, err = tool(os.path.join(EXAMPLES, name))
    assert rc == 0, err
    line = line.strip()
    assert "\n" not in line and line.startswith("rtapp clear; ") and re.search(r"; rtapp run \d+$", line), line
    assert all(len(c) <= 255 for c in line.split("; ")), line
    r = boot("qemu-tc2", run=line, timeout=120)
    assert r.status == 0, r
    assert "error" not in r.output, r
    got = rows(r.output)
    assert len(got) == expect_lines, "%d task lines, want %d: %r" % (len(got), expect_lines, r)
    m = RESULT.search(r.output)
    assert m, "no well-formed RESULT line: %r" % r
    assert int(m.group("tasks")) == expect_tasks, r
    assert abs(int(m.group("duration")) - 1000000) < 20000, r
    assert int(m.group("loops")) == sum(x["loops"] for x in got) > 0, r
    return got, r


# ------------------------------------------------------------ examples in QEMU

def test_periodic_example_is_a_10pct_duty_cycle():
    got, r = run_example("periodic.json", 4, 4)
    assert sorted(x["task"] for x in got) == ["periodic%d" % i for i in range(4)], r
    for x in got:
        assert x["period"] == 16000 and x["c_run"] == 1600, x
        # 1 s of 16 ms periods (the delayed ones lose their first).
        assert 60 <= x["loops"] <= 63, x
        # run ~ 10% of the period, within 10%.
        assert abs(x["run"] - 1600) <= 160 and x["run_max"] <= 1760, x
        assert abs(x["act_period"] - 16000) <= 160, x
        assert x["slack_min"] > 0 and x["slack"] > 0 and x["overruns"] == 0, x
        assert x["wakeups"] == x["loops"] and x["lat_max"] < 100, x


def test_mixed_example_runs_every_phase():
    got, r = run_example("mixed.json", 2 * 2 + 6 * 2, 8)
    heavy = [x for x in got if x["task"] == "heavy"]
    light = [x for x in got if x["task"] == "light"]
    assert len(heavy) == 4 and len(light) == 12, r
    assert sorted({x["inst"] for x in light}) == list(range(6)), r
    # Both phases of every instance ran, with their own periods.
    for x in got:
        assert x["loops"] > 0, x
    assert {(x["phase"], x["period"], x["c_run"]) for x in heavy} == {(0, 20000, 1000), (1, 20000, 4000)}, r
    assert {(x["phase"], x["period"], x["c_run"]) for x in light} == {(0, 10000, 400), (1, 25000, 150)}, r


def test_seed_cyclic_example_wakes_on_cyclictest_intervals():
    got, r = run_example("seed-cyclic.json", 8, 8)
    for i, x in enumerate(sorted(got, key=lambda x: x["task"])):
        period = 1000 + 500 * i
        assert x["task"] == "cyclic%d" % i and x["period"] == period, x
        assert abs(x["loops"] - 1000000 // period) <= 2, x
        assert abs(x["act_period"] - period) <= period // 100, x
        assert x["overruns"] == 0 and x["slack_min"] > 0, x


# ------------------------------------------------------------ kernel semantics

def test_fifo_task_takes_the_cpu_a_fair_one_would_share():
    """rt-app's policy taking effect, measured by rt-app's own per-task figures: two run-bound tasks
    pinned to CPU 1, one SCHED_FIFO and one SCHED_OTHER: the FIFO one does (nearly) all the work,
    the fair one only what RT throttling leaves (5%); with both SCHED_OTHER they share it. Then a
    per-phase change: a task whose phases are SCHED_FIFO then SCHED_OTHER runs alone in the first (a
    loop of 1 ms of work takes ~1 ms) and shares the CPU with the fair task in the second (~2 ms). (The
    first phase names its policy: without it, it would keep the second's from the thread's second
    loop on, as in rt-app.)"""
    both = {"global": {"duration": 1}, "tasks": {"rt": {"policy": "SCHED_FIFO", "priority": 10, "cpus": [1],
                                                        "run": 1000},
                                                 "ts": {"cpus": [1], "run": 1000}}}
    fair = json.loads(json.dumps(both))
    del fair["tasks"]["rt"]["policy"], fair["tasks"]["rt"]["priority"]
    phases = {"hi": {"loop": 100, "policy": "SCHED_FIFO", "run": 1000},
              "lo": {"loop": 100, "policy": "SCHED_OTHER", "run": 1000}}
    phased = {"global": {"duration": 1}, "tasks": {"sw": {"cpus": [1], "phases": phases},
                                                   "ts": {"cpus": [1], "run": 1000}}}
    cmds = []
    for doc in (both, fair, phased):
        rc, out, err = tool_json(doc, "--lines")
        assert rc == 0, err
        cmds += out.splitlines()[:-1] + ["rtapp list", out.splitlines()[-1]]
    assert "rtapp add rt p=f10 m=0x2 r1000" in cmds and "rtapp add sw m=0x2 x100,pf10,r1000 x100,n0,r1000" in cmds, cmds
    r = boot("qemu-tc2", type_lines=cmds, timeout=120)
    assert r.status == 0 and "error" not in r.output, r
    assert "rtapp add rt i=1 l=-1 n=0 p=f10 m=0x2 r1000" in r.output, r
    runs = r.output.split("rtapp: run tasks=")[1:]
    assert len(runs) == 3, r
    loops = [{x["task"]: x["loops"] for x in rows(run)} for run in runs]
    # SCHED_FIFO against SCHED_OTHER: all the CPU but the 5% RT throttling leaves (the throttling
    # period starts with the RT work: 50 ms of this 1 s, whenever the typed line reaches the console).
    assert loops[0]["rt"] >= 0.9 * (loops[0]["rt"] + loops[0]["ts"]) and 40 <= loops[0]["ts"] <= 55, loops
    # Both SCHED_OTHER at nice 0: halves.
    assert 0.35 <= loops[1]["rt"] / float(loops[1]["rt"] + loops[1]["ts"]) <= 0.65, loops
    # Per phase: run_us is the wall time of one loop's 1 ms of work.
    sw = {x["phase"]: x for x in rows(runs[2]) if x["task"] == "sw"}
    assert sw[0]["loops"] >= 100 and sw[1]["loops"] > 0, sw
    assert sw[0]["run"] <= 1300 and sw[1]["run"] >= 1.5 * sw[0]["run"], sw


def test_loops_instances_and_timer_sharing():
    run = ("rtapp add fin l=2 x3,r100,s200 x2,R50,s100; "
           "rtapp add shared i=2 r50,t1000:g0; rtapp add own i=2 r50,t1000:u0; "
           "rtapp list; rtapp run 200 log=2")
    r = boot("qemu-tc2", run=run, timeout=60)
    assert r.status == 0, r
    got = {(x["task"], x["inst"], x["phase"]): x for x in rows(r.output)}
    # Finite loops: thread loop 2 x (phase 0: 3, phase 1: 2).
    assert got[("fin", 0, 0)]["loops"] == 6 and got[("fin", 0, 1)]["loops"] == 4, r
    assert got[("fin", 0, 1)]["run"] >= 50, r
    # One timeline shared by two instances: each sees every other boundary.
    for i in (0, 1):
        assert abs(got[("shared", i, 0)]["act_period"] - 2000) <= 40, r
        assert abs(got[("own", i, 0)]["act_period"] - 1000) <= 20, r
    assert "rtapp add shared i=2 l=-1 n=0 r50,t1000:g0" in r.output, r
    # rt-app's own log of instance own-1: its header, then two rows of its 11 columns (idx = thread 3 + 1).
    log = r.output.split("rtapp-log: file=own-1.log\n", 1)[1].splitlines()
    assert log[0].split()[1:] == ["#idx", "perf", "run", "period", "start", "end", "rel_st", "slack",
                                  "c_duration", "c_period", "wu_lat"], log[0]
    rows_ = [l.split()[1:] for l in log[1:3]]
    assert all(len(x) == 11 and x[0] == "4" and x[8:10] == ["50", "1000"] for x in rows_), rows_
    start, end, period = int(rows_[0][4]), int(rows_[0][5]), int(rows_[0][3])
    assert int(rows_[1][4]) >= end and abs(end - start - period) <= 1, rows_
    assert RESULT.search(r.output) and re.search(r"^RESULT .* tasks=5 specs=3 ", r.output, re.M), r
    # tools/rtapp-log writes them as rt-app's files: <basename>-<task>-<i>.log, whitespace columns under "#idx".
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "rtapp-log"), "--basename", "web", "-", d],
                           input=r.output, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        assert sorted(os.listdir(d)) == ["web-%s.log" % n for n in ("fin-0", "own-0", "own-1", "shared-0", "shared-1")]
        with open(os.path.join(d, "web-own-1.log")) as f:
            lines = f.read().splitlines()
        assert lines[0].split()[0] == "#idx" and len(lines) == 3, lines
        assert all(len(l.split()) == 11 and all(re.fullmatch(r"-?\d+", v) for v in l.split()) for l in lines[1:]), lines


def test_kernel_limits_give_error_lines_and_the_system_stays_up():
    adds = "; ".join("rtapp add t%d r10,s10" % i for i in range(33))
    run = (adds + "; rtapp clear; "
           "rtapp add big i=65 r1; rtapp add m m=0x20 r1; rtapp add loop r1,s1; rtapp run 0; "
           "rtapp phase nosuch r1; rtapp add e r1,z9; rtapp add f r1,f5; rtapp run 10; "
           "rtapp bogus; rtapp clear; rtapp add ok r100,t1000:u0; rtapp run 30; uptime; poweroff")
    r = boot("qemu-tc2", type_lines=run.split("; ")[:-1], timeout=120)
    assert r.status == 0, r
    out = r.output
    assert out.count("rtapp: spec ") == 32 + 2 + 1, r
    assert "error: rtapp: too many task specs (max 32); 'rtapp clear' forgets them" in out, r
    assert "error: rtapp: task 'big': bad option 'i=65'" in out, r
    assert "error: rtapp: task 'm': CPU mask 0x20 names CPUs this board lacks" in out, r
    assert "error: rtapp: task 'loop' loops forever: give the run a duration" in out, r
    assert "error: rtapp: phase: 'nosuch' is not the last task spec added" in out, r
    assert "error: rtapp: task 'e' phase 0: bad item 'z9'" in out, r
    assert "error: rtapp: task 'f' phase 0 forks spec 5, which does not exist" in out, r
    assert "error: rtapp: usage:" in out, r
    assert re.search(r"^rtapp: task=ok inst=0 .* loops=(29|30) period_us=1000 ", out, re.M), r
    assert RESULT.search(out) and re.search(r"^RESULT .* tasks=1 specs=1 ", out, re.M), r
    assert re.search(r"^sched> uptime\n.*\d", out, re.M), r


def test_a_program_of_many_phases_and_events_streams_over_lines():
    # 40 phases of 30 events each: 1200 events, more than any one console line holds.
    phases = []
    for p in range(40):
        phases.append({"loop": 1, **{"run%d" % i: 5 for i in range(15)}, **{"sleep%d" % i: 5 for i in range(15)}})
    doc = {"global": {"duration": -1}, "tasks": {"long": {"loop": 2, "phases": {"p%d" % i: ph for i, ph in
                                                                                enumerate(phases)}}}}
    rc, out, err = tool_json(doc, "--lines")
    assert rc == 0, err
    cmds = out.splitlines()
    assert all(len(c) <= 255 and len(c.split()) <= 16 for c in cmds), cmds
    assert sum(c.startswith("rtapp phase long ") for c in cmds) >= 3, cmds
    r = boot("qemu-tc2", type_lines=cmds + ["rtapp list"], timeout=120)
    assert r.status == 0 and "error" not in r.output, r
    got = rows(r.output)
    assert len(got) == 40 and all(x["loops"] == 2 and x["c_run"] == 75 for x in got), r
    assert "rtapp: 1 specs, 1 instances, 40 phases, 1200 events" in r.output, r
    # `rtapp list` gives the same program back, in lines the shell takes.
    listed = [l for l in r.output.splitlines() if l.startswith("rtapp add long") or l.startswith("rtapp phase long")]
    assert listed and all(len(l) <= 255 for l in listed), listed


def test_sync_events_use_kernel_mutexes_conditions_barriers_and_semaphores():
    run = ("rtapp add ex i=3 l=10 l0,s1000,u0; rtapp run 0; rtapp clear; "
           "rtapp add prod l=20 s500,V0; rtapp add cons l=20 P0,r50; rtapp run 0; rtapp clear; "
           "rtapp add bar i=2 l=5 R100,b0; rtapp add bar2 l=5 s3000,b0; rtapp run 0; rtapp clear; "
           "rtapp add waiter l0,w0:0,u0,r10; rtapp add sig l=5 s2000,l0,g0,u0; rtapp run 40; rtapp clear; "
           "rtapp add bad l=1 r10,u3; rtapp run 0; uptime")
    r = boot("qemu-tc2", run=run, timeout=90)
    assert r.status == 0, r
    results = re.findall(r"^RESULT .* duration_us=(\d+) loops=(\d+) ", r.output, re.M)
    assert len(results) == 5, r
    # Mutual exclusion: 3 x 10 one-millisecond sleeps inside one mutex take >= 30 ms (in parallel: ~10).
    assert int(results[0][0]) >= 30000 and int(results[0][1]) == 30, results
    # Semaphore: 20 posts, 20 waits served, whatever the order.
    assert int(results[1][1]) == 40, results
    # Barrier: 3 parties (2 instances + 1) meet 5 times; the slow one sets the pace (5 x 3 ms).
    bars = [x for x in rows(r.output) if x["task"].startswith("bar")]
    assert len(bars) == 3 and all(x["loops"] == 5 for x in bars), r
    assert all(x["act_period"] >= 2900 for x in bars), bars
    # Condition: every signal sent while the waiter waits wakes it; the run ends with it waiting (stopped).
    waiter = [x for x in rows(r.output) if x["task"] == "waiter"]
    assert waiter and 4 <= waiter[0]["loops"] <= 5, r
    # A program error at run time: one line, the thread ends, the system stays up.
    assert "rtapp: error: task=bad inst=0 phase=0 event=1: unlock of mutex 3, which it does not hold" in r.output, r
    assert re.search(r"^sched> uptime\n.*\d", r.output, re.M), r


# ------------------------------------------------------------ the tool alone

def test_tool_refuses_what_is_absent_here_naming_the_key():
    base = {"loop": 1, "run": 1}
    for key, val, want in (("util_min", 100, "tasks.t.util_min"), ("dl-runtime", 1000, "tasks.t.dl-runtime"),
                           ("nodes_membind", [0], "tasks.t.nodes_membind"), ("taskgroup", "/tg1", "tasks.t.taskgroup"),
                           ("policy", "SCHED_DEADLINE", "tasks.t.policy")):
        rc, out, err = tool_json({"tasks": {"t": dict(base, **{key: val})}})
        assert rc == 2 and out == "" and want in err and len(err.strip().splitlines()) == 1, (key, err)
    rc, _, err = tool_json({"tasks": {"t": {"phases": {"p": {"run": 1, "util_max": 5}}}}, "global": {"duration": 1}})
    assert rc == 2 and "tasks.t.phases.p.util_max" in err, err
    # The root task group is the only one there is: accepted.
    rc, _, err = tool_json({"tasks": {"t": dict(base, taskgroup="/")}})
    assert rc == 0, err
    # Wrong types as rt-app refuses them; a fork of a task that does not exist.
    for ev, val, path in (("lock", 3, "tasks.t.lock"), ("run", "x", "tasks.t.run"), ("barrier", {}, "tasks.t.barrier"),
                          ("fork", "nosuch", "tasks.t.fork"), ("memrun", {"type": "zap"}, "tasks.t.memrun.type")):
        rc, out, err = tool_json({"tasks": {"t": dict(base, **{ev: val})}})
        assert rc == 2 and out == "" and path in err, (ev, err)


def test_tool_translates_every_event():
    doc = {"global": {"duration": 1}, "tasks": {
        "a": {"instance": 2, "policy": "SCHED_BATCH", "priority": 3, "lock": "m", "wait": {"ref": "c", "mutex": "m"},
              "unlock": "m", "signal": "c", "broad": "c", "sync": {"ref": "c", "mutex": "m"}, "barrier": "B",
              "suspend": "ignored", "resume": "b", "yield": "", "fork": "b", "mem": 100, "iorun": 200,
              "memrun": {"type": "chase", "size": 64, "count": 7}, "sem_post": "s", "sem_wait": "s",
              "sleep": 10, "runtime": 5},
        "b": {"instance": 0, "policy": "SCHED_IDLE", "loop": 1, "suspend": "x", "run": 5}}}
    rc, out, err = tool_json(doc)
    assert rc == 0, err
    assert out.strip() == (
        "rtapp clear; rtapp add a i=2 n=3 l0,w0:0,u0,g0,G0,y0:0,b0,l1,w1:1,u1,l2,G2,u2,Y,f1,kw100,i200,kc7,V0,P0,"
        "s10,R5; rtapp add b i=0 l=1 n=19 l2,w2:2,u2,r5; rtapp run 1000"), out


def test_tool_translates_fifo_and_rr_as_rt_app_reads_them():
    """rt-app's rules (src/rt-app_parse_config.c parse_sched_data(), src/rt-app.c set_thread_param()):
    a task's policy, else global.default_policy; its priority, else 10 for SCHED_FIFO/RR and nice 0
    otherwise; a phase with a policy takes it (priority: that policy's default), a phase with only a
    priority keeps the policy in force (the task's, or the last earlier phase's), a phase with
    neither changes nothing (a later loop keeps what the last phase set)."""
    doc = {"global": {"duration": 1, "default_policy": "SCHED_RR"}, "tasks": {
        "dflt": {"run": 1},                                                  # default_policy, its default 10
        "fifo": {"policy": "SCHED_FIFO", "priority": 99, "run": 1},
        "other": {"policy": "SCHED_OTHER", "priority": -7, "run": 1},
        "other0": {"policy": "SCHED_OTHER", "run": 1},
        "batch": {"policy": "SCHED_BATCH", "priority": 4, "run": 1},
        "ph": {"policy": "SCHED_FIFO", "priority": 5, "phases": {
            "keep": {"run": 1},                          # nothing: stays FIFO 5
            "prio": {"priority": 30, "run": 2},          # FIFO 30 (the task's policy)
            "rr": {"policy": "SCHED_RR", "run": 3},      # RR at its default, 10
            "rrprio": {"priority": 2, "run": 4},         # RR 2 (the last phase's policy)
            "other": {"policy": "SCHED_OTHER", "run": 5},  # SCHED_OTHER, nice 0
            "nice": {"priority": -3, "run": 6},          # priority is the nice value now
            "back": {"policy": "SCHED_FIFO", "priority": 1, "run": 7}}}}}
    rc, out, err = tool_json(doc)
    assert rc == 0, err
    assert out.strip() == (
        "rtapp clear; rtapp add dflt p=r10 r1; rtapp add fifo p=f99 r1; rtapp add other n=-7 r1; "
        "rtapp add other0 r1; rtapp add batch n=4 r1; "
        "rtapp add ph p=f5 r1 pf30,r2 pr10,r3 pr2,r4 n0,r5 n-3,r6 pf1,r7; rtapp run 1000"), out
    # A phase naming a priority only, with the policy from the task, a task without "phases" (its one
    # phase carries no change of its own), and the SCHED_OTHER default when nothing names a policy.
    rc, out, err = tool_json({"global": {"duration": 1}, "tasks": {
        "a": {"phases": {"p": {"priority": 3, "run": 1}, "q": {"policy": "SCHED_FIFO", "run": 1}}},
        "b": {"policy": "SCHED_FIFO", "priority": 42, "loop": 3, "run": 1}}})
    assert rc == 0 and out.strip() == ("rtapp clear; rtapp add a n3,r1 pf10,r1; rtapp add b l=1 p=f42 x3,r1; "
                                       "rtapp run 1000"), (out, err)
    # A SCHED_DEADLINE default is refused only where a task takes it.
    rc, out, err = tool_json({"global": {"duration": 1, "default_policy": "SCHED_DEADLINE"},
                              "tasks": {"t": {"policy": "SCHED_FIFO", "run": 1}}})
    assert rc == 0 and "p=f10" in out, err


def test_tool_refuses_bad_priorities_and_deadline_naming_the_key():
    cases = [
        ({"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 0, "run": 1}}},
         "tasks.t.priority: 0 is out of range (1..99: the SCHED_FIFO priority)"),
        ({"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 120, "run": 1}}},
         "tasks.t.priority: 120 is out of range (1..99"),
        ({"tasks": {"t": {"policy": "SCHED_RR", "priority": -1, "run": 1}}}, "tasks.t.priority: -1 is out of range"),
        ({"tasks": {"t": {"policy": "SCHED_OTHER", "priority": 40, "run": 1}}},
         "tasks.t.priority: 40 is out of range (-20..19: for SCHED_OTHER rt-app's priority is the nice value)"),
        ({"tasks": {"t": {"priority": -21, "run": 1}}}, "tasks.t.priority: -21 is out of range"),
        ({"global": {"default_policy": "SCHED_RR"}, "tasks": {"t": {"priority": 0, "run": 1}}},
         "tasks.t.priority: 0 is out of range (1..99: the SCHED_RR priority; the policy from global.default_policy)"),
        ({"tasks": {"t": {"policy": "SCHED_FIFO", "priority": "10", "run": 1}}},
         "tasks.t.priority: must be an integer"),
        ({"tasks": {"t": {"policy": "SCHED_fifo", "run": 1}}}, "tasks.t.policy: invalid policy"),
        ({"global": {"default_policy": "FIFO"}, "tasks": {"t": {"run": 1}}}, "global.default_policy: invalid policy"),
        ({"global": {"duration": 1}, "tasks": {"t": {"policy": "SCHED_FIFO", "phases": {
            "p": {"priority": 100, "run": 1}}}}},
         "tasks.t.phases.p.priority: 100 is out of range (1..99: the SCHED_FIFO priority; the phase keeps the "
         "policy in force, SCHED_FIFO)"),
        ({"global": {"duration": 1}, "tasks": {"t": {"policy": "SCHED_FIFO", "phases": {
            "p": {"policy": "SCHED_OTHER", "run": 1}, "q": {"priority": 50, "run": 1}}}}},
         "tasks.t.phases.q.priority: 50 is out of range (-20..19"),
        ({"global": {"duration": 1}, "tasks": {"t": {"phases": {"p": {"policy": "SCHED_RR", "priority": 0,
                                                                      "run": 1}}}}},
         "tasks.t.phases.p.priority: 0 is out of range (1..99: the SCHED_RR priority)"),
        # SCHED_DEADLINE, however it is named: the error names the task's JSON path.
        ({"tasks": {"t": {"policy": "SCHED_DEADLINE", "run": 1}}}, "tasks.t.policy: unsupported policy SCHED_DEADLINE"),
        ({"global": {"default_policy": "SCHED_DEADLINE"}, "tasks": {"t": {"run": 1}}},
         "tasks.t: its policy, SCHED_DEADLINE from global.default_policy, is unsupported"),
        ({"global": {"duration": 1}, "tasks": {"t": {"phases": {"p": {"policy": "SCHED_DEADLINE", "run": 1}}}}},
         "tasks.t.phases.p.policy: unsupported policy SCHED_DEADLINE"),
        ({"tasks": {"t": {"policy": "SCHED_FIFO", "dl-period": 1000, "run": 1}}}, "tasks.t.dl-period: unsupported key"),
    ]
    for doc, want in cases:
        rc, out, err = tool_json(doc)
        assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, (doc, err)
        assert err.startswith("rtapp: error: ") and want in err, (doc, want, err)


def upstream_files():
    assert os.path.isdir(UPSTREAM), "%s missing: run make outside (tools/outside-inputs.sh)" % UPSTREAM
    return sorted(f for f in os.listdir(UPSTREAM) if f.endswith(".json"))


def test_upstream_examples_translate_or_are_refused_naming_the_key():
    """Every JSON of Debian's rt-app doc/examples (subfolders flattened: tutorial/example1.json is
    tutorial_example1.json): what the tool says."""
    refused = {
        # merge.py's fragments, not workloads: rt-app refuses them as they are too.
        "merge_global.json": "tasks: missing", "merge_resources.json": "tasks: missing",
        "merge_thread0.json": "tasks.thread0.lock_order: must be a string",
        "merge_thread1.json": "tasks.thread1.lock_order: must be a string",
        "merge_thread2.json": "tasks.thread2.lock_order: must be a string",
        "merge_thread3.json": "tasks.thread3.lock_order: must be a string",
        # `"suspend",` without a value: json-c stops there as well.
        "video-long.json": "malformed JSON (rt-app's parser refuses it too): line 6 column 13",
        "video-short.json": "malformed JSON (rt-app's parser refuses it too): line 6 column 13",
    }
    files = upstream_files()
    assert len(files) >= 20 and set(refused) <= set(files), files
    for f in files:
        rc, out, err = tool(os.path.join(UPSTREAM, f), "--duration-ms", "300")
        if f in refused:
            last = err.strip().splitlines()[-1]
            assert rc == 2 and out == "" and refused[f] in last, (f, err)
        else:
            assert rc == 0 and out.startswith("rtapp clear; rtapp add "), (f, err)
    # The SCHED_FIFO ones (no priority: rt-app's default, 10): from global.default_policy, from the task.
    for f in ("cpufreq_governor_efficiency_calibration.json", "cpufreq_governor_efficiency_dvfs.json"):
        rc, out, err = tool(os.path.join(UPSTREAM, f), "--duration-ms", "300")
        assert rc == 0 and "rtapp add thread l=" in out and " p=f10 " in out, (f, out, err)


# What tools/rtapp makes of the rt-app files with SCHED_FIFO / SCHED_RR in ../shared/outside/rtapp-rt
# (sources and quirks: its INDEX.md): pieces of the translation (a list), or the refusal (a str).
OUTSIDE_RT = {
    "jedichen121-9b218f5__example1.json": ["rtapp add thread0 l=1 p=r15 m=0x1 ", "rtapp add thread1 l=1 p=r10 m=0x1 "],
    "lisa-49c99026-nb__rtapp_examples__cell12_out0.json": ["rtapp add task_per20 l=1 p=f10 x50,r20000,t100000:g0"],
    "lkml-20200203-pkondeti__big-task.json": ["rtapp add big-task i=5 l=1 p=f10 x10,s100000,R100000"],
    "rtapp-55cb0c0__calibration.json": ["rtapp add thread l=1 p=f10 r2000 s2000"],
    "rtapp-55cb0c0__dvfs.json": ["rtapp add thread l=10 p=f10 m=0x2 t1200000:g0 r900000"],
    "rtapp-issue118__invar0.json": ["rtapp add invar0 l=1 pf15,r10 r10"],
    "rtapp-pr70__task0.json": ["rtapp add task0 l=2 p=f10 r2000,s8000 n0,r2000,s8000"],
    # A phase holding only "delay": rt-app (since 2016) refuses a phase without events too.
    "lisa-bb5ff50d-nb__rtapp_example__cell14_out1.json":
        "tasks.task_pls5-80.phases.p000000: no events (rt-app refuses a phase without events); its keys: delay",
    # rt-app's pre-2014 grammar: "lock_order" reads as a lock event, which takes a string (rt-app refuses it too).
    "rtapp-3013be9__taskset.json": "tasks.thread0.lock_order: must be a string",
    # thread-A is SCHED_DEADLINE: no deadline class here.
    "rtapp-issue130__taskset.json": "tasks.thread-A.policy: unsupported policy SCHED_DEADLINE",
}


def test_outside_rt_files_translate_or_name_what_is_absent():
    """Every rt-app file of ../shared/outside/rtapp-rt that names SCHED_FIFO or SCHED_RR translates,
    its tasks with the policy and priority rt-app gives them, or is refused (exit 2, one line) naming
    the key of something absent here or that rt-app refuses as well. A file not listed above must
    translate or be refused naming a key of its tasks or global section."""
    d = os.path.join(OUTSIDE, "rtapp-rt")
    if not os.path.isdir(d):
        skip("%s absent (outside inputs, not installed by ensure-deps)" % d, required=False)
    files = sorted(f for f in os.listdir(d) if f.endswith(".json"))
    rt = [f for f in files if re.search(r"SCHED_(FIFO|RR)", open(os.path.join(d, f), encoding="utf-8").read())]
    assert rt, files
    for f in rt:
        rc, out, err = tool(os.path.join(d, f), "--duration-ms", "300")
        want = OUTSIDE_RT.get(f)
        if rc == 0:
            assert not isinstance(want, str) and out.startswith("rtapp clear; rtapp add "), (f, err)
            assert all(piece in out for piece in want or []), (f, want, out)
            assert re.search(r" p=[fr]\d+ | p[fr]\d+,", out), (f, "no RT task", out)
            continue
        last = err.strip().splitlines()[-1]
        assert rc == 2 and out == "" and sum(l.startswith("rtapp: error: ") for l in err.splitlines()) == 1, (f, err)
        if want is None:
            assert re.match(r"rtapp: error: (tasks|global)\.", last), (f, last)
        else:
            assert isinstance(want, str) and want in last, (f, want, last)


def test_outside_rt_files_run_on_qemu_tc2():
    """The rt-app files of ../shared/outside/rtapp-rt that translate, run one after the other in one
    boot (300 ms each; the LKML one whole, 2 s): each ends with its RESULT line and no error. The
    LKML one shows what its mail expects: 5 SCHED_FIFO tasks, unpinned, each on a CPU of its own
    (no two stacked: each loop's 100 ms of runtime, 100 ms of sleep, takes ~200 ms)."""
    d = os.path.join(OUTSIDE, "rtapp-rt")
    if not os.path.isdir(d):
        skip("%s absent (outside inputs, not installed by ensure-deps)" % d, required=False)
    lkml = "lkml-20200203-pkondeti__big-task.json"
    cmds, ran = [], []
    for f in sorted(f for f, want in OUTSIDE_RT.items() if isinstance(want, list)):
        if os.path.exists(os.path.join(d, f)):
            rc, out, err = tool(os.path.join(d, f), "--duration-ms", "0" if f == lkml else "300", "--lines")
            assert rc == 0, (f, err)
            cmds += out.splitlines()
            ran.append(f)
    r = boot("qemu-tc2", type_lines=cmds, timeout=180)
    assert r.status == 0 and "error" not in r.output and "panic" not in r.output, r
    runs = r.output.split("rtapp: run tasks=")[1:]
    assert len(runs) == len(ran) and all(RESULT.search(run) for run in runs), r
    if lkml in ran:
        big = rows(runs[ran.index(lkml)])
        assert len(big) == 5 and len({x["inst"] for x in big}) == 5, big
        assert all(x["loops"] == 10 and 190000 <= x["act_period"] <= 215000 for x in big), big
        assert len({int(m) for m in re.findall(r"^rtapp: task=big-task inst=\d+ tid=\d+ cpu=(\d+)",
                                                 runs[ran.index(lkml)], re.M)}) == 5, runs[ran.index(lkml)]


def real_rtapp_says_malformed(path, workdir):
    """Does the real rt-app refuse @path with json-c's parse error? It runs unprivileged (no
    real-time priorities on the host) in @workdir and is killed after 0.5 s: a file it
    parses starts its workload, a file it cannot parse ends at once."""
    copy = os.path.join(workdir, os.path.basename(path))
    with open(path, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    os.chmod(copy, 0o644)
    binary = os.path.join(workdir, "rt-app")	# copied there by the caller: nobody may not reach the checkout
    p = subprocess.run(["timeout", "-s", "KILL", "0.5", "setpriv", "--reuid=nobody", "--regid=nogroup",
                        "--clear-groups", binary, copy], cwd=workdir, capture_output=True, text=True)
    return "Error while parsing input JSON" in (p.stdout + p.stderr)


def test_real_rt_app_and_the_tool_refuse_the_same_malformed_files():
    """rt-app's own parser as the oracle: a file it refuses with "Error while parsing input JSON"
    tools/rtapp refuses as malformed JSON, and the reverse; over rt-app's examples, the rt-app
    files of ../shared/outside and broken variants of one of them."""
    import concurrent.futures
    assert os.access(RTAPP_BIN, os.X_OK), "%s missing: run make outside" % RTAPP_BIN
    files = [os.path.join(UPSTREAM, f) for f in upstream_files()]
    for sub in ("rtapp-lisa", "rtapp-rt"):	# outside inputs, when this machine has them (not ensure-deps')
        d = os.path.join(OUTSIDE, sub)
        if os.path.isdir(d):
            files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json"))
    work = tempfile.mkdtemp()
    os.chmod(work, 0o777)
    shutil.copy(RTAPP_BIN, os.path.join(work, "rt-app"))
    os.chmod(os.path.join(work, "rt-app"), 0o755)
    try:
        base = open(os.path.join(UPSTREAM, "tutorial_example1.json")).read()
        for i, broken in enumerate((base.replace(":", "", 1), base.rstrip().rstrip("}"), base.replace('"', "", 1),
                                    "{ \"tasks\": { \"t\": { \"run\": 10 } }")):
            path = os.path.join(work, "broken%d.json" % i)
            with open(path, "w") as f:
                f.write(broken)
            files.append(path)
        with concurrent.futures.ThreadPoolExecutor(8) as ex:
            real = list(ex.map(lambda f: real_rtapp_says_malformed(f, work), files))
        mine = [("malformed JSON" in tool(f, "--duration-ms", "100")[2]) for f in files]
        assert sum(real) >= 5, list(zip(files, real))
        assert real == mine, [(os.path.basename(f), r, m) for f, r, m in zip(files, real, mine) if r != m]
    finally:
        shutil.rmtree(work)


def real_rtapp_task_sched(path, workdir):
    """The policy and priority the real rt-app (Debian's 1.0) gives task 0 of @path: its notice
    "[0] Using SCHED_X policy with priority N", printed before it sets them (which fails
    unprivileged, ending the run). Run as in real_rtapp_says_malformed(); None if not printed."""
    p = subprocess.run(["timeout", "-s", "KILL", "2", "setpriv", "--reuid=nobody", "--regid=nogroup",
                        "--clear-groups", os.path.join(workdir, "rt-app"), path], cwd=workdir,
                       capture_output=True, text=True)
    m = re.search(r"\[0\] Using (SCHED_\w+) policy with priority (-?\d+)", p.stdout + p.stderr)
    return (m.group(1), int(m.group(2))) if m else None


def tool_task_sched(out):
    """The policy and priority of the first `rtapp add` of tools/rtapp's output, in rt-app's terms."""
    words = re.search(r"rtapp add \S+((?: [a-z]=\S+)*)", out).group(1).split()
    opts = dict(w.split("=", 1) for w in words)
    if "p" in opts:
        return ({"f": "SCHED_FIFO", "r": "SCHED_RR"}[opts["p"][0]], int(opts["p"][1:]))
    return ("SCHED_OTHER", int(opts.get("n", 0)))


def test_real_rt_app_and_the_tool_give_a_task_the_same_policy_and_priority():
    """rt-app's own parser as the oracle for a task's policy and priority (global.default_policy, the
    task's policy, the priority and its defaults: 10 for SCHED_FIFO/RR, nice 0 otherwise). Debian's
    rt-app 1.0 has no per-phase policy: phases are checked against rt-app's source by the tests above."""
    assert os.access(RTAPP_BIN, os.X_OK), "%s missing: run make outside" % RTAPP_BIN
    cases = [(None, {}), (None, {"priority": 7}), (None, {"priority": -20}), (None, {"policy": "SCHED_FIFO"}),
             (None, {"policy": "SCHED_FIFO", "priority": 42}), ("SCHED_RR", {}), ("SCHED_RR", {"priority": 3}),
             ("SCHED_FIFO", {"policy": "SCHED_OTHER"}), ("SCHED_FIFO", {"policy": "SCHED_RR", "priority": 99}),
             ("SCHED_OTHER", {"policy": "SCHED_RR"}), ("SCHED_FIFO", {"priority": 1})]
    work = tempfile.mkdtemp()
    os.chmod(work, 0o777)
    shutil.copy(RTAPP_BIN, os.path.join(work, "rt-app"))
    os.chmod(os.path.join(work, "rt-app"), 0o755)
    try:
        for i, (default, task) in enumerate(cases):
            g = {"duration": 1, "calibration": 100, "logdir": work}
            if default:
                g["default_policy"] = default
            path = os.path.join(work, "case%d.json" % i)
            with open(path, "w") as f:
                json.dump({"global": g, "tasks": {"t": dict(task, loop=1, run=10)}}, f)
            os.chmod(path, 0o644)
            rc, out, err = tool(path)
            assert rc == 0, (default, task, err)
            real = real_rtapp_task_sched(path, work)
            assert real is not None and real == tool_task_sched(out), (default, task, real, out)
    finally:
        shutil.rmtree(work)


UPSTREAM_RUN = ["browser-short.json", "mp3-short.json", "spreading-tasks.json", "template.json",
                "tutorial_example1.json", "tutorial_example2.json", "tutorial_example3.json", "tutorial_example4.json",
                "tutorial_example5.json", "tutorial_example6.json", "tutorial_example7.json", "tutorial_example8.json",
                "browser-long.json", "mp3-long.json"]


def test_upstream_examples_run_on_qemu_tc2():
    """Each runnable upstream example, 300 ms of it (the browser's 1 s: it starts with a 400 ms sleep), one
    after the other in one boot (typed at the console)."""
    cmds = []
    for f in UPSTREAM_RUN:
        ms = 1000 if f.startswith("browser") else 300
        rc, out, err = tool(os.path.join(UPSTREAM, f), "--duration-ms", str(ms), "--lines")
        assert rc == 0, (f, err)
        cmds += out.splitlines()
    r = boot("qemu-tc2", type_lines=cmds, timeout=400)
    assert r.status == 0, r
    assert "error" not in r.output and "panic" not in r.output, r
    results = re.findall(r"^RESULT bench=rtapp .* tasks=(\d+) specs=(\d+) duration_us=(\d+) loops=(\d+) ",
                         r.output, re.M)
    assert len(results) == len(UPSTREAM_RUN), r
    for f, (tasks, specs, dur, loops) in zip(UPSTREAM_RUN, results):
        ms = 1000 if f.startswith("browser") else 300
        assert ms * 1000 <= int(dur) <= ms * 1200, (f, dur)
        assert int(loops) > 0, (f, results)


def test_tool_format_comments_duplicates_and_ignored_keys():
    doc = """/* rt-app style */ {
      "global": {"duration": 2, "calibration": "CPU0", "logdir": "./", "ftrace": "none"},  // ignored
      "resources": {},
      "tasks": {
        "thread one": {"instance": 3, "priority": -5, "cpus": [2, 3], "delay": 100,
                       "run": 1000, "sleep": 500, "run": 200,
                       "timer": {"ref": "tick", "period": 4000, "mode": "absolute"}},
        "t2": {"phases": {
          "a": {"loop": 4, "runtime": 300, "timer0": {"ref": "tick", "period": 4000}},
          "b": {"cpus": [1], "priority": 3, "run0": 10, "timer1": {"ref": "unique", "period": 1000}}}}
      }
    }"""
    rc, out, err = tool_json(doc)
    assert rc == 0, err
    assert out.strip() == (
        "rtapp clear; rtapp add thread_one i=3 n=-5 m=0xc d=100 r1000,s500,r200,T4000:g0; "
        "rtapp add t2 x4,R300,T4000:g0 m0x2,n3,r10,t1000:u0; rtapp run 2000"), out
    assert "global keys with no meaning here, ignored: calibration, logdir, ftrace" in err, err
    assert "top-level keys with no meaning here, ignored: resources" in err, err
    assert 'task "thread one" is called thread_one' in err, err
    rc, out, _ = tool_json({"tasks": {"t": {"loop": 5, "run": 1}}}, "--lines", "--log", "4")
    assert rc == 0 and out.splitlines() == ["rtapp clear", "rtapp add t l=1 x5,r1", "rtapp run 0 log=4"], out
    rc, out, _ = tool_json({"global": {"duration": -1}, "tasks": {"t": {"run": 1}}}, "--duration-ms", "250")
    assert rc == 0 and out.strip().endswith("rtapp add t r1; rtapp run 250"), out
