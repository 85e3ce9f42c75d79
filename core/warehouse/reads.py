"""Read queries other layers need, so they do not write SQL against the warehouse's tables.

Why: the schema is the warehouse's business. The evaluation layer, the
optimizer and the reports ask these functions for rows; when a table changes,
these queries change with it and nothing above notices.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from core.docs import DocSet, ToolDoc
from core.warehouse.records import LEGACY_INFRA_SQL, TRACELESS_SQL
from core.warehouse.store import Store

if TYPE_CHECKING:
    import pandas as pd


class Reads(Store):
    """Lookups every layer needs on the warehouse object itself (documents, episodes, the LLM cache)."""

    def load_doc(self, doc_id: str) -> ToolDoc:
        row = self.rows("SELECT doc FROM doc_versions WHERE doc_id = ?", [doc_id])
        if not row:
            raise KeyError(f"no doc version {doc_id!r} in {self.path}")
        return ToolDoc.model_validate_json(row[0][0])

    def load_docset(self, docset_id: str) -> DocSet:
        rows = self.rows(
            "SELECT v.doc, s.name FROM doc_set_members m JOIN doc_versions v USING (doc_id) "
            "JOIN doc_sets s USING (docset_id) WHERE m.docset_id = ? ORDER BY m.tool",
            [docset_id],
        )
        if not rows:
            raise KeyError(f"no doc set {docset_id!r} in {self.path}")
        return DocSet([ToolDoc.model_validate_json(r[0]) for r in rows], name=rows[0][1] or "")

    def existing_episodes(self, episode_ids: Sequence[str], *, traces: bool = False) -> set[str]:
        """The given episodes that are stored (legacy infrastructure failures do not count: they re-run).

        With `traces`, neither do episodes restored from the results archive without their trace.
        """
        if not episode_ids:
            return set()
        rows = self.rows(
            "SELECT episode_id FROM episodes WHERE episode_id IN (SELECT unnest(?::VARCHAR[])) "
            f"AND NOT {LEGACY_INFRA_SQL}" + (f" AND NOT {TRACELESS_SQL}" if traces else ""),
            [list(episode_ids)],
        )
        return {r[0] for r in rows}

    def llm_cache_get(self, key: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT response FROM llm_cache WHERE key = ?", [key])
        return json.loads(rows[0][0]) if rows else None


def run_episodes(store: Store, run_id: str, task_ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The episodes linked to a run (optionally only some tasks), by task then repeat, with their tool calls.

    Each row: episode_id, task_id, domain, query, success, tool_correct,
    error_class, error, final_answer, n_steps, tokens, repeat, score (dict) and
    steps (list of {tool, args, output, error} in order).
    """
    params: list[Any] = [run_id]
    where = ""
    ids = sorted(set(task_ids)) if task_ids is not None else None
    if ids is not None:
        if not ids:
            return []
        where = " AND e.task_id IN (SELECT unnest(?::VARCHAR[]))"
        params.append(ids)
    eps = store.rows(
        f"""SELECT e.episode_id, e.task_id, e.domain, coalesce(t.query, ''), e.success, e.tool_correct,
                   e.error_class, e.error, e.final_answer, e.n_steps,
                   coalesce(e.tokens_in, 0) + coalesce(e.tokens_out, 0), e."repeat", e.score
            FROM episodes e JOIN run_episodes r USING (episode_id)
            LEFT JOIN tasks t ON t.benchmark = e.benchmark AND t.task_id = e.task_id
            WHERE r.run_id = ?{where}
            ORDER BY e.task_id, e."repeat" """,
        params,
    )
    if not eps:
        return []
    steps = tool_calls(store, [r[0] for r in eps])
    keys = (
        "episode_id task_id domain query success tool_correct error_class error final_answer n_steps tokens repeat"
    ).split()
    out = []
    for r in eps:
        row = dict(zip(keys, r[:12], strict=True))
        score = r[12]
        row["score"] = json.loads(score) if isinstance(score, str) and score else {}
        row["steps"] = steps.get(row["episode_id"], [])
        out.append(row)
    return out


def tool_calls(store: Store, episode_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """episode id -> its tool-call events in order: {tool, args, output, error}."""
    if not episode_ids:
        return {}
    rows = store.rows(
        """SELECT episode_id, tool, args, output, error FROM events
           WHERE kind = 'tool_call' AND episode_id IN (SELECT unnest(?::VARCHAR[]))
           ORDER BY episode_id, seq""",
        [list(episode_ids)],
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for eid, tool, args, output, error in rows:
        out.setdefault(eid, []).append(
            {"tool": tool, "args": json.loads(args) if args else {}, "output": output, "error": error}
        )
    return out


def tool_events(store: Store, episode_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """episode id -> its tool-call events in order, with seq and payload (composite tools' inner calls
    carry `payload.parent_seq`, see core.benchmarks.base.InnerCall)."""
    if not episode_ids:
        return {}
    rows = store.rows(
        """SELECT episode_id, seq, tool, args, output, error, payload FROM events
           WHERE kind = 'tool_call' AND episode_id IN (SELECT unnest(?::VARCHAR[]))
           ORDER BY episode_id, seq""",
        [list(episode_ids)],
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for eid, seq, tool, args, output, error, payload in rows:
        out.setdefault(eid, []).append(
            {
                "seq": int(seq),
                "tool": tool,
                "args": json.loads(args) if args else {},
                "output": output,
                "error": error,
                "payload": json.loads(payload) if payload else {},
            }
        )
    return out


def runs_agent_tokens(store: Store, run_ids: Sequence[str]) -> int:
    """Prompt + completion tokens of the distinct episodes of some runs (episodes shared by runs count once)."""
    if not run_ids:
        return 0
    return int(
        store.scalar(
            """SELECT coalesce(sum(e.tokens_in + e.tokens_out), 0) FROM episodes e
               WHERE e.episode_id IN (SELECT episode_id FROM run_episodes
                                      WHERE run_id IN (SELECT unnest(?::VARCHAR[])))""",
            [list(dict.fromkeys(run_ids))],
        )
        or 0
    )


def child_run_episodes(store: Store, run_id: str) -> int:
    """Distinct episodes of the runs `run_id` started (`runs.parent_run`): what an optimize run spent.

    A DocsChisel run's evaluations (profile included) are its child runs; an
    episode two of them share (stored once, reused) counts once. The comparison
    gives GEPA this many target-agent episodes as its budget.
    """
    return int(
        store.scalar(
            """SELECT count(DISTINCT re.episode_id) FROM run_episodes re JOIN runs r USING (run_id)
               WHERE r.parent_run = ?""",
            [run_id],
        )
        or 0
    )


def task_successes(store: Store, run_id: str) -> dict[str, float]:
    """Task id -> success (mean over the run's episodes of that task) of one run."""
    rows = store.rows(
        """SELECT e.task_id, avg(e.success::INT) FROM run_episodes re JOIN episodes e USING (episode_id)
           WHERE re.run_id = ? GROUP BY e.task_id""",
        [run_id],
    )
    return {tid: float(s) for tid, s in rows}


def result_docset_id(store: Store, ref: str) -> str | None:
    """The doc set a finished run produced (an optimize run's result), or a DocsChisel doc set named by `ref`.

    `ref` may be a run id (the newest `finished` status with a `docset_id`) or
    the id of a DocsChisel doc set / the run that made one; None when unknown.
    """
    rows = store.rows(
        "SELECT json_extract_string(detail, '$.docset_id') FROM run_status "
        "WHERE run_id = ? AND status = 'finished' ORDER BY ts DESC LIMIT 1",
        [ref],
    )
    if rows and rows[0][0]:
        return rows[0][0]
    rows = store.rows(
        "SELECT docset_id FROM doc_sets WHERE origin = 'docschisel' "
        "AND (json_extract_string(meta, '$.run_id') = ? OR docset_id = ?) ORDER BY created_at DESC LIMIT 1",
        [ref, ref],
    )
    return rows[0][0] if rows else None


def eval_run_docset_id(store: Store, run_id: str) -> str | None:
    """The doc set an evaluation run evaluated."""
    rows = store.rows(
        "SELECT json_extract_string(config, '$.docset_id') FROM runs WHERE run_id = ? AND kind = 'eval'",
        [run_id],
    )
    return rows[0][0] if rows and rows[0][0] else None


def has_docset(store: Store, docset_id: str) -> bool:
    return bool(store.rows("SELECT 1 FROM doc_sets WHERE docset_id = ?", [docset_id]))


def task_outcomes(store: Store, run_id: str) -> dict[str, tuple[float, float]]:
    """Task id -> (success, tool correctness), each the mean over the run's episodes of that task."""
    rows = store.rows(
        """SELECT e.task_id, avg(e.success::INT), avg(e.tool_correct::INT)
           FROM run_episodes re JOIN episodes e USING (episode_id) WHERE re.run_id = ? GROUP BY e.task_id""",
        [run_id],
    )
    return {tid: (float(s), float(c)) for tid, s, c in rows}


def field_impacts(store: Store, benchmark: str, model: str, paradigm: str) -> list[dict[str, Any]]:
    """The current field-study rows of one benchmark × backbone × paradigm (`current_field_impacts`).

    The optimizer turns them into priors over field operations: a field the
    study measured as harmful for this backbone is a candidate for removal.
    """
    rows = current_field_impacts(store, benchmark=benchmark, model=model, paradigm=paradigm)
    cols = ["domain", "field", "operation", "delta_pp", "ci_low", "ci_high", "repeats"]
    return rows.sort_values(["domain", "field"])[cols].to_dict("records") if not rows.empty else []


_CELL_COLUMNS = frozenset({"benchmark", "model", "paradigm"})


def current_field_impacts(store: Store, study_id: str | None = None, **cell: str) -> pd.DataFrame:
    """The current row per (study, field) of the field studies matching `study_id` / `cell`
    (benchmark=, model=, paradigm=): the latest written (the table is append-only), among the rows
    paired with the study's latest original-docs run.

    A run's id covers how the docs are rendered, so when the renderer changes what the agent reads,
    re-running a study measures a new original-docs run; a field not re-measured yet still has a row
    paired with the old one, against a baseline that no longer holds. Such rows are left out until
    their field is measured again (the study's newest row names the current run).
    """
    unknown = set(cell) - _CELL_COLUMNS
    if unknown:  # column names go into the SQL text: only these three
        raise ValueError(f"field impacts are selected by {sorted(_CELL_COLUMNS)}, not {sorted(unknown)}")
    conds = [f"{k} = ?" for k in cell] + (["study_id = ?"] if study_id else [])
    params = [*cell.values(), *([study_id] if study_id else [])]
    where = f"WHERE {' AND '.join(conds)}" if conds else ""
    rows = store.query(
        f"""SELECT * EXCLUDE (rn) FROM (
                SELECT *, row_number() OVER (PARTITION BY study_id, field ORDER BY created_at DESC, repeats DESC) AS rn
                FROM field_impact {where}
            ) WHERE rn = 1 ORDER BY benchmark, domain, model, paradigm, study_id""",
        params,
    )
    if rows.empty:
        return rows
    base = rows["detail"].map(_base_run)
    newest = rows.assign(_base=base).sort_values("created_at").groupby("study_id")["_base"].last()
    current = rows["study_id"].map(newest)
    keep = base.isna() | current.isna() | (base == current)
    return rows[keep.to_numpy()].reset_index(drop=True)


def _base_run(detail: object) -> str | None:
    """The original-docs run of repeat 0 that a field-study row is paired with (None: not recorded)."""
    try:
        runs = json.loads(detail).get("base_runs") if isinstance(detail, str) else None
    except (ValueError, AttributeError):
        return None
    return runs[0] if isinstance(runs, list) and runs else None


def task_failures(store: Store, run_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """Task id -> how often each failure reason occurred in these runs' failed episodes.

    The reason is the scorer's (`score.reason`, e.g. API-Bank's "API Name
    Mismatch: A vs B"), else the episode's error class, else "wrong outcome":
    what a reader needs to see why a task flipped or never moved.
    """
    if not run_ids:
        return {}
    marks = ", ".join("?" for _ in run_ids)
    rows = store.rows(
        f"""SELECT e.task_id,
                   coalesce(json_extract_string(e.score, '$.reason'), e.error_class, 'wrong outcome') AS why,
                   count(*)
            FROM run_episodes re JOIN episodes e USING (episode_id)
            WHERE re.run_id IN ({marks}) AND NOT e.success
            GROUP BY ALL""",
        list(run_ids),
    )
    out: dict[str, dict[str, int]] = {}
    for task, why, n in rows:
        out.setdefault(task, {})[str(why)[:120]] = int(n)
    return out


# ---------------------------------------------------------------------- EvoSOP (core/sop)


def sop_epochs(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The stored epochs of an evolve run, in order (columns of `sop_epochs`, detail as a dict)."""
    df = store.query("SELECT * FROM sop_epochs WHERE run_id = ? ORDER BY epoch", [run_id])
    out = []
    for r in df.to_dict("records"):
        r["detail"] = json.loads(r["detail"]) if isinstance(r.get("detail"), str) and r["detail"] else {}
        for k in ("evaluated", "kept", "added", "merged", "pruned"):
            r[k] = [str(x) for x in (r.get(k) if r.get(k) is not None else [])]
        out.append(r)
    return out


def sops_by_id(store: Store, sop_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """sop id -> its stored row (doc and detail as dicts, lists as lists)."""
    ids = sorted(set(sop_ids))
    if not ids:
        return {}
    df = store.query("SELECT * FROM sops WHERE sop_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
    out = {}
    for r in df.to_dict("records"):
        for k in ("doc", "detail"):
            r[k] = json.loads(r[k]) if isinstance(r.get(k), str) and r[k] else {}
        for k in ("uses", "parents", "sources"):
            r[k] = [str(x) for x in (r.get(k) if r.get(k) is not None else [])]
        out[r["sop_id"]] = r
    return out


def sop_usage(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every `sop_usage` row of an evolve run, by epoch then SOP."""
    return store.query("SELECT * FROM sop_usage WHERE run_id = ? ORDER BY epoch, sop_id", [run_id]).to_dict(
        "records"
    )


def sop_decisions(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every `sop_decisions` row of an evolve run (added, merged, kept, pruned, rejected), by epoch."""
    return store.query(
        "SELECT * FROM sop_decisions WHERE run_id = ? ORDER BY epoch, action, sop_id", [run_id]
    ).to_dict("records")


def benchmark_infos(store: Store) -> dict[str, dict[str, Any]]:
    """What the warehouse kept about each benchmark (where a folder or server came from), by name."""
    out: dict[str, dict[str, Any]] = {}
    for name, info in store.rows("SELECT name, info FROM benchmarks"):
        try:
            data = json.loads(info) if info else {}
        except ValueError:
            data = {}
        out[str(name)] = data if isinstance(data, dict) else {}
    return out


def episode_groups(store: Store) -> list[tuple[str, str, int]]:
    """(benchmark, variant, episodes) of every benchmark configuration the runner stored episodes of,
    for re-scoring (imported and archived episodes keep the scores they were stored with)."""
    rows = store.rows(
        "SELECT benchmark, coalesce(variant, ''), count(*) FROM episodes WHERE source = 'run' "
        "GROUP BY 1, 2 ORDER BY 1, 2"
    )
    return [(str(b), str(v), int(n)) for b, v, n in rows]


def imported_episodes(store: Store) -> int:
    """Episodes that came from elsewhere (recorded results, production traces), not from the runner."""
    return int(store.scalar("SELECT count(*) FROM episodes WHERE coalesce(source, '') <> 'run'") or 0)


def stored_scores(store: Store, benchmark: str, variant: str) -> list[dict[str, Any]]:
    """What re-scoring needs of each episode of one benchmark configuration: its id, task, stored
    calls and answer, its current score, and its tool_call events as (tool, args, error, error_class)."""
    eps = store.rows(
        """SELECT episode_id, task_id, calls, final_answer, success, tool_correct, score, error_class
           FROM episodes WHERE benchmark = ? AND coalesce(variant, '') = ? AND source = 'run'
           ORDER BY episode_id""",
        [benchmark, variant],
    )
    attempts: dict[str, list[tuple[Any, ...]]] = {}
    for eid, tool, args, error, error_class in store.rows(
        """SELECT v.episode_id, v.tool, v.args, v.error, v.error_class FROM events v
           JOIN episodes e USING (episode_id)
           WHERE e.benchmark = ? AND coalesce(e.variant, '') = ? AND e.source = 'run' AND v.kind = 'tool_call'
           ORDER BY v.episode_id, v.seq""",
        [benchmark, variant],
    ):
        attempts.setdefault(eid, []).append((tool, json.loads(args) if args else {}, error, error_class))
    return [
        {
            "episode_id": eid,
            "task_id": task_id,
            "calls": json.loads(calls) if calls else [],
            "final_answer": final,
            "success": success,
            "tool_correct": tool_correct,
            "score": json.loads(score) if score else {},
            "error_class": error_class,
            "attempts": attempts.get(eid, []),
        }
        for eid, task_id, calls, final, success, tool_correct, score, error_class in eps
    ]


def scoring_versions(store: Store) -> dict[int, int]:
    """How many of the runner's episodes carry scores of each version of the scoring rules
    (scores without a version are version 1)."""
    rows = store.rows(
        "SELECT coalesce(TRY_CAST(json_extract_string(score, '$.scoring') AS INTEGER), 1), count(*) "
        "FROM episodes WHERE source = 'run' GROUP BY 1"
    )
    return {int(v): int(n) for v, n in rows}
