"""A benchmark wrapper that offers SOPs beside the atomic tools and runs them in the worker.

    bench = SopBenchmark(WorkBench(), toolset, limits=Limits(wall_s=10))
    runner.run(warehouse, RunPlan(bench, toolset.docset(atomic_docs), config, tasks))

Why a wrapper: the runner, the agents, the warehouse and the scorers need no
special case. An SOP is a tool in the offered doc set; the sandbox recognises
its dispatch key, checks the arguments against the SOP's schema, and runs the
code in a worker whose tool calls come back here and run on the episode's real
sandbox. Each of those atomic calls is handed to the episode context
(`take_inner_calls`), which traces it under the SOP call and adds it to the
episode's calls; scoring drops the SOP calls themselves and scores the atomic
ones — by end state (WorkBench replays them) and by call matching alike.

An SOP that is stopped (a defect: limits, exit, crash, exception) surfaces to
the agent as a tool error whose text names the defect,
`SOP <name> stopped (defect: <kind>): ...`, which the reviewer reads back.

The wrapper's key is the base benchmark's key plus the toolset id, and its
name is `<base>+sop`, so SOP episodes are their own benchmark in the
warehouse and a re-run of the same toolset resumes its own episodes.

`withhold` (the `offer="instead"` ablation) takes atomic tools out of the
agent's hands wherever an SOP that calls them is offered: the SOP's inner
calls still reach them, the agent's own calls get a tool error. The paper
offers SOPs beside the atomic tools; this measures what a routine is worth
to an agent that does not choose it by itself. Its key says so
(`+sop:<toolset>:instead`), so the two offers never share an episode.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.benchmarks.base import Benchmark, Call, InnerCall, Sandbox, Score, Task, ToolError
from core.benchmarks.registry import benchmark_key
from core.docs import DocSet
from core.evaluation import error_output_check
from core.sop.executor import Executor, Limits, ToolReply
from core.sop.model import Sop, Toolset, is_sop_tool

DEFECT_TEXT = re.compile(r"^SOP (?P<name>\S+) stopped \(defect: (?P<kind>\w+)\): ?(?P<error>.*)$", re.S)
_EXECUTORS: dict[Limits, Executor] = {}
_LOCK = threading.Lock()


def shared_executor(limits: Limits | None = None) -> Executor:
    """One executor (and worker pool) per set of limits in this process."""
    limits = limits or Limits()
    with _LOCK:
        ex = _EXECUTORS.get(limits)
        if ex is None:
            ex = _EXECUTORS[limits] = Executor(limits)
        return ex


def defect_of(error: str | None) -> tuple[str, str] | None:
    """(kind, message) when a tool error is an SOP defect, else None."""
    m = DEFECT_TEXT.match(error or "")
    return (m.group("kind"), m.group("error")) if m else None


class SopSandbox:
    """The base sandbox plus SOP dispatch; attributes it does not define come from the base sandbox."""

    def __init__(
        self,
        inner: Sandbox,
        toolset: Toolset,
        executor: Executor,
        is_error: Any,
        withheld: frozenset[str] = frozenset(),
    ) -> None:
        self.inner = inner
        self.withheld = withheld
        self.toolset = toolset
        self.executor = executor
        self.is_error = is_error
        self.invocations: list[dict[str, Any]] = []
        self._pending: dict[int, list[InnerCall]] = {}  # by thread: an agent may run calls in parallel

    def __getattr__(self, name: str) -> Any:
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def take_inner_calls(self) -> list[InnerCall]:
        """The atomic calls the SOP call just made on this thread (each handed out once)."""
        return self._pending.pop(threading.get_ident(), [])

    def _note(self, inner: InnerCall) -> None:
        self._pending.setdefault(threading.get_ident(), []).append(inner)

    # The episode context passes its time left when a sandbox accepts it: an SOP (and each of its inner
    # calls, when the base sandbox bounds them too) may not outlive the episode.
    accepts_timeout = True

    def _run_inner(self, call: Call, timeout_s: float | None) -> str:
        if timeout_s is not None and getattr(self.inner, "accepts_timeout", False):
            return self.inner.execute(call, timeout_s=timeout_s)  # type: ignore[call-arg]
        return self.inner.execute(call)

    def execute(self, call: Call, timeout_s: float | None = None) -> str:
        sop = self.toolset.get(call.tool)
        if sop is None:
            if call.tool in self.withheld:
                users = sorted(s.tool for s in self.toolset if call.tool in s.uses)
                raise ToolError(f"{call.tool} is not offered here; call {' or '.join(users)} instead")
            return self._run_inner(call, timeout_s)
        args = dict(call.args)
        _check_args(sop, args)
        outcome = self.executor.run(
            sop.code, sop.name, args, lambda tool, a: self._atomic(sop, tool, a, timeout_s), wall_s=timeout_s
        )
        self.invocations.append(
            {"sop": sop.name, "ok": outcome.ok, "defect": outcome.defect, "calls": len(outcome.calls)}
        )
        if not outcome.ok:
            raise ToolError(f"SOP {sop.name} stopped (defect: {outcome.defect}): {outcome.error}")
        return outcome.value or ""

    def _atomic(self, sop: Sop, tool: str, args: dict[str, Any], timeout_s: float | None = None) -> ToolReply:
        """One inner call of `sop`, on the real sandbox; only the atomic tools the SOP declares."""
        if is_sop_tool(tool) or tool not in sop.uses:
            return ToolReply(
                error=f"{tool!r} is not one of the tools this SOP may call ({', '.join(sop.uses)})"
            )
        t0 = time.monotonic()
        call = Call(tool, args)
        try:
            output = self._run_inner(call, timeout_s)
        except ToolError as exc:
            msg = str(exc) or type(exc).__name__
            self._note(InnerCall(call, error=msg, latency_s=time.monotonic() - t0))
            return ToolReply(error=msg)
        except Exception as exc:  # noqa: BLE001 - a crashing tool is an observation, as for the agent
            msg = f"{type(exc).__name__}: {exc}"
            self._note(InnerCall(call, error=msg, latency_s=time.monotonic() - t0))
            return ToolReply(error=msg)
        text = output if isinstance(output, str) else str(output)
        self._note(InnerCall(call, output=text, latency_s=time.monotonic() - t0))
        return ToolReply(output=text, is_error=bool(self.is_error(text)))


def _check_args(sop: Sop, args: dict[str, Any]) -> None:
    """Wrong argument names are the caller's error (a tool error), not a defect of the SOP."""
    names = [p.name for p in sop.doc.parameters]
    unknown = sorted(set(args) - set(names))
    if unknown:
        raise ToolError(f"{sop.name} got unexpected argument(s) {', '.join(unknown)}; its parameters are: "
                        f"{', '.join(names)}")  # fmt: skip
    missing = [p.name for p in sop.doc.parameters if p.required and p.name not in args]
    if missing:
        raise ToolError(f"{sop.name} is missing required argument(s): {', '.join(missing)}")


class InnerCallTracing:
    """Wraps an agent so the atomic calls an SOP made are traced under it and scored with the episode.

    The episode context records the SOP call itself; right after it returns,
    this takes the sandbox's inner calls (`take_inner_calls`) and adds each to
    the trace as a tool-call event with `payload.parent_seq` pointing at the
    SOP call, and to the episode's calls (what the scorers see). Calls a
    context already took itself are not seen twice: taking empties the queue.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def run(self, ctx: Any) -> str | None:
        execute = ctx.execute

        def traced(call: Call) -> str:
            text = execute(call)
            take = getattr(ctx.sandbox, "take_inner_calls", None)
            inner = take() if callable(take) else []
            if inner:
                parent = next(
                    (
                        e
                        for e in reversed(ctx.recorder.events)
                        if e.kind == "tool_call" and e.tool == call.tool and e.payload is None
                    ),
                    None,
                )
                for c in inner:
                    ctx.calls.append(replace(c.call, error=c.error) if c.error else c.call)
                    ctx.recorder.add(
                        "tool_call",
                        tool=c.call.tool,
                        args=dict(c.call.args),
                        output=c.output,
                        error=c.error,
                        latency_s=c.latency_s,
                        payload={"parent_seq": parent.seq if parent else None, "parent_tool": call.tool},
                    )
            return text

        ctx.execute = traced
        return self.agent.run(ctx)


def tracing_factory(factory: Any = None) -> Any:
    """An agent factory whose agents trace SOP inner calls (`InnerCallTracing`); `factory` defaults to the runner's."""
    if factory is None:
        from core.runner.runner import default_agent_factory

        factory = default_agent_factory
    return lambda config: InnerCallTracing(factory(config))


@dataclass(frozen=True)
class SopSource:
    """How another process (a Ray worker) builds a `SopBenchmark` again: the base's recipe, SOPs, limits."""

    base: Any  # the base benchmark's `source` (core.benchmarks.registry), or the base itself
    toolset: Toolset
    limits: Limits | None = None
    withhold: frozenset[str] = frozenset()

    def __repr__(self) -> str:  # by content: a worker keeps one build per base, SOPs and limits
        held = f", withhold={sorted(self.withhold)}" if self.withhold else ""
        return f"SopSource({self.base!r}, {self.toolset.toolset_id}, {self.limits!r}{held})"

    def load(self) -> SopBenchmark:
        base = self.base.load() if hasattr(self.base, "load") else self.base
        return SopBenchmark(base, self.toolset, limits=self.limits, withhold=self.withhold)


def atomic_calls(calls: Sequence[Call]) -> list[Call]:
    """The calls that act on the base benchmark: SOP calls left out, their inner calls kept."""
    return [c for c in calls if not is_sop_tool(c.tool)]


class StoredSopScoring:
    """Scores stored episodes of a SOP benchmark as `SopBenchmark.score` does, from the base alone.

    Why: re-scoring needs only the base benchmark's scorer and the stored calls;
    the SOPs themselves (their toolset and worker) are not needed to judge them.
    """

    def __init__(self, base: Benchmark) -> None:
        self.base = base

    def tasks(self) -> list[Task]:
        return self.base.tasks()

    def score(
        self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Any = None
    ) -> Score:
        return self.base.score(task, atomic_calls(calls), final_answer, None)

    def close(self) -> None:
        close = getattr(self.base, "close", None)
        if callable(close):
            close()


class SopBenchmark:
    """`base` with `toolset`'s SOPs offered wherever the atomic tools they call are offered
    (and, with `withhold`, those atomic tools taken from the agent where such an SOP is offered)."""

    def __init__(
        self,
        base: Benchmark,
        toolset: Toolset,
        *,
        limits: Limits | None = None,
        executor: Executor | None = None,
        withhold: frozenset[str] = frozenset(),
    ) -> None:
        self.base = base
        self.toolset = toolset
        self.withhold = frozenset(withhold)
        self.name = f"{base.name}+sop"
        self.key = f"{benchmark_key(base)}+sop:{toolset.toolset_id}" + (":instead" if self.withhold else "")
        self.limits = limits
        self.executor = executor or shared_executor(limits)
        self._is_error = error_output_check(base)

    @property
    def source(self) -> SopSource:
        """The recipe a Ray worker builds this benchmark from (its SOP worker pool is the worker's own)."""
        base = getattr(self.base, "source", None) or self.base
        return SopSource(base, self.toolset, self.limits, self.withhold)

    def __getattr__(self, name: str) -> Any:  # optional hooks (tool_signature, is_error_output, ...)
        if name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def tool_names(self) -> list[str]:
        return [*self.base.tool_names(), *(s.tool for s in self.toolset)]

    def original_docs(self) -> DocSet:
        return self.toolset.docset(self.base.original_docs())

    def tasks(self) -> list[Task]:
        return self.base.tasks()

    def domains(self) -> list[str]:
        return self.base.domains()

    def tools_for(self, task: Task) -> list[str]:
        offered = self.base.tools_for(task)
        have = set(offered)
        sops = [s for s in self.toolset if set(s.uses) <= have]
        held = self._withheld(sops)
        return [*(t for t in offered if t not in held), *(s.tool for s in sops)]

    def _withheld(self, sops: Sequence[Sop]) -> frozenset[str]:
        """The withheld tools some offered SOP calls (a tool no offered SOP wraps stays offered)."""
        return frozenset(t for s in sops for t in s.uses if t in self.withhold)

    def system_prompt(self, task: Task) -> str:
        return self.base.system_prompt(task)

    def new_sandbox(self, task: Task) -> SopSandbox:
        have = set(self.base.tools_for(task))
        held = self._withheld([s for s in self.toolset if set(s.uses) <= have])
        return SopSandbox(self.base.new_sandbox(task), self.toolset, self.executor, self._is_error, held)

    def score(
        self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Any = None
    ) -> Score:
        """The base score of the atomic calls (the SOP calls' inner calls are among `calls`)."""
        inner = sandbox.inner if isinstance(sandbox, SopSandbox) else sandbox
        return self.base.score(task, atomic_calls(calls), final_answer, inner)
