"""Helpers for QEMU behaviour tests: boot a board, feed console input, collect
the serial output and QEMU's exit status. Runs are in icount mode, so virtual
time and output are reproducible."""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("qemu_run", os.path.join(ROOT, "tools", "qemu-run"))
_spec = importlib.util.spec_from_loader("qemu_run", _loader)
qemu_run = importlib.util.module_from_spec(_spec)
_loader.exec_module(qemu_run)


class Run:
    def __init__(self, output, status, timed_out):
        self.output = output.replace("\r\n", "\n")
        self.status = status
        self.timed_out = timed_out

    def lines(self):
        return self.output.splitlines()

    def __repr__(self):
        tail = "\n".join(self.lines()[-25:])
        return "<qemu run status=%s timed_out=%s, last lines:\n%s>" % (
            self.status, self.timed_out, tail)


class Skip(Exception):
    """Raised by skip(): the test could not run its check (tests/run.py reports SKIP, not PASS).
    @required: what was missing is something tools/ensure-deps.sh installs, so
    `tests/run.py --strict` (CI) counts the skip as a failure."""

    def __init__(self, reason, required):
        super().__init__(reason)
        self.required = required


def skip(reason, required=True):
    raise Skip(reason, required)


def exclusive(fn):
    """Mark a test to run alone, after the others (see tests/run.py)."""
    fn.exclusive = True
    return fn


def rtapp_script(path, stdin=None):
    """tools/rtapp's console script for the rt-app file @path ("-": the text @stdin), stripped; the
    translation must succeed."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "rtapp"), path], input=stdin,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def boot(board, run=None, append="", stdin_bytes=None, timeout=60, dtb=None,
         until=None, icount=True, smp=None, debug=False, mttcg=False, type_lines=None, machine_opts=None):
    """Boot @board. @run: console commands (autorun, then poweroff).
    @type_lines: commands typed at the console, one after each prompt, then poweroff
    (for scripts longer than the boot arguments carry; see tools/qemu-run).
    @stdin_bytes: bytes typed on the console after boot (sent slowly).
    @until: stop as soon as this substring appears (then QEMU is killed).
    @machine_opts: appended to -M (e.g. "virtualization=on": enter the kernel in HYP).
    Returns a Run; status is the run's exit status as tools/qemu-run reports
    it (qemu_run.PANIC_EXIT after a kernel panic; None if killed)."""
    args = append
    if run is not None:
        args = (args + " " + qemu_run.autorun_arg(run.rstrip("; ") + "; poweroff")).strip()
    cmd = qemu_run.qemu_command(board, args, icount=icount, dtb=dtb, smp=smp, debug=debug, mttcg=mttcg)
    if machine_opts:
        cmd[cmd.index("-M") + 1] += "," + machine_opts
    env = dict(os.environ, QEMU_AUDIO_DRV="none")
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    os.set_blocking(p.stdout.fileno(), False)
    out = b""
    deadline = time.monotonic() + timeout
    pending = stdin_bytes or b""
    typer = qemu_run.ConsoleTyper(type_lines) if type_lines is not None else None
    timed_out = False
    while True:
        try:
            chunk = p.stdout.read()
        except BlockingIOError:
            chunk = None
        if chunk:
            out += chunk
        if until and until.encode() in out:
            time.sleep(0.3)
            try:
                out += p.stdout.read() or b""
            except BlockingIOError:
                pass
            p.kill()
            p.wait()
            return Run(out.decode("utf-8", "replace"), None, False)
        if p.poll() is not None:
            try:
                out += p.stdout.read() or b""
            except (BlockingIOError, ValueError):
                pass
            break
        if typer:
            typer.step(out, p.stdin)
        if pending and b"sched> " in out:
            # Type slowly: the UART FIFO is small and the guest drains it by IRQ.
            piece, pending = pending[:8], pending[8:]
            try:
                p.stdin.write(piece)
                p.stdin.flush()
            except BrokenPipeError:
                pending = b""
        if time.monotonic() > deadline:
            timed_out = True
            p.kill()
            p.wait()
            break
        time.sleep(0.02)
    status = None if timed_out else qemu_run.exit_status(p.returncode, out)
    return Run(out.decode("utf-8", "replace"), status, timed_out)


STRESS_TROUBLE = ("lost", "late_wakeups", "owing", "sync_violations", "starving", "rt_breaks")


def stress_verdict(output, seed, seconds=None, workers=None):
    """The `stress` command's verdict line (kernel/apps/stress.c), asserted:
    PASS, every trouble count 0, tokens sent = owed = consumed and > 0, and the
    sync workers' line beside it with violations=0. Returns its key=values (ints)."""
    m = re.search(r"^stress: (PASS|FAIL) seed=%d (.*)$" % seed, output, re.M)
    assert m, "no stress verdict for seed %d:\n%s" % (seed, output[-3000:])
    kv = {k: int(v) for k, v in (w.split("=", 1) for w in m.group(2).split())}
    assert m.group(1) == "PASS", m.group(0) + "\n" + output[-3000:]
    assert all(kv[k] == 0 for k in STRESS_TROUBLE), m.group(0)
    assert kv["tokens_sent"] == kv["tokens_owed"] == kv["tokens_consumed"] > 0, m.group(0)
    assert seconds is None or kv["seconds"] == seconds, m.group(0)
    assert workers is None or kv["workers"] == workers, m.group(0)
    assert re.search(r"^stress: sync .* violations=0$", output, re.M), output[-3000:]
    assert "INVARIANT BROKEN" not in output and "LOST WAKE-UP" not in output, output[-3000:]
    # The verdict is the run's last word: nothing of stress's after it.
    after = output[m.end():]
    assert not re.search(r"^stress: ", after, re.M), after[:2000]
    return kv
