"""Means with 95% confidence intervals over repeats (Student's t).

    mean_ci([x1, x2, ...]) -> (mean, half-width or None, n)
    fmt_ci(values, digits)  -> "12.3 +- 0.4" (n > 1), "12.3" (n == 1), "-" (none)
"""
import math

# Two-sided 95% quantiles of Student's t, t_{0.975, df}, df = 1..30 (standard tables).
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
# Beyond 30: the value at the largest tabled df not above it (df 40, 60, 120), a
# little wider than exact: the interval errs on the safe side.
T975_MORE = ((120, 1.980), (60, 2.000), (40, 2.021))


def t975(df):
    if df < 1:
        raise ValueError("df must be >= 1")
    if df <= len(T975):
        return T975[df - 1]
    for limit, t in T975_MORE:
        if df >= limit:
            return t
    return T975[-1]


def mean_ci(values):
    """(mean, 95% CI half-width, n); the half-width is None for n < 2."""
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    if n == 0:
        return None, None, 0
    m = sum(xs) / n
    if n < 2:
        return m, None, n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t975(n - 1) * sd / math.sqrt(n), n


def fmt_num(x, digits=1):
    if x is None:
        return "-"
    if isinstance(x, int) or (isinstance(x, float) and digits == 0):
        return "%d" % round(x)
    return "%.*f" % (digits, x)


def fmt_ci(values, digits=1, scale=1.0):
    """Mean of @values (times @scale), with +- the 95% half-width when n > 1."""
    m, h, n = mean_ci(values)
    if m is None:
        return "-"
    if h is None:
        return fmt_num(m * scale, digits)
    return "%s ± %s" % (fmt_num(m * scale, digits), fmt_num(h * scale, digits))
