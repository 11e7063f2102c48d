"""Booting from Linux's own device trees of the boards (Debian's
linux-image-*-armmp DTBs, unpacked into build/outside/linux-dtbs by `make
outside`), as a user whose board boots Linux or
whose U-Boot hands over its DTB would; and DTs the kernel cannot use, each of
which must end the run at once with a panic line naming node and property."""
import os
import re
import shutil
import subprocess
import tempfile
import time

from qemulib import ROOT, boot, qemu_run

VERSIONS = ("debian",)	# one source: the DTBs of Debian's armmp kernel (build/outside/linux-dtbs/VERSION)


def linux_dtb(version, name):
    assert version == "debian", version
    path = os.path.join(ROOT, "build", "outside", "linux-dtbs", name + ".dtb")
    assert os.path.isfile(path), "%s missing: run make outside (tools/outside-inputs.sh)" % path
    return path


def result_line(out, bench):
    lines = [l for l in out.splitlines() if l.startswith("RESULT bench=%s " % bench)]
    assert len(lines) == 1, out
    return lines[0]


def result_cpus(line):
    return sorted(int(c) for c in re.findall(r"\bcpu(\d+)_busy_us=", line))


def check_boot(board, dtb, ncpus, model):
    r = boot(board, run="cpus; cyclictest -t 2 -D 1", dtb=dtb, timeout=60)
    out = r.output
    assert r.status == 0, r
    assert "(board %s, %s)" % (board, model) in out, r
    assert "%d of %d CPUs online" % (ncpus, ncpus) in out, r
    # No energy model in Linux's DTs: said once, and the benchmark still reports.
    assert out.count("energy: no energy model in the DT") == 1, r
    line = result_line(out, "cyclictest")
    assert result_cpus(line) == list(range(ncpus)), line
    assert re.search(r" threads=2 duration_us=1000000 lat_min_us=\d+ lat_avg_us=\d+ lat_max_us=\d+ ", line), line
    assert "panic" not in out, r
    return out


def test_linux_ca9_dt_boots_vexpress_a9():
    for v in VERSIONS:
        out = check_boot("vexpress-a9", linux_dtb(v, "vexpress-v2p-ca9"), 4, "V2P-CA9")
        # The console behind two nested simple-buses with chip-select ranges.
        assert "timer: timer@1e000600 has no clock; measured 100000000 Hz against the 24 MHz counter" in out, (v, out)


def test_linux_ca15_tc1_dt_boots_vexpress_a15():
    for v in VERSIONS:
        check_boot("vexpress-a15", linux_dtb(v, "vexpress-v2p-ca15-tc1"), 2, "V2P-CA15")


def test_linux_tc2_dt_on_vexpress_a15_reports_missing_cpus():
    """TC2's DT names MPIDRs 0, 1, 0x100-0x102; QEMU vexpress-a15 has 0-3."""
    for v in VERSIONS:
        r = boot("vexpress-a15", run="cpus; cyclictest -t 2 -D 1; idle",
                 dtb=linux_dtb(v, "vexpress-v2p-ca15_a7"), timeout=60)
        out = r.output
        assert r.status == 0, r
        for cpu, mpidr in ((2, 0x100), (3, 0x101), (4, 0x102)):
            assert re.search(r"^cpu%d offline: mpidr=0x%x did not arrive within \d+ ms$" % (cpu, mpidr),
                             out, re.M), (v, r)
        assert "2 of 5 CPUs online" in out, r
        # One rail (no power-domains): the reason, once, and no buddies.
        assert out.count("pack: rails: all 5 CPUs share one power rail (no cpu node has power-domains), "
                         "so nothing is packed; pack=all gives each CPU its own") == 1, r
        assert re.findall(r"^CPU\d packing on CPU(-?\d+)$", out, re.M)[:5] == ["-1"] * 5, r
        # Only the CPUs that came online, in RESULT and residency figures.
        assert result_cpus(result_line(out, "cyclictest")) == [0, 1], r
        assert sorted(set(re.findall(r"^idle: cpu(\d+) ", out, re.M))) == ["0", "1"], r


def test_linux_tc2_dt_pack_all_is_the_seeds_arm_patch():
    """pack=all on TC2's own DT: the same buddies as boards/tc2 (the seeds' ARM patch)."""
    dtb = linux_dtb("debian", "vexpress-v2p-ca15_a7")
    want = ["CPU0 packing on CPU2", "CPU1 packing on CPU0", "CPU2 packing on CPU2",
            "CPU3 packing on CPU2", "CPU4 packing on CPU2"]
    p = subprocess.run([os.path.join(ROOT, "build", "host", "schedtopo"), "--pack=all", dtb],
                       capture_output=True, text=True)
    assert p.returncode == 0 and [l for l in p.stdout.splitlines() if "packing" in l] == want, p
    r = boot("vexpress-a15", run="cpus", append="pack=all", dtb=dtb, timeout=60)
    assert r.status == 0 and re.findall(r"^CPU\d packing on CPU-?\d+$", r.output, re.M)[:5] == want, r
    assert "pack: " not in r.output, r


def test_offline_cpus_appear_in_no_figure():
    """-smp 1 with a DT of 4 CPUs: cpu1-3 never come online and are charged nothing."""
    r = boot("vexpress-a9", run="sysbench --num-threads=4 --max-requests=8; idle; energy",
             dtb=linux_dtb("debian", "vexpress-v2p-ca9"), smp=1, timeout=60)
    out = r.output
    assert r.status == 0 and "1 of 4 CPUs online" in out, r
    line = result_line(out, "sysbench")
    assert result_cpus(line) == [0], line
    assert not re.search(r"^(idle|energy): cpu[123] ", out, re.M), r


# ---------------------------------------------------------------- bad DTs

BASE = ("debian", "vexpress-v2p-ca9")
MB = "/bus@40000000/motherboard-bus@40000000"
UART = MB + "/iofpga@7,00000000/uart@9000"

# (fdtput arguments, the exact panic line)
BAD_DTS = [
    (["-d", MB, "ranges"],
     "panic: %s: ranges: missing, so 0x700000000 of sysreg@0 is not a CPU address" % MB),
    (["-t", "s", "/chosen", "stdout-path", "serial7:38400n8"],
     'panic: /chosen: stdout-path: "serial7" is no alias of /aliases naming a node'),
    (["-t", "x", "/interrupt-controller@1e001000", "reg", "1e001000", "1000"],
     "panic: /interrupt-controller@1e001000: reg: entry 1 needed, 1 present"),
    (["-t", "i", "/cpus", "#address-cells", "2"],
     "panic: /cpus/cpu@0: reg: 4 bytes is not a whole number of 2-cell entries (#address-cells 2, #size-cells 0)"),
    (["-t", "x", "/bus@40000000", "interrupt-map", "0", "5", "1"],
     "panic: /bus@40000000: interrupt-map: entry at cell 0 is truncated"),
    (["-t", "s", "/timer@1e000600", "compatible", "arm,sp804"],
     "panic: /: compatible: no node is arm,armv7-timer or arm,cortex-a9-twd-timer: no timer"),
    (["-t", "i", "/cpus/cpu@0", "reg", "5"],
     "panic: /cpus/cpu@0: reg: 0x5, but the boot CPU's MPIDR is 0x0: the first cpu node must be it"),
    (["-t", "s", UART, "compatible", "arm,pl010"],
     "panic: %s: compatible: not arm,pl011, the only console the kernel drives" % UART),
]


def test_bad_linux_dts_panic_naming_node_and_property():
    assert shutil.which("fdtput"), "fdtput (device-tree-compiler) missing"
    tmp = tempfile.mkdtemp()
    try:
        for i, (args, want) in enumerate(BAD_DTS):
            path = os.path.join(tmp, "bad%d.dtb" % i)
            shutil.copy(linux_dtb(*BASE), path)
            subprocess.run(["fdtput", path] + args, check=True)
            t0 = time.monotonic()
            r = boot("vexpress-a9", run="cpus", dtb=path, timeout=30)
            wall = time.monotonic() - t0
            panics = [l for l in r.lines() if l.startswith("panic: ")]
            assert panics == [want], (args, want, r)
            assert r.status == qemu_run.PANIC_EXIT, (args, r)
            assert wall < 10, (args, "QEMU took %.1f s to end" % wall)
            assert "sched> " not in r.output, (args, r)
    finally:
        shutil.rmtree(tmp)


def test_qemu_run_exits_nonzero_after_a_panic():
    """The user-facing path: tools/qemu-run itself, on a DT whose console is wrong."""
    tmp = tempfile.mkdtemp()
    try:
        path = os.path.join(tmp, "bad.dtb")
        shutil.copy(linux_dtb(*BASE), path)
        subprocess.run(["fdtput", path] + BAD_DTS[-1][0], check=True)
        p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tools", "qemu-run"), "--board", "vexpress-a9",
                            "--dtb", path, "--run", "cpus"], capture_output=True, timeout=30,
                           stdin=subprocess.DEVNULL)
        assert p.returncode == qemu_run.PANIC_EXIT == 3, p
        assert BAD_DTS[-1][1].encode() in p.stdout, p
    finally:
        shutil.rmtree(tmp)


def test_interactive_session_lets_idle_time_pass():
    """make run's prompt: icount with sleep=on (QEMU warns 'icount sleep disabled
    and no active timers' at an idle prompt with sleep=off); scripted runs stay deterministic."""
    inter = qemu_run.qemu_command("vexpress-a9", interactive=True)
    script = qemu_run.qemu_command("vexpress-a9", "autorun=cpus")
    assert inter[inter.index("-icount") + 1] == "shift=0,sleep=on", inter
    assert script[script.index("-icount") + 1] == "shift=0,sleep=off", script
    assert "panic=poweroff" in inter[-1] and "panic=poweroff" in script[-1], (inter, script)
