"""`tasks.jsonl`: one task per line, validated against the tools before anything is returned.

A line is a JSON object: `id` (string or integer), `query` (the request the
agent gets), optional `domain` (default "general"), `gold` (the ground-truth
calls, each `{"tool": ..., "args": {...}}` or a call string `tool(a=1)`), and
optional `meta` (an object kept with the task). Call strings are parsed with
`ast` (literals only, positional arguments mapped onto the signature) and are
never evaluated.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from core.benchmarks.base import Call, CallParseError, Task, parse_call
from core.benchmarks.userfolder.errors import Problems
from core.benchmarks.userfolder.files import parse_json, read_text
from core.benchmarks.userfolder.manifest import Manifest
from core.benchmarks.userfolder.toolkit import Toolkit

TASKS_FILE = "tasks.jsonl"
MAX_LINE_CHARS = 1_000_000
MAX_CALL_CHARS = 10_000  # a gold call string longer than this is not a call a person wrote
TASK_KEYS = ("id", "query", "domain", "gold", "meta")
DEFAULT_DOMAIN = "general"


def read_tasks(
    folder: Path,
    toolkit: Toolkit,
    manifest: Manifest,
    problems: Problems,
    *,
    rel: str = TASKS_FILE,
    extra_keys: tuple[str, ...] = (),
) -> list[Task]:
    """Every task of tasks.jsonl; every defect (with its line) goes to `problems`.

    `rel` names another task file of the folder; `extra_keys` are further keys a
    task line may carry (an MCP benchmark's `check`): they are kept in the
    task's `meta` for the caller to validate.
    """
    text = read_text(folder, rel, problems)
    if text is None:
        return []
    tasks: list[Task] = []
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        task = _read_line(line, lineno, toolkit, manifest, problems, rel, extra_keys)
        if task is None:
            continue
        if task.task_id in first_line:
            problems.add(
                rel,
                f"duplicate task id {task.task_id!r} (first on line {first_line[task.task_id]})",
                lineno,
            )
            continue
        first_line[task.task_id] = lineno
        tasks.append(task)
    if not tasks and not problems:
        problems.add(
            rel,
            'holds no tasks: write one JSON object per line, e.g. {"id": "t1", "query": ..., "gold": [...]}',
        )
    return tasks


def _read_line(
    line: str,
    lineno: int,
    toolkit: Toolkit,
    manifest: Manifest,
    problems: Problems,
    rel: str = TASKS_FILE,
    extra_keys: tuple[str, ...] = (),
) -> Task | None:
    def bad(message: str) -> None:
        problems.add(rel, message, lineno)

    if len(line) > MAX_LINE_CHARS:
        bad(f"the line is {len(line):,} characters long; a task line may have at most {MAX_LINE_CHARS:,}")
        return None
    ok, obj = parse_json(line, rel, problems, line=lineno)
    if not ok:
        return None
    if not isinstance(obj, dict):
        bad("a task must be a JSON object")
        return None
    before = len(problems.items)
    keys = (*TASK_KEYS, *extra_keys)
    unknown = sorted(set(obj) - set(keys))
    if unknown:
        bad(f"unknown key(s) {', '.join(unknown)}; a task has keys: {', '.join(keys)}")
    task_id = obj.get("id")
    if task_id is None:
        bad('missing "id"')
    elif isinstance(task_id, bool) or not isinstance(task_id, str | int) or not str(task_id).strip():
        bad('"id" must be a non-empty string or an integer')
    query = obj.get("query")
    if query is None:
        bad('missing "query"')
    elif not isinstance(query, str) or not query.strip():
        bad('"query" must be a non-empty string')
    domain = obj.get("domain", DEFAULT_DOMAIN)
    if not isinstance(domain, str) or not domain.strip():
        bad('"domain" must be a non-empty string')
    elif manifest.domains and domain not in manifest.domains:
        bad(f"domain {domain!r} is not listed in benchmark.json (domains: {', '.join(manifest.domains)})")
    meta = obj.get("meta", {})
    if not isinstance(meta, dict):
        bad('"meta" must be an object')
    gold = _gold(obj, toolkit, manifest, domain, bad)
    if len(problems.items) > before or gold is None:
        return None
    tools = tuple(dict.fromkeys(c.tool for c in gold))
    extra = {k: obj[k] for k in extra_keys if k in obj}
    return Task(str(task_id), domain, query, tuple(gold), tools, {**meta, **extra, "line": lineno})


def _gold(obj: dict[str, Any], toolkit: Toolkit, manifest: Manifest, domain: Any, bad) -> list[Call] | None:
    if "gold" not in obj:
        bad('missing "gold": the list of ground-truth calls ([] when no tool should be called)')
        return None
    items = obj["gold"]
    if not isinstance(items, list):
        bad('"gold" must be a list of calls')
        return None
    calls: list[Call] = []
    ok = True
    for i, item in enumerate(items):
        call = _one_call(item, f"gold[{i}]", toolkit, bad)
        if call is None:
            ok = False
            continue
        spec = toolkit.tools.get(call.tool)
        if spec is None:
            bad(f"gold[{i}]: unknown tool {call.tool!r}; the tools are: {', '.join(toolkit.names())}")
            ok = False
            continue
        message = spec.arg_problem(call.args)
        if message:
            bad(f"gold[{i}]: {message}")
            ok = False
        offered = manifest.domain_tools.get(domain) if manifest.offer == "domain" else None
        if offered is not None and call.tool not in offered:
            bad(f"gold[{i}]: tool {call.tool!r} is not offered in domain {domain!r} (see benchmark.json)")
            ok = False
        calls.append(call)
    return calls if ok else None


def _one_call(item: Any, where: str, toolkit: Toolkit, bad) -> Call | None:
    if isinstance(item, str):
        if len(item) > MAX_CALL_CHARS:
            bad(f"{where}: the call string is {len(item):,} characters long; the limit is {MAX_CALL_CHARS:,}")
            return None
        try:
            return parse_call(item, _positional(item, toolkit))
        except CallParseError as exc:
            bad(f"{where}: bad call string: {exc}")
            return None
    if isinstance(item, dict):
        extra = sorted(set(item) - {"tool", "args"})
        if extra:
            bad(f'{where}: unknown key(s) {", ".join(extra)}; a call is {{"tool": ..., "args": {{...}}}}')
            return None
        tool, args = item.get("tool"), item.get("args", {})
        if not isinstance(tool, str) or not tool:
            bad(f'{where}: "tool" must be a tool name')
            return None
        if not isinstance(args, dict):
            bad(f'{where}: "args" must be an object of argument names to values')
            return None
        return Call(tool, dict(args))
    bad(f'{where}: a call is a string like "tool(a=1)" or an object {{"tool": ..., "args": {{...}}}}')
    return None


def _positional(text: str, toolkit: Toolkit) -> tuple[str, ...] | None:
    """The parameter order of the called tool, so `convert(3, "km")` can be read by position."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in toolkit.tools:
        return toolkit.tools[node.func.id].params
    return None
