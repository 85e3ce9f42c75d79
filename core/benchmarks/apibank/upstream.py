"""The upstream-compatible level-1 pipeline (SPEC 4.4), for reporting next to ours.

Upstream extracts the first `[Name(...)]`, reads arguments with a regex that
truncates quoted values at the first quote of either kind and keeps every value
as text (B2), runs the call in a brand-new session without replaying earlier
calls (B9), leaves list texts unparsed (B1), and applies the API's check to the
recorded gold result without any repair. This module reproduces that so a
"upstream-compatible" number can be reported beside the repaired one; the
benchmark itself scores with the real parser, replay and repairs.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from core.benchmarks.apibank.samples import SAMPLES_DIR, STATUS_CSV, call_samples, read_turns
from core.benchmarks.apibank.session import REGISTRY, CallLayerError, Session
from core.benchmarks.apibank.textcall import extract_request, render_request
from core.benchmarks.base import Call, CallParseError

# key = 'quoted' | "quoted" (ends at the nearest quote of either kind) | [bare list] | bare_word
_PAIR = re.compile(r"""(\w+)\s*=\s*(?:['"]([^'"]*)['"]|(\[.*\])|(\w+))""")


def parse_upstream(text: str) -> Call:
    """Upstream's reading of call text: keyword pairs only, every value text."""
    name, inner = extract_request(text)
    args: dict[str, Any] = {}
    for m in _PAIR.finditer(inner):
        key, quoted, listed, bare = m.groups()
        args[key] = next(v for v in (quoted, listed, bare) if v is not None)
    return Call(name, args)


def score_upstream(
    db_dir: Path, gold_api: str, gold_result: Mapping[str, Any], text: str
) -> tuple[bool, str]:
    """(correct, reason) of one model output under the upstream pipeline."""
    try:
        call = parse_upstream(text)
    except CallParseError:
        return False, "NO_API_CALL"
    if call.tool != gold_api:
        return False, f"API Name Mismatch: {call.tool} vs {gold_api}"
    session = Session(db_dir, upstream_types=True)
    try:
        record = session.call(call.tool, call.args)
    except CallLayerError as exc:
        return False, exc.kind
    try:
        ok = REGISTRY[gold_api].check(record, gold_result)
    except KeyError:
        return False, "KEY_ERROR"
    except Exception as exc:  # noqa: BLE001 - upstream would crash; count it as incorrect
        return False, f"CHECK_ERROR: {exc}"
    return bool(ok), "CORRECT" if ok else "MISMATCH"


def upstream_gold_pass(root: Path) -> dict[str, int]:
    """The recorded gold calls of all in-scope samples through the upstream pipeline.

    SPEC 4.4 reports 173 of 215; the count is over every in-scope sample,
    excluded ones and duplicates included, with the gold exactly as recorded.
    """
    with open(root / STATUS_CSV, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["dialogue_scope"] == "in"]
    db_dir = root / "api-bank" / "init_database"
    turns_of: dict[str, list[dict[str, Any]]] = {}
    passed = 0
    for r in rows:
        turns = turns_of.setdefault(r["file"], read_turns(root / SAMPLES_DIR / r["file"]))
        gold = turns[dict(call_samples(turns))[int(r["id"])]]
        text = render_request(gold["api_name"], gold["param_dict"])
        passed += score_upstream(db_dir, gold["api_name"], gold["result"], text)[0]
    return {"passed": passed, "total": len(rows)}
