"""Shared pieces of the API-Bank sandbox: API definitions, errors, normalisations.

Every API is a plain function over a session plus a correctness check that
compares a predicted response record with the gold one (SPEC.md sections 2-3).
Exception texts are part of what a model observes and what the checks compare,
so they are kept byte-identical to the specification.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from core.benchmarks.apibank.session import Session

DATE = "%Y-%m-%d"
DATETIME = "%Y-%m-%d %H:%M:%S"

Record = dict[str, Any]
Check = Callable[[Mapping[str, Any], Mapping[str, Any]], bool]


class ApiError(Exception):
    """An API-level failure; its text becomes the record's `exception`."""


@dataclass(frozen=True)
class ParamSpec:
    """A declared input parameter: its name, declared type string and required flag."""

    name: str
    type: str = "str"
    required: bool = True


@dataclass(frozen=True)
class ApiDef:
    """One API: its parameters, behaviour and correctness check.

    `echo_missing` lists optional parameters that the API reports in its
    response `input` as missing values when they were not supplied (SPEC 1.2).
    `has_api_name` is false for the APIs whose record carries no `api_name`.
    """

    name: str
    domain: str
    params: tuple[ParamSpec, ...]
    func: Callable[..., Any]
    check: Check
    has_api_name: bool = True
    echo_missing: tuple[str, ...] = ()
    offline_standin: bool = False
    notes: str = ""
    _by_name: dict[str, ParamSpec] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({p.name: p for p in self.params})

    def param(self, name: str) -> ParamSpec | None:
        return self._by_name.get(name)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.required)

    def run(self, session: Session, args: Mapping[str, Any]) -> Any:
        return self.func(session, **args)


# --------------------------------------------------------------------------- normalisation


def pad_year(text: str) -> str:
    """SPEC 1.5 step 2: a three-part dash date whose first part is not 4 long gets it zero-padded."""
    parts = text.split("-")
    if len(parts) == 3 and len(parts[0]) != 4:
        parts[0] = parts[0].rjust(4, "0")
        return "-".join(parts)
    return text


def norm_time(value: Any, fmt: str) -> str:
    """Norm-date / norm-datetime: trim, pad the year, parse strictly, re-format.

    Raises ValueError carrying Python's own parse message, which the APIs
    report verbatim as their exception text.
    """
    text = pad_year(value.strip())
    return datetime.strptime(text, fmt).strftime(fmt)


class _Invalid:
    """A failed normalisation inside a check: equal only to itself (SPEC 1.5)."""

    __slots__ = ()


def norm_or_invalid(value: Any, fmt: str) -> Any:
    """Normalised text, or a fresh object that never equals another failure."""
    try:
        return norm_time(value, fmt)
    except (ValueError, AttributeError, TypeError):
        return _Invalid()


def trim(value: Any) -> str:
    """Trim a value that checks compare in text form."""
    return str(value).strip()


# --------------------------------------------------------------------------- checks


def same(pred: Mapping[str, Any], gold: Mapping[str, Any], key: str) -> bool:
    """Exact equality of one record part; missing equals missing."""
    return pred.get(key) == gold.get(key)


def out_exc(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """The common tail of most checks: output equal and exception equal."""
    return same(pred, gold, "output") and same(pred, gold, "exception")


def arg(record: Mapping[str, Any], name: str) -> Any:
    """An input value of a record; a parameter that is absent reads as missing (None)."""
    return record["input"].get(name)


def check_all_equal(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """Input dicts, output and exception all exactly equal."""
    return same(pred, gold, "input") and out_exc(pred, gold)


def check_inputs(*pairs: tuple[str, Callable[[Any], Any]]) -> Check:
    """A check comparing the named inputs after a normaliser, then output and exception."""

    def _check(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
        for name, norm in pairs:
            if norm(arg(pred, name)) != norm(arg(gold, name)):
                return False
        return out_exc(pred, gold)

    return _check


def upper_trim(value: Any) -> str:
    return str(value).strip().upper()


def lower_trim(value: Any) -> str:
    return str(value).strip().lower()


def as_date(value: Any) -> Any:
    return norm_or_invalid(value, DATE)


def as_datetime(value: Any) -> Any:
    return norm_or_invalid(value, DATETIME)


def identity(value: Any) -> Any:
    return value
