"""Tool names as OpenAI accepts them, and opaque aliases for tools shown without a name.

OpenAI function names must match `^[a-zA-Z0-9_-]{1,64}$`, but benchmark tools
are dotted (`calendar.search_events`). The mapping replaces dots by `__`, which
reads well and inverts by `decode_openai_name`; names it cannot map that way
(other characters, an existing `__`, too long) get a sanitised stem plus a short
hash, and are resolved against the known tools by `tool_from_openai_name`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def openai_name(tool: str) -> str:
    """A valid OpenAI function name for a tool name, reversible for dotted identifiers."""
    if "__" not in tool:
        encoded = tool.replace(".", "__")
        if OPENAI_NAME.match(encoded):
            return encoded
    stem = re.sub(r"[^a-zA-Z0-9_-]+", "_", tool.replace(".", "__")).strip("_")[:55] or "tool"
    return f"{stem}_{_hash(tool)}"


def decode_openai_name(name: str) -> str:
    """The inverse of `openai_name` for names that did not need a hash."""
    return name.replace("__", ".")


def tool_from_openai_name(name: str, tools: Iterable[str]) -> str:
    """The tool among `tools` whose OpenAI name is `name` (exact names match too)."""
    candidates = list(tools)
    if name in candidates:
        return name
    matches = [t for t in candidates if openai_name(t) == name]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise KeyError(f"no tool is exposed to OpenAI as {name!r}")
    raise KeyError(f"OpenAI name {name!r} is ambiguous between {matches}")


def default_alias(tool: str) -> str:
    """A stable opaque identifier for a tool whose name (TN) is hidden from the agent."""
    return f"tool_{_hash(tool)}"
