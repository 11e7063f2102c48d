"""Real-board tooling (docs/hardware.md): tools/vemsd lays the kernel out on a
Versatile Express microSD, `make uimage` / `make debug` / `make load`, the
OpenOCD configs, and tools/powerrun driving a console over a pseudo-terminal
(a recorded session replayed by `tools/powerrun replay`, and QEMU's serial port
with -serial pty). Nothing here needs a board; what does is in docs/hardware.md."""
import csv
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import zlib

from qemulib import ROOT, qemu_run, skip

VEMSD = os.path.join(ROOT, "tools", "vemsd")
POWERRUN = os.path.join(ROOT, "tools", "powerrun")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
PY = "/usr/bin/python3"
ENV = dict(os.environ, QEMU_AUDIO_DRV="none")
_apt_lock = threading.Lock()


def run(cmd, timeout=60, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=ENV, **kw)


def need(command, package):
    """Returns when @command is there, installing @package (apt) if it is not;
    skips the test (a required tool: CI fails) when it cannot be installed."""
    if shutil.which(command):
        return True
    with _apt_lock:
        if shutil.which(command):
            return True
        if os.geteuid() == 0 and shutil.which("apt-get"):
            env = dict(ENV, DEBIAN_FRONTEND="noninteractive")
            for args in (["apt-get", "install", "-y", "-q", package],
                         ["sh", "-c", "apt-get update -q && apt-get install -y -q " + package]):
                try:
                    subprocess.run(args, capture_output=True, timeout=600, env=env)
                except (OSError, subprocess.TimeoutExpired):
                    pass
                if shutil.which(command):
                    return True
    skip("%s is not installed and could not be installed (apt-get install %s)" % (command, package))


def built(board):
    out = os.path.join(ROOT, "build", board)
    paths = [os.path.join(out, "kernel.bin"), os.path.join(out, "kernel.elf"), os.path.join(out, board + ".dtb")]
    for p in paths:
        assert os.path.isfile(p), "%s missing: run make boards first" % p
    return paths


def make_no_rebuild(board, *args, timeout=120):
    """`make BOARD=board args` using the kernels already built (-o: never rebuilt
    here, whatever else is being edited)."""
    kbin, kelf, dtb = built(board)
    olds = []
    for p in (kbin, kelf, dtb):
        olds += ["-o", os.path.relpath(p, ROOT)]
    return run(["make", "--no-print-directory", "-s"] + olds + ["BOARD=" + board] + list(args), timeout=timeout)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ------------------------------------------------------------------ mock VEMSD
A9_IMAGES = ("TITLE: Versatile Express Images Configuration File\r\n\r\n[IMAGES]\r\n"
             "TOTALIMAGES: 2                   ;Number of Images (Max : 32)\r\n"
             "NOR0UPDATE: AUTO                 ;Image Update:NONE/AUTO/FORCE\r\n"
             "NOR0ADDRESS: BOOT                ;Image Flash Address\r\n"
             "NOR0FILE: \\SOFTWARE\\bm_v521l.axf ;Image File Name\r\n\r\n"
             "NOR1UPDATE: AUTO                 ;IMAGE UPDATE:NONE/AUTO/FORCE\r\n"
             "NOR1ADDRESS: 41000000            ;Image Flash Address\r\n"
             "NOR1FILE: \\SOFTWARE\\kernel.bin   ;Image File Name\r\n"
             "NOR1LOAD: 60008000               ;Image Load Address\r\n"
             "NOR1ENTRY: 60008000              ;Image Entry Point\r\n")
TC2_BOARD = ("TITLE: Daughterboard configuration file\r\n\r\n[SCC REGISTERS]\r\n"
             "TOTALSCCS: 2                     ;Total Number of SCC registers\r\n"
             "SCC: 0x004 0x0FFFFFFF            ;CFGRW1\r\n"
             "SCC: 0x700 0x1032F003            ;CFGRW48 - Boot cluster and CPU (CA7[0])\r\n")


def mock_card(root, site="HBI0191B", images=A9_IMAGES, board_txt=None, config=True, mb=True, user_kernel=3 << 20):
    if config:
        with open(os.path.join(root, "config.txt"), "w", newline="") as f:
            f.write("TITLE: V2M-P1 Configuration File\r\n\r\n[CONFIGURATION]\r\nAUTORUN: FALSE\r\n")
    if mb:
        os.makedirs(os.path.join(root, "MB", "HBI0190D"))
    d = os.path.join(root, "SITE1", site)
    os.makedirs(d)
    if images is not None:
        with open(os.path.join(d, "images.txt"), "w", newline="") as f:
            f.write(images)
    if board_txt is not None:
        with open(os.path.join(d, "board.txt"), "w", newline="") as f:
            f.write(board_txt)
    os.makedirs(os.path.join(root, "SOFTWARE"))
    with open(os.path.join(root, "SOFTWARE", "bm_v521l.axf"), "wb") as f:
        f.write(b"\0" * 100000)
    with open(os.path.join(root, "SOFTWARE", "kernel.bin"), "wb") as f:
        f.write(b"\0" * user_kernel)
    return d


def read(path, mode="r"):
    with open(path, mode, **({"newline": ""} if mode == "r" else {})) as f:
        return f.read()


def entries(text):
    out = {}
    for m in re.finditer(r"^NOR(\d+)([A-Z]+):\s*(\S+)", text, re.M):
        out.setdefault(int(m.group(1)), {})[m.group(2)] = m.group(3)
    return out


def test_vemsd_lays_out_media():
    kbin, _, dtb = built("vexpress-a9")
    with tempfile.TemporaryDirectory() as card:
        site = mock_card(card)
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card])
        assert r.returncode == 0, r.stdout + r.stderr
        img = read(os.path.join(site, "images.txt"))
        # The user's lines are all still there, in order; CRLF kept; backup made.
        old_lines = A9_IMAGES.split("\r\n")
        new_lines = img.split("\r\n")
        it = iter(new_lines)
        for ln in old_lines:
            if ln.startswith("TOTALIMAGES"):
                continue
            assert any(ln == x for x in it), "user line %r lost:\n%s" % (ln, img)
        assert "\n" not in img.replace("\r\n", ""), "line endings changed"
        assert read(os.path.join(site, "images.txt.bak")) == A9_IMAGES
        assert re.search(r"^TOTALIMAGES: 4 ", img, re.M), img
        e = entries(img)
        assert e[0]["ADDRESS"] == "BOOT" and e[1]["FILE"] == "\\SOFTWARE\\kernel.bin", e
        assert e[2] == {"UPDATE": "AUTO", "ADDRESS": "42000000", "NAME": "spk_a9", "FILE": "\\SOFTWARE\\spk_a9.bin",
                        "LOAD": "60000000", "ENTRY": "60000000"}, e[2]
        assert e[3]["FILE"] == "\\SOFTWARE\\spk_a9.dtb" and e[3]["LOAD"] == "68000000" and \
            e[3]["ADDRESS"] == "42800000" and e[3]["UPDATE"] == "AUTO", e[3]
        # The flash-run image: shim (r0=0, r1=0x8e0, r2=DTB, jump to the kernel), DTB, kernel.
        blob = read(os.path.join(card, "SOFTWARE", "spk_a9.bin"), "rb")
        words = struct.unpack_from("<7I", blob, 0)
        assert words == (0xe3a00000, 0xe59f1004, 0xe59f2004, 0xe59ff004, 0x8e0, 0x60000100, 0x60010000), words
        kernel, dt = read(kbin, "rb"), read(dtb, "rb")
        assert blob[0x100:0x100 + len(dt)] == dt and blob[0x10000:] == kernel
        assert read(os.path.join(card, "SOFTWARE", "spk_a9.dtb"), "rb") == dt
        # Again: nothing to add, nothing changed.
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card])
        assert r.returncode == 0 and "already up to date" in r.stdout, r.stdout + r.stderr
        assert read(os.path.join(site, "images.txt")) == img
        # A stale entry of ours is updated in place, TOTALIMAGES unchanged.
        with open(os.path.join(site, "images.txt"), "w", newline="") as f:
            f.write(img.replace("NOR2ADDRESS: 42000000", "NOR2ADDRESS: 43000000").replace(
                "NOR3UPDATE: AUTO", "NOR3UPDATE: NONE"))
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card])
        assert r.returncode == 0 and "updated ADDRESS" in r.stdout and "updated UPDATE" in r.stdout, r.stdout
        assert read(os.path.join(site, "images.txt")) == img


def test_vemsd_refuses_what_is_not_a_vemsd():
    built("vexpress-a9")
    cases = [
        (dict(config=False), "no config.txt"),
        (dict(mb=False), "no MB folder"),
        (dict(site="HBI0249A"), "wrong site folder"),
    ]
    for kw, why in cases:
        with tempfile.TemporaryDirectory() as card:
            mock_card(card, **kw)
            before = sorted(os.walk(card))
            r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card])
            assert r.returncode == 1 and why in r.stderr, (kw, r.stdout, r.stderr)
            assert sorted(os.walk(card)) == before, "refused but changed the card (%s)" % why
    r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", "/nonexistent/VEMSD"])
    assert r.returncode == 1 and "not a folder" in r.stderr, r.stderr
    # A user image already in the chosen flash range: refused, card untouched.
    with tempfile.TemporaryDirectory() as card:
        site = mock_card(card, user_kernel=20 << 20)   # 0x41000000 + 20 MiB reaches 0x42000000
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card])
        assert r.returncode == 1 and "overlaps NOR1 \\SOFTWARE\\kernel.bin" in r.stderr, r.stderr
        assert read(os.path.join(site, "images.txt")) == A9_IMAGES
        assert not os.path.exists(os.path.join(card, "SOFTWARE", "spk_a9.bin"))
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card, "--nor-image", "0x44000000",
                 "--nor-dtb", "0x44800000"])
        assert r.returncode == 0, r.stderr
        assert entries(read(os.path.join(site, "images.txt")))[2]["ADDRESS"] == "44000000"
    # Bad arguments: exit status 2.
    for args in (["flash", "--board", "qemu-tc2", "--media", "/tmp"],
                 ["flash", "--board", "tc2", "--media", "/tmp", "--nor-image", "0x0E000123"],
                 ["flash", "--board", "tc2"], ["bogus"], []):
        r = run([PY, VEMSD] + args)
        assert r.returncode == 2, (args, r.returncode, r.stderr)


def test_vemsd_tc2_boot_cluster_and_new_images_file():
    built("tc2")
    with tempfile.TemporaryDirectory() as card:
        site = mock_card(card, site="HBI0249A", images=None, board_txt=TC2_BOARD)
        # board.txt boots the A7 (as EDK2's UEFI needs): a warning, the file untouched.
        r = run([PY, VEMSD, "flash", "--board", "tc2", "--media", card])
        assert r.returncode == 0, r.stdout + r.stderr
        assert "warning: board.txt SCC 0x700 = 0x1032F003 boots the A7 cluster" in r.stdout, r.stdout
        assert "--boot-a15" in r.stdout and "0x0032F003" in r.stdout, r.stdout
        assert read(os.path.join(site, "board.txt")) == TC2_BOARD
        assert not os.path.exists(os.path.join(site, "board.txt.bak"))
        # Asked for: bit 28 cleared, backup kept.
        r = run([PY, VEMSD, "flash", "--board", "tc2", "--media", card, "--boot-a15"])
        assert r.returncode == 0, r.stderr
        bt = read(os.path.join(site, "board.txt"))
        assert "SCC: 0x700 0x0032F003" in bt and "SCC: 0x004 0x0FFFFFFF" in bt, bt
        assert read(os.path.join(site, "board.txt.bak")) == TC2_BOARD
        img = read(os.path.join(site, "images.txt"))
        e = entries(img)
        assert re.search(r"^TOTALIMAGES: 2 ", img, re.M), img
        assert e[0]["ADDRESS"] == "0x0E000000" and e[0]["LOAD"] == "0x80000000" and e[0]["NAME"] == "spk_tc2", e
        assert e[1]["ADDRESS"] == "0x0E800000" and e[1]["LOAD"] == "0x88000000", e
        blob = read(os.path.join(card, "SOFTWARE", "spk_tc2.bin"), "rb")
        assert struct.unpack_from("<3I", blob, 16) == (0x8e0, 0x80000100, 0x80010000)


def test_vemsd_uefi_board_txt_left_alone():
    """A TC2 card set up for UEFI on the A7 (EDK2's board.txt, SCC 0x700 = 0x1032F003): make flash warns and
    changes nothing there; with BOOT_A15=1 it clears the bit."""
    built("tc2")
    uefi = TC2_BOARD.replace("TOTALSCCS: 2", "TOTALSCCS: 3") + "SCC: 0x400 0x33330C80            ;CFGREG0\r\n"
    with tempfile.TemporaryDirectory() as card:
        site = mock_card(card, site="HBI0249A", images=A9_IMAGES.replace("41000000", "0x0C000000"), board_txt=uefi)
        r = make_no_rebuild("tc2", "flash", "MEDIA=" + card)
        assert r.returncode == 0 and "boots the A7 cluster" in r.stdout, r.stdout + r.stderr
        assert read(os.path.join(site, "board.txt")) == uefi
        r = make_no_rebuild("tc2", "flash", "MEDIA=" + card, "BOOT_A15=1")
        assert r.returncode == 0, r.stdout + r.stderr
        assert read(os.path.join(site, "board.txt")) == uefi.replace("0x1032F003", "0x0032F003")


def test_vemsd_refuses_first_bank_small_block_area():
    """The last 256 KiB of EACH 64 MiB NOR bank is small-block storage, the first bank's too
    (TC2 0x0BFC0000, A9x4 0x43FC0000), not only the end of NOR."""
    built("tc2")
    built("vexpress-a9")
    for board, site, addr, area in (("tc2", "HBI0249A", "0x0BF80000", "0x0bfc0000"),
                                    ("tc2", "HBI0249A", "0x0FF80000", "0x0ffc0000"),
                                    ("vexpress-a9", "HBI0191B", "0x43FC0000", "0x43fc0000")):
        with tempfile.TemporaryDirectory() as card:
            images = A9_IMAGES if board == "vexpress-a9" else A9_IMAGES.replace("41000000", "0x0C000000")
            s = mock_card(card, site=site, images=images)
            r = run([PY, VEMSD, "flash", "--board", board, "--media", card, "--nor-image", addr])
            assert r.returncode == 1 and "small-block storage at %s" % area in r.stderr, (board, addr, r.stderr)
            assert read(os.path.join(s, "images.txt")) == images
            assert not os.path.exists(os.path.join(card, "SOFTWARE", "spk_tc2.bin" if board == "tc2" else "spk_a9.bin"))
    # Just below the first bank's area: accepted.
    with tempfile.TemporaryDirectory() as card:
        mock_card(card, site="HBI0249A", images=A9_IMAGES.replace("41000000", "0x0C000000"))
        r = run([PY, VEMSD, "flash", "--board", "tc2", "--media", card, "--nor-image", "0x0B000000",
                 "--nor-dtb", "0x0BF80000"])
        assert r.returncode == 0, r.stderr


# ARM's example images.txt for the CoreTile A9x4 (its shape: a boot script and the DTB both at the NOR
# base, which the motherboard controller takes as "place it yourself"; a kernel and UEFI at fixed addresses).
ARM_A9_IMAGES = ("TITLE: Versatile Express Images Configuration File\r\n\r\n[IMAGES]\r\n"
                 "TOTALIMAGES: 5                   ;Number of Images (Max : 32)\r\n"
                 "NOR0UPDATE: AUTO                 ;Image Update:NONE/AUTO/FORCE\r\n"
                 "NOR0ADDRESS: BOOT                ;Image Flash Address\r\n"
                 "NOR0FILE: \\SOFTWARE\\bm_v521l.axf ;Image File Name\r\n\r\n"
                 "NOR1UPDATE: AUTO                 ;IMAGE UPDATE:NONE/AUTO/FORCE\r\n"
                 "NOR1ADDRESS: 40000000            ;Image Flash Address\r\n"
                 "NOR1NAME: BOOTSCRIPT             ;Image Name\r\n"
                 "NOR1FILE: \\SOFTWARE\\booscr9.txt  ;Image File Name\r\n\r\n"
                 "NOR2UPDATE: AUTO                 ;IMAGE UPDATE:NONE/AUTO/FORCE\r\n"
                 "NOR2ADDRESS: 40000000            ;Image Flash Address\r\n"
                 "NOR2FILE: \\SOFTWARE\\ramdisk.img  ;Image File Name\r\n"
                 "NOR2LOAD: 68000000               ;Image Load Address\r\n"
                 "NOR2ENTRY: 00000000              ;Image Entry Point\r\n\r\n"
                 "NOR3UPDATE: AUTO                 ;IMAGE UPDATE:NONE/AUTO/FORCE\r\n"
                 "NOR3ADDRESS: 41000000            ;Image Flash Address\r\n"
                 "NOR3FILE: \\SOFTWARE\\kernel.bin   ;Image File Name\r\n"
                 "NOR3LOAD: 60008000               ;Image Load Address\r\n"
                 "NOR3ENTRY: 60008000              ;Image Entry Point\r\n\r\n"
                 "NOR4UPDATE: AUTO                 ;IMAGE UPDATE:NONE/AUTO/FORCE\r\n"
                 "NOR4ADDRESS: 44000000            ;Image Flash Address\r\n"
                 "NOR4FILE: \\SOFTWARE\\uefi.bin     ;Image File Name\r\n"
                 "NOR4LOAD: 44000000               ;Image Load Address\r\n"
                 "NOR4ENTRY: 44000000              ;Image Entry Point\r\n")


def test_vemsd_arm_example_images_auto_placement():
    """Entries at the NOR base are placed by the MCC, not images at 0x40000000: a large one there (a 40 MiB
    ramdisk) must not be read as covering 0x40000000..0x42800000; the fixed ones are still checked."""
    built("vexpress-a9")
    with tempfile.TemporaryDirectory() as card:
        site = mock_card(card, images=ARM_A9_IMAGES)
        for name, size in (("booscr9.txt", 64), ("ramdisk.img", 40 << 20), ("uefi.bin", 2 << 20)):
            with open(os.path.join(card, "SOFTWARE", name), "wb") as f:
                f.write(b"\0" * size)
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card])
        assert r.returncode == 0, r.stdout + r.stderr
        assert "NOR1, NOR2 placed by the motherboard controller" in r.stdout, r.stdout
        e = entries(read(os.path.join(site, "images.txt")))
        assert e[5]["ADDRESS"] == "42000000" and e[6]["ADDRESS"] == "42800000", e
        # A fixed entry is still an overlap: UEFI at 0x44000000.
        r = run([PY, VEMSD, "flash", "--board", "vexpress-a9", "--media", card, "--nor-image", "0x44000000",
                 "--nor-dtb", "0x44800000"])
        assert r.returncode == 1 and "overlaps NOR4 \\SOFTWARE\\uefi.bin" in r.stderr, r.stderr


def test_make_flash_staging_media_and_wrong_board():
    built("tc2")
    r = make_no_rebuild("tc2", "flash")
    assert r.returncode == 0 and "staged tc2" in r.stdout, r.stdout + r.stderr
    stage = os.path.join(ROOT, "build", "tc2", "vemsd")
    for p in ("SOFTWARE/spk_tc2.bin", "SOFTWARE/spk_tc2.dtb", "SITE1/HBI0249A/images.txt"):
        assert os.path.isfile(os.path.join(stage, p)), p
    with tempfile.TemporaryDirectory() as card:
        site = mock_card(card, site="HBI0249A", images=A9_IMAGES.replace("41000000", "0x0C000000"))
        r = make_no_rebuild("tc2", "flash", "MEDIA=" + card)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "spk_tc2.bin" in read(os.path.join(site, "images.txt"))
        assert os.path.isfile(os.path.join(site, "images.txt.bak"))
    r = run(["make", "--no-print-directory", "-s", "BOARD=vexpress-a15", "flash"])
    assert r.returncode != 0 and "not a Versatile Express board" in r.stderr, r.stderr


# ------------------------------------------------------------------ images that boot
def test_flash_run_image_boots_in_qemu():
    """The image `flash run` starts: loaded at RAM base, entered at RAM base, it
    must hand the kernel its DTB (bootargs patched by --bootargs)."""
    built("vexpress-a9")
    with tempfile.TemporaryDirectory() as d:
        img = os.path.join(d, "run.bin")
        r = run([PY, VEMSD, "runner", "--board", "vexpress-a9", "--out", img,
                 "--bootargs", 'console=ttyAMA0 autorun="cpus; poweroff"'])
        assert r.returncode == 0, r.stderr
        cmd = ["qemu-system-arm", "-M", "vexpress-a9", "-smp", "1", "-m", "256M", "-display", "none",
               "-monitor", "none", "-serial", "stdio", "-no-reboot", "-icount", "shift=0,sleep=off",
               "-device", "loader,file=%s,addr=0x60000000,force-raw=on" % img,
               "-device", "loader,addr=0x60000000,cpu-num=0"]
        r = run(cmd, timeout=60, stdin=subprocess.DEVNULL)
        out = r.stdout.replace("\r\n", "\n")
        assert r.returncode == 0, out + r.stderr
        assert "cpu0 online mpidr=0x0 cluster=0 arm,cortex-a9" in out, out
        assert "sched> cpus" in out and "Powering off." in out, out


def test_tc2_kernel_on_qemu_vexpress_a15_falls_back():
    """The real TC2's kernel and DT on QEMU's vexpress-a15 (same RS1 map, no SCC, no CCI, no meters):
    the SYS_CFG stack answers function 13 with the error bit (site 0xf resolved through SYS_MISC), so
    the meters are "not available"; the SCC reads 0 for both clusters, so the SPC path says why it
    stays WFI-only; and the kernel runs on."""
    kbin, _, dtb = built("tc2")
    cmd = ["qemu-system-arm", "-M", "vexpress-a15", "-smp", "1", "-m", "256M", "-display", "none",
           "-monitor", "none", "-serial", "stdio", "-no-reboot", "-nic", "none", "-icount", "shift=0,sleep=off",
           "-kernel", kbin, "-dtb", dtb, "-append", 'console=ttyAMA0 panic=poweroff autorun="energy; poweroff"']
    r = run(cmd, timeout=60, stdin=subprocess.DEVNULL)
    out = r.stdout.replace("\r\n", "\n")
    assert r.returncode == 0, out + r.stderr
    assert "energy: meters not available (SYS_CFG function 13: SYS_CFG reported an error); using the energy model" \
        in out, out
    assert "power: tc2-spc: wfi-only: SCC reports A15 cluster 0, A7 cluster 0: not a TC2" in out, out
    assert "energy: src=model" in out and "Powering off." in out, out


def test_uimage_for_bootm():
    kbin, _, dtb = built("vexpress-a9")
    need("mkimage", "u-boot-tools")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "uImage")
        r = make_no_rebuild("vexpress-a9", "uimage", "HW_UIMAGE=" + out)
        assert r.returncode == 0 and os.path.isfile(out), r.stdout + r.stderr
        blob = read(out, "rb")
        kernel = read(kbin, "rb")
        magic, hcrc, _time, size, load, ep, dcrc, os_, arch, typ, comp = struct.unpack_from(">7I4B", blob, 0)
        assert magic == 0x27051956 and size == len(kernel) and blob[64:] == kernel
        assert load == ep == 0x60010000, (hex(load), hex(ep))
        assert (os_, arch, typ, comp) == (5, 2, 2, 0), (os_, arch, typ, comp)   # linux, arm, kernel, none
        assert dcrc == zlib.crc32(kernel) & 0xffffffff
        hdr = bytearray(blob[:64])
        hdr[4:8] = b"\0\0\0\0"
        assert hcrc == zlib.crc32(bytes(hdr)) & 0xffffffff
        # QEMU's loader takes a uImage the way U-Boot's bootm does: load address, entry, DTB in r2.
        cmd = qemu_run.qemu_command("vexpress-a9", qemu_run.autorun_arg("cpus; poweroff"), kernel=out)
        r = run(cmd, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 0 and "4 of 4 CPUs online" in r.stdout, r.stdout[-2000:] + r.stderr


# ------------------------------------------------------------------ OpenOCD and gdb
def test_openocd_configs_parse():
    need("openocd", "openocd")
    expect = {
        "vexpress-a9": [("ca9x4.cpu%d" % n, 0x80110000 + 0x2000 * n) for n in range(4)],
        "tc2": [("tc2.a15.0", 0x82010000), ("tc2.a15.1", 0x82012000), ("tc2.a7.0", 0x82030000),
                ("tc2.a7.1", 0x82032000), ("tc2.a7.2", 0x82034000)],
    }
    for board, targets in expect.items():
        cfg = os.path.join("boards", board, "openocd.cfg")
        r = run(["openocd", "-c", "adapter driver dummy", "-f", cfg, "-c", "shutdown"], timeout=30)
        assert r.returncode == 0, "%s does not parse:\n%s" % (cfg, r.stderr)
        r = run(["openocd", "-c", "adapter driver dummy", "-f", cfg, "-c",
                 'foreach t [target names] { echo "T $t [$t cget -type] [$t cget -dbgbase]" }',
                 "-c", "shutdown"], timeout=30)
        got = re.findall(r"^T (\S+) (\S+) (\d+)$", r.stdout + r.stderr, re.M)
        assert [(t, typ, int(b)) for t, typ, b in got] == [(t, "cortex_a", b) for t, b in targets], got
        r = run(["openocd", "-c", "adapter driver dummy", "-c", "set USE_ROM_TABLE 1", "-f", cfg,
                 "-c", "shutdown"], timeout=30)
        assert r.returncode == 0, r.stderr
        r = make_no_rebuild(board, "openocd-check")
        assert r.returncode == 0, r.stderr


def test_make_debug_qemu_gdb_reaches_boot_main():
    built("vexpress-a9")
    need("gdb-multiarch", "gdb-multiarch")
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "t.gdb")
        with open(script, "w") as f:
            f.write("break boot_main\ncontinue\nframe\ninfo symbol $pc\nprint/x $sp\nkill\nquit\n")
        port = free_port()
        r = make_no_rebuild("vexpress-a9", "debug", "GDB_PORT=%d" % port, "DEBUG_SERIAL=file:" +
                            os.path.join(d, "console.log"), "GDB_ARGS=-batch -x " + script, timeout=120)
        out = r.stdout + r.stderr
        assert r.returncode == 0, out
        assert "-gdb tcp:127.0.0.1:%d -S" % port in out, out
        assert re.search(r"Breakpoint 1, boot_main \(dtb=\d+\) at boot/boot\.c:\d+", out), out
        assert re.search(r"^#0\s+boot_main \(", out, re.M), out
        assert re.search(r"^boot_main(\s\+\s\d+)? in section \.text", out, re.M), out


def test_make_debug_and_load_need_jtag_on_hardware():
    r = run(["make", "--no-print-directory", "-s", "BOARD=tc2", "debug"])
    assert r.returncode != 0 and "give JTAG=" in r.stderr, r.stderr
    r = run(["make", "--no-print-directory", "-s", "BOARD=vexpress-a9", "load"])
    assert r.returncode != 0 and "JTAG=" in r.stderr and "make run" in r.stderr, r.stderr
    r = run(["make", "--no-print-directory", "-s", "BOARD=qemu-tc2", "load", "JTAG=interface/dummy.cfg"])
    assert r.returncode != 0 and "has no boards/qemu-tc2/openocd.cfg" in r.stderr, r.stderr
    # With JTAG: the commands (dry run, -n: nothing talks to an adapter).
    built("tc2")
    r = make_no_rebuild("tc2", "-n", "debug", "JTAG=interface/my-adapter.cfg")
    assert r.returncode == 0, r.stderr
    assert "openocd -l build/tc2/openocd.log -f 'interface/my-adapter.cfg' -f boards/tc2/openocd.cfg" in r.stdout
    assert "target extended-remote localhost:3333" in r.stdout and "build/tc2/kernel.elf" in r.stdout, r.stdout
    r = make_no_rebuild("tc2", "-n", "load", "JTAG=interface/my-adapter.cfg")
    assert r.returncode == 0, r.stderr
    assert "-c init -c 'spk_load build/tc2/kernel.elf build/tc2/tc2.dtb' -c shutdown" in r.stdout, r.stdout


# ------------------------------------------------------------------ powerrun
class Replay:
    """`tools/powerrun replay FIXTURE` on a pty, for the duration of a with-block."""

    def __init__(self, fixture, speed=2.0):
        self.p = subprocess.Popen([PY, POWERRUN, "replay", os.path.join(FIXTURES, fixture), "--speed", str(speed),
                                   "--linger", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        line = self.p.stdout.readline()
        m = re.search(r"on (/dev/pts/\d+)", line)
        assert m, "replay did not start: %r %s" % (line, self.p.stderr.read() if self.p.poll() is not None else "")
        self.dev = m.group(1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.status = self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.status = self.p.wait()
        self.stderr = self.p.stderr.read()
        self.p.stdout.close()
        self.p.stderr.close()


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


TC2_SCRIPT = ("sysbench --num-threads=5 --max-requests=20; cyclictest -t 2 -q -D 200ms &; "
              "cyclictest -t 3 -q -D 100ms &; wait")


def test_powerrun_replays_tc2_session_with_meters():
    with tempfile.TemporaryDirectory() as out, Replay("powerrun-tc2-meters.jsonl") as rp:
        r = run([PY, POWERRUN, "run", "--no-plots", "--board", "tc2", "--port", rp.dev, "--workload", "light",
                 "--script", TC2_SCRIPT, "--pack", "off,all", "--out", out, "--boot-timeout", "20"], timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "at 38400 baud" in r.stdout, r.stdout       # SERIAL_BAUD from boards/tc2/board.mk
        assert "MARK send" in r.stdout and "MARK line" in r.stdout
        assert "energy_src=meter" not in r.stderr and "meters were not read" not in r.stdout, r.stdout
        rows = csv_rows(os.path.join(out, "results.csv"))
        header = list(rows[0])
        assert header[:4] == ["board", "pack", "workload", "bench"] and header[-1] == "raw", header
        benches = [(x["pack"], x["workload"], x["bench"]) for x in rows]
        assert benches == [("off", "light", "light"), ("off", "light", "energy-window"),
                           ("all", "light", "light"), ("all", "light", "energy-window"),
                           ("off", "script", "sysbench"), ("off", "script", "cyclictest"),
                           ("off", "script", "cyclictest"), ("all", "script", "sysbench"),
                           ("all", "script", "cyclictest"), ("all", "script", "cyclictest")], benches
        for x in rows:
            if x["bench"] in ("sysbench", "cyclictest", "energy-window"):
                assert x["energy_src"] == "meter" and int(x["energy_c0"]) > 0, x
        # Background jobs: each RESULT is timed from its own command.
        mk = csv_rows(os.path.join(out, "markers.csv"))
        cyc = [m for m in mk if m["bench"] == "cyclictest"]
        assert [m["command"] for m in cyc][:2] == ["cyclictest -t 3 -q -D 100ms &", "cyclictest -t 2 -q -D 200ms &"]
        win = [m for m in mk if m["bench"] == "energy-window"]
        assert all(m["command"] == "energy mark" for m in win), win
        for m in mk:
            assert float(m["t_start_s"]) <= float(m["t_end_s"]), m
        md = read(os.path.join(out, "summary.md"))
        assert "Energy source: meter" in md and "### sysbench" in md and "### cyclictest" in md, md
        assert os.path.isfile(os.path.join(out, "logs", "console.log"))
    assert rp.status == 0, rp.stderr


def test_powerrun_replays_a9_session_with_external_meter():
    """An external meter logging 3 W (host epoch clock) over the whole session:
    every window's energy is 3 W x its length."""
    with tempfile.TemporaryDirectory() as out:
        meter = os.path.join(out, "meter.csv")
        t0 = time.time() - 5
        with open(meter, "w") as f:
            f.write("time_s,power_w\n")
            for i in range(0, 1200):
                f.write("%.3f,3.0\n" % (t0 + i * 0.05))
        with Replay("powerrun-vexpress-a9.jsonl") as rp:
            r = run([PY, POWERRUN, "run", "--no-plots", "--board", "vexpress-a9", "--port", rp.dev, "--workload", "light",
                     "--script", "sysbench --num-threads=4 --max-requests=20", "--pack", "off,all", "--out", out,
                     "--meter", meter, "--boot-timeout", "20"], timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr
        assert rp.status == 0, rp.stderr
        mk = csv_rows(os.path.join(out, "meter.csv"))
        # Per light run: light, energy-window, the whole run; per script run: sysbench, the whole run.
        assert [m["bench"] for m in mk] == ["light", "energy-window", "run"] * 2 + ["sysbench", "run"] * 2, mk
        for m in mk:
            length = float(m["t_end_s"]) - float(m["t_start_s"])
            assert float(m["meter_coverage"]) == 1.0, m
            assert abs(float(m["meter_energy_j"]) - 3.0 * length) < 1e-3, m
            assert abs(float(m["meter_avg_w"]) - 3.0) < 1e-6, m
        rows = csv_rows(os.path.join(out, "results.csv"))
        assert all(x["meter_energy_j"] for x in rows), rows
        md = read(os.path.join(out, "summary.md"))
        assert "## External power meter" in md and "epoch clock" in md, md


def test_powerrun_replay_mismatch_fails():
    with tempfile.TemporaryDirectory() as out, Replay("powerrun-vexpress-a9.jsonl", speed=0) as rp:
        r = run([PY, POWERRUN, "run", "--no-plots", "--board", "vexpress-a9", "--port", rp.dev, "--workload", "light",
                 "--pack", "rails", "--out", out, "--boot-timeout", "20", "--timeout", "5"], timeout=60)
        assert r.returncode == 1 and "FAILED" in r.stderr, r.stdout + r.stderr
        assert "replay: expected 'pack off', got 'pack rails'" in r.stderr, r.stderr
    assert rp.status == 1


def test_powerrun_align_integrates_meter_log():
    with tempfile.TemporaryDirectory() as out:
        with open(os.path.join(out, "markers.csv"), "w") as f:
            f.write("run,board,pack,workload,bench,row,t_start_s,t_end_s,epoch_start,epoch_end,command\n"
                    "1,tc2,off,light,run,,0,10,1000,1010,x\n"
                    "1,tc2,off,light,light,0,2.5,7.5,1002.5,1007.5,x\n"
                    "2,tc2,all,light,run,,9,12,1009,1012,x\n")
        meter = os.path.join(out, "m.csv")
        with open(meter, "w") as f:       # a ramp: p(t) = t W, t = 0..10 s (no header)
            f.writelines("%d,%d\n" % (t, t) for t in range(11))
        r = run([PY, POWERRUN, "align", "--out", out, "--meter", meter, "--meter-clock", "session"])
        assert r.returncode == 0, r.stderr
        mk = csv_rows(os.path.join(out, "meter.csv"))
        got = [(float(m["meter_energy_j"]), float(m["meter_coverage"])) for m in mk]
        assert got == [(50.0, 1.0), (25.0, 1.0), (9.5, 0.333)], got
        # The same log on the epoch clock, 1000 s behind: --meter-offset lines it up.
        r = run([PY, POWERRUN, "align", "--out", out, "--meter", meter, "--meter-clock", "epoch",
                 "--meter-offset", "1000"])
        assert r.returncode == 0, r.stderr
        assert [float(m["meter_energy_j"]) for m in csv_rows(os.path.join(out, "meter.csv"))] == [50.0, 25.0, 9.5]


def test_powerrun_bad_arguments():
    with tempfile.TemporaryDirectory() as d:
        bad_meter = os.path.join(d, "bad.csv")
        with open(bad_meter, "w") as f:
            f.write("when,watts\n1,2\n")
        cases = [
            [],
            ["run", "--board", "nope", "--port", "/dev/null", "--workload", "light"],
            ["run", "--board", "tc2", "--port", "/dev/null"],
            ["run", "--board", "tc2", "--port", "/dev/null", "--workload", "bogus"],
            ["run", "--board", "tc2", "--port", "/dev/null", "--workload", "cyclictest-seed-uniform"],
            ["run", "--board", "tc2", "--port", "/dev/null", "--workload", "light", "--pack", "sideways"],
            ["run", "--board", "tc2", "--port", "/dev/null", "--workload", "light", "--baud", "12345"],
            ["run", "--board", "tc2", "--port", "/dev/ttyNOSUCH", "--workload", "light"],
            ["run", "--board", "tc2", "--port", "/dev/null", "--script", " ; "],
            ["run", "--board", "tc2", "--port", "/dev/null", "--workload", "light", "--meter", bad_meter],
            ["align", "--out", d, "--meter", bad_meter],
            ["replay", os.path.join(d, "missing.jsonl")],
            ["frobnicate"],
        ]
        for args in cases:
            r = run([PY, POWERRUN] + args, timeout=20)
            assert r.returncode == 2, (args, r.returncode, r.stdout, r.stderr)
            assert r.stderr.strip(), args


def test_powerrun_drives_qemu_serial_pty():
    """QEMU's serial port on a pty, as a USB serial adapter would be: the boot
    log is gone by the time the tool opens it, so it must wake the prompt."""
    built("qemu-tc2")
    with tempfile.TemporaryDirectory() as out:
        qlog = os.path.join(out, "qemu.log")
        cmd = qemu_run.qemu_command("qemu-tc2", "", icount=True)
        cmd[cmd.index("-serial") + 1] = "pty"
        with open(qlog, "w") as lf:
            q = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT, env=ENV)
        try:
            dev = None
            deadline = time.monotonic() + 20
            while dev is None and time.monotonic() < deadline and q.poll() is None:
                m = re.search(r"char device redirected to (/dev/pts/\d+)", read(qlog))
                dev = m.group(1) if m else None
                time.sleep(0.05)
            assert dev, "no pty from QEMU: %s" % read(qlog)
            r = run([PY, POWERRUN, "run", "--no-plots", "--board", "qemu-tc2", "--port", dev, "--workload", "light",
                     "--script", "sysbench --num-threads=5 --max-requests=20", "--pack", "off,rails",
                     "--out", out, "--poweroff", "--boot-timeout", "30", "--timeout", "60"], timeout=120)
            assert r.returncode == 0, r.stdout + r.stderr
            assert "at 115200 baud" in r.stdout, r.stdout
            assert q.wait(timeout=20) == 0, "QEMU did not power off cleanly"
        finally:
            if q.poll() is None:
                q.kill()
                q.wait()
        rows = csv_rows(os.path.join(out, "results.csv"))
        assert [(x["pack"], x["bench"]) for x in rows] == [
            ("off", "light"), ("off", "energy-window"), ("rails", "light"), ("rails", "energy-window"),
            ("off", "sysbench"), ("rails", "sysbench")], rows
        sysb = [x for x in rows if x["bench"] == "sysbench"]
        assert [x["raw"].split()[3] for x in sysb] == ["pack=off", "pack=rails"], sysb   # switched at run time
        console = read(os.path.join(out, "logs", "console.log"))
        assert "pack: mode rails" in console and "5 of 5 CPUs online" in console, console[-2000:]
