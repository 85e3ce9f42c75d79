"""Field-level overlay of optimized docs onto a server's own MCP tool definitions.

Why field-level: a server's definition carries more than DocsChisel models
(JSON-schema constraints, titles, annotations, output schemas, `_meta`). The
optimized definition therefore starts from the server's own bytes and changes
only the parts whose documentation fields differ between the original doc
(the server's definition, parsed) and the optimized one:

- description-borne fields (FD, TD, CI, UE, RT, UG, IC and the returns) → the
  `description`, rendered as `core.docs.render` does; information the server
  keeps in its own slots (annotations, outputSchema) is not repeated there;
- IPD, IPT, DPV, PRF → `description`, the type keys, `default` of that
  property and the `required` list of `inputSchema`; other keys stay;
- TN → the exposed `name` (the proxy maps calls back to the server's name).

The parameter set stays the server's: calls are forwarded unchanged, so a
parameter the server does not take is never offered, and one it takes is
never hidden; such differences are reported as notes instead.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from core.docs import DocSet, ToolDoc, diff, parse_mcp, render_mcp
from core.docs.parsers.schema import _hints
from core.docs.render import schema_description
from core.docs.types import type_to_schema

DESCRIPTION_FIELDS = frozenset({"FD", "TD", "CI", "UE", "RT", "UG", "IC", "RPN", "RPD", "RPT"})
TYPE_KEYS = ("type", "items", "enum", "anyOf", "oneOf", "const", "prefixItems")
OVERLAY_FORMAT = "docschisel.mcp-overlay/1"


def overlay_tool(
    definition: Mapping[str, Any], doc: ToolDoc, original: ToolDoc | None = None
) -> tuple[dict[str, Any], list[str]]:
    """(the server's definition with `doc`'s changed fields applied, notes on what was not applied)."""
    original = original if original is not None else parse_mcp(dict(definition))
    out = copy.deepcopy(dict(definition))
    codes = {c.code for c in diff(original, doc)}
    notes: list[str] = []
    if not codes:
        return out, notes
    if "TN" in codes and doc.name:
        out["name"] = doc.name
    if codes & DESCRIPTION_FIELDS:
        text = _description(doc, original, definition)
        if text:
            out["description"] = text
        else:
            out.pop("description", None)
    schema = out.get("inputSchema")
    if not isinstance(schema, dict):
        schema = out["inputSchema"] = {"type": "object"}
    props = schema.get("properties")
    if not isinstance(props, dict):
        props = {}
    before = {p.name: p for p in original.parameters}
    for p in doc.parameters:
        o = before.get(p.name)
        if p.name not in props or o is None:
            notes.append(f"{doc.tool}: parameter {p.name!r} is not in the server's schema; not offered")
            continue
        prop = props[p.name] = dict(props[p.name]) if isinstance(props[p.name], dict) else {}
        if p.description != o.description:
            _set(prop, "description", p.description)
        if p.type != o.type:
            fragment = type_to_schema(p.type)
            if fragment:
                for key in TYPE_KEYS:
                    prop.pop(key, None)
                prop.update(fragment)
            else:
                notes.append(
                    f"{doc.tool}: type {p.type!r} of {p.name!r} has no JSON-schema form; kept the server's"
                )
        if (p.has_default, p.default) != (o.has_default, o.default):
            if p.has_default:
                prop["default"] = p.default
            else:
                prop.pop("default", None)
        if p.required != o.required and p.required is not None:
            required = [r for r in schema.get("required") or [] if r != p.name]
            if p.required:
                required.append(p.name)
            schema["required"] = [n for n in props if n in required]
    missing = sorted(set(before) - {p.name for p in doc.parameters})
    if missing:
        notes.append(f"{doc.tool}: the server still takes {', '.join(missing)}; kept in the schema")
    if props:
        schema["properties"] = props
    return out, notes


def _description(doc: ToolDoc, original: ToolDoc, definition: Mapping[str, Any]) -> str | None:
    """The description for `doc`, without what the definition says in its own slots."""
    update: dict[str, Any] = {"parameters": ()}  # parameter documentation lives in the schema
    if definition.get("outputSchema") is not None and doc.returns == original.returns:
        update["returns"] = ()
    annotations = definition.get("annotations")
    hints = _hints(annotations) if isinstance(annotations, dict) else None
    if hints and doc.guidance:
        rest = doc.guidance.replace(hints, "").strip()
        update["guidance"] = rest or None
    return schema_description(doc.model_copy(update=update), [], False)


def _set(prop: dict[str, Any], key: str, value: Any) -> None:
    if value in (None, ""):
        prop.pop(key, None)
    else:
        prop[key] = value


def merge_patch(before: Any, after: Any) -> Any:
    """The JSON merge patch (RFC 7396) that turns `before` into `after` (None where they are equal)."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return None if before == after else after
    patch: dict[str, Any] = {}
    for key in before:
        if key not in after:
            patch[key] = None
    for key, value in after.items():
        if key not in before:
            patch[key] = value
        elif before[key] != value:
            sub = merge_patch(before[key], value)
            patch[key] = sub
    return patch or None


def overlay_docset(
    original: DocSet, optimized: DocSet, definitions: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """`docschisel export --format mcp-overlay`: per changed tool, a JSON merge patch of its definition.

    A server (or client) that accepts description overrides applies each
    patch to the tool's definition from `tools/list`. `definitions` are the
    server's own definitions when at hand; else each original doc's MCP
    rendering stands in for it.
    """
    tools: dict[str, Any] = {}
    notes: list[str] = []
    for tool, doc in optimized.items():
        base = original.get(tool)
        if base is None or base == doc:
            continue
        definition = dict((definitions or {}).get(tool) or render_mcp(base))
        after, why = overlay_tool(definition, doc, base)
        notes += why
        patch = merge_patch(definition, after)
        if patch:
            tools[definition.get("name", tool)] = patch
    return {
        "format": OVERLAY_FORMAT,
        "apply": "JSON merge patch (RFC 7396) per tool definition",
        "tools": tools,
        "notes": notes,
    }
