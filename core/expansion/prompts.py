"""Prompts of the expansion and of the LLM judge (the Tool-REX prompts are not published).

The expansion prompt states the grounding rule, asks for the five profile
fields with the two optional-when-supported rules, and shows one worked
example on an invented tool. The example matters for small models (without
it the offline 135M model copies the instructions into the fields); the
grounding check of the judge catches any of its words that leak into a profile
of another tool. The stronger model used for regeneration gets the same
prompt, as in the paper.
"""

from __future__ import annotations

import json
from typing import Any

PROMPT_VERSION = "toolrex-p3"

SYSTEM = (
    "You write a JSON profile of a software tool from its documentation, to help a search engine "
    "find the tool. Use only facts stated in the documentation; never invent features, values or "
    "constraints.\n"
    "- function_description (required): one sentence saying what the tool does.\n"
    "- tags (required): 3 to 5 short lower-case keywords for the tool's topic and action.\n"
    "- when_to_use: situations where the tool is the right one; only if the documentation supports it.\n"
    "- limitations: conditions, formats or restrictions the documentation states; omit if none are stated.\n"
    "- example_usage: one example call with argument names from the documentation; omit if unclear.\n"
    "Reply with the JSON object only."
)

EXAMPLE_DOC = (
    "Tool name: GetWeather\n"
    "Description: Returns the weather forecast for a city on a given date.\n"
    "Parameters:\n"
    "- parameter: city\n  description: The city name.\n  type: str\n"
    "- parameter: date\n  description: Date in YYYY-MM-DD format.\n  type: str"
)
EXAMPLE_PROFILE = {
    "function_description": "Returns the weather forecast for a city on a date.",
    "tags": ["weather", "forecast", "city"],
    "when_to_use": "When the user asks about the weather in a city on a date.",
    "limitations": "The date must be in YYYY-MM-DD format.",
    "example_usage": 'GetWeather(city="Paris", date="2023-05-01")',
}


def expansion_messages(doc_text: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Documentation:\n" + EXAMPLE_DOC},
        {"role": "assistant", "content": json.dumps(EXAMPLE_PROFILE)},
        {"role": "user", "content": "Documentation:\n" + doc_text},
    ]


JUDGE_SYSTEM = (
    "You check one field of a generated tool profile against the tool's documentation. "
    "The field is supported only if every statement in it is stated in, or directly follows from, "
    "the documentation. Anything invented (features, values, formats, limits, scenarios) makes it "
    "unsupported."
)


def judge_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "supported": {"type": "boolean"},
            "evidence": {"type": "string", "maxLength": 160},
            "reason": {"type": "string", "maxLength": 120},
        },
        "required": ["supported", "evidence", "reason"],
    }


def _judge_user(doc_text: str, field: str, content: str) -> str:
    return (
        f"Documentation:\n{doc_text}\n\nProfile field: {field}\nContent: {content}\n\n"
        'Reply with JSON {"supported": true or false, "evidence": "<the words of the documentation '
        'that support the field, copied exactly>", "reason": "..."}.'
    )


# Two worked verdicts (one supported with a copied quote, one unsupported) teach small judges the format.
JUDGE_EXAMPLES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "limitations",
        "The date must be in YYYY-MM-DD format.",
        {
            "supported": True,
            "evidence": "Date in YYYY-MM-DD format.",
            "reason": "stated for the date parameter",
        },
    ),
    (
        "when_to_use",
        "When the user wants to book a flight to a city.",
        {"supported": False, "evidence": "", "reason": "the documentation says nothing about flights"},
    ),
)


def judge_messages(doc_text: str, field: str, content: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": JUDGE_SYSTEM}]
    for ex_field, ex_content, verdict in JUDGE_EXAMPLES:
        messages.append({"role": "user", "content": _judge_user(EXAMPLE_DOC, ex_field, ex_content)})
        messages.append({"role": "assistant", "content": json.dumps(verdict)})
    messages.append({"role": "user", "content": _judge_user(doc_text, field, content)})
    return messages
