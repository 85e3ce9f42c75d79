"""The Benchmark protocol shared by WorkBench, API-Bank and users' own tool folders.

Calls are data (a tool name and an argument dict). Text that looks like a call
(`tool(a=1, b="x")`) is parsed with `ast`, never evaluated, because it comes from
datasets and from models.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from core.docs import DocSet


class CallParseError(ValueError):
    """Text that is not a single well-formed tool call."""


@dataclass(frozen=True)
class Call:
    """One tool call: the tool's dispatch key and its keyword arguments.

    `error` is set on an agent's call that raised (the tool rejected or crashed
    on it): such a call is not a successful invocation, so it never enters the
    predicted tool set of TC. It takes no part in equality, so a failed call
    still compares equal to the same call that succeeded.
    """

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "args": dict(self.args)}
        if self.error is not None:
            out["error"] = self.error
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Call:
        error = data.get("error")
        return cls(str(data["tool"]), dict(data.get("args") or {}), None if error is None else str(error))

    def render(self) -> str:
        """Python-call text, e.g. `email.send_email(to="a@b.c")`."""
        inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.args.items())
        return f"{self.tool}({inner})"

    def key(self) -> str:
        """Canonical text used to compare calls for equality."""
        return json.dumps([self.tool, dict(self.args)], sort_keys=True, ensure_ascii=False, default=str)


def invoked(calls: Sequence[Call]) -> list[Call]:
    """The calls that were successful invocations (did not raise): what TC's predicted set is made of."""
    return [c for c in calls if c.error is None]


def _literal(node: ast.AST, text: str) -> Any:
    try:
        return ast.literal_eval(node)
    except RecursionError:
        raise CallParseError(f"argument nested too deeply in {text[:200]!r}") from None
    except (ValueError, SyntaxError, TypeError) as exc:
        raise CallParseError(f"argument is not a literal in {text!r}: {ast.unparse(node)}") from exc


def parse_call(text: str, positional: Sequence[str] | None = None) -> Call:
    """Parse `dotted.name(arg=literal, ...)` with `ast`.

    Positional arguments are mapped onto `positional` names when given, and
    rejected otherwise. Only literals are accepted as values.
    """
    src = text.strip()
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as exc:
        raise CallParseError(f"not a call: {src[:200]!r} ({exc.msg})") from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurdly deep expressions
        raise CallParseError(f"not a call: {src[:200]!r} ({type(exc).__name__})") from None
    node = tree.body
    if not isinstance(node, ast.Call):
        raise CallParseError(f"not a call: {src!r}")
    name = _dotted(node.func)
    if name is None:
        raise CallParseError(f"call target is not a name: {src!r}")
    args: dict[str, Any] = {}
    if node.args:
        if positional is None or len(node.args) > len(positional):
            raise CallParseError(f"unexpected positional arguments in {src!r}")
        for pname, value in zip(positional, node.args, strict=False):
            args[pname] = _literal(value, src)
    for kw in node.keywords:
        if kw.arg is None:
            raise CallParseError(f"**kwargs not allowed in {src!r}")
        args[kw.arg] = _literal(kw.value, src)
    return Call(name, args)


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


@dataclass(frozen=True)
class Task:
    """One task: a query, the ground-truth calls and the tools they use."""

    task_id: str
    domain: str
    query: str
    gold: tuple[Call, ...]
    tools: tuple[str, ...]  # tools whose ground truth uses them (a task may belong to several)
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "domain": self.domain,
            "query": self.query,
            "gold": [c.to_json() for c in self.gold],
            "tools": list(self.tools),
            "meta": dict(self.meta),
        }


@dataclass(frozen=True)
class Score:
    """Outcome of one episode: task success (TS), tool correctness (TC) and details."""

    success: bool
    tool_correct: bool
    details: Mapping[str, Any] = field(default_factory=dict)


class ToolError(Exception):
    """A tool rejected its call; the message is what the agent observes.

    `error_class` names the kind of failure in the trace: `tool_error` (the
    tool refused), `bad_arguments`, `unknown_tool`, `tool_crash` (the tool's
    code raised or ended its worker), `tool_timeout`.
    """

    error_class = "tool_error"

    def __init__(self, message: str = "", error_class: str | None = None) -> None:
        super().__init__(message)
        if error_class:
            self.error_class = error_class


class InfrastructureError(Exception):
    """A failure that is not the agent's doing: a missing model, a rejected key, a provider
    outage after retries, a sandbox that could not start.

    The runner never stores such an episode as the agent's failure: a `fatal`
    one (nothing will work until someone fixes it: missing model, bad key)
    stops the run with its message; any other is recorded as an
    infrastructure failure, left out of TS/TC and run again next time.
    """

    error_class = "infra_error"
    fatal = False

    def __init__(self, message: str, error_class: str | None = None, *, fatal: bool | None = None) -> None:
        super().__init__(message)
        if error_class:
            self.error_class = error_class
        if fatal is not None:
            self.fatal = fatal


class SandboxUnavailable(InfrastructureError):
    """The process that runs a benchmark's tools could not be started."""

    error_class = "infra_sandbox"


@dataclass(frozen=True)
class InnerCall:
    """An atomic call a composite tool (an EvoSOP SOP) made on the sandbox while it ran.

    A sandbox that runs composite tools hands these out through an optional
    `take_inner_calls() -> list[InnerCall]` after each call; whoever drives the
    episode (EvoSOP wraps the agent for this) records each one as a tool-call
    event under its parent and adds it to the episode's calls, so end-state
    and call-matching scorers see the atomic calls that changed the state.
    """

    call: Call
    output: str | None = None
    error: str | None = None
    latency_s: float = 0.0


@runtime_checkable
class Sandbox(Protocol):
    """Fresh, isolated tool state for one episode."""

    def execute(self, call: Call) -> str:
        """Run one call and return the observation text. Raises ToolError on bad calls."""
        ...


@runtime_checkable
class Benchmark(Protocol):
    """What the runner, the optimizer and the UI need from a benchmark.

    Optional hooks the optimizer uses when a benchmark has them (it never
    imports a benchmark's internals): `tool_signature(tool) -> list[dict] |
    None`, the parameters as the implementation defines them (keys of
    `core.chisel.introspect.ParamSig`); `tool_function(tool) -> callable`;
    and `is_error_output(text) -> bool`, for tools that report rejections as
    output text.
    """

    name: str

    def tool_names(self) -> list[str]: ...

    def original_docs(self) -> DocSet: ...

    def tasks(self) -> list[Task]: ...

    def domains(self) -> list[str]: ...

    def tools_for(self, task: Task) -> list[str]:
        """The tools offered to the agent for this task (variant-dependent)."""
        ...

    def system_prompt(self, task: Task) -> str:
        """Benchmark-specific instructions (e.g. WorkBench's fixed clock sentence)."""
        ...

    def new_sandbox(self, task: Task) -> Sandbox: ...

    def score(self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Sandbox) -> Score:
        """Score an episode from the calls the agent made (in order) and its end state."""
        ...


# The version of the scoring rules, stored with every score as `details["scoring"]`. Version 2:
# TC's predicted set holds only successful invocations (a call that raised is none), and benchmark
# folders' per-task scoring options decide their gold tool set. Scores without the key are version 1;
# `docschisel rescore` brings stored episodes to this version from their traces.
SCORING_VERSION = 2


# The built-in benchmark names (what `get_benchmark` accepts besides a folder path).
BUILTIN: dict[str, str] = {
    "workbench": "WorkBench, 690 tasks in 5 domains + multi-domain; each task is offered its domains' tools",
    "workbench-all": "WorkBench with all 27 tools offered on every task",
    "api-bank": "API-Bank level-1 (finance, health, information, smart_home); the domain's APIs are offered",
    "api-bank-upstream": "API-Bank level-1 offering the APIs the upstream sample shows",
}
