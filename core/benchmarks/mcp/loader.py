"""`load_mcp_benchmark`: connect to a server, read its tools, validate a tasks file against them.

The benchmark is the server plus a tasks file in the user-folder format
(docs/user-benchmarks.md) and an optional `benchmark.json` beside it. Tools
come from `tools/list` and are parsed by the MCP definition parser, so every
field the server documents is kept; gold calls and checks are validated
against the input schemas before anything is returned. Every defect is
reported at once (file and line), and a server that does not start is one
clear error naming it, with the tail of its stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from core.benchmarks.base import Task
from core.benchmarks.mcp.benchmark import McpBenchmark, McpTool, tool_from_definition
from core.benchmarks.mcp.manifest import MANIFEST, McpManifest, read_manifest
from core.benchmarks.userfolder.errors import BenchmarkFolderError, Problem, Problems
from core.benchmarks.userfolder.manifest import Manifest
from core.benchmarks.userfolder.scoring import with_scoring_options
from core.benchmarks.userfolder.taskfile import TASKS_FILE, read_tasks
from core.benchmarks.userfolder.toolkit import Toolkit, ToolSpec
from core.docs import DocParseError, parse_mcp
from core.docs.parsers.errors import Where
from core.mcp.session import McpFailure, McpSession, ServerSpec

CHECK_KEYS = ("tool", "args", "expected")


def is_mcp_spec(name: str) -> bool:
    """Whether a benchmark name denotes an MCP server (`mcp:<command>`, `mcp+http://...`)."""
    return name.startswith(("mcp:", "mcp+http://", "mcp+https://"))


def is_mcp_folder(path: Path) -> bool:
    """A folder whose benchmark.json names a `server` and which has no tools.py of its own."""
    manifest = path / MANIFEST
    if not manifest.is_file() or (path / "tools.py").exists():
        return False
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "server" in data


def load_mcp_benchmark(server: str | None, tasks: str | os.PathLike[str]) -> McpBenchmark:
    """The benchmark of `server` (None: the manifest's `server`) with the tasks of `tasks`.

    `tasks` is a tasks file, or a folder holding `tasks.jsonl` (and optionally
    `benchmark.json`). Raises `BenchmarkFolderError` listing every defect.
    """
    path = Path(tasks).expanduser()
    if path.is_dir():
        folder, rel = path, TASKS_FILE
    else:
        folder, rel = path.parent, path.name
    if not (folder / rel).is_file():
        raise BenchmarkFolderError([Problem(str(folder / rel), "no such tasks file")])
    problems = Problems(folder)
    name = folder.resolve().name if rel == TASKS_FILE else Path(rel).stem
    manifest = read_manifest(folder, name, problems)
    problems.raise_if_any()
    spec = _spec(server, manifest, folder, problems)
    problems.raise_if_any()
    assert spec is not None
    definitions = _list_tools(spec, manifest, problems)
    problems.raise_if_any()
    tools = _tools(definitions, problems)
    problems.raise_if_any()
    _check_manifest(manifest, tools, problems)
    problems.raise_if_any()
    toolkit = Toolkit({t.name: _spec_of(t) for t in tools})
    shim = Manifest(
        name=manifest.name, domains=manifest.domains, domain_tools=manifest.domain_tools, offer=manifest.offer
    )
    task_list = read_tasks(folder, toolkit, shim, problems, rel=rel, extra_keys=("check", "scoring"))
    params = {t.name: t.params for t in tools}
    task_list = [with_scoring_options(t, params, {}, problems, rel) for t in task_list]
    problems.raise_if_any()
    by_name = {t.name: t for t in tools}
    for task in task_list:
        _check_check(task, by_name, rel, problems)
    problems.raise_if_any()
    source = {
        "mcp": spec.to_json(),
        "server": server or manifest.server,
        "tasks": str((folder / rel).resolve()),
    }
    fp = fingerprint(spec, folder, rel, definitions)
    return McpBenchmark(spec, manifest, tools, task_list, fp, source)


def _spec(server: str | None, manifest: McpManifest, folder: Path, problems: Problems) -> ServerSpec | None:
    given = server if server is not None else manifest.server
    if given is None:
        problems.add(
            MANIFEST if (folder / MANIFEST).exists() else "",
            'no MCP server: pass mcp:<command> or set "server"',
        )
        return None
    cwd = (
        str((folder / manifest.cwd).resolve())
        if manifest.cwd
        else (str(folder.resolve()) if server is None else None)
    )
    try:
        if isinstance(given, list):
            spec = ServerSpec(command=tuple(given), cwd=cwd)
        else:
            spec = ServerSpec.parse(given, cwd=cwd)
    except ValueError as exc:
        problems.add(MANIFEST if server is None else "", str(exc))
        return None
    if manifest.env:
        spec = ServerSpec(command=spec.command, url=spec.url, cwd=spec.cwd, env=dict(manifest.env))
    if spec.is_http and not (manifest.reset_tool or manifest.stateless):
        problems.add(
            MANIFEST,
            f"{spec.url} is a shared HTTP server: name a reset_tool that restores its initial state before "
            'each episode, or declare "stateless": true',
        )
    return spec


def _list_tools(spec: ServerSpec, manifest: McpManifest, problems: Problems) -> list[dict[str, Any]]:
    start = spec
    if any("{tmp}" in v for v in spec.env.values()) or any("{tmp}" in a for a in spec.command):
        import tempfile

        from core.benchmarks.mcp.benchmark import _with_tmp

        start = _with_tmp(spec, tempfile.mkdtemp(prefix="docschisel-mcp-"))
    try:
        with McpSession(start, start_timeout_s=manifest.start_timeout_s) as session:
            return session.list_tools()
    except McpFailure as exc:
        problems.add("", f"{exc} ({exc.error_class})")
        return []


def _tools(definitions: list[dict[str, Any]], problems: Problems) -> list[McpTool]:
    tools = []
    if not definitions and not problems:
        problems.add("", "the server lists no tools")
    for i, d in enumerate(definitions):
        try:
            doc = parse_mcp(d, where=Where(file="tools/list").index(i))
        except DocParseError as exc:
            problems.add("", f"tools/list: {exc}")
            continue
        tools.append(tool_from_definition(d, doc))
    return tools


def _spec_of(tool: McpTool) -> ToolSpec:
    """The user-folder view of a tool (names, required, defaults), for validating gold calls."""
    schema = tool.definition.get("inputSchema") or {}
    extra = schema.get("additionalProperties") not in (None, False)
    return ToolSpec(
        tool.name, tool.params, tool.required, dict(tool.defaults), False, "", extra, tool.doc, "tools/list"
    )


def _check_manifest(manifest: McpManifest, tools: list[McpTool], problems: Problems) -> None:
    names = {t.name for t in tools}
    listed = ", ".join(sorted(names))
    if manifest.reset_tool and manifest.reset_tool not in names:
        problems.add(
            MANIFEST, f"reset_tool {manifest.reset_tool!r} is not a tool of the server (its tools: {listed})"
        )
    for call in manifest.setup:
        if call.tool not in names:
            problems.add(MANIFEST, f"setup calls unknown tool {call.tool!r} (the server's tools: {listed})")
    for domain, wanted in manifest.domain_tools.items():
        unknown = [t for t in wanted if t not in names]
        if unknown:
            problems.add(MANIFEST, f"domain {domain!r} lists unknown tool(s) {', '.join(unknown)}")


def _check_check(task: Task, tools: dict[str, McpTool], rel: str, problems: Problems) -> None:
    check = task.meta.get("check")
    if check is None:
        return
    line = task.meta.get("line")
    if not isinstance(check, dict) or not isinstance(check.get("tool"), str):
        problems.add(
            rel, 'check: must be {"tool": ..., "args": {...}, "expected": ...} ("expected" optional)', line
        )
        return
    extra = sorted(set(check) - set(CHECK_KEYS))
    if extra:
        problems.add(
            rel, f"check: unknown key(s) {', '.join(extra)}; a check has {', '.join(CHECK_KEYS)}", line
        )
    tool = tools.get(check["tool"])
    if tool is None:
        problems.add(rel, f"check: unknown tool {check['tool']!r}; the tools are: {', '.join(tools)}", line)
        return
    args = check.get("args", {})
    if not isinstance(args, dict):
        problems.add(rel, 'check: "args" must be an object', line)
        return
    missing = [p for p in tool.required if p not in args]
    if missing:
        problems.add(rel, f"check: {tool.name}() needs {', '.join(missing)}", line)


def fingerprint(spec: ServerSpec, folder: Path, rel: str, definitions: list[dict[str, Any]]) -> str:
    """SHA-256 over the server's address, its tool definitions, the tasks file and the manifest."""
    h = hashlib.sha256()
    h.update(json.dumps(spec.to_json(), sort_keys=True).encode() + b"\0")
    h.update(json.dumps(definitions, sort_keys=True, ensure_ascii=False).encode() + b"\0")
    for f in (folder / rel, folder / MANIFEST):
        if f.is_file():
            h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()
