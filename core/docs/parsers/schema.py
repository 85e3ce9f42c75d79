"""OpenAI tool schemas and MCP tool definitions -> ToolDoc (theirs and our own renderings).

JSON-schema types become canonical type text (IPT), the `required` list sets
PRF on every parameter (true or false; absent list: PRF absent), `default`
sets DPV. Schema keywords the type text cannot reproduce (an enum's `type`,
nested properties, `items`, `format`, bounds) are kept verbatim beside it
(`type_schema`, see core.docs.schemas), and so are the top-level keywords
other than `properties`/`required` (`ToolDoc.schema_extra`), so a schema
renders back exactly. When the description carries our labelled sections
(written by `core.docs.render` for fields with no native slot) they are read
back; any description that does not parse strictly as ours is kept whole as FD.
"""

from __future__ import annotations

from typing import Any

from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers.errors import DocParseError, Where
from core.docs.parsers.names import decode_openai_name, default_alias, openai_name
from core.docs.parsers.rendered import item_fields, param_name_key, parse_flag, tool_sections
from core.docs.parsers.sections import (
    LABELS,
    LEGACY_PARAM_NAME_KEY,
    LIST_LABELS,
    PARAM_KEYS,
    TOOL_LABEL_SET,
    is_heading,
    parse_block,
)
from core.docs.schemas import own_schema, type_part
from core.docs.types import schema_to_type

_RESIDUAL_PARAM_KEYS = frozenset(
    {PARAM_KEYS["IPN"], LEGACY_PARAM_NAME_KEY, PARAM_KEYS["IPT"], PARAM_KEYS["PRF"], PARAM_KEYS["POF"]}
)
_RESIDUAL_LABELS = TOOL_LABEL_SET - {LABELS["ALIAS"], LABELS["SCHEMA"]}


def schema_params(schema: dict[str, Any] | None, where: Where) -> list[Param]:
    """Parameters from a JSON schema of type object.

    Each keeps its whole schema (less description and default) as `type_schema`
    without normalising it: the type text may still change (our own renderings
    carry exact type text in the description), and `exact_params` then drops
    what the final text reproduces.
    """
    if schema is None:
        return []
    props = where.optional(schema, "properties", dict) or {}
    required = where.optional(schema, "required", list)
    if required is not None:
        for i, r in enumerate(required):
            where.key("required").index(i).check(r, str)
    params = []
    for name, prop in props.items():
        w = where.key("properties").key(name)
        w.check(prop, dict)
        params.append(
            Param(
                name=name,
                description=w.optional(prop, "description", str),
                type=schema_to_type(prop),
                has_default="default" in prop,
                default=prop.get("default"),
                required=None if required is None else name in required,
            ).model_copy(update={"type_schema": type_part(prop)})
        )
    return params


def exact_params(params: list[Param]) -> list[Param]:
    """Parameters whose `type_schema` holds only what their type text does not reproduce."""
    return [p.model_copy(update={"type_schema": own_schema(p.type, p.type_schema)}) for p in params]


def schema_extra(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """Top-level keywords of a parameter schema that its parameters do not hold (None: nothing).

    A keyword mapped to None was absent (the renderer writes `type` and
    `properties` unless told so). `required` is kept when the parameters'
    flags would not write it back as it was: a schema without properties, a
    list in another order than the properties, or names that are no property.
    """
    if schema is None:
        return None
    extra = {k: v for k, v in schema.items() if k not in ("type", "properties", "required")}
    if "type" not in schema:
        extra["type"] = None
    elif schema["type"] != "object":
        extra["type"] = schema["type"]
    if "properties" not in schema:
        extra["properties"] = None
    required = schema.get("required")
    if isinstance(required, list):
        props = schema.get("properties") or {}
        if not props or required != [n for n in props if n in required]:
            extra["required"] = required
    return extra or None


def split_description(description: str | None) -> tuple[str | None, dict[str, Any] | None]:
    """(FD, residual fields) from a description; residual is None when it holds none of ours."""
    if description is None:
        return None, None
    lines = description.split("\n")
    start = next((i for i, ln in enumerate(lines) if is_heading(ln, _RESIDUAL_LABELS)), None)
    if start is None or (start > 0 and (start < 2 or lines[start - 1] != "")):
        return description, None
    try:
        sections = parse_block(
            lines[start:], _RESIDUAL_LABELS, LIST_LABELS, Where("<description>"), start + 1
        )
    except DocParseError:
        return description, None
    fd = "\n".join(lines[: start - 1]) if start else None
    if fd is not None and any(s.label == LABELS["FD"] for s in sections):
        return description, None
    params = next((s for s in sections if s.label == LABELS["PARAMS"]), None)
    try:
        residual = tool_sections([s for s in sections if s is not params], Where("<description>"))
        if params is not None:
            residual["_params"] = [_residual_param(item) for item in params.items]
    except DocParseError:
        return description, None
    if fd is None:
        fd = residual.pop("description", None)
    return fd, residual


def _residual_param(item: tuple[int, tuple[str, ...]]) -> dict[str, Any]:
    where = Where("<description>")
    fields = item_fields(item, _RESIDUAL_PARAM_KEYS, where)
    out: dict[str, Any] = {"name": fields[param_name_key(fields, item[0], where)][0]}
    if PARAM_KEYS["IPT"] in fields:
        out["type"] = fields[PARAM_KEYS["IPT"]][0]
    if PARAM_KEYS["PRF"] in fields:
        out["required"] = parse_flag(fields[PARAM_KEYS["PRF"]][0], where, allow_unspecified=True)
    if PARAM_KEYS["POF"] in fields:
        out["optional"] = parse_flag(fields[PARAM_KEYS["POF"]][0], where)
    return out


def _merge_residual_params(params: list[Param], residual: list[dict[str, Any]] | None) -> list[Param] | None:
    """Apply per-parameter text onto schema parameters; None when a name does not match."""
    if not residual:
        return params
    by_name = {p.name: i for i, p in enumerate(params)}
    out = list(params)
    for extra in residual:
        i = by_name.get(extra["name"])
        if i is None:
            return None
        out[i] = out[i].model_copy(update={k: v for k, v in extra.items() if k != "name"})
    return out


def _build(
    name: str,
    description: str | None,
    params: list[Param],
    *,
    tool: str | None,
    alias: str | None,
    encoded: bool,
) -> tuple[dict[str, Any], str]:
    fd, residual = split_description(description)
    merged = _merge_residual_params(params, (residual or {}).get("_params"))
    if merged is None:  # not ours after all
        fd, residual, merged = description, None, params
    residual = dict(residual or {})
    residual.pop("_params", None)
    enc = openai_name if encoded else (lambda s: s)
    alias_name = enc(alias) if alias else (enc(default_alias(tool)) if tool else None)
    if "name" in residual:
        tn = residual.pop("name")
    elif alias_name is not None and name == alias_name:
        tn = None
    else:
        tn = decode_openai_name(name) if encoded else name
    data = {"name": tn, "description": fd, "parameters": tuple(exact_params(merged)), **residual}
    return data, tool or tn or name


def parse_openai(
    obj: Any, *, tool: str | None = None, alias: str | None = None, where: Where | None = None
) -> ToolDoc:
    """An OpenAI tool (`{"type": "function", "function": {...}}` or the bare function object).

    `tool` is the dispatch key (default: the decoded name); `alias` is the name
    the tool was rendered under when TN was absent, so it reads back as no TN.
    """
    where = where or Where()
    where.check(obj, dict)
    if obj.get("type") == "function" and "function" in obj:
        fn = where.require(obj, "function", dict)
        where = where.key("function")
    else:
        fn = obj
    name = where.require(fn, "name", str)
    description = where.optional(fn, "description", str)
    schema = where.optional(fn, "parameters", dict)
    params = schema_params(schema, where.key("parameters"))
    data, key = _build(name, description, params, tool=tool, alias=alias, encoded=True)
    response = where.optional(fn, "response", dict)
    if response is not None:
        data["returns"] = tuple(output_returns(response, where.key("response"))) + tuple(
            data.get("returns", ())
        )
    return ToolDoc(tool=key, schema_extra=schema_extra(schema), **data)


def parse_mcp(
    obj: Any, *, tool: str | None = None, alias: str | None = None, where: Where | None = None
) -> ToolDoc:
    """An MCP tool definition: name, description, inputSchema, optional outputSchema/annotations.

    outputSchema properties become return entries (and the keywords around them
    `ToolDoc.output_schema`); behaviour annotations (read-only, destructive,
    idempotent, open-world hints) become usage guidance.
    """
    where = where or Where()
    where.check(obj, dict)
    name = where.require(obj, "name", str)
    description = where.optional(obj, "description", str)
    if "inputSchema" not in obj:
        typo = next((k for k in obj if k.lower().replace("_", "") == "inputschema"), None)
        hint = f' (found "{typo}")' if typo else ""
        raise where.error(
            f'MCP tool definition without "inputSchema"{hint}: MCP requires it, use {{"type": "object"}} '
            "for a tool without parameters"
        )
    schema = where.require(obj, "inputSchema", dict)
    params = schema_params(schema, where.key("inputSchema"))
    data, key = _build(name, description, params, tool=tool, alias=alias, encoded=False)
    data["schema_extra"] = schema_extra(schema)
    out_schema = where.optional(obj, "outputSchema", dict)
    if out_schema is not None:
        data["returns"] = tuple(output_returns(out_schema, where.key("outputSchema"))) + tuple(
            data.get("returns", ())
        )
        if out_schema.get("properties"):
            data["output_schema"] = {k: v for k, v in out_schema.items() if k != "properties"}
    annotations = where.optional(obj, "annotations", dict)
    hints = _hints(annotations) if annotations else None
    if hints:
        data["guidance"] = f"{data['guidance']}\n\n{hints}" if data.get("guidance") else hints
    return ToolDoc(tool=key, **data)


def output_returns(schema: dict[str, Any], where: Where) -> list[Return]:
    """Return entries from a declared output schema (MCP `outputSchema`, BFCL `response`).

    An object's properties are one entry each (RPN, RPD, RPT with their exact
    schema); any other schema is one unnamed entry, named by a `name` key when
    the source gives one (BFCL does).
    """
    props = where.optional(schema, "properties", dict)
    if props:
        out = []
        for rname, prop in props.items():
            w = where.key("properties").key(rname)
            w.check(prop, dict)
            out.append(_typed_return(rname, prop, w))
        return out
    rest = {k: v for k, v in schema.items() if k != "name"}
    ret = _typed_return(where.optional(schema, "name", str), rest, where)
    return [] if ret.is_empty() else [ret]


def _typed_return(name: str | None, prop: dict[str, Any], where: Where) -> Return:
    kind = schema_to_type(prop)
    return Return(
        name=name,
        description=where.optional(prop, "description", str),
        type=kind,
        type_schema=type_part(prop),
    )


_HINTS = {
    "readOnlyHint": ("read-only", "not read-only"),
    "destructiveHint": ("destructive", "not destructive"),
    "idempotentHint": ("idempotent", "not idempotent"),
    "openWorldHint": ("open world", "closed world"),
}


def _hints(annotations: dict[str, Any]) -> str | None:
    parts = [_HINTS[k][0 if v else 1] for k, v in annotations.items() if k in _HINTS and isinstance(v, bool)]
    title = annotations.get("title")
    text = f"Behaviour hints: {', '.join(parts)}." if parts else ""
    if isinstance(title, str) and title:
        text = f"Title: {title}. {text}".strip()
    return text or None
