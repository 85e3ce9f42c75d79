"""What every agent paradigm shares: its configuration, the episode context and the trace recorder.

An agent only decides; the context executes. Tool calls go through
`EpisodeContext.execute`, which runs the sandbox, turns tool exceptions into
observations and records every step, so the trace is complete whatever the
paradigm and however the episode ends.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from core.benchmarks.base import Benchmark, Call, InfrastructureError, Sandbox, Task, ToolError
from core.docs import ToolDoc
from core.warehouse.records import Event, content_hash

PARADIGMS = ("react", "multi")
# Error classes of tool calls that were recorded but never reached a tool.
NOT_RUN = ("unknown_tool", "bad_arguments", "too_many_calls")
# How an episode's sampling seed is made (core.runner.episodes.episode_config): from the configured
# seed, the repeat and the task, so the tasks of one repeat draw independent samples.
SEEDING = "per-task"
DOC_MODES = ("native", "text")
# Models run in this process on this machine's CPUs (core.llm.local): their call time is the machine's.
LOCAL_PREFIX = "local/"


def default_max_calls_per_reply() -> int:
    """Tool calls executed per model reply ($DOCSCHISEL_MAX_CALLS_PER_REPLY, default 8)."""
    try:
        return max(1, int(os.environ.get("DOCSCHISEL_MAX_CALLS_PER_REPLY", "") or 8))
    except ValueError:
        return 8


class EpisodeFailure(Exception):
    """Ends an episode as a recorded failure; `error_class` names why."""

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class


@dataclass(frozen=True)
class AgentConfig:
    """Everything about the target agent that affects its behaviour (hashed into episode ids)."""

    paradigm: str = "react"
    model: str = "local/qwen2.5-coder-0.5b"
    doc_mode: str = "native"
    temperature: float = 0.0
    max_steps: int = 6
    time_limit_s: float = 180.0
    max_tokens: int = 256
    seed: int = 0
    retrieval_k: int | None = None
    retriever: str | None = None

    def __post_init__(self) -> None:
        if self.paradigm not in PARADIGMS:
            raise ValueError(f"unknown agent paradigm {self.paradigm!r}; expected one of {PARADIGMS}")
        if self.doc_mode not in DOC_MODES:
            raise ValueError(f"unknown doc mode {self.doc_mode!r}; expected one of {DOC_MODES}")
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """The settings plus the model's runtime identity (a local model's weights, llama.cpp build and
        grammar revision): what the stored configuration and the episode ids are made of, so a changed
        runtime makes new episodes instead of reusing the old ones."""
        from core.llm import model_identity

        out = self.to_json()
        runtime = model_identity(self.model)
        if runtime:
            out["runtime"] = runtime
        if self.temperature > 0:
            out["seeding"] = SEEDING  # which sample each episode draws (greedy replies need no seed)
        return out

    @property
    def config_id(self) -> str:
        return content_hash("agent_config", self.identity())

    @property
    def label(self) -> str:
        return f"{self.paradigm}/{self.doc_mode}"


@dataclass
class TraceRecorder:
    """Collects the ordered events of one episode and its token/cost totals."""

    events: list[Event] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0

    def add(self, kind: str, **kw: Any) -> Event:
        ev = Event(seq=len(self.events), kind=kind, **kw)
        self.events.append(ev)
        self.tokens_in += ev.tokens_in
        self.tokens_out += ev.tokens_out
        self.cost += ev.cost
        return ev

    def model_call(self, result: Any, messages: Sequence[dict[str, Any]], agent: str = "") -> Event:
        """Record one gateway result (core.llm LLMResult-like object)."""
        out: dict[str, Any] = {"content": getattr(result, "content", None)}
        calls = getattr(result, "tool_calls", None)
        if calls:
            out["tool_calls"] = [_jsonable_call(c) for c in calls]
        return self.add(
            "model_call",
            text=agent or None,
            payload={
                "messages_in": list(messages),
                "message_out": out,
                "model": getattr(result, "model", None),
            },
            tokens_in=int(getattr(result, "tokens_in", 0) or 0),
            tokens_out=int(getattr(result, "tokens_out", 0) or 0),
            latency_s=float(getattr(result, "latency_s", 0.0) or 0.0),
            cost=float(getattr(result, "cost", 0.0) or 0.0),
            cache_hit=bool(getattr(result, "cache_hit", False)),
        )


def _jsonable_call(c: Any) -> Any:
    if isinstance(c, dict):
        return c
    out = {k: getattr(c, k, None) for k in ("id", "name", "arguments")}
    if getattr(c, "parse_error", None):  # show what the model wrote, not an empty argument object
        out["raw"] = getattr(c, "raw", None)
        out["parse_error"] = c.parse_error
    return out


@dataclass
class EpisodeContext:
    """One episode: the task, the offered tools' docs, a fresh sandbox and the recorder."""

    task: Task
    benchmark: Benchmark
    docs: list[ToolDoc]
    sandbox: Sandbox
    system_prompt: str
    config: AgentConfig
    run_id: str = ""
    recorder: TraceRecorder = field(default_factory=TraceRecorder)
    calls: list[Call] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    # A reply asking for more tool calls than this gets the excess recorded, not executed. Not part
    # of AgentConfig: it bounds damage, it is not a property of the agent (and must not change ids).
    max_calls_per_reply: int = field(default_factory=default_max_calls_per_reply)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def deadline(self) -> float:
        """When the episode's time limit runs out.

        Time spent inside an in-process local model's calls does not count: it
        measures how busy this machine's CPUs are (the same episode takes 3x as
        long beside two other model processes), not the agent, and a local
        call is already bounded by `max_tokens` and `max_steps`. Stored as a
        `timeout`, a slow machine's episode would count as the agent's failure
        and be reused forever. The limit still bounds tools, sandboxes and
        hosted providers, whose time is the environment's.
        """
        return self.started + self.config.time_limit_s + self.local_model_s()

    def local_model_s(self) -> float:
        """Seconds this episode has spent in calls to an in-process local model."""
        if not self.config.model.startswith(LOCAL_PREFIX):
            return 0.0
        return sum(ev.latency_s for ev in list(self.recorder.events) if ev.kind == "model_call")

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise EpisodeFailure(
                "timeout", f"episode exceeded its time limit of {self.config.time_limit_s:.0f}s"
            )

    def tool_names(self) -> list[str]:
        return [d.tool for d in self.docs]

    def calls_in_reply(self) -> int:
        """Tool calls run (or tried) since the latest model reply; rejected ones do not count."""
        n = 0
        for ev in reversed(self.recorder.events):
            if ev.kind == "model_call":
                break
            n += ev.kind == "tool_call" and ev.error_class not in NOT_RUN
        return n

    def reject(self, tool: str | None, args: Any, error_class: str, message: str) -> str:
        """Record a tool call that was not executed (unknown tool, malformed arguments, over the cap)."""
        with self._lock:
            self.recorder.add(
                "tool_call",
                tool=tool,
                args=args if isinstance(args, dict) else {"raw": args},
                error=message,
                error_class=error_class,
            )
        return message

    def execute(self, call: Call) -> str:
        """Run one tool call; every outcome (output, tool error, crash) becomes an observation.

        Failures outside the agent (`InfrastructureError`: the sandbox could not
        start) propagate and end the episode as such, not as an observation.
        """
        self.check_time()
        known = set(self.tool_names())
        if call.tool not in known:
            msg = f"Error: unknown tool {call.tool!r}. Available tools: {', '.join(sorted(known))}"
            return self.reject(call.tool, dict(call.args), "unknown_tool", msg)
        if self.calls_in_reply() >= self.max_calls_per_reply:
            msg = f"Error: not executed; at most {self.max_calls_per_reply} tool calls are run per reply"
            return self.reject(call.tool, dict(call.args), "too_many_calls", msg)
        with self._lock:
            self.calls.append(call)
            index = len(self.calls) - 1
        t0 = time.monotonic()
        bounded = getattr(self.sandbox, "accepts_timeout", False)
        try:
            if bounded:  # the call may not outlive the episode's time limit
                output = self.sandbox.execute(call, timeout_s=max(0.0, self.deadline - t0))  # type: ignore[call-arg]
            else:
                output = self.sandbox.execute(call)
        except ToolError as exc:
            msg = str(exc) or type(exc).__name__
            self._mark_raised(index, msg)
            self.recorder.add(
                "tool_call",
                tool=call.tool,
                args=dict(call.args),
                error=msg,
                latency_s=time.monotonic() - t0,
                error_class=exc.error_class,
            )
            if bounded:
                self.check_time()
            return msg
        except InfrastructureError:
            raise
        except Exception as exc:  # a crashing tool is data about the episode, not a crash of the run
            msg = f"{type(exc).__name__}: {exc}"
            self._mark_raised(index, msg)
            self.recorder.add(
                "tool_call",
                tool=call.tool,
                args=dict(call.args),
                error=msg,
                latency_s=time.monotonic() - t0,
                error_class="tool_crash",
            )
            return f"Error: {msg}"
        text = output if isinstance(output, str) else str(output)
        self.recorder.add(
            "tool_call", tool=call.tool, args=dict(call.args), output=text, latency_s=time.monotonic() - t0
        )
        return text

    def _mark_raised(self, index: int, message: str) -> None:
        """A call that raised is kept in `calls` (scorers replay it) but marked: it was no successful
        invocation, so it never enters TC's predicted tool set."""
        with self._lock:
            self.calls[index] = replace(self.calls[index], error=message)


class Agent(Protocol):
    """A paradigm: runs one episode and returns the final answer (or None)."""

    def run(self, ctx: EpisodeContext) -> str | None: ...
