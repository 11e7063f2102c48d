"""Benchmarks in QEMU: cyclictest and sysbench print rt-tests /
sysbench style output and well-formed RESULT lines; on qemu-tc2, packing
small tasks (pack=rails) uses about half the energy of pack=off (48%, bound
55%) on the seeds' two-cyclictest workload. That sysbench time is unchanged
is checked on the simulator (test_simfast.py), where placement can change it:
under QEMU's icount the throughput is the instruction count's, whatever the
placement, so a check here could not fail."""
import re

from qemulib import boot

RESULT = re.compile(r"^RESULT (.*)$", re.M)


def results(output):
    out = []
    for line in RESULT.findall(output):
        kv = dict(f.split("=", 1) for f in line.split())
        out.append(kv)
    return out


def test_result_lines_are_well_formed():
    r = boot("qemu-tc2", run="cyclictest -t 3 -D 200ms; sysbench --num-threads=4 --max-requests=8; "
                              "cyclictest -t 2 -i 500 -d 100 -D 100ms &; sysbench --test=cpu --num-threads=2 "
                              "--max-requests=4 run; wait", timeout=120)
    assert r.status == 0, r
    res = results(r.output)
    assert [x["bench"] for x in res].count("cyclictest") == 2 and [x["bench"] for x in res].count("sysbench") == 2, r
    for x in res:
        assert x["board"] == "qemu-tc2" and x["pack"] == "rails", x
        for k in ["energy", "energy_c0", "energy_c1", "cluster0_off_us", "cluster1_off_us"] + \
                 ["cpu%d_%s_us" % (c, s) for c in range(5) for s in ("busy", "idle")]:
            assert k in x and x[k].isdigit(), (k, x)
        if x["bench"] == "cyclictest":
            for k in ("threads", "duration_us", "lat_min_us", "lat_avg_us", "lat_max_us"):
                assert x[k].isdigit(), (k, x)
            assert int(x["lat_min_us"]) <= int(x["lat_avg_us"]) <= int(x["lat_max_us"]), x
        else:
            assert x["threads"] in ("4", "2") and int(x["time_us"]) > 0, x
    assert len(re.findall(r"^T: ?\d+ \( *\d+\) P: 0 I:\d+ C: *\d+ Min: *\d+ Act: *\d+ Avg: *\d+ Max: *\d+$",
                          r.output, re.M)) == 5, r
    assert re.search(r"^    total time: +\d+\.\d{4}s$", r.output, re.M), r
    # A 500 us interval with 100 us distance: threads at 500 and 600 us.
    assert re.search(r"^T: 1 \( *\d+\) P: 0 I:600 ", r.output, re.M), r


def test_bad_benchmark_arguments():
    r = boot("vexpress-a9", run="cyclictest -t 4; cyclictest -x 1 -D 1; sysbench --threads=2; "
                                "sysbench --num-threads=0; uptime", timeout=60)
    assert r.status == 0, r
    assert "error: cyclictest: -D <duration> is required" in r.output, r
    assert "error: cyclictest: unknown option '-x'" in r.output, r
    assert "error: sysbench: unknown option '--threads=2'" in r.output, r
    assert "error: sysbench: bad value in '--num-threads=0'" in r.output, r


# The seeds' method: two 20 s cyclictests, energy over 16 s after a 2 s warm-up. A long
# window matters: how pack=off spreads the threads settles differently from run to run.
SEED = ("cyclictest -t 8 -q -e 1000000 -D 20 &; cyclictest -t 8 -q -e 1000000 -D 20 &; "
        "sleep 2000; energy mark; sleep 16000; energy; wait")


def test_packing_halves_cyclictest_energy():
    # Three starts (0, 1, 3 ms later) per mode. How pack=off spreads the threads under QEMU icount
    # is chaotic: vCPUs take turns, and a few instructions more at thread creation, or a different
    # start, moved its window from 5.3 M to 4.2 M (the A15 cluster off 4 s of 16), where other
    # starts give 5.9..6.6 M; one sample per mode is a draw. rails keeps the A15 cluster off (the
    # mechanism) but for ~1% of each window: icount's vCPUs take simultaneous wake-ups in turn, the
    # A7s' queues last, and the nohz balancer pulls a thread to an A15 now and then (traced: 69 runs
    # on cpu0/cpu1 in a window; the A15 cluster off 99.04% and 98.99% of it with two builds that
    # differ only in pack=energy's code). The simulator, with CPUs busy at once, shows none
    # (test_simfast). The old wake-up fallback left it off 85%. rails' energy over the three is
    # below 55% of off's (~48% on a quiet host; the seeds' TC2: about a third; no packing: 100%).
    total = {"off": 0, "rails": 0}
    for pre in ("", "sleep 1; ", "sleep 3; "):
        for mode in total:
            r = boot("qemu-tc2", append="pack=" + mode, run=pre + SEED, timeout=180)
            assert r.status == 0, r
            window = re.search(r"^energy: energy=(\d+) energy_c0=(\d+) energy_c1=(\d+) .*"
                               r"cluster0_off_us=(\d+) ", r.output, re.M)
            assert window, r
            total[mode] += int(window.group(1))
            if mode == "rails":
                assert int(window.group(4)) >= 0.98 * 16e6, (pre, window.group(0))
    assert total["rails"] < 0.55 * total["off"], total
