"""The 17 information fields of tool documentation (the paper's Table II).

The taxonomy is data, not code: every other layer (operations, diagnosis rules,
coverage matrices, charts) refers to fields by their short code so that a field
is spelled one way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Scope(StrEnum):
    """Where a field lives on a ToolDoc."""

    TOOL = "tool"  # one value per tool
    PARAMETER = "parameter"  # one value per input parameter
    RETURN = "return"  # one value per return entry


@dataclass(frozen=True)
class Field:
    """One information field: short code, name, meaning and paper prevalence."""

    code: str
    name: str
    meaning: str
    prevalence: int  # number of the paper's 14 datasets that provide it
    scope: Scope

    @property
    def prevalence_text(self) -> str:
        return f"{self.prevalence}/14"


FIELDS: tuple[Field, ...] = (
    Field("TN", "Tool Name", "invocation identifier", 14, Scope.TOOL),
    Field("FD", "Functionality Description", "purpose and capability", 14, Scope.TOOL),
    Field("TD", "Task Domain", "application scenario or category", 6, Scope.TOOL),
    Field("IPN", "Input Parameter Name", "argument identifier", 13, Scope.PARAMETER),
    Field("IPD", "Input Parameter Description", "argument semantics", 12, Scope.PARAMETER),
    Field("IPT", "Input Parameter Type", "data types or formats", 13, Scope.PARAMETER),
    Field("DPV", "Default Parameter Value", "default values", 3, Scope.PARAMETER),
    Field("PRF", "Parameter Required Flag", "required indicator", 10, Scope.PARAMETER),
    Field("POF", "Parameter Optional Flag", "optional indicator", 7, Scope.PARAMETER),
    Field("RPN", "Return Parameter Name", "output identifier", 4, Scope.RETURN),
    Field("RPD", "Return Parameter Description", "output semantics", 5, Scope.RETURN),
    Field("RPT", "Return Parameter Type", "output types or formats", 5, Scope.RETURN),
    Field("CI", "Code Implementation", "implementation snippet", 5, Scope.TOOL),
    Field("UE", "Usage Example", "concrete invocation example", 4, Scope.TOOL),
    Field("RT", "Response Template", "expected response format", 4, Scope.TOOL),
    Field("UG", "Usage Guidance", "usage recommendations", 2, Scope.TOOL),
    Field("IC", "Invocation Constraint", "conditions or restrictions", 2, Scope.TOOL),
)

CODES: tuple[str, ...] = tuple(f.code for f in FIELDS)
BY_CODE: dict[str, Field] = {f.code: f for f in FIELDS}
PARAMETER_CODES: tuple[str, ...] = tuple(f.code for f in FIELDS if f.scope is Scope.PARAMETER)
RETURN_CODES: tuple[str, ...] = tuple(f.code for f in FIELDS if f.scope is Scope.RETURN)


def field(code: str) -> Field:
    """Look a field up by code (case-insensitive) or full name, with a helpful error."""
    key = code.strip()
    if key.upper() in BY_CODE:
        return BY_CODE[key.upper()]
    for f in FIELDS:
        if f.name.lower() == key.lower():
            return f
    raise KeyError(f"unknown documentation field {code!r}; expected one of {', '.join(CODES)}")
