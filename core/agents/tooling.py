"""How documented tools are shown to a model and how the model's names map back.

The agent sees each tool under the name its documentation exposes (TN, or an
opaque alias when TN is removed — that is what "no tool name" means to an
agent), so dispatch goes through a binding table rather than assuming the
shown name is the sandbox's key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.docs import DocSet, ToolDoc
from core.docs.render import render_openai, render_text
from core.warehouse.records import content_hash


@dataclass(frozen=True)
class Binding:
    """One offered tool: what the model sees and which sandbox tool it runs."""

    tool: str
    exposed: str  # the function name in the schema
    text_name: str  # the name shown in text-mode prompts
    schema: dict[str, Any]
    text: str


def bind(docs: list[ToolDoc]) -> list[Binding]:
    """Bindings for the offered docs, with aliases `tool_<i>` for nameless tools."""
    out = []
    for i, doc in enumerate(docs):
        alias = f"tool_{i + 1}"
        schema = render_openai(doc, alias=alias)
        out.append(
            Binding(
                doc.tool, schema["function"]["name"], doc.name or alias, schema, render_text(doc, alias=alias)
            )
        )
    return out


def rendering_id(docset: DocSet, doc_mode: str) -> str:
    """A hash of what an agent in `doc_mode` is shown of every tool in `docset`.

    Part of an episode's identity: the doc set's id covers the docs' content, this covers
    how they are rendered, so a renderer change re-runs exactly the episodes whose tools
    now read differently and keeps the others.
    """
    key = (docset.docset_id, doc_mode)  # the doc set's id is a content hash: a safe cache key
    found = _RENDERINGS.get(key)
    if found is None:
        if doc_mode == "text":
            shown: list[Any] = [render_text(d, alias="tool") for d in docset.values()]
        else:
            shown = [render_openai(d, alias="tool") for d in docset.values()]
        found = _RENDERINGS[key] = content_hash("rendering", shown)
        if len(_RENDERINGS) > 512:
            _RENDERINGS.pop(next(iter(_RENDERINGS)))
    return found


_RENDERINGS: dict[tuple[str, str], str] = {}


def resolve(name: str, bindings: list[Binding]) -> str | None:
    """The sandbox tool for a name the model used (exposed or text name), else None."""
    key = (name or "").strip().strip("`'\"")
    for b in bindings:
        if key in (b.exposed, b.text_name, b.tool):
            return b.tool
    lowered = key.lower()
    for b in bindings:
        if lowered in (b.exposed.lower(), b.text_name.lower()):
            return b.tool
    return None


def tools_as_text(bindings: list[Binding]) -> str:
    """The tool section of a text-mode prompt."""
    return "\n\n".join(b.text for b in bindings)


def short_catalogue(bindings: list[Binding], docs: list[ToolDoc]) -> str:
    """One line per tool (name: first sentence of its description) for planners."""
    lines = []
    for b, d in zip(bindings, docs, strict=True):
        desc = (d.description or "").strip().split("\n")[0][:160]
        lines.append(f"- {b.text_name}: {desc}" if desc else f"- {b.text_name}")
    return "\n".join(lines)


def format_args(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
