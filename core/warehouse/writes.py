"""Typed write and lookup operations of the warehouse, built on the one write path.

Every producer in the project (importer, runner, optimizer, baselines, the
dashboard's review actions) goes through these methods, so the rules of the
warehouse — immutability, content-hash identities, no duplicates on re-run —
are enforced in one place.
"""

from __future__ import annotations

import functools
import json
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from typing import Any

import pyarrow as pa

from core.config import PROJECT_ROOT
from core.docs import DocSet, ToolDoc
from core.liveness import process_owner
from core.redaction import redact
from core.warehouse.records import (
    LEGACY_INFRA_SQL,
    TRACELESS_SQL,
    Episode,
    Event,
    content_hash,
    event_row,
    now,
)
from core.warehouse.rows import Row
from core.warehouse.store import Store, insert_rows

_VERSIONED = (
    "docschisel",
    "duckdb",
    "litellm",
    "langchain",
    "langchain-litellm",
    "llama_cpp_python",
    "pydantic",
    "streamlit",
)


@functools.cache
def _versions() -> tuple[tuple[str, str], ...]:
    out = []
    for name in _VERSIONED:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return tuple(out)


def package_versions() -> dict[str, str]:
    return dict(_versions())


@functools.cache
def git_revision() -> str | None:
    try:
        res = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() or None


def _doc_tokens(doc: ToolDoc) -> int | None:
    try:
        from core.docs.tokens import token_length
    except ImportError:
        return None
    return token_length(doc)


class Writes(Store):
    """The warehouse's typed write operations (the one write path); reads are in `core.warehouse.reads`."""

    # ------------------------------------------------------------------ catalogue
    def register_benchmark(self, name: str, info: Mapping[str, Any] | None = None) -> None:
        self.insert(
            "benchmarks", [{"name": name, "info": json.dumps(info or {}, default=str), "created_at": now()}]
        )

    def register_docs(
        self,
        docs: Iterable[ToolDoc],
        *,
        origin: str,
        parents: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Store doc versions once each (by content hash); returns their ids."""
        rows, ids = [], []
        parents = parents or {}
        for d in docs:
            ids.append(d.doc_id)
            rows.append(
                {
                    "doc_id": d.doc_id,
                    "tool": d.tool,
                    "doc": d.canonical_json(),
                    "fields": list(d.present()),
                    "tokens": _doc_tokens(d),
                    "origin": origin,
                    "parent_doc_id": parents.get(d.tool),
                    "created_at": now(),
                }
            )
        self.insert("doc_versions", rows)
        return ids

    def register_docset(
        self,
        docset: DocSet,
        *,
        benchmark: str,
        origin: str,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
        parents: Mapping[str, str] | None = None,
    ) -> str:
        """Store a doc set and its members; idempotent. Returns the docset id."""
        self.register_docs(docset.values(), origin=origin, parents=parents)
        sid = docset.docset_id
        with self.transaction() as con:
            insert_rows(
                con,
                "doc_sets",
                [
                    {
                        "docset_id": sid,
                        "name": name or docset.name or origin,
                        "benchmark": benchmark,
                        "origin": origin,
                        "meta": json.dumps(meta or {}, default=str),
                        "created_at": now(),
                    }
                ],
            )
            insert_rows(
                con,
                "doc_set_members",
                [{"docset_id": sid, "tool": t, "doc_id": d.doc_id} for t, d in docset.items()],
            )
        return sid

    def promote_docset(
        self, docset_id: str, *, candidate_origin: str, origin: str, name: str, meta: Mapping[str, Any]
    ) -> None:
        """Label a doc set first stored as an optimizer's candidate as the optimizer's result.

        Doc sets are content-addressed: a result identical to a candidate it
        evaluated is already stored, under `candidate_origin`. Doc-set rows are
        catalogue entries, not traces, so relabelling one is allowed; any other
        origin (e.g. `original`) is left as it is.
        """
        with self.transaction() as con:
            con.execute(
                "UPDATE doc_sets SET origin = ?, name = ?, meta = ? WHERE docset_id = ? AND origin = ?",
                redact([origin, name, json.dumps(dict(meta), default=str), docset_id, candidate_origin]),
            )

    def register_tasks(self, benchmark: str, tasks: Iterable[Any]) -> int:
        rows = []
        for t in tasks:
            d = t.to_json()
            rows.append(
                {
                    "benchmark": benchmark,
                    "task_id": d["task_id"],
                    "domain": d["domain"],
                    "query": d["query"],
                    "gold": json.dumps(d["gold"], ensure_ascii=False, default=str),
                    "tools": list(d["tools"]),
                    "meta": json.dumps(d["meta"], ensure_ascii=False, default=str),
                }
            )
        return self.insert("tasks", rows)

    def register_agent_config(self, config: Mapping[str, Any]) -> str:
        cid = content_hash("agent_config", dict(config))
        self.insert(
            "agent_configs",
            [
                {
                    "config_id": cid,
                    "config": json.dumps(config, sort_keys=True, default=str),
                    "created_at": now(),
                }
            ],
        )
        return cid

    # ------------------------------------------------------------------ runs
    def start_run(
        self,
        kind: str,
        config: Mapping[str, Any],
        *,
        name: str = "",
        benchmark: str = "",
        parent_run: str | None = None,
        run_id: str | None = None,
    ) -> str:
        """Record a run (id = hash of kind + config unless given) and mark it started.

        The same command gives the same run id, which is what makes a re-run
        resume rather than start over.
        """
        rid = run_id or content_hash("run", kind, dict(config))
        versions, revision = json.dumps(package_versions()), git_revision()  # outside the write lease
        with self.transaction() as con:
            insert_rows(
                con,
                "runs",
                [
                    {
                        "run_id": rid,
                        "kind": kind,
                        "name": name,
                        "benchmark": benchmark,
                        "config": json.dumps(config, sort_keys=True, default=str),
                        "versions": versions,
                        "git_rev": revision,
                        "parent_run": parent_run,
                        "created_at": now(),
                    }
                ],
            )
            # the owner lets the next command or the dashboard see that a run's process is gone
            started = json.dumps({"owner": process_owner()})
            insert_rows(
                con, "run_status", [{"run_id": rid, "status": "started", "detail": started, "ts": now()}]
            )
        return rid

    def set_run_status(self, run_id: str, status: str, detail: Mapping[str, Any] | None = None) -> None:
        self.insert(
            "run_status",
            [
                {
                    "run_id": run_id,
                    "status": status,
                    "detail": json.dumps(detail or {}, default=str),
                    "ts": now(),
                }
            ],
        )

    # ------------------------------------------------------------------ traces
    def record_episodes(
        self,
        pairs: Iterable[tuple[Episode, Sequence[Event]]],
        *,
        run_id: str | None = None,
        llm_calls: Sequence[Mapping[str, Any]] = (),
        infra_failures: Sequence[Mapping[str, Any]] = (),
        release: tuple[str, Sequence[str]] | None = None,
    ) -> int:
        """Write episodes with their events atomically; episodes already stored are kept as they are.

        The same transaction can carry the LLM calls made meanwhile (so a
        crash never keeps episodes without their accounting, or the reverse),
        infrastructure failures (core.warehouse.runs) and the release of the
        writer's claims on the episodes (`(owner, episode ids)`).
        """
        from core.warehouse.runs import infra_failure_row

        ep_rows, ev_rows, links = [], [], []
        for ep, events in pairs:
            ep_rows.append(ep.row())
            ev_rows.extend(event_row(ep.episode_id, ev) for ev in events)
            links.append({"run_id": run_id or ep.run_id, "episode_id": ep.episode_id})
        if not (ep_rows or llm_calls or infra_failures or (release and release[1])):
            return 0
        with self.transaction() as con:
            insert_rows(con, "llm_calls", [dict(r) for r in llm_calls])
            insert_rows(con, "infra_failures", [infra_failure_row(f) for f in infra_failures])
            if release and release[1]:
                con.execute(
                    "DELETE FROM episode_claims WHERE owner = ? AND episode_id IN (SELECT unnest(?::VARCHAR[]))",
                    [release[0], list(release[1])],
                )
            if not ep_rows:
                return 0
            existing = set()
            ids = [r["episode_id"] for r in ep_rows]
            for i in range(0, len(ids), 5000):
                chunk = ids[i : i + 5000]
                stored = con.execute(
                    f"SELECT episode_id, {LEGACY_INFRA_SQL} OR {TRACELESS_SQL} FROM episodes "
                    "WHERE episode_id IN (SELECT unnest(?::VARCHAR[]))",
                    [chunk],
                ).fetchall()
                existing |= {eid for eid, is_legacy in stored if not is_legacy}
                # a legacy infrastructure failure, or an archived outcome without its trace, under the
                # same id gives way to the episode run again
                legacy = [eid for eid, is_legacy in stored if is_legacy]
                for table in ("events", "episodes") if legacy else ():
                    con.execute(
                        f"DELETE FROM {table} WHERE episode_id IN (SELECT unnest(?::VARCHAR[]))", [legacy]
                    )
            new_eps = [r for r in ep_rows if r["episode_id"] not in existing]
            new_evs = [r for r in ev_rows if r["episode_id"] not in existing]
            insert_rows(con, "episodes", new_eps)
            insert_rows(con, "events", new_evs)
            insert_rows(con, "run_episodes", links)
        return len(new_eps)

    def record_rescores(self, rescores: Sequence[Mapping[str, Any]]) -> int:
        """Store episodes' new scores under the current scoring rules, keeping every earlier score.

        Each item: `episode_id`, the new `scoring` version, `success`, `tool_correct`, `score`, and
        the score the episode carried (`old_scoring`, `old_success`, `old_tool_correct`,
        `old_score`). In one transaction the old and the new score become rows of `episode_scores`
        (the first row stored for a version is kept) and the episode row takes the new score; its
        trace (calls, events, answer) is not touched. See migration 0012 for why.
        """
        if not rescores:
            return 0
        stamp = now()

        def version(eid: str, scoring: Any, success: Any, tool_correct: Any, score: Any) -> dict[str, Any]:
            text = json.dumps(score, ensure_ascii=False, default=str)
            return {
                "episode_id": eid,
                "scoring": int(scoring),
                "success": success,
                "tool_correct": tool_correct,
                "score": text,
                "scored_at": stamp,
            }

        old = [
            version(
                r["episode_id"], r["old_scoring"], r["old_success"], r["old_tool_correct"], r["old_score"]
            )
            for r in rescores
        ]
        new = [
            version(r["episode_id"], r["scoring"], bool(r["success"]), bool(r["tool_correct"]), r["score"])
            for r in rescores
        ]
        current = [{k: n[k] for k in ("episode_id", "success", "tool_correct", "score")} for n in new]
        with self.transaction() as con:
            insert_rows(con, "episode_scores", old)
            insert_rows(con, "episode_scores", new)  # a version stored before keeps its first row
            con.register("_rescored", pa.Table.from_pylist(redact(current)))
            try:
                con.execute(
                    "UPDATE episodes SET success = n.success, tool_correct = n.tool_correct, score = n.score "
                    "FROM _rescored n WHERE episodes.episode_id = n.episode_id"
                )
            finally:
                con.unregister("_rescored")
        return len(current)

    def record_episode(self, episode: Episode, events: Sequence[Event]) -> bool:
        return self.record_episodes([(episode, events)]) == 1

    def link_episodes(self, run_id: str, episode_ids: Iterable[str]) -> None:
        self.insert("run_episodes", [{"run_id": run_id, "episode_id": e} for e in episode_ids])

    def llm_cache_put(self, row: Mapping[str, Any]) -> None:
        data = dict(row)
        data.setdefault("created_at", now())
        for k in ("request", "response"):
            if not isinstance(data.get(k), str):
                data[k] = json.dumps(data.get(k), ensure_ascii=False, default=str)
        self.insert("llm_cache", [data])

    def record_llm_calls(self, rows: Iterable[Mapping[str, Any]]) -> int:
        return self.insert("llm_calls", [dict(r) for r in rows])

    # ------------------------------------------------------------------ typed rows (core.warehouse.rows)
    def record(self, rows: Sequence[Row] | Iterable[Row]) -> int:
        """Write typed rows, several tables atomically; rows whose key exists are kept as they are."""
        by_table: dict[type[Row], dict[str, dict[str, Any]]] = {}
        for r in rows:
            values = r.values()
            # an identical row twice in one batch is one row
            key = json.dumps(values, sort_keys=True, default=str)
            by_table.setdefault(type(r), {}).setdefault(key, values)
        if not by_table:
            return 0
        with self.transaction() as con:
            return sum(
                insert_rows(
                    con,
                    kind.TABLE,
                    list(unique.values()),
                    ignore_existing=not kind.KEEP_DUPLICATES,
                    list_columns=kind.LISTS,
                )
                for kind, unique in by_table.items()
            )

    # ------------------------------------------------------------------ bench/ measurements
    def record_bench_results(
        self,
        bench_id: str,
        bench: str,
        rows: Iterable[tuple[str, str, float | None, Mapping[str, Any]]],
        host: Mapping[str, Any],
    ) -> int:
        """Store one script run's figures: (subject, metric, value, detail) rows under `bench_id`."""
        stamp = now()
        return self.insert(
            "bench_results",
            [
                {
                    "bench_id": bench_id,
                    "bench": bench,
                    "subject": subject,
                    "metric": metric,
                    "value": None if value is None else float(value),
                    "detail": json.dumps(dict(detail), default=str),
                    "host": json.dumps(dict(host), default=str),
                    "measured_at": stamp,
                }
                for subject, metric, value, detail in rows
            ],
        )

    # ------------------------------------------------------------------ comparisons (core.study.compare)
    def record_comparison_status(
        self,
        compare_id: str,
        status: str,
        *,
        benchmark: str,
        spec: Mapping[str, Any],
        split_id: str,
        task_ids: Sequence[str],
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        """Append a state row of a comparison (started, cancelled); finished rows come with their result."""
        with self.transaction() as con:
            insert_rows(
                con,
                "comparisons",
                [_comparison_row(compare_id, status, None, benchmark, spec, split_id, task_ids, detail)],
                ignore_existing=False,  # a log without a key: every state change is a row
                list_columns=("task_ids",),
            )

    def record_comparison_result(
        self,
        compare_id: str,
        result_id: str,
        *,
        benchmark: str,
        spec: Mapping[str, Any],
        split_id: str,
        task_ids: Sequence[str],
        methods: Sequence[Mapping[str, Any]],
        tests: Sequence[Mapping[str, Any]],
        curves: Sequence[Mapping[str, Any]],
        detail: Mapping[str, Any] | None = None,
    ) -> None:
        """Store one result snapshot with its `finished` row, atomically.

        Rows are keyed by `result_id` (a hash of their content), so storing an
        unchanged result again adds only the status row; readers take the
        snapshot of the latest finished row.
        """
        stamp = now()
        keyed = {"result_id": result_id, "compare_id": compare_id, "created_at": stamp}
        with self.transaction() as con:
            insert_rows(con, "comparison_methods", [{**dict(r), **keyed} for r in methods])
            insert_rows(con, "comparison_tests", [{**dict(r), **keyed} for r in tests])
            insert_rows(con, "comparison_curves", [{**dict(r), **keyed} for r in curves])
            insert_rows(
                con,
                "comparisons",
                [
                    _comparison_row(
                        compare_id, "finished", result_id, benchmark, spec, split_id, task_ids, detail
                    )
                ],
                ignore_existing=False,  # a log without a key: every state change is a row
                list_columns=("task_ids",),
            )


def _comparison_row(
    compare_id: str,
    status: str,
    result_id: str | None,
    benchmark: str,
    spec: Mapping[str, Any],
    split_id: str,
    task_ids: Sequence[str],
    detail: Mapping[str, Any] | None,
) -> dict[str, Any]:
    return {
        "compare_id": compare_id,
        "status": status,
        "result_id": result_id,
        "benchmark": benchmark,
        "spec": json.dumps(dict(spec), sort_keys=True, default=str),
        "split_id": split_id,
        "task_ids": list(task_ids),
        "detail": json.dumps(dict(detail or {}), default=str),
        "created_at": now(),
    }
