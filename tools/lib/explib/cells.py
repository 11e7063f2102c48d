"""One cell of an experiment: (engine, board, pack mode, cpufreq governor,
workload, repeat index, seed), run on the simulator or in QEMU, and the one result file it
writes (JSON, FORMAT below). A cell needs nothing but the repository and its
build (`make boards host`); `tools/experiment cell ...` runs one, and that is
the command `tools/experiment plan` prints.

    Cell(...).command(outdir)          -> the shell command that runs it
    Cell(...).run(outdir, timeout, ..) -> the result (a dict), also written to outdir
    load_results([dir, ...])           -> (results, warnings)

Result file (one JSON object): format, cell {engine, board, pack, governor,
governor_arg, workload, script, repeat, seed, quick, icount} (governor: what
ran, "performance" when none was asked; governor_arg: the one passed to the
engine, or null; files made before the governor axis have neither: read as
performance, governors.of()), command, status ("ok" | "failed"),
error, warnings, wall_s, host and root (the repository it ran in), finished (UTC), build {git, binary and DTB
sha256}, machine {cpus: [{cpu, cluster, capacity}], speed: "capacity" |
"uniform"}, expect (what a good run prints), output (the console), trace
(simulator, rt-app workloads: wake-up latencies in ns and per-CPU busy
timelines) or null.
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import governors  # noqa: E402  (tools/lib: the one list of the kernel's governors)

from . import parse
from . import workloads as wl

ROOT = wl.ROOT
FORMAT = "sched-pack-experiment-cell/1"
ENGINES = ("sim", "qemu")
TAIL_LINES = 15
SCHEDSIM = os.path.join("build", "host", "schedsim")
SCHEDTOPO = os.path.join("build", "host", "schedtopo")
GEN_RE = re.compile(r"gen:(\d+)x(\d+)(?::(\d+))?")


def safe_name(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "x"


def sha12(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:12]


def git_head():
    try:
        p = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True, text=True)
        return p.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _qemu_run():
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("qemu_run", os.path.join(ROOT, "tools", "qemu-run"))
    spec = importlib.util.spec_from_loader("qemu_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


qemu_run = _qemu_run()


def qemu_boards():
    boards = []
    for b in sorted(os.listdir(os.path.join(ROOT, "boards"))):
        try:
            if qemu_run.board_config(b).get("QEMU_MACHINE"):
                boards.append(b)
        except SystemExit:
            pass
    return boards


def sim_boards():
    """Boards whose DTB is built (build/<b>/<b>.dtb): any of them runs on the simulator."""
    return [b for b in sorted(os.listdir(os.path.join(ROOT, "boards")))
            if os.path.isfile(os.path.join(ROOT, "build", b, b + ".dtb"))]


def board_label(engine, board):
    """The name RESULT lines give the board: the DTB's file name on the simulator."""
    if engine == "sim":
        m = GEN_RE.fullmatch(board)
        if m:
            return "gen-%sx%s" % (m.group(1), m.group(2)) + ("-b%s" % m.group(3) if m.group(3) else "")
        if board.endswith(".dtb"):
            return os.path.basename(board)[:-4]
    return board


def check_board(engine, board):
    """None, or why @board cannot run on @engine."""
    if engine == "qemu":
        valid = qemu_boards()
        if board not in valid:
            return "'%s' is not a QEMU board (%s)" % (board, ", ".join(valid))
        return None
    m = GEN_RE.fullmatch(board)
    if m:
        c, p = int(m.group(1)), int(m.group(2))
        if c < 1 or p < 1:
            return "'%s': need at least one cluster of one CPU" % board
        if m.group(3) is not None and int(m.group(3)) > c:
            return "'%s': more big clusters than clusters" % board
        return None
    if board.endswith(".dtb"):
        path = board if os.path.isabs(board) else os.path.join(ROOT, board)
        return None if os.path.isfile(path) else "no such DTB '%s'" % board
    if board not in os.listdir(os.path.join(ROOT, "boards")):
        return "unknown board '%s' (%s, FILE.dtb or gen:CLUSTERSxCPUS[:BIG])" % (
            board, ", ".join(sorted(os.listdir(os.path.join(ROOT, "boards")))))
    return None


class CellError(Exception):
    pass


class Cell:
    """One run: @workload is a Workload (workloads.py); @governor: the cpufreq
    governor passed to the engine (None: none passed, the kernel's default,
    recorded as governors.DEFAULT)."""

    def __init__(self, engine, board, pack, workload, repeat=0, seed=None, quick=False, icount=True,
                 governor=None):
        self.engine, self.board, self.pack, self.workload = engine, board, pack, workload
        self.governor_arg = governor
        self.governor = governor or governors.DEFAULT
        self.repeat = repeat
        # Seed k+1 for repeat k: every repeat a draw of the same jitter (seed 0 has none).
        self.seed = (repeat + 1 if seed is None else seed) if engine == "sim" else None
        self.quick = quick
        self.icount = icount if engine == "qemu" else None

    @property
    def label(self):
        return board_label(self.engine, self.board)

    def workload_id(self):
        w = self.workload.name
        if w == "script":
            w += "-" + hashlib.sha256(self.workload.script.encode()).hexdigest()[:8]
        return safe_name(re.sub(r"\.json$", "", w.replace("rtapp:%s/" % wl.WORKLOAD_DIR, "rtapp-")))

    def mode_id(self):
        """The pack mode, then the governor unless it is the default (the names
        of result files made before the governor axis stay as they were)."""
        return self.pack if self.governor == governors.DEFAULT else "%s-%s" % (self.pack, self.governor)

    def filename(self):
        return "%s-%s-%s-%s-r%d.json" % (self.engine, safe_name(self.label), self.mode_id(), self.workload_id(),
                                         self.repeat)

    def describe(self):
        return describe_cell(self.as_dict())

    def command(self, outdir):
        """The one shell command (from the repository root) that runs this cell."""
        args = ["tools/experiment", "cell", "--engine", self.engine, "--board", self.board, "--pack", self.pack]
        if self.governor_arg:
            args += ["--governor", self.governor_arg]
        if self.workload.name == "script":
            args += ["--script", self.workload.script]
        else:
            args += ["--workload", self.workload.name]
        args += ["--repeat-index", str(self.repeat)]
        if self.engine == "sim":
            args += ["--seed", str(self.seed)]
        elif not self.icount:
            args += ["--icount", "0"]
        if self.quick:
            args.append("--quick")
        args += ["--out", outdir]
        return " ".join(shlex.quote(a) for a in args)

    def as_dict(self):
        return {"engine": self.engine, "board": self.label, "board_arg": self.board, "pack": self.pack,
                "governor": self.governor, "governor_arg": self.governor_arg, "workload": self.workload.name,
                "script": self.workload.script, "repeat": self.repeat, "seed": self.seed, "quick": self.quick,
                "icount": self.icount}

    # -------------------------------------------------------------- running
    def run(self, outdir, timeout, snapshot=None):
        """Runs the cell and writes its result file into @outdir; returns the result.
        @snapshot: {"schedsim": path, board: (kernel.bin, dtb)} to use instead of build/."""
        t0 = time.monotonic()
        res = {"format": FORMAT, "cell": self.as_dict(), "command": self.command(outdir), "status": "failed",
               "error": None, "warnings": [], "host": socket.gethostname(), "root": ROOT, "output": "", "trace": None,
               "expect": {"results": self.workload.expect_results, "window": self.workload.window,
                          "light": self.workload.light}}
        tmp = tempfile.mkdtemp(prefix="experiment-cell-")
        try:
            dtb = self._dtb(tmp, snapshot)
            uniform = self.engine != "sim" or "--speed=uniform" in self.workload.sim_args
            res["machine"] = machine_info(dtb, "uniform" if uniform else "capacity")
            if self.engine == "sim":
                self._run_sim(res, dtb, tmp, timeout, snapshot)
            else:
                self._run_qemu(res, dtb, timeout, snapshot)
        except CellError as e:
            res["error"] = str(e)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if res["error"] is None:
            res["error"] = check_output(res["output"], self.workload, self.label, self.pack, res["warnings"],
                                        self.governor)
        res["status"] = "ok" if res["error"] is None else "failed"
        res["wall_s"] = round(time.monotonic() - t0, 3)
        res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        write_result(outdir, self.filename(), res)
        return res

    def _dtb(self, tmp, snapshot):
        if snapshot and self.board in snapshot:
            return snapshot[self.board][1]
        m = GEN_RE.fullmatch(self.board)
        if self.engine == "sim" and m:
            gen = [sys.executable, os.path.join(ROOT, "tools", "gen-machine-dt"), "--clusters", m.group(1),
                   "--cpus-per-cluster", m.group(2)] + (["--big", m.group(3)] if m.group(3) else [])
            p = subprocess.run(gen, capture_output=True, text=True, cwd=ROOT)
            if p.returncode != 0:
                raise CellError("tools/gen-machine-dt failed: %s" % p.stderr.strip())
            path = os.path.join(tmp, self.label + ".dtb")
            q = subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", path, "-"], input=p.stdout,
                               capture_output=True, text=True)
            if q.returncode != 0:
                raise CellError("dtc failed on tools/gen-machine-dt's output: %s" % q.stderr.strip())
            return path
        if self.engine == "sim" and self.board.endswith(".dtb"):
            return self.board if os.path.isabs(self.board) else os.path.join(ROOT, self.board)
        path = os.path.join(ROOT, "build", self.board, self.board + ".dtb")
        if not os.path.isfile(path):
            raise CellError("no %s: build it first (make boards)" % os.path.relpath(path, ROOT))
        return path

    def _run_sim(self, res, dtb, tmp, timeout, snapshot):
        binary = (snapshot or {}).get("schedsim") or os.path.join(ROOT, SCHEDSIM)
        if not os.access(binary, os.X_OK):
            raise CellError("no %s: build it first (make host)" % SCHEDSIM)
        res["build"] = {"git": git_head(), "binary": SCHEDSIM, "binary_sha256": sha12(binary),
                        "dtb_sha256": sha12(dtb)}
        trace = os.path.join(tmp, "trace.txt") if self.workload.name.startswith("rtapp:") else None
        argv = [binary, "--pack=%s" % self.pack, "--seed=%d" % self.seed]
        if self.governor_arg:
            argv.append("--governor=%s" % self.governor_arg)
        if trace:
            argv.append("--trace=%s" % trace)
        argv += list(self.workload.sim_args) + [dtb, self.workload.script]
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired as e:
            res["output"] = (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) else \
                (e.stdout or "")
            raise CellError("timed out after %g s" % timeout)
        res["output"] = p.stdout
        if p.returncode != 0:
            raise CellError("schedsim exited with status %d: %s" % (
                p.returncode, (p.stderr.strip().splitlines() or [""])[-1]))
        if trace and os.path.isfile(trace):
            names = [s["name"] for s in (wl.RtappSpec.from_script(self.workload.script) or
                                         wl.RtappSpec([], 0)).specs] or None
            res["trace"] = parse.analyse_trace(trace, names)

    def _run_qemu(self, res, dtb, timeout, snapshot):
        kernel = (snapshot or {}).get(self.board, (None, None))[0] or \
            os.path.join(ROOT, "build", self.board, "kernel.bin")
        if not os.path.isfile(kernel):
            raise CellError("no build/%s/kernel.bin: build it first (make boards)" % self.board)
        if self.workload.sim_args:
            raise CellError("workload %s runs on the simulator only" % self.workload.name)
        if shutil.which("qemu-system-arm") is None:
            raise CellError("qemu-system-arm not found (tools/ensure-deps.sh installs it)")
        res["build"] = {"git": git_head(), "binary": "build/%s/kernel.bin" % self.board,
                        "binary_sha256": sha12(kernel), "dtb_sha256": sha12(dtb)}
        cmds = self.workload.commands()
        line = "; ".join(cmds)
        append = "pack=%s" % self.pack
        if self.governor_arg:
            append += " cpufreq=%s" % self.governor_arg
        typed = '"' in line or not qemu_run.fits_autorun(line, append)
        if not typed:
            append += " " + qemu_run.autorun_arg(line + "; poweroff")
        else:
            res["warnings"].append("script too long for the autorun bootarg (%d characters): typed at the "
                                   "console, one command after each prompt" % len(line))
        cmd = qemu_run.qemu_command(self.board, append, icount=self.icount, kernel=kernel, dtb=dtb)
        res["output"], err = run_console(cmd, cmds + ["poweroff"] if typed else None, timeout)
        if err:
            raise CellError(err)


def run_console(cmd, typed, timeout):
    """Runs QEMU (@cmd); with @typed, sends one command after each prompt
    (tools/qemu-run's run_typed). Returns (console text, error or None)."""
    env = dict(os.environ, QEMU_AUDIO_DRV="none")
    procs = []

    def track(p):
        procs.append(p)
        _live.add(p)
    try:
        out, status, timed_out = qemu_run.run_typed(cmd, typed or [], timeout=timeout, env=env, cwd=ROOT,
                                                    on_proc=track, poweroff=False)
    except OSError as e:
        return "", "could not start QEMU (%s): %s" % (cmd[0], e)
    finally:
        _live.difference_update(procs)
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    if timed_out:
        return text, "timed out after %g s" % timeout
    if status is None or qemu_run.exit_status(status, out) == qemu_run.PANIC_EXIT:
        return text, "the kernel panicked"
    if status != 0:
        return text, "QEMU exited with status %s" % status
    return text, None


_live = set()


def kill_live():
    """Kills the QEMUs this process started (Ctrl-C)."""
    for p in list(_live):
        try:
            p.kill()
        except OSError:
            pass


def describe_cell(c):
    """A cell's coordinates in words (@c: a result file's "cell"); the
    governor only when it is not the default, as in the file name."""
    gov = governors.of(c)
    return "engine=%s board=%s pack=%s%s workload=%s repeat=%s" % (
        c["engine"], c["board"], c["pack"], "" if gov == governors.DEFAULT else " governor=" + gov,
        c["workload"], c["repeat"])


def check_output(output, workload, label, pack, warnings, governor=governors.DEFAULT):
    """None, or why the console text is not a good run of @workload; adds warnings."""
    rows = parse.parse_console(output)
    nres = sum(1 for r in rows if r.get("bench") not in ("energy-window", "light"))
    nwin = sum(1 for r in rows if r.get("bench") == "energy-window")
    nlight = sum(1 for r in rows if r.get("bench") == "light")
    for r in rows:
        if r.get("board") and r["board"] != label:
            warnings.append("RESULT says board=%s" % r["board"])
        if r.get("pack") and r["pack"] != pack:
            warnings.append("RESULT ran with pack=%s (asked pack=%s)" % (r["pack"], pack))
        if r.get("governor") and r["governor"] != governor:
            warnings.append("RESULT ran with governor=%s (asked governor=%s)" % (r["governor"], governor))
    warnings += [ln.strip() for ln in output.splitlines() if ln.lstrip("sched> ").startswith("error:")]
    if workload.expect_results is not None and nres != workload.expect_results:
        return "expected %d RESULT lines, got %d" % (workload.expect_results, nres)
    if workload.expect_results is None and nres + nlight == 0:
        return "no RESULT line"
    if workload.window and nwin == 0:
        return "no 'energy: energy=' window line"
    if workload.light and nlight == 0:
        return "no 'light:' summary"
    return None


def machine_info(dtb, speed):
    """CPUs, clusters and capacities of @dtb (build/host/schedtopo), and at
    what speed the engine runs work: capacity (simulator) or uniform (QEMU)."""
    tool = os.path.join(ROOT, SCHEDTOPO)
    cpus = []
    if os.access(tool, os.X_OK):
        p = subprocess.run([tool, dtb], capture_output=True, text=True)
        for m in re.finditer(r"^cpu(\d+) \S+ cluster=(\d+) capacity=(\d+)", p.stdout, re.M):
            cpus.append({"cpu": int(m.group(1)), "cluster": int(m.group(2)), "capacity": int(m.group(3))})
    return {"cpus": cpus, "speed": speed}


def write_result(outdir, name, res):
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, name)
    fd, tmp = tempfile.mkstemp(prefix=".cell-", dir=outdir)
    with os.fdopen(fd, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
    return path


def tail(res, n=TAIL_LINES):
    return res.get("output", "").splitlines()[-n:]


def load_results(dirs):
    """Every result file under @dirs (recursively). Returns (results sorted by
    cell, warnings); a cell found twice keeps the first (by path)."""
    found, warnings = {}, []
    for d in dirs:
        if not os.path.isdir(d):
            raise CellError("no such directory '%s'" % d)
        for base, subdirs, files in os.walk(d):
            subdirs.sort()
            for f in sorted(files):
                if not f.endswith(".json") or f.startswith("."):
                    continue
                path = os.path.join(base, f)
                try:
                    with open(path) as fh:
                        res = json.load(fh)
                except (OSError, ValueError):
                    continue
                if not isinstance(res, dict) or res.get("format") != FORMAT:
                    continue
                c = res["cell"]
                c["governor"] = governors.of(c)     # made before the governor axis: performance
                c.setdefault("governor_arg", None)
                key = (c["engine"], c["board"], c["pack"], c["governor"], c["workload"], c.get("script", ""),
                       c["repeat"])
                if key in found:
                    warnings.append("cell %s found twice: kept %s, ignored %s" % (
                        " ".join(str(x) for x in key[:5] + key[6:]), found[key]["path"], path))
                    continue
                res["path"] = path
                found[key] = res
    return [found[k] for k in sorted(found, key=lambda k: tuple(str(x) for x in k[:6]) + (k[6],))], warnings
