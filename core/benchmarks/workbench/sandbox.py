"""One WorkBench episode's sandbox: fresh tables and the offered tools.

`execute` dispatches on the dotted tool name (`email.send_email`; the
call-string form `email.send_email.func` is accepted too) and returns the text
the agent observes: the Python `str()` of the tool's return value, as LangChain
showed it. Validation failures are returned by the tools themselves as English
messages (they are observations, not errors). Three things raise `ToolError`:

- a tool that is not offered in this episode (message in LangChain's words);
- argument names the tool does not have (upstream LangChain silently dropped
  them, quirk Q7; pass `strict_args=False` to reproduce that);
- an exception inside the tool (`ToolCrash`, carrying the exception text).
  Upstream's harness aborted the episode at exactly these points (SPEC 1.2);
  a runner that wants the upstream behaviour stops the episode on `ToolCrash`
  and passes its message as the episode error to `WorkBench.score`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.benchmarks.base import Call, ToolError
from core.benchmarks.workbench.scoring import normalise_tool
from core.benchmarks.workbench.tables import Tables, fresh_tables
from core.benchmarks.workbench.tools import PROMPT_ORDER, TOOLS, render_observation


class ToolCrash(ToolError):
    """A tool raised (invalid regex, unparsable date, list where an id was expected...)."""


class WorkBenchSandbox:
    """Fresh tables for one episode; state persists across calls within the episode only."""

    def __init__(
        self,
        root: Path,
        tools: Sequence[str] | None = None,
        *,
        strict_args: bool = True,
        compat_timestamps: bool = False,
    ) -> None:
        self.tables: Tables = fresh_tables(root, compat_timestamps=compat_timestamps)
        self.offered: tuple[str, ...] = tuple(tools) if tools is not None else PROMPT_ORDER
        self.strict_args = strict_args
        self.crashes: list[str] = []
        self.calls: list[Call] = []

    def execute_raw(self, call: Call) -> Any:
        """Run one call and return the tool's raw value (dict, list, numpy array or message)."""
        name = normalise_tool(call.tool)
        self.calls.append(call)
        if name not in self.offered or name not in TOOLS:
            raise ToolError(f"{call.tool} is not a valid tool, try one of [{', '.join(self.offered)}].")
        spec = TOOLS[name]
        args = dict(call.args)
        unknown = [k for k in args if k not in spec.param_names]
        if unknown:
            if self.strict_args:
                raise ToolError(
                    f"{name} got unexpected argument(s) {', '.join(sorted(unknown))}; "
                    f"its parameters are: {', '.join(spec.param_names)}"
                )
            args = {k: v for k, v in args.items() if k in spec.param_names}
        try:
            return spec.fn(self.tables, **args)
        except Exception as exc:  # noqa: BLE001 - any tool exception is an observable crash
            text = str(exc) or type(exc).__name__
            self.crashes.append(text)
            raise ToolCrash(text) from exc

    def execute(self, call: Call) -> str:
        """Run one call and return the observation text."""
        return render_observation(self.execute_raw(call))
