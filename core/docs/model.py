"""The ToolDoc model: a tool's documentation as a set of information fields.

A ToolDoc is immutable. The three operations of the method (`add`, `remove`,
`refine`) return new objects, and every version is identified by a content
hash, so the warehouse can store each version once and lineage is explicit.

`tool` is the dispatch key the sandbox uses and is not documentation; `name`
is the Tool Name field (TN) the agent sees. Removing TN leaves the tool callable
through an opaque alias chosen by the renderer, which is how an agent "without
the tool name" is evaluated.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from core.docs.schemas import own_schema, retyped
from core.fields import BY_CODE, CODES, RETURN_CODES, Scope, field

# Attribute holding each tool-scope field on ToolDoc.
TOOL_ATTR: dict[str, str] = {
    "TN": "name",
    "FD": "description",
    "TD": "domain",
    "CI": "code",
    "UE": "examples",
    "RT": "response_template",
    "UG": "guidance",
    "IC": "constraints",
}
# Attribute holding each per-parameter field on Param.
PARAM_ATTR: dict[str, str] = {
    "IPD": "description",
    "IPT": "type",
    "DPV": "default",
    "PRF": "required",
    "POF": "optional",
}
# Attribute holding each per-return field on Return.
RETURN_ATTR: dict[str, str] = {"RPN": "name", "RPD": "description", "RPT": "type"}

_MISSING = object()


class DocError(ValueError):
    """An operation or input that does not fit the field model."""


class _Entry(BaseModel):
    """Shared by the models: attributes added after docs were first stored are left out of
    their JSON while unset, so the canonical form (and the content hash) of a doc that does
    not use them stays what it was."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    _OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key in self._OMIT_WHEN_NONE:
                if data.get(key, 0) is None:
                    del data[key]
        return data


class _Typed(_Entry):
    """An entry with a type text (IPT/RPT) and the exact schema keywords behind it (core.docs.schemas)."""

    _OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ("type_schema",)

    @model_validator(mode="before")
    @classmethod
    def _normal_schema(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("type_schema") is not None:
            if not isinstance(data["type_schema"], dict):
                raise ValueError("type_schema must be a JSON object")
            data = {**data, "type_schema": own_schema(data.get("type"), data["type_schema"])}
        return data

    def _retype(self, value: Any) -> dict[str, Any]:
        new = None if value is _MISSING else value
        return {"type": new, "type_schema": retyped(self.type_schema, self.type, new)}


class Param(_Typed):
    """One input parameter. Its name is the IPN field; the rest are optional fields.

    `type_schema` holds the source's JSON-Schema keywords when IPT text alone
    would not reproduce them (an enum with its type, nested properties, bounds).
    """

    name: str
    description: str | None = None
    type: str | None = None
    type_schema: dict[str, Any] | None = None
    has_default: bool = False
    default: Any = None
    required: bool | None = None
    optional: bool | None = None

    def get(self, code: str) -> Any:
        """The value of a per-parameter field, or None when absent."""
        if code == "IPN":
            return self.name
        if code == "DPV":
            return self.default if self.has_default else None
        return getattr(self, PARAM_ATTR[code])

    def has(self, code: str) -> bool:
        if code == "DPV":
            return self.has_default
        return self.get(code) not in (None, "")

    def with_field(self, code: str, value: Any) -> Param:
        if code == "DPV":
            if value is _MISSING:
                return self.model_copy(update={"has_default": False, "default": None})
            return self.model_copy(update={"has_default": True, "default": value})
        if code == "IPT":
            return self.model_copy(update=self._retype(value))
        return self.model_copy(update={PARAM_ATTR[code]: None if value is _MISSING else value})


class Return(_Typed):
    """One return entry (RPN, RPD, RPT); any of the three may be absent; `type_schema` as on Param."""

    name: str | None = None
    description: str | None = None
    type: str | None = None
    type_schema: dict[str, Any] | None = None

    def get(self, code: str) -> Any:
        return getattr(self, RETURN_ATTR[code])

    def has(self, code: str) -> bool:
        return self.get(code) not in (None, "")

    def with_field(self, code: str, value: Any) -> Return:
        if code == "RPT":
            return self.model_copy(update=self._retype(value))
        return self.model_copy(update={RETURN_ATTR[code]: None if value is _MISSING else value})

    def is_empty(self) -> bool:
        return not any(self.has(c) for c in RETURN_CODES)


class ToolDoc(_Entry):
    """Documentation of one tool: its dispatch key plus any subset of the 17 fields.

    `schema_extra` keeps the top-level keywords of the source's parameter schema
    that the parameters do not hold (`additionalProperties`, `$defs`, a `type`
    other than "object", `"required": []` of a tool without parameters); a
    keyword mapped to None was absent from the source. `output_schema` keeps the
    keywords of an MCP `outputSchema` around its properties (which are the
    return entries), so an MCP export writes the returns back there. Neither is
    a field, and no operation changes them.
    """

    _OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ("schema_extra", "output_schema")

    tool: str = Field(description="dispatch key of the tool in its benchmark; not a documentation field")
    name: str | None = None
    description: str | None = None
    domain: str | None = None
    parameters: tuple[Param, ...] = ()
    returns: tuple[Return, ...] = ()
    code: str | None = None
    examples: tuple[str, ...] = ()
    response_template: str | None = None
    guidance: str | None = None
    constraints: str | None = None
    schema_extra: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None

    # ------------------------------------------------------------------ identity
    def canonical_json(self) -> str:
        """A stable serialisation: equal documentation gives equal bytes."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )

    @property
    def doc_id(self) -> str:
        """Content hash identifying this version (16 hex digits of SHA-256)."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()[:16]

    @property
    def display_name(self) -> str:
        return self.name or self.tool

    # ------------------------------------------------------------------ fields
    def has(self, code: str) -> bool:
        """Whether the field is present (for per-entry fields: on any entry)."""
        f = field(code)
        if f.code == "IPN":
            return bool(self.parameters)
        if f.scope is Scope.PARAMETER:
            return any(p.has(f.code) for p in self.parameters)
        if f.scope is Scope.RETURN:
            return any(r.has(f.code) for r in self.returns)
        value = getattr(self, TOOL_ATTR[f.code])
        return bool(value) if isinstance(value, tuple) else value not in (None, "")

    def present(self) -> tuple[str, ...]:
        """Codes of the fields present, in taxonomy order."""
        return tuple(c for c in CODES if self.has(c))

    def get(self, code: str) -> Any:
        """A JSON-ready value of one field, used for diffs, prompts and coverage.

        Per-parameter fields map parameter name -> value (only entries that have
        it); per-return fields are a list aligned with `returns`.
        """
        f = field(code)
        if f.code == "IPN":
            return [p.name for p in self.parameters] if self.parameters else None
        if f.scope is Scope.PARAMETER:
            values = {p.name: p.get(f.code) for p in self.parameters if p.has(f.code)}
            return values or None
        if f.scope is Scope.RETURN:
            values = [r.get(f.code) for r in self.returns]
            return values if any(v not in (None, "") for v in values) else None
        value = getattr(self, TOOL_ATTR[f.code])
        if isinstance(value, tuple):
            return list(value) or None
        return value if value not in (None, "") else None

    # ------------------------------------------------------------------ operations
    def add(self, code: str, content: Any) -> ToolDoc:
        """Add a field that is absent (per-entry fields: fill the entries lacking it)."""
        f = field(code)
        if f.scope is Scope.TOOL and self.has(f.code):
            raise DocError(f"{self.tool}: cannot Add {f.code} ({f.name}); it is present — use Refine")
        return self._set(f.code, content, only_missing=True)

    def refine(self, code: str, content: Any) -> ToolDoc:
        """Replace the content of a field that is present."""
        f = field(code)
        if not self.has(f.code):
            raise DocError(f"{self.tool}: cannot Refine {f.code} ({f.name}); it is absent — use Add")
        return self._set(f.code, content, only_missing=False)

    def remove(self, code: str) -> ToolDoc:
        """Remove a field everywhere it occurs. Removing IPN removes the parameter list."""
        f = field(code)
        if f.code == "IPN":
            return self.model_copy(update={"parameters": ()})
        if f.scope is Scope.PARAMETER:
            return self.model_copy(
                update={"parameters": tuple(p.with_field(f.code, _MISSING) for p in self.parameters)}
            )
        if f.scope is Scope.RETURN:
            kept = tuple(
                r for r in (r.with_field(f.code, _MISSING) for r in self.returns) if not r.is_empty()
            )
            # an output schema without returns would say nothing: it goes with the last of them
            return self.model_copy(
                update={"returns": kept, "output_schema": self.output_schema if kept else None}
            )
        attr = TOOL_ATTR[f.code]
        return self.model_copy(update={attr: () if attr == "examples" else None})

    def apply(self, op: str, code: str, content: Any = None) -> ToolDoc:
        """Apply an operation named 'add', 'remove' or 'refine' (case-insensitive)."""
        kind = op.strip().lower()
        if kind == "add":
            return self.add(code, content)
        if kind == "remove":
            return self.remove(code)
        if kind == "refine":
            return self.refine(code, content)
        raise DocError(f"unknown operation {op!r}; expected Add, Remove or Refine")

    def _set(self, code: str, content: Any, *, only_missing: bool) -> ToolDoc:
        f = BY_CODE[code]
        if f.code == "IPN":
            return self.model_copy(
                update={"parameters": _merge_params(self.parameters, content, only_missing)}
            )
        if f.scope is Scope.PARAMETER:
            return self.model_copy(
                update={"parameters": _set_param_field(self, f.code, content, only_missing)}
            )
        if f.scope is Scope.RETURN:
            return self.model_copy(update={"returns": _set_return_field(self, f.code, content, only_missing)})
        attr = TOOL_ATTR[f.code]
        if attr == "examples":
            items = (content,) if isinstance(content, str) else tuple(str(x) for x in content or ())
            items = tuple(x for x in items if x.strip())
            if not items:
                raise DocError(f"{self.tool}: {f.code} content is empty")
            if only_missing:
                items = tuple(dict.fromkeys(self.examples + items))
            return self.model_copy(update={"examples": items})
        if not isinstance(content, str) or not content.strip():
            raise DocError(f"{self.tool}: {f.code} ({f.name}) needs non-empty text, got {content!r}")
        return self.model_copy(update={attr: content})

    # ------------------------------------------------------------------ helpers
    def param(self, name: str) -> Param | None:
        return next((p for p in self.parameters if p.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ToolDoc:
        return cls.model_validate(data)


def _merge_params(existing: Sequence[Param], content: Any, only_missing: bool) -> tuple[Param, ...]:
    """IPN content: a list of names, Param objects or parameter dicts."""
    if not isinstance(content, Sequence) or isinstance(content, str | bytes):
        raise DocError(f"IPN content must be a list of parameters, got {type(content).__name__}")
    new: list[Param] = []
    for item in content:
        if isinstance(item, Param):
            new.append(item)
        elif isinstance(item, str):
            new.append(Param(name=item))
        elif isinstance(item, Mapping):
            new.append(Param.model_validate(item))
        else:
            raise DocError(f"IPN entry must be a name or a parameter object, got {item!r}")
    if only_missing:
        names = {p.name for p in existing}
        return tuple(existing) + tuple(p for p in new if p.name not in names)
    return tuple(new)


def _set_param_field(doc: ToolDoc, code: str, content: Any, only_missing: bool) -> tuple[Param, ...]:
    if not isinstance(content, Mapping):
        raise DocError(f"{doc.tool}: {code} content must map parameter name -> value, got {content!r}")
    names = {p.name for p in doc.parameters}
    unknown = sorted(set(content) - names)
    if unknown:
        raise DocError(
            f"{doc.tool}: {code} names unknown parameter(s) {unknown}; parameters are {sorted(names)}"
        )
    out = []
    for p in doc.parameters:
        if p.name in content and not (only_missing and p.has(code)):
            p = p.with_field(code, content[p.name])
        out.append(p)
    return tuple(out)


def _set_return_field(doc: ToolDoc, code: str, content: Any, only_missing: bool) -> tuple[Return, ...]:
    """Per-return content: a list aligned with returns, or a mapping return-name -> value.

    A list longer than the current returns creates new entries (adding returns to
    a doc that had none).
    """
    returns = list(doc.returns)
    if isinstance(content, Mapping):
        by_name = {r.name: i for i, r in enumerate(returns) if r.name}
        for key, value in content.items():
            if key in by_name:
                i = by_name[key]
                if not (only_missing and returns[i].has(code)):
                    returns[i] = returns[i].with_field(code, value)
            elif code == "RPN" or not returns:
                returns.append(Return().with_field(code, value) if code != "RPN" else Return(name=str(value)))
            else:
                raise DocError(f"{doc.tool}: {code} names unknown return {key!r}")
        return tuple(returns)
    if isinstance(content, str):
        content = [content]
    if not isinstance(content, Sequence):
        raise DocError(f"{doc.tool}: {code} content must be a list or mapping, got {content!r}")
    for i, value in enumerate(content):
        if i >= len(returns):
            returns.append(Return())
        if not (only_missing and returns[i].has(code)):
            returns[i] = returns[i].with_field(code, value)
    return tuple(r for r in returns if not r.is_empty())
