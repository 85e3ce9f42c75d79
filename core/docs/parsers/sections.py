"""The labelled-section text format: how a ToolDoc reads as prompt text, and back.

One format serves the text renderer, the description text of OpenAI/MCP
schemas (for fields with no native slot) and the parsers of both, so a doc
survives render -> parse unchanged. The grammar is indentation-based and needs
no escaping: headings sit at column 0 (`Label: value`), every continuation line
of a value is indented by two spaces, and list sections hold items that start
with `- `. Content can therefore never be mistaken for a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.docs.parsers.errors import Where

# Tool-level headings in render order (taxonomy order). "Tool id" stands in for
# an absent Tool Name: it is the alias the agent calls, not documentation.
# "Parameter schema" carries `ToolDoc.schema_extra` in text (schemas hold it natively);
# "Return schema" carries `ToolDoc.output_schema` wherever the returns are text.
LABELS: dict[str, str] = {
    "TN": "Tool name",
    "ALIAS": "Tool id",
    "FD": "Description",
    "TD": "Domain",
    "PARAMS": "Parameters",
    "SCHEMA": "Parameter schema",
    "RETURNS": "Returns",
    "OUTPUT": "Return schema",
    "CI": "Code",
    "UE": "Examples",
    "RT": "Response template",
    "UG": "Usage guidance",
    "IC": "Constraints",
}
LIST_LABELS = frozenset({LABELS["PARAMS"], LABELS["RETURNS"], LABELS["UE"]})
TOOL_LABEL_SET = frozenset(LABELS.values())
# A parameter's name is keyed `parameter`, not `name`: a tool whose parameter is itself called
# `name` rendered as `- name: name`, and with only a flag beside it (`- name: account` /
# `optional: no` in a schema's description) models read the key as the argument to pass.
PARAM_KEYS: dict[str, str] = {
    "IPN": "parameter",
    "IPD": "description",
    "IPT": "type",
    "DPV": "default",
    "PRF": "required",
    "POF": "optional",
}
RETURN_KEYS: dict[str, str] = {"RPN": "name", "RPD": "description", "RPT": "type"}
# the parameter-name key of texts rendered before `parameter`: still read, never written
LEGACY_PARAM_NAME_KEY = "name"
# Key of an entry's exact JSON-Schema keywords (`type_schema`), shown as one line of JSON after its type.
SCHEMA_KEY = "schema"
YES, NO, UNSPECIFIED = "yes", "no", "unspecified"

_HEAD = re.compile(r"^([A-Za-z][A-Za-z ]*?):(?: (.*))?$")


@dataclass(frozen=True)
class Section:
    """One parsed heading: its label, its text (or its items) and its 1-based line."""

    label: str
    text: str | None
    items: tuple[tuple[int, tuple[str, ...]], ...]
    line: int


def shows(value: object) -> bool:
    """Whether a text value is rendered at all (whitespace-only counts as absent)."""
    return isinstance(value, str) and value.strip() != ""


def value_lines(label: str, value: str) -> list[str]:
    """`Label: first line` then continuation lines indented by two spaces."""
    parts = value.split("\n")
    first = f"{label}: {parts[0]}" if parts[0] else f"{label}:"
    return [first] + [f"  {p}" if p else "" for p in parts[1:]]


def item_lines(block: list[str]) -> list[str]:
    """One list item: `- ` before the first line, two spaces before the others."""
    head = f"- {block[0]}" if block[0] else "-"
    return [head] + [f"  {ln}" if ln else "" for ln in block[1:]]


def list_section(label: str, items: Iterable[list[str]]) -> list[str]:
    blocks = [item_lines(b) for b in items if b]
    if not blocks:
        return []
    return [f"{label}:"] + [ln for b in blocks for ln in b]


def is_heading(line: str, labels: frozenset[str] = TOOL_LABEL_SET) -> bool:
    m = _HEAD.match(line)
    return bool(m and m.group(1) in labels)


def parse_block(
    lines: list[str], labels: frozenset[str], list_labels: frozenset[str], where: Where, first_line: int = 1
) -> list[Section]:
    """Parse headings and their values; raises DocParseError naming the line."""
    out: list[Section] = []
    seen: set[str] = set()
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line == "":
            i += 1
            continue
        lineno = first_line + i
        m = _HEAD.match(line)
        if not m or m.group(1) not in labels:
            expected = ", ".join(sorted(labels))
            raise where.at_line(lineno).error(f"expected a heading ({expected}), got {line[:60]!r}")
        label = m.group(1)
        if label in seen:
            raise where.at_line(lineno).error(f'heading "{label}" appears twice')
        seen.add(label)
        j = i + 1
        if label in list_labels:
            if m.group(2):
                raise where.at_line(lineno).error(f'"{label}:" takes its items on the following lines')
            items: list[tuple[int, list[str]]] = []
            while j < n and (lines[j] == "" or lines[j].startswith(("  ", "- ")) or lines[j] == "-"):
                cur = lines[j]
                if cur.startswith("- ") or cur == "-":
                    items.append((first_line + j, [cur[2:]]))
                elif items:
                    items[-1][1].append(cur[2:])
                elif cur:
                    raise where.at_line(first_line + j).error(f'items of "{label}" must start with "- "')
                j += 1
            if not items:
                raise where.at_line(lineno).error(f'"{label}" has no items')
            frozen = tuple((ln, tuple(_trim(block))) for ln, block in items)
            out.append(Section(label, None, frozen, lineno))
        else:
            value = [m.group(2) or ""]
            while j < n and (lines[j] == "" or lines[j].startswith("  ")):
                value.append(lines[j][2:])
                j += 1
            out.append(Section(label, "\n".join(_trim(value)), (), lineno))
        i = j
    return out


def _trim(block: list[str]) -> list[str]:
    """Drop trailing blank lines (separators), never the first line."""
    end = len(block)
    while end > 1 and block[end - 1] == "":
        end -= 1
    return block[:end]
