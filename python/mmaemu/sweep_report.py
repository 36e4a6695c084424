# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu sweep: the table, CSV, PNG chart and self-contained HTML report."""
import base64
import csv
import html
import io
import re
import shlex

try:
    from .sweep_compare import ULP_BUCKETS, bucket_name
except ImportError:  # sweep.py run as a script (mmaemu sweep)
    from sweep_compare import ULP_BUCKETS, bucket_name

TAIL_LINES = 6
WIDTHS = [8, 6]  # the model and input columns: at least the longest of the sweep (table())


def quote(args):
    """A command line as one string ({out} left readable)."""
    return " ".join(a if re.fullmatch(r"[\w@%+=:,./{}-]+", a) else shlex.quote(a) for a in args)


def model_input(run):
    if run.model:
        return run.model, run.policy or "default"
    return ("CPU", "native") if run.command is None else ("ref", "command")


def output_names(reference):
    return list(reference.outputs)


def by_output(run):
    return {r["output"]: r for r in run.results}


def error_cell(result, key, fmt):
    if result is None or "error" in result:
        return (result or {}).get("error", "missing")
    return fmt % result[key]


# MMA_VERBOSE's report (docs/shim.md), left out of a failed run's stderr.
VERBOSE_REPORT = re.compile(r"^libmmaemu( [\d.]+)?: (model |calls under|not emulated|\s*\w+\s+\d+ calls)")


def tail(text):
    lines = [l for l in text.splitlines() if not VERBOSE_REPORT.match(l)]
    return "\n".join(lines[-TAIL_LINES:])


def failure_text(run):
    m, p = model_input(run)
    return "%s %s: %s\n%s\n" % (m, p, run.error, "\n".join("    " + l for l in tail(run.stderr).splitlines()))


def rows(reference, runs):
    """The rows of the main table: one per run (the native reference first)."""
    first = [reference] if reference.command is None else []
    return first + runs


def table(opts, reference, runs):
    WIDTHS[:] = [max([w] + [len(model_input(r)[i]) for r in runs]) for i, w in enumerate((8, 6))]
    names = output_names(reference)
    widths = [max(10, len(n)) for n in names]
    head = "%-*s %-*s %6s " % (WIDTHS[0], "model", WIDTHS[1], "input", "calls")
    for i, n in enumerate(names):
        head += " %-*s" % (widths[i], n) + (" %-10s" % "(bias)" if i == 0 else "")
    head = head.rstrip()
    ref = "the same program natively" if reference.command is None else "`%s`" % reference.command
    lines = ["mmaemu sweep: %s" % quote(opts.program),
             "normwise relative error ||R - R_ref||_F / ||R_ref||_F per output against %s;" % ref,
             "(bias): mean signed relative error of %s (negative when the unit truncates).\n" %
             (names[0] if names else "-"), head, "-" * len(head)]
    for run in rows(reference, runs):
        lines.append(table_row(run, names, widths))
    lines.append("\ncalls: BLAS calls libmmaemu emulated in that run. Same program, same inputs: only the "
                 "matrix unit's arithmetic differs.")
    silent = ["%s %s" % model_input(r) for r in runs if r.model and not r.failed and r.calls == 0]
    if silent:
        lines.append("no BLAS call reached libmmaemu under: %s (not preloaded, or no BLAS calls?)" % ", ".join(silent))
    failed = [r for r in runs if r.failed]
    if failed:
        lines.append("\nfailed settings (skipped):")
        lines += [failure_text(r).rstrip("\n") for r in failed]
    return "\n".join(lines)


def table_row(run, names, widths):
    m, p = model_input(run)
    calls = str(run.calls) if run.model else "-"
    row = "%-*s %-*s %6s " % (WIDTHS[0], m, WIDTHS[1], p, calls)
    if run.failed:
        return row + " failed: " + run.error
    res = by_output(run)
    for i, n in enumerate(names):
        row += " %-*s" % (widths[i], error_cell(res.get(n), "normwise", "%.2e"))
        if i == 0:
            row += " %-10s" % error_cell(res.get(n), "bias", "%+.1e")
    return row.rstrip()


CSV_FIELDS = ("model", "input", "status", "seconds", "calls", "output", "elements", "normwise", "maxrel", "bias",
              "bits_differ", "ulp_max", "nonfinite") + tuple("ulp_" + bucket_name(lo, hi) for lo, hi in ULP_BUCKETS)


def csv_rows(runs):
    for run in runs:
        m, p = model_input(run)
        base = {"model": m, "input": p, "status": run.error or "ok", "seconds": "%.2f" % run.seconds,
                "calls": run.calls}
        if run.failed:
            yield base
        for r in run.results:
            row = dict(base, output=r["output"])
            if "error" in r:
                row["status"] = r["error"]
            else:
                row.update({k: r[k] for k in ("elements", "normwise", "maxrel", "bias", "bits_differ", "ulp_max",
                                              "nonfinite")})
                row.update({"ulp_" + bucket_name(lo, hi): c for (lo, hi), c in zip(ULP_BUCKETS, r["ulp_hist"])})
            yield row


def write_csv(path, runs):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for row in csv_rows(runs):
            w.writerow(row)


def chart(runs, fmt="png"):
    """Grouped bars of the normwise errors (log scale), as image bytes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ok = [r for r in runs if not r.failed]
    names = list(dict.fromkeys(res["output"] for r in ok for res in r.results))
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(ok) + 2), 4.2))
    width = 0.8 / max(1, len(names))
    for j, n in enumerate(names):
        vals = [by_output(r).get(n, {}).get("normwise", 0.0) or float("nan") for r in ok]
        ax.bar([i + j * width for i in range(len(ok))], vals, width, label=n)
    ax.set_yscale("log")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(ok))])
    ax.set_xticklabels(["%s %s" % model_input(r) for r in ok], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("normwise relative error")
    ax.set_title("errors against the reference run (no bar: exactly 0)")
    if names:
        ax.legend(fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=100)
    plt.close(fig)
    return buf.getvalue()


def write_png(path, runs):
    with open(path, "wb") as f:
        f.write(chart(runs))


STYLE = ("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right;font-size:13px}th{background:#eee}"
         "td.l{text-align:left}.fail{color:#b00000}pre{background:#f6f6f6;padding:6px}"
         ".bar{display:inline-block;height:10px;background:#4a7ab5;vertical-align:middle}")


def html_cell(text, cls=""):
    return "<td%s>%s</td>" % (' class="%s"' % cls if cls else "", html.escape(str(text)))


def histogram_html(hist):
    total = max(1, sum(hist))
    return " ".join('<span title="%s ulp: %d"><span class="bar" style="width:%dpx"></span>%d</span>' %
                    (bucket_name(lo, hi), c, 1 + 60 * c // total, c) for (lo, hi), c in zip(ULP_BUCKETS, hist))


def details_html(runs):
    head = "".join("<th>%s</th>" % h for h in ("model", "input", "output", "normwise", "max rel", "bias",
                                               "bits differ", "max ulp", "ulp histogram: " +
                                               " | ".join(bucket_name(lo, hi) for lo, hi in ULP_BUCKETS)))
    out = ["<table><tr>%s</tr>" % head]
    for run in runs:
        m, p = model_input(run)
        for r in run.results:
            if "error" in r:
                out.append("<tr>%s%s%s<td class=\"l fail\" colspan=6>%s</td></tr>" %
                           (html_cell(m, "l"), html_cell(p, "l"), html_cell(r["output"], "l"), html.escape(r["error"])))
                continue
            out.append("<tr>" + "".join([html_cell(m, "l"), html_cell(p, "l"), html_cell(r["output"], "l"),
                                         html_cell("%.2e" % r["normwise"]), html_cell("%.2e" % r["maxrel"]),
                                         html_cell("%+.1e" % r["bias"]),
                                         html_cell("%d / %d" % (r["bits_differ"], r["elements"])),
                                         html_cell(r["ulp_max"])]) +
                       "<td class=\"l\">%s</td></tr>" % histogram_html(r["ulp_hist"]))
    return "\n".join(out) + "</table>"


def write_html(path, opts, reference, runs):
    png = base64.b64encode(chart(runs)).decode("ascii")
    failed = [r for r in runs if r.failed]
    parts = ["<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>mmaemu sweep</title>",
             "<style>%s</style></head><body>" % STYLE, "<h1>mmaemu sweep</h1>",
             "<p>Program: <code>%s</code></p>" % html.escape(quote(opts.program)),
             "<h2>Summary</h2><pre>%s</pre>" % html.escape(table(opts, reference, runs)),
             "<h2>Normwise errors</h2><img alt=\"normwise errors per setting\" src=\"data:image/png;base64,%s\">" % png,
             "<h2>Per output: errors, bits, ULP distances</h2>",
             "<p>ULP distances are counted in each output's own format, against the reference rounded to it.</p>",
             details_html(runs)]
    if failed:
        parts.append("<h2 class=\"fail\">Failed settings</h2>")
        parts += ["<pre class=\"fail\">%s</pre>" % html.escape(failure_text(r)) for r in failed]
    parts.append("</body></html>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
