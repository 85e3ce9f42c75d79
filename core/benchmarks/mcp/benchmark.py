"""An MCP server as a benchmark: its tools from `tools/list`, calls through `tools/call`.

Isolation. By default every episode gets a fresh server process (stdio), so
episodes never see each other's writes; `{tmp}` in the manifest's `env` gives
each process its own scratch folder (servers that keep state in a file). A
manifest that names a `reset_tool` (required for a stateful HTTP server)
shares one server between episodes instead: an episode holds it alone, from
its first call to its end, and resets it first.

Scoring (per task; `scoring` in the manifest forces one mode):

- `state` when the task names a `check`: a read-only tool called after the
  episode on the episode's server; success iff its answer equals the task's
  `expected` value, or, without one, the answer after replaying the gold calls
  on a fresh server. Answers compare as JSON when both parse, else as text.
- `calls` otherwise: success iff every distinct gold call was made (arguments
  compared with the schema's defaults filled in) and the agent used exactly
  the gold tool set.
- A server that crashed, timed out or broke the protocol during the episode
  fails it, with the failure's class (`mcp_crash`, `mcp_timeout`,
  `mcp_protocol`) as the episode's error class.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.benchmarks.base import Call, Score, Task, ToolError, invoked
from core.benchmarks.mcp.manifest import McpManifest
from core.benchmarks.userfolder import scoring as rules
from core.docs import DocSet, ToolDoc
from core.mcp.session import McpFailure, McpSession, ServerSpec

LOCK_WAIT_S = 600.0  # how long an episode waits for a shared server another episode holds


@dataclass(frozen=True)
class McpTool:
    """One server tool: its wire definition and what its input schema accepts."""

    name: str
    definition: dict[str, Any]
    doc: ToolDoc
    params: tuple[str, ...]
    required: tuple[str, ...]
    defaults: Mapping[str, Any]

    def normalise(self, args: Mapping[str, Any]) -> dict[str, Any]:
        return {**self.defaults, **dict(args)}


@dataclass(frozen=True)
class GoldRun:
    """A task's gold calls replayed on a fresh server: the check's answer and any call that failed."""

    answer: str | None
    errors: tuple[str, ...]


class McpSandbox:
    """One episode's connection to the server; calls the agent makes go to `tools/call` unchanged."""

    accepts_timeout = True  # EpisodeContext passes the episode's remaining time to `execute`

    def __init__(
        self, bench: McpBenchmark, offered: Sequence[str], *, setup: bool = True, held: bool = False
    ) -> None:
        self.bench = bench
        self._held = held  # the caller already holds the shared server (a gold replay inside scoring)
        self.offered = tuple(offered)
        self.calls: list[Call] = []
        self.tool_errors: list[str] = []
        self.failure: McpFailure | None = None
        self._session: McpSession | None = None
        self._holds_lock = False
        self._tmp: str | None = None
        self._setup = setup
        self._closed = False

    # ------------------------------------------------------------------ connection
    def session(self) -> McpSession:
        """The episode's server, started (or taken and reset) on first use."""
        if self._closed:
            raise McpFailure("mcp_closed", "the episode's MCP session is closed")
        if self._session is not None:
            return self._session
        bench = self.bench
        if bench.shared:
            if not self._held:
                if not bench.lock.acquire(timeout=LOCK_WAIT_S):
                    raise McpFailure("mcp_busy", f"the shared server stayed busy for {LOCK_WAIT_S:.0f} s")
                self._holds_lock = True
            self._session = bench.shared_session()
            if bench.manifest.reset_tool:
                self._raw(bench.manifest.reset_tool, {})
        else:
            spec = bench.spec
            if any("{tmp}" in v for v in spec.env.values()) or any("{tmp}" in a for a in spec.command):
                self._tmp = tempfile.mkdtemp(prefix="docschisel-mcp-")
                spec = _with_tmp(spec, self._tmp)
            self._session = McpSession(
                spec,
                start_timeout_s=bench.manifest.start_timeout_s,
                call_timeout_s=bench.manifest.call_timeout_s,
            ).open()
        if self._setup:
            for call in bench.manifest.setup:
                result = self._raw(call.tool, call.args)
                if result.is_error:
                    raise McpFailure("mcp_setup", f"setup call {call.render()} failed: {result.text}")
        return self._session

    def _raw(self, tool: str, args: Mapping[str, Any], timeout_s: float | None = None):
        assert self._session is not None
        return self._session.call_tool(tool, args, timeout_s=timeout_s)

    # ------------------------------------------------------------------ the agent's calls
    def execute(self, call: Call, *, timeout_s: float | None = None) -> str:
        """Run one call; tool errors and server failures raise ToolError with their class."""
        self.calls.append(call)
        if call.tool not in self.offered:
            raise ToolError(
                f"unknown tool {call.tool!r}; available tools: {', '.join(self.offered)}", "unknown_tool"
            )
        if self.failure is not None:
            raise ToolError(f"the MCP server is unavailable: {self.failure}", self.failure.error_class)
        try:
            self.session()
            result = self._raw(call.tool, call.args, timeout_s)
        except McpFailure as exc:
            self.failure = exc
            raise ToolError(str(exc), exc.error_class) from None
        if result.is_error:
            self.tool_errors.append(result.text)
            raise ToolError(result.text or f"{call.tool} failed", "tool_error")
        return result.text

    def check_answer(self, check: Mapping[str, Any]) -> str:
        """The answer of the task's read-only check tool on this episode's server (raises McpFailure)."""
        self.session()
        result = self._raw(check["tool"], check.get("args") or {})
        if result.is_error:
            raise McpFailure("mcp_check", f"the check {check['tool']} failed: {result.text}")
        return result.text

    def close(self) -> None:
        """End the episode: stop its server (or hand the shared one back) and remove its scratch folder."""
        if self._closed:
            return
        self._closed = True
        session, self._session = self._session, None
        if session is not None and not self.bench.shared:
            session.close()
        if self._holds_lock:
            self._holds_lock = False
            self.bench.lock.release()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def __del__(self) -> None:  # a sandbox nobody closed must not keep the shared server's lock
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass


class McpBenchmark:
    """The Benchmark protocol over a live MCP server and a tasks file; build it with `load_mcp_benchmark`."""

    def __init__(
        self,
        spec: ServerSpec,
        manifest: McpManifest,
        tools: list[McpTool],
        tasks: list[Task],
        fingerprint: str,
        source: dict[str, Any],
    ) -> None:
        self.spec = spec
        self.manifest = manifest
        self.description = manifest.description
        self.tools = {t.name: t for t in tools}
        self.fingerprint = fingerprint
        # where the server and the tasks came from (`source` is the registry's recipe to rebuild it)
        self.origin = source
        self.display_name = manifest.name
        self.name = f"{manifest.name}@{fingerprint[:8]}"
        self.key = f"mcp/{manifest.name}@{fingerprint[:12]}"
        self._tasks = list(tasks)
        self._by_id = {t.task_id: t for t in tasks}
        self._gold: dict[str, GoldRun] = {}
        self._gold_lock = threading.Lock()
        # held by the episode using the shared server, from its first call to its end; a plain lock,
        # because agents run tools in other threads than the one that ends the episode
        self.lock = threading.Lock()
        self.shared = bool(manifest.reset_tool) or (spec.is_http and manifest.stateless)
        self._shared_session: McpSession | None = None

    @property
    def warehouse_info(self) -> dict[str, Any]:
        """What the warehouse keeps: where the server and the tasks are, so the benchmark can be loaded again."""
        return {
            **self.origin,
            "key": self.key,
            "display_name": self.display_name,
            "fingerprint": self.fingerprint,
        }

    def __repr__(self) -> str:
        return f"McpBenchmark({self.spec.label()!r}, {len(self.tools)} tools, {len(self._tasks)} tasks)"

    # ------------------------------------------------------------------ catalogue
    def tool_names(self) -> list[str]:
        return list(self.tools)

    def tool_definition(self, tool: str) -> dict[str, Any]:
        """The server's own definition of a tool (wire JSON from tools/list)."""
        return self.tools[tool].definition

    def original_docs(self) -> DocSet:
        return DocSet([t.doc for t in self.tools.values()], name=f"{self.display_name}/original")

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def task(self, task_id: str) -> Task:
        return self._by_id[task_id]

    def domains(self) -> list[str]:
        return list(self.manifest.domains) or sorted({t.domain for t in self._tasks})

    def tools_for(self, task: Task) -> list[str]:
        if self.manifest.offer == "domain":
            return list(self.manifest.domain_tools.get(task.domain, ()))
        hidden = {self.manifest.reset_tool} - {None}
        return [t for t in self.tool_names() if t not in hidden]

    def system_prompt(self, task: Task) -> str:
        return self.manifest.system_prompt

    def tool_signature(self, tool: str) -> list[dict[str, Any]] | None:
        """Parameters as the server's input schema declares them."""
        spec = self.tools.get(tool)
        if spec is None:
            return None
        return [
            {
                "name": p.name,
                "type": p.type,
                "required": p.required,
                "has_default": p.has_default,
                "default": p.default,
                "source": "MCP inputSchema",
            }
            for p in spec.doc.parameters
        ]

    # ------------------------------------------------------------------ episodes
    def new_sandbox(self, task: Task | None = None) -> McpSandbox:
        offered = self.tools_for(task) if task is not None else self.tool_names()
        return McpSandbox(self, offered)

    def shared_session(self) -> McpSession:
        if self._shared_session is None or self._shared_session.broken is not None:
            if self._shared_session is not None:
                self._shared_session.close()
            self._shared_session = McpSession(
                self.spec,
                start_timeout_s=self.manifest.start_timeout_s,
                call_timeout_s=self.manifest.call_timeout_s,
            ).open()
        return self._shared_session

    def close(self) -> None:
        if self._shared_session is not None:
            self._shared_session.close()
            self._shared_session = None

    def mode_for(self, task: Task) -> str:
        chosen = rules.ScoringOptions.from_meta(task.meta).mode or self.manifest.scoring
        if chosen != "auto":
            return chosen
        return "state" if task.meta.get("check") else "calls"

    def read_only(self, tool: str) -> bool:
        """Whether the server annotates the tool as read-only (`readOnlyHint`): its gold calls are reads."""
        spec = self.tools.get(tool)
        annotations = (spec.definition.get("annotations") or {}) if spec is not None else {}
        return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True

    def replay(self, calls: Sequence[Call], *, held: bool = False) -> McpSandbox:
        """A fresh episode (all tools offered) after running `calls`; failures are kept on the sandbox."""
        sandbox = McpSandbox(self, self.tool_names(), held=held)
        for call in calls:
            try:
                sandbox.execute(call)
            except ToolError:
                if sandbox.failure is not None:
                    break
        return sandbox

    def gold_run(self, task: Task, *, held: bool = False) -> GoldRun:
        """The task's gold calls on a fresh server and the check's answer, once per task.

        `held`: the caller holds the shared server already (scoring an episode).
        """
        with self._gold_lock:
            if task.task_id in self._gold:
                return self._gold[task.task_id]
        sandbox = self.replay(task.gold, held=held)
        errors = list(sandbox.tool_errors) + ([str(sandbox.failure)] if sandbox.failure else [])
        answer = None
        check = task.meta.get("check")
        try:
            if check and sandbox.failure is None:
                answer = sandbox.check_answer(check)
        except McpFailure as exc:
            errors.append(str(exc))
        finally:
            sandbox.close()
        run = GoldRun(answer, tuple(errors))
        with self._gold_lock:
            self._gold[task.task_id] = run
        return run

    def score(
        self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Any = None
    ) -> Score:
        live = isinstance(sandbox, McpSandbox) and sandbox.bench is self
        own = None if live else self.replay(calls)
        box: McpSandbox = sandbox if live else own  # type: ignore[assignment]
        try:
            return self._score(task, calls, box)
        finally:
            if own is not None:
                own.close()

    def _score(self, task: Task, calls: Sequence[Call], box: McpSandbox) -> Score:
        mode = self.mode_for(task)
        opts = rules.ScoringOptions.from_meta(task.meta)
        # gold calls of tools the server annotates read-only are reads (core.benchmarks.userfolder.scoring)
        writes = [not self.read_only(c.tool) for c in task.gold]
        sets = rules.tool_sets(task.gold, writes, opts, mode)
        done = invoked(calls)  # a call that raised is no successful invocation (TC, matching)
        tool_correct = sets.predicted(calls) == sets.required
        missing = [g for g in sets.required_calls if not any(self._same(g, c, opts) for c in done)]
        details: dict[str, Any] = {"mode": mode, "missing_gold_calls": [c.render() for c in missing]}
        details.update(
            reads=rules.reads_mode(opts, mode), gold_tools=sorted(sets.required), n_calls=len(calls)
        )
        if sets.allowed:
            details["allowed_tools"] = sorted(sets.allowed)
        if box.tool_errors:
            details["tool_errors"] = list(box.tool_errors)
        failure = box.failure
        state_ok: bool | None = None
        check = task.meta.get("check")
        if check and failure is None:
            try:
                answer = box.check_answer(check)  # first: a gold replay may reset a shared server
            except McpFailure as exc:
                failure = exc
            else:
                held = self.shared and box._holds_lock
                expected = check["expected"] if "expected" in check else self.gold_run(task, held=held).answer
                state_ok = same_answer(answer, expected)
                details.update(state_match=state_ok, check_answer=_clip(answer), expected=_clip(expected))
        if failure is not None:
            details.update(error_class=failure.error_class, error=str(failure))
            return Score(False, tool_correct, details)
        if mode == "state":  # with a check, the outcome plus the look-ups the task insists on
            outcome = (
                bool(state_ok) and not rules.missing_reads(task.gold, writes, missing)
                if check
                else not missing
            )
            success = outcome and rules.looked_up(opts, done)
        else:
            success = tool_correct and not missing and state_ok is not False
        return Score(success, tool_correct, details)

    def _same(self, gold: Call, call: Call, opts: rules.ScoringOptions) -> bool:
        if gold.tool != call.tool:
            return False
        spec = self.tools.get(gold.tool)
        want, got = (
            (dict(gold.args), dict(call.args))
            if spec is None
            else (spec.normalise(gold.args), spec.normalise(call.args))
        )
        return rules.comparable(gold.tool, want, opts) == rules.comparable(gold.tool, got, opts)


def same_answer(answer: str | None, expected: Any) -> bool:
    """Check answers compare as JSON values when both sides parse, else as stripped text."""
    if answer is None:
        return False
    got = _as_json(answer)
    want = _as_json(expected) if isinstance(expected, str) else expected
    if got is not _NOT_JSON and want is not _NOT_JSON:
        return got == want
    return answer.strip() == (expected if isinstance(expected, str) else json.dumps(expected)).strip()


_NOT_JSON = object()


def _as_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return _NOT_JSON


def _clip(value: Any, limit: int = 2000) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + " …"


def _with_tmp(spec: ServerSpec, folder: str) -> ServerSpec:
    return replace(
        spec,
        command=tuple(a.replace("{tmp}", folder) for a in spec.command),
        env={k: v.replace("{tmp}", folder) for k, v in spec.env.items()},
    )


def tool_from_definition(definition: dict[str, Any], doc: ToolDoc) -> McpTool:
    """What a tool's input schema accepts (names, required ones, defaults) next to its doc."""
    schema = definition.get("inputSchema") or {}
    props = schema.get("properties") or {}
    required = tuple(r for r in schema.get("required") or () if isinstance(r, str))
    defaults = {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}
    return McpTool(definition["name"], definition, doc, tuple(props), required, defaults)
