"""Fault containment (issue 10): a faulting task is killed with a report and
the rest go on; a kernel fault panics every CPU with registers, a stack dump
and a backtrace; stack overflows hit guard pages and say so."""
import re

from qemulib import boot, exclusive


def test_task_faults_kill_only_the_task():
    r = boot("vexpress-a9", run="spawn 3 300; crash undef; crash abort; crash overflow; "
                                "schedtest fair 4 200; schedcheck", timeout=60)
    assert r.status == 0, r
    out = r.output
    assert re.search(r"^fault: task \d+ \(undef\) on cpu\d: undefined instruction at pc=0x[0-9a-f]{8}; task killed$",
                     out, re.M), r
    assert "crash: task undef exited with code -4" in out, r
    assert re.search(r"^fault: task \d+ \(abort\) on cpu\d: data abort: translation fault \(page\) on write "
                     r"of 0x[0-9a-f]{8} at pc=0x[0-9a-f]{8}; task killed$", out, re.M), r
    assert "crash: task abort exited with code -11" in out, r
    assert re.search(r"^ stack overflow: 0x[0-9a-f]{8} is the guard page below task \d+ \(overflow\)'s stack$",
                     out, re.M), r
    assert "crash: task overflow exited with code -11" in out, r
    assert len(re.findall(r"^ backtrace: [0-9a-f]{8}( [0-9a-f]{8})+$", out, re.M)) >= 3, r
    # Everything else went on: the fair test ran and every task is accounted for.
    assert len(re.findall(r"^fair: task \d ", out, re.M)) == 4, r
    assert "schedcheck: ok" in out, r


def test_kernel_fault_panics_all_cpus():
    r = boot("qemu-tc2", run="spawn 4 2000; crash kernel", timeout=60, until="stopped the other CPUs")
    out = r.output
    assert re.search(r"^panic: cpu0: data abort at pc=0x[0-9a-f]{8}: translation fault \(page\) on write of "
                     r"0x[0-9a-f]{8} \(dfsr=0x[0-9a-f]+\)$", out, re.M), r
    assert re.search(r"^ r0  [0-9a-f]{8}  r1  [0-9a-f]{8}", out, re.M), r
    assert re.search(r"^ sp  [0-9a-f]{8}  lr  [0-9a-f]{8}  pc  [0-9a-f]{8}  cpsr [0-9a-f]{8}$", out, re.M), r
    assert re.search(r"^ stack:( [0-9a-f]{8}){8}$", out, re.M), r
    assert re.search(r"^ backtrace: [0-9a-f]{8}", out, re.M), r
    assert "--- halted; cpu0 stopped the other CPUs ---" in out, r


def test_bad_crash_argument():
    r = boot("vexpress-a9", run="crash; crash nonsense", timeout=60)
    assert r.status == 0, r
    assert r.output.count("error: usage: crash undef|abort|overflow|kernel|hang") == 2, r


@exclusive
def test_smp_stress_with_parallel_vcpus():
    # Real parallel vCPUs (no icount): hundreds of tasks sleeping, waking each
    # other, changing affinity and nice, churning, with pack mode switches and
    # invariant checks, for 60 s on each board; every token must arrive.
    for board, seed in (("qemu-tc2", 11), ("vexpress-a9", 12)):
        r = boot(board, mttcg=True, icount=False, timeout=300, run="stress 60 %d 300" % seed)
        assert r.status == 0, r
        m = re.search(r"^stress: seed=%d seconds=60 workers=300 tokens_sent=(\d+) tokens_owed=(\d+) "
                      r"tokens_consumed=(\d+) lost=0 .* invariant_checks=(\d+)$" % seed, r.output, re.M)
        assert m, r
        assert m.group(1) == m.group(2) == m.group(3) and int(m.group(1)) > 1000, r
        assert int(m.group(4)) >= 10, r


@exclusive
def test_watchdog_catches_a_cpu_stuck_with_irqs_off():
    # A busy CPU to check from (ticking CPUs watch the others). Parallel vCPUs,
    # not icount: QEMU's round-robin icount loop was seen to stop running the
    # checker's vCPU for good in some builds while another spun, so the test
    # measured QEMU's scheduling, not the watchdog.
    r = boot("qemu-tc2", run="spawn 2 10000; sleep 50; crash hang", timeout=120, until="stopped the other CPUs",
             mttcg=True, icount=False)
    m = re.search(r"^panic: cpu\d: watchdog: cpu0 made no scheduling progress for (\d+) ms \(running console, "
                  r"tick stalled since \d+ ms; \d+ timers, next at -?\d+ ms, hardware set for -?\d+ ms, "
                  r"timer interrupt last handled at \d+ ms[^)]*\)", r.output, re.M)
    # 2 s threshold, checked every 64 ticks; a loaded host can delay the checker.
    assert m and 2000 <= int(m.group(1)) < 10000, r
