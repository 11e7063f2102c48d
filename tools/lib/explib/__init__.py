"""tools/experiment's pieces: workloads, cells (one run, one result file), parse, stats,
report (tables, verdicts), seeds (seeds.md), plots, html (index.html)."""
