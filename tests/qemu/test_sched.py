"""Scheduler core behaviour in QEMU (issue 3): fair shares across CPUs,
no lost wake-ups among many sleepers, and a stopped tick on idle CPUs."""
import re

from qemulib import boot


def shares(output):
    return [float(m.group(1)) for m in re.finditer(r"^fair: task \d+ nice -?\d+ runtime_us=\d+ share=([\d.]+)%$",
                                                    output, re.M)]


def test_four_cpu_bound_tasks_get_a_quarter_each():
    r = boot("vexpress-a9", run="schedtest fair 4 1000", timeout=120)
    assert r.status == 0, r
    s = shares(r.output)
    assert len(s) == 4, r
    for share in s:
        assert abs(share - 25.0) <= 2.0, "share %.2f%% not 25%%+-2: %r" % (share, r)


def test_eight_tasks_on_four_cpus_share_fairly():
    r = boot("vexpress-a9", run="schedtest fair 8 1000", timeout=120)
    assert r.status == 0, r
    s = shares(r.output)
    assert len(s) == 8, r
    for share in s:
        assert abs(share - 12.5) <= 1.5, "share %.2f%% not 12.5%%+-1.5: %r" % (share, r)


def test_hundred_sleepers_lose_no_wakeups():
    r = boot("qemu-tc2", run="schedtest wake 100 50 2000", timeout=180)
    assert r.status == 0, r
    m = re.search(r"^wake: tasks=100 iterations=(\d+) expected=(\d+) lost=(\d+)$", r.output, re.M)
    assert m, r
    assert m.group(1) == m.group(2) == "5000" and m.group(3) == "0", r


def test_idle_cpus_stop_their_tick():
    r = boot("vexpress-a9", run="schedtest idle 1000", timeout=60)
    assert r.status == 0, r
    ticks = {int(c): int(t) for c, t in re.findall(r"^idle: cpu(\d+) ticks=(\d+) over 1000 ms$", r.output, re.M)}
    assert sorted(ticks) == [0, 1, 2, 3], r
    for cpu, t in ticks.items():
        assert t <= 5, "cpu%d took %d ticks while idle for 1 s: %r" % (cpu, t, r)
