"""Render a ToolDoc as prompt text, as an OpenAI tool schema, or as an MCP tool.

Rendering is separate from content: the same ToolDoc feeds text-ReAct agents
and native tool calling. Fields are shown in taxonomy order under labelled
headings; an absent field renders as nothing (no empty headings). In the
OpenAI/MCP forms, fields with a native slot (name, parameter names,
descriptions, types, defaults, required) use it, and every other field is
written into the description in the same labelled format, so the model sees
all of the documentation and `core.docs.parsers` can read it back exactly.
"""

from __future__ import annotations

import json
from typing import Any

from core.docs.model import DocError, Param, Return, ToolDoc
from core.docs.parsers.names import (
    decode_openai_name,
    default_alias,
    openai_name,
    tool_from_openai_name,
)
from core.docs.parsers.sections import (
    LABELS,
    NO,
    PARAM_KEYS,
    RETURN_KEYS,
    SCHEMA_KEY,
    TOOL_LABEL_SET,
    UNSPECIFIED,
    YES,
    is_heading,
    list_section,
    shows,
    value_lines,
)
from core.docs.schemas import OBJECT, delta, fragment, schema_text
from core.docs.types import schema_to_type

__all__ = [
    "decode_openai_name",
    "default_alias",
    "openai_name",
    "render_mcp",
    "render_openai",
    "render_text",
    "tool_from_openai_name",
]


def _flag(value: bool | None) -> str | None:
    return None if value is None else (YES if value else NO)


def _param_block(p: Param) -> list[str]:
    lines = value_lines(PARAM_KEYS["IPN"], p.name)
    if shows(p.description):
        lines += value_lines(PARAM_KEYS["IPD"], p.description)
    if shows(p.type):
        lines += value_lines(PARAM_KEYS["IPT"], p.type)
    if p.type_schema is not None:
        lines += value_lines(SCHEMA_KEY, schema_text(delta(p.type, p.type_schema)))
    if p.has_default:
        lines += value_lines(PARAM_KEYS["DPV"], json.dumps(p.default, ensure_ascii=False, default=str))
    for code, value in (("PRF", p.required), ("POF", p.optional)):
        if value is not None:
            lines += value_lines(PARAM_KEYS[code], _flag(value))
    return lines


def _return_block(r: Return) -> list[str]:
    lines: list[str] = []
    for code, key in RETURN_KEYS.items():
        value = r.get(code)
        if shows(value):
            lines += value_lines(key, value)
    if r.type_schema is not None:
        lines += value_lines(SCHEMA_KEY, schema_text(delta(r.type, r.type_schema)))
    return lines


def _tail_sections(doc: ToolDoc, returns: bool = True) -> list[str]:
    """Returns (unless a schema holds them), CI, UE, RT, UG, IC: the fields after the parameters."""
    lines = list_section(LABELS["RETURNS"], (_return_block(r) for r in doc.returns)) if returns else []
    if returns and doc.returns and doc.output_schema is not None:
        lines += value_lines(LABELS["OUTPUT"], schema_text(delta(OBJECT, doc.output_schema)))
    if shows(doc.code):
        lines += value_lines(LABELS["CI"], doc.code)
    lines += list_section(LABELS["UE"], (e.split("\n") for e in doc.examples if shows(e)))
    for code, attr in (("RT", "response_template"), ("UG", "guidance"), ("IC", "constraints")):
        value = getattr(doc, attr)
        if shows(value):
            lines += value_lines(LABELS[code], value)
    return lines


def render_text(doc: ToolDoc, alias: str | None = None) -> str:
    """Prompt text for one tool; without TN the tool is shown as `Tool id: <alias>`."""
    if shows(doc.name):
        lines = value_lines(LABELS["TN"], doc.name)
    else:
        lines = value_lines(LABELS["ALIAS"], alias or default_alias(doc.tool))
    if shows(doc.description):
        lines += value_lines(LABELS["FD"], doc.description)
    if shows(doc.domain):
        lines += value_lines(LABELS["TD"], doc.domain)
    _check_unique(doc)
    lines += list_section(LABELS["PARAMS"], (_param_block(p) for p in doc.parameters))
    if doc.schema_extra is not None:
        lines += value_lines(LABELS["SCHEMA"], schema_text(doc.schema_extra))
    lines += _tail_sections(doc)
    return "\n".join(lines)


def _check_unique(doc: ToolDoc) -> None:
    names = [p.name for p in doc.parameters]
    if len(names) != len(set(names)):
        raise DocError(f"{doc.tool}: parameter names are not unique: {names}")


# ------------------------------------------------------------------ schemas
def input_schema(doc: ToolDoc) -> tuple[dict[str, Any], list[list[str]]]:
    """The JSON schema of the parameters, plus per-parameter text for what has no native slot.

    The text items carry POF, a type text the schema cannot reproduce exactly,
    and an unspecified required flag among specified ones. A parameter's stored
    schema keywords and the doc's top-level `schema_extra` are written as they
    were read, so a schema source renders back to itself.
    """
    _check_unique(doc)
    properties: dict[str, Any] = {}
    residual: list[list[str]] = []
    any_required = any(p.required is not None for p in doc.parameters)
    for p in doc.parameters:
        prop: dict[str, Any] = {}
        extra: list[str] = []
        keywords = fragment(p.type, p.type_schema)
        prop.update(keywords)
        if p.type not in (None, "") and schema_to_type(keywords) != p.type:
            extra += value_lines(PARAM_KEYS["IPT"], p.type)
        if p.description not in (None, ""):
            prop["description"] = p.description
        if p.has_default:
            prop["default"] = p.default
        if any_required and p.required is None:
            extra += value_lines(PARAM_KEYS["PRF"], UNSPECIFIED)
        if p.optional is not None:
            extra += value_lines(PARAM_KEYS["POF"], _flag(p.optional))
        if extra:
            residual.append(value_lines(PARAM_KEYS["IPN"], p.name) + extra)
        properties[p.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if any_required:
        schema["required"] = [p.name for p in doc.parameters if p.required]
    return _with_extra(schema, doc), residual


def _with_extra(schema: dict[str, Any], doc: ToolDoc) -> dict[str, Any]:
    """The top-level keywords of the source schema (`ToolDoc.schema_extra`; None: absent there)."""
    for key, value in (doc.schema_extra or {}).items():
        if key == "properties" and doc.parameters:
            continue  # parameters added to a tool whose source had none
        if key == "required" and doc.parameters:
            flagged = {p.name for p in doc.parameters if p.required}
            if {n for n in value if doc.param(n) is not None} != flagged:
                continue  # an operation changed the flags: they decide
        if value is None:
            schema.pop(key, None)
        else:
            schema[key] = value
    return schema


def _fd_is_raw(doc: ToolDoc) -> bool:
    """FD goes in the description as is unless a line of it could be read as one of our headings."""
    return doc.description not in (None, "") and not any(
        is_heading(ln, TOOL_LABEL_SET) for ln in doc.description.split("\n")
    )


def schema_description(
    doc: ToolDoc, residual: list[list[str]], show_name: bool, *, returns: bool = True
) -> str | None:
    """FD as plain text, then labelled sections for the fields with no native slot.

    `returns=False` leaves the returns out, for a definition that holds them natively.
    """
    lines: list[str] = []
    if show_name:
        lines += value_lines(LABELS["TN"], doc.name or "")
    raw = _fd_is_raw(doc)
    if doc.description not in (None, "") and not raw:
        lines += value_lines(LABELS["FD"], doc.description)
    if shows(doc.domain):
        lines += value_lines(LABELS["TD"], doc.domain)
    lines += list_section(LABELS["PARAMS"], residual)
    lines += _tail_sections(doc, returns)
    sections = "\n".join(lines)
    if raw:
        return doc.description + ("\n\n" + sections if sections else "")
    return sections or None


def _exposed_name(doc: ToolDoc, alias: str | None, encode: bool) -> tuple[str, bool]:
    """The name in the schema and whether TN must also be spelled out in the description."""
    enc = openai_name if encode else (lambda s: s)
    alias_name = enc(alias or default_alias(doc.tool))
    if doc.name in (None, ""):
        return alias_name, False
    name = enc(doc.name)
    lossy = (decode_openai_name(name) if encode else name) != doc.name
    return name, lossy or name == alias_name


def render_openai(doc: ToolDoc, alias: str | None = None) -> dict[str, Any]:
    """An OpenAI tool: `{"type": "function", "function": {name, description, parameters}}`."""
    name, show_name = _exposed_name(doc, alias, encode=True)
    schema, residual = input_schema(doc)
    function: dict[str, Any] = {"name": name}
    description = schema_description(doc, residual, show_name)
    if description is not None:
        function["description"] = description
    function["parameters"] = schema
    return {"type": "function", "function": function}


def render_mcp(doc: ToolDoc, alias: str | None = None) -> dict[str, Any]:
    """An MCP tool definition: `{name, description, inputSchema}`, and `outputSchema` when the doc came with one."""
    name, show_name = _exposed_name(doc, alias, encode=False)
    schema, residual = input_schema(doc)
    output = output_schema(doc)
    tool: dict[str, Any] = {"name": name}
    description = schema_description(doc, residual, show_name, returns=output is None)
    if description is not None:
        tool["description"] = description
    tool["inputSchema"] = schema
    if output is not None:
        tool["outputSchema"] = output
    return tool


def output_schema(doc: ToolDoc) -> dict[str, Any] | None:
    """The MCP `outputSchema` of a doc read from one, with its return entries as properties.

    None (the returns then go into the description) for other docs, and when
    an entry cannot be a property exactly: no name, a repeated name, or a type
    text its schema does not reproduce. A `required` name whose entry an
    operation removed is dropped from the list.
    """
    if doc.output_schema is None or not doc.returns:
        return None
    props: dict[str, Any] = {}
    for r in doc.returns:
        keywords = fragment(r.type, r.type_schema)
        if not r.name or r.name in props or (r.type not in (None, "") and schema_to_type(keywords) != r.type):
            return None
        if r.description is not None:
            keywords["description"] = r.description
        props[r.name] = keywords
    out = {**doc.output_schema, "properties": props}
    if isinstance(out.get("required"), list):
        out["required"] = [n for n in out["required"] if n in props]
    return out
