"""rt-app workloads: tools/rtapp (JSON -> console commands) and the kernel's
`rtapp` command (kernel/apps/rtapp.c), on qemu-tc2. The tool-only tests are here
too: tests/run.py runs the Python tests of tests/qemu only."""
import json
import os
import re
import subprocess
import sys
import tempfile

from qemulib import ROOT, boot

TOOL = os.path.join(ROOT, "tools", "rtapp")
EXAMPLES = os.path.join(ROOT, "tools", "rtapp-examples")

TASK = re.compile(
    r"^rtapp: task=(?P<task>\S+) inst=(?P<inst>\d+) tid=\d+ cpu=\d+ phase=(?P<phase>\d+) loops=(?P<loops>\d+) "
    r"period_us=(?P<period>\d+) c_run_us=(?P<c_run>\d+) run_us=(?P<run>\d+) run_max_us=(?P<run_max>\d+) "
    r"act_period_us=(?P<act_period>\d+) slack_us=(?P<slack>-?\d+) slack_min_us=(?P<slack_min>-?\d+) "
    r"wakeups=(?P<wakeups>\d+) lat_min_us=(?P<lat_min>\d+) lat_avg_us=(?P<lat_avg>\d+) "
    r"lat_max_us=(?P<lat_max>\d+) overruns=(?P<overruns>\d+)$", re.M)
RESULT = re.compile(
    r"^RESULT bench=rtapp board=qemu-tc2 pack=(?:off|rails|all) tasks=(?P<tasks>\d+) specs=(?P<specs>\d+) "
    r"duration_us=(?P<duration>\d+) loops=(?P<loops>\d+) overruns=\d+ slack_min_us=-?\d+ lat_avg_us=\d+ "
    r"lat_max_us=\d+ energy=\d+ energy_c0=\d+ energy_c1=\d+"
    r"(?: cpu\d_busy_us=\d+ cpu\d_idle_us=\d+){5} cluster0_off_us=\d+ cluster1_off_us=\d+$", re.M)


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
    return [{k: (v if k == "task" else int(v)) for k, v in m.groupdict().items()} for m in TASK.finditer(output)]


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
    assert len(re.findall(r"^rtapp-log: task=own inst=1 idx=\d ", r.output, re.M)) == 2, r
    assert RESULT.search(r.output) and re.search(r"^RESULT .* tasks=5 specs=3 ", r.output, re.M), r


def test_kernel_limits_give_error_lines_and_the_system_stays_up():
    adds = "; ".join("rtapp add t%d r10,s10" % i for i in range(17))
    run = (adds + "; rtapp clear; "
           "rtapp add p r1 r1 r1 r1 r1; "
           "rtapp add e r1,r1,r1,r1,r1,r1,r1,r1,r1; "
           "rtapp add big i=33 r1; rtapp add m m=0x20 r1; rtapp add loop r1,s1; rtapp run 0; "
           "rtapp bogus; rtapp add ok r100,t1000:u0; rtapp run 30; uptime")
    r = boot("qemu-tc2", run=run, timeout=60)
    assert r.status == 0, r
    out = r.output
    assert out.count("rtapp: spec ") == 16 + 2, r
    assert "error: rtapp: too many task specs (max 16); 'rtapp clear' forgets them" in out, r
    assert "error: rtapp: task 'p' has more than 4 phases" in out, r
    assert "error: rtapp: task 'e' phase 0 has more than 8 events" in out, r
    assert "error: rtapp: task 'big': bad option 'i=33'" in out, r
    assert "error: rtapp: task 'm': CPU mask 0x20 names CPUs this board lacks" in out, r
    assert "error: rtapp: task 'loop' loops forever: give the run a duration" in out, r
    assert "error: rtapp: usage:" in out, r
    assert re.search(r"^rtapp: task=ok inst=0 .* loops=(29|30) period_us=1000 ", out, re.M), r
    assert RESULT.search(out) and re.search(r"^RESULT .* tasks=2 specs=2 ", out, re.M), r
    assert re.search(r"^sched> uptime\n.*\d", out, re.M), r


# ------------------------------------------------------------ the tool alone

def test_tool_unsupported_event_names_it_and_its_path():
    doc = {"global": {"duration": 1}, "tasks": {"t0": {"phases": {"p1": {"run": 10, "lock": "m", "unlock": "m"}}}}}
    rc, out, err = tool_json(doc)
    assert rc == 2 and out == "", (rc, out, err)
    assert "tasks.t0.phases.p1.lock" in err and "unsupported event 'lock'" in err, err
    for ev in ("barrier", "signal", "mem", "iorun", "yield", "fork", "suspend", "resume", "wait", "sync"):
        rc, out, err = tool_json({"tasks": {"t": {"loop": 1, "run": 1, ev + "0": "x"}}})
        assert rc == 2 and "tasks.t.%s0" % ev in err and "unsupported event" in err, (ev, err)
    rc, _, err = tool_json({"tasks": {"t": {"loop": 1, "run": 1, "util_min": 100}}})
    assert rc == 2 and "tasks.t.util_min" in err, err
    rc, _, err = tool_json({"tasks": {"t": {"loop": 1, "policy": "SCHED_FIFO", "run": 1}}})
    assert rc == 2 and "tasks.t.policy" in err and "SCHED_FIFO" in err, err


def test_tool_malformed_json_and_bad_arguments_exit_2():
    rc, out, err = tool_json('{"tasks": {"t0": {"run": 10,}}}')
    assert rc == 2 and out == "" and "malformed JSON" in err and "line 1 column" in err, err
    rc, _, err = tool_json("")
    assert rc == 2 and "malformed JSON" in err, err
    for args in ([], ["--duration-ms", "x", "f.json"], ["--log", "99", "-"], ["--bogus", "f.json"],
                 [os.path.join(EXAMPLES, "missing.json")]):
        rc, out, err = tool(*args, stdin="{}")
        assert rc == 2 and out == "", (args, rc, err)
    rc, _, err = tool_json({"tasks": {"t": {"run": 10, "sleep": 10}}})
    assert rc == 2 and "global.duration" in err and "loops forever" in err, err


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
          "b": {"cpus": [1], "nice": 3, "run0": 10, "timer1": {"ref": "unique", "period": 1000}}}}
      }
    }"""
    rc, out, err = tool_json(doc)
    assert rc == 0, err
    assert out.strip() == (
        "rtapp clear; rtapp add thread_one i=3 n=-5 m=0xc d=100 r1000,s500,r200,T4000:g0; "
        "rtapp add t2 x4,R300,T4000:g0 m0x2,n3,r10,t1000:u0; rtapp run 2000"), out
    assert "ignored global keys (no meaning here): calibration, logdir, ftrace" in err, err
    assert "ignored top-level keys: resources" in err, err
    assert 'task "thread one" is called thread_one' in err, err
    rc, out, _ = tool_json({"tasks": {"t": {"loop": 5, "run": 1}}}, "--lines", "--log", "4")
    assert rc == 0 and out.splitlines() == ["rtapp clear", "rtapp add t l=1 x5,r1", "rtapp run 0 log=4"], out
    rc, out, _ = tool_json({"global": {"duration": -1}, "tasks": {"t": {"run": 1}}}, "--duration-ms", "250")
    assert rc == 0 and out.strip().endswith("rtapp add t r1; rtapp run 250"), out
