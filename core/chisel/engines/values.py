"""What ground-truth values and parameter names say, read the same way by every synthesiser.

Why apart: the rules for what the docs may state from the optimization split's values (a shared
format, a few recurring allowed values, a convention no request states, a structure's shape) are
one set, used by the field synthesisers (`synth`), the usage examples and the candidate checks
(`checks`). Keeping them in one place keeps those readers consistent; none of them reads a
tool's context or the diagnoses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from core.chisel.engines.examples import asks, identifier, leaves, stated_in

VALUE_FORMATS: tuple[tuple[str, str], ...] = (  # (pattern, label), most specific first
    (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", "YYYY-MM-DD HH:MM:SS"),
    (r"\d{4}-\d{2}-\d{2}", "YYYY-MM-DD"),
    (r"\d{2}:\d{2}:\d{2}", "HH:MM:SS"),
    (r"\d{2}:\d{2}", "HH:MM"),
    (r"(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])", "MM-DD"),  # a month first: "04-21", never "21-04"
    (r"[^@\s]+@[^@\s]+\.[A-Za-z]+", "an email address"),
    (r"-?\d+", "an integer"),
    (r"-?\d+\.\d+", "a decimal number"),
)
# words a parameter name shares with many unrelated ones ("doctor_name", "user_name"): they tell no tool apart
GENERIC_WORDS = frozenset(
    {"name", "names", "id", "ids", "new", "type", "value", "values", "data", "info", "text"}
)


def and_list(names: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def name_words(names: Sequence[str]) -> set[str]:
    """The words of parameter names (`new_appointment_date` -> new, appointment, date), lower case."""
    return {w for name in names for w in name.lower().split("_")}


def value_format(values: Sequence[Any]) -> str | None:
    """The common textual format of some values, when they all share one."""
    texts = [v for v in values if isinstance(v, str) and v]
    if not texts or len(texts) != len(values):
        return None
    stripped = [t.strip() for t in texts]
    if (
        all(t.isdigit() for t in stripped)
        and len({len(t) for t in stripped}) == 1
        and any(t.startswith("0") and len(t) > 1 for t in stripped)
    ):
        # an id such as "00000123": "an integer" would invite dropping its leading zeros
        return f"a string of {len(stripped[0])} digits, leading zeros kept"
    for pattern, label in VALUE_FORMATS:
        if all(re.fullmatch(pattern, t) for t in stripped):
            return label
    return None


def _leaf(values: Sequence[Any]) -> str:
    """A leaf's kind, with its common format or recurring values when the evidence shows one."""
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "number"
    fmt = value_format(values)
    if fmt and fmt.startswith(("YYYY", "HH")):
        return f'"{fmt}"'
    allowed = recurring_values(values)
    if allowed:
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in allowed)
    return "str"


def recurring_values(values: Sequence[Any], most: int = 6) -> list[Any]:
    """The allowed values of an enumeration-like argument: few distinct values, each seen at least twice.

    These are constraints (the same few values recur across tasks), not one
    task's data, so stating them cannot teach the agent to copy a value.
    """
    texts = [v for v in values if isinstance(v, str)]
    if len(texts) != len(values) or len(texts) < 3:
        return []
    counts: dict[str, int] = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    if len(counts) > most or len(counts) == len(texts) or min(counts.values()) < 2:
        return []
    return sorted(counts)


def user_given(pairs: Sequence[tuple[str | None, Any]]) -> bool:
    """Whether the requests state an argument's value (`stated_in`) in at least two thirds of its calls.

    Such values are the user's data, however often a few of them recur
    (API-Bank's dialogues book the same three doctors, ask about the same
    three days and reuse one user's token): shown as allowed values, they
    would forbid every other one, and shown in an example they are pasted
    into requests that state another.
    """
    return bool(pairs) and sum(stated_in(v, q) for q, v in pairs) * 3 >= len(pairs) * 2


def allowed_values(name: str, pairs: Sequence[tuple[str | None, Any]]) -> list[Any]:
    """An argument's allowed values from its (request, value) pairs: the few values that recur across
    calls (`recurring_values`), unless they are the user's data (`user_given`) or a record's id.

    The one rule for what the docs may state as a constraint: the parameter
    description lists these values, and a usage example shows them where the
    request it quotes does not hold them.
    """
    if identifier(name) or user_given(pairs):
        return []
    return recurring_values([v for _, v in pairs])


def allowed_leaves(pairs: Sequence[tuple[str | None, Any]]) -> set[str]:
    """The allowed values inside a structured argument: under each key, the leaf values that recur
    (`allowed_values`), such as the "blood_pressure" and "heart_rate" names of health records.

    They are the structure's vocabulary, which its format lists already, so an example may show
    them where the quoted request words them otherwise ("blood pressure").
    """
    by_key: dict[str, list[tuple[str | None, Any]]] = {}
    for query, value in pairs:
        if isinstance(value, list | dict):
            for key, leaf in leaves(value):
                by_key.setdefault(key, []).append((query, leaf))
    return {str(v) for key, found in by_key.items() for v in allowed_values(key, found)}


def implied_value(pairs: Sequence[tuple[str, Any]], least: int = 4) -> Any | None:
    """The value an argument takes when the request does not state it, from (request, value) pairs.

    Some values are conventions of the tool's world rather than data of a
    request: WorkBench's plots of "since November 21" end yesterday
    (2023-11-29) in 72 of its 106 gold calls, and no request says so. An
    agent cannot read such a value anywhere, and a format does not tell it.
    Returned when one scalar value is in at least half of `least` or more
    calls and the requests of at least two thirds of those calls do not
    contain it; None otherwise. It holds across tasks, so stating it does not
    teach the agent to copy one task's value. An argument whose values are a
    small closed set of choices (`recurring_values`: which field to update)
    is a choice the request decides, not a convention, even when one choice
    is the most common.
    """
    scalars = [(q, v) for q, v in pairs if isinstance(v, str | int | float) and not isinstance(v, bool)]
    if len(scalars) < least or len(scalars) != len(pairs) or len(recurring_values([v for _, v in pairs])) > 1:
        return None
    counts: dict[str, int] = {}
    for _, v in scalars:
        counts[json.dumps(v)] = counts.get(json.dumps(v), 0) + 1
    top, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    if n * 2 < len(scalars) or n < 3:
        return None
    value = json.loads(top)
    unstated = sum(not stated_in(value, q) for q, v in scalars if json.dumps(v) == top)
    return value if unstated * 3 >= n * 2 else None


def describe_shape(values: Sequence[Any]) -> str | None:
    """The structure of a structured argument, from its values in several calls, as a type expression.

    `[{"name": "blood_pressure", "value": "120/80"}, {"name": "heart_rate", "value": "80"}]`
    gives `list[{"name": "blood_pressure" | "heart_rate", "value": str}]` when
    those names recur; None for plain scalars (formats cover those).
    """
    values = [v for v in values if v is not None]
    if not values:
        return None
    if all(isinstance(v, list) for v in values):
        items = [x for v in values for x in v]
        if not items:
            return "list"
        inner = describe_shape(items)
        return f"list[{inner if inner else _leaf(items)}]"
    if all(isinstance(v, dict) for v in values):
        keys: list[str] = []
        for v in values:
            keys += [str(k) for k in v if str(k) not in keys]
        parts = []
        for k in keys:
            sub = [v[k] for v in values if k in v]
            inner = describe_shape(sub) or _leaf(sub)
            optional = "" if len(sub) == len(values) else "?"
            parts.append(f'"{k}"{optional}: {inner}')
        return "{" + ", ".join(parts) + "}"
    return None


def last_user_line(query: str, limit: int = 100) -> str:
    """The last user turn of a dialogue (or the whole query), shortened."""
    lines = [ln for ln in query.splitlines() if ln.strip()]
    users = [ln for ln in lines if ln.startswith("User:")]
    text = (users[-1][5:] if users else (lines[-1] if lines else query)).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def same_line(quoted: str, line: str) -> bool:
    """Whether `quoted` is `line` as `request_line` quotes it (whole, or shortened with an ellipsis)."""
    quoted, line = quoted.strip(), line.strip()
    if quoted == line:
        return True
    head = quoted[:-1].rstrip()
    return quoted.endswith("…") and bool(head) and line.startswith(head)


def request_line(query: str, limit: int = 100, words: int = 4) -> str:
    """The latest user turn that states a request (at least `words` words), shortened.

    A dialogue's last turn is often only the data asked for ("56789012"),
    which says nothing about what the user wants done; the turn that asked
    does.
    """
    users = [ln[5:].strip() for ln in query.splitlines() if ln.startswith("User:")]
    stated = [u for u in users if asks(u, words)]
    if not stated:
        return last_user_line(query, limit)
    text = stated[-1]
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
