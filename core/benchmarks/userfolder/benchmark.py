"""A loaded user benchmark: the `Benchmark` protocol over a validated folder.

Scoring (documented for users in docs/user-benchmarks.md):

- Each task's gold calls are replayed once on a fresh copy of the initial
  state; that replay gives the *gold end state*.
- The agent's end state is the state its episode left (or, when scoring calls
  without a live sandbox, the replay of its calls on a fresh state).
- `state` mode: success iff the agent's end state equals the gold end state.
- `calls` mode: success iff every required gold call appears among the
  agent's successful calls (same tool, same arguments once defaults are filled
  in and the task's ignored / loose arguments applied), TC holds, and the agent
  left the state as the gold calls do (so a read-only task with an unwanted
  write fails).
- `auto` (default) picks per task: `state` when the gold calls change the
  state, `calls` otherwise. A task's `scoring` options (core.benchmarks.
  userfolder.scoring) override the mode and say which reads are required.
- TC (tool correctness): the set of tools the agent invoked successfully (a
  call that raised is no invocation), less the allowed look-ups, equals the
  task's gold tool set.
The final answer text is not scored.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.benchmarks.base import Call, Sandbox, SandboxUnavailable, Score, Task, ToolError
from core.benchmarks.userfolder.manifest import Manifest
from core.benchmarks.userfolder.scoring import (
    ScoringOptions,
    comparable,
    looked_up,
    missing_reads,
    reads_mode,
    tool_sets,
)
from core.benchmarks.userfolder.state import fresh_state
from core.benchmarks.userfolder.toolkit import Toolkit, ToolSpec
from core.docs import DocSet
from core.sandbox import Reply, ToolFailure, ToolRaised, WorkerUnavailable


class ToolCrash(ToolError):
    """The user's tool raised (or ended, or overran, its worker); the agent observes the message."""

    error_class = "tool_crash"


def render_observation(value: Any) -> str:
    """What the agent sees: strings as they are, anything else as JSON (None becomes null)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


class UserSandbox:
    """One episode: a private copy of the initial state and the tools offered for the task.

    The tools run in the benchmark's worker processes; the state travels with
    each call as JSON data and comes back changed, so it stays here, in the
    episode, and a worker that dies loses nothing but the call it was running.
    """

    accepts_timeout = True  # EpisodeContext passes the episode's remaining time to `execute`

    def __init__(self, bench: UserBenchmark, offered: Sequence[str]) -> None:
        self.bench = bench
        self.state: dict[str, Any] = fresh_state(bench.initial_state)
        self.offered = tuple(offered)
        self.calls: list[Call] = []
        self.writes: list[bool] = []  # per call: did it change the state (successful or not)
        self.errors: list[str | None] = []  # per call: what it raised, if it did
        self.crashes: list[str] = []
        # Calls of one episode run one after the other: parallel tool calls of one model reply
        # would otherwise each take the same state to a worker and the last reply would win.
        self._lock = threading.Lock()

    def execute_raw(self, call: Call, *, timeout_s: float | None = None) -> Reply:
        """Run one call; bad calls and tool failures raise ToolError (with its error class)."""
        with self._lock:
            return self._execute(call, timeout_s)

    def _execute(self, call: Call, timeout_s: float | None) -> Reply:
        self.calls.append(call)
        before = self.state  # a call replaces the dict, it never mutates this one
        error: str | None = None
        try:
            return self._run(call, timeout_s)
        except ToolError as exc:
            error = str(exc) or type(exc).__name__
            raise
        finally:
            self.writes.append(self.state != before)
            self.errors.append(error)

    def _run(self, call: Call, timeout_s: float | None) -> Reply:
        spec = self.bench.toolkit.tools.get(call.tool)
        if spec is None or call.tool not in self.offered:
            raise ToolError(
                f"unknown tool {call.tool!r}; available tools: {', '.join(self.offered)}", "unknown_tool"
            )
        problem = spec.arg_problem(call.args)
        if problem:
            raise ToolError(problem, "bad_arguments")
        try:
            reply = self.bench.toolkit.invoke(spec, call.args, self.state, timeout_s=timeout_s)
        except ToolRaised as exc:
            if spec.takes_state and isinstance(exc.state, dict):
                self.state = exc.state  # what the tool changed before raising stays changed
            self.crashes.append(str(exc))
            raise ToolCrash(str(exc)) from None
        except ToolFailure as exc:
            self.crashes.append(str(exc))
            raise ToolCrash(str(exc), exc.error_class) from None
        except WorkerUnavailable as exc:
            raise SandboxUnavailable(f"{self.bench.name}: {exc}") from exc
        if spec.takes_state and isinstance(reply.state, dict):
            self.state = reply.state
        return reply

    def execute(self, call: Call, *, timeout_s: float | None = None) -> str:
        return self.execute_raw(call, timeout_s=timeout_s).text


@dataclass(frozen=True)
class GoldRun:
    """The gold calls of a task replayed on a fresh state."""

    state: dict[str, Any]
    errors: tuple[str, ...]  # gold calls that raised (a defect `check` reports)
    mutates: bool
    writes: tuple[bool, ...] = ()  # per gold call: did it change the state (else it is a read)


class UserBenchmark:
    """A benchmark read from a user's folder; build it with `load_user_benchmark`."""

    def __init__(
        self,
        folder: Path,
        manifest: Manifest,
        toolkit: Toolkit,
        tasks: list[Task],
        initial_state: dict[str, Any],
        fingerprint: str,
    ) -> None:
        self.folder = folder
        self.manifest = manifest
        self.description = manifest.description
        self.toolkit = toolkit
        self.initial_state = initial_state
        self.fingerprint = fingerprint
        # The name a benchmark is stored under carries the folder's fingerprint: two folders that
        # share a manifest name never merge, and an edited folder is a new version whose task rows
        # are its own (the episodes of the old version stay with the old tasks).
        self.display_name = manifest.name
        self.name = f"{manifest.name}@{fingerprint[:8]}"
        # episodes of an edited folder must not be mistaken for the old ones
        self.key = f"user/{manifest.name}@{fingerprint[:12]}"
        self._tasks = list(tasks)
        self._by_id = {t.task_id: t for t in tasks}
        self._gold: dict[str, GoldRun] = {}
        self._lock = threading.Lock()

    @property
    def warehouse_info(self) -> dict[str, Any]:
        """What the warehouse keeps about this benchmark: where it came from, so it can be loaded again."""
        return {
            "folder": str(self.folder.resolve()),
            "key": self.key,
            "display_name": self.display_name,
            "fingerprint": self.fingerprint,
        }

    def close(self) -> None:
        """Stop the worker processes of this benchmark's tools (they also stop with the process)."""
        self.toolkit.close()

    def __repr__(self) -> str:
        return (
            f"UserBenchmark({str(self.folder)!r}, {len(self.toolkit.tools)} tools, {len(self._tasks)} tasks)"
        )

    # ------------------------------------------------------------------ catalogue
    def tool_names(self) -> list[str]:
        return self.toolkit.names()

    def tool(self, name: str) -> ToolSpec:
        return self.toolkit.tools[name]

    def original_docs(self) -> DocSet:
        return DocSet([s.doc for s in self.toolkit.tools.values()], name=f"{self.display_name}/original")

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    def task(self, task_id: str) -> Task:
        try:
            return self._by_id[task_id]
        except KeyError:
            raise KeyError(f"no task {task_id!r} in {self.name}") from None

    def domains(self) -> list[str]:
        if self.manifest.domains:
            return list(self.manifest.domains)
        return sorted({t.domain for t in self._tasks})

    def tools_for(self, task: Task) -> list[str]:
        if self.manifest.offer == "domain":
            return list(self.manifest.domain_tools.get(task.domain, ()))
        return self.tool_names()

    def system_prompt(self, task: Task) -> str:
        return self.manifest.system_prompt

    # ------------------------------------------------------------------ episodes
    def new_sandbox(self, task: Task | None = None) -> UserSandbox:
        return UserSandbox(self, self.tools_for(task) if task is not None else self.tool_names())

    def replay(self, calls: Sequence[Call]) -> UserSandbox:
        """A fresh sandbox (all tools offered) after running `calls`; failures are kept in `crashes`."""
        sandbox = UserSandbox(self, self.tool_names())
        for call in calls:
            try:
                sandbox.execute_raw(call)
            except ToolError as exc:
                if not isinstance(exc, ToolCrash):
                    sandbox.crashes.append(str(exc))
        return sandbox

    def gold_run(self, task: Task) -> GoldRun:
        """The task's gold replay, computed once (the runner scores from several threads)."""
        with self._lock:
            run = self._gold.get(task.task_id)
            if run is None:
                sb = self.replay(task.gold)
                run = GoldRun(sb.state, tuple(sb.crashes), sb.state != self.initial_state, tuple(sb.writes))
                self._gold[task.task_id] = run
            return run

    def remember_gold(self, task: Task, replayed: UserSandbox) -> None:
        """Use a sandbox that ran exactly the task's gold calls as its gold run (unless one is known)."""
        with self._lock:
            if task.task_id not in self._gold and list(replayed.calls) == list(task.gold):
                self._gold[task.task_id] = GoldRun(
                    fresh_state(replayed.state),
                    tuple(replayed.crashes),
                    replayed.state != self.initial_state,
                    tuple(replayed.writes),
                )

    def mode_for(self, task: Task) -> str:
        """'state' or 'calls' for this task (see the module docstring)."""
        chosen = ScoringOptions.from_meta(task.meta).mode or self.manifest.scoring
        if chosen != "auto":
            return chosen
        return "state" if self.gold_run(task).mutates else "calls"

    def score(
        self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Sandbox | None = None
    ) -> Score:
        gold = self.gold_run(task)
        live = isinstance(sandbox, UserSandbox) and sandbox.bench is self
        ran: UserSandbox = sandbox if live else self.replay(calls)  # type: ignore[assignment]
        agent_state = ran.state  # re-scoring stored calls replays them on a fresh state
        if list(ran.calls) == list(calls):  # the sandbox saw these calls: it knows which ones raised
            calls = [
                c if c.error is not None else replace(c, error=e)
                for c, e in zip(calls, ran.errors, strict=True)
            ]
        mode = self.mode_for(task)
        opts = ScoringOptions.from_meta(task.meta)
        writes = gold.writes or _all_writes(task, gold)
        sets = tool_sets(task.gold, writes, opts, mode)
        invoked = [c for c in calls if c.error is None]
        differing = _differing(agent_state, self._expected_state(task, invoked, opts, gold))
        tool_correct = sets.predicted(calls) == sets.required
        missing = [g for g in sets.required_calls if not any(self._same(g, c, opts) for c in invoked)]
        state_ok = not differing
        if mode == "state":  # the outcome, plus the look-ups the task insists on
            success = state_ok and not missing_reads(task.gold, writes, missing) and looked_up(opts, invoked)
        else:
            success = state_ok and tool_correct and not missing
        details: dict[str, Any] = {
            "mode": mode,
            "reads": reads_mode(opts, mode),
            "state_match": state_ok,
            "differing_state": differing,
            "missing_gold_calls": [c.render() for c in missing],
            "gold_tools": sorted(sets.required),
            "n_calls": len(calls),
        }
        if sets.allowed:
            details["allowed_tools"] = sorted(sets.allowed)
        failed = [c.render() for c in calls if c.error is not None]
        if failed:
            details["raised_calls"] = failed
        if live and sandbox.crashes:  # type: ignore[union-attr]
            details["tool_errors"] = list(sandbox.crashes)  # type: ignore[union-attr]
        if gold.errors:
            details["gold_errors"] = list(gold.errors)
        return Score(success, tool_correct, details)

    def _expected_state(
        self, task: Task, invoked: Sequence[Call], opts: ScoringOptions, gold: GoldRun
    ) -> dict[str, Any]:
        """The gold end state, or, when the task ignores or loosens arguments, the end state of the
        gold calls with the agent's values for those arguments: a free-text summary the agent wrote
        differently must not make the state differ either."""
        if not (opts.ignore_args or opts.loose_args):
            return gold.state
        effective = [next((c for c in invoked if self._same(g, c, opts)), g) for g in task.gold]
        if all(dict(e.args) == dict(g.args) for e, g in zip(effective, task.gold, strict=True)):
            return gold.state
        return self.replay(effective).state

    def _same(self, gold: Call, call: Call, opts: ScoringOptions) -> bool:
        if gold.tool != call.tool:
            return False
        spec = self.toolkit.tools.get(gold.tool)
        want, got = (
            (dict(gold.args), dict(call.args))
            if spec is None
            else (
                spec.normalise(gold.args),
                spec.normalise(call.args),
            )
        )
        return comparable(gold.tool, want, opts) == comparable(gold.tool, got, opts)


def _all_writes(task: Task, gold: GoldRun) -> tuple[bool, ...]:
    """Without per-call effects (a gold run made elsewhere), every gold call counts as a write
    when the gold changes the state, and as a read otherwise."""
    return tuple(gold.mutates for _ in task.gold)


def _differing(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Top-level state keys whose values differ (a key present on one side only counts)."""
    return sorted(str(k) for k in set(a) | set(b) if k not in a or k not in b or a[k] != b[k])
