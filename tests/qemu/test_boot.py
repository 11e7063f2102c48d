"""Boot tests: every CPU online on each QEMU board, the console
answers, poweroff/reboot end QEMU with status 0, a missing CPU times out
without stopping the rest, and a corrupted DTB gives a specific panic."""
import os
import re
import struct
import tempfile

from qemulib import ROOT, boot, qemu_run

BOARDS = {
    # board: [(mpidr, cluster, compatible)] in logical order
    "vexpress-a9": [(0, 0, "arm,cortex-a9")] + [(i, 0, "arm,cortex-a9") for i in (1, 2, 3)],
    "vexpress-a15": [(0, 0, "arm,cortex-a15"), (1, 0, "arm,cortex-a15"),
                     (2, 1, "arm,cortex-a7"), (3, 1, "arm,cortex-a7")],
    "qemu-tc2": [(0, 0, "arm,cortex-a15"), (1, 0, "arm,cortex-a15"),
                 (2, 1, "arm,cortex-a7"), (3, 1, "arm,cortex-a7"), (4, 1, "arm,cortex-a7")],
}


def check_board(board):
    r = boot(board, run="cpus; uptime")
    assert r.status == 0, "QEMU did not power off cleanly: %r" % r
    for n, (mpidr, cluster, compat) in enumerate(BOARDS[board]):
        want = "cpu%d online mpidr=0x%x cluster=%d %s" % (n, mpidr, cluster, compat)
        assert want in r.lines(), "missing boot line %r: %r" % (want, r)
    nr = len(BOARDS[board])
    assert "%d of %d CPUs online" % (nr, nr) in r.output, r
    assert "sched> cpus" in r.output, r
    assert re.search(r"^0\s+0x0\s+0\s+online", r.output, re.M), r
    assert re.search(r"^up \d+\.\d{6} s$", r.output, re.M), r
    assert "Powering off." in r.output, r
    assert "panic" not in r.output, r


def test_boot_vexpress_a9():
    check_board("vexpress-a9")


def test_boot_vexpress_a15():
    check_board("vexpress-a15")


def test_boot_qemu_tc2():
    check_board("qemu-tc2")


def test_boot_entered_in_hyp_mode():
    """U-Boot's documented TC2 flow (bootz with ARMV7_NONSEC/VIRT) enters the kernel in HYP: QEMU virt with
    virtualization=on does the same. The boot CPU and every secondary leave HYP for SVC (boot/head.S
    leave_hyp: Hyp's own SPSR, CNTHCTL opened to PL1), one boot line says so, and timers work."""
    r = boot("qemu-tc2", run="cpus; sleep 20; uptime", machine_opts="virtualization=on")
    assert r.status == 0, "QEMU did not power off cleanly: %r" % r
    assert "boot: entered in HYP mode (non-secure): running in SVC" in r.output, r.output
    assert "5 of 5 CPUs online" in r.output, r.output
    assert re.search(r"up 0\.0[2-9]\d* s", r.output), r.output
    # Without virtualization=on: SVC entry, no such line.
    r = boot("qemu-tc2", run="uptime")
    assert r.status == 0 and "entered in HYP" not in r.output, r.output


def test_reboot_exits_qemu():
    # -no-reboot turns the reset into an exit; the board's reboot path ran.
    for board in ("vexpress-a9", "qemu-tc2"):
        r = boot(board, run="reboot")
        assert r.status == 0 and "Rebooting." in r.output, r


def test_missing_cpu_times_out_others_carry_on():
    # The DT lists 4 CPUs, QEMU models 3: cpu3 never arrives.
    r = boot("vexpress-a9", run="cpus", smp=3)
    assert r.status == 0, r
    assert "cpu3 offline: mpidr=0x3 did not arrive within 100 ms" in r.output, r
    for n in range(3):
        assert "cpu%d online mpidr=0x%x" % (n, n) in r.output, r
    assert "3 of 4 CPUs online" in r.output, r


def test_console_errors_and_garbage():
    typed = (b"frobnicate\r" + b"x" * 400 + b"\r" +
             bytes(range(0, 256)) + b"\x03\r" + b"\x1b[A\x1b[B\x1bOx" + b"\r" +
             b"uptime\r" + b"poweroff\r")
    r = boot("vexpress-a9", stdin_bytes=typed, timeout=90)
    assert r.status == 0, r
    assert "error: unknown command 'frobnicate' (try 'help')" in r.output, r
    assert "error: line too long" in r.output, r
    assert re.search(r"^up \d+\.\d{6} s", r.output, re.M), r


def corrupt_dtb(board, mutate):
    src = os.path.join(ROOT, "build", board, board + ".dtb")
    blob = bytearray(open(src, "rb").read())
    mutate(blob)
    fd, path = tempfile.mkstemp(suffix=".dtb")
    os.write(fd, bytes(blob))
    os.close(fd)
    return path


def test_corrupted_dtb_panics_with_reason():
    """Garbage after FDT_END inside the structure block. QEMU's libfdt stops
    at FDT_END and accepts the blob; our reader must name the problem."""
    def mutate(blob):
        off_struct, off_strings = struct.unpack_from(">II", blob, 8)
        size_strings, size_struct = struct.unpack_from(">II", blob, 32)
        assert off_strings == off_struct + size_struct, "strings must follow struct"
        junk = b"\xde\xad\xbe\xef" * 2
        blob[off_strings:off_strings] = junk
        struct.pack_into(">I", blob, 4, len(blob))              # totalsize
        struct.pack_into(">I", blob, 12, off_strings + len(junk))
        struct.pack_into(">I", blob, 36, size_struct + len(junk))
    path = corrupt_dtb("vexpress-a9", mutate)
    try:
        r = boot("vexpress-a9", dtb=path, until="halted", timeout=30)
    finally:
        os.unlink(path)
    assert re.search(r"^panic: cpu0: dtb: invalid device tree at 0x[0-9a-f]+: "
                     r"0x8 bytes after FDT_END in the struct block$", r.output, re.M), r


def test_atags_instead_of_dtb_panics():
    """Booted without a DTB, QEMU (like old boot loaders) passes ATAGs in r2."""
    r = boot("vexpress-a9", dtb="", timeout=30)
    assert re.search(r"^panic: cpu0: dtb: invalid device tree at 0x60000100: "
                     r"bad magic 0x[0-9a-f]{8} \(expected 0xd00dfeed\)$", r.output, re.M), r
    # The ATAGs' command line still carried panic=poweroff: QEMU ended.
    assert r.status == qemu_run.PANIC_EXIT, r
