"""Scheduler trace: `trace dump` in QEMU and tools/trace2json (ftrace text ->
Chrome/Perfetto JSON). The fixture tests need no QEMU."""
import json
import os
import re
import subprocess
import sys
import tempfile

from qemulib import ROOT, boot
from simlib import sim

TOOL = os.path.join(ROOT, "tools", "trace2json")
CPUS_PID, CLUSTERS_PID, CLUSTERS_TID = 1, 2, 1000


def trace2json(*args, stdin=""):
    p = subprocess.run([sys.executable, TOOL] + list(args), input=stdin, capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def convert(text, *args):
    rc, out, err = trace2json(*args, stdin=text)
    assert rc == 0, "exit %d: %s" % (rc, err)
    d = json.loads(out)
    assert list(d) == ["traceEvents", "displayTimeUnit"] and d["displayTimeUnit"] == "ns", list(d)
    return d["traceEvents"], err


def timed(events):
    return [e for e in events if e["ph"] != "M"]


def check_layout(events):
    """What any output must satisfy: metadata first, then sorted by ts; X
    slices on one track never overlap and have dur >= 0."""
    phases = [e["ph"] for e in events]
    nmeta = phases.count("M")
    assert all(p == "M" for p in phases[:nmeta]), "metadata not first"
    ts = [e["ts"] for e in events[nmeta:]]
    assert ts == sorted(ts), "not sorted by timestamp"
    assert all(isinstance(t, float) for t in ts), "timestamps not floating"
    ends = {}
    for e in events[nmeta:]:
        if e["ph"] == "X":
            assert e["dur"] >= 0, e
            key = (e["pid"], e["tid"])
            assert e["ts"] >= ends.get(key, 0.0), "overlap on tid %d at %s: %r" % (e["tid"], e["ts"], e)
            ends[key] = e["ts"] + e["dur"]


# A capture with noise around one dump. CPU 0 runs console when the trace
# begins; CPU 1 (cluster 1) is idle. Timestamps: 1.0000xx s.
FIXTURE = """\
sched-pack kernel (board qemu-tc2)
cpu0 online mpidr=0x0 cluster=0 arm,cortex-a15
sched> trace start
trace: on (2048 events per CPU)
T: 0 (    2) P: 0 I:1000 C:     49 Min:      3 Act:    4 Avg:    4 Max:      9
RESULT bench=cyclictest board=qemu-tc2 threads=1
sched> trace dump
# tracer: nop
#
# entries-in-buffer/entries-written
#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION
         console-1     [000] d..2     1.000010: sched_wakeup: comm=worker pid=7 prio=120 target_cpu=001
          <idle>-0     [001] d..2     1.000012: cluster_power: cluster=1 state=1
          <idle>-0     [001] d..2     1.000013: cpu_idle: state=4294967295 cpu_id=1
          <idle>-0     [001] d..2     1.000015: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 \
prev_state=R ==> next_comm=worker next_pid=7 next_prio=120
         console-1     [000] d..2     1.000020: sched_switch: prev_comm=console prev_pid=1 prev_prio=120 \
prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0     [000] d..2     1.000021: cpu_idle: state=1 cpu_id=0
          <idle>-0     [000] d..2     1.000022: cluster_power: cluster=0 state=0
          worker-7     [001] d..2     1.000030: sched_migrate_task: comm=my-task pid=8 prio=125 orig_cpu=0 dest_cpu=1
          worker-7     [001] d..2     1.000031: sched_foo: bar=1
          worker-7     [001] d..2     1.000040: sched_switch: prev_comm=worker prev_pid=7 prev_prio=120 \
prev_state=R ==> next_comm=my-task next_pid=8 next_prio=125
         my-task-8     [001] d..2     1.000055: sched_switch: prev_comm=my-task prev_pid=8 prev_prio=125 \
prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0     [001] d..2     1.000056: cpu_idle: state=0 cpu_id=1
          <idle>-0     [000] d..2     1.000099: cluster_power: cluster=0 state=1
          <idle>-0     [000] d..2     1.000100: cpu_idle: state=4294967295 cpu_id=0
# end of trace: 14 events
sched> poweroff
Powering off.
""".replace("\\\n", "")


def X(ts, dur, tid, name, args, cat):
    return {"name": name, "cat": cat, "ph": "X", "ts": ts, "dur": dur, "pid": CPUS_PID, "tid": tid, "args": args}


def run_slice(ts, dur, tid, comm, pid, prio, end):
    return X(ts, dur, tid, comm, {"comm": comm, "pid": pid, "prio": prio, "end_state": end}, "sched")


def idle_slice(ts, dur, tid, state):
    return X(ts, dur, tid, "idle state", {"state": state}, "idle")


def instant(ts, tid, name, args):
    return {"name": name, "cat": "sched", "ph": "i", "s": "t", "ts": ts, "pid": CPUS_PID, "tid": tid, "args": args}


def power(ts, k, state):
    return {"name": "cluster %d power" % k, "cat": "power", "ph": "C", "ts": ts, "pid": CLUSTERS_PID,
            "tid": CLUSTERS_TID, "args": {"state": state}}


def test_fixture_exact_events():
    events, err = convert(FIXTURE)
    assert err == "", err
    check_layout(events)
    meta = [e for e in events if e["ph"] == "M"]
    assert meta == [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "CPUs"}},
        {"name": "process_sort_index", "ph": "M", "pid": 1, "tid": 0, "args": {"sort_index": 0}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "CPU 0"}},
        {"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": 0, "args": {"sort_index": 0}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "CPU 1"}},
        {"name": "thread_sort_index", "ph": "M", "pid": 1, "tid": 1, "args": {"sort_index": 1}},
        {"name": "process_name", "ph": "M", "pid": 2, "tid": 1000, "args": {"name": "Clusters"}},
        {"name": "process_sort_index", "ph": "M", "pid": 2, "tid": 1000, "args": {"sort_index": 1}},
    ], meta
    expected = [
        # console was already running on CPU 0: from the first timestamp.
        run_slice(1000010.0, 10.0, 0, "console", 1, 120, "S"),
        instant(1000010.0, 0, "sched_wakeup", {"comm": "worker", "pid": 7, "prio": 120, "target_cpu": 1}),
        # CPU 1 was idle (state unknown) until it left idle.
        idle_slice(1000010.0, 3.0, 1, None),
        # Clusters before their first transition: the other state.
        power(1000010.0, 0, 1),
        power(1000010.0, 1, 0),
        power(1000012.0, 1, 1),
        run_slice(1000015.0, 25.0, 1, "worker", 7, 120, "R"),
        idle_slice(1000021.0, 79.0, 0, 1),
        power(1000022.0, 0, 0),
        instant(1000030.0, 1, "sched_migrate_task",
                {"comm": "my-task", "pid": 8, "prio": 125, "orig_cpu": 0, "dest_cpu": 1}),
        run_slice(1000040.0, 15.0, 1, "my-task", 8, 125, "S"),
        # Still idle at the end: closed at the last timestamp.
        idle_slice(1000056.0, 44.0, 1, 0),
        power(1000099.0, 0, 1),
    ]
    got = timed(events)
    assert got == expected, "\n".join(json.dumps(e) for e in got)


def test_fixture_check_summary():
    rc, out, err = trace2json("--check", stdin=FIXTURE)
    assert rc == 0 and err == "", (rc, err)
    assert out == ("trace2json: 13 events (cpu0=6 cpu1=7), 1.000010 .. 1.000100 s, 3 tasks: "
                   "console-1 worker-7 my-task-8, 1 other events skipped, ok\n"), out


def test_fixture_file_stdin_and_output_file():
    with tempfile.TemporaryDirectory() as d:
        cap, js = os.path.join(d, "cap.txt"), os.path.join(d, "out.json")
        with open(cap, "w") as f:
            f.write(FIXTURE.replace("\n", "\r\n"))		# a raw serial capture
        rc, out, err = trace2json("-o", js, cap)
        assert rc == 0 and out == "" and err == "", (rc, out, err)
        with open(js) as f:
            from_file = json.load(f)["traceEvents"]
        rc, out, err = trace2json("-", stdin=FIXTURE)
        assert rc == 0 and json.loads(out)["traceEvents"] == from_file, err
        rc, out, err = trace2json("--check", "-o", js, cap)
        assert rc == 0 and out.startswith("trace2json: 13 events") and os.path.getsize(js) > 0, (rc, out, err)


# Frequency changes as the kernel records them: the CPU that changed its domain's
# OPP logs one cpu_frequency per CPU of the domain (Linux's order), whoever runs.
FREQ_FIXTURE = """# tracer: nop
          <idle>-0     [002]     0.002501: cpu_frequency: state=800000 cpu_id=2
          <idle>-0     [002]     0.002501: cpu_frequency: state=800000 cpu_id=3
         spawned-2     [002]     0.013201: cpu_frequency: state=1000000 cpu_id=2
         spawned-2     [002]     0.013201: cpu_frequency: state=1000000 cpu_id=3
          <idle>-0     [000]     0.402501: cpu_frequency: state=1200000 cpu_id=0
# end of trace: 5 events
"""


def freq(ts, cpu, khz):
    return {"name": "cpu %d freq" % cpu, "cat": "counter", "ph": "C", "ts": ts, "pid": 3, "tid": CLUSTERS_TID,
            "args": {"khz": khz}}


def test_cpu_frequency_is_a_counter_per_cpu_id():
    events, err = convert(FREQ_FIXTURE)
    assert err == "", err
    check_layout(events)
    # One track per cpu_id (not per recording CPU), from its first change on.
    assert timed(events) == [freq(2501.0, 2, 800000), freq(2501.0, 3, 800000), freq(13201.0, 2, 1000000),
                             freq(13201.0, 3, 1000000), freq(402501.0, 0, 1200000)], timed(events)
    assert {"name": "process_name", "ph": "M", "pid": 3, "tid": CLUSTERS_TID, "args": {"name": "Counters"}} in events
    # --check takes them as events of their own (none skipped, no problem), on the recording CPU.
    rc, out, err = trace2json("--check", stdin=FREQ_FIXTURE)
    assert rc == 0 and err == "", (rc, err)
    assert out == "trace2json: 5 events (cpu0=1 cpu2=4), 0.002501 .. 0.402501 s, 0 tasks: -, ok\n", out
    rc, out, err = trace2json("--check", stdin=FREQ_FIXTURE.replace("state=1200000", "state=0"))
    assert rc == 1 and "<stdin>:6: cpu0: cpu_frequency state=0 for cpu_id=0" in err, (rc, err)


def test_overwritten_events_warn_and_start_late():
    text = """# tracer: nop
# cpu1: 5 oldest events overwritten
    spin-3     [000] d..2     2.000000: sched_switch: prev_comm=spin prev_pid=3 prev_prio=120 prev_state=R ==> next_comm=spin next_pid=4 next_prio=120
  <idle>-0     [001] d..2     2.500000: cluster_power: cluster=1 state=1
  <idle>-0     [001] d..2     2.500004: cpu_idle: state=4294967295 cpu_id=1
    spin-4     [000] d..2     3.000000: sched_wakeup: comm=spin pid=3 prio=120 target_cpu=001
"""
    events, err = convert(text)
    assert err == "trace2json: warning: cpu1: 5 oldest events overwritten (its trace starts late)\n", err
    check_layout(events)
    assert timed(events) == [
        # CPU 0 lost nothing: spin-3 ran from the first timestamp (an empty
        # slice, dropped). CPU 1 lost events: its idle period starts at its
        # own first event. No cluster state is inferred when events were lost.
        run_slice(2000000.0, 1000000.0, 0, "spin", 4, 120, "open"),
        idle_slice(2500000.0, 4.0, 1, None),
        power(2500000.0, 1, 1),
        instant(3000000.0, 0, "sched_wakeup", {"comm": "spin", "pid": 3, "prio": 120, "target_cpu": 1}),
    ], timed(events)


def test_last_dump_is_used():
    one = "# tracer: nop\n  a-5 [000] d..2 1.000000: sched_wakeup: comm=b pid=6 prio=120 target_cpu=000\n"
    two = "# tracer: nop\n  c-7 [002] d..2 9.000000: sched_wakeup: comm=d pid=8 prio=120 target_cpu=002\n"
    events, err = convert(one + "sched> trace dump\n" + two)
    assert "2 dumps" in err and "using the last" in err, err
    assert [(e["tid"], e["ts"]) for e in timed(events)] == [(2, 9000000.0)], events


def test_check_reports_inconsistencies():
    text = """\
  a-5 [000] d..2 1.000000: sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=b next_pid=6 next_prio=120
  b-6 [000] d..2 1.000010: sched_switch: prev_comm=c prev_pid=9 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
  <idle>-0 [000] d..2 0.900000: cpu_idle: state=0 cpu_id=0
  <idle>-0 [000] d..2 1.000020: cpu_idle: state=1 cpu_id=0
"""
    rc, out, err = trace2json("--check", stdin=text)
    assert rc == 1, (rc, out, err)
    assert out.startswith("trace2json: 4 events (cpu0=4)") and out.endswith(" problems\n"), out
    for what in ("<stdin>:2: cpu0: sched_switch recorded by pid 6 but prev_pid=9",
                 "<stdin>:2: cpu0: sched_switch prev_pid=9 but pid 6 (b) was running",
                 "<stdin>:3: cpu0: time goes backwards (0.900000 after 1.000010)",
                 "<stdin>:4: cpu0: cpu_idle state=1 entered while in state 0"):
        assert "trace2json: " + what + "\n" in err, err
    # Without --check: converted anyway, the problems are warnings; the event
    # whose time went backwards is clamped (no negative durations).
    events, err = convert(text)
    assert "trace2json: warning: <stdin>:3: cpu0: time goes backwards" in err, err
    check_layout(events)
    assert [(e["name"], e["ts"], e["dur"]) for e in timed(events) if e["ph"] == "X"] == [
        ("b", 1000000.0, 10.0), ("idle state", 1000010.0, 10.0), ("idle state", 1000020.0, 0.0)], events


def test_truncated_dump_is_reported():
    lines = FIXTURE.splitlines(True)
    cut = "".join(l for l in lines if "1.000040" not in l)		# a line lost on the console
    rc, out, err = trace2json("--check", stdin=cut)
    assert rc == 1 and "the dump announced 14 events, 13 trace lines read" in err, (rc, err)
    assert "sched_switch prev_pid=8 but pid 7 (worker) was running" in err, err


def test_errors_exit_2_with_one_line():
    for args, stdin, want in [
        ((), "", "no trace lines in <stdin>"),
        ((), "sched> trace dump\n# tracer: nop\n# end of trace: 0 events\nRESULT x=1\n",
         "no trace lines in <stdin> (its dump holds 0 events)"),
        ((), "  a-1 [000] d..2 1.000000: irq_handler_entry: irq=27 name=arch_timer\n",
         "no trace lines in <stdin> (only 1 events of other types)"),
        (("--bogus",), FIXTURE, "unknown option '--bogus'"),
        (("-x",), FIXTURE, "unknown option '-x'"),
        (("-o",), FIXTURE, "option -o needs a file name"),
        (("a.txt", "b.txt"), "", "one input file at most"),
        (("/nonexistent/capture.txt",), "", "cannot read /nonexistent/capture.txt"),
        (("-o", "/nonexistent/dir/out.json"), FIXTURE, "cannot write /nonexistent/dir/out.json"),
    ]:
        rc, out, err = trace2json(*args, stdin=stdin)
        assert rc == 2, (args, rc, err)
        assert out == "" and err.count("\n") == 1 and err.startswith("trace2json: ") and want in err, (args, err)
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = trace2json(d)			# a directory: unreadable as a file
        assert rc == 2 and err.count("\n") == 1 and "cannot read" in err, (rc, err)


def test_help():
    rc, out, err = trace2json("-h")
    assert rc == 0 and err == "" and "--check" in out and "-o FILE" in out, (rc, out, err)
    assert os.access(TOOL, os.X_OK)


def test_cyclictest_trace_in_qemu():
    r = boot("qemu-tc2", run="trace start; cyclictest -t 4 -D 50ms; trace dump", timeout=120)
    assert r.status == 0, r
    out = r.output
    assert re.search(r"^# end of trace: \d+ events$", out, re.M), r
    events, err = convert(out)
    assert "warning" not in err, err
    check_layout(events)

    names = {(e["name"], e["tid"]) for e in events if e["ph"] == "M"}
    assert ("process_name", 0) in names, names
    threads = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    # One track per CPU the dump has events of (new tasks go to the idlest CPUs:
    # with 4 threads on 5 CPUs one may see none, docs/placement.md).
    dump_cpus = {int(c) for c in re.findall(r"^\s*\S+-\d+\s+\[(\d{3})\]", out, re.M)}
    assert len(dump_cpus) >= 4 and dump_cpus <= set(range(5)), dump_cpus
    assert threads == {c: "CPU %d" % c for c in dump_cpus}, (threads, dump_cpus)

    runs = [e for e in events if e["ph"] == "X" and e["cat"] == "sched"]
    idles = [e for e in events if e["ph"] == "X" and e["cat"] == "idle"]
    wakeups = [e for e in events if e["ph"] == "i" and e["name"] == "sched_wakeup"]
    # Every CPU that switched to a cyclictest thread has its running slices.
    ct_cpus = {int(c) for c in re.findall(r"\[(\d{3})\] +[\d.]+: sched_switch: .*next_comm=cyclictest ", out)}
    assert ct_cpus, r
    assert {e["tid"] for e in runs if e["name"] == "cyclictest"} == ct_cpus, (ct_cpus, runs[:5])
    # Each cyclictest thread (T: n (tid)) ran, under its own name.
    ct_pids = {int(p) for p in re.findall(r"^T: \d+ \(\s*(\d+)\)", out, re.M)}
    assert len(ct_pids) == 4, r
    assert ct_pids <= {e["args"]["pid"] for e in runs if e["name"] == "cyclictest"}, ct_pids
    # Names match the tasks the kernel switched to.
    switched = set(re.findall(r"next_comm=(\S+) next_pid=(\d+)", out))
    for e in runs:
        assert e["name"] == e["args"]["comm"] and (e["name"], str(e["args"]["pid"])) in switched, e
        assert e["args"]["pid"] != 0 and e["args"]["end_state"] in ("R", "S", "X", "W", "open"), e
    assert {e["tid"] for e in idles} == dump_cpus, ({e["tid"] for e in idles}, dump_cpus)
    assert all(e["args"]["state"] in (None, 0, 1) for e in idles), idles
    nwake = len(re.findall(r": sched_wakeup: ", out))
    assert nwake > 0 and len(wakeups) == nwake, (nwake, len(wakeups))
    assert all(set(w["args"]) == {"comm", "pid", "prio", "target_cpu"} for w in wakeups), wakeups[:3]
    power = [e for e in events if e["ph"] == "C" and e["cat"] == "power"]
    assert power and all(e["name"] in ("cluster 0 power", "cluster 1 power") and e["args"]["state"] in (0, 1)
                         for e in power), power
    # The trace is consistent by --check's rules.
    rc, summary, err = trace2json("--check", stdin=out)
    assert rc == 0 and err == "", (rc, err)
    per_cpu = " ".join(r"cpu%d=\d+" % c for c in sorted(dump_cpus))
    assert re.fullmatch(r"trace2json: \d+ events \(%s\), " % per_cpu +
                        r"[\d.]+ \.\. [\d.]+ s, 5 tasks: console-1( cyclictest-\d+){4}, ok\n", summary), summary


# ------------------------------------------------------------ what other tools read

# Perfetto's systrace line tokenizer (google/perfetto,
# src/trace_processor/importers/systrace/systrace_line_tokenizer.cc @ 522051b5a5), searched in the line.
PERFETTO_LINE = re.compile(r"-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*"
                           r"[a-zA-Z0-9.]{0,4}\s+(\d+\.\d+):\s+(\S+):")
# LISA (ARM-software/lisa, lisa/trace.py @ 12e7b1fea7): HRTxtTraceParser.HEADER_REGEX (the kernel's
# human-readable text), TxtTraceParser's skeleton regex, and TxtEventParser's field regex.
LISA_HR_HEADER = re.compile(r"\s*(?P<__comm>.+)-(?P<__pid>\d+)[^\[]*\[(?P<__cpu>\d*)\][^\d]+"
                            r"(?P<__timestamp>\d+\.\d+): +(?P<__event>\w+):", re.ASCII)
LISA_SKELETON = re.compile(r"\] +(?P<__timestamp>\d+\.\d+): *(?P<__event>\w+):", re.ASCII)
LISA_SWITCH = re.compile(r"prev_comm=(?P<prev_comm>.+?) +prev_pid=(?P<prev_pid>\d+) +prev_prio=(?P<prev_prio>\d+) "
                         r"+prev_state=(?P<prev_state>[^ ]+) ==> next_comm=(?P<next_comm>.+?) "
                         r"+next_pid=(?P<next_pid>\d+) +next_prio=(?P<next_prio>\d+)", re.ASCII)
# The fields LISA's EVENT_DESCS give these events (lisa__ prefixed ones apply to the plain names too).
LISA_FIELDS = {
    "sched_wakeup": ["comm", "pid", "prio", "target_cpu"], "sched_waking": ["comm", "pid", "prio", "target_cpu"],
    "sched_wakeup_new": ["comm", "pid", "prio", "target_cpu"], "cpu_idle": ["cpu_id", "state"],
    "cpu_frequency": ["cpu_id", "state"],
    "sched_migrate_task": ["comm", "dest_cpu", "orig_cpu", "pid", "prio"],
    "sched_pelt_se": ["comm", "cpu", "load", "path", "pid", "rbl_load", "util", "update_time"],
    "sched_pelt_cfs": ["cpu", "load", "path", "rbl_load", "util", "update_time"],
}


def lisa_fields_regex(fields):
    """TxtEventParser._get_fields_regex(), no positional or greedy field."""
    alts = [r"{f}=(?P<{f}>.+?)(?: +|$)".format(f=re.escape(f)) for f in fields] + [r"\w+=\S+?(?: +|$)"]
    return re.compile(r"(?:{})+".format("|".join(alts)), re.ASCII)


def trace_lines(out):
    return [l for l in out.splitlines() if re.match(r"^\s*\S.*-\d+\s+\[\d{3}\]", l)]


def test_dump_lines_read_by_perfetto_and_lisa_with_every_event():
    # schedutil: the OPPs change as the tasks start (cpu_frequency events).
    r = boot("qemu-tc2", append="cpufreq=schedutil",
             run="trace start; rtapp add a i=3 l=15 r400,l0,s300,u0,s1500; rtapp add b l=30 R200,s700; "
             "rtapp run 0; trace dump", timeout=120)
    assert r.status == 0, r
    lines = trace_lines(r.output)
    names = {}
    for l in lines:
        m = PERFETTO_LINE.search(l)
        assert m, l
        pid, cpu, ts, event = int(m.group(1)), int(m.group(3)), m.group(4), m.group(5)
        task = l[:m.start()].strip()
        args = l[m.end():].strip()
        names[event] = names.get(event, 0) + 1
        h = LISA_HR_HEADER.match(l)
        assert h and (h.group("__comm").strip(), int(h.group("__pid")), int(h.group("__cpu")), h.group("__timestamp"),
                      h.group("__event")) == (task, pid, cpu, ts, event), (l, h and h.groupdict())
        sk = LISA_SKELETON.search(l)
        assert sk and (sk.group("__timestamp"), sk.group("__event")) == (ts, event), l
        if event == "sched_switch":
            f = LISA_SWITCH.fullmatch(args)
            assert f and f.group("prev_state") in ("R", "S", "X", "W"), l
        elif event == "tracing_mark_write":
            assert re.fullmatch(r"C\|0\|\w+\|-?\d+", args), l
        elif event in LISA_FIELDS:
            f = lisa_fields_regex(LISA_FIELDS[event]).fullmatch(args)
            assert f and all(f.group(k) is not None for k in LISA_FIELDS[event]), (l, f and f.groupdict())
            # Perfetto splits the args on spaces, key=value.
            kv = dict(t.split("=", 1) for t in args.split(" "))
            assert list(kv) == [k for k in re.findall(r"(\w+)=", args)], l
    for ev in ("sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "cpu_idle", "sched_pelt_se",
               "sched_pelt_cfs", "sched_pack", "tracing_mark_write", "cluster_power", "cpu_frequency"):
        assert names.get(ev), (ev, names)
    # Every sched_wakeup of a sleeping task follows its sched_waking (Linux's order).
    waking = [re.search(r"\] +([\d.]+): sched_waking: .* pid=(\d+) ", l) for l in lines if ": sched_waking: " in l]
    wakeup = [re.search(r"\] +([\d.]+): sched_wakeup: .* pid=(\d+) ", l) for l in lines if ": sched_wakeup: " in l]
    assert len(waking) == len(wakeup) > 0, (len(waking), len(wakeup))
    for w, u in zip(sorted((int(m.group(2)), float(m.group(1))) for m in waking),
                    sorted((int(m.group(2)), float(m.group(1))) for m in wakeup)):
        assert w[0] == u[0] and w[1] <= u[1], (w, u)
    counters = set(re.findall(r"tracing_mark_write: C\|0\|(\w+)\|", r.output))
    assert {"energy", "energy_c0", "energy_c1", "cluster1_power"} <= counters and any(
        c.startswith("cpu") and c.endswith("_util") for c in counters), counters
    # The pack decisions name a reason of the kernel's own table (the names `pack` prints).
    reasons = set(re.findall(r"sched_pack: .* reason=(\S+)$", r.output, re.M))
    assert reasons and all(re.fullmatch(r"[a-z_]+", x) for x in reasons), reasons
    # trace2json takes it all: counter tracks for the PELT and the counters.
    events, err = convert(r.output)
    assert "warning" not in err, err
    check_layout(events)
    tracks = {e["name"] for e in events if e["ph"] == "C" and e["cat"] == "counter"}
    assert {"energy", "energy_c0", "energy_c1"} <= tracks and any(t.startswith("util a-") for t in tracks), tracks
    # A frequency track for each CPU the dump changed, its last value the dump's last for that CPU.
    dump_freq = {int(c): int(k) for k, c in re.findall(r"cpu_frequency: state=(\d+) cpu_id=(\d+)$", r.output, re.M)}
    json_freq = {int(e["name"].split()[1]): e["args"]["khz"] for e in events
                 if e["ph"] == "C" and re.fullmatch(r"cpu \d+ freq", e["name"])}
    assert dump_freq and json_freq == dump_freq, (json_freq, dump_freq)
    assert any(e["name"] == "sched_waking" for e in events), "no sched_waking instants"


# ------------------------------------------------------------ trace.dat

DAT = os.path.join(ROOT, "tools", "trace2dat")
NUM = r"-?\d+"


def dump_events(text):
    """(comm, pid, cpu, ts, event, fields) of every trace line of a dump, fields with single spaces."""
    out = []
    for l in trace_lines(text):
        m = re.match(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(?:[.a-zA-Z][^\s]*\s+)?(\d+\.\d+):\s+(\w+):\s?(.*?)\s*$", l)
        assert m, l
        out.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5),
                    " ".join(m.group(6).split())))
    return out


def report_events(text):
    """The same from `trace-cmd report -N`: its print events are the dump's tracing_mark_write lines."""
    out = []
    for l in text.splitlines():
        m = re.match(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\w+):\s+(.*?)\s*$", l)
        if not m:
            continue
        event, fields = m.group(5), " ".join(m.group(6).split())
        if event == "print":
            event, fields = fields.split(": ", 1)
        out.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), event, fields))
    return out


def by_time(events):
    """Sorted by time, then CPU; each CPU's order kept (ties across CPUs may merge either way)."""
    return sorted(events, key=lambda e: (e[3], e[2]))


def test_trace2dat_is_read_back_by_trace_cmd_report_event_for_event():
    r = boot("qemu-tc2", append="cpufreq=schedutil",
             run="trace start; rtapp add a i=3 l=20 r300,l0,s200,u0,t2000:u0; rtapp add b l=40 R100,s900; "
             "rtapp run 0; trace dump", timeout=120)
    assert r.status == 0, r
    want = dump_events(r.output)
    assert len(want) > 500, len(want)
    assert any(e[4] == "cpu_frequency" for e in want), "no cpu_frequency in the dump"
    with tempfile.TemporaryDirectory() as d:
        dat = os.path.join(d, "trace.dat")
        p = subprocess.run([sys.executable, DAT, "-", dat], input=r.output, capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0 and p.stderr == "", p.stderr
        with open(dat, "rb") as f:
            head = f.read(16)
        assert head[:10] == b"\x17\x08\x44tracing" and head[10:12] == b"6\0", head
        rep = subprocess.run(["trace-cmd", "report", "-N", dat], capture_output=True, text=True, timeout=120)
        assert rep.returncode == 0, rep.stderr
        got = report_events(rep.stdout)
        assert rep.stdout.splitlines()[0] == "cpus=5", rep.stdout[:200]
        # Every event, every field, exactly (only the merge order of equal timestamps may differ).
        assert len(got) == len(want), (len(got), len(want))
        bad = [(w, g) for w, g in zip(by_time(want), by_time(got)) if w != g]
        assert not bad, bad[:5]
        # With its plugins (KernelShark's view of sched_switch/wakeup) it reads the same events.
        rep2 = subprocess.run(["trace-cmd", "report", dat], capture_output=True, text=True, timeout=120)
        assert rep2.returncode == 0 and "failed" not in rep2.stderr.lower(), rep2.stderr
        assert len(report_events(rep2.stdout)) == len(want)
        # Its event list names ours.
        ev = subprocess.run(["trace-cmd", "report", "-N", "-E", dat], capture_output=True, text=True, timeout=60)
        for name in ("sched:sched_switch", "sched:sched_waking", "sched:sched_pelt_se", "power:cpu_idle",
                     "power:cpu_frequency", "pack:sched_pack", "ftrace:print"):
            assert name in ev.stdout, (name, ev.stdout[:500])


def trace2dat_report(text, d):
    """(trace2dat's .dat of @text, `trace-cmd report -N` of it)."""
    dat = os.path.join(d, "trace.dat")
    p = subprocess.run([sys.executable, DAT, "-", dat], input=text, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    rep = subprocess.run(["trace-cmd", "report", "-N", dat], capture_output=True, text=True, timeout=120)
    assert rep.returncode == 0, rep.stderr
    return dat, rep.stdout


def test_schedutil_frequencies_from_the_simulator_in_trace_dat_and_json():
    """The simulator's schedutil steps both clusters' OPPs: trace-cmd reads the
    cpu_frequency events back one for one (Linux's power:cpu_frequency format) and
    trace2json plots them as a counter track per CPU."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "dump.txt")
        # From powersave's lowest OPPs: schedutil then steps the A7s up three times behind the hog (a
        # new task's first share alone would take them from their boot OPP to 800 MHz and back to the top).
        p = sim("qemu-tc2", "cpufreq governor powersave; sleep 20; cpufreq governor schedutil; spawn 1 300; sleep 400",
                "--governor=schedutil", "--trace=" + path)
        assert p.returncode == 0, p.stderr
        text = open(path).read()
        want = dump_events(text)
        freqs = [(e[3], int(re.search(r"cpu_id=(\d+)", e[5]).group(1)), int(re.search(r"state=(\d+)", e[5]).group(1)))
                 for e in want if e[4] == "cpu_frequency"]
        # Every CPU of both clusters, and a domain that stepped up more than once.
        assert {c for _, c, _ in freqs} == set(range(5)), freqs
        assert len({k for _, c, k in freqs if c == 2}) >= 3, freqs
        dat, report = trace2dat_report(text, d)
        got = report_events(report)
        assert len(got) == len(want), (len(got), len(want))
        bad = [(w, g) for w, g in zip(by_time(want), by_time(got)) if w != g]
        assert not bad, bad[:5]
        assert sum(1 for e in got if e[4] == "cpu_frequency") == len(freqs), report[:2000]
        fmt = subprocess.run(["trace-cmd", "dump", "--events", dat], capture_output=True, text=True, timeout=60)
        m = re.search(r"^name: cpu_frequency\nID: \d+\nformat:\n(.*?)\n\nprint fmt: ([^\n]*)$", fmt.stdout,
                      re.M | re.S)
        assert m, fmt.stdout[-2000:]
        assert re.findall(r"field:(.*?);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d+);", m.group(1))[4:] == [
            ("u32 state", "8", "4", "0"), ("u32 cpu_id", "12", "4", "0")], m.group(1)
        assert m.group(2) == ('"state=%lu cpu_id=%lu", (unsigned long)REC->state, '
                              '(unsigned long)REC->cpu_id'), m.group(2)
    events, err = convert(text)
    check_layout(events)
    got = [(e["ts"], int(e["name"].split()[1]), e["args"]["khz"]) for e in events
           if e["ph"] == "C" and re.fullmatch(r"cpu \d+ freq", e["name"])]
    assert got == [(float(ts.replace(".", "")), c, k) for ts, c, k in freqs], got
    # --check has nothing to say about them (the simulator's cluster_power may draw its own remarks).
    rc, out, err = trace2json("--check", stdin=text)
    assert "other events skipped" not in out and "freq" not in err, (out, err)


def test_trace2dat_bad_input_exits_2_with_one_line():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "x.dat")
        for text, want in (("no trace here\n", "no trace lines"),
                           ("          <idle>-0     [000]     0.000001: sched_foo: bar=1\n",
                            "line 1: event 'sched_foo' has no trace.dat format here"),
                           ("          <idle>-0     [000]     0.000001: sched_switch: prev_comm=a prev_pid=1 "
                            "prev_prio=120 prev_state=Q ==> next_comm=b next_pid=2 next_prio=120\n",
                            "prev_state=Q is not one of")):
            p = subprocess.run([sys.executable, DAT, "-", out], input=text, capture_output=True, text=True, timeout=30)
            assert p.returncode == 2 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        for args in ([], ["a"], ["a", "b", "c"], [os.path.join(d, "missing.txt"), out]):
            p = subprocess.run([sys.executable, DAT] + args, capture_output=True, text=True, timeout=30)
            assert p.returncode == 2 and p.stderr.startswith("trace2dat:"), (args, p.stderr)
