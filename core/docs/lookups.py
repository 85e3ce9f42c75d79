"""Which tool a value is looked up with, read from the other tools' own documentation.

Kept with the docs because it reads only docs: DocsChisel's evidence engine
uses it to say where an argument comes from, and EvoSOP's composer to link a
lookup to the write that needs its output.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _returns_address(name: str | None, examples: Sequence[str] | None) -> bool:
    """Whether a tool's return is an email address (`email_address`, or an example that answers with one)."""
    if "address" in (name or "").lower() and "email" in (name or "").lower():
        return True
    for ex in examples or ():
        answer = ex.strip().splitlines()[-1].strip().strip("\"'") if ex.strip() else ""
        if _EMAIL.match(answer):
            return True
    return False


def lookup_source(
    name: str, values: Sequence[Any], docset: Any, read_only: Collection[str], tool: str
) -> str | None:
    """The read-only tool an argument's value is looked up with, from the other tools' own docs.

    WorkBench's writes take ids (`event_id`, `email_id`, `customer_id`) and
    email addresses that no request states: the agent must search first,
    and a small model instead makes one up ("00000000", "dmitri@example.com").
    Which tool returns such a value is in the docs of the lookups: an id is
    a key of a read-only tool's example output or the name of what it
    returns; an address comes from a read-only tool whose answer is an email
    address (not a list of emails). Lookups of the same app come first, then searches and finds
    over by-id getters. None when the argument is not an id or an address,
    or no read-only tool's docs show it.
    """
    texts = [str(v) for v in values if v is not None]
    if not texts:
        return None
    candidates = [docset[t] for t in sorted(read_only) if t != tool and t in docset]
    if all(_EMAIL.match(v) for v in texts):
        hits = [d for d in candidates if any(_returns_address(r.name, d.examples) for r in d.returns)]
    elif name.endswith("_id") or all(v.isdigit() and len(v) >= 4 for v in texts):
        key = re.compile(rf"[\"']{re.escape(name)}[\"']\s*:")
        hits = [
            d
            for d in candidates
            if key.search(" ".join(d.examples or ())) or any(r.name == name for r in d.returns)
        ]
    else:
        return None
    app = tool.split(".", 1)[0]

    def rank(d: Any) -> tuple[int, int, str]:
        verb = d.tool.rsplit(".", 1)[-1]
        return (d.tool.split(".", 1)[0] != app, not verb.startswith(("search", "find")), d.tool)

    return min(hits, key=rank).tool if hits else None
