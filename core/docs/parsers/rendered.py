"""Read our labelled-section text (from `render_text`) back into a ToolDoc."""

from __future__ import annotations

import json
from typing import Any

from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers.errors import Where
from core.docs.parsers.sections import (
    LABELS,
    LIST_LABELS,
    NO,
    PARAM_KEYS,
    RETURN_KEYS,
    TOOL_LABEL_SET,
    UNSPECIFIED,
    YES,
    Section,
    parse_block,
)

_PARAM_KEY_SET = frozenset(PARAM_KEYS.values())
_RETURN_KEY_SET = frozenset(RETURN_KEYS.values())


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
    if "name" not in fields:
        raise where.at_line(item[0]).error('parameter item without "name"')
    data: dict[str, Any] = {"name": fields["name"][0]}
    if "description" in fields:
        data["description"] = fields["description"][0]
    if "type" in fields:
        data["type"] = fields["type"][0]
    if "default" in fields:
        text, line = fields["default"]
        try:
            data["default"] = json.loads(text)
        except json.JSONDecodeError as exc:
            raise where.at_line(line).error(f"default is not a JSON value: {text!r} ({exc.msg})") from exc
        data["has_default"] = True
    for key, attr in (("required", "required"), ("optional", "optional")):
        if key in fields:
            data[attr] = parse_flag(fields[key][0], where.at_line(fields[key][1]))
    return Param(**data)


def parse_return_item(item: tuple[int, tuple[str, ...]], where: Where) -> Return:
    fields = item_fields(item, _RETURN_KEY_SET, where)
    return Return(**{k: v[0] for k, v in fields.items()})


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
    return data


def parse_text(text: str, *, tool: str | None = None, source: str = "<text>") -> ToolDoc:
    """Parse the output of `render_text`. `tool` is the dispatch key (default: TN, else the alias)."""
    where = Where(file=source)
    sections = parse_block(text.split("\n"), TOOL_LABEL_SET, LIST_LABELS, where)
    data = tool_sections(sections, where)
    alias = data.pop("_alias", None)
    if alias is not None and "name" in data:
        raise where.error('both "Tool name" and "Tool id" are given')
    key = tool or data.get("name") or alias
    if not key:
        raise where.error('missing "Tool name" (or "Tool id")')
    return ToolDoc(tool=key, **data)
