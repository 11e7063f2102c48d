#!/usr/bin/python3
"""Run every test: host unit-test binaries (build/host/test_*) and QEMU
behaviour tests (tests/qemu/test_*.py, functions named test_*). Prints one
line per test (PASS, FAIL or SKIP) and, last, 'N passed, N failed'. Exit
status 1 on any failure.

  tests/run.py [-k SUBSTRING] [--host-only] [--qemu-only] [-j N] [--strict]

A test that could not run its check (qemulib.skip(): a tool or an input is
missing) is a SKIP, never a PASS: it is counted apart, on the line before the
last. With --strict (CI, `make test STRICT=1`), a skip for something
tools/ensure-deps.sh installs (required=True) is a failure.

Every failure, with its detail, is also appended to build/test-failures.log
(the run's start time and arguments above it): a failure that scrolled past
can be read there after the run.

A QEMU test marked `exclusive` (decorator in tests/qemu/qemulib.py) runs
after all the others, alone: one that needs real parallel vCPUs (MTTCG, no
icount) measures the host as much as the kernel when other QEMUs compete
for its cores (a descheduled vCPU holding a spinlock stalls the rest).
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import os
import re
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def host_tests():
    for path in sorted(glob.glob(os.path.join(ROOT, "build", "host", "test_*"))):
        if os.access(path, os.X_OK) and not path.endswith(".o"):
            yield os.path.basename(path), path


def run_host(name, path):
    """Runs one ktest binary; returns [(case, ok, detail)]."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([path], cwd=ROOT, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return [("%s" % name, False, "timed out after 300 s")]
    results = []
    summary = None
    for line in p.stdout.splitlines():
        if line.startswith("ok "):
            results.append(("%s/%s" % (name, line[3:].strip()), True, ""))
        elif line.startswith("FAIL "):
            case, _, why = line[5:].partition(": ")
            results.append(("%s/%s" % (name, case), False, why))
        elif line.startswith("ktest: "):
            summary = line
    if p.returncode != 0 and (summary is None or all(ok for _, ok, _ in results)):
        detail = (p.stderr or p.stdout).strip().splitlines()[-12:]
        results.append((name, False, "exit status %d%s\n%s" % (
            p.returncode, "" if summary else " (no ktest summary: crashed?)", "\n".join(detail))))
    if not results:
        results.append((name, False, "no test cases ran"))
    _ = t0
    return results


def qemu_tests():
    sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "qemu", "test_*.py"))):
        modname = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for attr in sorted(dir(mod)):
            fn = getattr(mod, attr)
            if attr.startswith("test_") and callable(fn):
                yield "%s/%s" % (modname, attr), fn


SKIPPED = "skip"


def run_qemu(name, fn):
    import qemulib
    try:
        fn()
        return [(name, True, "")]
    except qemulib.Skip as e:
        return [(name, SKIPPED, (str(e), e.required))]
    except AssertionError as e:
        return [(name, False, str(e) or traceback.format_exc(limit=2))]
    except Exception:  # noqa: BLE001 - a crashing test is a failed test
        return [(name, False, traceback.format_exc(limit=4))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--qemu-only", action="store_true")
    ap.add_argument("-j", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--strict", action="store_true", help="a skip for a required tool fails")
    a = ap.parse_args()

    jobs = []
    if not a.qemu_only:
        jobs += [(n, run_host, (n, p)) for n, p in host_tests() if a.k in n]
    if not a.host_only:
        jobs += [(n, run_qemu, (n, f)) for n, f in qemu_tests() if a.k in n]

    fail_log = os.path.join(ROOT, "build", "test-failures.log")
    started = time.strftime("%Y-%m-%d %H:%M:%S")

    def fail(case, detail):
        """Prints the failure and appends it to fail_log; @detail's lines indented."""
        nonlocal failed
        failed += 1
        text = "\n".join("    %s" % line for line in str(detail).splitlines())
        print("FAIL %s" % case)
        if text:
            print(text)
        os.makedirs(os.path.dirname(fail_log), exist_ok=True)
        with open(fail_log, "a") as f:
            f.write("== %s, tests/run.py %s\nFAIL %s\n%s\n" % (started, " ".join(sys.argv[1:]), case, text))

    shared = [j for j in jobs if not getattr(j[2][-1], "exclusive", False)]
    alone = [j for j in jobs if getattr(j[2][-1], "exclusive", False)]
    passed = failed = skipped = 0

    def report(results):
        nonlocal passed, skipped
        for case, ok, detail in results:
            if ok is SKIPPED:
                why, required = detail
                if a.strict and required:
                    fail(case, "skipped, and --strict: %s" % why)
                else:
                    skipped += 1
                    print("SKIP %s: %s" % (case, why))
            elif ok:
                passed += 1
                print("PASS %s" % case)
            else:
                fail(case, detail)
        sys.stdout.flush()

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        futures = [(n, ex.submit(fn, *args)) for n, fn, args in shared]
        for n, fut in futures:
            report(fut.result())
    for n, fn, args in alone:
        report(fn(*args))
    if skipped:
        print("%d skipped" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    if failed:
        print("failures kept in %s" % os.path.relpath(fail_log, os.getcwd()))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
