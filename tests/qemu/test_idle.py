"""Idle states, cluster power-down and energy accounting in QEMU."""
import re

from qemulib import boot


def windows(output):
    """The RESULT-style field lines printed by `energy`, as dicts."""
    out = []
    for line in re.findall(r"^energy: (energy=.*)$", output, re.M):
        out.append({k: int(v) for k, v in (kv.split("=") for kv in line.split()) if v.isdigit()})
    return out


def window_us(output):
    return [int(w) for w in re.findall(r"^energy: src=\w+ window_us=(\d+) ", output, re.M)]


def test_idle_system_has_both_clusters_off():
    r = boot("qemu-tc2", run="energy mark; schedtest idle 1000; energy", timeout=60)
    assert r.status == 0, r
    (w,), (t,) = windows(r.output), window_us(r.output)
    for k in (0, 1):
        assert w["cluster%d_off_us" % k] > 0.99 * t, "cluster%d off %d of %d us: %r" % (
            k, w["cluster%d_off_us" % k], t, r)
    # Idle energy is the off power: A15 25 + A7 10 units per ms.
    assert 34000 <= w["energy"] <= 37000, r


def test_a7_only_work_keeps_the_a15_cluster_off():
    r = boot("qemu-tc2", run="energy mark; schedtest nice 3 500 0 0; energy", timeout=60)
    assert r.status == 0, r
    (w,), (t,) = windows(r.output), window_us(r.output)
    assert w["cluster0_off_us"] > 0.99 * t, r
    assert w["cpu3_busy_us"] > 0.99 * t and w["cluster1_off_us"] < 0.01 * t, r
    # Busy A7 core + A7 cluster dominate: about (1024 + 4905) x 500 ms.
    assert abs(w["energy_c1"] - 5929 * 500) < 0.02 * 5929 * 500, r


def test_latency_limit_keeps_clusters_on():
    # Cluster sleep exits in 700 / 500 us: a 100 us limit leaves only WFI.
    for how in ("boot", "console"):
        if how == "boot":
            r = boot("qemu-tc2", append="idle_latency_us=100", run="energy mark; schedtest idle 500; energy")
        else:
            r = boot("qemu-tc2", run="idle latency 100; energy mark; schedtest idle 500; energy; "
                                     "idle latency off; energy mark; schedtest idle 500; energy")
        assert r.status == 0, r
        w, t = windows(r.output), window_us(r.output)
        # (Changing the limit wakes idle CPUs to choose again: a few us of slack.)
        assert w[0]["cluster0_off_us"] < 0.001 * t[0] and w[0]["cluster1_off_us"] < 0.001 * t[0], r
        if how == "console":
            assert w[1]["cluster0_off_us"] > 0.99 * t[1] and w[1]["cluster1_off_us"] > 0.99 * t[1], r
            assert "idle: latency limit 100 us" in r.output and "idle: latency limit off" in r.output, r


def test_idle_command_and_errors():
    r = boot("vexpress-a9", run="idle; idle latency x; energy bogus; energy ref; energy", timeout=60)
    assert r.status == 0, r
    assert re.search(r"^idle: cpu3 busy_us=\d+ wfi_us=\d+ wfi_n=\d+$", r.output, re.M), r
    # One rail for the whole A9 tile: it never turns off.
    assert re.search(r"^idle: cluster0 cpus=0-3 busy_us=\d+ idle_us=\d+ off_us=0 powered_off=0$", r.output, re.M), r
    assert "error: idle latency takes microseconds 0..10000000 or 'off'" in r.output, r
    assert "error: usage: energy [mark|ref]" in r.output, r
    assert re.search(r"^energy: table cluster0=\d+ total=\d+$", r.output, re.M), r
    # The meters are absent on QEMU: said once, the model is used.
    r = boot("vexpress-a15", run="energy", timeout=60)
    assert r.status == 0, r
    assert "src=model" in r.output, r
