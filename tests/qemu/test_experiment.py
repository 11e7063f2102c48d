"""tools/experiment: cells on both engines, plans run through GNU parallel
(here and on a "remote" host through ssh/rsync) and a Slurm array script,
merges, the tables' figures (means, CIs, verdicts, throughput), traces,
plots and index.html, argument errors. A few short QEMU boots and a few
dozen simulator runs: well under a minute in all on an idle machine."""
import csv
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from qemulib import skip  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "experiment")
SBATCH = os.path.join(ROOT, "tools", "experiment.sbatch")

_loader = importlib.machinery.SourceFileLoader("experiment", TOOL)
_spec = importlib.util.spec_from_loader("experiment", _loader)
experiment = importlib.util.module_from_spec(_spec)
_loader.exec_module(experiment)
cl, rp, sd, parse, stats, wl = (experiment.cl, experiment.rp, experiment.sd, experiment.parse,
                                experiment.rp.stats, experiment.wl)

TINY = "sysbench --num-threads=2 --max-requests=5"
MEDIUM = "rtapp:tests/workloads/medium.json"


def tool(*args, python_flags=(), timeout=300, cwd=ROOT, script=TOOL):
    return subprocess.run([sys.executable, *python_flags, script, *args], cwd=cwd, capture_output=True,
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


def result_files(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".json"))


# ------------------------------------------------------------------ QEMU cells
def test_qemu_matrix_writes_cells_csv_and_summary():
    def body(out):
        p = tool("run", "--engine", "qemu", "--boards", "qemu-tc2", "--pack", "off,rails", "--script", TINY,
                 "--out", out)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        header, rows = read_csv(os.path.join(out, "results.csv"))
        assert header[:8] == ["engine", "board", "pack", "governor", "workload", "repeat", "seed", "bench"], header
        assert header[-2:] == ["cell", "raw"], header
        expected = ["threads", "requests", "time_us", "energy", "energy_c0", "energy_c1",
                    "cluster0_off_us", "cluster1_off_us"]
        expected += ["cpu%d_%s_us" % (c, k) for c in range(5) for k in ("busy", "idle")]
        assert not set(expected) - set(header), header
        assert [(r["pack"], r["governor"]) for r in rows] == [("off", "performance"), ("rails", "performance")], rows
        for r in rows:
            assert (r["engine"], r["board"], r["workload"], r["bench"]) == ("qemu", "qemu-tc2", "script", "sysbench")
            assert (r["threads"], r["requests"]) == ("2", "5") and int(r["time_us"]) > 0, r
            assert r["raw"].startswith("RESULT bench=sysbench board=qemu-tc2 pack=%s " % r["pack"]), r
            assert int(r["energy"]) == int(r["energy_c0"]) + int(r["energy_c1"]), r
        cells = result_files(os.path.join(out, "cells"))
        assert len(cells) == 2 and all(c.startswith("qemu-qemu-tc2-") for c in cells), cells
        with open(os.path.join(out, "cells", cells[0])) as f:
            res = json.load(f)
        assert res["status"] == "ok" and res["cell"]["engine"] == "qemu" and res["cell"]["seed"] is None, res
        assert res["build"]["binary"] == "build/qemu-tc2/kernel.bin" and len(res["build"]["binary_sha256"]) == 12
        assert res["command"].startswith("tools/experiment cell --engine qemu --board qemu-tc2 "), res["command"]
        with open(os.path.join(out, "summary.md")) as f:
            md = f.read()
        assert "## script on qemu-tc2 (qemu)" in md and "### sysbench (total time)" in md, md
        assert re.search(r"\| off \| 2 \| 5 \| 1 \| \d+\.\d{4} \|", md), md
        assert os.path.isfile(os.path.join(out, "kernels", "qemu-tc2", "kernel.bin"))
    in_tmp(body)


def test_failed_cells_are_reported_with_their_console():
    def body(out):
        p = tool("run", "--engine", "qemu", "--boards", "qemu-tc2", "--pack", "off", "--script", "uptime",
                 "--out", out)
        assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
        assert "FAILED engine=qemu board=qemu-tc2 pack=off workload=script repeat=0: no RESULT line" in p.stderr
        assert "    | sched> uptime" in p.stderr and "    | Powering off." in p.stderr, p.stderr
        # The simulator: a script command it does not have is its exit 2, reported the same way.
        q = tool("cell", "--engine", "sim", "--board", "tc2", "--pack", "off", "--script", "bogus 1",
                 "--out", out)
        assert q.returncode == 1, (q.returncode, q.stdout, q.stderr)
        assert "schedsim exited with status 2: schedsim: error: script: unknown command 'bogus'" in q.stderr, q.stderr
        with open(os.path.join(out, [f for f in result_files(out) if f.startswith("sim-")][0])) as f:
            res = json.load(f)
        assert res["status"] == "failed" and "unknown command" in res["error"], res
        with open(os.path.join(out, "summary.md"), "w"):
            pass
        m = tool("merge", out, os.path.join(out, "cells"), "--out", os.path.join(out, "m"))
        assert m.returncode == 1 and "merged 2 cells (2 failed)" in m.stdout, (m.stdout, m.stderr)
        with open(os.path.join(out, "m", "summary.md")) as f:
            md = f.read()
        assert "## Failed cells" in md and "unknown command 'bogus'" in md, md
    in_tmp(body)


def test_qemu_types_a_script_longer_than_the_bootargs():
    """An rt-app file whose commands do not fit the autorun boot argument: typed
    at the console, one command after each prompt (the spec: any file
    tools/rtapp accepts, however many tasks, phases and events)."""
    tasks = {}
    for i in range(16):     # the kernel's limits: 16 specs, 32 instances, 4 phases of up to 8 events
        tasks["task%02d" % i] = {"instance": 2, "phases": {
            "a": {"loop": 3, "run": 100 + i, "timer": {"ref": "unique", "period": 4000}},
            "b": {"loop": 2, "run": 200 + i, "sleep": 300, "timer": {"ref": "unique", "period": 5000}},
            "c": {"loop": 2, "run": 150 + i, "sleep": 100, "run1": 50, "timer": {"ref": "unique", "period": 6000}},
            "d": {"loop": 1, "sleep": 1000}}}
    doc = {"global": {"duration": 1}, "tasks": tasks}

    def body(out):
        path = os.path.join(out, "long.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        w, _ = wl.rtapp_workload("rtapp:" + path, path)
        assert not cl.qemu_run.fits_autorun(w.script), len(w.script)
        p = tool("run", "--engine", "qemu", "--boards", "vexpress-a9", "--pack", "off", "--workload",
                 "rtapp:" + path, "--out", out)
        assert p.returncode == 0, (p.stdout, p.stderr)
        assert "typed at the console" in p.stderr, p.stderr
        _, rows = read_csv(os.path.join(out, "results.csv"))
        assert [(r["bench"], r["tasks"], r["specs"]) for r in rows] == [("rtapp", "32", "16")], rows
        # Work asked: the ideal timeline of the typed commands; done: what the kernel's lines report.
        asked = sum(wl.RtappSpec.from_script(w.script).asked().values()) / 1000.0
        assert float(rows[0]["work_asked_ms"]) == round(asked, 3), (asked, rows[0])
        assert 0 < float(rows[0]["throughput"]) <= 1.0, rows[0]
    in_tmp(body)


# ------------------------------------------------------------------ plans: parallel, ssh, Slurm
def plan(*args, cwd=ROOT):
    p = tool("plan", *args, cwd=cwd, script=os.path.join(cwd, "tools", "experiment"))
    assert p.returncode == 0, (args, p.stdout, p.stderr)
    return p.stdout.splitlines()


def test_plan_through_parallel_and_merge():
    """A small plan (8 simulator cells, 2 repeats) through `parallel -j2`, a
    merge, and figures in the merged tables that a broken step would change."""
    assert shutil.which("parallel"), "GNU parallel missing (tools/ensure-deps.sh installs it)"

    def body(d):
        cells = os.path.join(d, "cells")
        lines = plan("--boards", "tc2", "--pack", "off,energy", "--workload", MEDIUM, "--repeat", "2",
                     "--out", cells)
        lines += plan("--boards", "vexpress-a9", "--pack", "off", "--workload", "sysbench-seed,sysbench-control",
                      "--quick", "--repeat", "2", "--out", cells)
        assert len(lines) == 8, lines
        assert all(ln.startswith("tools/experiment cell --engine sim ") and "--seed" in ln for ln in lines), lines
        assert sum("--repeat-index 1 --seed 2" in ln for ln in lines) == 4, lines
        p = subprocess.run(["parallel", "-j2"], input="\n".join(lines) + "\n", cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, (p.stdout, p.stderr)
        assert len(result_files(cells)) == 8, result_files(cells)
        m = tool("merge", cells, "--out", os.path.join(d, "out"))
        assert m.returncode == 0 and "merged 8 cells (0 failed)" in m.stdout, (m.stdout, m.stderr)
        _, rows = read_csv(os.path.join(d, "out", "results.csv"))
        rt = [r for r in rows if r["bench"] == "rtapp"]
        assert sorted((r["pack"], r["repeat"], r["seed"]) for r in rt) == [
            ("energy", "0", "1"), ("energy", "1", "2"), ("off", "0", "1"), ("off", "1", "2")], rt
        for r in rt:
            # medium.json: 4 x 2 ms every 10 ms for 2 s; every loop keeps its deadline on a TC2.
            assert float(r["work_asked_ms"]) == 4 * 199 * 2.0, r
            assert 0.99 <= float(r["throughput"]) <= 1.0 and r["overruns"] == "0", r
        sb = {(r["workload"], r["repeat"], r["threads"], r["requests"]): int(r["time_us"]) for r in rows
              if r["bench"] == "sysbench"}
        assert len(sb) == 24, sb
        for k, t in sb.items():
            if k[0] == "sysbench-control":
                # Every thread on one CPU of four: about four times as long (the negative control).
                ratio = t / sb[("sysbench-seed",) + k[1:]]
                assert 3.5 < ratio < 4.5, (k, ratio)
        # Seeds 1 and 2 differ (work jitter): a CI, not a repeated figure.
        assert sb[("sysbench-seed", "0", "8", "200")] != sb[("sysbench-seed", "1", "8", "200")], sb
        with open(os.path.join(d, "out", "summary.md")) as f:
            md = f.read()
        assert "## rtapp:tests/workloads/medium.json on tc2 (sim)" in md, md
        m_off = re.search(r"\| off \| 2 \| (\d+) ± (\d+) \|", md)
        assert m_off and int(m_off.group(2)) > 0, md
        t = re.search(r"\| off \| 8 \| 200 \| 2 \| (\d+\.\d+) ± (\d+\.\d+) \|", md)
        assert t and 0 < float(t.group(2)) < 0.01 * float(t.group(1)), md
    in_tmp(body)


FAKE_SSH = """#!/bin/sh
# ssh's stand-in for the test: drops ssh's options, the host and "--", runs the
# command here through a shell, as sshd does on the remote host.
while [ $# -gt 0 ]; do
\tcase "$1" in
\t-l|-p|-o|-i|-S|-F|-e) shift 2 ;;
\t-*) shift ;;
\t*) break ;;
\tesac
done
shift
[ "${1:-}" = "--" ] && shift
# sshd gives the session the user's login shell in SHELL; parallel's remote
# worker runs the job with $SHELL (unset, the job silently does not run).
SHELL=$(getent passwd "$(id -u)" | cut -d: -f7)
export SHELL="${SHELL:-/bin/sh}"
exec /bin/sh -c "$*"
"""


def test_parallel_on_another_host_with_basefile_and_return():
    """The README's scale-out: `parallel --sshloginfile` runs each cell in the
    other host's checkout (--workdir), --basefile sends a workload made here once
    before the first cell (--transferfile would be removed by the first cell's
    --cleanup while the others may still read it), --return brings the result
    file back, --cleanup removes both there. The
    other host is a second checkout on this machine behind a stand-in ssh (rsync
    runs through it as through ssh)."""
    for prog in ("parallel", "rsync"):
        assert shutil.which(prog), "%s missing (tools/ensure-deps.sh installs it)" % prog

    def body(d):
        here, there = os.path.join(d, "here"), os.path.join(d, "there")
        for top in (here, there):
            os.makedirs(top)
            for sub in ("tools", "boards", "build", "tests"):
                os.symlink(os.path.join(ROOT, sub), os.path.join(top, sub))
        os.makedirs(os.path.join(here, "wl"))
        shutil.copy(os.path.join(ROOT, "tests", "workloads", "medium.json"), os.path.join(here, "wl", "mine.json"))
        ssh = os.path.join(d, "ssh")
        with open(ssh, "w") as f:
            f.write(FAKE_SSH)
        os.chmod(ssh, 0o755)
        with open(os.path.join(d, "hosts"), "w") as f:
            f.write("2/otherhost\n")
        lines = plan("--boards", "tc2", "--pack", "off,energy", "--workload", "rtapp:wl/mine.json", "--tsv",
                     "--out", "results", cwd=here)
        assert len(lines) == 2 and all(ln.split("\t")[0].startswith("results/sim-tc2-") for ln in lines), lines
        with open(os.path.join(d, "plan.tsv"), "w") as f:
            f.write("\n".join(lines) + "\n")
        p = subprocess.run(["parallel", "--ssh", ssh, "--sshloginfile", os.path.join(d, "hosts"), "--workdir", there,
                            "--basefile", "wl/mine.json", "--return", "{1}", "--cleanup", "--colsep", "\t",
                            "eval {2}", "::::", os.path.join(d, "plan.tsv")],
                           cwd=here, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, (p.stdout, p.stderr)
        # parallel ignores a failed --return: its rsync's complaint is the only trace.
        got = result_files(os.path.join(here, "results"))
        assert got == ["sim-tc2-energy-rtapp_wl_mine-r0.json", "sim-tc2-off-rtapp_wl_mine-r0.json"], \
            (got, p.stdout, p.stderr)
        assert p.stdout.count(": ok, results/sim-tc2-") == 2, p.stdout
        for f in got:
            with open(os.path.join(here, "results", f)) as fh:
                res = json.load(fh)
            assert res["status"] == "ok" and res["root"] == there, (res["root"], res.get("error"))
        # --cleanup: nothing left over there.
        assert not os.path.exists(os.path.join(there, "results", got[0])), os.listdir(there)
        assert not os.path.exists(os.path.join(there, "wl", "mine.json")), os.listdir(there)
        m = tool("merge", os.path.join(here, "results"), "--out", os.path.join(d, "out"))
        assert m.returncode == 0 and "merged 2 cells" in m.stdout, (m.stdout, m.stderr)
    in_tmp(body)


def test_slurm_array_script_runs_one_plan_line_per_task():
    """tools/experiment.sbatch without a cluster: its body with SLURM_ARRAY_TASK_ID
    set, once per line, as `sbatch --array=1-N` would (and `sbatch --test-only` when
    slurm-wlm is installed)."""
    def body(d):
        cells = os.path.join(d, "cells")
        lines = plan("--boards", "vexpress-a9", "--pack", "off,all", "--workload", MEDIUM, "--out", cells)
        planfile = os.path.join(d, "plan.txt")
        with open(planfile, "w") as f:
            f.write("\n".join(lines) + "\n")
        env = dict(os.environ, SLURM_SUBMIT_DIR=ROOT)
        for k in range(1, len(lines) + 1):
            p = subprocess.run(["bash", SBATCH, planfile], env=dict(env, SLURM_ARRAY_TASK_ID=str(k)),
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, (k, p.stdout, p.stderr)
        assert len(result_files(cells)) == 2, result_files(cells)
        p = subprocess.run(["bash", SBATCH, planfile], env=dict(env, SLURM_ARRAY_TASK_ID="3"),
                           capture_output=True, text=True)
        assert p.returncode == 2 and "has no line 3" in p.stderr, (p.returncode, p.stderr)
        p = subprocess.run(["bash", SBATCH, planfile], env={k: v for k, v in env.items()
                                                            if k != "SLURM_ARRAY_TASK_ID"},
                           capture_output=True, text=True)
        assert p.returncode != 0 and "sbatch --array" in p.stderr, p.stderr
        if shutil.which("sbatch"):
            p = subprocess.run(["sbatch", "--test-only", "--array=1-2", SBATCH, planfile], capture_output=True,
                               text=True)
            print("test_experiment: sbatch --test-only: %s" % (p.stdout + p.stderr).strip())
        m = tool("merge", cells, "--out", os.path.join(d, "out"))
        assert m.returncode == 0 and "merged 2 cells (0 failed)" in m.stdout, (m.stdout, m.stderr)
    in_tmp(body)


def test_merge_keeps_the_first_of_a_cell_found_twice_and_ignores_other_json():
    def body(d):
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        line = plan("--boards", "vexpress-a9", "--pack", "off", "--script", TINY, "--out", a)[0]
        assert subprocess.run(line, shell=True, cwd=ROOT, capture_output=True).returncode == 0
        os.makedirs(b)
        shutil.copy(os.path.join(a, result_files(a)[0]), b)
        with open(os.path.join(b, "other.json"), "w") as f:
            f.write('{"not": "a cell"}')
        m = tool("merge", a, b, "--out", os.path.join(d, "out"))
        assert m.returncode == 0 and "merged 1 cells" in m.stdout, (m.stdout, m.stderr)
        with open(os.path.join(d, "out", "summary.md")) as f:
            md = f.read()
        assert "found twice: kept %s" % os.path.join(a, result_files(a)[0]) in md, md
        e = tool("merge", os.path.join(d, "nosuch"), "--out", os.path.join(d, "out"))
        assert e.returncode == 2 and "no such directory" in e.stderr, e.stderr
        os.makedirs(os.path.join(d, "empty"))
        e = tool("merge", os.path.join(d, "empty"), "--out", os.path.join(d, "out"))
        assert e.returncode == 1 and "no result files" in e.stderr, e.stderr
    in_tmp(body)


# ------------------------------------------------------------------ plots and index.html
def test_plots_and_index_html():
    has_mpl = importlib.util.find_spec("matplotlib") is not None

    def body(out):
        p = tool("run", "--boards", "tc2", "--pack", "off,energy", "--workload", MEDIUM + ",cyclictest-seed",
                 "--out", out)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        pngs = ["energy-medium-tc2-sim.png", "timeline-medium-tc2-sim.png", "latency-medium-tc2-sim.png",
                "oracle-tc2-sim.png", "energy-cyclictest-seed-tc2-sim.png", "cyclictest-cyclictest-seed-tc2-sim.png"]
        with open(os.path.join(out, "index.html")) as f:
            page = f.read()
        assert "<table>" in page and "<th>pack</th>" in page and 'href="summary.md"' in page, page[:500]
        if has_mpl:
            for name in pngs:
                with open(os.path.join(out, name), "rb") as f:
                    assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
                assert '<img src="%s"' % name in page, name
            for src in re.findall(r'<img src="([^"]+)"', page):
                assert "/" not in src and os.path.isfile(os.path.join(out, src)), src
        # Without matplotlib (python -S hides Debian's dist-packages): one message, no PNG, the page still.
        shutil.rmtree(out)
        p = tool("run", "--boards", "tc2", "--pack", "off", "--workload", MEDIUM, "--out", out,
                 python_flags=("-S",))
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        assert p.stdout.count("skipping the PNG plots") == 1, p.stdout
        assert not [f for f in os.listdir(out) if f.endswith(".png")], os.listdir(out)
        assert os.path.isfile(os.path.join(out, "index.html"))
    in_tmp(body)
    if not has_mpl:
        skip("matplotlib is not importable by %s: the PNG half did not run" % sys.executable)


def test_trace_gives_latencies_and_timelines():
    trace = "\n".join([
        "# tracer: nop",
        "          <idle>-0     [000] d..2     1.000000: sched_wakeup_new: comm=w-0 pid=2 prio=120 target_cpu=000",
        "          <idle>-0     [000] d..2     1.000010: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
        "prev_state=R ==> next_comm=w-0 next_pid=2 next_prio=120",
        "             w-0-2     [000] d..2     1.500010: sched_switch: prev_comm=w-0 prev_pid=2 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
        "# tracer: nop",
        "          <idle>-0     [001] d..2     1.600000: sched_wakeup: comm=w-0 pid=2 prio=120 target_cpu=001",
        "          <idle>-0     [001] d..2     1.600100: sched_wakeup: comm=console pid=1 prio=120 target_cpu=001",
        "          <idle>-0     [001] d..2     1.600250: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 "
        "prev_state=R ==> next_comm=w-0 next_pid=2 next_prio=120",
        "             w-0-2     [001] d..2     2.000000: sched_switch: prev_comm=w-0 prev_pid=2 prev_prio=120 "
        "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
    ])

    def body(d):
        path = os.path.join(d, "t.txt")
        with open(path, "w") as f:
            f.write(trace + "\n")
        t = parse.analyse_trace(path, ["w"])
        assert t["latency_ns"] == [10000, 250000], t["latency_ns"]
        tl = t["timeline"]
        assert tl["t0_s"] == 1.0 and abs(tl["bin_s"] - 0.005) < 1e-9, tl
        assert abs(sum(tl["cpus"]["0"]) * tl["bin_s"] - 0.5) < 1e-6 and tl["cpus"]["0"][:2] == [0.998, 1.0], tl
        assert tl["cpus"]["0"][101] == 0.0 and abs(sum(tl["cpus"]["1"]) * tl["bin_s"] - 0.39975) < 1e-3, tl
    in_tmp(body)


# ------------------------------------------------------------------ the figures' arithmetic
def test_confidence_intervals():
    m, h, n = stats.mean_ci([1, 2, 3])
    assert (m, n) == (2.0, 3) and abs(h - 4.303 / 3 ** 0.5) < 1e-9, (m, h)
    assert stats.mean_ci([5])[1] is None and stats.mean_ci([]) == (None, None, 0)
    assert stats.fmt_ci([1, 2, 3], 2) == "2.00 ± 2.48" and stats.fmt_ci([7], 1) == "7.0" and stats.fmt_ci([]) == "-"
    assert stats.t975(30) == 2.042 and stats.t975(45) == 2.021 and stats.t975(1000) == 1.980


def test_rtapp_work_asked_and_throughput():
    script = ("rtapp clear; rtapp add a i=2 x3,r1000,t10000:u0 x2,r5000,s1000; "
              "rtapp add b d=5000 l=1 r2000,s8000; rtapp run 45")
    spec = wl.RtappSpec.from_script(script)
    # a: loops end at 10, 20, 30 ms (timer), then run+sleep 6 ms: 36, 42; the task loops again: run
    # to 43, its timer's next boundary (40, the timeline goes on from 30) is past: an overrun, the
    # loop ends at 43 (counted); the next would end at 50 > 45. b: one loop from 5 ms to 15 ms (l=1).
    assert spec.asked() == {("a", 0): 4 * 1000 + 2 * 5000, ("a", 1): 14000, ("b", 0): 2000}, spec.asked()
    assert abs(spec.demand() - (2 * 5000 / 6000.0 + 0.2)) < 1e-9, spec.demand()
    out = "\n".join("rtapp: task=%s inst=%d tid=%d cpu=0 phase=%d loops=%d period_us=0 c_run_us=%d run_us=1 "
                    "run_max_us=1 act_period_us=1 slack_us=%d slack_min_us=0 wakeups=0 lat_min_us=0 lat_avg_us=0 "
                    "lat_max_us=0 overruns=0" % row for row in [
                        ("a", 0, 2, 0, 3, 1000, 100), ("a", 0, 2, 1, 1, 5000, 0), ("a", 1, 3, 0, 3, 1000, 300),
                        ("a", 1, 3, 1, 2, 5000, 0), ("b", 0, 4, 0, 1, 2000, 0)])
    d = parse.rtapp_derived(parse.rtapp_threads(out), spec)
    assert d == {"slack_avg_us": round((3 * 100 + 3 * 300) / 10.0, 1), "work_done_ms": 23.0,
                 "work_asked_ms": 30.0, "throughput": round(23 / 30.0, 4)}, d
    assert wl.RtappSpec.from_script("rtapp add a r1000,t1000:u0") is None      # no run
    assert wl.RtappSpec.from_script("rtapp add a z9; rtapp run 5") is None       # unknown item


def test_workloads_within_and_beyond_one_cpu():
    within, beyond = sd.rtapp_sets()
    short = [wl.short_name(w) for w in within], [wl.short_name(w) for w in beyond]
    assert short == (["bursts", "medium", "mixed-latency", "ramp"],
                     ["big-small", "buddy-overload", "burst16", "eas-2big3small", "eas-wake-migration", "ramp100",
                      "thirty"]), short
    for w in within + beyond:
        work, _ = wl.rtapp_workload(w, w[6:])
        assert work.script.startswith("rtapp clear; rtapp add ") and "; rtapp run " in work.script, work.script


def fake_result(engine, board, pack, workload, output, repeat=0, machine=None, script="", governor=None):
    """A result file's content; without @governor, as files made before the governor axis."""
    res = {"format": cl.FORMAT, "status": "ok", "output": output, "trace": None,
           "machine": machine or {"cpus": [], "speed": "capacity" if engine == "sim" else "uniform"},
           "cell": {"engine": engine, "board": board, "pack": pack, "workload": workload, "script": script,
                    "repeat": repeat, "seed": repeat + 1 if engine == "sim" else None}}
    if governor:
        res["cell"].update(governor=governor, governor_arg=governor)
    return res


def rtapp_line(board, pack, energy, c0, overruns, busy=(100000, 100000), dur=2000000):
    return ("RESULT bench=rtapp board=%s pack=%s engine=sim tasks=4 specs=1 duration_us=%d loops=796 overruns=%d "
            "slack_min_us=1 lat_avg_us=7 lat_max_us=9 energy=%d energy_c0=%d energy_c1=%d cpu0_busy_us=%d "
            "cpu0_idle_us=%d cpu2_busy_us=%d cpu2_idle_us=%d cluster0_off_us=0 cluster1_off_us=0" % (
                board, pack, dur, overruns, energy, c0, energy - c0, busy[0], dur - busy[0], busy[1], dur - busy[1]))


def test_oracle_bound_by_hand():
    """tools/bench's oracle() against figures worked out by hand (not its own output) on a made-up
    two-rail model: rail A (2 CPUs, core busy 100 / idle 0, rail busy 50 / idle 20 / off 5) and
    rail B (3 CPUs at half speed, core busy 20 / idle 1, rail busy 10 / idle 4, never off); 30 ms
    of work at capacity 1024 in a 100 ms window (energy in power x ms).
    Spread over A: 30 ms busy, rail on 15 ms: 30x100 + 15x50 + 85x5 off, B asleep 100x(4 + 3x1):
    3000 + 750 + 425 + 700 = 4875. Spread over B: 60 ms of work at half speed, rail on 20 ms:
    60x20 + 20x10 + 80x(4 + 3x1) + A off 100x5 = 1200 + 200 + 560 + 500 = 2460 (no core sits in
    WFI while the rail is on: 3 x 20 = 60). Serial on B (one CPU, rail on 60 ms, the others in
    WFI): 60x30 + 40x7 + 500 + 2x60x1 = 2700; on A: 30x150 + 70x5 + 700 = 5550. The bound is the
    least of the spreads, B's; the serial one B's too."""
    model = [
        {"name": "a", "cpus": [0, 1], "core_busy": 100, "capacity": 1024, "core_idle": 0,
         "rail_busy": 50, "rail_idle": 20, "rail_off": 5},
        {"name": "b", "cpus": [2, 3, 4], "core_busy": 20, "capacity": 512, "core_idle": 1,
         "rail_busy": 10, "rail_idle": 4, "rail_off": None},
    ]
    best, serial = rp.bench.oracle(model, 30.0, 100.0, [1024, 512])
    assert abs(best[0] - 2460) < 1e-6 and best[1]["name"] == "b", best
    assert abs(serial[0] - 2700) < 1e-6 and serial[1]["name"] == "b", serial
    # Same speed everywhere (QEMU): B's 30 ms spread: 30x20 + 10x10 + 90x7 + 500 = 1830.
    best, _ = rp.bench.oracle(model, 30.0, 100.0)
    assert abs(best[0] - 1830) < 1e-6, best
    # B with a second, lower operating point (capacity 256: half its top's speed, core 8, rail 6).
    # Simulator: 120 ms of work there, rail on 40: 120x8 + 40x6 + 60x7 + 500 = 2120, below the top
    # OPP's 2460. Serial: 120 ms on one CPU, past the window: 120x14 + 500 + 2x100x1 = 2380.
    # QEMU (no speed change): 30x8 + 10x6 + 90x7 + 500 = 1430.
    model[1]["opps"] = [(256, 8, 6), (512, 20, 10)]
    best, serial = rp.bench.oracle(model, 30.0, 100.0, [1024, 512])
    assert abs(best[0] - 2120) < 1e-6 and best[1]["name"] == "b" and best[1]["opp_capacity"] == 256, best
    assert abs(serial[0] - 2380) < 1e-6 and serial[1]["opp"] == 0, serial
    best, _ = rp.bench.oracle(model, 30.0, 100.0)
    assert abs(best[0] - 1430) < 1e-6, best
    # TC2's DT: the A7s' pairs per OPP, and their cheapest OPP per unit of work on the simulator,
    # 800 MHz (capacity 344: (549 + 2847) / 344, the least of the eight).
    tc2 = rp.bench.parse_energy_model("tc2")
    assert [len(r["opps"]) for r in tc2] == [8, 8] and tc2[1]["opps"][5] == (344, 549, 2847), tc2
    assert rp.bench.oracle(tc2, 400.0, 16000.0, [1024, 430])[0][1]["opp_capacity"] == 344


def test_energy_verdicts_and_why():
    """pack=energy against the others from hand-written results: energy misses by
    3% (with where the extra goes), more missed deadlines than off, and a
    missing run said, not counted as met."""
    machine = {"cpus": [{"cpu": c, "cluster": int(c > 1), "capacity": 1024 if c < 2 else 516} for c in range(5)],
               "speed": "capacity"}
    res = []
    for pack, e, c0, ov in (("off", 10000000, 9000000, 1), ("rails", 4000000, 3000000, 0),
                            ("all", 5000000, 4000000, 0), ("energy", 4120000, 3120000, 4)):
        for rep, jitter in ((0, 0), (1, 20000)):
            res.append(fake_result("sim", "tc2", pack, MEDIUM, rtapp_line("tc2", pack, e + jitter, c0 + jitter, ov),
                                   repeat=rep, machine=machine))
    groups = rp.Groups(res)
    table, verdicts = rp.energy_verdicts(groups, "sim", "tc2", [MEDIUM])
    by = {r["pack"]: r for r in table}
    assert by["energy"]["vs_best"] == "1.030" and by["rails"]["vs_best"] == "0.971", table
    assert by["energy"]["energy"] == "4130000 ± 127060" and by["energy"]["n"] == 2, by["energy"]
    # One oracle bound per workload (least work: 100 ms at 1024 + 100 ms at 516 -> 150.4 ms) in 2 s.
    model = rp.bench.parse_energy_model("tc2")
    eo = rp.bench.oracle(model, 100.0 + 100.0 * 516 / 1024, 2000.0, [1024, 516])[0][0]
    assert by["energy"]["vs_oracle"] == "%.2f" % (4130000 / eo), (eo, by["energy"])
    v = {what: (meas, ok, why) for what, meas, _, ok, why in verdicts}
    assert v["energy, medium"][:2] == ("1.030 of the best other (rails)", False), v
    assert v["energy, medium"][2].startswith("+120000 on cluster 0 (its CPUs busy 100 ms vs 100 ms)"), v
    assert v["missed deadlines, medium"][:2] == ("energy 4.0 ± 0.0, off 1.0 ± 0.0 (overruns, n=2)", False), v
    md = "\n".join(rp.verdict_lines(verdicts, "simulator"))
    assert "- verdict (simulator): energy, medium: 1.030 of the best other (rails) (target <= 1.02): MISSED" in md
    _, verdicts = rp.energy_verdicts(rp.Groups([r for r in res if r["cell"]["pack"] != "energy"]), "sim", "tc2",
                                     [MEDIUM])
    assert verdicts[0][3] is None and verdicts[1][3] is None, verdicts


def test_energy_is_compared_with_modes_that_do_the_same_work():
    """A mode that saves energy by doing less of the work (throughput more than 1%
    below energy's) or by missing more deadlines (beyond 10% + 2) is left out of
    pack=energy's comparison and named; a mode doing the same job cheaper still
    fails the verdict; with every other mode left out the verdict is met and says why."""
    def ms(e, thr, ov):
        return [{"energy": e, "throughput": thr, "overruns": ov}]
    bypack = {"energy": ms(100.0, 1.0, 5), "rails": ms(60.0, 0.80, 0), "all": ms(70.0, 1.0, 30),
              "off": ms(101.0, 0.995, 7)}
    others = {p: m[0]["energy"] for p, m in bypack.items() if p != "energy"}
    what, meas, target, ok, why = rp.energy_vs_same_work(bypack, "w", others)
    assert ok is True and meas.startswith("0.990 of the best other (off); left out, doing less: "), meas
    assert "rails: 20.0% less work for 0.60x the energy" in meas and \
        "all: 25 more missed deadlines for 0.70x the energy" in meas, meas
    # off does the same job for 5% less: energy misses, whatever rails and all did.
    bypack["off"] = ms(95.0, 1.0, 5)
    _, meas, _, ok, why = rp.energy_vs_same_work(bypack, "w", dict(others, off=95.0))
    assert ok is False and meas.startswith("1.053 of the best other (off)"), meas
    # Nobody else does the work: met, naming what the others did instead.
    bypack["off"] = ms(50.0, 0.5, 5)
    _, meas, _, ok, _ = rp.energy_vs_same_work(bypack, "w", dict(others, off=50.0))
    assert ok is True and meas.startswith("no other mode does this work: off: 50.0% less work"), meas
    # Workloads without throughput or deadlines (cyclictest): every mode compared.
    plain = {p: [{"energy": m[0]["energy"]}] for p, m in bypack.items()}
    _, meas, _, ok, _ = rp.energy_vs_same_work(plain, "w", {"rails": 60.0, "all": 70.0, "off": 50.0})
    assert ok is False and meas == "2.000 of the best other (off)", meas


def test_latency_verdict_judged_at_uniform_speed():
    """With the uniform-speed pair present the simulator's latency verdict is
    theirs, and the line at the CPUs' own speeds is reported beside it, not
    judged; without it the own-speed line is the verdict, as before."""
    def cyc(pack, avg, workload, busy):
        machine = {"cpus": [{"cpu": 0, "cluster": 0, "capacity": 1024}, {"cpu": 1, "cluster": 1, "capacity": 512}],
                   "speed": "uniform" if workload.endswith("-uniform") else "capacity"}
        out = "\n".join("RESULT bench=cyclictest board=tc2 pack=%s engine=sim threads=8 duration_us=20000000 "
                        "lat_min_us=0 lat_avg_us=%d lat_max_us=9 energy=1 cpu0_busy_us=%d cpu0_idle_us=1 "
                        "cpu1_busy_us=%d cpu1_idle_us=1" % (pack, avg, busy[0], busy[1]) for _ in range(2))
        out += "\nenergy: src=model window_us=16000000 total=1\nenergy: energy=1 energy_c0=0 energy_c1=1 " \
            "cpu0_busy_us=%d cpu0_idle_us=1 cpu1_busy_us=%d cpu1_idle_us=1" % busy
        return fake_result("sim", "tc2", pack, workload, out, machine=machine)
    res = [cyc("off", 2, "cyclictest-seed", (1000, 0)), cyc("energy", 4, "cyclictest-seed", (0, 1000))]
    md = sd.seeds_markdown(res, ["off", "energy"])
    assert "- verdict (simulator): cyclictest avg latency, energy / off (tc2): 4.00 us / 2.00 us = 2.000 " \
        "(target <= 1.10): MISSED" in md, md
    res += [cyc("off", 2, "cyclictest-seed-uniform", (1000, 0)), cyc("energy", 2, "cyclictest-seed-uniform", (0, 1000))]
    md = sd.seeds_markdown(res, ["off", "energy"])
    assert "- verdict (simulator): cyclictest avg latency, energy / off (tc2, every CPU at capacity 1024): " \
        "2.00 us / 2.00 us = 1.000 (target <= 1.10): met" in md, md
    assert "- reported (simulator): cyclictest avg latency, energy / off (tc2): 4.00 us / 2.00 us = 2.000 " \
        "(at the CPUs' own speeds; not the verdict)" in md, md
    assert "busy time per unit of capacity-1024 work, energy 2.00, off 1.00" in md, md
    assert "MISSED: cyclictest avg latency" not in md, md


def sysbench_output(board, pack, scale, engine="sim"):
    return "\n".join("RESULT bench=sysbench board=%s pack=%s engine=%s threads=%d requests=%d time_us=%d energy=1"
                     % (board, pack, engine, n, r, int(r * 2000 * scale)) for n in (8, 12, 16) for r in (200, 2000))


def test_seeds_tables_side_by_side():
    res = []
    for rep, j in ((0, 1.0), (1, 1.002)):
        res += [fake_result("sim", "vexpress-a9", p, "sysbench-seed", sysbench_output("vexpress-a9", p, s * j),
                            repeat=rep) for p, s in (("off", 1.0), ("all", 1.0), ("energy", 1.005))]
        res.append(fake_result("sim", "vexpress-a9", "off", "sysbench-control",
                               sysbench_output("vexpress-a9", "off", 4.0 * j), repeat=rep))
    res += [fake_result("qemu", "vexpress-a9", p, "sysbench-seed", sysbench_output("vexpress-a9", p, 1.0, "qemu")
                        .replace("requests=200 ", "requests=20 ").replace("requests=2000 ", "requests=200 "))
            for p in ("off", "all")]
    for engine, board, c0s in (("sim", "tc2", (5000, 500, 1600, 400)), ("qemu", "qemu-tc2", (4000, 600, 800, 500))):
        for (pack, c0), c1 in zip(zip(("off", "rails", "all", "energy"), c0s), (2000, 3000, 2250, 2200)):
            out = "energy: src=model window_us=16000000 total=1\nenergy: energy=%d energy_c0=%d energy_c1=%d " \
                  "cluster0_off_us=8000000 cluster1_off_us=0" % (c0 + c1, c0, c1)
            res.append(fake_result(engine, board, pack, "cyclictest-seed", out))
    md = sd.seeds_markdown(res, ["off", "rails", "all", "energy"])
    # Two repeats, 0.4 s and 0.4008 s: mean 0.4004, half-width t(1) 12.706 x sd 0.000566 / sqrt(2) = 0.0051.
    assert "| N=8; R=200 | 3.1999 | 3.1921 | 0.9976 | 0.4004 ± 0.0051 | 0.4004 ± 0.0051 | 1.0000 | 1.0050 | " \
           "1.6016 ± 0.0203 | 4.0000 | 0.4000 | 0.4000 | 1.0000 | - |" in md, md
    assert "- verdict (simulator): sysbench time, energy / off (vexpress-a9, worst of 6): 1.0050 (target <= 1.01): met" \
        in md, md
    assert "- check (simulator): the control shows a loss: control/off at least 4.000 over 6 (N, R): yes" in md, md
    assert "| seed default | 100 | 40 | 140 |" in md and "| seed pack | <1 | 45 | <46 |" in md, md
    assert "| sim off | 100.0 | 40.0 | 140.0 |" in md and "| sim rails | 10.0 | 60.0 | 70.0 |" in md, md
    assert "| QEMU off | 100.0 | 50.0 | 150.0 |" in md and "| QEMU energy | 12.5 | 55.0 | 67.5 |" in md, md
    assert md.count("**Engine to trust: the simulator") == 4, md
    assert "- verdict (simulator): energy, cyclictest-seed: 0.743 of the best other (rails) (target <= 1.02): met" \
        in md, md
    assert "- check (QEMU): the control shows a loss: missing runs" in md, md


# ------------------------------------------------------------------ arguments
def test_argument_errors_exit_2():
    bad = [
        [],
        ["bogus"],
        ["run"],
        ["run", "--boards", "qemu-tc2"],
        ["run", "--engine", "qemu", "--boards", "tc2", "--script", TINY],
        ["run", "--boards", "nosuch", "--script", TINY],
        ["run", "--boards", "nosuch.dtb", "--script", TINY],
        ["run", "--boards", "gen:2x0", "--script", TINY],
        ["run", "--boards", "qemu-tc2", "--pack", "on", "--script", TINY],
        ["run", "--boards", "qemu-tc2", "--workload", "nosuch"],
        ["run", "--boards", "qemu-tc2", "--workload", "rtapp:nosuch.json"],
        ["run", "--engine", "qemu", "--boards", "qemu-tc2", "--workload", "cyclictest-seed-uniform"],
        ["run", "--boards", "qemu-tc2", "--script", TINY, "--jobs", "0"],
        ["run", "--boards", "qemu-tc2", "--script", TINY, "--repeat", "0"],
        ["run", "--boards", "qemu-tc2", "--script", 'echo "x"'],
        ["run", "--boards", "qemu-tc2", "--engine", "both", "--script", TINY],
        ["plan", "--boards", "tc2", "--script", TINY],
        ["plan", "--seeds", "--boards", "tc2", "--out", "x"],
        ["plan", "--boards", "tc2", "--engine", "both", "--script", TINY, "--out", "x"],
        ["cell", "--engine", "sim", "--board", "tc2", "--pack", "off", "--out", "x"],
        ["cell", "--engine", "sim", "--board", "tc2", "--pack", "off", "--workload", "light", "--script", TINY,
         "--out", "x"],
        ["cell", "--engine", "sim", "--board", "tc2", "--pack", "off", "--workload", "light", "--repeat-index", "-1",
         "--out", "x"],
        ["merge", "--out", "x"],
        ["seeds", "--bogus"],
        ["seeds", "--repeat", "0"],
    ]
    for args in bad:
        p = tool(*args)
        assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
        assert p.stderr.startswith("usage: tools/experiment"), (args, p.stderr)
        assert "RESULT" not in p.stdout and "cells (" not in p.stdout, (args, p.stdout)


def test_result_parser_on_hand_written_lines():
    line = ("sched> RESULT bench=cyclictest board=qemu-tc2 pack=rails threads=8 duration_us=20000000 "
            "lat_min_us=1 lat_avg_us=3 lat_max_us=91 energy=30 energy_c0=10 energy_c1=20 "
            "cpu0_busy_us=5 cpu0_idle_us=95 cluster0_off_us=7\r\n")
    d = experiment.parse_result_line(line)
    assert d["bench"] == "cyclictest" and d["board"] == "qemu-tc2" and d["pack"] == "rails", d
    assert d["threads"] == "8" and d["lat_max_us"] == "91" and d["energy_c1"] == "20", d
    assert d["raw"] == line[len("sched> "):].rstrip(), d
    for no in ("", "RESULT", "RESULTS bench=x", "energy: energy=5", "result bench=x"):
        assert experiment.parse_result_line(no) is None, no
    console = "\n".join([
        "sched> energy",
        "energy: src=model window_us=16000006 total=30",
        "energy: cpu0 energy=3",
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


# ------------------------------------------------------------------ the cpufreq governor axis
GOVERNORS = "performance, powersave, userspace, schedutil"


def test_governor_axis_in_plans_and_file_names():
    """--governor a,b multiplies the cells like --pack: one plan line per (pack,
    governor), each passing --governor to its cell, result files named apart;
    without --governor no line names one and the names are those of before."""
    lines = plan("--boards", "tc2", "--pack", "off,energy", "--governor", "performance,schedutil", "--script", TINY,
                 "--tsv", "--out", "cells")
    assert len(lines) == 4, lines
    files = [ln.split("\t")[0] for ln in lines]
    cmds = [ln.split("\t")[1] for ln in lines]
    assert sum(" --governor schedutil " in c for c in cmds) == 2, cmds
    assert sum(" --governor performance " in c for c in cmds) == 2, cmds
    assert len(set(files)) == 4, files
    for f, c in zip(files, cmds):
        pack = "off" if " --pack off " in c else "energy"
        prefix = "cells/sim-tc2-%s-%sscript-" % (pack, "schedutil-" if "schedutil" in c else "")
        assert f.startswith(prefix) and f.endswith("-r0.json"), (f, c)
    plain = plan("--boards", "tc2", "--pack", "off", "--script", TINY, "--tsv", "--out", "cells")
    assert len(plain) == 1 and "--governor" not in plain[0], plain
    assert plain[0].split("\t")[0] in files, (plain, files)    # performance: the name files had before the axis
    # The seeds' cells under a governor: every line carries it, as many lines as without.
    seeds = plan("--seeds", "--engine", "sim", "--repeat", "1", "--out", "cells")
    sg = plan("--seeds", "--engine", "sim", "--repeat", "1", "--governor", "powersave", "--out", "cells")
    assert len(sg) == len(seeds) > 0 and all(" --governor powersave " in ln for ln in sg), sg[:3]
    assert not any("--governor" in ln for ln in seeds), seeds[:3]
    two = plan("--seeds", "--engine", "sim", "--repeat", "1", "--governor", "powersave,schedutil", "--out", "cells")
    assert len(two) == 2 * len(seeds), (len(two), len(seeds))


FAKE_SCHEDSIM = """#!/bin/sh
# schedsim's stand-in: says which --governor it was given (none: "none").
g=none
for a; do case "$a" in --governor=*) g=${a#--governor=} ;; esac; done
echo "RESULT bench=sysbench board=tc2 pack=off engine=sim threads=2 requests=5 time_us=1000 energy=3 got=$g"
"""


def test_governor_reaches_the_engines():
    """The simulator gets --governor=G, QEMU the boot argument cpufreq=G; with
    no governor asked, neither gets anything and the cell says performance."""
    def body(d):
        sim = os.path.join(d, "schedsim")
        with open(sim, "w") as f:
            f.write(FAKE_SCHEDSIM)
        os.chmod(sim, 0o755)
        w = wl.script_workload(TINY)
        got = {}
        for gov in (None, "schedutil"):
            c = cl.Cell("sim", "tc2", "off", w, governor=gov)
            res = c.run(d, 60, {"schedsim": sim})
            assert res["status"] == "ok", res
            got[gov] = (experiment.parse_console(res["output"])[0]["got"], res["cell"]["governor"],
                        res["cell"]["governor_arg"], c.filename())
        assert got[None][:3] == ("none", "performance", None), got
        assert got["schedutil"][:3] == ("schedutil", "schedutil", "schedutil"), got
        assert got[None][3].startswith("sim-tc2-off-script-") and \
            got["schedutil"][3].startswith("sim-tc2-off-schedutil-script-"), got
        with open(os.path.join(d, got["schedutil"][3])) as f:
            assert json.load(f)["command"].startswith("tools/experiment cell --engine sim --board tc2 --pack off "
                                                      "--governor schedutil "), got
        # QEMU: the boot arguments of the command it would run.
        if not os.path.isfile(os.path.join(ROOT, "build", "qemu-tc2", "kernel.bin")):
            skip("no build/qemu-tc2/kernel.bin (make boards): the QEMU half did not run", required=False)
        cmds = []

        def console(cmd, typed, timeout):
            cmds.append(cmd)
            return "RESULT bench=sysbench board=qemu-tc2 pack=off threads=2 requests=5 time_us=1 energy=1\n", None
        orig = cl.run_console
        cl.run_console = console
        try:
            for gov in (None, "powersave"):
                res = cl.Cell("qemu", "qemu-tc2", "off", w, governor=gov).run(d, 60)
                assert res["status"] == "ok", res
        finally:
            cl.run_console = orig
        appends = [c[c.index("-append") + 1] for c in cmds]
        assert "pack=off" in appends[0] and "cpufreq=" not in appends[0], appends
        assert "pack=off cpufreq=powersave " in appends[1], appends
    in_tmp(body)


def dvfs_line(board, pack, energy, c0, khz0, khz1, speed=""):
    return ("RESULT bench=sysbench board=%s pack=%s threads=2 requests=5 time_us=1000 energy=%d energy_c0=%d "
            "energy_c1=%d cpu0_busy_us=500 cpu0_idle_us=500 cluster0_freq_khz_avg=%d cluster1_freq_khz_avg=%d%s"
            % (board, pack, energy, c0, energy - c0, khz0, khz1, (" freq_speed=" + speed) if speed else ""))


def test_merge_carries_the_governor():
    """Merge: a governor column in results.csv (files made before the axis read
    as performance), the frequency keys as columns, cells that differ only by
    governor kept apart, summary.md's tables by pack mode and governor with the
    average frequency per cluster and QEMU's freq_speed=none note, the plots'
    captions and index.html; seeds.md one part per governor."""
    def body(d):
        cells = os.path.join(d, "cells")
        old = fake_result("qemu", "qemu-tc2", "off", "script", dvfs_line("qemu-tc2", "off", 300, 100, 1000000, 800000),
                          script=TINY)
        new = [fake_result("qemu", "qemu-tc2", p, "script",
                           dvfs_line("qemu-tc2", p, e, 50, 500000, 350000, "none"), script=TINY, governor="schedutil")
               for p, e in (("off", 200), ("energy", 150))]
        cl.write_result(cells, "old.json", old)
        for i, r in enumerate(new):
            cl.write_result(cells, "new%d.json" % i, r)
        out = os.path.join(d, "out")
        m = tool("merge", cells, "--out", out)
        assert m.returncode == 0 and "merged 3 cells (0 failed)" in m.stdout, (m.stdout, m.stderr)
        header, rows = read_csv(os.path.join(out, "results.csv"))
        assert header[:8] == ["engine", "board", "pack", "governor", "workload", "repeat", "seed", "bench"], header
        assert {"cluster0_freq_khz_avg", "cluster1_freq_khz_avg", "freq_speed"} <= set(header), header
        by = {(r["pack"], r["governor"]): r for r in rows}
        assert sorted(by) == [("energy", "schedutil"), ("off", "performance"), ("off", "schedutil")], rows
        assert by[("off", "schedutil")]["cluster1_freq_khz_avg"] == "350000", by
        assert by[("off", "schedutil")]["freq_speed"] == "none" and by[("off", "performance")]["freq_speed"] == "", by
        with open(os.path.join(out, "summary.md")) as f:
            md = f.read()
        assert "| pack | governor | n | energy | c0 | c1 |" in md, md
        assert re.search(r"^\| off \| performance \| 1 \| 300 \| 100 \| 200 \|", md, re.M), md
        assert re.search(r"^\| off \| schedutil \| 1 \| 200 \| 50 \| 150 \|", md, re.M), md
        assert "| pack | governor | n | cluster0 avg kHz | cluster1 avg kHz |" in md, md
        assert "| off | performance | 1 | 1000000 | 800000 |" in md and "| energy | schedutil | 1 | 500000 | 350000 |" \
            in md, md
        assert "freq_speed=none" in md and "do not change speed" in md, md
        assert "| pack | governor | threads | requests | n | time (s) |" in md, md
        with open(os.path.join(out, "index.html")) as f:
            page = f.read()
        assert "<th>governor</th>" in page and "<td>schedutil</td>" in page, page[:2000]
        caps = [cap for _, _, cap in experiment.plots.write_plots(out, rp.Groups([old] + new), log=lambda *_: None)]
        if importlib.util.find_spec("matplotlib") is not None:
            assert "Energy per cluster by pack mode and governor: script on qemu-tc2 (qemu)" in caps, caps
        # Only old files: no governor column, the summary says which one ran.
        os.remove(os.path.join(cells, "new0.json"))
        os.remove(os.path.join(cells, "new1.json"))
        m = tool("merge", cells, "--out", out)
        assert m.returncode == 0, (m.stdout, m.stderr)
        with open(os.path.join(out, "summary.md")) as f:
            md = f.read()
        assert "| pack | n | energy |" in md and "cpufreq governor: performance in every cell" in md, md
        _, rows = read_csv(os.path.join(out, "results.csv"))
        assert [r["governor"] for r in rows] == ["performance"], rows
        seeds = sd.seeds_markdown([old] + new, ["off", "rails", "all", "energy"])
        assert seeds.count("# The seeds' tables") == 2 and ", governor schedutil" in seeds, seeds[:300]
        assert "- check (QEMU, governor schedutil): the control shows a loss" in seeds and \
            "- check (QEMU, governor performance): the control shows a loss" in seeds, seeds
    in_tmp(body)


def test_bad_governor_exits_2_naming_the_valid_ones():
    for args in (["run", "--boards", "tc2", "--governor", "turbo", "--script", TINY],
                 ["run", "--boards", "tc2", "--governor", "schedutil,turbo", "--script", TINY],
                 ["plan", "--boards", "tc2", "--governor", "turbo", "--script", TINY, "--out", "x"],
                 ["plan", "--seeds", "--governor", "turbo", "--out", "x"],
                 ["cell", "--engine", "sim", "--board", "tc2", "--pack", "off", "--governor", "turbo", "--script", TINY,
                  "--out", "x"],
                 ["seeds", "--governor", "turbo"]):
        p = tool(*args)
        assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
        last = p.stderr.strip().splitlines()[-1]
        assert last.endswith("error: --governor: unknown governor 'turbo' (%s)" % GOVERNORS), (args, p.stderr)
    for args in (["run", "--boards", "tc2", "--governor", ",", "--script", TINY],
                 ["cell", "--engine", "sim", "--board", "tc2", "--pack", "off", "--governor", "schedutil,powersave",
                  "--script", TINY, "--out", "x"]):
        p = tool(*args)
        assert p.returncode == 2 and "--governor" in p.stderr, (args, p.returncode, p.stderr)
