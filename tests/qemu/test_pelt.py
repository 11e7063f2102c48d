"""PELT in the running kernel: periodic tasks' runnable/usage
ratios as the `schedtest duty` and `load` commands report them.

Each duty task is measured alone: under QEMU icount with several vCPUs busy
at once, one vCPU's clock read can wait for another's whole time slice,
which stretches a clock-timed busy phase (see kernel/console/sched_commands.c)."""
import re

from qemulib import boot

LINE = re.compile(r"^duty: task 0 duty=(\d+)% runnable=([\d.]+)% usage=([\d.]+)% load=(\d+) light=([01])$", re.M)


def duty_results(output):
    return {int(m.group(1)): (float(m.group(2)), float(m.group(3)), int(m.group(4)), m.group(5) == "1")
            for m in LINE.finditer(output)}


def test_light_and_heavy_periodic_tasks():
    r = boot("vexpress-a9", run="schedtest duty 500 10000 10; schedtest duty 500 10000 90", timeout=120)
    assert r.status == 0, r
    res = duty_results(r.output)
    assert sorted(res) == [10, 90], r
    run10, use10, load10, light10 = res[10]
    run90, use90, load90, light90 = res[90]
    assert light10 and not light90, r
    # The sample is taken at a period boundary, where a task that has just
    # run its busy phase sits up to ~1 period's decay above its duty cycle.
    assert 9.0 <= use10 <= 12.5 and 89.0 <= use90 <= 93.0, r
    assert use10 <= run10 and use90 <= run90, r
    assert 80 <= load10 <= 130 and 900 <= load90 <= 960, r


def test_load_command_reports_cpus_and_tasks():
    r = boot("qemu-tc2", run="spawn 2 400; load", timeout=120)
    assert r.status == 0, r
    cpus = re.findall(r"^load: cpu(\d) nr_running=\d+ runnable=[\d.]+% usage=[\d.]+% load=\d+ light=[01]$",
                      r.output, re.M)
    assert cpus == ["0", "1", "2", "3", "4"], r
    spawned = re.findall(r"^load: task \d+ spawned\s+cpu=\d runnable=([\d.]+)% usage=([\d.]+)% load=(\d+) light=0$",
                         r.output, re.M)
    assert len(spawned) == 2, r
