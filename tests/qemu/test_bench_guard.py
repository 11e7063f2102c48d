"""The hot paths' regression guard (tools/bench-guard, bench/baseline.txt):
`make test` fails when a committed figure rises more than 2%, and the guard
itself is shown to catch a slowed path."""
import os
import re
import subprocess

from qemulib import ROOT

GUARD = os.path.join(ROOT, "tools", "bench-guard")
LINE = re.compile(r"^(\S+) (\S+) baseline=(\d+|-) now=(\d+|MISSING) (?:([+-]\d+\.\d)% )?(ok|REGRESSION|better|new)$",
                  re.M)


def guard(*args, timeout=600):
    return subprocess.run([GUARD, *args], capture_output=True, text=True, timeout=timeout)


def test_hot_paths_stay_within_two_percent_of_the_baseline():
    # The CI guard: every figure of the committed baseline, on every board in it.
    p = guard()
    rows = LINE.findall(p.stdout)
    assert len(rows) == 12 and {r[0] for r in rows} == {"vexpress-a9", "qemu-tc2"}, p.stdout + p.stderr
    assert p.returncode == 0, "hot path regression (figure, baseline, now):\n" + p.stdout


def test_the_guard_fails_on_a_deliberately_slowed_wake_up(tmp_path=None):
    # A kernel whose wake_up() runs 40 nops more (CONFIG_GUARD_SLOW_WAKEUP,
    # kernel/sched/core.c), built beside the real one: the local wake-up rises
    # ~4% and the guard names it; the context switch does not move.
    out = os.path.join(ROOT, "build", "guard-slow")
    b = subprocess.run(["make", "--no-print-directory", "-f", "mk/kernel.mk", "BOARD=vexpress-a9",
                        "OUT=%s/vexpress-a9" % out, "EXTRA_CFLAGS=-DCONFIG_GUARD_SLOW_WAKEUP=40"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert b.returncode == 0, b.stdout + b.stderr
    p = guard("--boards", "vexpress-a9", "--kernel-dir", out)
    assert p.returncode == 1, p.stdout + p.stderr
    rows = dict(((r[0], r[1]), r) for r in LINE.findall(p.stdout))
    wake = rows["vexpress-a9", "wake_local"]
    assert wake[5] == "REGRESSION" and int(wake[3]) >= int(wake[2]) + 30, p.stdout
    assert rows["vexpress-a9", "ctxsw"][5] == "ok", p.stdout
    assert "bench-guard: REGRESSION" in p.stdout, p.stdout


def test_a_bad_baseline_or_board_is_exit_2():
    bad = os.path.join(ROOT, "build", "guard-bad-baseline.txt")
    with open(bad, "w") as f:
        f.write("vexpress-a9 ctxsw lots\n")
    p = guard("--baseline", bad)
    assert p.returncode == 2 and "want '<board> <figure> <instructions>'" in p.stderr, p.stderr
    p = guard("--boards", "tc2")
    assert p.returncode == 2 and "unknown or non-QEMU board 'tc2'" in p.stderr, p.stderr
