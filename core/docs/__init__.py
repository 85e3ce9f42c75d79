"""Tool documentation: the field model, parsers, renderers, diffs and doc sets."""

from core.docs.diff import FieldChange, diff
from core.docs.docset import DocSet
from core.docs.model import DocError, Param, Return, ToolDoc
from core.docs.parsers import DocParseError, load_docs, parse_callable, parse_mcp, parse_openai, parse_text
from core.docs.render import openai_name, render_mcp, render_openai, render_text, tool_from_openai_name
from core.docs.tokens import token_length

__all__ = [
    "DocError",
    "DocParseError",
    "DocSet",
    "FieldChange",
    "Param",
    "Return",
    "ToolDoc",
    "diff",
    "load_docs",
    "openai_name",
    "parse_callable",
    "parse_mcp",
    "parse_openai",
    "parse_text",
    "render_mcp",
    "render_openai",
    "render_text",
    "token_length",
    "tool_from_openai_name",
]
