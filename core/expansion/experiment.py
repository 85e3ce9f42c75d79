"""Tool-retrieval evaluation of doc sets, with Tool-REX's add-one / one-out field ablation.

For one benchmark: the queries are its tasks (query -> gold tools), the pool
is all of its tools. Variants:

- `original`: the benchmark's docs (always evaluated, the reference);
- `expanded` (or the doc set's name): the doc set asked for;
- with `ablation` (needs a Tool-REX doc set): `add:<field>` = original plus
  only that profile field, and `out:<field>` = full expansion minus that
  field, for the five profile fields.

Every variant is registered as a doc set (so any of them can be evaluated by
the agent with `eval --docs <id>`), and its metrics per retriever and k go to
`retrieval_metrics`, the top of each ranking to `retrieval_rankings`. The run
id is the hash of the configuration, and variants already stored are skipped,
so re-running resumes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.docs import DocSet
from core.expansion.profile import PROFILE_FIELDS, ToolProfile, apply_profile
from core.expansion.records import ORIGIN, expansion_run_of, latest_expansion, load_profiles
from core.retrieval import evaluate, queries_from_tasks
from core.retrieval.retrievers import EmbedFn
from core.warehouse import Warehouse
from core.warehouse.records import now
from core.warehouse.store import insert_rows

RETRIEVAL_VERSION = "retrieval-1"


def ablation_docsets(original: DocSet, profiles: dict[str, ToolProfile]) -> dict[str, DocSet]:
    """variant -> doc set: expanded, add:<f> and out:<f> for each profile field."""

    def build(select: Callable[[ToolProfile], ToolProfile], name: str) -> DocSet:
        docs = {t: apply_profile(d, select(profiles[t])) if t in profiles else d for t, d in original.items()}
        return DocSet(docs.values(), name=f"toolrex {name}")

    out = {"expanded": build(lambda p: p, "expanded")}
    for f in PROFILE_FIELDS:
        out[f"add:{f}"] = build(lambda p, f=f: p.only([f]), f"add:{f}")
        out[f"out:{f}"] = build(lambda p, f=f: p.without([f]), f"out:{f}")
    return out


def resolve(wh: Warehouse, bench: Any, ref: str) -> tuple[DocSet, str, str | None]:
    """(doc set, variant label, expansion run) for `--docs`.

    Accepts original | expanded (latest Tool-REX run) | an expansion run id | a doc-set id | a file.
    """
    from core.runner.docsource import resolve_docs

    if ref in ("", "original", "og"):
        return DocSet(bench.original_docs().values(), name="original"), "original", None
    if ref in ("expanded", "toolrex", "latest"):
        found = latest_expansion(wh, bench.name)
        if found is None:
            raise KeyError(
                f"no Tool-REX expansion of {bench.name} in {wh.path}; run `docschisel expand` first"
            )
        run, docset_id = found
        return wh.load_docset(docset_id), "expanded", run
    rows = wh.rows(
        "SELECT json_extract_string(d.detail, '$.docset_id') FROM run_status d JOIN runs r USING (run_id) "
        "WHERE r.run_id = ? AND r.kind = 'expansion' AND d.status = 'finished'",
        [ref],
    )
    if rows and rows[0][0]:
        return wh.load_docset(rows[0][0]), "expanded", ref
    docs = resolve_docs(wh, bench, ref)
    run = expansion_run_of(wh, ref)
    return docs, ("expanded" if run else (docs.name or ref)), run


def _done(wh: Warehouse, run_id: str, benchmark: str) -> set[tuple[str, str]]:
    rows = wh.rows(
        "SELECT DISTINCT variant, retriever FROM retrieval_metrics WHERE run_id = ? AND benchmark = ?",
        [run_id, benchmark],
    )
    return {(v, r) for v, r in rows}


def retrieval_eval(
    wh: Warehouse,
    bench: Any,
    *,
    docs: str = "original",
    retrievers: Sequence[str] = ("bm25", "dense"),
    ks: Sequence[int] = (10,),
    ablation: bool = False,
    embed_fn: EmbedFn | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Evaluate the variants with each retriever; store and return {run_id, rows}."""
    original = DocSet(bench.original_docs().values(), name="original")
    target, label, expansion_run = resolve(wh, bench, docs)
    variants: dict[str, DocSet] = {"original": original}
    if label != "original":
        variants[label] = target
    if ablation:
        if expansion_run is None:
            raise ValueError(
                "--ablation needs a Tool-REX doc set (--docs expanded or the id printed by `expand`)"
            )
        profiles = load_profiles(wh, expansion_run)
        variants.update(ablation_docsets(original, profiles))
        variants["expanded"] = target  # the stored doc set itself (identical content)
    queries = queries_from_tasks(bench.tasks(), pool=original)
    ks = sorted(set(ks))
    config = {
        "benchmark": bench.name,
        "docs": target.docset_id,
        "expansion_run": expansion_run,
        "retrievers": list(retrievers),
        "ks": ks,
        "ablation": ablation,
        "version": RETRIEVAL_VERSION,
    }
    run_id = wh.start_run("retrieval", config, name=f"retrieval {bench.name} {label}", benchmark=bench.name)
    wh.register_docset(original, benchmark=bench.name, origin="original", name="original")
    done = _done(wh, run_id, bench.name)
    rows: list[dict[str, Any]] = []
    changed: dict[str, int] = {}
    for variant, ds in variants.items():
        if variant not in ("original", label):
            wh.register_docset(
                ds,
                benchmark=bench.name,
                origin=f"{ORIGIN}-ablation",
                name=ds.name,
                meta={"expansion_run": expansion_run, "variant": variant},
            )
        changed[variant] = sum(ds[t].doc_id != original[t].doc_id for t in original)
    # retriever-major: the fast sparse results are complete before the slow dense ones start
    for retriever in retrievers:
        for variant, ds in variants.items():
            if (variant, retriever) in done:
                log(f"  {variant:<28} {retriever:<6} already stored")
                continue
            res = evaluate(list(ds.values()), queries, retriever, ks=ks, depth=max(ks), embed_fn=embed_fn)
            ts = now()
            metric_rows = [
                {
                    "run_id": run_id,
                    "benchmark": bench.name,
                    "variant": variant,
                    "docset_id": ds.docset_id,
                    "retriever": retriever,
                    "k": k,
                    "n_queries": int(res.metrics["n_queries"]),
                    "n_tools": len(ds),
                    "ndcg": res.metrics[f"ndcg@{k}"],
                    "recall": res.metrics[f"recall@{k}"],
                    "comprehensiveness": res.metrics[f"comprehensiveness@{k}"],
                    "detail": {"changed_tools": changed[variant]},
                    "created_at": ts,
                }
                for k in ks
            ]
            gold = {q.qid: list(q.gold) for q in queries}
            ranking_rows = [
                {
                    "run_id": run_id,
                    "benchmark": bench.name,
                    "variant": variant,
                    "retriever": retriever,
                    "qid": qid,
                    "ranking": [t for t, _ in ranked],
                    "gold": gold[qid],
                    "ndcg": res.per_query[qid][f"ndcg@{max(ks)}"],
                    "created_at": ts,
                }
                for qid, ranked in res.rankings.items()
            ]
            with wh.transaction() as con:
                insert_rows(con, "retrieval_metrics", metric_rows)
                insert_rows(con, "retrieval_rankings", ranking_rows, list_columns=("ranking", "gold"))
            rows += metric_rows
            k = max(ks)
            log(
                f"  {variant:<28} {retriever:<6} nDCG@{k} {res.metrics[f'ndcg@{k}']:.3f}  "
                f"R@{k} {res.metrics[f'recall@{k}']:.3f}  C@{k} {res.metrics[f'comprehensiveness@{k}']:.3f}  "
                f"({changed[variant]} tools changed)"
            )
    wh.set_run_status(run_id, "finished", {"variants": len(variants), "queries": len(queries)})
    return {"run_id": run_id, "rows": rows, "queries": len(queries)}
