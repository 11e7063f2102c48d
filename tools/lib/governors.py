"""The kernel's cpufreq governors (spec: "Frequency (DVFS)"), as the tools
take them: the one place that lists them.

    import governors
    governors.DEFAULT               -> "performance" (the kernel's default: no bootarg, no --governor)
    governors.names()               -> ("performance", "powersave", "userspace", "schedutil")
    governors.check(name)           -> None, or the error text naming the valid ones
    governors.order(names)          -> @names in the table's order (unknown ones last, sorted)
    governors.of(cell)              -> a result file's cell's governor (files made before the axis: DEFAULT)

The engines take a governor as `build/host/schedsim --governor=<name>` and
as the kernel's boot argument `cpufreq=<name>`.
"""

DEFAULT = "performance"

# A fixed list until the kernel lists its governors itself (as `schedtopo
# --list-modes` does for the pack modes, packmodes.py): the kernel's
# governor table will replace it, read here and nowhere else.
_NAMES = ("performance", "powersave", "userspace", "schedutil")


def names():
    return _NAMES


def check(name):
    """None if @name is a governor, else "unknown governor 'x' (performance, ...)"."""
    if name in names():
        return None
    return "unknown governor '%s' (%s)" % (name, ", ".join(names()))


def order(govs):
    table = names()
    return [g for g in table if g in govs] + sorted(g for g in govs if g not in table)


def of(cell):
    return cell.get("governor") or DEFAULT
