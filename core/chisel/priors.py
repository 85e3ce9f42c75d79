"""Priors over field operations from a stored field-impact study of the same backbone and paradigm.

Why: which fields help depends on the backbone and the paradigm (the paper's
Fig. 1), and a field study measures exactly that — for Qwen2.5-Coder-0.5B on
API-Bank finance, adding parameter-required flags and removing return fields
moved task success in opposite directions than for SmolLM2. Before the
domain's planning memory has statistics of its own, the planner ranks
operations by these measured effects, and a field the study found harmful
becomes a candidate for removal.

A study row says: removing (or adding) field X changed TS by ΔTS pp, with a
95 % paired-bootstrap interval. The prior of an operation is that change as a
fraction of 1, counted fully when the interval excludes zero and half
otherwise:

| study row | prior of |
|---|---|
| remove X: ΔTS | (Remove, X) = +ΔTS; (Add, X) and (Refine, X) = −ΔTS / 2 |
| add X: ΔTS | (Add, X) = +ΔTS; (Refine, X) = +ΔTS / 2 |

Rows of the optimized domain win over rows of other domains of the same
benchmark, which are averaged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldPrior:
    """The measured effect behind an operation's prior (for the plan's reasons)."""

    op: str
    field: str
    value: float  # signed, as a fraction of TS
    delta_pp: float
    ci: tuple[float, float] | None
    significant: bool
    source: str  # "<domain> study: remove X"

    def reason(self) -> str:
        ci = f" [{self.ci[0]:+.1f}, {self.ci[1]:+.1f}]" if self.ci else ""
        return f"{self.source}: ΔTS {self.delta_pp:+.1f} pp{ci}"


def _significant(lo: Any, hi: Any) -> bool:
    return lo is not None and hi is not None and (float(lo) > 0 or float(hi) < 0)


def priors_from_rows(
    rows: Iterable[Mapping[str, Any]], domain: str | None = None
) -> dict[tuple[str, str], FieldPrior]:
    """(op, field) -> prior from field-impact rows (see the module doc for the mapping)."""
    rows = [r for r in rows if r.get("delta_pp") is not None]
    own = [r for r in rows if domain is not None and r.get("domain") == domain]
    chosen = own or rows
    pooled: dict[tuple[str, str], list[FieldPrior]] = {}
    for r in chosen:
        code, kind = str(r["field"]), str(r["operation"])
        delta = float(r["delta_pp"])
        lo, hi = r.get("ci_low"), r.get("ci_high")
        sig = _significant(lo, hi)
        weight = 1.0 if sig else 0.5
        ci = (float(lo), float(hi)) if lo is not None and hi is not None else None
        source = f"{r.get('domain') or 'study'} study: {kind} {code}"
        effects = (
            [("Remove", 1.0), ("Add", -0.5), ("Refine", -0.5)]
            if kind == "remove"
            else [("Add", 1.0), ("Refine", 0.5)]
        )
        for op, scale in effects:
            value = weight * scale * delta / 100.0
            pooled.setdefault((op, code), []).append(FieldPrior(op, code, value, delta, ci, sig, source))
    out: dict[tuple[str, str], FieldPrior] = {}
    for key, items in pooled.items():
        if len(items) == 1:
            out[key] = items[0]
            continue
        mean = sum(p.value for p in items) / len(items)
        first = items[0]
        out[key] = FieldPrior(
            first.op,
            first.field,
            mean,
            sum(p.delta_pp for p in items) / len(items),
            None,
            all(p.significant for p in items),
            f"{len(items)} studies: {first.source.split(': ', 1)[1]}",
        )
    return out


def removal_candidates(
    priors: Mapping[tuple[str, str], FieldPrior], present: Iterable[str]
) -> list[FieldPrior]:
    """Fields of the doc whose removal the study measured as significantly helpful, best first."""
    have = set(present)
    found = [
        p
        for (op, code), p in priors.items()
        if op == "Remove" and code in have and p.significant and p.value > 0
    ]
    return sorted(found, key=lambda p: (-p.value, p.field))
