"""The exact JSON Schema of a parameter or return value, kept beside its type text.

IPT is text ("str", 'Literal["a", "b"]'), which is what the field model and
its operations work on. Text cannot say everything a JSON Schema can: an enum
together with its `type`, nested object properties with their own defaults and
`required` lists, array `items`, `format`, bounds, patterns. So an entry keeps
the schema keywords its source declared (`type_schema`, everything except
`description` and `default`, which are fields of their own) whenever the type
text alone would not reproduce them. Docs whose schemas the text reproduces
store nothing extra, so their content hash is what it always was.

When an operation changes the type text on purpose, the keywords that define
the kind of value (`TYPE_KEYWORDS`) follow the new text and the others (bounds,
`title`, `examples`, ...) stay.
"""

from __future__ import annotations

import json
from typing import Any

from core.docs.types import schema_to_type, type_to_schema

# Keywords that say what kind of value is admitted; a changed type text replaces them.
TYPE_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "format",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "$ref",
    }
)
# The type text of an object: what the text format shows a top-level schema against.
OBJECT = "dict"
# Keywords that are documentation fields of their own (IPD/RPD, DPV), never part of `type_schema`.
FIELD_KEYWORDS = frozenset({"description", "default"})


def same_json(a: Any, b: Any) -> bool:
    """Equality as JSON text: `1`, `1.0` and `true` differ, as they do in a schema."""
    return json.dumps(a, sort_keys=True, ensure_ascii=False) == json.dumps(
        b, sort_keys=True, ensure_ascii=False
    )


def type_part(schema: dict[str, Any]) -> dict[str, Any]:
    """A property schema without the keywords that are fields of their own."""
    return {k: v for k, v in schema.items() if k not in FIELD_KEYWORDS}


def derived_schema(type_text: str | None) -> dict[str, Any]:
    """The schema keywords the type text alone renders to (`{}` when it names no known type)."""
    return type_to_schema(type_text) or {}


def own_schema(type_text: str | None, schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The normal form of a stored schema: None when the type text already renders to it.

    Without a type text, keywords that would read back as one are dropped, so
    an entry never shows a type its IPT does not have.
    """
    if schema is None:
        return None
    bad = FIELD_KEYWORDS & set(schema)
    if bad:
        raise ValueError(f"type_schema must not hold {sorted(bad)}: they are fields of their own")
    if type_text is None and schema_to_type(schema) is not None:
        schema = {k: v for k, v in schema.items() if k not in TYPE_KEYWORDS}
    return None if same_json(schema, derived_schema(type_text)) else dict(schema)


def retyped(schema: dict[str, Any] | None, old: str | None, new: str | None) -> dict[str, Any] | None:
    """The stored schema after the type text changed from `old` to `new` (an operation on IPT)."""
    if schema is None or new == old:
        return schema
    kept = {k: v for k, v in schema.items() if k not in TYPE_KEYWORDS}
    if not kept:
        return None
    return own_schema(new, {**derived_schema(new), **kept})


def fragment(type_text: str | None, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The schema keywords an entry renders: its stored schema, else what its type text maps to."""
    return dict(schema) if schema is not None else derived_schema(type_text)


def schema_text(schema: dict[str, Any]) -> str:
    """One-line JSON of a schema, as the text format shows it."""
    return json.dumps(schema, ensure_ascii=False, separators=(", ", ": "))


def delta(type_text: str | None, schema: dict[str, Any]) -> dict[str, Any]:
    """What a stored schema says beyond its type text, as the text format shows it.

    A prompt should not repeat `"type": "string"` next to `type: str`, so the
    text shows only the keywords the type text does not render to, with null
    for one it renders that the source did not have (no type keyword is ever
    legitimately null). `undelta` reverses it.
    """
    base = derived_schema(type_text)
    out = {k: v for k, v in schema.items() if k not in base or not same_json(base[k], v)}
    out.update({k: None for k in base if k not in schema})
    return out


def undelta(type_text: str | None, shown: dict[str, Any]) -> dict[str, Any]:
    """The stored schema from its type text and what the text format showed (`delta`)."""
    out = derived_schema(type_text)
    for key, value in shown.items():
        if value is None and key in out:
            del out[key]
        else:
            out[key] = value
    return out
