"""The WorkBench benchmark object: tasks, tool variants, prompt sentence, sandbox and scorer.

Two tool-set variants (SPEC 5.2): "all" offers the 27 tools to every task;
"domains" offers the tools of the task's listed domains plus the company
directory. By default the upstream `crm` label bug is reproduced (quirk Q5: 50
multi-domain tasks list `crm`, which matches no toolkit, so they get no CRM
tools); `crm_fix=True` maps it to the CRM toolkit. Which mode produced a
number is recorded in every score's details.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from core.benchmarks.base import Call, Sandbox, Score, Task
from core.benchmarks.workbench.docs import load_original_docs
from core.benchmarks.workbench.replay import Replayer
from core.benchmarks.workbench.sandbox import WorkBenchSandbox
from core.benchmarks.workbench.scoring import (
    Labels,
    call_strings,
    failure_reason,
    labels_for,
    parsed_from_calls,
    tool_correct,
)
from core.benchmarks.workbench.tables import workbench_dir
from core.benchmarks.workbench.tasks import TASK_FILES, load_tasks
from core.benchmarks.workbench.tools import PROMPT_ORDER, TOOL_DOMAINS
from core.docs import DocSet

# SPEC 5.1: the fixed-clock sentence block that opens the upstream system prompt.
SYSTEM_SENTENCE = (
    "Today's date is Thursday, 2023-11-30 and the current time is 00:00:00. Remember the current date and "
    "time when answering queries. Meetings must not start before 9am or end after 6pm."
)
Variant = Literal["domains", "all"]
VARIANTS: tuple[str, ...] = ("domains", "all")


class WorkBench:
    """WorkBench (Styles et al., 2024) re-implemented from SPEC.md; implements `Benchmark`."""

    name = "workbench"

    def __init__(
        self,
        data_dir: str | Path | None = None,
        variant: Variant = "domains",
        *,
        crm_fix: bool = False,
        strict_args: bool = True,
        compat_timestamps: bool = False,
    ) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"unknown WorkBench variant {variant!r}; expected one of {VARIANTS}")
        self.root = workbench_dir(data_dir)
        self.variant = variant
        self.crm_fix = crm_fix
        self.strict_args = strict_args
        self.compat_timestamps = compat_timestamps

    def __repr__(self) -> str:
        return f"WorkBench({self.root}, variant={self.variant!r}, crm_fix={self.crm_fix})"

    # ------------------------------------------------------------------ catalogue
    def tool_names(self) -> list[str]:
        return list(PROMPT_ORDER)

    @cached_property
    def _docs(self) -> DocSet:
        return load_original_docs(self.root)

    def original_docs(self) -> DocSet:
        return self._docs

    @cached_property
    def _tasks(self) -> list[Task]:
        return load_tasks(self.root)

    def tasks(self) -> list[Task]:
        return list(self._tasks)

    @cached_property
    def _by_id(self) -> dict[str, Task]:
        return {t.task_id: t for t in self._tasks}

    def task(self, task_id: str) -> Task:
        try:
            return self._by_id[task_id]
        except KeyError:
            raise KeyError(f"no WorkBench task {task_id!r} (ids look like 'email-007')") from None

    def domains(self) -> list[str]:
        return list(TASK_FILES)

    def tools_for(self, task: Task) -> list[str]:
        if self.variant == "all":
            return list(PROMPT_ORDER)
        listed = set(task.meta.get("domains", ()))
        if self.crm_fix and "crm" in listed:
            listed.add("customer_relationship_manager")
        listed.add("company_directory")
        return [t for d in TOOL_DOMAINS if d in listed for t in PROMPT_ORDER if t.startswith(d + ".")]

    def system_prompt(self, task: Task) -> str:
        return SYSTEM_SENTENCE

    def tool_writes(self, tool: str) -> bool | None:
        """Whether the tool changes the sandbox's state (search and get tools only read)."""
        from core.benchmarks.workbench.tools.registry import TOOLS

        spec = TOOLS.get(tool)
        return spec.write if spec is not None else None

    def tool_domain(self, tool: str) -> str | None:
        from core.benchmarks.workbench.tools.registry import TOOLS

        spec = TOOLS.get(tool)
        return spec.domain if spec is not None else None

    def tool_source(self, tool: str, max_lines: int = 40) -> str | None:
        """The source of the tool function in our sandbox."""
        from core.benchmarks.meta import source_text
        from core.benchmarks.workbench.tools.registry import TOOLS

        spec = TOOLS.get(tool)
        return source_text(spec.fn, max_lines) if spec is not None else None

    def tool_signature(self, tool: str) -> list[dict[str, Any]] | None:
        """Keyword parameters of the tool function, with their defaults.

        Every WorkBench parameter defaults to None and the function answers
        "X not provided." itself, so the Python default says nothing about
        whether the task needs the value: the default is reported, not a required flag.
        """
        from core.benchmarks.workbench.tools.registry import TOOLS

        spec = TOOLS.get(tool)
        if spec is None:
            return None
        import inspect

        out = []
        for name, default in spec.params:
            has_default = default is not inspect.Parameter.empty
            out.append(
                {
                    "name": name,
                    "type": type(default).__name__ if has_default and default is not None else None,
                    "has_default": has_default,
                    "default": default if has_default else None,
                    # upstream gives every parameter the default None, so the signature cannot tell
                    "required": None if default is None else not has_default,
                    "source": "workbench signature",
                }
            )
        return out

    def is_error_output(self, text: str | None) -> bool:
        """WorkBench tools return their validation messages as plain output text."""
        from core.benchmarks.workbench.tools.registry import ERROR_MESSAGES

        t = (text or "").strip()
        return t in ERROR_MESSAGES or t.lower().startswith("error")

    # ------------------------------------------------------------------ episodes
    def new_sandbox(self, task: Task) -> WorkBenchSandbox:
        return WorkBenchSandbox(
            self.root,
            self.tools_for(task),
            strict_args=self.strict_args,
            compat_timestamps=self.compat_timestamps,
        )

    @cached_property
    def replayer(self) -> Replayer:
        return Replayer(self.root)

    def score(
        self,
        task: Task,
        calls: Sequence[Call],
        final_answer: str | None,
        sandbox: Sandbox | None = None,
        *,
        error: str | None = None,
    ) -> Score:
        """Upstream correctness from a replay of `calls` (never the live state); see scoring.py.

        `error` is the episode's abnormal end (iteration limit, context window,
        a tool crash the harness aborted on); any error makes the task incorrect,
        and `details["correct_ignoring_error"]` keeps the other view.
        """
        pred_state = self.replayer.run_parsed(parsed_from_calls(calls))
        pred, gold = call_strings(calls), _gold_strings(task)
        labels = labels_for(self.replayer, pred, gold, error, pred_state=pred_state)
        details = self._details(labels, error, sandbox)
        reason = failure_reason(pred, gold, labels)
        if reason:
            details["reason"] = reason
        return Score(
            success=labels.correct,
            tool_correct=tool_correct(calls, task.tools),
            details=details,
        )

    def score_strings(self, task: Task, calls: Sequence[str], error: str | None = None) -> Labels:
        """Labels for recorded call strings (`function_calls`), exactly as upstream scored them."""
        return labels_for(self.replayer, calls, _gold_strings(task), error)

    def _details(self, labels: Labels, error: str | None, sandbox: Sandbox | None) -> dict[str, Any]:
        details = labels.as_dict()
        details["side_effects"] = details["unwanted_side_effects"]
        details["error"] = error or None
        details["variant"] = self.variant
        details["crm_fix"] = self.crm_fix
        crashes = getattr(sandbox, "crashes", None)
        if crashes:
            details["tool_crashes"] = list(crashes)
        return details


def _gold_strings(task: Task) -> list[str]:
    """The ground-truth call strings (kept by the task loader; rebuilt for tasks made elsewhere)."""
    return list(task.meta.get("gold_strings") or call_strings(task.gold))
