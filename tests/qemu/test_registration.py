"""Things register themselves (include/kernel/pack/pack.h's PACK_POLICY): a
placement policy that exists only in a test file, dropped as it is into a
copy of the tree's kernel/pack/, with no other edit, is a mode everywhere a
mode is taken: schedtopo --list-modes, the kernel's `pack list` and `pack`,
schedsim --pack and tools/experiment's default list of modes."""
import os
import re
import shutil
import subprocess

from qemulib import ROOT

POLICY = os.path.join(ROOT, "tests", "host", "policy_lowest_idle.c")


def copy_tree(dst):
    """The working tree's files (tracked and new, not ignored), without build/."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for f in files:
        if not f or f.startswith("build/") or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dst, f))


def test_a_policy_in_one_new_file_is_a_mode_everywhere():
    tree = os.path.join(ROOT, "build", "registration-tree")
    shutil.rmtree(tree, ignore_errors=True)
    copy_tree(tree)
    shutil.copy(POLICY, os.path.join(tree, "kernel", "pack", "lowest_idle.c"))
    b = subprocess.run(["make", "--no-print-directory", "-j2", "build/host/schedtopo", "build/host/schedsim",
                        "kernel-qemu-tc2"], cwd=tree, capture_output=True, text=True, timeout=900)
    assert b.returncode == 0, (b.stdout + b.stderr)[-3000:]
    # schedtopo: the table, the new mode last (after the shipped four).
    p = subprocess.run([os.path.join(tree, "build", "host", "schedtopo"), "--list-modes"], capture_output=True,
                       text=True)
    names = [line.split()[0] for line in p.stdout.splitlines()]
    assert p.returncode == 0 and names == ["off", "rails", "all", "energy", "lowest_idle"], p.stdout
    # schedsim: takes it, and its RESULT lines say so.
    dtb = os.path.join(tree, "build", "qemu-tc2", "qemu-tc2.dtb")
    p = subprocess.run([os.path.join(tree, "build", "host", "schedsim"), "--pack=lowest_idle", dtb,
                        "cyclictest -t 2 -q -D 200ms; pack"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and re.search(r"^RESULT bench=cyclictest .* pack=lowest_idle ", p.stdout, re.M), p
    assert re.search(r"^pack: cpu\d buddy=-1 lowest_idle=[1-9]\d* none_idle=\d+$", p.stdout, re.M), p.stdout
    # The kernel in QEMU: pack list and a switch to it.
    q = subprocess.run(["python3", os.path.join(tree, "tools", "qemu-run"), "--board", "qemu-tc2", "--run",
                        "pack list; pack lowest_idle; pack"], capture_output=True, text=True, timeout=120)
    assert q.returncode == 0, q
    assert re.search(r"^pack: lowest_idle every wake-up on the lowest-numbered idle CPU", q.stdout, re.M), q.stdout
    assert re.search(r"^pack: mode lowest_idle$", q.stdout, re.M), q.stdout
    # tools/experiment: its default modes are the table's.
    e = subprocess.run([os.path.join(tree, "tools", "experiment"), "plan", "--boards", "qemu-tc2", "--workload",
                        "light", "--out", os.path.join(tree, "build", "plan")], capture_output=True, text=True,
                       timeout=60)
    assert e.returncode == 0 and len(e.stdout.splitlines()) == 5 and "--pack lowest_idle " in e.stdout, e
    shutil.rmtree(tree, ignore_errors=True)
