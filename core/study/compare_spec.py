"""What defines a comparison (`CompareSpec`, hashed into its id) and the test tasks it measures on.

Kept apart from the harness so the CLI, the dashboard and the reports can build
and validate a spec, and find a comparison's tasks, without importing the
optimizer or the runner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key, select_tasks
from core.benchmarks.splits import DEFAULT_GROUPING, check_grouping, get_or_create_split
from core.chisel.config import GUARD_VAL_TASKS, HEADROOM, MIN_VAL_TASKS
from core.study.fields import sample
from core.warehouse.records import content_hash

# "gepa" comes after "dc": the harness produces DocsChisel first and gives GEPA the episodes it spent
METHODS = ("og", "et", "drt", "dc", "gepa")
# A spec's default: GEPA is asked for by name (it doubles the target-agent episodes of the optimization
# phase), and comparisons stored before it existed keep their ids
DEFAULT_METHODS = ("og", "et", "drt", "dc")
LABELS = {
    "og": "OG (original)",
    "et": "ET (EasyTool)",
    "drt": "DRT (DRAFT)",
    "dc": "DC (DocsChisel)",
    "gepa": "GEPA",
}
BASELINE_OF = {"et": "easytool", "drt": "draft"}
GUARD_LIMIT = 12  # regression-guard test tasks per comparison (see `guard_tasks`)


@dataclass(frozen=True)
class CompareSpec:
    """Everything that defines one comparison; its hash is the comparison id.

    `agent` is the target agent (its model, paradigm, doc mode, step limit).
    `optimizer_models` empty means the optimizer's default (`engine`, whose
    `auto` runs the LLM engine with the default optimizer model when it is
    installed); several give one DC variant each (`dc` for the first,
    `dc:<model>` for the others). The name `evidence` stands for the evidence
    engine, which needs no model, so Table IV can put the evidence engine
    beside LLM-engine runs with several models. `baseline_model` None means the
    default optimizer model (`core.llm.default_optimizer_model`). GEPA
    reflects with DocsChisel's (first) optimizer model and gets, per
    optimization run, the target-agent episodes the DocsChisel run with the
    same seed spent (`core.study.gepa_budget`).
    """

    benchmark: str = "api-bank"
    domains: tuple[str, ...] = ()
    methods: tuple[str, ...] = DEFAULT_METHODS
    opt_runs: int = 3
    eval_runs: int = 5
    limit: int | None = 20
    agent: AgentConfig = field(default_factory=AgentConfig)
    temperature: float = 0.7
    iterations: int = 5
    optimizer_models: tuple[str, ...] = ()
    engine: str = "auto"
    max_opt_tasks: int | None = None
    max_val_tasks: int | None = None
    max_traces: int | None = None
    selection: str = "evidence"  # DocsChisel's selection rule (core.chisel.decisions.select)
    memory_ablation: bool = True
    curve_eval_runs: int = 1
    baseline_model: str | None = None
    split_seed: int = 0
    split_grouping: str = DEFAULT_GROUPING  # gold: tasks sharing a gold call stay in one part
    limit_tools: int | None = None  # DocsChisel's per-domain tool cap; ET/DRT and the test tasks follow it
    headroom: tuple[float, float] | None = HEADROOM  # DocsChisel skips tools outside this TS⁰ band
    min_val_tasks: int = MIN_VAL_TASKS  # fewer validation tasks: judged on the domain's pooled ones
    # DocsChisel profiles and accepts candidates on this many samples per task at the evaluation
    # temperature, each optimization run sampling with its own seed (independent runs)
    profile_repeats: int = 3
    guard_val_tasks: int = GUARD_VAL_TASKS  # DocsChisel: no-call validation tasks in every tool's validation
    guard_limit: int = GUARD_LIMIT  # test tasks outside the compared tools, reported apart (`guard_tasks`)
    misuse_tasks: int = 0  # DocsChisel: tasks where the agent called a tool in another's place, per tool
    misused_tools: int = 0  # DocsChisel: also optimize a tool misused on this many profiled episodes
    cross_val_tasks: int = (
        0  # DocsChisel: other optimized tools' optimization tasks in each tool's validation
    )
    in_context: bool = False  # DocsChisel: judge each tool beside the docs selected before it
    # evaluation runs of the original docs; 0 = eval_runs. OG has one doc set where every other
    # method has opt_runs, so with eval_runs samples per task its per-task rate is the noisiest term
    # of each paired difference; opt_runs x eval_runs gives it as many samples as the others
    og_eval_runs: int = 0

    def __post_init__(self) -> None:
        unknown = [m for m in self.methods if m not in METHODS]
        if unknown or not self.methods:
            raise ValueError(f"methods must be some of {', '.join(METHODS)}; got {list(self.methods)}")
        for name in ("opt_runs", "eval_runs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.curve_eval_runs < 0 or self.iterations < 0 or self.og_eval_runs < 0:
            raise ValueError("curve_eval_runs, iterations and og_eval_runs must be >= 0")
        if self.profile_repeats < 1:
            raise ValueError("profile_repeats must be at least 1")
        if (
            min(
                self.guard_limit,
                self.guard_val_tasks,
                self.misuse_tasks,
                self.cross_val_tasks,
                self.misused_tools,
            )
            < 0
        ):
            raise ValueError(
                "guard_limit, guard_val_tasks, misuse_tasks, cross_val_tasks and misused_tools must be >= 0"
            )
        if self.misused_tools and not self.misuse_tasks:
            raise ValueError(
                "misused_tools needs misuse_tasks > 0: a misused tool is judged on its misuse tasks"
            )
        if self.limit_tools is not None and self.limit_tools < 1:
            raise ValueError("limit_tools must be at least 1 (or None for every tool)")
        if self.limit is not None and self.limit < 1:
            raise ValueError("limit must be at least 1 (or None for every test task)")
        check_grouping(self.split_grouping)
        if self.temperature <= 0:
            raise ValueError("temperature must be > 0: at 0 the evaluation runs would be identical")
        # canonical order, so the same comparison always has the same id
        object.__setattr__(self, "methods", tuple(m for m in METHODS if m in self.methods))
        object.__setattr__(self, "domains", tuple(sorted(set(self.domains))))
        object.__setattr__(self, "optimizer_models", tuple(dict.fromkeys(self.optimizer_models)))

    @property
    def compare_id(self) -> str:
        """The hash of the spec and of the target model's runtime (a local model's weights, llama.cpp
        build and grammar): the same spec run on another runtime is another comparison."""
        runtime = self.agent.identity().get("runtime")
        spec = asdict(self)
        if self.split_grouping == "task":  # comparisons on the task-level split keep the ids they had
            spec.pop("split_grouping")
        if not self.misuse_tasks:  # likewise for comparisons made before misuse tasks existed
            spec.pop("misuse_tasks")
        if not self.cross_val_tasks:  # likewise for comparisons made before cross-tool validation existed
            spec.pop("cross_val_tasks")
        if not self.in_context:  # likewise
            spec.pop("in_context")
        if not self.misused_tools:  # likewise
            spec.pop("misused_tools")
        if not self.og_eval_runs:  # likewise
            spec.pop("og_eval_runs")
        return content_hash("compare", spec, *([runtime] if runtime else []))

    def runs_of(self, method: str) -> int:
        """Evaluation runs of one method's doc sets: `og_eval_runs` for OG where set."""
        return self.og_eval_runs if method == "og" and self.og_eval_runs else self.eval_runs

    def eval_agent(self, eval_run: int) -> AgentConfig:
        """The target agent of evaluation run j: `agent` sampled at `temperature` with seed j.

        `agent` itself (temperature 0 by default) is what the optimizer evaluates candidates with.
        """
        return replace(self.agent, temperature=self.temperature, seed=eval_run)

    def dc_variants(self) -> list[tuple[str, str | None]]:
        """(method key, optimizer model) of the DocsChisel runs; None = the optimizer's default."""
        models: list[str | None] = list(self.optimizer_models) or [None]
        return [("dc" if i == 0 else f"dc:{m}", m) for i, m in enumerate(models)]


EVIDENCE = "evidence"  # an optimizer "model" meaning DocsChisel's evidence engine (no model at all)


def engine_for(spec: CompareSpec, optimizer_model: str | None) -> tuple[str, str | None]:
    """(engine, optimizer model) of one DocsChisel variant: `evidence` is the evidence engine."""
    if optimizer_model == EVIDENCE:
        return "evidence", None
    return spec.engine, optimizer_model


def reflection_model(spec: CompareSpec) -> str | None:
    """The model GEPA reflects with: DocsChisel's first LLM optimizer model (None: the default)."""
    return next((m for m in spec.optimizer_models if m != EVIDENCE), None)


def optimization_agent(spec: CompareSpec, opt_run: int) -> AgentConfig:
    """The target agent DocsChisel optimizes with: the evaluation temperature, one seed per run."""
    return replace(spec.agent, temperature=spec.temperature, seed=opt_run)


def compared_tools(
    warehouse,
    spec: CompareSpec,
    bench: Benchmark,
    evaluator_factory: Callable[..., Any] | None = None,
    skipped: dict[str, str] | None = None,
) -> list[str] | None:
    """The tools every method documents; None = every tool of the domains.

    With `headroom`, the original docs are profiled first on the domains'
    optimization and validation tasks (the optimization agent of run 0,
    `profile_repeats` samples per task, so DocsChisel run 0 reuses these
    episodes) and only tools whose TS⁰ lies in the band are compared. Then
    `limit_tools` keeps, per domain, the tools with the most optimization and
    validation tasks (the rule of `core.chisel.profile.tool_tasks`), so
    EasyTool and DRAFT rewrite exactly the tools DocsChisel optimizes and the
    test tasks are the ones that use them. `skipped`, when given, receives each
    profiled tool left out of the band and why, so the caller can say so.
    """
    if not spec.limit_tools and spec.headroom is None:
        return None
    from core.chisel.profile import tool_tasks

    all_tasks = bench.tasks()
    split = get_or_create_split(
        warehouse, benchmark_key(bench), all_tasks, seed=spec.split_seed, grouping=spec.split_grouping
    )
    domain_tasks = select_tasks(bench, all_tasks, domains=list(spec.domains) or None)
    by_domain = tool_tasks(
        domain_tasks,
        split,
        list(bench.original_docs()),
        max_opt=spec.max_opt_tasks,
        max_val=spec.max_val_tasks,
    )
    skipped = {} if skipped is None else skipped
    if spec.headroom is not None:
        by_domain = _with_headroom(warehouse, spec, bench, by_domain, evaluator_factory, skipped)
    if spec.limit_tools:
        for domain, items in by_domain.items():
            items.sort(key=lambda tt: (not (tt.opt and tt.val), -(len(tt.opt) + len(tt.val)), tt.tool))
            by_domain[domain] = items[: spec.limit_tools]
    tools = sorted(tt.tool for items in by_domain.values() for tt in items)
    if not tools:
        why = "".join(f"\n  {tool}: {reason}" for tool, reason in sorted(skipped.items()))
        raise ValueError(
            f"no tool of {spec.benchmark} ({', '.join(spec.domains) or 'all domains'}) has TS⁰ in the headroom "
            f"band {spec.headroom}: the agent always or never succeeds with the original docs" + why
        )
    return tools


def _with_headroom(
    warehouse, spec: CompareSpec, bench: Benchmark, by_domain: dict, evaluator_factory, skipped: dict
) -> dict:
    """Keep the tools whose profiled TS⁰ (opt + val, all samples) lies in the spec's band; `skipped`
    gets each other tool's reason (`outside_headroom`)."""
    from core.chisel.decisions import ToolProfile, outside_headroom
    from core.evaluation import RunnerEvaluator

    make = evaluator_factory or (lambda **kw: RunnerEvaluator(warehouse, bench, **kw))
    evaluator = make(agent=optimization_agent(spec, 0), repeats=spec.profile_repeats)
    original = bench.original_docs()
    kept: dict[str, list] = {}
    for domain, items in by_domain.items():
        tasks = {t.task_id: t for tt in items for t in (*tt.opt, *tt.val)}
        if not tasks:
            continue
        ordered = sorted(tasks.values(), key=lambda t: t.task_id)
        batch = evaluator.evaluate(
            original, ordered, "opt+val", kind="compare-profile", label={"domain": domain}
        )
        for tt in items:
            profile = ToolProfile(
                tt.tool, domain, batch.only(t.task_id for t in tt.opt), batch.only(t.task_id for t in tt.val)
            )
            reason = outside_headroom(profile, spec.headroom)
            if reason is None:
                kept.setdefault(domain, []).append(tt)
            else:
                skipped[tt.tool] = reason
    return kept


_CHOOSE = object()  # compare_tasks: choose the compared tools itself


def compare_tasks(
    warehouse, spec: CompareSpec, bench: Benchmark, tools: list[str] | None | object = _CHOOSE
) -> tuple[str, list[Task]]:
    """(split id, the seeded sample of the split's test part for the spec's domains [and compared tools]).

    `tools` are the compared tools when the caller has chosen them already
    (None: every tool); by default `compared_tools` chooses them.
    """
    if tools is _CHOOSE:
        tools = compared_tools(warehouse, spec, bench)
    all_tasks = bench.tasks()
    split = get_or_create_split(
        warehouse, benchmark_key(bench), all_tasks, seed=spec.split_seed, grouping=spec.split_grouping
    )
    domain_tasks = select_tasks(bench, all_tasks, domains=list(spec.domains) or None)
    if tools is not None:
        domain_tasks = [t for t in domain_tasks if set(t.tools) & set(tools)]
    chosen = sample(split.tasks(domain_tasks, "test"), spec.limit, spec.split_seed)
    if not chosen:
        raise ValueError(f"no test tasks in {spec.benchmark} for domains {list(spec.domains) or 'all'}")
    return split.split_id, chosen


def guard_tasks(warehouse, spec: CompareSpec, bench: Benchmark, tools: list[str] | None) -> list[Task]:
    """The regression guard: a seeded sample (`guard_limit`) of the domains' test tasks that use none of `tools`.

    When a comparison optimizes some of a domain's tools, its test tasks are
    the ones whose ground truth uses them; but the new docs are in the
    agent's prompt on every task of the domain. A doc that says "call it
    whenever…" can win its tool's tasks and lose the others, above all the
    requests whose right outcome is to call nothing (40 of WorkBench's 120
    analytics tasks). Those losses must be measured, on the same held-out
    test part, and reported beside the main result rather than mixed into
    it. Empty when every tool is compared (`tools` None) or the guard is off.
    """
    if tools is None or not spec.guard_limit:
        return []
    all_tasks = bench.tasks()
    split = get_or_create_split(
        warehouse, benchmark_key(bench), all_tasks, seed=spec.split_seed, grouping=spec.split_grouping
    )
    domain_tasks = select_tasks(bench, all_tasks, domains=list(spec.domains) or None)
    others = [t for t in domain_tasks if not set(t.tools) & set(tools)]
    return sample(split.tasks(others, "test"), spec.guard_limit, spec.split_seed)
