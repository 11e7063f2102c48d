"""Fuzz corpus regression (no QEMU; lives here because tests/run.py collects
tests/qemu/test_*.py): every input of tests/fuzz/corpus/<target>/ runs once
through that target's harness, built with gcc + ASan/UBSan and a plain main
(build/fuzz/regress/<target>, from `make fuzz-regress-bins`, which `make
test` builds first; mk/fuzz.mk). A crash, a sanitizer report or a violated
property fails the test and names the input. The rt-app JSON corpus runs
through tests/fuzz/rtapp_fuzz.py --regress once tools/rtapp exists."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGETS = ["fdt", "shell", "cmdline", "format", "pelt", "pelt_tool", "schedtopo", "schedtopo_nr8", "rtapp_prog"]


def _tail(text, n=25):
    return "\n".join(text.strip().splitlines()[-n:])


def _run_target(target):
    exe = os.path.join(ROOT, "build", "fuzz", "regress", target)
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus", target)
    assert os.access(exe, os.X_OK), "%s missing: run `make fuzz-regress-bins` (make test builds it)" % exe
    assert os.path.isdir(corpus) and os.listdir(corpus), "no corpus in %s" % corpus
    p = subprocess.run([exe, corpus], cwd=ROOT, capture_output=True, text=True, timeout=600,
                       errors="replace")
    if p.returncode != 0:
        inputs = [line for line in p.stderr.splitlines() if line.startswith("fuzz-regress: ")]
        last = inputs[-1][len("fuzz-regress: "):] if inputs else "?"
        raise AssertionError("%s: exit status %d on input %s\n%s" % (target, p.returncode, last,
                                                                     _tail(p.stderr)))
    assert "inputs ok" in p.stdout, p.stdout


def _make_test(target):
    def test():
        _run_target(target)
    test.__name__ = "test_fuzz_%s" % target
    test.__doc__ = "tests/fuzz/corpus/%s through build/fuzz/regress/%s" % (target, target)
    return test


for _t in TARGETS:
    globals()["test_fuzz_%s" % _t] = _make_test(_t)


if os.path.exists(os.path.join(ROOT, "tools", "rtapp")):
    def test_fuzz_rtapp():
        """tests/fuzz/corpus/rtapp through tools/rtapp (exit 0 or 2, no traceback, valid commands)."""
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fuzz", "rtapp_fuzz.py"), "--regress"],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, _tail(p.stdout + p.stderr, 40)
