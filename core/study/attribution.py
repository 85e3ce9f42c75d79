"""Which tool's new doc moved a result: each changed doc alone, and the doc set without it.

Why: the agent reads a doc set whole — every offered tool's doc is in the one
prompt — so a change to one tool's doc can move the agent on another tool's
requests. A comparison reports what a doc set does in total; it cannot say
which of its changed docs did it, nor whether a gain on one tool's tasks came
from that tool's doc. On API-Bank health, for instance, GEPA's lead over the
original docs sat on ModifyRegistration tasks although GEPA changed neither
ModifyRegistration's nor AppointmentRegistration's doc.

For a target doc set T and a base B (the original docs), with C the tools
whose docs differ:

- `only t`: B with T's doc of t — what t's new doc does by itself;
- `without t`: T with B's doc of t — what T loses without it (only when C
  holds more than one tool; with one, it is B).

Every variant runs on the same tasks with the same evaluation agents as B and
T (run j samples at temperature T with seed j), so it is paired with them task
by task and seed by seed; built from a comparison (`from_comparison`), B's and
T's episodes are the comparison's own and are reused, not run again.

Per variant: ΔTS in percentage points with a paired bootstrap interval over
tasks — the target and `only t` against B (what the docs add), `without t`
against T (what taking t's doc out loses, so a doc that helps only beside the
others shows) — and the same Δ on the tasks whose ground truth uses the
changed tool (`own`) and on the others (`others`): a doc whose effect is
mostly on `others` acts through the agent's choice among tools, not through
what it says about its own tool. Stored as ordinary runs (kind
`attribution-eval`, the spec and the own-task lists in the parent run's
config), so the run archive keeps them and the report is rebuilt from them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace

import pandas as pd

from core.agents import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import get_benchmark
from core.docs import DocSet
from core.study.stats import paired_task_delta
from core.warehouse.records import content_hash

KIND = "attribution"
EVAL_KIND = "attribution-eval"


class AttributionError(ValueError):
    """A reference the attribution cannot resolve; the message names it."""


@dataclass(frozen=True)
class AttributionSpec:
    """Everything that defines one attribution; its hash is the attribution id."""

    benchmark: str
    task_ids: tuple[str, ...]
    agent: AgentConfig
    base: str  # doc-set id
    target: str  # doc-set id
    temperature: float = 0.7
    eval_runs: int = 3
    leave_one_out: bool = True
    compare_id: str = ""  # the comparison the tasks, agent and doc sets come from, if any
    label: str = ""  # what the target is, for titles ("gepa, optimization run 0")

    def __post_init__(self) -> None:
        if self.eval_runs < 1:
            raise AttributionError("eval_runs must be at least 1")
        if not self.task_ids:
            raise AttributionError("an attribution needs at least one task")
        if self.base == self.target:
            raise AttributionError(
                f"base and target are the same doc set {self.base!r}: nothing to attribute"
            )

    @property
    def attribution_id(self) -> str:
        d = asdict(self)
        d["agent"] = self.agent.to_json()
        return content_hash("attribution", d)

    def eval_agent(self, eval_run: int) -> AgentConfig:
        """Evaluation run j: the agent sampled at `temperature` with seed j (as a comparison's run j)."""
        return replace(self.agent, temperature=self.temperature, seed=eval_run)


@dataclass(frozen=True)
class Variant:
    label: str  # base | target | only <tool> | without <tool>
    kind: str  # base | target | only | without
    tool: str | None
    docset: DocSet


def changed_tools(base: DocSet, target: DocSet) -> list[str]:
    """Tools whose doc differs between the two sets (a tool missing from either is an error)."""
    missing = sorted(set(base) ^ set(target))
    if missing:
        raise AttributionError(
            f"the doc sets offer different tools ({', '.join(missing)}); attribution swaps docs of shared tools"
        )
    return sorted(t for t in target if target[t].doc_id != base[t].doc_id)


def plan_variants(base: DocSet, target: DocSet, leave_one_out: bool = True) -> list[Variant]:
    """Base, target, then `only t` per changed tool and (with several) `without t`."""
    changed = changed_tools(base, target)
    if not changed:
        raise AttributionError("the target doc set changes no tool's doc")
    out = [Variant("base", "base", None, base), Variant("target", "target", None, target)]
    for t in changed:
        out.append(
            Variant(f"only {t}", "only", t, DocSet(base.replace(target[t]).values(), name=f"only {t}"))
        )
    if leave_one_out and len(changed) > 1:
        for t in changed:
            out.append(
                Variant(
                    f"without {t}",
                    "without",
                    t,
                    DocSet(target.replace(base[t]).values(), name=f"without {t}"),
                )
            )
    return out


def _stored(wh, compare_id: str):
    """The comparison's latest finished snapshot (`compare_report.stored_comparisons`)."""
    from core.study.compare_report import stored_comparisons

    found = stored_comparisons(wh, compare_id)
    if not found:
        raise AttributionError(f"no finished comparison {compare_id!r} in {wh.path}")
    return found[0]


def method_docset(comparison, method: str, opt_run: int) -> str:
    """The doc set a stored comparison evaluated for `method` in optimization run `opt_run`."""
    rows = comparison.methods[comparison.methods["method"] == method] if not comparison.methods.empty else []
    if len(rows) == 0:
        known = sorted(comparison.methods["method"]) if not comparison.methods.empty else []
        raise AttributionError(f"the comparison has no method {method!r} (it has {', '.join(known)})")
    points = rows.iloc[0]["points"]
    for p in json.loads(points) if isinstance(points, str) else points:
        if int(p.get("opt_run", 0)) == opt_run:
            return str(p["docset_id"])
    raise AttributionError(f"the comparison's {method!r} has no optimization run {opt_run}")


def from_comparison(
    wh, compare_id: str, method: str, opt_run: int = 0, base_method: str = "og", leave_one_out: bool = True
) -> AttributionSpec:
    """The attribution of a comparison's doc set: its test tasks, evaluation agents and runs, base OG."""
    comp = _stored(wh, compare_id)
    spec = comp.spec
    agent = AgentConfig(**spec["agent"])
    return AttributionSpec(
        benchmark=spec["benchmark"],
        task_ids=tuple(comp.task_ids),
        agent=agent,
        base=method_docset(comp, base_method, 0),
        target=method_docset(comp, method, opt_run),
        temperature=float(spec["temperature"]),
        eval_runs=int(spec["eval_runs"]),
        leave_one_out=leave_one_out,
        compare_id=compare_id,
        label=f"{method}, optimization run {opt_run}",
    )


def _tasks(bench: Benchmark, ids: Sequence[str]) -> list[Task]:
    by_id = {t.task_id: t for t in bench.tasks()}
    missing = [t for t in ids if t not in by_id]
    if missing:
        raise AttributionError(f"{len(missing)} task ids are not in {bench.name}, e.g. {missing[0]!r}")
    return [by_id[t] for t in ids]


def run_attribution(
    wh,
    spec: AttributionSpec,
    *,
    bench: Benchmark | None = None,
    data_dir=None,
    concurrency: int = 1,
    agent_factory=None,
    log: Callable[[str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> pd.DataFrame:
    """Run (or resume: episodes are reused by content) every variant; return `attribution_rows`."""
    from core.runner import RunPlan, run

    say = log or (lambda _m: None)
    bench = bench or get_benchmark(spec.benchmark, data_dir)
    tasks = _tasks(bench, spec.task_ids)
    try:
        base, target = wh.load_docset(spec.base), wh.load_docset(spec.target)
    except (KeyError, ValueError) as exc:
        raise AttributionError(f"doc set not found in {wh.path}: {exc}") from exc
    variants = plan_variants(base, target, spec.leave_one_out)
    own = {v.tool: [t.task_id for t in tasks if v.tool in t.tools] for v in variants if v.tool}
    aid = spec.attribution_id
    for v in variants:
        if v.kind in ("only", "without"):
            wh.register_docset(
                v.docset,
                benchmark=bench.name,
                origin="attribution",
                name=v.label,
                meta={"attribution_id": aid, "kind": v.kind, "tool": v.tool},
            )
    config = {
        "attribution": {**asdict(spec), "agent": spec.agent.to_json()},
        "attribution_id": aid,
        "variants": [
            {"label": v.label, "kind": v.kind, "tool": v.tool, "docset_id": v.docset.docset_id}
            for v in variants
        ],
        "own_tasks": own,
    }
    parent = wh.start_run(KIND, config, name=f"attribution {spec.label or spec.target}", benchmark=bench.name)
    say(
        f"attribution {aid}: {len(variants) - 2} variants of {len(own)} changed tools (+ base and target) on "
        f"{len(tasks)} tasks × {spec.eval_runs} evaluation runs"
    )
    stopped = False
    for j in range(spec.eval_runs):
        for v in variants:
            if cancelled and cancelled():
                stopped = True
                break
            plan = RunPlan(
                bench,
                v.docset,
                spec.eval_agent(j),
                tasks,
                repeats=1,
                split="test",
                kind=EVAL_KIND,
                name=f"attribution {v.label} e{j}",
                extra={"attribution_id": aid, "variant": v.label, "eval_run": j},
            )
            res = run(
                wh,
                plan,
                concurrency=concurrency,
                agent_factory=agent_factory,
                parent_run=parent,
                cancelled=cancelled,
            )
            say(f"  e{j} {v.label:<32} TS {res.metrics.ts:6.1%} [{res.ran} run, {res.reused} reused]")
            if res.cancelled:
                stopped = True
                break
        if stopped:
            break
    wh.set_run_status(
        parent, "cancelled" if stopped else "finished", {"eval_runs_done": j + (0 if stopped else 1)}
    )
    return attribution_rows(wh, aid)


def _task_scores(wh, aid: str) -> dict[str, dict[int, dict[str, float]]]:
    """variant label -> eval run -> task -> success (mean over the run's episodes of the task)."""
    df = wh.query(
        f"""SELECT json_extract_string(r.config, '$.variant') AS variant,
                   json_extract(r.config, '$.eval_run')::INT AS eval_run,
                   e.task_id, avg(e.success::INT) AS s
            FROM runs r JOIN run_episodes re USING (run_id) JOIN episodes e USING (episode_id)
            WHERE r.kind = '{EVAL_KIND}' AND json_extract_string(r.config, '$.attribution_id') = ?
            GROUP BY ALL""",
        [aid],
    )
    out: dict[str, dict[int, dict[str, float]]] = {}
    for variant, j, task, s in df.itertuples(index=False):
        out.setdefault(variant, {}).setdefault(int(j), {})[task] = float(s)
    return out


def _delta(variant: dict[int, dict[str, float]], base: dict[int, dict[str, float]], keep: set[str] | None):
    runs = sorted(set(variant) & set(base))
    pick = (lambda d: {t: s for t, s in d.items() if t in keep}) if keep is not None else (lambda d: d)
    v, b = [pick(variant[j]) for j in runs], [pick(base[j]) for j in runs]
    if not runs or not any(v):
        return None, 0
    d = paired_task_delta(v, b)
    return d, d.n


def _ts(runs: dict[int, dict[str, float]], paired: Sequence[int]) -> float:
    """TS in percent over the paired evaluation runs (every task of each run counts once)."""
    values = [s for j in paired for s in runs[j].values()]
    return 100 * sum(values) / len(values) if values else float("nan")


def attribution_rows(wh, attribution_id: str | None = None) -> pd.DataFrame:
    """One row per variant of each stored attribution (the newest run per attribution id).

    Columns: attribution_id, label (the target), compare_id, variant, kind, tool, against, n_tasks,
    eval_runs, ts_against, ts_variant (percent), delta_pp with ci_low / ci_high, and own_n /
    own_delta_pp, others_n / others_delta_pp (the tasks whose ground truth uses the tool, and the rest).
    The target and `only t` are measured against the base (what the docs add); `without t` against the
    target (what taking t's doc out of it loses, so a doc that only helps beside the others shows).
    """
    where = "" if attribution_id is None else "AND json_extract_string(config, '$.attribution_id') = ?"
    runs = wh.query(
        f"SELECT run_id, config, created_at FROM runs WHERE kind = '{KIND}' {where} ORDER BY created_at",
        [] if attribution_id is None else [attribution_id],
    )
    latest: dict[str, dict] = {}
    for _, r in runs.iterrows():
        cfg = json.loads(r["config"])
        latest[cfg["attribution_id"]] = cfg
    rows = []
    for aid, cfg in latest.items():
        scores = _task_scores(wh, aid)
        spec = cfg["attribution"]
        for v in cfg["variants"]:
            against = "target" if v["kind"] == "without" else "base"
            base = scores.get(against, {})
            if v["kind"] == "base" or v["label"] not in scores or not base:
                continue
            got = scores[v["label"]]
            d, n = _delta(got, base, None)
            if d is None:
                continue
            paired = sorted(set(got) & set(base))
            row = {
                "attribution_id": aid,
                "label": spec.get("label") or spec["target"],
                "compare_id": spec.get("compare_id", ""),
                "variant": v["label"],
                "kind": v["kind"],
                "tool": v["tool"],
                "against": against,
                "n_tasks": n,
                "eval_runs": len(paired),
                "ts_against": _ts(base, paired),
                "ts_variant": _ts(got, paired),
                "delta_pp": 100 * d.mean,
                "ci_low": 100 * d.low,
                "ci_high": 100 * d.high,
                "own_n": 0,
                "own_delta_pp": None,
                "others_n": 0,
                "others_delta_pp": None,
            }
            if v["tool"]:
                own = set(cfg["own_tasks"].get(v["tool"], []))
                everything = set().union(*(set(base[j]) for j in paired))
                for part, keep in (("own", own), ("others", everything - own)):
                    dd, nn = _delta(got, base, keep)
                    row[f"{part}_n"] = nn
                    row[f"{part}_delta_pp"] = None if dd is None else 100 * dd.mean
            rows.append(row)
    return pd.DataFrame(rows)


def _pp(x: float | None) -> str:
    return "–" if x is None or pd.isna(x) else f"{x:+.1f}"


def title(rows: pd.DataFrame) -> str:
    """One attribution's heading: the target, its comparison, tasks and evaluation runs."""
    r = rows.iloc[0]
    where = f" of comparison `{r['compare_id']}`" if r["compare_id"] else ""
    return (
        f"**{r['label']}{where}: {int(rows['n_tasks'].max())} tasks × {int(rows['eval_runs'].max())} "
        f"evaluation runs (attribution `{r['attribution_id']}`)**"
    )


def table_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """The printed columns of one attribution, target first, then `only`, then `without` rows."""
    order = {"target": 0, "only": 1, "without": 2}
    rows = rows.assign(_o=rows["kind"].map(order)).sort_values(["_o", "variant"])
    return pd.DataFrame(
        {
            "doc set": rows["variant"].map(
                lambda v: "the target (every changed doc)" if v == "target" else v
            ),
            "against": rows["against"],
            "TS against %": rows["ts_against"].round(1),
            "TS variant %": rows["ts_variant"].round(1),
            "ΔTS pp [95% CI]": [
                f"{_pp(d)} [{_pp(lo)}, {_pp(hi)}]"
                for d, lo, hi in zip(rows["delta_pp"], rows["ci_low"], rows["ci_high"], strict=True)
            ],
            "its own tasks: n, ΔTS pp": [
                "" if not t else f"{n}, {_pp(d)}"
                for t, n, d in zip(rows["tool"], rows["own_n"], rows["own_delta_pp"], strict=True)
            ],
            "the other tasks: n, ΔTS pp": [
                "" if not t else f"{n}, {_pp(d)}"
                for t, n, d in zip(rows["tool"], rows["others_n"], rows["others_delta_pp"], strict=True)
            ],
        }
    )


def markdown(rows: pd.DataFrame, render: Callable[[pd.DataFrame], str]) -> str:
    """Every stored attribution: heading and table (`render` draws a frame as markdown)."""
    parts = []
    for _, group in rows.groupby("attribution_id", sort=False):
        parts += [title(group), render(table_frame(group))]
    return "\n\n".join(parts)
