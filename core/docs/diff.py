"""Field-level difference between two versions of a tool's documentation.

Reviewers think in fields ("IPD of `time` changed, UE added"), so the diff is
expressed on the taxonomy rather than on lines of rendered text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from core.docs.model import ToolDoc
from core.fields import BY_CODE, CODES

ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class FieldChange:
    """One field that differs between two versions."""

    code: str
    kind: ChangeKind
    before: Any
    after: Any

    @property
    def name(self) -> str:
        return BY_CODE[self.code].name


def diff(before: ToolDoc, after: ToolDoc) -> list[FieldChange]:
    """Changes from `before` to `after`, in taxonomy order; empty when equal."""
    changes: list[FieldChange] = []
    for code in CODES:
        a, b = before.get(code), after.get(code)
        if a == b:
            continue
        if a is None:
            changes.append(FieldChange(code, "added", a, b))
        elif b is None:
            changes.append(FieldChange(code, "removed", a, b))
        else:
            changes.append(FieldChange(code, "changed", a, b))
    return changes


def untouched_fields(before: ToolDoc, after: ToolDoc) -> tuple[str, ...]:
    """Codes whose content is identical in both versions."""
    return tuple(c for c in CODES if before.get(c) == after.get(c))
