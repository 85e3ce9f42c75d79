"""Scripted models for the sample: a doc-reading agent model, baseline writers, a fake encoder.

`doc_reader` is a scripted model function (`core.llm.script`) that reads the
tool schemas it is offered, as a careful but literal model would: it passes
an argument the request mentions only when the schema lists it as required
or the request states it plainly, and writes a date as YYYY-MM-DD only when
the date parameter's schema states that format; otherwise it writes the
month/day/year it was told. Its failure modes are properties of the schema
(required flags, stated formats), not of any optimizer's wording.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

import numpy as np

from core.llm.scripted import tool_call

ORDER = re.compile(r"order (\d+) units of (\w+) for day (\d+)", re.IGNORECASE)
QUOTE = re.compile(r"(?:stock price|how much is) (?:of )?(\w+)", re.IGNORECASE)
EVENT = re.compile(r"put '([^']+)' in my calendar on day (\d+)", re.IGNORECASE)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _find(params: dict[str, Any], name: str) -> tuple[str, dict[str, Any]] | None:
    """(exposed name, parameter schema) of the offered tool whose name spells `name` (dots may be `_`)."""
    for tool in params.get("tools") or []:
        fn = tool.get("function", tool)
        if _norm(fn.get("name") or "") == _norm(name):
            return fn["name"], fn.get("parameters") or {}
    return None


def _states_iso_format(prop: dict[str, Any]) -> bool:
    text = json.dumps(prop, ensure_ascii=False)
    return "YYYY-MM-DD" in text or prop.get("format") == "date"


def _date(schema: dict[str, Any], month: int, day: int) -> str:
    prop = (schema.get("properties") or {}).get("date") or {}
    return f"2024-{month:02d}-{day:02d}" if _states_iso_format(prop) else f"{month:02d}/{day:02d}/2024"


def doc_reader(messages: list[dict[str, Any]], params: dict[str, Any]) -> Any:
    """One reply of the literal doc reader (a tool call, or a short answer after a tool result).

    When sampling (temperature > 0) it is distracted on a seeded share of
    requests (30 % at T = 0.7) and checks the stock instead, so repeated
    evaluations differ the way a sampling model's do.
    """
    if any(m.get("role") == "tool" for m in messages):
        return "Done."
    query = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
    temperature = float(params.get("temperature") or 0.0)
    if temperature > 0 and random.Random(f"{params.get('seed')}:{query}").random() < 0.3 * temperature / 0.7:
        found = _find(params, "shop.stock")
        if found is not None:
            return tool_call(found[0], item="item0")
    if m := ORDER.search(query):
        found = _find(params, "shop.order")
        if found is None:
            return "I cannot order here."
        name, schema = found
        args: dict[str, Any] = {"item": m.group(2)}
        if "qty" in (schema.get("required") or []):
            args["qty"] = int(m.group(1))
        args["date"] = _date(schema, 2, int(m.group(3)))
        return tool_call(name, **args)
    if m := EVENT.search(query):
        found = _find(params, "calendar.create_event")
        if found is None:
            return "I cannot use the calendar here."
        name, schema = found
        return tool_call(name, title=m.group(1), date=_date(schema, 3, int(m.group(2))))
    if m := QUOTE.search(query):
        found = _find(params, "shop.quote")
        return tool_call(found[0], item=m.group(1)) if found else "No price tool."
    return "I do not know how to help with that."


def baseline_replies(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """EasyTool and DRAFT answers: valid JSON for every prompt of both baselines."""
    content = messages[0]["content"]
    if "fixed template" in content:
        doc = json.loads(content.split("Now the target documentation:\n", 1)[1].split("\n", 1)[0])
        return json.dumps(
            {
                "general_purposes": "run a shop and a calendar",
                "functions": [{"name": f["name"], "functionality": "do it"} for f in doc["functions"]],
            }
        )
    if content.startswith("You are exploring"):
        return json.dumps({"User Query": f"Please help with request {len(content)}", "Parameters": {}})
    if content.startswith("You are analysing"):
        return json.dumps({"Suggestions for tool description": "State the date format."})
    if content.startswith("You are rewriting"):
        return json.dumps(
            {
                "Rewritten description": "Runs one operation; dates are written YYYY-MM-DD.",
                "Suggestions for exploring": "try another item",
            }
        )
    return json.dumps({"Scenario": "One scenario: a user asks.", "Parameters": {}})


def fake_embedder(texts: list[str]) -> np.ndarray:
    """Deterministic unit vectors from a hash of the text (DRAFT's rules need only cosines)."""
    rows = []
    for t in texts:
        seed = int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)
        v = np.random.default_rng(seed).normal(size=16)
        rows.append(v / np.linalg.norm(v))
    return np.stack(rows)
