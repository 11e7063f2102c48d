"""tools/experiment: the matrix runner, its outputs, argument errors and the
RESULT parser (a few short QEMU boots; well under a minute in all)."""
import csv
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "experiment")

_loader = importlib.machinery.SourceFileLoader("experiment", TOOL)
_spec = importlib.util.spec_from_loader("experiment", _loader)
experiment = importlib.util.module_from_spec(_spec)
_loader.exec_module(experiment)

TINY = "sysbench --num-threads=2 --max-requests=5"


def tool(*args, python_flags=(), timeout=120):
    return subprocess.run([sys.executable, *python_flags, TOOL, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def in_tmp(fn):
    d = tempfile.mkdtemp(prefix="experiment-test-")
    try:
        return fn(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        return header, [dict(zip(header, row)) for row in r]


def test_tiny_matrix_writes_csv_and_summary():
    def body(out):
        p = tool("run", "--boards", "qemu-tc2", "--pack", "off,rails", "--script", TINY, "--out", out)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        header, rows = read_csv(os.path.join(out, "results.csv"))
        assert header[:4] == ["board", "pack", "workload", "bench"] and header[-1] == "raw", header
        expected = ["threads", "requests", "time_us", "energy", "energy_c0", "energy_c1",
                    "cluster0_off_us", "cluster1_off_us"]
        expected += ["cpu%d_%s_us" % (c, k) for c in range(5) for k in ("busy", "idle")]
        assert not set(expected) - set(header), header
        assert len(rows) == 2, rows
        assert [r["pack"] for r in rows] == ["off", "rails"], rows
        for r in rows:
            assert (r["board"], r["workload"], r["bench"]) == ("qemu-tc2", "script", "sysbench"), r
            assert (r["threads"], r["requests"]) == ("2", "5") and int(r["time_us"]) > 0, r
            assert r["raw"].startswith("RESULT bench=sysbench board=qemu-tc2 pack=%s " % r["pack"]), r
            assert int(r["energy"]) == int(r["energy_c0"]) + int(r["energy_c1"]), r
        with open(os.path.join(out, "summary.md")) as f:
            md = f.read()
        assert "## script on qemu-tc2" in md and "### sysbench (total time)" in md, md
        assert "| off | 2 | 5 |" in md and "| rails | 2 | 5 |" in md, md
        assert os.path.isfile(os.path.join(out, "logs", "qemu-tc2-off-script.log"))
    in_tmp(body)


def test_argument_errors_exit_2():
    bad = [
        [],
        ["bogus"],
        ["run"],
        ["run", "--boards", "qemu-tc2"],
        ["run", "--boards", "tc2", "--script", TINY],
        ["run", "--boards", "nosuch", "--script", TINY],
        ["run", "--boards", "qemu-tc2", "--pack", "on", "--script", TINY],
        ["run", "--boards", "qemu-tc2", "--workload", "nosuch"],
        ["run", "--boards", "qemu-tc2", "--script", TINY, "--jobs", "0"],
        ["run", "--boards", "qemu-tc2", "--script", 'echo "x"'],
        ["seeds", "--bogus"],
    ]
    for args in bad:
        p = tool(*args)
        assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
        assert p.stderr.startswith("usage: tools/experiment"), (args, p.stderr)
        assert "RESULT" not in p.stdout and "QEMU runs" not in p.stdout, (args, p.stdout)


def test_failed_run_is_reported_with_its_console():
    def body(out):
        p = tool("run", "--boards", "qemu-tc2", "--pack", "off", "--script", "uptime", "--out", out)
        assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
        assert "FAILED board=qemu-tc2 pack=off workload=script: no RESULT line" in p.stderr, p.stderr
        assert "    | sched> uptime" in p.stderr and "    | Powering off." in p.stderr, p.stderr
    in_tmp(body)


def test_result_parser_on_hand_written_lines():
    line = ("sched> RESULT bench=cyclictest board=qemu-tc2 pack=rails threads=8 duration_us=20000000 "
            "lat_min_us=1 lat_avg_us=3 lat_max_us=91 energy=30 energy_c0=10 energy_c1=20 "
            "cpu0_busy_us=5 cpu0_idle_us=95 cluster0_off_us=7\r\n")
    d = experiment.parse_result_line(line)
    assert d["bench"] == "cyclictest" and d["board"] == "qemu-tc2" and d["pack"] == "rails", d
    assert d["threads"] == "8" and d["lat_max_us"] == "91" and d["energy_c1"] == "20", d
    assert d["cluster0_off_us"] == "7", d
    assert d["raw"] == line[len("sched> "):].rstrip(), d
    assert list(d)[:3] == ["bench", "board", "pack"], d
    for no in ("", "RESULT", "RESULTS bench=x", "energy: energy=5", "result bench=x"):
        assert experiment.parse_result_line(no) is None, no
    console = "\n".join([
        "sched> energy",
        "energy: src=model window_us=16000006 total=30",
        "energy: cpu0 energy=3",
        "energy: cluster0 energy=10 (rail 4 + cpus)",
        "energy: energy=30 energy_c0=10 energy_c1=20 cpu0_busy_us=1 cpu0_idle_us=2",
        "light: cpu0 cluster=0 busy_pct=0.00 tasks=0",
        "light: cpu1 cluster=1 busy_pct=5.57 tasks=16",
        "light: tasks=16 pack=rails window_us=1500002",
        line,
    ])
    rows = experiment.parse_console(console)
    assert [r["bench"] for r in rows] == ["energy-window", "light", "cyclictest"], rows
    w, light, _ = rows
    assert w["window_us"] == "16000006" and w["src"] == "model" and w["energy_c1"] == "20", w
    assert light["cpu1_busy_pct"] == "5.57" and light["cpu1_tasks"] == "16" and light["tasks"] == "16", light


def test_plots_when_matplotlib_is_importable():
    script = "energy mark; cyclictest -t 2 -q -D 200ms; energy"
    has_mpl = importlib.util.find_spec("matplotlib") is not None

    def body(out):
        p = tool("run", "--boards", "qemu-tc2", "--pack", "off,all", "--script", script, "--out", out)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        pngs = ["residency-script-qemu-tc2-off.png", "residency-script-qemu-tc2-all.png",
                "energy-script-qemu-tc2.png", "latency-script-qemu-tc2.png"]
        if has_mpl:
            for name in pngs:
                with open(os.path.join(out, name), "rb") as f:
                    assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
        else:
            print("test_experiment: matplotlib is not importable by %s: PNG check skipped "
                  "(make experiment installs python3-matplotlib)" % sys.executable)
        # Without matplotlib (python -S hides Debian's dist-packages): one message, no PNG, status 0.
        shutil.rmtree(out)
        p = tool("run", "--boards", "qemu-tc2", "--pack", "off", "--script", script, "--out", out,
                 python_flags=("-S",))
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        assert p.stdout.count("skipping the PNG plots") == 1, p.stdout
        assert not [f for f in os.listdir(out) if f.endswith(".png")], os.listdir(out)
        _, rows = read_csv(os.path.join(out, "results.csv"))
        assert [r["bench"] for r in rows] == ["cyclictest", "energy-window"], rows
    in_tmp(body)


def test_seeds_tables_from_rows():
    rows = []
    for pack, scale in (("off", 1.0), ("all", 1.01)):
        for n in (8, 12, 16):
            for r in (200, 2000):
                rows.append({"board": "vexpress-a9", "pack": pack, "workload": "sysbench-seed", "bench": "sysbench",
                             "threads": str(n), "requests": str(r), "time_us": str(int(r * 8000 * scale))})
    for pack, c0, c1 in (("off", 5000, 2000), ("rails", 500, 3000), ("all", 40, 2250)):
        rows.append({"board": "qemu-tc2", "pack": pack, "workload": "cyclictest-seed", "bench": "energy-window",
                     "window_us": "16000000", "energy_c0": str(c0), "energy_c1": str(c1),
                     "energy": str(c0 + c1), "cluster0_off_us": "8000000", "cluster1_off_us": "0"})
    md = experiment.seeds_markdown(rows, quick=False)
    assert "| N=8; R=200 | 3.1999 | 3.1921 | 0.9976 | 1.6000 | 1.6160 | 1.0100 |" in md, md
    assert "| N=16; R=2000 | 31.4899 | 31.4897 | 1.0000 | 16.0000 | 16.1600 | 1.0100 |" in md, md
    assert "| seed default | 100 | 40 | 140 |" in md and "| seed pack | <1 | 45 | <46 |" in md, md
    assert "| ours off | 100.0 | 40.0 | 140.0 |" in md, md
    assert "| ours rails | 10.0 | 60.0 | 70.0 |" in md and "| ours all | 0.8 | 45.0 | 45.8 |" in md, md
    assert "rails gives no buddies" in md, md
    quick = experiment.seeds_markdown(rows, quick=True)
    assert "N=8; R=200 (ours R=20)" in quick and "scaled down by 10" in quick, quick


def test_rtapp_workload_or_skip_message():
    example = os.path.join("tools", "rtapp-examples", "periodic.json")

    def body(out):
        p = tool("run", "--boards", "qemu-tc2", "--pack", "off", "--workload", "rtapp:" + example,
                 "--script", TINY, "--out", out)
        if experiment.rtapp_tool() is None or not os.path.isfile(os.path.join(ROOT, example)):
            assert "skipping workload rtapp:" in p.stdout, p.stdout
            print("test_experiment: tools/rtapp or %s missing: checked the skip message only" % example)
            return
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        _, rows = read_csv(os.path.join(out, "results.csv"))
        assert sorted(r["bench"] for r in rows) == ["rtapp", "sysbench"], rows
        assert all(r["pack"] == "off" for r in rows), rows
    in_tmp(body)


def test_rtapp_workload_longer_than_the_boot_arguments_runs():
    """Spec, Experiments: any file tools/rtapp accepts, however many tasks, phases and events (here rt-app's
    browser example, 9 tasks, and a 30-phase task: ~3 KB of commands, typed at the console)."""
    def body(out):
        phases = {"p%d" % i: dict({"run%d" % j: 50 for j in range(8)}, **{"sleep%d" % j: 300 for j in range(8)})
                  for i in range(30)}
        path = os.path.join(out, "long.json")
        tick = {"run": 100, "timer": {"ref": "t", "period": 5000}}
        with open(path, "w") as f:
            json.dump({"global": {"duration": 1}, "tasks": {"long": {"phases": phases}, "tick": tick}}, f)
        browser = os.path.join(ROOT, "tests", "rtapp-examples", "browser-short.json")
        p = tool("run", "--boards", "qemu-tc2", "--pack", "rails", "--workload", "rtapp:%s,rtapp:%s" % (path, browser),
                 "--out", out)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        _, rows = read_csv(os.path.join(out, "results.csv"))
        got = sorted((r["workload"].rsplit("/", 1)[1], r["bench"], r["tasks"]) for r in rows)
        assert got == [("browser-short.json", "rtapp", "9"), ("long.json", "rtapp", "2")], rows
    in_tmp(body)


def test_issue11_workloads_are_the_rtapp_files():
    ws, skipped = experiment.issue11_workloads()
    files = sorted(f for f in os.listdir(os.path.join(ROOT, "tests", "workloads")) if f.endswith(".json"))
    if experiment.rtapp_tool() is None:
        assert not ws and skipped, (ws, skipped)
        return
    assert [w.name for w in ws] == ["rtapp:tests/workloads/" + f for f in files], [w.name for w in ws]
    for w in ws:
        assert w.script.startswith("rtapp clear; rtapp add ") and "; rtapp run " in w.script, w.script
        # Any length goes (a script longer than the boot arguments is typed), each command within the shell's.
        assert all(len(c) <= 255 for c in experiment.qemu_run.script_commands(w.script)), w.script


def test_energy_verdicts_from_rows():
    """pack=energy's report (seeds.md section 3) from hand-written rows: one
    rt-app workload where energy misses by 3%, a window workload where it
    wins, sysbench within 1%, cyclictest latency 20% above off."""
    tc2 = {"board": "qemu-tc2"}
    rows = []
    for pack, e in (("off", 10000000), ("rails", 4000000), ("all", 5000000), ("energy", 4120000)):
        rows.append(dict(tc2, pack=pack, workload="rtapp:tests/workloads/medium.json", bench="rtapp",
                         duration_us="2000000", energy=str(e), energy_c0=str(e - 100), energy_c1="100",
                         cpu0_busy_us="100000", cpu1_busy_us=str(100000 + e // 10000), overruns="0", lat_avg_us="7"))
    for pack, e in (("off", 300), ("rails", 200), ("all", 210), ("energy", 190)):
        rows.append(dict(tc2, pack=pack, workload="cyclictest-seed", bench="energy-window", window_us="16000000",
                         energy=str(e), energy_c0="10", energy_c1=str(e - 10), cpu2_busy_us="20000"))
    for pack, lat in (("off", ("2", "3")), ("energy", ("3", "3"))):
        for x in lat:
            rows.append(dict(tc2, pack=pack, workload="cyclictest-seed", bench="cyclictest", lat_avg_us=x))
    for pack, t in (("off", 1000000), ("energy", 1005000)):
        rows.append({"board": "vexpress-a9", "pack": pack, "workload": "sysbench-seed", "bench": "sysbench",
                     "threads": "8", "requests": "200", "time_us": str(t)})
    table, verdicts = experiment.energy_verdicts(rows)
    by = {(r[0], r[1]): r for r in table}
    assert by["medium", "energy"][4] == "1.030" and by["medium", "rails"][4] == "1.000", table
    assert by["medium", "energy"][3] == "4119900 / 100" and "overruns 0, lat avg 7 us" == by["medium", "energy"][6], table
    assert by["cyclictest-seed", "energy"][4] == "0.950", table
    # The oracle ratio: one bound per workload, for the least busy time of any mode (rails: 200.4 ms) in 2 s.
    eo = experiment.bench_tool.oracle(experiment.bench_tool.parse_energy_model("qemu-tc2"), 200.4, 2000.0)[0][0]
    assert eo > 0 and by["medium", "energy"][5] == "%.2f" % (4120000 / eo), (eo, table)
    v = {what: (meas, ok) for what, meas, _, ok in verdicts}
    assert v["energy, medium"] == ("1.030 of the best other (rails)", False), v
    assert v["energy, cyclictest-seed"] == ("0.950 of the best other (rails)", True), v
    assert v["sysbench time, energy / off (vexpress-a9, worst of 1)"] == ("1.0050", True), v
    assert v["cyclictest avg latency, energy / off (qemu-tc2)"] == ("3.00 us / 2.50 us = 1.200", False), v
    md = "\n".join(experiment.energy_mode_markdown(rows))
    assert "- verdict: energy, medium: 1.030 of the best other (rails) (target <= 1.02): MISSED" in md, md
    assert "- verdict: energy, cyclictest-seed: 0.950 of the best other (rails) (target <= 1.02): met" in md, md
    assert "| medium | energy | 4120000 | 4119900 / 100 | 1.030 |" in md, md
    # A missing run is said, not counted as met.
    _, verdicts = experiment.energy_verdicts([r for r in rows if r["pack"] != "energy"])
    assert all(ok is None for _, _, _, ok in verdicts), verdicts
