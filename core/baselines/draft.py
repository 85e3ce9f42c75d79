"""DRAFT (Qu et al., ICLR 2025): rewrite a tool's description from its real behaviour.

Per tool, up to `episodes` rounds of
1. Explorer: a natural user query answerable by one call of the tool, and the
   call's parameters ({"User Query", "Parameters"}). Diversity: the query is
   embedded; if its cosine similarity to any earlier query is >= `diversity`,
   the Explorer is asked again with a note that it is too similar, at most
   `diversity_tries` attempts in all (the last one is then kept). The first
   episode makes a single attempt.
2. Execution of the REAL tool in a fresh benchmark sandbox; a ToolError or any
   exception is the observation ({"error", "response"}), truncated to 2,048
   characters.
3. Analyzer: checks the description against the observation (match,
   completeness, concision) and suggests changes. We fill the current
   description into its prompt (the released code leaves that slot empty).
4. Rewriter: a new description plus suggestions for the next exploration.
5. Stop when delta = (sentence-BLEU + embedding cosine) / 2 between the last
   two descriptions exceeds `stop` (checked from the first episode on: d0 vs d1).

Only the description (FD) is rewritten; every other field stays as it was.
Defaults are DRAFT's: 5 episodes, 0.9 / 3 tries, 0.75, temperature 0.2. The
sandbox task that hosts the executions is taken from the tasks the caller
passes (use the optimisation part of the split, never the test part).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from core.baselines.bleu import sentence_bleu
from core.baselines.common import Cost, LLMSettings, fill, json_call, prompt, tool_info
from core.baselines.easytool import BaselineResult, param_schema
from core.benchmarks.base import Benchmark, Call, Task, ToolError
from core.docs import DocSet, ToolDoc
from core.llm import Purpose

ORIGIN = "draft"
RESPONSE_CAP = 2048

Embedder = Callable[[Sequence[str]], np.ndarray]


class Exploration(BaseModel):
    query: str = Field(alias="User Query", min_length=3)
    parameters: dict[str, Any] = Field(alias="Parameters")


class Analysis(BaseModel):
    suggestions: str = Field(alias="Suggestions for tool description", min_length=1)


class Rewrite(BaseModel):
    description: str = Field(alias="Rewritten description", min_length=3)
    explore: str = Field(alias="Suggestions for exploring", default="")


@dataclass
class DraftConfig:
    model: str
    episodes: int = 5
    diversity: float = 0.9
    diversity_tries: int = 3
    stop: float = 0.75
    temperature: float = 0.2
    seed: int = 0
    retries: int = 3


def default_embedder(texts: Sequence[str]) -> np.ndarray:
    from core.embed import embed

    return embed(list(texts))


def too_similar(query_vec: np.ndarray, earlier: Sequence[np.ndarray], threshold: float) -> tuple[bool, float]:
    """Diversity rule: (max cosine to an earlier query >= threshold, that max). Vectors are unit-length."""
    if not earlier:
        return False, 0.0
    best = max(float(np.dot(query_vec, e)) for e in earlier)
    return best >= threshold, best


def convergence(previous: str, current: str, embedder: Embedder) -> tuple[float, float, float]:
    """Stop rule's delta = (BLEU + cosine) / 2 between two descriptions; returns (delta, bleu, cosine)."""
    bleu = sentence_bleu(previous, current)
    vecs = embedder([previous, current])
    cos = float(np.dot(vecs[0], vecs[1]))
    return (bleu + cos) / 2.0, bleu, cos


def should_stop(previous: str, current: str, embedder: Embedder, threshold: float) -> bool:
    return convergence(previous, current, embedder)[0] > threshold


@dataclass
class ToolTrace:
    tool: str
    descriptions: list[str]
    examples: list[dict[str, Any]] = field(default_factory=list)
    deltas: list[dict[str, float]] = field(default_factory=list)
    diversity_retries: int = 0
    stopped_early: bool = False
    cost: Cost = field(default_factory=Cost)


def execute(bench: Benchmark, host: Task | None, tool: str, params: dict[str, Any]) -> dict[str, str]:
    """Run the real tool once in a fresh sandbox; errors are observations."""
    if host is None:
        return {"error": "no sandbox task offers this tool", "response": ""}
    try:
        out = bench.new_sandbox(host).execute(Call(tool, dict(params)))
        return {"error": "", "response": str(out)[:RESPONSE_CAP]}
    except ToolError as exc:
        return {"error": (str(exc) or type(exc).__name__)[:RESPONSE_CAP], "response": ""}
    except Exception as exc:  # noqa: BLE001 - a crash is what the Analyzer should see
        return {"error": f"{type(exc).__name__}: {exc}"[:RESPONSE_CAP], "response": ""}


def draft_tool(
    doc: ToolDoc,
    bench: Benchmark,
    host: Task | None,
    config: DraftConfig,
    *,
    embedder: Embedder | None = None,
    category: str | None = None,
    run_id: str | None = None,
) -> tuple[ToolDoc, ToolTrace]:
    """DRAFT's loop for one tool; returns the doc with the final description and the trace."""
    embedder = embedder or default_embedder
    settings = LLMSettings(
        config.model, config.temperature, config.seed, retries=config.retries, run_id=run_id
    )
    trace = ToolTrace(doc.tool, [doc.description or ""])
    t0 = time.perf_counter()
    queries: list[str] = []
    vectors: list[np.ndarray] = []
    suggestions = ""
    ex_base, ex_follow = prompt("draft_explorer")
    an_base, an_follow = prompt("draft_analyzer")
    rw_base, rw_follow = prompt("draft_rewriter")
    schema = {
        "type": "object",
        "properties": {"User Query": {"type": "string"}, "Parameters": param_schema(doc)},
        "required": ["User Query", "Parameters"],
    }
    allowed = {p.name for p in doc.parameters}

    def check(obj: Exploration) -> None:
        unknown = sorted(set(obj.parameters) - allowed)
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; the API's parameters are {sorted(allowed)}")

    for episode in range(config.episodes):
        current = trace.descriptions[-1]
        info = json.dumps(tool_info(doc, current, category), ensure_ascii=False)
        # 1. Explorer, with the diversity rule from the second episode on
        content = fill(ex_base, tool=info)
        if episode:
            content += "\n" + fill(
                ex_follow, explored=json.dumps(queries, ensure_ascii=False), suggestions=suggestions or "none"
            )
        messages = [{"role": "user", "content": content}]
        tries = 1 if episode == 0 else max(1, config.diversity_tries)
        found: Exploration | None = None
        vec: np.ndarray | None = None
        for attempt in range(tries):
            found = json_call(
                settings,
                messages,
                Exploration,
                trace.cost,
                purpose=Purpose("draft.explorer", doc.tool),
                check=check,
                attempt_seed=100 * episode + 10 * attempt,
                response_schema=schema,
            )
            if found is None:
                break
            vec = embedder([found.query])[0]
            similar, best = too_similar(vec, vectors, config.diversity)
            if not similar:
                break
            if attempt + 1 < tries:
                trace.diversity_retries += 1
                messages = [
                    *messages,
                    {
                        "role": "assistant",
                        "content": json.dumps({"User Query": found.query, "Parameters": found.parameters}),
                    },
                    {
                        "role": "user",
                        "content": f"This query is too similar to an explored one (cosine {best:.2f}). Write a clearly different query.",
                    },
                ]
        if found is None or vec is None:
            trace.cost.notes.append(f"episode {episode + 1}: the Explorer gave no valid query; stopping")
            break
        queries.append(found.query)
        vectors.append(vec)
        # 2. Execute the real tool
        observed = execute(bench, host, doc.tool, found.parameters)
        example = {"User Query": found.query, "Parameters": found.parameters, "API_Response": observed}
        trace.examples.append(example)
        history = json.dumps(trace.descriptions, ensure_ascii=False)
        # 3. Analyzer
        content = fill(
            an_base, tool=info, tool_description=current, example=json.dumps(example, ensure_ascii=False)
        )
        if episode:
            content += "\n" + fill(an_follow, history=history)
        analysis = json_call(
            settings,
            [{"role": "user", "content": content}],
            Analysis,
            trace.cost,
            purpose=Purpose("draft.analyzer", doc.tool),
            attempt_seed=100 * episode + 50,
        )
        advice = analysis.suggestions if analysis else "none"
        # 4. Rewriter
        content = fill(
            rw_base, tool=info, example=json.dumps(example, ensure_ascii=False), suggestions=advice
        )
        if episode:
            content += "\n" + fill(rw_follow, history=history)
        rewrite = json_call(
            settings,
            [{"role": "user", "content": content}],
            Rewrite,
            trace.cost,
            purpose=Purpose("draft.rewriter", doc.tool),
            attempt_seed=100 * episode + 70,
        )
        if rewrite is None:
            trace.cost.notes.append(
                f"episode {episode + 1}: the Rewriter gave no valid description; stopping"
            )
            break
        trace.descriptions.append(rewrite.description.strip())
        suggestions = rewrite.explore
        # 5. Tool-adaptive termination
        delta, bleu, cos = convergence(trace.descriptions[-2], trace.descriptions[-1], embedder)
        trace.deltas.append({"episode": episode + 1, "delta": delta, "bleu": bleu, "cosine": cos})
        if delta > config.stop:
            trace.stopped_early = episode + 1 < config.episodes
            break
    trace.cost.seconds = time.perf_counter() - t0
    final = trace.descriptions[-1]
    if final and final != (doc.description or ""):
        new = doc.refine("FD", final) if doc.has("FD") else doc.add("FD", final)
    else:
        new = doc
    return new, trace


def host_task(bench: Benchmark, tasks: Sequence[Task], tool: str) -> Task | None:
    """A task whose sandbox offers `tool`: preferably one whose ground truth uses it."""
    using = [t for t in tasks if tool in t.tools]
    for t in using + list(tasks):
        if tool in bench.tools_for(t):
            return t
    return None


def run_draft(
    bench: Benchmark,
    original: DocSet,
    tools: Sequence[str] | None,
    config: DraftConfig,
    tasks: Sequence[Task],
    *,
    embedder: Embedder | None = None,
    run_id: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> BaselineResult:
    """DRAFT over `tools` (default: all), executing them in sandboxes of `tasks` (the opt part)."""
    from core.benchmarks.meta import DOMAIN_LABELS, tool_meta

    docset = original
    costs: dict[str, dict[str, Any]] = {}
    traces: dict[str, Any] = {}
    for tool in tools or list(original):
        meta = tool_meta(bench, tool)
        category = DOMAIN_LABELS.get(meta.domain or "", meta.domain)
        new, trace = draft_tool(
            original[tool],
            bench,
            host_task(bench, tasks, tool),
            config,
            embedder=embedder,
            category=category,
            run_id=run_id,
        )
        docset = docset.replace(new)
        costs[tool] = {
            **trace.cost.to_json(),
            "episodes": len(trace.examples),
            "stopped_early": trace.stopped_early,
            "diversity_retries": trace.diversity_retries,
        }
        traces[tool] = {
            "descriptions": trace.descriptions,
            "deltas": trace.deltas,
            "examples": trace.examples,
        }
        if progress:
            progress(
                f"{tool}: {len(trace.examples)} episodes, {trace.cost.calls} calls, delta "
                f"{trace.deltas[-1]['delta'] if trace.deltas else float('nan'):.2f}"
            )
    named = DocSet(docset.values(), name=f"draft {config.model}")
    return BaselineResult(ORIGIN, named, costs, {"traces": traces, "config": config.__dict__})
