"""Read our labelled-section text (from `render_text`) back into a ToolDoc."""

from __future__ import annotations

import json
from typing import Any

from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers.errors import DocParseError, Where
from core.docs.parsers.sections import (
    LABELS,
    LEGACY_PARAM_NAME_KEY,
    LIST_LABELS,
    NO,
    PARAM_KEYS,
    RETURN_KEYS,
    SCHEMA_KEY,
    TOOL_LABEL_SET,
    UNSPECIFIED,
    YES,
    Section,
    is_heading,
    parse_block,
)
from core.docs.schemas import FIELD_KEYWORDS, OBJECT, undelta

_PARAM_KEY_SET = frozenset(PARAM_KEYS.values()) | {SCHEMA_KEY, LEGACY_PARAM_NAME_KEY}
_RETURN_KEY_SET = frozenset(RETURN_KEYS.values()) | {SCHEMA_KEY}


def parse_flag(text: str, where: Where, *, allow_unspecified: bool = False) -> bool | None:
    if text == YES:
        return True
    if text == NO:
        return False
    if allow_unspecified and text == UNSPECIFIED:
        return None
    raise where.error(f'expected "{YES}" or "{NO}", got {text!r}')


def item_fields(
    item: tuple[int, tuple[str, ...]], keys: frozenset[str], where: Where
) -> dict[str, tuple[str, int]]:
    """The `key: value` pairs of one list item, with their line numbers."""
    line, block = item
    sections = parse_block(list(block), keys, frozenset(), where, first_line=line)
    return {s.label: (s.text or "", s.line) for s in sections}


def parse_param_item(item: tuple[int, tuple[str, ...]], where: Where) -> Param:
    fields = item_fields(item, _PARAM_KEY_SET, where)
    name_key = param_name_key(fields, item[0], where)
    data: dict[str, Any] = {"name": fields[name_key][0]}
    if PARAM_KEYS["IPD"] in fields:
        data["description"] = fields[PARAM_KEYS["IPD"]][0]
    if PARAM_KEYS["IPT"] in fields:
        data["type"] = fields[PARAM_KEYS["IPT"]][0]
    if SCHEMA_KEY in fields:
        data["type_schema"] = undelta(data.get("type"), _schema_value(fields[SCHEMA_KEY], where, entry=True))
    if PARAM_KEYS["DPV"] in fields:
        text, line = fields[PARAM_KEYS["DPV"]]
        try:
            data["default"] = json.loads(text)
        except json.JSONDecodeError as exc:
            raise where.at_line(line).error(f"default is not a JSON value: {text!r} ({exc.msg})") from exc
        data["has_default"] = True
    for key, attr in ((PARAM_KEYS["PRF"], "required"), (PARAM_KEYS["POF"], "optional")):
        if key in fields:
            data[attr] = parse_flag(fields[key][0], where.at_line(fields[key][1]))
    return Param(**data)


def param_name_key(fields: dict[str, tuple[str, int]], line: int, where: Where) -> str:
    """Which key names the parameter: `parameter`, or `name` in text rendered before that key."""
    keys = [k for k in (PARAM_KEYS["IPN"], LEGACY_PARAM_NAME_KEY) if k in fields]
    if not keys:
        raise where.at_line(line).error(f'parameter item without "{PARAM_KEYS["IPN"]}"')
    if len(keys) > 1:
        raise where.at_line(line).error(
            f'parameter item with both "{keys[0]}" and "{keys[1]}": only one names the parameter'
        )
    return keys[0]


def parse_return_item(item: tuple[int, tuple[str, ...]], where: Where) -> Return:
    fields = item_fields(item, _RETURN_KEY_SET, where)
    data: dict[str, Any] = {k: v[0] for k, v in fields.items() if k != SCHEMA_KEY}
    if SCHEMA_KEY in fields:
        data["type_schema"] = undelta(data.get("type"), _schema_value(fields[SCHEMA_KEY], where, entry=True))
    return Return(**data)


def _schema_value(field: tuple[str, int], where: Where, *, entry: bool = False) -> dict[str, Any]:
    """The JSON object of a schema line; anything else is an error naming its line.

    An entry's schema (`entry`) cannot hold its description or default: those are fields.
    """
    text, line = field
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise where.at_line(line).error(f"schema is not JSON: {text[:60]!r} ({exc.msg})") from exc
    if not isinstance(value, dict):
        raise where.at_line(line).error(f"schema must be a JSON object, got {text[:60]!r}")
    own = sorted(FIELD_KEYWORDS & set(value)) if entry else []
    if own:
        raise where.at_line(line).error(f"schema must not hold {own}: they are fields of their own")
    return value


def tool_sections(sections: list[Section], where: Where) -> dict[str, Any]:
    """ToolDoc keyword arguments from parsed tool-level sections (TN, FD, TD, params, returns, ...)."""
    by_label = {s.label: s for s in sections}
    data: dict[str, Any] = {}
    for code, attr in (
        ("TN", "name"),
        ("FD", "description"),
        ("TD", "domain"),
        ("CI", "code"),
        ("RT", "response_template"),
        ("UG", "guidance"),
        ("IC", "constraints"),
    ):
        if LABELS[code] in by_label:
            data[attr] = by_label[LABELS[code]].text
    if LABELS["PARAMS"] in by_label:
        data["parameters"] = tuple(parse_param_item(i, where) for i in by_label[LABELS["PARAMS"]].items)
    if LABELS["RETURNS"] in by_label:
        data["returns"] = tuple(parse_return_item(i, where) for i in by_label[LABELS["RETURNS"]].items)
    if LABELS["UE"] in by_label:
        data["examples"] = tuple("\n".join(block) for _, block in by_label[LABELS["UE"]].items)
    if LABELS["ALIAS"] in by_label:
        data["_alias"] = by_label[LABELS["ALIAS"]].text
    if LABELS["SCHEMA"] in by_label:
        section = by_label[LABELS["SCHEMA"]]
        data["schema_extra"] = _schema_value((section.text or "", section.line), where)
    if LABELS["OUTPUT"] in by_label:
        section = by_label[LABELS["OUTPUT"]]
        data["output_schema"] = undelta(OBJECT, _schema_value((section.text or "", section.line), where))
    return data


def parse_text(text: str, *, tool: str | None = None, source: str = "<text>") -> ToolDoc:
    """Parse the output of `render_text`, or a plain-text description.

    Text that does not start with one of our headings is a description (FD),
    optionally followed, after a blank line, by labelled sections; it needs
    `tool` since it names no tool. Empty text is an error, never an empty doc.
    `tool` is the dispatch key (default: TN, else the alias).
    """
    where = Where(file=source)
    if not text.strip():
        raise where.error("empty documentation text: expected a description or labelled sections")
    lines = text.split("\n")
    first = next(i for i, ln in enumerate(lines) if ln.strip())
    if is_heading(lines[first]):
        data = tool_sections(parse_block(lines, TOOL_LABEL_SET, LIST_LABELS, where), where)
    else:
        data = _plain(lines, where)
    alias = data.pop("_alias", None)
    if alias is not None and "name" in data:
        raise where.error('both "Tool name" and "Tool id" are given')
    key = tool or data.get("name") or alias
    if not key:
        if "description" in data and not any(is_heading(ln) for ln in lines):
            raise where.error("plain-text documentation names no tool; give the tool's name with it")
        raise where.error('missing "Tool name" (or "Tool id")')
    return ToolDoc(tool=key, **data)


def _plain(lines: list[str], where: Where) -> dict[str, Any]:
    """FD from leading plain text, then any labelled sections after a blank line.

    When what follows is not strictly our sections, the whole text is FD, so a
    description that merely contains a line like "Returns: ..." stays intact.
    """
    whole = {"description": "\n".join(lines).strip("\n")}
    start = next((i for i in range(2, len(lines)) if lines[i - 1] == "" and is_heading(lines[i])), None)
    if start is None:
        return whole
    try:
        data = tool_sections(parse_block(lines[start:], TOOL_LABEL_SET, LIST_LABELS, where, start + 1), where)
    except DocParseError:
        return whole
    if "description" in data:
        return whole
    return {"description": "\n".join(lines[:start]).strip("\n"), **data}
