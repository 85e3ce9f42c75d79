"""Parse errors that say where: the file, the line when there is one, and the key path.

A user who feeds us a broken doc file must be able to fix it from the message
alone, so every parser threads a `Where` through its descent and builds its
errors from it, e.g. ``tools.json: tools[3].parameters[1]: missing "name"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core.docs.model import DocError


class DocParseError(DocError):
    """A documentation source that cannot be read; the message names file, line and key."""

    def __init__(
        self, message: str, *, file: str | None = None, line: int | None = None, key: str = ""
    ) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.key = key


@dataclass(frozen=True)
class Where:
    """A position in a source: file name, optional line, and a JSON-path-like key."""

    file: str = "<input>"
    line: int | None = None
    path: str = ""

    def key(self, name: str) -> Where:
        return replace(self, path=f"{self.path}.{name}" if self.path else name)

    def index(self, i: int) -> Where:
        return replace(self, path=f"{self.path}[{i}]")

    def at_line(self, line: int | None) -> Where:
        return replace(self, line=line)

    def prefix(self) -> str:
        head = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{head}: {self.path}" if self.path else head

    def error(self, message: str) -> DocParseError:
        return DocParseError(f"{self.prefix()}: {message}", file=self.file, line=self.line, key=self.path)

    # ------------------------------------------------------------ typed access
    def require(self, obj: dict[str, Any], name: str, kind: type | tuple[type, ...] = str) -> Any:
        """obj[name], which must exist and be of `kind`."""
        if name not in obj or obj[name] is None:
            raise self.error(f'missing "{name}"')
        return self.check(obj[name], kind, name)

    def optional(self, obj: dict[str, Any], name: str, kind: type | tuple[type, ...] = str) -> Any:
        """obj[name] or None; when present it must be of `kind`."""
        if obj.get(name) is None:
            return None
        return self.check(obj[name], kind, name)

    def check(self, value: Any, kind: type | tuple[type, ...], name: str | None = None) -> Any:
        if isinstance(value, bool) and kind in (int, float):
            ok = False
        else:
            ok = isinstance(value, kind)
        if not ok:
            where = self.key(name) if name else self
            raise where.error(f"expected {_kind_name(kind)}, got {_json_kind(value)}")
        return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {
        str: "a string",
        dict: "an object",
        list: "a list",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__
