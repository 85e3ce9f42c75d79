"""Call-level partial credit: how much of the ground truth's calls an episode got right.

Why: task success is all-or-nothing, so on a handful of validation tasks two
candidate docs often tie. The share of gold arguments the agent reproduced
separates a candidate that moved the agent closer to the right call from one
that did not. It is a secondary signal that breaks ties between equal TS —
never a replacement for TS (a call with every argument but one wrong still
fails the task).

Credit per gold call: 0 when the agent never called that tool; otherwise the
best match over the agent's calls of that tool, scored as (1 + matched
arguments) / (1 + gold arguments), so calling the right tool earns something
and a call without arguments is complete when the tool is called. The
episode's credit is the mean over its gold calls (1.0 when there are none
and the agent made no call, else 0.0).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from core.benchmarks.base import Call


def loose_value(value: Any) -> str:
    """Values compared loosely: case, whitespace and quoting do not matter; numbers compare by value."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return f"{float(value):g}"
    if isinstance(value, list | tuple | dict):
        value = json.dumps(value, sort_keys=True, default=str)
    text = str(value).strip()
    try:
        return f"{float(text):g}"
    except ValueError:
        return re.sub(r"[\s'\"`]+", "", text.lower())


def call_match(gold: Call, pred: Call) -> float:
    """Credit of one predicted call against one gold call of the same tool (0..1)."""
    if pred.tool != gold.tool:
        return 0.0
    got = {k: loose_value(v) for k, v in pred.args.items()}
    matched = sum(1 for k, v in gold.args.items() if k in got and got[k] == loose_value(v))
    return (1 + matched) / (1 + len(gold.args))


def partial_credit(gold: Sequence[Call], calls: Sequence[Call]) -> float:
    """Mean over gold calls of the best-matching predicted call's credit (see the module doc)."""
    if not gold:
        return 0.0 if calls else 1.0
    return sum(max((call_match(g, c) for c in calls), default=0.0) for g in gold) / len(gold)
