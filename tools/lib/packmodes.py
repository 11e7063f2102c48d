"""The kernel's placement policies (pack modes), as the tools must take them:
from the policy table itself, through `build/host/schedtopo --list-modes`
(docs/interfaces.md), never from a list of their own.

    import packmodes
    packmodes.names(root)          -> ("off", "rails", "all", "energy", ...)
    packmodes.check(root, name)    -> None, or the error text naming the valid ones
"""
import os
import subprocess

_cache = {}


class PackModesError(RuntimeError):
    pass


def table(root):
    """[(name, description)] in table order; builds nothing: `make host` first."""
    if root in _cache:
        return _cache[root]
    tool = os.path.join(root, "build", "host", "schedtopo")
    if not os.access(tool, os.X_OK):
        raise PackModesError("%s is missing: run `make host` first (the pack modes come from it)" % tool)
    p = subprocess.run([tool, "--list-modes"], capture_output=True, text=True)
    rows = []
    for line in p.stdout.splitlines():
        name, _, desc = line.partition(" ")
        if name:
            rows.append((name, desc))
    if p.returncode != 0 or not rows:
        raise PackModesError("%s --list-modes failed: %s" % (tool, (p.stderr or p.stdout).strip()))
    _cache[root] = rows
    return rows


def names(root):
    return tuple(n for n, _ in table(root))


def check(root, name):
    """None if @name is a mode of the table, else 'unknown mode 'x' (off, rails, ...)'."""
    valid = names(root)
    if name in valid:
        return None
    return "unknown mode '%s' (%s)" % (name, ", ".join(valid))
