# SPDX-License-Identifier: BSD-3-Clause
"""models(), probe() and compare() give what the `mmaemu` CLI prints."""
import re
import subprocess

import numpy as np
import pytest

import mmaemu
from conftest import CLI


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=True).stdout


def test_models_as_the_cli_lists_them():
    table = cli("models")
    listed = []
    for line in table.splitlines()[1:]:
        if not line.strip():
            break
        if line.split()[0] not in listed:
            listed.append(line.split()[0])
    assert mmaemu.models() == listed


def test_units_as_the_cli_lists_them():
    rows = [line.split() for line in cli("models", "MI300X").splitlines()[1:] if line.startswith("MI300X")]
    units = mmaemu.Model("MI300X").units
    assert [(u["instruction"], u["input"], u["output"], "x".join(map(str, u["shape"]))) for u in units] == \
        [(r[1], r[2], r[3], r[4]) for r in rows]


@pytest.mark.parametrize("model,fin,fout", [("H100", "fp16", "fp32"), ("MI300X", "e4m3fnuz", "fp32"),
                                            ("V100", "fp16", "fp16"), ("A100", "fp64", "fp64")])
def test_probe_report_is_the_cli_report(model, fin, fout):
    report = mmaemu.probe(model, fin, fout)
    assert report["report"] == cli("probe", "--model", model, "--input", fin, "--output", fout)
    f = report["features"]
    assert report["model"] == model and report["input"] == fin and report["output"] == fout
    assert set(f) == set(report["notes"])
    # Each known value is the one the report prints on its line.
    lines = dict(re.findall(r"^  (.{27}) (\S.*?)(?:\s{2,}\[|$)", report["report"], re.M))
    printed = {k.strip(): v.strip() for k, v in lines.items()}
    if f["block"] is not None:
        assert printed["block FMA size N"] == str(f["block"])
    assert printed["accumulation"] == (f["accum"] or "n/a")
    assert printed["C read"] == {True: "yes", False: "no", None: "n/a"}[f["reads_c"]]


def test_probe_errors():
    with pytest.raises(mmaemu.UnsupportedError, match="V100 has no unit for bf16"):
        mmaemu.probe("V100", "bf16")
    with pytest.raises(mmaemu.UnknownModelError, match="valid models"):
        mmaemu.probe("H101", "fp16")


def err(x):
    return "0" if x == 0 else "inf" if np.isinf(x) else "nan" if np.isnan(x) else f"{x:.3e}"


def test_compare_is_the_cli_table(tmp_path):
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((24, 300)), rng.uniform(-1, 1, (300, 20))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    models = ["H100", "MI300X", "V100"]
    rows = mmaemu.compare(a, b, models, input="bf16")
    table = cli("compare", "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"), "--models",
                ",".join(models), "--input", "bf16")
    printed = {line.split()[0]: line.split() for line in table.splitlines() if line.split()[:1] and
               line.split()[0] in models}
    for r in rows:
        if r["skipped"]:
            assert printed[r["model"]][1] == "skipped:" and r["reason"]
            continue
        assert printed[r["model"]][1:5] == [r["instruction"], err(r["normwise"]), err(r["componentwise"]),
                                            err(r["unit_only"])]
    assert [r["skipped"] for r in rows] == [False, False, True]  # V100 has no bf16 unit
