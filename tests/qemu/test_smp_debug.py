"""Debug kernels' SMP tools: seeded delay injection (`inject`),
the starvation detector (`starve`, include/kernel/debug/sched_report.h), and the
regression test of the stranded-task bug they found: a CPU whose timer
interrupts overran never left them, so it ticked on with need_resched set
and never switched. Every run is under icount: the same seed gives the same
run, to the instruction."""
import re

from qemulib import boot, stress_verdict

BOARD = "qemu-tc2"


def debug_run(script, timeout=240):
    r = boot(BOARD, run=script, debug=True, timeout=timeout)
    assert r.status == 0, r
    return r


def detections(out):
    m = re.findall(r"^starve: (?:limit \d+ ms|off), (\d+) detections", out, re.M)
    assert m, out
    return int(m[-1])


def test_overrunning_timer_interrupts_still_let_the_cpu_switch():
    # cpu1 runs two CPU-bound tasks; every lock it releases, in interrupts
    # too, waits 1.2-1.5 ms, so each timer interrupt outlasts the 1 ms tick.
    # Before the fix the tick was re-armed in the past, fired again before
    # the interrupt returned, and cpu1 took 112 ticks with one IRQ exit: the
    # second task never ran (the detector reported it at 100 ms). Now the
    # next tick waits a period plus as long as the last one was late.
    r = debug_run("starve 100; inject 7 unlock 1200..1500 1000 2; taskset 2 spawn 2 2000; sleep 2500; "
                  "inject; starve")
    delays = re.findall(r"^inject: unlock delays=(\d+)$", r.output, re.M)
    assert len(delays) == 2 and int(delays[1]) > 500, r   # the windows were open
    assert "starvation:" not in r.output and detections(r.output) == 0, r


def test_starvation_detector_reports_a_cpu_that_stops_preempting():
    # `crash starve`: cpu1's IRQ exits stop preempting for 2 s, so the tasks
    # queued behind its current one wait while it ticks: one report, with
    # the CPU's state and the task's history.
    r = debug_run("starve 300; spawn 8 3000; crash starve 1 2000; sleep 3000; starve")
    m = re.search(r"^starvation: task (\d+) \(spawned\) has waited (\d+) ms queued on cpu1, which took (\d+) ticks "
                  r"meanwhile without running it", r.output, re.M)
    assert m and int(m.group(2)) >= 300 and int(m.group(3)) >= 300, r
    assert re.search(r"^starvation: cpu1: running spawned \(task \d+\), \d+ queued, need_resched=1 .* "
                     r"irq_exits=\d+ tick_overruns=\d+ last_schedule=\d+ ms rq_lock=\d+/\d+", r.output, re.M), r
    assert re.search(r"^starvation: task %s \(spawned\) ready on cpu1" % m.group(1), r.output, re.M), r
    assert re.search(r"^starvation:   \d+ ms ago: queued on cpu1", r.output, re.M), r
    assert len(re.findall(r"has waited", r.output)) == 1, r   # reported once
    assert detections(r.output) >= 1, r


def test_starvation_detector_ignores_a_wait_fairness_explains():
    # Nice 19 behind eight nice-0 tasks on one CPU waits far past the limit
    # after each slice (its vruntime runs 68x faster): not starvation.
    r = debug_run("starve 300; taskset 2 spawn 8 3000; taskset 2 spawn 1 3000 19; sleep 3200; starve")
    assert "starvation:" not in r.output and detections(r.output) == 0, r


def test_stress_with_delays_at_every_protocol_point():
    # Every point of include/kernel/debug/inject.h open on every CPU (5% of passes,
    # up to 200 us): no lost wake-up, no starvation, every token arrives.
    r = debug_run("inject 23 all,noirq 0..200 50; stress 4 23 120; inject", timeout=400)
    assert stress_verdict(r.output, 23, 4, 120)["tokens_sent"] > 1000, r
    assert "stress: starvation detector on: 1000 ms" in r.output, r
    counts = dict(re.findall(r"(\w+) delays=(\d+)", r.output.split("stress: PASS seed=")[-1]))
    assert set(counts) >= {"unlock", "ipi", "idle", "irqexit", "wakelist", "timer"}, r
    # noirq keeps the handlers out, the timer callbacks' point with them.
    assert all(int(v) > 0 for k, v in counts.items() if k != "timer") and counts["timer"] == "0", r


def test_stress_with_slow_timer_callbacks():
    # An overloaded host, on purpose: 3% of timer callbacks wait 2..5 ms in
    # their interrupt (as wake-ups waiting on rq locks behind preempted vCPUs),
    # so sleep timers pile up. Every token arrives, no task starves, and the
    # interrupts leave their backlogs to the next (timers_run()'s budget)
    # instead of running them to the end with IRQs off.
    r = debug_run("inject 9 timer 2000..5000 30; stress 2 9 60; inject", timeout=300)
    assert stress_verdict(r.output, 9, 2, 60)["tokens_sent"] > 1000, r
    assert "starvation:" not in r.output and "watchdog" not in r.output, r
    left = re.search(r"^stress: (\d+) timer interrupts left a backlog of due timers to the next "
                     r"\(budget 500 us\)$", r.output, re.M)
    assert left and int(left.group(1)) > 0, r
    delays = re.findall(r"^inject: timer delays=(\d+)$", r.output, re.M)
    assert delays and int(delays[-1]) > 100, r


def test_console_errors():
    r = debug_run("inject 1 nosuchpoint 10; inject 1 unlock 20..10; starve x; inject; starve")
    assert re.search(r"^error: usage: inject <seed> <all\|unlock,ipi,idle,irqexit,wakelist", r.output, re.M), r
    assert len(re.findall(r"^error: ", r.output, re.M)) == 3, r
    assert re.search(r"^inject: off", r.output, re.M), r
    assert detections(r.output) == 0, r
