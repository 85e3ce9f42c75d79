"""Tool documentation: the field model, parsers, renderers, diffs and doc sets."""

from core.docs.diff import FieldChange, diff
from core.docs.docset import DocSet
from core.docs.model import DocError, Param, Return, ToolDoc

__all__ = ["DocError", "DocSet", "FieldChange", "Param", "Return", "ToolDoc", "diff"]
