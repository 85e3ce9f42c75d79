"""Field-by-field editing and readable diffs of ToolDocs (pure functions, no Streamlit).

The review page edits a doc as the analyst thinks of it: a text box per
tool-level field, a table of parameters and a table of returns. `apply_edits`
turns those back into a new, validated ToolDoc; the original object is never
touched (ToolDoc is immutable), and the caller stores the result as a new
version.
"""

from __future__ import annotations

import difflib
import html
import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from core.docs import Param, Return, ToolDoc
from core.docs.model import TOOL_ATTR
from core.docs.schemas import retyped
from core.fields import BY_CODE

TEXT_FIELDS = ("TN", "FD", "TD", "UG", "IC", "RT", "CI", "UE")
MULTILINE = {"FD", "UG", "IC", "RT", "CI", "UE"}
FLAG = {"": None, "yes": True, "no": False}
FLAG_TEXT = {None: "", True: "yes", False: "no"}
PARAM_COLUMNS = ["name", "description", "type", "required", "optional", "default"]
RETURN_COLUMNS = ["name", "description", "type"]


def text_fields(doc: ToolDoc) -> dict[str, str]:
    """Current text of each tool-level field (examples one per line)."""
    out = {}
    for code in TEXT_FIELDS:
        value = getattr(doc, TOOL_ATTR[code])
        out[code] = "\n".join(value) if isinstance(value, tuple) else (value or "")
    return out


def params_frame(doc: ToolDoc) -> pd.DataFrame:
    rows = [
        {
            "name": p.name,
            "description": p.description or "",
            "type": p.type or "",
            "required": FLAG_TEXT[p.required],
            "optional": FLAG_TEXT[p.optional],
            "default": json.dumps(p.default, ensure_ascii=False) if p.has_default else "",
        }
        for p in doc.parameters
    ]
    return pd.DataFrame(rows, columns=PARAM_COLUMNS)


def returns_frame(doc: ToolDoc) -> pd.DataFrame:
    rows = [
        {"name": r.name or "", "description": r.description or "", "type": r.type or ""} for r in doc.returns
    ]
    return pd.DataFrame(rows, columns=RETURN_COLUMNS)


def _text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return None
    text = str(value).strip()
    return text or None


def _default(value: Any) -> tuple[bool, Any]:
    text = _text(value)
    if text is None:
        return False, None
    try:
        return True, json.loads(text)
    except ValueError:
        return True, text


def apply_edits(
    doc: ToolDoc,
    texts: Mapping[str, str] | None = None,
    params: pd.DataFrame | None = None,
    returns: pd.DataFrame | None = None,
) -> ToolDoc:
    """A new ToolDoc with the edited fields; fields not edited are carried over unchanged."""
    update: dict[str, Any] = {}
    for code, value in (texts or {}).items():
        attr = TOOL_ATTR[code]
        if code == "UE":
            update[attr] = tuple(line.strip() for line in str(value or "").splitlines() if line.strip())
        else:
            update[attr] = _text(value)
    if params is not None:
        new_params = []
        for row in params.to_dict("records"):
            name = _text(row.get("name"))
            if name is None:
                continue
            has_default, default = _default(row.get("default"))
            kind = _text(row.get("type"))
            old = doc.param(name)
            new_params.append(
                Param(
                    name=name,
                    description=_text(row.get("description")),
                    type=kind,
                    # schema keywords the table does not show stay unless the type was edited
                    type_schema=retyped(old.type_schema, old.type, kind) if old else None,
                    required=FLAG.get(str(row.get("required") or ""), None),
                    optional=FLAG.get(str(row.get("optional") or ""), None),
                    has_default=has_default,
                    default=default,
                )
            )
        update["parameters"] = tuple(new_params)
    if returns is not None:
        new_returns = [_return(doc, i, r) for i, r in enumerate(returns.to_dict("records"))]
        update["returns"] = tuple(r for r in new_returns if not r.is_empty())
    return ToolDoc.model_validate({**doc.model_dump(), **update})


def _return(doc: ToolDoc, i: int, row: Mapping[str, Any]) -> Return:
    """A return entry from its table row; the schema of the entry it edits follows its type."""
    name, kind = _text(row.get("name")), _text(row.get("type"))
    old = doc.returns[i] if i < len(doc.returns) and doc.returns[i].name == name else None
    return Return(
        name=name,
        description=_text(row.get("description")),
        type=kind,
        type_schema=retyped(old.type_schema, old.type, kind) if old else None,
    )


def format_value(value: Any) -> str:
    """A field value as reviewers read it (no JSON braces)."""
    if value is None:
        return "—"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "; ".join(format_value(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def change_rows(changes: list[Any]) -> pd.DataFrame:
    """FieldChange list -> a table (field, change, before, after)."""
    rows = [
        {
            "code": c.code,
            "field": BY_CODE[c.code].name,
            "change": c.kind,
            "before": format_value(c.before),
            "after": format_value(c.after),
        }
        for c in changes
    ]
    return pd.DataFrame(rows, columns=["code", "field", "change", "before", "after"])


def inline_diff(before: str, after: str) -> str:
    """Word-level HTML diff: deletions struck through in red, insertions in green."""
    a, b = before.split(" "), after.split(" ")
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(html.escape(" ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(
                "<del style='background:#ffebe9;color:#82071e'>" + html.escape(" ".join(a[i1:i2])) + "</del>"
            )
        if op in ("insert", "replace"):
            out.append(
                "<ins style='background:#dafbe1;color:#116329;text-decoration:none'>"
                + html.escape(" ".join(b[j1:j2]))
                + "</ins>"
            )
    return " ".join(out).replace("\n", "<br>")
