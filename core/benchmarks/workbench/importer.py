"""Import of the 48 recorded WorkBench runs (SPEC 8) as warehouse episodes, scored by our scorer.

`iter_recorded_episodes` is pure: it reads the results CSVs, parses every cell
safely (`function_calls` with `ast.literal_eval`, `full_response` with the
whitelist of traces.py), joins each row to its task by exact query text,
scores it with `WorkBench.score_strings` in the mode that reproduces quirks
Q5-Q8 (the recorded call strings and error column, exactly what upstream
scored), and yields `(Episode, [Event, ...])`. A malformed row becomes an
episode with an error (class `import_parse_error`), never an exception.

`import_workbench_results` writes them through the warehouse's one write path.
`label_agreement` compares our labels with `derived/results_labels.csv` row by row.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from core.benchmarks.base import CallParseError, Task, parse_call
from core.benchmarks.workbench.benchmark import WorkBench
from core.benchmarks.workbench.replay import call_function_name, newline_rule, parse_call_string
from core.benchmarks.workbench.scoring import normalise_tool
from core.benchmarks.workbench.tools import ERROR_MESSAGES, WRITE_TOOLS
from core.benchmarks.workbench.traces import TraceParseError, parse_full_response, parse_function_calls
from core.warehouse.records import Episode, Event, content_hash

BENCHMARK = "workbench"
PARADIGM = "react-text"
STOPPED = "Agent stopped due to iteration limit or time limit."
# SPEC 8: the model behind each file-name alias.
MODELS: dict[str, str] = {
    "gpt-4": "gpt-4-0125-preview",
    "gpt-3.5": "gpt-3.5-turbo-instruct",
    "claude-2": "claude-2",
    "llama2-70b": "meta-llama/Llama-2-70b-chat-hf",
    "mistral-8x7B": "mistralai/Mixtral-8x7B-Instruct-v0.1",
}
LABEL_COLUMNS = (
    "correct",
    "exact_match",
    "unwanted_side_effects",
    "no_actions",
    "wrong_email",
    "end_date_minor_error",
    "meeting_start_time_error",
)
_FILE = re.compile(
    r"^(?P<alias>.+)_(?P<variant>all|domains)_(?P<ts>\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})\.csv$"
)


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    rel: str  # repository-relative path, the key used by results_labels.csv
    domain: str
    alias: str
    variant: str
    started: datetime

    @property
    def model(self) -> str:
        return MODELS.get(self.alias, self.alias)


def results_files(root: Path) -> list[ResultsFile]:
    out = []
    for path in sorted((root / "data" / "results").glob("*/*.csv")):
        m = _FILE.match(path.name)
        if not m:
            continue
        started = datetime.strptime(m["ts"], "%Y-%m-%d_%H-%M-%S")
        rel = path.relative_to(root).as_posix()
        out.append(ResultsFile(path, rel, path.parent.name, m["alias"], m["variant"], started))
    return out


def agent_config(alias: str, variant: str) -> dict[str, Any]:
    """The configuration that produced a recorded run (SPEC 5), as recorded in the warehouse."""
    return {
        "source": "import",
        "benchmark": BENCHMARK,
        "model": MODELS.get(alias, alias),
        "model_alias": alias,
        "paradigm": PARADIGM,
        "tool_variant": variant,
        "harness": "langchain 0.1.11 STRUCTURED_CHAT_ZERO_SHOT_REACT_DESCRIPTION",
        "max_iterations": 20,
        "max_execution_time_s": 120,
        "temperature": 0,
    }


def run_config(alias: str, variant: str, files: list[str]) -> dict[str, Any]:
    return {
        "benchmark": BENCHMARK,
        "source": "upstream-results",
        "agent": agent_config(alias, variant),
        "files": files,
    }


def config_id(alias: str, variant: str) -> str:
    """Same identity as `Warehouse.register_agent_config(agent_config(...))`."""
    return content_hash("agent_config", agent_config(alias, variant))


def run_id(alias: str, variant: str, files: list[str]) -> str:
    """Same identity as `Warehouse.start_run("import", run_config(...))`."""
    return content_hash("run", "import", run_config(alias, variant, files))


def classify_error(error: str) -> str | None:
    if not error:
        return None
    if error == "Context window exceeded":
        return "context_window"
    if error == STOPPED:
        return "iteration_limit"
    if error.startswith("An output parsing error occurred"):
        return "output_parsing"
    if error == "'str' object has no attribute 'items'":
        return "harness_conversion"
    if error.startswith("Error code:"):
        return "provider"
    return "tool_exception"


def _call_record(text: str) -> dict[str, Any]:
    """One recorded call string as a JSON-ready record; unparsable ones keep their text."""
    parsed = parse_call_string(text)
    if parsed is not None:
        return {"tool": parsed[0], "args": dict(parsed[1]), "text": text}
    try:
        call = parse_call(newline_rule(text))
        return {"tool": normalise_tool(call.tool), "args": dict(call.args), "text": text}
    except CallParseError as exc:
        return {"tool": call_function_name(text), "args": None, "text": text, "parse_error": str(exc)}


def _events(trace: Any, error: str, problems: list[str], ts: datetime) -> list[Event]:
    events: list[Event] = []

    def add(kind: str, **kw: Any) -> None:
        events.append(Event(seq=len(events), kind=kind, ts=ts, **kw))

    if trace is not None:
        for step in trace.steps:
            if step.thought:
                add("thought", text=step.thought)
            obs = step.observation_text
            # Validation messages and LangChain's unknown-tool reply are tool errors the agent saw.
            bad = obs in ERROR_MESSAGES or " is not a valid tool, try one of [" in obs
            is_dict = isinstance(step.tool_input, dict)
            add(
                "tool_call",
                tool=step.tool,
                args=dict(step.tool_input) if is_dict else None,
                output=obs,
                error=obs if bad else None,
                payload={"log": step.log}
                if is_dict
                else {"log": step.log, "tool_input": str(step.tool_input)},
            )
        if trace.output is not None and trace.output != STOPPED:
            add("final_answer", text=trace.output)
    if error:
        add("error", error=error, text=error)
    for p in problems:
        add("error", error=p, text=p)
    return events


def iter_recorded_episodes(
    data_dir: str | Path | None = None, *, benchmark: WorkBench | None = None
) -> Iterator[tuple[Episode, list[Event]]]:
    """Every recorded row (5,520) as a scored episode with its ordered events."""
    bench = benchmark or WorkBench(data_dir, variant="all")
    root = bench.root
    docset_id = bench.original_docs().docset_id
    by_query: dict[tuple[str, str], Task] = {(t.domain, t.query): t for t in bench.tasks()}
    files = results_files(root)
    run_files: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in files:
        run_files[(f.alias, f.variant)].append(f.rel)
    for f in files:
        rid = run_id(f.alias, f.variant, run_files[(f.alias, f.variant)])
        cid = config_id(f.alias, f.variant)
        df = pd.read_csv(f.path, dtype=object, keep_default_na=False)
        for rec in df.to_dict(orient="records"):
            task = by_query.get((f.domain, rec.get("query", "")))
            if task is None:
                continue  # a row whose query is not a task cannot be an episode; counted by label_agreement
            yield _episode(bench, f, task, rec, rid, cid, docset_id)


def _episode(
    bench: WorkBench, f: ResultsFile, task: Task, rec: dict[str, str], rid: str, cid: str, docset_id: str
) -> tuple[Episode, list[Event]]:
    error = rec.get("error", "") or ""
    problems: list[str] = []
    try:
        pred: list[str] | None = parse_function_calls(rec.get("function_calls", ""))
    except TraceParseError as exc:
        pred = None
        problems.append(f"unparsable recorded function_calls: {exc}")
    trace = None
    if rec.get("full_response"):
        try:
            trace = parse_full_response(rec["full_response"])
        except TraceParseError as exc:
            problems.append(f"unparsable recorded full_response: {exc}")
    score: dict[str, Any] = {
        "results_file": f.rel,
        "model_alias": f.alias,
        "tool_selection": f.variant,
        "error": error or None,
        "has_trace": bool(rec.get("full_response")),
    }
    if pred is not None:
        labels = bench.score_strings(task, pred, error)
        score.update(labels.as_dict())
        score["side_effects"] = labels.unwanted_side_effects
        success = labels.correct
        written = {call_function_name(c) for c in pred} & WRITE_TOOLS
        tool_correct = written == set(task.tools)
        calls = [_call_record(c) for c in pred]
    else:
        score["unscorable"] = True
        success = tool_correct = False
        calls = []
    if problems:
        score["import_problems"] = problems
    episode = Episode(
        # recorded by the benchmark's own harness, which rendered the tools its way: no rendering of ours
        episode_id=Episode.make_id(BENCHMARK, task.task_id, docset_id, cid, 0, None),
        run_id=rid,
        benchmark=BENCHMARK,
        task_id=task.task_id,
        domain=task.domain,
        docset_id=docset_id,
        config_id=cid,
        repeat=0,
        model=f.model,
        paradigm=PARADIGM,
        success=success,
        tool_correct=tool_correct,
        variant=f.variant,
        score=score,
        calls=calls,
        final_answer=trace.output if trace is not None and trace.output != STOPPED else None,
        error=error or (problems[0] if problems else None),
        error_class=classify_error(error) or ("import_parse_error" if problems else None),
        n_steps=len(trace.steps) if trace is not None else 0,
        source="import",
        started_at=f.started,
        finished_at=f.started,
    )
    return episode, _events(trace, error, problems, f.started)


def label_agreement(episodes: list[Episode], data_dir: str | Path | None = None) -> dict[str, Any]:
    """Row-by-row comparison of our labels with `derived/results_labels.csv`.

    Returns totals, agreement per label and per run (model/variant), and every
    disagreeing row with the labels on both sides.
    """
    bench = WorkBench(data_dir, variant="all")
    labels = pd.read_csv(bench.root / "derived" / "results_labels.csv", dtype=object, keep_default_na=False)
    task_of = {(t.domain, t.query): t.task_id for t in bench.tasks()}
    ours = {(e.score.get("results_file"), e.task_id): e for e in episodes}
    per_run: dict[str, dict[str, Any]] = {}
    mismatches: list[dict[str, Any]] = []
    per_label = dict.fromkeys(LABEL_COLUMNS, 0)
    matched = 0
    for row in labels.to_dict(orient="records"):
        run = f"{row['model']} {row['tool_selection']}"
        r = per_run.setdefault(
            run, {"rows": 0, "agree": 0, "correct_ref": 0, "correct_ours": 0, "se_ref": 0, "se_ours": 0}
        )
        r["rows"] += 1
        r["correct_ref"] += row["correct"] == "True"
        r["se_ref"] += row["unwanted_side_effects"] == "True"
        ep = ours.get((row["results_file"], task_of.get((row["domain"], row["query"]))))
        if ep is None:
            mismatches.append({"results_file": row["results_file"], "query": row["query"], "missing": True})
            continue
        r["correct_ours"] += bool(ep.score.get("correct"))
        r["se_ours"] += bool(ep.score.get("unwanted_side_effects"))
        diff = {
            c: {"reference": row[c] == "True", "ours": bool(ep.score.get(c))}
            for c in LABEL_COLUMNS
            if (row[c] == "True") != bool(ep.score.get(c))
        }
        if (row["error"] or None) != ep.score.get("error"):
            diff["error"] = {"reference": row["error"], "ours": ep.score.get("error")}
        if (row["has_trace"] == "True") != bool(ep.score.get("has_trace")):
            diff["has_trace"] = {"reference": row["has_trace"], "ours": ep.score.get("has_trace")}
        for c in LABEL_COLUMNS:
            per_label[c] += c not in diff
        if diff:
            mismatches.append({"results_file": row["results_file"], "task_id": ep.task_id, "diff": diff})
        else:
            matched += 1
            r["agree"] += 1
    n = len(labels)
    for r in per_run.values():
        r["accuracy_ref"] = round(r["correct_ref"] / r["rows"], 4)
        r["accuracy_ours"] = round(r["correct_ours"] / r["rows"], 4)
        r["side_effects_ref"] = round(r["se_ref"] / r["rows"], 4)
        r["side_effects_ours"] = round(r["se_ours"] / r["rows"], 4)
        r["agreement"] = round(r["agree"] / r["rows"], 4)
    return {
        "rows": n,
        "episodes": len(episodes),
        "agree": matched,
        "agreement": round(matched / n, 6) if n else 0.0,
        "per_label": {c: round(v / n, 6) for c, v in per_label.items()} if n else {},
        "per_run": dict(sorted(per_run.items())),
        "mismatches": mismatches,
    }


def import_workbench_results(warehouse: Any, data_dir: str | Path | None = None) -> dict[str, Any]:
    """Register the benchmark, docs, tasks, configs and runs, then bulk-insert all recorded episodes."""
    t0 = time.perf_counter()
    bench = WorkBench(data_dir, variant="all")
    pairs = list(iter_recorded_episodes(benchmark=bench))
    t_parse = time.perf_counter() - t0
    # Registering the doc set counts doc tokens, which imports litellm on first use (seconds of import time).
    warehouse.register_benchmark(BENCHMARK, {"data_dir": str(bench.root), "variants": ["all", "domains"]})
    docset_id = warehouse.register_docset(bench.original_docs(), benchmark=BENCHMARK, origin="original")
    warehouse.register_tasks(BENCHMARK, bench.tasks())
    files: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in results_files(bench.root):
        files[(f.alias, f.variant)].append(f.rel)
    runs: dict[str, dict[str, Any]] = {}
    for (alias, variant), rels in sorted(files.items()):
        cid = warehouse.register_agent_config(agent_config(alias, variant))
        rid = warehouse.start_run(
            "import",
            run_config(alias, variant, rels),
            name=f"WorkBench recorded {alias} {variant}",
            benchmark=BENCHMARK,
            run_id=run_id(alias, variant, rels),
        )
        runs[rid] = {"model": MODELS.get(alias, alias), "variant": variant, "config_id": cid, "episodes": 0}
    for ep, _ in pairs:
        runs[ep.run_id]["episodes"] += 1
    t_catalogue = time.perf_counter() - t0 - t_parse
    t_write = time.perf_counter()
    written = warehouse.record_episodes(pairs)
    t_write = time.perf_counter() - t_write
    for rid, info in runs.items():
        warehouse.set_run_status(rid, "finished", {"episodes": info["episodes"]})
    return {
        "episodes": len(pairs),
        "written": written,
        "events": sum(len(evs) for _, evs in pairs),
        "docset_id": docset_id,
        "runs": runs,
        "parse_score_s": round(t_parse, 2),
        "catalogue_s": round(t_catalogue, 2),
        "episodes_write_s": round(t_write, 2),
        "total_s": round(time.perf_counter() - t0, 2),
    }
