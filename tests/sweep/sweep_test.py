#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu sweep on a C program that writes a .npy (one setting aborts) and a
Fortran program that prints its numbers; the CSV, PNG and HTML it writes; with
--chromium, the HTML report in headless Chromium (exit 77 where none is
installed)."""
import argparse
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def check(cond, what, detail=""):
    if not cond:
        sys.exit("FAIL: %s\n%s" % (what, detail))
    print("ok:", what)


def sweep(cli, args, env=None):
    p = subprocess.run([cli, "sweep", "--quiet"] + args, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def numbers_row(model, policy):
    return re.compile(r"^%s\s+%s\s+[1-9]\d*\s+\d\.\d\de[-+]\d\d" % (re.escape(model), re.escape(policy)), re.M)


def test_npy(opts, tmp):
    csv_path, png, html = (os.path.join(tmp, "r." + e) for e in ("csv", "png", "html"))
    rc, out, err = sweep(opts.cli, ["--models", "H100:fp16,V100:fp16,MI300X:bf16", "--jobs", "2", "--csv", csv_path,
                                    "--png", png, "--html", html, "--", opts.npy_program, "{out}/c.npy", "V100"])
    detail = out + err
    check(rc == 1, "a failed setting gives exit status 1", detail)
    check(numbers_row("H100", "fp16").search(out), "H100 fp16 row with its calls and errors", detail)
    check(numbers_row("MI300X", "bf16").search(out), "MI300X bf16 row", detail)
    check(re.search(r"^CPU\s+native\s+-\s+0\.00e\+00", out, re.M), "the native reference row", detail)
    check(re.search(r"^V100\s+fp16\s+\d+\s+failed: killed by SIGABRT", out, re.M), "V100 reported as aborted", detail)
    check("refusing to run under V100" in out, "the end of the failed setting's stderr", detail)
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    h100 = [r for r in rows if r["model"] == "H100"]
    check(len(h100) == 1 and h100[0]["output"] == "c.npy" and int(h100[0]["bits_differ"]) > 0 and
          int(h100[0]["elements"]) == 24 * 16, "CSV: H100's c.npy, 384 elements, bits differ", str(rows))
    check(sum(int(h100[0][k]) for k in h100[0] if k.startswith("ulp_") and k != "ulp_max") == 384,
          "CSV: the ULP histogram counts every element", str(h100))
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "the PNG chart is written")
    with open(html, encoding="utf-8") as f:
        text = f.read()
    check(not re.search(r"https?://", text), "the HTML report names no http(s) resource")
    check("data:image/png;base64," in text and "SIGABRT" in text, "the HTML report holds the chart and the failure")
    return html


def test_fortran(opts):
    if not opts.fortran_program:
        print("skipped: no Fortran compiler")
        return
    rc, out, err = sweep(opts.cli, ["--models", "H100:tf32,MI250", "--", opts.fortran_program])
    check(rc == 0, "Fortran program: every setting ran", out + err)
    check(re.search(r"calls\s+stdout", out), "printed numbers compared as output 'stdout'", out)
    check(numbers_row("H100", "tf32").search(out) and numbers_row("MI250", "default").search(out),
          "H100 tf32 and MI250 (default policy) rows", out)


def test_bad_model(opts):
    rc, out, err = sweep(opts.cli, ["--models", "H101:fp16", "--", opts.npy_program, "{out}/c.npy"])
    check(rc == 2 and "H101" in err and "V100" in err, "an unknown model is refused with the valid names", out + err)


def test_python_module(opts):
    pkg = opts.python_package
    if not glob.glob(os.path.join(pkg, "mmaemu", "_mmaemu*.so")):
        print("skipped: python3 -m mmaemu sweep (the Python package is not built)")
        return
    env = dict(os.environ, PYTHONPATH=pkg)
    p = subprocess.run([sys.executable, "-m", "mmaemu", "sweep", "--quiet", "--models", "MI300X:fp16", "--",
                        opts.npy_program, "{out}/c.npy"], capture_output=True, text=True, env=env, timeout=300)
    check(p.returncode == 0 and numbers_row("MI300X", "fp16").search(p.stdout), "python3 -m mmaemu sweep",
          p.stdout + p.stderr)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def page_requests(netlog):
    """The network requests the page made, from Chromium's net log: those with
    an initiator (the browser's own requests, updates and the like, have none)."""
    with open(netlog, encoding="utf-8", errors="replace") as f:
        text = f.read().rstrip()
    try:
        events = json.loads(text)["events"]
    except ValueError:  # a log cut short when the browser exits
        events = json.loads(text.rstrip(",") + "]}")["events"]
    return sorted({e["params"]["url"] for e in events
                   if e.get("params", {}).get("initiator", "not an origin") != "not an origin"
                   and e["params"].get("url", "").startswith(("http:", "https:"))})


def test_chromium(html, tmp):
    browser = chromium()
    if not browser:
        print("skipped: no chromium installed")
        sys.exit(77)
    netlog = os.path.join(tmp, "net.json")
    quiet = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
             "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
             "--disable-features=Translate,OptimizationHints,MediaRouter,SpellCheck,AutofillServerCommunication",
             "--user-data-dir=" + os.path.join(tmp, "profile")]  # the browser's own traffic, not the page's
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                        "--log-net-log=" + netlog] + quiet + ["--dump-dom", "file://" + html],
                       capture_output=True, text=True, timeout=120)
    check("mmaemu sweep" in p.stdout and "<table>" in p.stdout, "Chromium renders the report", p.stderr[-2000:])
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    check(not console, "no console errors", "\n".join(console))
    requests = page_requests(netlog)
    check(not requests, "no network requests", "\n".join(requests))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--npy-program", required=True)
    ap.add_argument("--fortran-program")
    ap.add_argument("--python-package", default="")
    ap.add_argument("--chromium", action="store_true")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        html = test_npy(opts, tmp)
        if opts.chromium:
            test_chromium(html, tmp)
            return
        test_fortran(opts)
        test_bad_model(opts)
        test_python_module(opts)


if __name__ == "__main__":
    main()
