"""What the LLM engine sends back to the optimizer model: contents that are wrong against the tool's calls.

Why a module of its own: these are the repair loop's rules (each one a fault a
local optimizer model made in a measured run), kept apart from the prompts and
the plumbing of `core.chisel.engines.llm` so each can be read and tested alone.
Every rule returns messages written for the model: what is wrong and what to
write instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from core.benchmarks.base import Call
from core.chisel.engines.values import VALUE_FORMATS, recurring_values
from core.docs import ToolDoc

_DATE_TIME_FORMATS = {label: pattern for pattern, label in VALUE_FORMATS if label[0] in "YH"}  # longest first


def content_problems(
    found: dict[tuple[str, str], Any], gold: Sequence[tuple[str, Call]], original: ToolDoc
) -> list[str]:
    """What a reply's contents get wrong against the tool's own calls, for the repair loop.

    Three faults the local optimizer model made in measured runs: it copied one
    optimization task's argument (an example `Calculator(formula='5*10')`,
    which a small agent then copies into other tasks), and it stated a date
    format the tool does not take (YYYY-MM-DD for a `date` the gold calls
    write as 05-12), and it wrote usage examples that are not calls of the
    tool (`example_problems`). Values that recur across tasks (an
    enumeration) and values the original doc already shows are not one task's
    data.
    """
    values: dict[str, list[Any]] = {}
    for _tid, call in gold:
        for name, value in call.args.items():
            values.setdefault(name, []).append(value)
    shown = json.dumps(original.to_json(), ensure_ascii=False)
    single = set()
    for vs in values.values():
        constant = set(recurring_values(vs))
        single |= {v for v in vs if isinstance(v, str) and len(v.strip()) >= 3 and v not in constant}
    single = {v for v in single if v not in shown}
    problems: list[str] = []
    for (op, field), content in found.items():
        text = json.dumps(content, ensure_ascii=False) if not isinstance(content, str) else content
        copied = sorted(v for v in single if v in text)
        if copied:
            problems.append(
                f"{op} {field} copies one task's value ({', '.join(repr(v) for v in copied[:3])}): show its "
                "format or a made-up value instead, so the agent does not copy it into other tasks"
            )
        if field == "UE":
            problems += [f"{op} UE: {p}" for p in example_problems(content, original, set(values))]
        if field == "IPD" and isinstance(content, dict):
            for param, desc in content.items():
                seen = [v for v in values.get(str(param), []) if isinstance(v, str) and v]
                stated = next((lab for lab in _DATE_TIME_FORMATS if lab in str(desc)), None)
                pattern = _DATE_TIME_FORMATS.get(stated or "")
                wrong = [v for v in seen if pattern and not re.fullmatch(pattern, v.strip())]
                if wrong:
                    problems.append(
                        f"{op} IPD states the format {stated} for '{param}', but the tool's calls write it "
                        f"like {wrong[0]!r}: state the format those values have"
                    )
    return problems


_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")
_KEYWORD = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*=(?!=)")


def example_problems(content: Any, doc: ToolDoc, called: Collection[str] = ()) -> list[str]:
    """The usage examples in `content` that do not show a call of `doc`'s tool with its own parameters.

    Why: Qwen 1.5B wrote CancelRegistration's example as "The date, formatted
    YYYY-MM-DD." (a sentence, for a tool that takes no date), and the field was
    applied as written. An example is a call of this tool - under its dispatch
    key, its name or an alias ending in the same name (`crm.delete_customer`
    for `customer_relationship_manager.delete_customer`) - optionally after a
    request and followed by the output; keyword arguments must be parameters
    the tool has (positional ones are allowed, as the tool's own examples use
    them). `called` adds the argument names the tool's gold calls use: a
    parameter the doc lacks is one the example may well show.
    """
    items = (
        [content] if isinstance(content, str) else list(content) if isinstance(content, list | tuple) else []
    )
    names = {n for n in (doc.tool, doc.name) if n}
    ends = sorted({n.rsplit(".", 1)[-1] for n in names}, key=len, reverse=True)
    call = re.compile(r"(?<![\w])(?:[A-Za-z_]\w*\.)*(?:" + "|".join(re.escape(e) for e in ends) + r")\s*\(")
    params = {p.name for p in doc.parameters} | set(called)
    shown = doc.name or doc.tool
    problems = []
    for k, item in enumerate(items, start=1):
        text = str(item)
        found = call.search(text)
        if not found:
            problems.append(
                f"example {k} ({text[:80]!r}) is not a call of {shown}: write each example as "
                f"{shown}(parameter=value, ...) with the tool's own parameters"
            )
            continue
        rest = _QUOTED.sub('""', text[found.end() :])
        unknown = sorted({m for m in _KEYWORD.findall(rest.split(")", 1)[0]) if m not in params})
        if unknown and params:
            problems.append(
                f"example {k} passes {', '.join(unknown)}, which {shown} does not take: its parameters are "
                f"{', '.join(sorted(params))}"
            )
        elif unknown:
            problems.append(f"example {k} passes {', '.join(unknown)}, but {shown} takes no parameters")
    return problems
