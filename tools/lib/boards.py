"""The boards' settings (boards/<board>/board.mk), for the Python tools:
qemu-run, powerrun, bench-guard.

    boards.config(root, board) -> {"QEMU_MACHINE": ..., ...}, or None for no such board
    boards.names(root)         -> every board with a board.mk, sorted
    boards.qemu_names(root)    -> those QEMU can boot (a QEMU_MACHINE set)
"""
import os
import re


def config(root, board):
    path = os.path.join(root, "boards", board, "board.mk")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", board) or not os.path.isfile(path):
        return None
    cfg = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^\s*([A-Z0-9_]+)\s*:?=\s*(.*?)\s*$", line)
            if m:
                cfg[m.group(1)] = m.group(2)
    return cfg


def names(root):
    d = os.path.join(root, "boards")
    return sorted(b for b in os.listdir(d) if os.path.isfile(os.path.join(d, b, "board.mk")))


def qemu_names(root):
    return [b for b in names(root) if config(root, b).get("QEMU_MACHINE")]
