"""What GEPA is configured with for documentation: the reflection model, the component choice, the stopper.

All three plug into the `gepa` package through its own protocols; none
changes how GEPA searches.

- `ToolReflection` (a GEPA `ReflectionLM`) runs GEPA's stateless reflection
  (its prompt rendering and its extraction of the new text) once per
  component, with a model callable bound to the component's tool, so every
  reflection call goes through our gateway as `Purpose("gepa-reflect", tool)`
  and its tokens land in the ledger per tool. The prompt is GEPA's
  instruction-proposal template reworded for a tool's documentation (GEPA
  accepts a template per component). Empty or unchanged proposals are dropped,
  so GEPA spends no episodes evaluating a child identical to its parent.
- `EvidencedRoundRobin` is GEPA's round-robin component choice, skipping
  components whose tool the minibatch says nothing about (a doc set has one
  component per tool and per parameter, most of them absent from any
  three-task minibatch): first components whose tool took part in a failed
  task, else in any task, else plain round robin.
- `EpisodeBudget` stops GEPA before an iteration that could pass the episode
  budget (GEPA's `max_metric_calls` is checked only between iterations, so
  alone it can overshoot by one iteration), or when the caller cancels.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.baselines.gepa_docs import SEP, Rollout, involves, tool_of
from core.llm import Purpose, complete

TEMPLATE = """An AI agent chooses and calls tools by reading their documentation. This is the current {what} of the tool `{tool}`:
```
<curr_param>
```

These are tasks the agent attempted with this documentation: the task, the tool calls it made and what came back, its final answer, and feedback on whether it completed the task (with the expected calls when it did not):
```
<side_info>
```

Write a new {what}. Keep what is correct; state what the agent needed to know to call the tool right (its purpose, when to use it and when not to, the formats and values of its arguments); stay general and do not mention these particular tasks. Reply with the new text only, within ``` blocks."""


def template(name: str) -> str:
    """The reflection prompt template of one component (GEPA's `<curr_param>` / `<side_info>` slots)."""
    tool, _, param = name.partition(SEP)
    what = f"description of the parameter `{param}`" if param else "description"
    return TEMPLATE.replace("{what}", what).replace("{tool}", tool)


def tidy(text: str, max_chars: int) -> str:
    """A proposal as stored: stripped, and cut at the last sentence end within `max_chars`."""
    text = (text or "").strip()
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    end = max(cut.rfind(". "), cut.rfind(".\n"))
    return (cut[: end + 1] if end > max_chars // 2 else cut).strip()


@dataclass
class ReflectionCost:
    """Reflection calls, tokens and seconds spent on one tool."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0


@dataclass
class ToolReflection:
    """GEPA's `ReflectionLM`: GEPA's stateless reflection per component, our gateway as the model."""

    model: str
    temperature: float = 0.7
    max_tokens: int = 512
    seed: int = 0
    run_id: str | None = None
    max_chars: int = 2000
    costs: dict[str, ReflectionCost] = field(default_factory=dict)
    calls: int = 0

    def lm_for(self, tool: str) -> Callable[[str | list[dict[str, Any]]], str]:
        """A GEPA `LanguageModel` billed to `tool`; each call samples with its own seed (reproducible)."""

        def call(prompt: str | list[dict[str, Any]]) -> str:
            messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
            self.calls += 1
            seed = zlib.crc32(f"gepa:{self.seed}:{self.calls}".encode())
            t0 = time.perf_counter()
            res = complete(
                self.model,
                messages,
                temperature=self.temperature,
                seed=seed,
                max_tokens=self.max_tokens,
                purpose=Purpose("gepa-reflect", tool),
                run_id=self.run_id,
            )
            cost = self.costs.setdefault(tool, ReflectionCost())
            cost.calls += 1
            cost.tokens_in += res.tokens_in
            cost.tokens_out += res.tokens_out
            cost.seconds += time.perf_counter() - t0
            return res.content or ""

        return call

    def reflect(
        self,
        candidate: dict[str, str],
        reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
        components_to_update: list[str],
    ) -> tuple[Any, ToolReflection]:
        from gepa.proposer.reflective_mutation.reflection_lm import ReflectionProposal, StatelessReflectionLM

        merged = ReflectionProposal(new_texts={}, prompts={}, raw_lm_outputs={})
        for name in components_to_update:
            records = reflective_dataset.get(name)
            if not records:
                continue
            inner = StatelessReflectionLM(self.lm_for(tool_of(name)), template(name))
            proposal, _ = inner.reflect(candidate, {name: records}, [name])
            text = tidy(proposal.new_texts.get(name, ""), self.max_chars)
            if text and text != (candidate.get(name) or "").strip():
                merged.new_texts[name] = text
                merged.prompts[name] = proposal.prompts.get(name, "")
                merged.raw_lm_outputs[name] = proposal.raw_lm_outputs.get(name, "")
        return merged, self


class EvidencedRoundRobin:
    """GEPA's round-robin component selector, skipping components without evidence in the minibatch."""

    def __call__(
        self,
        state: Any,
        trajectories: list[Rollout],
        subsample_scores: list[float],
        candidate_idx: int,
        candidate: dict[str, str],
    ) -> list[str]:
        names = list(state.list_of_named_predictors)
        nxt = state.named_predictor_id_to_update_next_for_program_candidate  # GEPA's round-robin cursor
        start = nxt[candidate_idx]
        order = [(start + k) % len(names) for k in range(len(names))]
        failed = [r for r, s in zip(trajectories, subsample_scores, strict=False) if s < 1.0]
        for pool in (failed, trajectories):
            for i in order:
                if any(involves(r, tool_of(names[i])) for r in pool):
                    nxt[candidate_idx] = (i + 1) % len(names)
                    return [names[i]]
        nxt[candidate_idx] = (start + 1) % len(names)
        return [names[start]]


@dataclass
class EpisodeBudget:
    """GEPA stopper: True when the next iteration's worst case (two minibatches + the validation set)
    would pass the budget, or when the caller asked to stop."""

    budget: int
    minibatch: int
    n_val: int
    cancelled: Callable[[], bool] | None = None

    def __call__(self, gepa_state: Any) -> bool:
        if self.cancelled is not None and self.cancelled():
            return True
        return gepa_state.total_num_evals + 2 * self.minibatch + self.n_val > self.budget
