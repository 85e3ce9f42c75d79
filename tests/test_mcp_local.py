"""The whole path on a real MCP server with the real offline model (SmolLM2-135M, the fast smoke model).

bench check, eval and optimize of the notes server (tests/fixtures/mcp/notes_server.py, written with
the `mcp` SDK) through the CLI, then `docschisel mcp serve` of the optimized docs, listed and called
through the SDK's own client: the proxy shows the doc set's descriptions and returns the upstream's
results byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.mcphelp import NOTES_SERVER, NOTES_TASKS
from tests.mcppipeline import run_pipeline
from tests.test_chisel_cli import restore_gateway  # noqa: F401 - a fixture

pytestmark = [pytest.mark.local_model, pytest.mark.slow]


@pytest.mark.usefixtures("restore_gateway")
def test_local_model_on_an_mcp_server_from_check_to_serve(tmp_path: Path) -> None:
    from core.llm.local import ensure_available
    from core.llm.weights import LocalModelUnavailable

    try:
        ensure_available("smollm2-135m")
    except LocalModelUnavailable as exc:
        pytest.skip(f"the local model is not installed: {exc}")
    out = run_pipeline(
        str(tmp_path / "wh.duckdb"),
        [sys.executable, str(NOTES_SERVER)],
        NOTES_TASKS,
        "local/smollm2-135m",
        tools="add_note",
        eval_args=("--limit", "2", "--max-steps", "2"),
        optimize_args=(
            "--max-steps", "2", "--max-opt-tasks", "1", "--max-val-tasks", "1", "--min-val-tasks", "0",
            "--selection", "paper",
        ),
    )  # fmt: skip
    assert "TS" in out["eval"] and "add_note" in out["optimize"]
    assert set(out["changed"]) <= {"add_note"}  # only a tool DocsChisel optimized can differ
