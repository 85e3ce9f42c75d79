"""Field coverage matrix, the `fields` CLI, and offline token counting."""

from __future__ import annotations

import json
import math
import socket
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from core.cli.main import cli
from core.docs.coverage import collections_from_path, coverage_matrix
from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers import DocParseError
from core.docs.render import render_text
from core.docs.tokens import token_length
from core.fields import CODES

FIXTURES = Path(__file__).parent / "fixtures" / "docs"


def test_coverage_matrix_of_a_tiny_collection() -> None:
    a = ToolDoc(
        tool="a", name="a", description="A.", parameters=(Param(name="x", type="int", required=True),)
    )
    b = ToolDoc(tool="b", name="b", returns=(Return(name="r"),), examples=("b()",))
    c = ToolDoc(tool="c", parameters=(Param(name="y", has_default=True, default=None),))
    m = coverage_matrix({"tiny": [a, b, c], "one": [a], "empty": []})
    assert list(m.index) == list(CODES) and list(m.columns) == ["tiny", "one", "empty"]
    tiny = m["tiny"]
    assert tiny["TN"] == pytest.approx(2 / 3) and tiny["FD"] == pytest.approx(1 / 3)
    assert tiny["IPN"] == pytest.approx(2 / 3) and tiny["IPT"] == pytest.approx(1 / 3)
    assert tiny["DPV"] == pytest.approx(1 / 3) and tiny["PRF"] == pytest.approx(1 / 3)
    assert tiny["RPN"] == pytest.approx(1 / 3) and tiny["UE"] == pytest.approx(1 / 3)
    assert tiny["IPD"] == tiny["POF"] == tiny["CI"] == tiny["IC"] == 0.0
    assert m["one"].tolist() == [1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    assert all(math.isnan(v) for v in m["empty"])


def test_collections_from_the_benchmark_folder(data_dir: Path) -> None:
    cols = collections_from_path(data_dir)
    assert {k: len(v) for k, v in cols.items()} == {"WorkBench": 27, "API-Bank": 75}
    assert list(collections_from_path(data_dir / "workbench")) == ["WorkBench"]
    assert list(collections_from_path(data_dir / "api-bank" / "derived" / "api_docs.json")) == ["API-Bank"]
    assert set(collections_from_path(FIXTURES)) == {
        "draft_tools",
        "easytool_tools",
        "mcp_tools",
        "openai_tools",
        "tooldocs",
    }


def test_cli_coverage_table(data_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["fields", "coverage", str(data_dir)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["Information", "field", "WorkBench", "API-Bank"]
    rows = {ln[:36].strip(): ln[36:].split() for ln in lines[2:]}
    assert rows["Tool Name (TN)"] == ["100%", "100%"]
    assert rows["Usage Example (UE)"] == ["100%", "0%"]
    assert rows["Parameter Optional Flag (POF)"] == ["81%", "0%"]
    assert rows["Tools"] == ["27", "75"]
    assert len(rows) == 18


def test_cli_coverage_formats(data_dir: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["fields", "coverage", "--format", "json", str(data_dir)])
    data = json.loads(out.output)
    assert data["WorkBench"]["tools"] == 27 and data["API-Bank"]["coverage"]["TD"] == pytest.approx(
        53 / 75, abs=1e-4
    )
    csv = pd.read_csv(
        StringIO(runner.invoke(cli, ["fields", "coverage", "--format", "csv", str(data_dir)]).output),
        index_col=0,
    )
    assert csv.loc["UE", "WorkBench"] == 1.0 and csv.loc["tools", "API-Bank"] == 75
    md = runner.invoke(
        cli, ["fields", "coverage", "--format", "markdown", str(FIXTURES / "mcp_tools.json")]
    ).output
    assert md.splitlines()[:3] == [
        "| Information field | mcp_tools |",
        "| --- | ---: |",
        "| Tool Name (TN) | 100% |",
    ]


def test_cli_coverage_reports_bad_files() -> None:
    result = CliRunner().invoke(
        cli, ["fields", "coverage", str(FIXTURES / "malformed" / "missing_name.json")]
    )
    assert isinstance(result.exception, DocParseError)
    assert 'tools[3].parameters[1]: missing "name"' in str(result.exception)


def test_cli_fields_list() -> None:
    out = CliRunner().invoke(cli, ["fields", "list"]).output
    assert [ln.split()[0] for ln in out.splitlines()[2:]] == list(CODES)
    assert "Invocation Constraint" in out and "2/14" in out
    data = json.loads(CliRunner().invoke(cli, ["fields", "list", "--format", "json"]).output)
    assert data[0] == {
        "code": "TN",
        "field": "Tool Name",
        "meaning": "invocation identifier",
        "prevalence": "14/14",
        "scope": "tool",
    }


def test_token_length_is_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("token counting tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    doc = ToolDoc(tool="t", name="t", description="Counts tokens offline, for sure.")
    assert token_length(doc) == token_length(render_text(doc)) > 5
    assert token_length("") == 0
    for model in [
        "gpt-4o",
        "gpt-3.5-turbo",
        "claude-3-5-haiku-20241022",
        "meta-llama/llama-3-8b",
        "no-such-model",
    ]:
        assert token_length(f"tools and their documentation fields ({model})", model) > 5
