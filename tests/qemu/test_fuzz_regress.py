"""Fuzz corpus regression (no QEMU; lives here because tests/run.py collects
tests/qemu/test_*.py): every input of tests/fuzz/corpus/<target>/ runs once
through that target's harness, built with gcc + ASan/UBSan and a plain main
(build/fuzz/regress/<target>, from `make fuzz-regress-bins`, which `make
test` builds first; mk/fuzz.mk), and the real inputs of build/outside
(Linux's DTBs, rt-app's examples) made into inputs at test time. A crash, a sanitizer report or a violated
property fails the test and names the input. The rt-app JSON corpus runs
through tests/fuzz/rtapp_fuzz.py --regress once tools/rtapp exists."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGETS = ["fdt", "shell", "cmdline", "format", "pelt", "pelt_tool", "schedtopo", "schedtopo_nr8", "rtapp_prog"]


def _tail(text, n=25):
    return "\n".join(text.strip().splitlines()[-n:])


OUTSIDE = os.path.join(ROOT, "build", "outside")


def _outside_inputs(target, tmp):
    """Inputs made at test time from the real files others wrote (make outside), never kept in
    the corpus: Linux's DTBs for the DT parsers, rt-app's examples (and the rt-app files of
    ../shared/outside, SCHED_FIFO/RR ones among them, where that folder exists) translated by
    tools/rtapp for the kernel's rtapp program builder."""
    if target in ("fdt", "schedtopo", "schedtopo_nr8"):
        d = os.path.join(OUTSIDE, "linux-dtbs")
        assert os.path.isdir(d), "%s missing: run make outside" % d
        return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".dtb"))
    if target == "rtapp_prog":
        d = os.path.join(OUTSIDE, "rt-app", "examples")
        assert os.path.isdir(d), "%s missing: run make outside" % d
        files = [os.path.join(d, f) for f in sorted(os.listdir(d))]
        shared = os.path.join(os.path.dirname(ROOT), "shared", "outside")
        for sub in ("rtapp-lisa", "rtapp-rt"):
            if os.path.isdir(os.path.join(shared, sub)):
                files += [os.path.join(shared, sub, f) for f in sorted(os.listdir(os.path.join(shared, sub)))
                          if f.endswith(".json")]
        out = []
        for i, src in enumerate(files):
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "rtapp"), "--lines", "--duration-ms",
                                "1000", src], capture_output=True, text=True, timeout=60)
            if p.returncode == 0:
                path = os.path.join(tmp, "%02d-%s.txt" % (i, os.path.basename(src)))
                with open(path, "w") as o:
                    o.write(p.stdout)
                out.append(path)
        assert len(out) >= 10, out
        return out
    return []


def _run_target(target):
    import tempfile
    exe = os.path.join(ROOT, "build", "fuzz", "regress", target)
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus", target)
    assert os.access(exe, os.X_OK), "%s missing: run `make fuzz-regress-bins` (make test builds it)" % exe
    assert os.path.isdir(corpus) and os.listdir(corpus), "no corpus in %s" % corpus
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([exe, corpus] + _outside_inputs(target, tmp), cwd=ROOT, capture_output=True,
                           text=True, timeout=600, errors="replace")
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
