"""What both baselines share: prompt templates, JSON calls validated by pydantic, cost accounting.

Every model call goes through the gateway (`core.llm.complete`). Replies are
JSON: we ask for it with a `json_schema` response format (which constrains the
offline model's decoding and is passed through to hosted models), strip code
fences, parse with `json.loads` and validate with a pydantic model; an invalid
reply is retried with the validation error appended, a bounded number of times.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.llm import Purpose, complete

T = TypeVar("T", bound=BaseModel)
FOLLOW_UP = "========="


class BaselineError(RuntimeError):
    """A baseline could not get a valid reply after its retries."""


def prompt(name: str) -> tuple[str, str]:
    """A template file from core/baselines/prompts: (base part, follow-up part or '')."""
    text = (resources.files("core.baselines") / "prompts" / f"{name}.txt").read_text(encoding="utf-8")
    base, _, follow = text.partition("\n" + FOLLOW_UP + "\n")
    return base.strip(), follow.strip()


def fill(template: str, **values: Any) -> str:
    """Replace `{name}` placeholders literally (templates contain JSON braces, so no str.format)."""
    out = template
    for key, value in values.items():
        out = out.replace(
            "{" + key + "}", value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        )
    return out


def strip_fences(text: str) -> str:
    m = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    return (m.group(1) if m else text).strip()


@dataclass
class Cost:
    """Calls, tokens and wall time spent by one baseline on one tool (Table III's inputs)."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    invalid: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "tokens": self.tokens,
            "invalid": self.invalid,
            "seconds": round(self.seconds, 3),
            "notes": self.notes,
        }


@dataclass(frozen=True)
class LLMSettings:
    model: str
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 400
    retries: int = 3
    run_id: str | None = None


def json_call(
    settings: LLMSettings,
    messages: list[dict[str, str]],
    schema: type[T],
    cost: Cost,
    *,
    purpose: Purpose | str,
    check: Any = None,
    attempt_seed: int = 0,
    response_schema: dict[str, Any] | None = None,
) -> T | None:
    """One validated JSON reply, or None after `settings.retries` invalid ones.

    `response_schema` overrides the JSON schema sent as the response format (e.g.
    the exact parameters of one tool); `check(obj)` may raise ValueError for rules beyond the schema (e.g. parameter
    names that must exist); its message is fed back on retry like a schema error.
    """
    msgs = list(messages)
    js = response_schema or schema.model_json_schema()
    fmt = {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": js}}
    for attempt in range(max(1, settings.retries)):
        t0 = time.perf_counter()
        res = complete(
            settings.model,
            msgs,
            temperature=settings.temperature,
            seed=settings.seed + attempt_seed + attempt,
            max_tokens=settings.max_tokens,
            response_format=fmt,
            purpose=purpose,
            run_id=settings.run_id,
        )
        cost.calls += 1
        cost.tokens_in += res.tokens_in
        cost.tokens_out += res.tokens_out
        cost.seconds += time.perf_counter() - t0
        text = res.content or ""
        try:
            obj = schema.model_validate(json.loads(strip_fences(text)))
            if check is not None:
                check(obj)
            return obj
        except (json.JSONDecodeError, ValidationError, ValueError) as exc:
            cost.invalid += 1
            reason = str(exc).split("\n")[0][:300]
            cost.notes.append(f"{Purpose.of(purpose).step}: invalid reply ({reason})")
            msgs = [
                *messages,
                {"role": "assistant", "content": text[:1500]},
                {
                    "role": "user",
                    "content": f"That reply is not valid: {reason}. Reply again with JSON only.",
                },
            ]
    return None


def tool_info(doc, description: str | None = None, category: str | None = None) -> dict[str, Any]:
    """The tool record both baselines show the model (DRAFT's `str({category, name, ...})`)."""
    required, optional = [], []
    for p in doc.parameters:
        entry = {"name": p.name, "type": p.type or "", "description": p.description or ""}
        if p.has_default:
            entry["default"] = p.default
        (
            optional
            if (p.optional or (p.required is False) or (p.required is None and p.has_default))
            else required
        ).append(entry)
    info: dict[str, Any] = {}
    if category:
        info["category"] = category
    info["name"] = doc.name or doc.tool
    info["description"] = description if description is not None else (doc.description or "")
    info["required_parameters"] = required
    info["optional_parameters"] = optional
    return info
