"""index.html: the markdown tables (seeds.md, summary.md) as HTML and the
plots beside them, in one file with relative links (readable from disk, no
server, no script).

    write_index(outdir, sections, plots)
        sections: [(title, markdown text)]; plots: [(kind, file, caption)]
"""
import html
import os
import re

KIND_TITLES = (("energy", "Energy per cluster"), ("oracle", "Energy against the oracle bound"),
               ("timeline", "Per-CPU residency timelines"), ("latency", "Wake-up latency CDFs"),
               ("sysbench", "sysbench against off"), ("cyclictest", "cyclictest latency"))

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0;font-size:13px}th,td{border:1px solid #bbb;padding:2px 6px;
text-align:right}th{background:#eee}td:first-child,th:first-child{text-align:left}
figure{display:inline-block;margin:.5em;vertical-align:top}figcaption{font-size:12px;max-width:600px}
img{max-width:600px;border:1px solid #ddd}code{background:#f4f4f4}nav a{margin-right:1em}"""


def inline(text):
    t = html.escape(text, quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
    return t


def md_to_html(md):
    """The markdown tools/experiment writes: headings, tables, lists, paragraphs."""
    out, para, lst, table = [], [], [], []

    def flush():
        if para:
            out.append("<p>%s</p>" % inline(" ".join(para)))
            para.clear()
        if lst:
            out.append("<ul>%s</ul>" % "".join("<li>%s</li>" % inline(x) for x in lst))
            lst.clear()
        if table:
            rows = [r for r in table if not re.fullmatch(r"\|(\s*-+\s*\|)+", r.replace(" ", ""))]
            cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
            head = "".join("<th>%s</th>" % inline(c) for c in cells[0])
            body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % inline(c) for c in r) for r in cells[1:])
            out.append("<table><tr>%s</tr>%s</table>" % (head, body))
            table.clear()

    for line in md.splitlines():
        m = re.match(r"(#{1,4}) (.*)", line)
        if m:
            flush()
            level = min(len(m.group(1)) + 1, 5)
            out.append("<h%d>%s</h%d>" % (level, inline(m.group(2)), level))
        elif line.startswith("|"):
            if para or lst:
                flush()
            table.append(line)
        elif line.startswith("- "):
            if para or table:
                flush()
            lst.append(line[2:])
        elif not line.strip():
            flush()
        else:
            if table:
                flush()
            para.append(line.strip())
    flush()
    return "\n".join(out)


def write_index(outdir, sections, plots, title="sched-pack experiment"):
    parts = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style></head><body>"
             % (html.escape(title), STYLE), "<h1>%s</h1>" % html.escape(title)]
    files = [f for f in ("seeds.md", "summary.md", "results.csv") if os.path.isfile(os.path.join(outdir, f))]
    parts.append("<nav>%s</nav>" % " ".join('<a href="%s">%s</a>' % (f, f) for f in files))
    kinds = [(k, t) for k, t in KIND_TITLES if any(p[0] == k for p in plots)]
    if kinds:
        parts.append("<nav>Plots: %s</nav>" % " ".join('<a href="#%s">%s</a>' % (k, t) for k, t in kinds))
    for i, (name, md) in enumerate(sections):
        if i > 0:
            parts.append("<details><summary>%s</summary>" % html.escape(name))
        parts.append(md_to_html(md))
        if i > 0:
            parts.append("</details>")
    for k, t in kinds:
        parts.append('<h2 id="%s">%s</h2>' % (k, t))
        for kind, f, caption in plots:
            if kind == k:
                parts.append('<figure><a href="%s"><img src="%s" alt="%s"></a><figcaption>%s</figcaption></figure>'
                             % (f, f, html.escape(caption), html.escape(caption)))
    parts.append("</body></html>")
    path = os.path.join(outdir, "index.html")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")
    return path
