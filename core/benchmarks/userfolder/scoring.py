"""Per-task scoring options (the `scoring` key of a tasks.jsonl line, for benchmark folders and MCP tasks).

Why: one fixed rule cannot judge every task fairly. A task whose gold calls
look an order up before cancelling it should not fail an agent that cancels the
right order without the look-up; a hand-off summary written for a human cannot
be expected verbatim; a question the agent answers from look-ups has no write
to check. The options say, per task, what the task's author means:

- `mode`: `auto`, `state` or `calls` (overrides the manifest's `scoring`);
- `reads`: `required` or `allowed` — whether the gold's read calls (gold calls
  that leave the state unchanged in the gold replay; for an MCP server, calls
  of tools it annotates `readOnlyHint`) must be made. Default:
  `allowed` in end-state mode (only the outcome counts), `required` in
  call-matching mode (the look-ups are the task);
- `allowed_reads`: further tools the agent may call to look things up;
- `required_reads`: tools the agent must call even when reads are allowed (the
  tool must be invoked; which of the gold's look-ups it repeats is free);
- `ignore_args`: `{tool: [argument, ...]}` left out when calls are compared;
- `loose_args`: `{tool: [argument, ...]}` compared loosely (case, spacing,
  quotes and number formatting do not matter).

The gold tool set of TC is the tools of the gold's writing calls, plus the
tools of its read calls when reads are required, plus `required_reads`; the
predicted set is the tools the agent invoked successfully, leaving out the
allowed reads that are not required. TC stays "predicted set equals gold set".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.benchmarks.base import Call, Task
from core.benchmarks.credit import loose_value
from core.benchmarks.userfolder.errors import Problems

OPTION_KEYS = ("mode", "reads", "allowed_reads", "required_reads", "ignore_args", "loose_args")
MODES = ("auto", "state", "calls")
READS = ("required", "allowed")


@dataclass(frozen=True)
class ScoringOptions:
    """What one task's author said about scoring it (empty: the defaults)."""

    mode: str | None = None
    reads: str | None = None
    allowed_reads: tuple[str, ...] = ()
    required_reads: tuple[str, ...] = ()
    ignore_args: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    loose_args: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in OPTION_KEYS:
            value = getattr(self, key)
            if value:
                out[key] = {k: list(v) for k, v in value.items()} if isinstance(value, Mapping) else value
        for key in ("allowed_reads", "required_reads"):
            if key in out:
                out[key] = list(out[key])
        return out

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> ScoringOptions:
        """The options a loaded task carries in `meta["scoring"]` (validated when the folder loaded)."""
        raw = meta.get("scoring") or {}
        return cls(
            mode=raw.get("mode"),
            reads=raw.get("reads"),
            allowed_reads=tuple(raw.get("allowed_reads") or ()),
            required_reads=tuple(raw.get("required_reads") or ()),
            ignore_args={k: tuple(v) for k, v in (raw.get("ignore_args") or {}).items()},
            loose_args={k: tuple(v) for k, v in (raw.get("loose_args") or {}).items()},
        )


def parse_options(
    raw: Any, params: Mapping[str, Sequence[str]], bad: Callable[[str], None]
) -> ScoringOptions | None:
    """Validate a task's `scoring` object against the tools (`params`: tool -> parameter names).

    Every defect goes to `bad` as one message naming the field; None when any was found.
    """
    if not isinstance(raw, dict):
        bad('"scoring" must be an object, e.g. {"mode": "state", "reads": "allowed"}')
        return None
    ok = True

    def fail(message: str) -> None:
        nonlocal ok
        ok = False
        bad(f"scoring: {message}")

    unknown = sorted(set(raw) - set(OPTION_KEYS))
    if unknown:
        fail(f"unknown key(s) {', '.join(unknown)}; the options are: {', '.join(OPTION_KEYS)}")
    for key, allowed in (("mode", MODES), ("reads", READS)):
        if key in raw and raw[key] not in allowed:
            fail(f'"{key}" must be one of {", ".join(allowed)}, not {raw[key]!r}')
    lists = {k: _tool_list(raw, k, params, fail) for k in ("allowed_reads", "required_reads")}
    maps = {k: _arg_map(raw, k, params, fail) for k in ("ignore_args", "loose_args")}
    if not ok:
        return None
    return ScoringOptions(
        mode=raw.get("mode"),
        reads=raw.get("reads"),
        allowed_reads=lists["allowed_reads"],
        required_reads=lists["required_reads"],
        ignore_args=maps["ignore_args"],
        loose_args=maps["loose_args"],
    )


def _tool_list(
    raw: Mapping[str, Any], key: str, params: Mapping[str, Sequence[str]], fail: Callable[[str], None]
) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        fail(f'"{key}" must be a list of tool names')
        return ()
    for name in value:
        if name not in params:
            fail(f'"{key}": unknown tool {name!r}; the tools are: {", ".join(params)}')
    return tuple(dict.fromkeys(value))


def _arg_map(
    raw: Mapping[str, Any], key: str, params: Mapping[str, Sequence[str]], fail: Callable[[str], None]
) -> dict[str, tuple[str, ...]]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        fail(f'"{key}" must be an object of tool names to lists of argument names')
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for tool, args in value.items():
        if tool not in params:
            fail(f'"{key}": unknown tool {tool!r}; the tools are: {", ".join(params)}')
            continue
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            fail(f'"{key}.{tool}" must be a list of argument names')
            continue
        for arg in args:
            if arg not in params[tool]:
                fail(
                    f'"{key}.{tool}": {tool}() has no argument {arg!r} (its parameters are: '
                    f"{', '.join(params[tool])})"
                )
        out[tool] = tuple(args)
    return out


def with_scoring_options(
    task: Task,
    params: dict[str, tuple[str, ...]],
    defaults: dict[str, Any],
    problems: Problems,
    rel: str = "tasks.jsonl",
) -> Task:
    """The task with its scoring options (the manifest's `task_scoring`, overridden key by key by the
    task's own `scoring`) validated and kept, normalised, in `meta["scoring"]`."""
    own = task.meta.get("scoring", {})
    if not own and not defaults:
        return task
    line = task.meta.get("line")
    merged = {**defaults, **own} if isinstance(own, dict) else own
    opts = parse_options(merged, params, lambda m: problems.add(rel, m, line))
    if opts is None:
        return task
    return replace(task, meta={**task.meta, "scoring": opts.to_json()})


# ---------------------------------------------------------------------------- the rules
@dataclass(frozen=True)
class ToolSets:
    """Which tools a task needs (the gold tool set of TC) and which it merely allows."""

    required: frozenset[str]
    allowed: frozenset[str]  # may be called or not; never part of either side of TC
    required_calls: tuple[Call, ...]  # gold calls that must appear among the agent's calls

    def predicted(self, calls: Sequence[Call]) -> set[str]:
        """The tools the agent invoked successfully, without the allowed look-ups."""
        return {c.tool for c in calls if c.error is None} - self.allowed


def reads_mode(opts: ScoringOptions, mode: str) -> str:
    """Whether the gold's read calls must be made: the task's choice, else by scoring mode."""
    return opts.reads or ("allowed" if mode == "state" else "required")


def tool_sets(gold: Sequence[Call], writes: Sequence[bool], opts: ScoringOptions, mode: str) -> ToolSets:
    """The gold tool set and the allowed tools of one task (see the module docstring).

    `writes[i]` says whether gold call i changed the state in the gold replay.
    """
    reads_required = reads_mode(opts, mode) == "required"
    needed = [c for c, w in zip(gold, writes, strict=True) if w or reads_required]
    required = {c.tool for c in needed} | set(opts.required_reads)
    read_tools = {c.tool for c, w in zip(gold, writes, strict=True) if not w}
    allowed = (read_tools | set(opts.allowed_reads)) - required
    distinct = tuple({c.key(): c for c in needed}.values())
    return ToolSets(frozenset(required), frozenset(allowed), distinct)


def missing_reads(gold: Sequence[Call], writes: Sequence[bool], missing: Sequence[Call]) -> list[Call]:
    """The missing gold calls that are reads: in end-state mode the outcome judges the writes, so
    only a required look-up left out (or, below, a required read tool never invoked) fails the task."""
    reads = {c.key() for c, w in zip(gold, writes, strict=True) if not w}
    return [g for g in missing if g.key() in reads]


def looked_up(opts: ScoringOptions, invoked: Sequence[Call]) -> bool:
    """Whether every `required_reads` tool was invoked successfully."""
    return set(opts.required_reads) <= {c.tool for c in invoked}


def comparable(tool: str, args: Mapping[str, Any], opts: ScoringOptions) -> dict[str, Any]:
    """Arguments as the task compares them: ignored ones left out, loose ones normalised."""
    ignore = set(opts.ignore_args.get(tool, ()))
    loose = set(opts.loose_args.get(tool, ()))
    return {k: (loose_value(v) if k in loose else v) for k, v in args.items() if k not in ignore}
