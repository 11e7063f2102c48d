"""Workloads of tools/experiment: a console script and what a good run of it
prints. Built-ins (the seeds' benchmarks), rt-app JSON files through
tools/rtapp, ad-hoc scripts; and, for rt-app, the work the script asks for
(its ideal timeline), which the throughput column divides by.

    builtin_workload(name, quick)   -> (Workload or None, skip message or None)
    script_workload(text)           -> Workload "script"
    rtapp_files()                   -> the tests/workloads/*.json paths, sorted
    RtappSpec.from_script(script)   -> the `rtapp add` specs and the run length
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
WORKLOAD_DIR = os.path.join("tests", "workloads")

# The seeds' sysbench table (001-cover-sched-packing-small-tasks.txt): N threads x R requests.
SEED_THREADS = (8, 12, 16)
SEED_REQUESTS = (200, 2000)
CYCLIC_SEED = "cyclictest -t 8 -q -e 1000000 -D 20"
CONTROL_MASK = "0x1"    # sysbench-control: every thread on CPU0


class UsageError(Exception):
    pass


class Workload:
    """A console script and what a good run of it prints."""

    def __init__(self, name, script, expect_results=None, window=False, light=False, note="", sim_args=()):
        self.name = name
        self.script = script
        self.expect_results = expect_results  # exact number of RESULT lines, or None: at least one
        self.window = window                  # must print an `energy: energy=` window line
        self.light = light                    # must print `schedtest light` output
        self.note = note
        self.sim_args = tuple(sim_args)       # schedsim options; non-empty: a simulator-only workload

    def commands(self):
        return [c.strip() for c in self.script.split(";") if c.strip()]


def sysbench_requests(quick):
    return tuple(r // 10 for r in SEED_REQUESTS) if quick else SEED_REQUESTS


def sysbench_seed(quick, control=False):
    """The seeds' six sysbench runs in one boot; @control: each under
    `taskset 0x1` (every thread on one CPU: what a throughput loss looks like)."""
    pre = "taskset %s " % CONTROL_MASK if control else ""
    cmds = [pre + "sysbench --num-threads=%d --max-requests=%d" % (n, r)
            for n in SEED_THREADS for r in sysbench_requests(quick)]
    note = "quick: requests scaled down by 10 (R=%s instead of %s)" % (
        ",".join(map(str, sysbench_requests(True))), ",".join(map(str, SEED_REQUESTS))) if quick else ""
    return Workload("sysbench-control" if control else "sysbench-seed", "; ".join(cmds),
                    expect_results=len(cmds), note=note)


def rtapp_tool():
    """argv prefix of the rt-app translator, or None when there is none."""
    script = os.path.join(ROOT, "tools", "rtapp")
    if os.path.isfile(script):
        return [script] if os.access(script, os.X_OK) else [sys.executable, script]
    return None


def rtapp_workload(name, path):
    """(Workload, None), or (None, skip message) without tools/rtapp; UsageError
    when the file is missing or tools/rtapp refuses it."""
    tool = rtapp_tool()
    if tool is None:
        return None, "experiment: skipping workload %s: tools/rtapp does not exist (no rt-app translator)" % name
    full = path if os.path.isabs(path) else os.path.join(ROOT, path)
    if not os.path.isfile(full):
        raise UsageError("workload %s: no such file '%s'" % (name, path))
    p = subprocess.run(tool + ["--lines", full], capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        last = (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
        raise UsageError("workload %s: tools/rtapp failed (status %d): %s" % (name, p.returncode, last[0]))
    cmds = []
    for line in p.stdout.splitlines():
        for c in line.split(";"):
            c = c.strip()
            if c and not c.startswith("#"):
                cmds.append(c)
    if not cmds:
        raise UsageError("workload %s: tools/rtapp printed no console commands" % name)
    return Workload(name, "; ".join(cmds)), None


def rtapp_files():
    """tests/workloads/*.json, as repository-relative paths, sorted."""
    d = os.path.join(ROOT, WORKLOAD_DIR)
    names = sorted(f for f in os.listdir(d) if f.endswith(".json")) if os.path.isdir(d) else []
    return [os.path.join(WORKLOAD_DIR, f) for f in names]


def builtin_workload(name, quick):
    """(Workload or None, skip message or None); UsageError for an unknown name."""
    if name == "sysbench-seed":
        return sysbench_seed(quick), None
    if name == "sysbench-control":
        return sysbench_seed(quick, control=True), None
    if name in ("cyclictest-seed", "cyclictest-seed-uniform"):
        script = "%s &; %s &; sleep 2000; energy mark; sleep 16000; energy; wait" % (CYCLIC_SEED, CYCLIC_SEED)
        if name == "cyclictest-seed":
            return Workload(name, script, expect_results=2, window=True), None
        # The same run with every CPU at capacity 1024 (schedsim --speed=uniform): what
        # the placement adds to the latency, apart from the slower CPUs it chose.
        return Workload(name, script, expect_results=2, window=True, sim_args=("--speed=uniform",),
                        note="simulator only: every CPU runs at capacity 1024"), None
    if name == "light":
        return Workload(name, "energy mark; schedtest light 16 2000 100 10000; energy", expect_results=0,
                        window=True, light=True), None
    if name.startswith("rtapp:") and len(name) > 6:
        return rtapp_workload(name, name[6:])
    raise UsageError("unknown workload '%s' (sysbench-seed, sysbench-control, cyclictest-seed, "
                     "cyclictest-seed-uniform, light, rtapp:FILE.json)" % name)


def script_workload(text):
    text = text.strip().rstrip(";").strip()
    if not text:
        raise UsageError("--script is empty")
    return Workload("script", text)


def short_name(workload):
    """rtapp:tests/workloads/medium.json -> medium; other names unchanged."""
    m = re.fullmatch(r"rtapp:(?:.*/)?([^/]+)\.json", workload)
    return m.group(1) if m else workload


# ------------------------------------------------------------------ rt-app: the work asked
class RtappSpec:
    """The `rtapp add` commands of a script (the kernel's grammar,
    kernel/apps/rtapp.c) and the run length of its `rtapp run MS`.

    specs: [{"name", "instances", "loop", "delay_us", "phases": [{"loop",
    "events": [(kind, us, timer)]}]}], kind in r (run), R (runtime), s (sleep),
    t (timer: timer = ("g"|"u", k, absolute))."""

    def __init__(self, specs, run_ms):
        self.specs = specs
        self.run_ms = run_ms

    @classmethod
    def from_script(cls, script):
        """None when the script has no `rtapp run` or a command this parser
        does not know (the throughput column then stays empty)."""
        specs, run_ms = [], None
        for cmd in (c.strip() for c in script.split(";")):
            words = cmd.split()
            if len(words) < 2 or words[0] != "rtapp":
                continue
            if words[1] == "clear":
                specs = []
            elif words[1] == "add":
                spec = cls._parse_add(words[2:])
                if spec is None:
                    return None
                specs.append(spec)
            elif words[1] == "run" and len(words) >= 3 and words[2].isdigit():
                run_ms = int(words[2])
        if run_ms is None or not specs:
            return None
        return cls(specs, run_ms)

    @staticmethod
    def _parse_add(words):
        if not words:
            return None
        spec = {"name": words[0], "instances": 1, "loop": -1, "delay_us": 0, "phases": []}
        for w in words[1:]:
            m = re.fullmatch(r"([ilnmdp])=(-?\w+)", w)
            if m:
                key, val = m.groups()
                try:
                    if key == "i":
                        spec["instances"] = int(val)
                    elif key == "l":
                        spec["loop"] = int(val)
                    elif key == "d":
                        spec["delay_us"] = int(val)
                except ValueError:
                    return None
                continue
            phase = {"loop": 1, "events": []}
            for item in w.split(","):
                m = re.fullmatch(r"x(-?\d+)|[mn]-?\w+|p[fr]\d+|([rRs])(\d+)|([tT])(\d+):([gu])(\d+)", item)
                if not m:
                    return None
                if m.group(1) is not None:
                    phase["loop"] = int(m.group(1))
                elif m.group(2):
                    phase["events"].append((m.group(2), int(m.group(3)), None))
                elif m.group(4):
                    phase["events"].append(("t", int(m.group(5)), (m.group(6), int(m.group(7)), m.group(4) == "T")))
            if not phase["events"]:
                return None
            spec["phases"].append(phase)
        return spec if spec["phases"] else None

    def demand(self):
        """Peak demand in CPUs of capacity 1024: the sum over instances of each
        task's busiest phase (work / period; the period is the loop's timers,
        else its run + sleep time)."""
        total = 0.0
        for sp in self.specs:
            peak = 0.0
            for ph in sp["phases"]:
                work = sum(us for k, us, _ in ph["events"] if k in "rR")
                period = sum(us for k, us, _ in ph["events"] if k == "t") or \
                    sum(us for k, us, _ in ph["events"] if k in "rRs")
                if period:
                    peak = max(peak, min(1.0, work / period))
            total += peak * sp["instances"]
        return total

    def asked(self):
        """{(name, instance): work asked in us}: the run/runtime work of every
        loop that ends before the run does on the ideal timeline (work takes
        its nominal time, timers fire on their boundaries, an overrun relative
        timer restarts from now), as the kernel counts a loop once it ends.
        Shared timers (g) are followed per instance: an approximation when
        several instances share one."""
        out = {}
        end = self.run_ms * 1000 if self.run_ms else None
        for sp in self.specs:
            work = self._thread_work(sp, end)
            for i in range(sp["instances"]):
                out[(sp["name"], i)] = work
        return out

    @staticmethod
    def _thread_work(sp, end):
        if end is None and (sp["loop"] < 0 or any(ph["loop"] < 0 for ph in sp["phases"])):
            return None     # runs forever: nothing to compare with
        t = sp["delay_us"]
        timers = {}
        done, tloop = 0, 0
        while sp["loop"] < 0 or tloop < sp["loop"]:
            for ph in sp["phases"]:
                ploop = 0
                while ph["loop"] < 0 or ploop < ph["loop"]:
                    work = 0
                    for kind, us, timer in ph["events"]:
                        if kind in "rR":
                            t += us
                            work += us
                        elif kind == "s":
                            t += us
                        else:
                            nxt = timers.get(timer[:2], sp["delay_us"]) + us
                            if t < nxt:
                                t = nxt
                            elif not timer[2]:
                                nxt = t
                            timers[timer[:2]] = nxt
                    if end is not None and t >= end:
                        return done
                    done += work
                    ploop += 1
            tloop += 1
        return done
