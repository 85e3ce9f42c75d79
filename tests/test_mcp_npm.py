"""A third-party MCP server from the npm registry, run with Node: the reference knowledge-graph memory server.

The test installs `@modelcontextprotocol/server-memory` with `npm install` into a
cache folder ($DOCSCHISEL_NPM_DIR, default ~/.cache/docschisel/npm) and skips,
saying why, when Node or the package cannot be had. Each episode gets its own
graph file (`{tmp}` in the manifest's env), seeded by the manifest's setup calls.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.mcppipeline import cli, run_pipeline
from tests.test_chisel_cli import restore_gateway  # noqa: F401 - a fixture

PACKAGE = "@modelcontextprotocol/server-memory"
VERSION = "2026.8.31"
TASKS = Path(__file__).parent / "fixtures" / "mcp" / "memory" / "tasks.jsonl"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def memory_server() -> list[str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("Node.js (node and npm) is not installed: the npm MCP server test needs it")
    root = Path(os.environ.get("DOCSCHISEL_NPM_DIR") or Path.home() / ".cache" / "docschisel" / "npm")
    entry = root / "node_modules" / PACKAGE / "dist" / "index.js"
    if not entry.is_file():
        root.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(root), f"{PACKAGE}@{VERSION}"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0 or not entry.is_file():
            pytest.skip(f"could not install {PACKAGE}@{VERSION} from the npm registry: {done.stderr[-500:]}")
    return [node, str(entry)]


def _agent():
    """Right calls for every task, except that add_observations gets `contents` as a string (not a list)
    as long as its documentation is the server's original one."""
    from core.llm import script, tool_call

    gold = {}
    for line in TASKS.read_text().splitlines():
        task = json.loads(line)
        gold[task["query"]] = task["gold"][0]
    first: dict[str, str] = {}

    def reply(messages, params):
        if messages[-1]["role"] == "tool":
            return "Done."
        query = next(m["content"] for m in messages if m["role"] == "user")
        call = gold[query]
        args = json.loads(json.dumps(call["args"]))
        if call["tool"] == "add_observations":
            seen = json.dumps(
                [t for t in params.get("tools", []) if t["function"]["name"] == "add_observations"]
            )
            if first.setdefault("doc", seen) == seen:
                args["observations"][0]["contents"] = args["observations"][0]["contents"][0]
        return tool_call(call["tool"], **args)

    return script(reply, name="memory-agent")


@pytest.mark.usefixtures("restore_gateway")
def test_npm_memory_server_check_eval_optimize_and_serve(memory_server, tmp_path: Path) -> None:
    wh = str(tmp_path / "wh.duckdb")
    model = _agent().model
    out = run_pipeline(
        wh, memory_server, TASKS, model, tools="add_observations", eval_args=("--limit", "4"),
        optimize_args=("--max-opt-tasks", "3", "--max-val-tasks", "2", "--min-val-tasks", "0"),
        calls=[  # read-only calls and one the server rejects: the same answers through the proxy
            ("read_graph", {}),
            ("search_nodes", {"query": "tea"}),
            ("add_observations", {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}),
        ],
    )  # fmt: skip
    assert "add_observations" in out["optimize"] and "changed" in out["optimize"]
    assert out["changed"] == ["add_observations"]  # only what DocsChisel changed differs
    served = {t["name"]: t for t in out["listed"]}
    original = {t["name"]: t for t in out["upstream"]}
    assert served["add_observations"] != original["add_observations"]
    assert served["add_observations"]["annotations"] == original["add_observations"]["annotations"]
    assert served["add_observations"]["outputSchema"] == original["add_observations"]["outputSchema"]
    overlay = json.loads(cli("export", out["run_id"], "--format", "mcp-overlay", "--warehouse", wh))
    assert list(overlay["tools"]) == ["add_observations"]  # a merge patch of the one changed definition
    assert set(overlay["tools"]["add_observations"]) <= {"description", "inputSchema"}
