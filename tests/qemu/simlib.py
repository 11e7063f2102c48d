"""Helpers for tests that run build/host/schedsim (docs/schedsim.md):
test_schedsim.py (the simulator against QEMU and its own contracts) and
test_simfast.py (the fast part that `make mutate` runs)."""
import os
import re
import subprocess

from qemulib import ROOT

SIM = os.path.join(ROOT, "build", "host", "schedsim")


def dtb(board):
    return os.path.join(ROOT, "build", board, board + ".dtb")


def sim(board_or_dtb, script, *opts, timeout=120, max_time=60):
    """Runs @script; a script still running after @max_time simulated seconds is an error (a kernel
    that never lets it end, e.g. a task that never runs again, fails in seconds, not at @timeout)."""
    path = board_or_dtb if board_or_dtb.endswith(".dtb") else dtb(board_or_dtb)
    return subprocess.run([SIM, "--max-time=%d" % max_time, *opts, path, script], capture_output=True, text=True,
                          timeout=timeout)


def result(out, bench):
    m = re.search(r"^RESULT bench=%s (.*)$" % bench, out, re.M)
    assert m, out[-2000:]
    return dict(kv.split("=", 1) for kv in m.group(1).split())


def results(out, bench):
    return [dict(kv.split("=", 1) for kv in line.split()[1:])
            for line in out.splitlines() if line.startswith("RESULT bench=%s " % bench)]
