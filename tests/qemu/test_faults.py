"""Fault containment: a faulting task is killed with a report and
the rest go on; a kernel fault panics every CPU with registers, a stack dump
and a backtrace; stack overflows hit guard pages and say so. Backtraces
(unwound with the EHABI tables, boot/backtrace.c) are resolved with the
ELF's symbol table and must name the real call chain."""
import bisect
import os
import re
import subprocess

from qemulib import ROOT, boot, exclusive, qemu_run, stress_verdict

# Where the shell calls a command: run_one(), or whichever function it is
# inlined into (shell_run_script() tail-calls run_line()).
SHELL_DISPATCH = {"run_one", "run_line", "shell_execute", "shell_run_script", "enter_line", "shell_input"}
MAX_FRAMES = 16  # return addresses after the pc (boot/backtrace.c)


def symbolizer(board):
    """address -> name of the function containing it, from `nm -n` of the
    board's kernel.elf; compiler suffixes (recurse.isra.0) are dropped."""
    elf = os.path.join(ROOT, "build", board, "kernel.elf")
    out = subprocess.run(["arm-none-eabi-nm", "-n", elf], capture_output=True, text=True, check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW" and not f[2].startswith(("$", ".L")):
            addrs.append(int(f[0], 16))
            names.append(f[2].split(".")[0])

    def name(addr):
        i = bisect.bisect_right(addrs, addr & ~1) - 1
        return names[i] if i >= 0 else "?"
    return name


def backtrace_after(out, header, board):
    """The function names of the first backtrace line after the line matching
    @header: the pc, then each return address looked up one byte lower (a
    call can be a function's last instruction)."""
    m = re.search(header + r".*\n(?:(?! backtrace:).*\n)*? backtrace:((?: [0-9a-f]{8})+)$", out, re.M)
    assert m, "no backtrace after %r" % header
    pcs = [int(x, 16) for x in m.group(1).split()]
    name = symbolizer(board)
    return pcs, [name(pc if i == 0 else pc - 1) for i, pc in enumerate(pcs)]


def check_task_fault_backtraces(out, board):
    # A task's stack ends at arch_task_start (boot/switch.S, .cantunwind).
    for victim, fn in (("undef", "undef_fn"), ("abort", "abort_fn")):
        pcs, names = backtrace_after(out, r"^fault: task \d+ \(%s\) on cpu\d: " % victim, board)
        assert names == [fn, "task_start", "arch_task_start"], (board, victim, names, pcs)
    # Recursion down to the guard page: the walk stops at the frame limit.
    pcs, names = backtrace_after(out, r"^fault: task \d+ \(overflow\) on cpu\d: ", board)
    assert len(pcs) == 1 + MAX_FRAMES and set(names) == {"recurse"}, (board, names, pcs)


def check_kernel_fault_backtrace(out, board):
    m = re.search(r"^panic: cpu\d: data abort at pc=0x([0-9a-f]{8})", out, re.M)
    assert m, board
    pcs, names = backtrace_after(out, r"^panic: cpu\d: data abort at pc=", board)
    assert pcs[0] == int(m.group(1), 16), (board, pcs)
    # kernel_fault() <- cmd_crash() <- the shell <- ... <- the console task's first frame.
    assert names[:2] == ["kernel_fault", "cmd_crash"], (board, names, pcs)
    assert names[2] in SHELL_DISPATCH, (board, names, pcs)
    assert names[-1] == "arch_task_start", (board, names, pcs)


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
    check_task_fault_backtraces(out, "vexpress-a9")
    # Everything else went on: the fair test ran and every task is accounted for.
    assert len(re.findall(r"^fair: task \d ", out, re.M)) == 4, r
    assert "schedcheck: ok" in out, r


def test_kernel_fault_panics_all_cpus():
    r = boot("qemu-tc2", run="spawn 4 2000; crash kernel", timeout=60)
    out = r.output
    assert re.search(r"^panic: cpu0: data abort at pc=0x[0-9a-f]{8}: translation fault \(page\) on write of "
                     r"0x[0-9a-f]{8} \(dfsr=0x[0-9a-f]+\)$", out, re.M), r
    assert re.search(r"^ r0  [0-9a-f]{8}  r1  [0-9a-f]{8}", out, re.M), r
    assert re.search(r"^ sp  [0-9a-f]{8}  lr  [0-9a-f]{8}  pc  [0-9a-f]{8}  cpsr [0-9a-f]{8}$", out, re.M), r
    assert re.search(r"^ stack:( [0-9a-f]{8}){8}$", out, re.M), r
    assert re.search(r"^ backtrace: [0-9a-f]{8}( [0-9a-f]{8})+$", out, re.M), r
    check_kernel_fault_backtrace(out, "qemu-tc2")
    # panic=poweroff (tools/qemu-run's default): QEMU ends, and the run's status says panic.
    assert "--- panic=poweroff; cpu0 stopped the other CPUs ---" in out, r
    assert r.status == qemu_run.PANIC_EXIT, r


def test_backtraces_name_the_call_chain_on_every_board():
    for board in ("vexpress-a9", "vexpress-a15", "qemu-tc2"):
        r = boot(board, run="crash undef; crash abort; crash overflow; crash kernel", timeout=60,
                 append="panic=halt", until="stopped the other CPUs")
        assert "--- halted; cpu0 stopped the other CPUs ---" in r.output, (board, r)
        check_task_fault_backtraces(r.output, board)
        check_kernel_fault_backtrace(r.output, board)


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
        v = stress_verdict(r.output, seed, 60, 300)
        assert v["tokens_sent"] > 1000 and v["invariant_checks"] >= 10, v


@exclusive
def test_unfair_spinlocks_under_parallel_vcpus():
    # spinlock=unfair (a VM whose host deschedules vCPUs): every spin_lock()
    # site's LDREX becomes a branch to its unfair twin, all of them (the
    # kernel's table, counted in the ELF), and the locks still exclude: the
    # stress's tokens all arrive, its sleeping locks (built on spinlocks) see
    # no violation, with RT workers in.
    elf = os.path.join(ROOT, "build", "qemu-tc2", "kernel.elf")
    sections = subprocess.run(["arm-none-eabi-objdump", "-h", elf], capture_output=True, text=True, check=True).stdout
    size = re.search(r"^\s*\d+ spin_unfair_sites\s+([0-9a-f]+) ", sections, re.M)
    assert size and int(size.group(1), 16) % 8 == 0, sections
    r = boot("qemu-tc2", mttcg=True, icount=False, timeout=300, append="spinlock=unfair", run="stress 20 13 300 rt")
    assert r.status == 0, r
    assert "spinlock: unfair (bootargs; %d sites)" % (int(size.group(1), 16) // 8) in r.output, r
    v = stress_verdict(r.output, 13, 20, 300)
    assert v["tokens_sent"] > 1000 and v["sync_violations"] == 0 and v["policy_changes"] > 0, v


def test_bad_spinlock_mode_is_one_error_line():
    r = boot("vexpress-a9", append="spinlock=fifo", run="uptime", timeout=60)
    assert r.status == 0, r
    assert "bootargs: error: unknown spinlock mode 'fifo' (ticket, unfair); using ticket" in r.output, r
    assert "spinlock: unfair" not in r.output and re.search(r"^up \d", r.output, re.M), r


@exclusive
def test_watchdog_names_the_lock_a_stuck_cpu_spins_for():
    # The console takes a spinlock it already holds, IRQs off: the watchdog's
    # panic (debug kernel) says what the stuck CPU spins for, who holds it and
    # where that was taken; a CPU stuck with IRQs off cannot be asked itself.
    r = boot("qemu-tc2", run="spawn 2 10000; sleep 50; crash deadlock", timeout=120, until="stopped the other CPUs",
             mttcg=True, icount=False, debug=True)
    m = re.search(r"^panic: cpu\d: watchdog: cpu0 made no scheduling progress for \d+ ms \(running console, .*, "
                  r"spinning for the lock at 0x([0-9a-f]+) held by cpu0 \(taken at 0x([0-9a-f]+)\), serving ticket "
                  r"(\d+) of (\d+); spinning: cpu0=(\d+)\)$",
                  r.output, re.M)
    assert m, r
    # Its own ticket is the last one taken, one past the one served (its first, held).
    assert int(m.group(5)) == int(m.group(4)) == int(m.group(3)) + 1, m.group(0)
    # Taken in the crash command (the name of the function holding that pc, LTO's inlining aside).
    assert symbolizer("qemu-tc2-debug")(int(m.group(2), 16)) == "cmd_crash", (m.group(0), r)


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
    # Its timer was 1 s overdue first: the kick IPI could not get in with IRQs off.
    assert re.search(r", did not take the kick IPI sent at \d+ ms\)$", m.group(0)), r
    # The checker's own call chain follows: panic() from the tick, in the timer interrupt
    # (the timer code's frames depend on what link-time optimisation inlined).
    _, names = backtrace_after(r.output, re.escape(m.group(0)), "qemu-tc2")
    # watchdog_check is inlined into the tick's work (sched_tick_at), and that into tick_fn, or not,
    # as link-time optimisation decides.
    assert names[:2] == ["backtrace_here", "panic"] and {"sched_tick_at", "tick_fn"} & set(names[2:4]), (names, r)
    assert {"timers_run", "timer_event"} & set(names) and "vec_irq" in names, (names, r)


def test_watchdog_kicks_a_cpu_whose_timer_interrupt_is_lost():
    # The console's CPU stops getting its timer interrupt for 3 s with IRQs on
    # (its PPI masked at the GIC: a controller that loses it) and idles in
    # a 4 s sleep only its own timer can end. The watchdog, from
    # the hogs' CPUs, sees its hardware deadline 1 s past and kicks it with an
    # IPI that runs its due timers: the unmask at 3 s, and the sleep ends on
    # time. No panic: a CPU that takes IPIs has not stopped. (Without the kick
    # the console slept for ever.)
    for board in ("qemu-tc2", "vexpress-a9"):
        r = boot(board, run="spawn 2 10000; crash timer 3000; sleep 4000; uptime", timeout=120)
        assert r.status == 0 and "panic" not in r.output, r
        assert "crash: cpu0's timer interrupt is masked for 3000 ms (IRQs stay on)" in r.output, r
        m = re.search(r"^watchdog: cpu0's timer interrupt is (\d+) ms late while it takes IPIs: "
                      r"the watchdog's IPI ran its timers \(kick 1; hardware set for (\d+) ms; it holds (\d+) ms, "
                      r"enabled, fired, earliest of \d+ timers (\d+) ms, tick (stopped|armed)\)$", r.output, re.M)
        # Due at 3 s (the unmask), kicked once 1 s past it, from a check every 64 ticks.
        assert m and 1000 <= int(m.group(1)) < 1200, r
        # The hardware was set for what was due first, the unmask at 3 s, and read back it
        # holds that deadline and has fired: the interrupt was lost at the GIC, not the timer.
        assert m.group(2) == m.group(4) and 3000 <= int(m.group(2)) < 3100, r
        # The TWD counts down to 0 from the deadline it was given: its read-back is the
        # moment of the read, not the deadline (a9_timer.c); the generic timer keeps CVAL.
        if board == "qemu-tc2":
            assert m.group(3) == m.group(2), r
        assert r.output.index("crash: cpu0's timer interrupt is unmasked") < m.start(), r
        up = re.search(r"^up (\d+\.\d+) s$", r.output, re.M)
        assert up and 4.0 <= float(up.group(1)) < 4.5, r


def test_interrupts_keep_the_tasks_vfp_registers():
    # A task holds values in d0-d7 and FPSCR (caller-saved under the
    # hard-float ABI) while a timer callback on its CPU, in interrupt context,
    # overwrites them every ms, as handlers' C code does (newlib's memcpy,
    # GCC's 64-bit constant stores through d7). The IRQ entry (vec_irq) must
    # give them back. Before it saved them, the task saw d7 change before the
    # first of its own interrupts: the kernel's tick had already done it.
    for board in ("qemu-tc2", "vexpress-a9"):
        r = boot(board, run="crash vfp 200; crash vfp 0", timeout=120)
        assert r.status == 0 and "panic" not in r.output, r
        m = re.search(r"^crash: vfp: the task's d0-d7 and FPSCR held across (\d+) interrupts on cpu1 "
                      r"that overwrote them$", r.output, re.M)
        # One per ms for 200 ms (icount: exact but for the first and last).
        assert m and 195 <= int(m.group(1)) <= 201, r
        assert "error: usage: crash vfp <ms 1..600000>" in r.output, r


def test_a_timer_backlog_leaves_its_cpu_scheduling():
    # A backlog of slow timer callbacks (wake-ups waiting long for rq locks)
    # must not keep its CPU from scheduling: 40 callbacks of 20 ms fall due at
    # once on CPU 1 while a task there spins, and timers_run()'s budget runs
    # one per interrupt with a gap after it (without it the task would wait
    # the whole 800 ms).
    backlog = re.compile(r"^crash: backlog: (\d+) callbacks of (\d+) ms on cpu1 took (\d+) ms; the task there "
                         r"went (\d+) ms without running$", re.M)
    for board in ("qemu-tc2", "vexpress-a9"):
        r = boot(board, run="crash backlog 40 20; crash backlog 0 1", timeout=120)
        assert r.status == 0 and "panic" not in r.output and "watchdog" not in r.output, r
        runs = backlog.findall(r.output)
        assert len(runs) == 1 and runs[0][:2] == ("40", "20"), r
        _, _, took, longest = map(int, runs[0])
        # The callbacks' own time plus at most 1 ms of gap after each.
        assert 800 <= took <= 40 * 22, r
        # One callback at a time, not the whole backlog.
        assert longest <= 22, r
        assert "error: usage: crash backlog <timers 1..64> <ms 1..1000>" in r.output, r
    # A 3.2 s backlog outlasts the watchdog's 2 s, with busy CPUs checking: the
    # CPU's tick waits behind it, and a CPU whose callbacks keep returning has
    # not stalled, inside a timers_run() or in a gap between two. The task's
    # wait is not checked: beside spinning vCPUs, icount's round robin can
    # pass CPU 1 over for a whole 1 ms gap, or for every one.
    # The same round robin delays CPU 1's timer interrupt when its task runs in a gap (the interrupt
    # waits for its vCPU's turn behind the spinner's): 3 352 ms seen (52.4 a callback) where a kernel
    # whose task never ran in the gaps took 3 263. Each callback, its gap and such a wait: under 54 ms.
    r = boot("qemu-tc2", run="taskset 4 spawn 2 5000; crash backlog 64 50", timeout=180)
    assert r.status == 0 and "panic" not in r.output and "watchdog" not in r.output, r
    runs = backlog.findall(r.output)
    assert len(runs) == 1 and runs[0][:2] == ("64", "50"), r
    _, _, took, _ = map(int, runs[0])
    assert 3200 <= took <= 64 * 54, r
