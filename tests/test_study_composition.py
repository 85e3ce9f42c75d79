"""Composition analysis over doc files and generated doc sets stored in the warehouse."""

from __future__ import annotations

import json

from click.testing import CliRunner

from core.docs import DocSet
from core.study.composition import composition, warehouse_collections


def _generated(warehouse, data_dir):
    from core.benchmarks.registry import get_benchmark

    bench = get_benchmark("api-bank", data_dir)
    original = bench.original_docs()
    doc = original["QueryBalance"].add("UE", ">>> QueryBalance(token='t')").remove("RPD")
    ds = DocSet(original.replace(doc).values(), name="easytool test")
    sid = warehouse.register_docset(
        ds, benchmark="api-bank", origin="easytool", meta={"costs": {"QueryBalance": {"calls": 2}}}
    )
    return original, sid


def test_warehouse_docset_counts_only_worked_tools(warehouse, data_dir):
    original, sid = _generated(warehouse, data_dir)
    cols = warehouse_collections(warehouse, [sid])
    ((name, docs),) = cols.items()
    assert name == f"easytool test ({sid[:8]})" and [d.tool for d in docs] == ["QueryBalance"]
    matrix = composition({"API-Bank": list(original.values())}, warehouse, [sid])
    assert matrix.loc["UE", name] == 1.0 and matrix.loc["RPD", name] == 0.0
    assert matrix.loc["UE", "API-Bank"] == 0.0


def test_cli_coverage_with_docset(warehouse, data_dir):
    from core.cli.fields import command

    _, sid = _generated(warehouse, data_dir)
    out = CliRunner().invoke(
        command,
        [
            "coverage",
            str(data_dir),
            "--docset",
            sid,
            "--warehouse",
            str(warehouse.path),
            "--format",
            "json",
        ],
    )
    assert out.exit_code == 0, out.output
    payload = json.loads(out.output)
    assert payload[f"easytool test ({sid[:8]})"]["coverage"]["UE"] == 1.0
    assert CliRunner().invoke(command, ["coverage"]).exit_code != 0
