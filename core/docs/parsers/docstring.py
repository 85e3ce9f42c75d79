"""Docstrings (numpy, Google, reST) split into the documentation fields they carry.

Python tools document themselves in docstrings; the parameter descriptions and
types, the Returns section and the Examples section are separate fields for us
(IPD/IPT/POF, RPN/RPD/RPT, UE), and whatever else is prose becomes FD. Text is
kept verbatim apart from the common indentation, so nothing a tool author wrote
is reworded on the way in.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

from core.docs.model import Return

_PARAM_SECTIONS = {
    "parameters",
    "params",
    "args",
    "arguments",
    "keyword args",
    "keyword arguments",
    "other parameters",
}
_RETURN_SECTIONS = {"returns", "return", "yields", "yield"}
_EXAMPLE_SECTIONS = {"examples", "example"}
_GOOGLE_HEADER = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|Returns|Return|Yields|"
    r"Yield|Raises|Examples|Example|Notes?|Warnings?|See Also|Attributes|Todo|References):\s*$"
)
_REST_FIELD = re.compile(
    r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?|except)\b([^:]*):(.*)$"
)
_TYPE_LIKE = re.compile(r"^[A-Za-z_][\w.\[\](), |]*$")


@dataclass
class ParamDoc:
    """What a docstring says about one parameter."""

    type: str | None = None
    description: str | None = None
    optional: bool = False


@dataclass
class ParsedDocstring:
    """A docstring split into fields; `description` is all prose outside the structured sections."""

    description: str | None = None
    params: dict[str, ParamDoc] = field(default_factory=dict)
    returns: list[Return] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    style: str = "plain"


def parse_docstring(doc: str | None, *, undouble_braces: bool = False) -> ParsedDocstring:
    """Parse a docstring in numpy, Google or reST style (detected per docstring)."""
    if not doc or not doc.strip():
        return ParsedDocstring()
    text = inspect.cleandoc(doc)
    if undouble_braces:
        text = text.replace("{{", "{").replace("}}", "}")
    lines = text.split("\n")
    if any(re.fullmatch(r"\s*-{3,}\s*", ln) for ln in lines[1:]):
        return _parse_numpy(lines)
    if any(_GOOGLE_HEADER.match(ln.strip()) for ln in lines):
        return _parse_google(lines)
    if any(_REST_FIELD.match(ln.strip()) for ln in lines):
        return _parse_rest(lines)
    out = ParsedDocstring()
    prose, examples = _split_doctests(lines)
    out.description, out.examples = _join(prose), examples
    return out


# ------------------------------------------------------------------ shared helpers
def _join(lines: list[str]) -> str | None:
    text = "\n".join(lines).strip("\n")
    text = "\n".join(ln.rstrip() for ln in text.split("\n")).strip()
    return re.sub(r"\n{3,}", "\n\n", text) or None


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return [ln[cut:] if ln.strip() else "" for ln in lines]


def _split_type(text: str) -> tuple[str | None, bool]:
    """'str, optional' -> ('str', True); 'int, default 3' -> ('int', False)."""
    parts = [p.strip() for p in _split_top(text)]
    optional = any(p.lower() == "optional" for p in parts)
    kept = [p for p in parts if p and p.lower() != "optional" and not re.match(r"(?i)default\b", p)]
    return (", ".join(kept) or None), optional


def _split_top(text: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth <= 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _entries(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Group a section into (head line, more-indented body lines) entries."""
    lines = _dedent(lines)
    out: list[tuple[str, list[str]]] = []
    for ln in lines:
        if ln and not ln[0].isspace():
            out.append((ln.strip(), []))
        elif out:
            out[-1][1].append(ln)
    return [(head, _dedent(body)) for head, body in out]


def _examples(lines: list[str]) -> list[str]:
    """Doctest blocks become one example each; a section without `>>>` is one example."""
    lines = _dedent(lines)
    if not any(ln.lstrip().startswith(">>>") for ln in lines):
        text = _join(lines)
        return [text] if text else []
    items: list[list[str]] = []
    for ln in lines:
        if ln.lstrip().startswith(">>>"):
            items.append([ln])
        elif items:
            items[-1].append(ln)
    return [t for t in (_join(i) for i in items) if t]


def _split_doctests(lines: list[str]) -> tuple[list[str], list[str]]:
    """Separate `>>>` blocks (with their output up to a blank line) from prose."""
    prose: list[str] = []
    blocks: list[list[str]] = []
    in_block = False
    for ln in lines:
        if ln.lstrip().startswith(">>>"):
            if not in_block:
                blocks.append([])
            in_block = True
            blocks[-1].append(ln)
        elif in_block and ln.strip():
            blocks[-1].append(ln)
        else:
            in_block = False
            prose.append(ln)
    examples: list[str] = []
    for b in blocks:
        examples.extend(_examples(b))
    return prose, examples


def _section_kind(title: str) -> str:
    t = title.strip().rstrip(":").lower()
    if t in _PARAM_SECTIONS:
        return "params"
    if t in _RETURN_SECTIONS:
        return "returns"
    if t in _EXAMPLE_SECTIONS:
        return "examples"
    return "other"


# ------------------------------------------------------------------ numpy
def _parse_numpy(lines: list[str]) -> ParsedDocstring:
    out = ParsedDocstring(style="numpy")
    sections: list[tuple[str, list[str]]] = [("", [])]
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].strip() and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]):
            sections.append((lines[i].strip(), []))
            i += 2
            continue
        sections[-1][1].append(lines[i])
        i += 1
    prose: list[str] = []
    for title, body in sections:
        kind = _section_kind(title) if title else "intro"
        if kind == "intro":
            prose.extend(body)
        elif kind == "params":
            for head, desc in _entries(body):
                name, _, typ = head.partition(":")
                ptype, optional = _split_type(typ) if typ.strip() else (None, False)
                for n in _split_top(name):
                    out.params[n.strip()] = ParamDoc(ptype, _join(desc), optional)
        elif kind == "returns":
            for head, desc in _entries(body):
                name, sep, typ = head.partition(":")
                if sep:
                    out.returns.append(
                        Return(name=name.strip() or None, type=typ.strip() or None, description=_join(desc))
                    )
                else:
                    out.returns.append(Return(type=head.strip() or None, description=_join(desc)))
        elif kind == "examples":
            out.examples.extend(_examples(body))
        else:
            prose.extend(["", title, "-" * len(title), *body])
    out.description = _join(prose)
    return out


# ------------------------------------------------------------------ Google
def _parse_google(lines: list[str]) -> ParsedDocstring:
    out = ParsedDocstring(style="google")
    sections: list[tuple[str, list[str]]] = [("", [])]
    for ln in lines:
        if _GOOGLE_HEADER.match(ln.strip()) and not ln[:1].isspace():
            sections.append((ln.strip(), []))
        else:
            sections[-1][1].append(ln)
    prose: list[str] = []
    for title, body in sections:
        kind = _section_kind(title) if title else "intro"
        if kind == "intro":
            prose.extend(body)
        elif kind == "params":
            for head, rest in _entries(body):
                m = re.match(r"^(\*{0,2}[\w.]+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$", head)
                if not m:
                    prose.extend(["", head, *rest])
                    continue
                ptype, optional = _split_type(m.group(2)) if m.group(2) else (None, False)
                out.params[m.group(1).lstrip("*")] = ParamDoc(ptype, _join([m.group(3), *rest]), optional)
        elif kind == "returns":
            entries = _entries(body)
            if entries:
                head, rest = entries[0][0], [ln for e in entries[1:] for ln in (e[0], *e[1])]
                typ, sep, desc = head.partition(":")
                if sep and _TYPE_LIKE.match(typ.strip()) and len(typ.split()) <= 3:
                    out.returns.append(
                        Return(type=typ.strip(), description=_join([desc.strip(), *entries[0][1], *rest]))
                    )
                else:
                    out.returns.append(Return(description=_join([head, *entries[0][1], *rest])))
        elif kind == "examples":
            out.examples.extend(_examples(body))
        else:
            prose.extend(["", title, *body])
    out.description = _join(prose)
    return out


# ------------------------------------------------------------------ reST
def _parse_rest(lines: list[str]) -> ParsedDocstring:
    out = ParsedDocstring(style="rest")
    fields: list[tuple[str, str, list[str]]] = []
    prose: list[str] = []
    for ln in lines:
        m = _REST_FIELD.match(ln.strip()) if not ln[:1].isspace() else None
        if m:
            fields.append((m.group(1), m.group(2).strip(), [m.group(3).strip()]))
        elif fields and (ln[:1].isspace() or not ln.strip()) and not ln.lstrip().startswith(">>>"):
            fields[-1][2].append(ln.strip())
        else:
            if fields and not ln.strip():
                continue
            prose.append(ln)
    types: dict[str, str] = {}
    rtype: str | None = None
    rdesc: str | None = None
    for kind, arg, body in fields:
        text = _join(body)
        if kind in ("param", "parameter", "arg", "argument", "key", "keyword"):
            words = arg.split()
            name = words[-1] if words else ""
            ptype = " ".join(words[:-1]) or None
            optional = False
            if ptype:
                ptype, optional = _split_type(ptype)
            out.params[name] = ParamDoc(ptype, text, optional)
        elif kind == "type":
            types[arg] = text or ""
        elif kind in ("returns", "return"):
            rdesc = text
        elif kind == "rtype":
            rtype = text
        else:
            prose.extend(["", f":{kind} {arg}: {text or ''}".replace(" :", ":")])
    for name, typ in types.items():
        ptype, optional = _split_type(typ)
        doc = out.params.setdefault(name, ParamDoc())
        doc.type, doc.optional = ptype, doc.optional or optional
    if rtype or rdesc:
        out.returns.append(Return(type=rtype, description=rdesc))
    prose, out.examples = _split_doctests(prose)
    out.description = _join(prose)
    return out
