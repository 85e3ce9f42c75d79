"""The `expand` and `retrieval eval` commands end to end on API-Bank, with a scripted expansion model."""

from __future__ import annotations

import json

from click.testing import CliRunner

from core.cli.main import cli
from core.llm import script

PROFILE = {
    "function_description": "Queries the stock price of a stock code on a date.",
    "tags": ["stock", "price", "finance"],
    "when_to_use": "When a user books flights.",
}


def test_expand_then_retrieval_eval_with_ablation(tmp_path, data_dir) -> None:
    wh = str(tmp_path / "r.duckdb")
    model = script([json.dumps(PROFILE)])
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "expand",
            "-b",
            "api-bank",
            "--tools",
            "QueryStock",
            "-m",
            model.model,
            "--judge-model",
            "none",
            "--warehouse",
            wh,
            "--data-dir",
            str(data_dir),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "QueryStock: accepted function_description, tags" in res.output
    assert "rejected (rule, attempt 1) when_to_use: not grounded" in res.output
    assert "kept tags, dropped: 'finance': not grounded" in res.output
    res = runner.invoke(
        cli,
        [
            "retrieval",
            "eval",
            "-b",
            "api-bank",
            "--docs",
            "expanded",
            "--retriever",
            "bm25",
            "--ablation",
            "--warehouse",
            wh,
            "--data-dir",
            str(data_dir),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "add:tags" in res.output and "out:when_to_use" in res.output
    assert "195 queries" in res.output
    res = runner.invoke(cli, ["retrieval", "eval", "--retriever", "sparse-ish", "--warehouse", wh])
    assert res.exit_code != 0 and "unknown retriever" in res.output
