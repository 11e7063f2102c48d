"""What tools/experiment reads from a run: the console's RESULT lines, energy
windows, `schedtest light` summaries and rt-app's per-thread lines, and from
a simulator trace (ftrace text) the wake-up latencies and per-CPU busy
timelines.

    parse_console(text)          -> [row dict with 'bench' and 'raw']
    rtapp_threads(text)          -> [{task, inst, phase, loops, c_run_us, ...}]
    rtapp_derived(threads, spec) -> {throughput, work_done_ms, work_asked_ms, slack_avg_us}
    analyse_trace(path, names)   -> {latency_ns: [...], timeline: {...}}
"""
import re

RESULT_RE = re.compile(r"RESULT\s+(bench=\S+.*?)\s*$")
WINDOW_RE = re.compile(r"^(?:.*?)energy: (energy=\d+.*?)\s*$")
WINDOW_HEAD_RE = re.compile(r"energy: src=(\S+) window_us=(\d+) total=(\d+)")
LIGHT_CPU_RE = re.compile(r"light: cpu(\d+) cluster=(\d+) busy_pct=([\d.]+) tasks=(\d+)\s*$")
LIGHT_END_RE = re.compile(r"light: tasks=(\d+) pack=(\S+) window_us=(\d+)\s*$")
THREAD_RE = re.compile(r"rtapp: (task=\S+ inst=\d+ .*?)\s*$")


def parse_kv(text):
    """'a=1 b=x' -> {'a': '1', 'b': 'x'} in order; words without '=' are ignored."""
    out = {}
    for word in text.split():
        k, sep, v = word.partition("=")
        if sep and k:
            out[k] = v
    return out


def num(v):
    if v is None or v == "":
        return None
    if isinstance(v, (int, float)):
        return v
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return None


def parse_result_line(line):
    """A RESULT line -> dict of its key=value pairs plus 'raw' (the line from
    'RESULT' on); None when the line holds no RESULT. Tolerates a prompt or
    other text before 'RESULT' (background jobs can print after `sched> `)."""
    m = RESULT_RE.search(line.rstrip("\r\n"))
    if not m:
        return None
    d = parse_kv(m.group(1))
    d["raw"] = "RESULT " + m.group(1)
    return d


def parse_console(output):
    """Console text -> list of result dicts (each with 'bench' and 'raw')."""
    rows = []
    head = None
    light_cpus = []
    for line in output.replace("\r\n", "\n").split("\n"):
        r = parse_result_line(line)
        if r:
            rows.append(r)
            continue
        m = WINDOW_HEAD_RE.search(line)
        if m:
            head = m
            continue
        m = WINDOW_RE.match(line)
        if m:
            d = {"bench": "energy-window"}
            if head:
                d["src"] = head.group(1)
                d["window_us"] = head.group(2)
            d.update(parse_kv(m.group(1)))
            d["raw"] = line.strip()
            rows.append(d)
            head = None
            continue
        m = LIGHT_CPU_RE.search(line)
        if m:
            light_cpus.append((m, line.strip()))
            continue
        m = LIGHT_END_RE.search(line)
        if m:
            d = {"bench": "light", "tasks": m.group(1), "window_us": m.group(3)}
            for c, _ in light_cpus:
                cpu = c.group(1)
                d["cpu%s_cluster" % cpu] = c.group(2)
                d["cpu%s_busy_pct" % cpu] = c.group(3)
                d["cpu%s_tasks" % cpu] = c.group(4)
            d["raw"] = " | ".join([t for _, t in light_cpus] + [line.strip()])
            rows.append(d)
            light_cpus = []
    return rows


def rtapp_threads(output):
    """The kernel's per-instance, per-phase lines of the last rt-app run
    (`rtapp: task=NAME inst=I ... phase=P loops=L ... c_run_us= ... slack_us=`)."""
    out = []
    for line in output.replace("\r\n", "\n").split("\n"):
        m = THREAD_RE.search(line)
        if not m:
            continue
        d = parse_kv(m.group(1))
        if d.get("inst") == "0" and d.get("phase") == "0" and any(
                t["task"] == d.get("task") and t["inst"] == 0 and t["phase"] == 0 for t in out):
            out = []    # a second run: keep the last
        out.append({k: (v if k == "task" else num(v)) for k, v in d.items()})
    return out


def rtapp_derived(threads, spec):
    """Throughput (work done / work asked) and the loop-weighted mean slack of
    an rt-app run. Work done = every counted loop's configured run time (a
    loop is counted once all its events are done); work asked = the same on
    the ideal timeline (spec.asked()). {} when either side is unknown."""
    out = {}
    loops = sum(t.get("loops") or 0 for t in threads)
    if loops:
        out["slack_avg_us"] = round(sum((t.get("slack_us") or 0) * (t.get("loops") or 0) for t in threads) / loops, 1)
    if spec is None or not threads:
        return out
    asked = spec.asked()
    if any(v is None for v in asked.values()):
        return out
    done = sum((t.get("loops") or 0) * (t.get("c_run_us") or 0) for t in threads)
    want = sum(asked.values())
    if want:
        out["work_done_ms"] = round(done / 1000.0, 3)
        out["work_asked_ms"] = round(want / 1000.0, 3)
        out["throughput"] = round(done / want, 4)
    return out


# ------------------------------------------------------------------ simulator traces
# The flags column ("d..2") is optional: the kernel prints Linux's irq-info-off layout.
TRACE_RE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+(?:[^\s\d][^\s]*\s+)?([\d.]+): (\w+): (.*)$")
LATENCY_SAMPLES_MAX = 20000
TIMELINE_BINS = 200


def analyse_trace(path, names=None):
    """From a schedsim --trace file: the wake-up latencies (sched_wakeup ->
    the sched_switch that runs the task, ns) of the tasks whose comm starts
    with one of @names (all but the console when None), sorted and thinned to
    at most LATENCY_SAMPLES_MAX, and per-CPU busy fractions (not running the
    idle task) in TIMELINE_BINS bins from the first such task's creation to
    the trace's end."""
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = TRACE_RE.match(line)
            if m:
                events.append((float(m.group(4)), int(m.group(3)), m.group(5), m.group(6)))
    events.sort(key=lambda e: e[0])     # the file is a sequence of dumps

    def wanted(comm):
        if names is None:
            return comm != "console" and not comm.startswith("swapper")
        return any(comm == n or comm.startswith(n + "-") for n in names)

    woken, lat = {}, []
    running = {}            # cpu -> (busy?, since)
    busy = {}               # cpu -> [(start, end)]
    t0 = None
    for ts, cpu, kind, body in events:
        if kind in ("sched_wakeup", "sched_wakeup_new"):
            kv = parse_kv(body)
            if wanted(kv.get("comm", "")):
                woken.setdefault(kv.get("pid"), ts)
                if kind == "sched_wakeup_new" and t0 is None:
                    t0 = ts
        elif kind == "sched_switch":
            nxt = re.search(r"next_comm=(.*) next_pid=(\d+)", body)
            if not nxt:
                continue
            pid = nxt.group(2)
            if pid in woken:
                lat.append(int(round((ts - woken.pop(pid)) * 1e9)))
            idle = pid == "0"
            was = running.get(cpu)
            if was and was[0] and idle:
                busy.setdefault(cpu, []).append((was[1], ts))
            if not was or was[0] == idle:
                running[cpu] = (not idle, ts)
    end = events[-1][0] if events else 0.0
    for cpu, (b, since) in running.items():
        if b:
            busy.setdefault(cpu, []).append((since, end))
    lat.sort()
    if len(lat) > LATENCY_SAMPLES_MAX:
        step = len(lat) / float(LATENCY_SAMPLES_MAX)
        lat = [lat[int(i * step)] for i in range(LATENCY_SAMPLES_MAX)]
    timeline = None
    if t0 is not None and end > t0:
        width = (end - t0) / TIMELINE_BINS
        cpus = sorted(set(running) | set(busy))
        rows = {}
        for cpu in cpus:
            bins = [0.0] * TIMELINE_BINS
            for a, b in busy.get(cpu, []):
                a, b = max(a, t0), min(b, end)
                i = int((a - t0) / width)
                while a < b and i < TIMELINE_BINS:
                    edge = t0 + (i + 1) * width
                    bins[i] += min(b, edge) - a
                    a = edge
                    i += 1
            rows[str(cpu)] = [round(x / width, 3) for x in bins]
        timeline = {"t0_s": round(t0, 6), "bin_s": round(width, 6), "cpus": rows}
    return {"latency_ns": lat, "timeline": timeline}
