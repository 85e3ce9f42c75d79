"""The user's path on an MCP server, as commands: bench check, eval, optimize, then mcp serve of the result.

Shared by the npm reference-server test (scripted agent) and the local-model
test (SmolLM2 on the notes server). The last step starts `docschisel mcp serve`
in front of the server, lists its tools and calls them through the SDK's own
client, and compares with the server reached directly.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str) -> str:
    from core.cli.main import cli as group

    out = CliRunner().invoke(group, list(args), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.output


def run_pipeline(
    wh: str,
    server: list[str],
    tasks: Path,
    model: str,
    *,
    tools: str,
    eval_args: tuple[str, ...] = (),
    optimize_args: tuple[str, ...] = (),
    calls: list[tuple[str, dict]] | None = None,
) -> dict[str, Any]:
    """Every step through the CLI; returns the optimize run id, its doc set and the proxy's findings."""
    spec = "mcp:" + " ".join(server)
    checked = cli("bench", "check", spec, "--tasks", str(tasks))
    assert "tasks correct against their own gold" in checked
    evaluated = cli(
        "eval",
        "-b",
        spec,
        "--tasks",
        str(tasks),
        "--model",
        model,
        "--split",
        "all",
        "--warehouse",
        wh,
        *eval_args,
    )
    optimized = cli(
        "optimize", "-b", spec, "--tasks", str(tasks), "--model", model, "--tools", tools, "--iterations", "1",
        "--repeats", "1", "--temperature", "0", "--engine", "evidence", "--headroom", "none", "--warehouse", wh,
        *optimize_args,
    )  # fmt: skip
    run_id = re.search(r"run id: (\w+)", optimized).group(1)
    docset_id = re.search(r"optimized doc set: (\w+)", optimized).group(1)
    return {
        "eval": evaluated,
        "optimize": optimized,
        "run_id": run_id,
        "docset_id": docset_id,
        **proxy(wh, server, run_id),
    }


def proxy(
    wh: str, server: list[str], run_id: str, calls: list[tuple[str, dict]] | None = None
) -> dict[str, Any]:
    """`docschisel mcp serve --docs RUN -- server`, listed and called through the SDK client."""
    from core.chisel.export import resolve_export
    from core.mcp.overlay import overlay_tool
    from core.mcp.session import McpSession, ServerSpec
    from core.warehouse import Warehouse

    docset, _ = resolve_export(Warehouse(wh), run_id)
    argv = (
        sys.executable,
        "-m",
        "core.cli.main",
        "mcp",
        "serve",
        "--docs",
        run_id,
        "--warehouse",
        wh,
        "--",
        *server,
    )
    with McpSession(ServerSpec(command=tuple(server))) as direct:
        upstream = direct.list_tools()
        with McpSession(ServerSpec(command=argv, cwd=str(ROOT))) as served:
            listed = [_comparable(t) for t in served.list_tools()]
            upstream = [_comparable(t) for t in upstream]
            expected = [overlay_tool(d, docset[d["name"]])[0] if d["name"] in docset else d for d in upstream]
            assert listed == expected, "the proxy serves the upstream's tools with the doc set overlaid"
            changed = [t["name"] for t, d in zip(listed, upstream, strict=True) if t != d]
            for name, args in calls or []:
                a, b = served.call_tool(name, args), direct.call_tool(name, args)
                assert json.dumps(a.raw, sort_keys=True) == json.dumps(b.raw, sort_keys=True), name
    return {"listed": listed, "upstream": upstream, "changed": changed}


def _comparable(tool: dict[str, Any]) -> dict[str, Any]:
    """A definition without `execution`: a 2025-era field (task support) that the SDK leaves out on
    2026-07-28 connections, so the proxy's newer link to our client cannot carry it."""
    return {k: v for k, v in tool.items() if k != "execution"}
