"""`microbench`, the in-guest half of `make bench`: every figure
prints well-formed RESULT lines for each task count, the figures hang
together (a wake-up costs more than the context switch inside it, the
expiry -> callback -> run split adds up to about the whole, a pinned
wakee's wake_up() skips the packing test), and bad arguments give one error
line with the machine still up. Costs are instruction counts under icount,
but no bound on them is asserted here: targets live in bench/results.md."""
import re

from qemulib import boot

FIGS = ("ctxsw", "wake_local", "wake_busy", "wake_remote", "tick", "tick_irq", "select", "pack", "idle", "mem",
        "ctxsw_fifo", "wake_fifo", "wake_busy_fifo")


def results(output):
    out = []
    for line in re.findall(r"^RESULT (bench=microbench .*)$", output, re.M):
        out.append(dict(f.split("=", 1) for f in line.split()))
    return out


def test_every_figure_prints_a_result_line_per_task_count():
    for board in ("qemu-tc2", "vexpress-a9"):
        r = boot(board, run="microbench %s tasks=1,3 reps=9" % ",".join(FIGS), timeout=180)
        assert r.status == 0, r
        res = results(r.output)
        got = [(x["fig"], x["tasks"]) for x in res]
        for fig in FIGS:
            for n in ("1", "3"):
                # idle: one line per state tried (bounded and unbounded sleep); mem: sizes, once.
                want = 2 if fig == "idle" else 0 if (fig, n) == ("mem", "3") else 1
                assert got.count((fig, n)) == want, (fig, n, got)
        for x in res:
            assert x["board"] == board and x["pack"] == "rails", x
            for k in ("median_ns", "min_ns", "p90_ns", "max_ns", "cpu1_busy_us"):
                assert x[k].isdigit(), (k, x)
            # The measured task's policy as it ran, read back from the task: FIFO 80 for the
            # *_fifo figures (cyclictest -p 80's), SCHED_OTHER for the others.
            want = ("fifo", "80") if x["fig"].endswith("_fifo") else ("other", "0")
            assert (x["policy"], x["prio"]) == want, x
            if x["fig"] != "mem":
                assert 0 < int(x["min_ns"]) <= int(x["median_ns"]) <= int(x["p90_ns"]) <= int(x["max_ns"]), x
            # A mean from the samples wherever there are samples (PELT's rows are per-call batches).
            if x["fig"] not in ("mem", "pelt"):
                assert int(x["min_ns"]) <= int(x["mean_ns"]) <= int(x["max_ns"]), x
        one = {x["fig"]: x for x in res if x["tasks"] == "1" and x["fig"] != "idle"}
        ctxsw, wake = int(one["ctxsw"]["median_ns"]), int(one["wake_local"]["median_ns"])
        assert ctxsw < wake, (ctxsw, wake)
        # The split reps' whole, rep by rep (the sum of the two medians is not a median: it came out
        # below the whole in some builds, 872 < 884). Those reps also read the clock in the
        # callback: a little more than the timed whole, but never less than its fastest rep. Not
        # "at least the timed median": on qemu-tc2 the reps fall in two groups ~80 ns apart
        # (930 and 1 006..1 024 after the other figures ran), and nine timed and nine split reps
        # can put their medians in different groups (1 006 against 958).
        split = int(one["wake_local"]["split_median_ns"])
        assert int(one["wake_local"]["min_ns"]) <= split <= wake + 200, (wake, split, one["wake_local"]["min_ns"])
        assert one["select"]["pack_test"] == "none", one["select"]
        assert int(one["pack"]["select_median_ns"]) > 0, one["pack"]
        assert one["wake_remote"]["target_cpu"] != one["wake_remote"]["cpu"], one["wake_remote"]


def test_bad_arguments_give_an_error_line_and_the_machine_stays_up():
    r = boot("qemu-tc2", run="microbench bogus; microbench reps=2; microbench tasks=0; microbench cpu=9; "
                             "microbench mem; uptime", timeout=60)
    assert r.status == 0, r
    assert "error: microbench: unknown figure 'bogus' (all ctxsw wake_local wake_busy wake_remote" in r.output, r
    assert re.search(r"^error: microbench: reps= takes 5\.\.\d+$", r.output, re.M), r
    assert re.search(r"^error: microbench: tasks= takes counts 1\.\.\d+ separated by ','$", r.output, re.M), r
    assert "error: microbench: cpu= takes 0..4" in r.output, r
    assert re.search(r"^RESULT bench=microbench board=qemu-tc2 pack=rails fig=mem ", r.output, re.M), r
    assert re.search(r"^up \d+\.\d+ s$", r.output, re.M), r
