"""The Tool-REX tool profile and how it is carried into our 17-field doc model.

A profile has five fields: `function_description` and `tags` (always asked
for) and `when_to_use`, `limitations`, `example_usage` (only when the original
doc supports them). The expanded doc is the original plus the profile
(d_original ∪ d_profile): nothing of the original is removed or rewritten.

Mapping onto our fields (each profile field lands in exactly one field, so the
field-level ablation of Tool-REX is also a field-level ablation in our model):

| profile field        | our field | how                                                         |
|----------------------|-----------|-------------------------------------------------------------|
| function_description | FD        | appended as a second paragraph of FD (Add when FD is absent) |
| tags                 | TD        | appended to TD as "; tag, tag" (Add "tag, tag" when absent)  |
| when_to_use          | UG        | Add, or appended as a new paragraph when UG exists           |
| limitations          | IC        | Add, or appended as a new paragraph when IC exists           |
| example_usage        | UE        | one more example after the original ones                     |

Why FD is appended, not refined: Tool-REX keeps the original description and
adds the summary; a refinement would replace the author's text, which is
another experiment (DocsChisel's Refine). Why tags go to TD: Task Domain is
"application scenario or category", which is what Tool-REX's tags are
(concept/category keywords for retrieval); keeping them in TD leaves the
parameter and return fields untouched.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from core.docs import ToolDoc

PROFILE_FIELDS: tuple[str, ...] = (
    "function_description",
    "tags",
    "when_to_use",
    "limitations",
    "example_usage",
)
REQUIRED_FIELDS: tuple[str, ...] = ("function_description", "tags")
FIELD_MAP: dict[str, str] = {
    "function_description": "FD",
    "tags": "TD",
    "when_to_use": "UG",
    "limitations": "IC",
    "example_usage": "UE",
}
PROSE_MAX = 200
TAG_MAX = 30


def response_schema() -> dict[str, Any]:
    """JSON schema of a profile, used as `response_format` (it also bounds local-model output)."""
    prose = {"type": "string", "maxLength": PROSE_MAX}
    return {
        "type": "object",
        "properties": {
            "function_description": prose,
            "tags": {
                "type": "array",
                "items": {"type": "string", "maxLength": TAG_MAX},
                "minItems": 3,
                "maxItems": 5,
            },
            "when_to_use": prose,
            "limitations": prose,
            "example_usage": prose,
        },
        "required": list(REQUIRED_FIELDS),
    }


class ToolProfile(BaseModel):
    """An accepted profile: absent fields are None / empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    function_description: str | None = None
    tags: tuple[str, ...] = ()
    when_to_use: str | None = None
    limitations: str | None = None
    example_usage: str | None = None

    def fields(self) -> tuple[str, ...]:
        """Names of the fields present, in profile order."""
        return tuple(f for f in PROFILE_FIELDS if getattr(self, f))

    def only(self, names: Iterable[str]) -> ToolProfile:
        keep = set(names)
        return ToolProfile(**{f: getattr(self, f) for f in PROFILE_FIELDS if f in keep})

    def without(self, names: Iterable[str]) -> ToolProfile:
        drop = set(names)
        return self.only(f for f in PROFILE_FIELDS if f not in drop)

    def text(self, name: str) -> str:
        """A field as one text (tags joined by commas)."""
        value = getattr(self, name)
        if isinstance(value, tuple):
            return ", ".join(value)
        return value or ""


def _append(doc: ToolDoc, code: str, text: str, sep: str) -> ToolDoc:
    if not doc.has(code):
        return doc.add(code, text)
    return doc.refine(code, f"{doc.get(code)}{sep}{text}")


def apply_profile(doc: ToolDoc, profile: ToolProfile) -> ToolDoc:
    """original ∪ profile, field by field (see the module docstring for the mapping)."""
    out = doc
    if profile.function_description:
        out = _append(out, "FD", profile.function_description, "\n")
    if profile.tags:
        out = _append(out, "TD", ", ".join(profile.tags), "; ")
    if profile.when_to_use:
        out = _append(out, "UG", profile.when_to_use, "\n")
    if profile.limitations:
        out = _append(out, "IC", profile.limitations, "\n")
    if profile.example_usage:
        if out.has("UE"):
            out = out.refine("UE", list(dict.fromkeys([*out.examples, profile.example_usage])))
        else:
            out = out.add("UE", [profile.example_usage])
    return out
