"""The doc set DocsChisel would have selected with a smaller iteration budget (Figs. 9 and 10).

An optimize run stores every candidate with its iteration, validation TS and
acceptance (`candidates`), so the selection under a budget of k iterations
needs no new optimization: per tool, apply the optimizer's own selection rule
(`core.chisel.decisions.select`, with the run's own `selection` setting) to
the candidates of iterations 1..k. Budget 0 is the original docs; the full
budget reproduces the run's selected doc set.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from core.chisel.decisions import Candidate, select
from core.chisel.types import Evaluation
from core.docs import DocSet, ToolDoc


@dataclass(frozen=True)
class BudgetDocs:
    budget: int
    docset: DocSet
    changed: tuple[str, ...]  # tools whose doc differs from the original


def budget_docsets(warehouse, run_id: str, original: DocSet, budgets: Sequence[int]) -> list[BudgetDocs]:
    """For each budget k, the doc set selected from candidates of iterations <= k (see module docstring)."""
    config = json.loads(warehouse.scalar("SELECT config FROM runs WHERE run_id = ?", [run_id]) or "{}")
    rule = config.get("selection", "paper")  # runs from before the selection setting used the paper's rule
    tools = warehouse.query(
        "SELECT tool, base_val_ts, base_opt_ts FROM chisel_tools WHERE run_id = ? ORDER BY tool", [run_id]
    )
    cands = warehouse.query(
        """SELECT tool, iteration, doc_id, val_ts, base_val_ts, opt_ts, accepted, tokens, val_run, opt_run
           FROM candidates WHERE run_id = ? ORDER BY tool, iteration""",
        [run_id],
    )
    docs: dict[str, ToolDoc] = {}
    per_tool: dict[str, list[Candidate]] = {}
    base_opt = dict(zip(tools["tool"], tools["base_opt_ts"], strict=True))
    for c in cands.itertuples(index=False):
        if c.doc_id not in docs:
            docs[c.doc_id] = warehouse.load_doc(c.doc_id)
        ev = Evaluation(
            val_ts=float(c.val_ts),
            base_val_ts=float(c.base_val_ts),
            opt_ts=float(c.opt_ts) if c.opt_ts is not None else 0.0,
            base_opt_ts=float(base_opt.get(c.tool) or 0.0),
            val_run=c.val_run or "",
            opt_run=c.opt_run or "",
            accepted=bool(c.accepted),
        )
        per_tool.setdefault(c.tool, []).append(Candidate(docs[c.doc_id], ev, int(c.tokens), int(c.iteration)))
    out: list[BudgetDocs] = []
    for k in budgets:
        docset, changed = original, []
        for t in tools.itertuples(index=False):
            d0 = original[t.tool]
            within = [c for c in per_tool.get(t.tool, []) if c.iteration <= k]
            doc = select(d0, float(t.base_val_ts), within, rule).doc
            if doc.doc_id != d0.doc_id:
                docset = docset.replace(doc)
                changed.append(t.tool)
        name = f"docschisel {run_id} budget {k}"
        out.append(BudgetDocs(k, DocSet(docset.values(), name=name), tuple(changed)))
    return out
