"""EasyTool (Yuan et al., NAACL 2025): concise tool instructions in one pass, without execution.

Stage 1, one call per tool: a concise description in EasyTool's fixed template
"{Tool} is a tool that can {purposes}. This tool has N built-in functions:
1. {Function_1} is to {Functionality_1} ...". Stage 2, one call per function: a
guideline example `{"Scenario": ..., "Parameters": {...}}` that uses the
function's parameters. Parameter lists are copied through unchanged. Cost:
1 + (number of functions) calls per tool.

Adaptation to our benchmarks (documented, deliberate):
- EasyTool's "tool" has several functions (APIs); ours are single functions.
  Functions sharing a dotted prefix form one tool (WorkBench `calendar.*`);
  any other function is a tool of its own (API-Bank APIs).
- Stage 1 asks for the purposes and the per-function functionalities as JSON
  and we render the fixed template from them, so a small model's reply is
  validated (pydantic, every function named exactly once) and retried, and the
  template text is exactly EasyTool's.
- The output is ToolDocs the agent reads as EasyTool's instruction: TN, the
  original FD kept (EasyTool adds to the documentation, it does not replace
  the description; a tool without one gets its template entry "create_event
  is to ..."), UG = the toolkit's concise template, shown to the agent, the
  parameter list as it was (IPN/IPD/IPT/DPV/PRF/POF), UE = the guideline
  example. Fields the instruction has no slot for (TD, returns, CI, existing
  examples, RT, IC) are dropped, as EasyTool's instructions drop them. The
  template text of every tool is also kept in the doc set's metadata.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from core.baselines.common import Cost, LLMSettings, fill, json_call, prompt
from core.docs import DocSet, ToolDoc
from core.llm import Purpose

ORIGIN = "easytool"


class FunctionLine(BaseModel):
    name: str
    functionality: str = Field(min_length=3)


class ToolDescription(BaseModel):
    general_purposes: str = Field(min_length=3)
    functions: list[FunctionLine]


class Guideline(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    Scenario: str = Field(min_length=3)
    Parameters: dict[str, Any]


@dataclass
class EasyToolConfig:
    """EasyTool's settings. Its code gives no temperature and calls LangChain's `ChatOpenAI`,
    whose default is 0.7 — which is also what makes independent runs (seeds) differ."""

    model: str
    temperature: float = 0.7
    seed: int = 0
    retries: int = 3
    keep_returns: bool = False  # EasyTool's template has no return slot


@dataclass
class ToolkitResult:
    toolkit: str
    description: str  # the fixed-template text
    docs: list[ToolDoc]
    cost: Cost
    per_function: dict[str, dict[str, Any]] = field(default_factory=dict)


def toolkits(docs: Sequence[ToolDoc]) -> dict[str, list[ToolDoc]]:
    """Functions grouped into EasyTool tools by dotted prefix (singletons otherwise)."""
    groups: dict[str, list[ToolDoc]] = {}
    for d in docs:
        key = d.tool.split(".", 1)[0] if "." in d.tool else d.tool
        groups.setdefault(key, []).append(d)
    return groups


def _short_name(doc: ToolDoc) -> str:
    name = doc.name or doc.tool
    return name.split(".", 1)[1] if "." in name else name


def render_template(toolkit: str, purposes: str, lines: Sequence[tuple[str, str]]) -> str:
    """EasyTool's fixed template, filled."""
    purposes = purposes.strip().rstrip(".")
    items = " ".join(
        f"{i}. {name} is to {func.strip().rstrip('.')}." for i, (name, func) in enumerate(lines, 1)
    )
    plural = "function" if len(lines) == 1 else "functions"
    return f"{toolkit} is a tool that can {purposes}. This tool has {len(lines)} built-in {plural}: {items}"


def _documentation(toolkit: str, docs: Sequence[ToolDoc]) -> str:
    return json.dumps(
        {
            "tool_name": toolkit,
            "functions": [
                {
                    "name": _short_name(d),
                    "description": d.description or "",
                    "parameters": [p.name for p in d.parameters],
                }
                for d in docs
            ],
        },
        ensure_ascii=False,
    )


def param_schema(doc: ToolDoc) -> dict[str, Any]:
    """The JSON schema of a call's arguments (types only), to constrain the reply to real parameters."""
    from core.docs.types import type_to_schema

    props = {}
    for p in doc.parameters:
        frag = type_to_schema(p.type) if p.type else {}
        props[p.name] = {k: v for k, v in (frag or {}).items() if k in ("type", "items", "enum")}
    return {"type": "object", "properties": props, "additionalProperties": False}


def guideline_schema(doc: ToolDoc) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"Scenario": {"type": "string"}, "Parameters": param_schema(doc)},
        "required": ["Scenario", "Parameters"],
    }


def easytool_toolkit(
    toolkit: str, docs: Sequence[ToolDoc], config: EasyToolConfig, run_id: str | None = None
) -> ToolkitResult:
    """Both stages for one tool (a group of functions)."""
    t0 = time.perf_counter()
    settings = LLMSettings(
        config.model, config.temperature, config.seed, retries=config.retries, run_id=run_id
    )
    cost = Cost()
    names = [_short_name(d) for d in docs]

    def check(obj: ToolDescription) -> None:
        got = [f.name for f in obj.functions]
        missing = [n for n in names if n not in got]
        if missing:
            raise ValueError(f"functions missing from the answer: {missing}; name each of {names} once")

    base, _ = prompt("easytool_description")
    msgs = [
        {"role": "user", "content": fill(base, documentation=_documentation(toolkit, docs), n=str(len(docs)))}
    ]
    desc = json_call(
        settings, msgs, ToolDescription, cost, purpose=Purpose("easytool.description", toolkit), check=check
    )
    if desc is None:
        cost.notes.append("stage 1 failed; functionalities fall back to the original first sentences")
        lines = [(n, (d.description or n).split(". ")[0]) for n, d in zip(names, docs, strict=True)]
        purposes = "; ".join(f for _, f in lines)
    else:
        by_name = {f.name: f.functionality for f in desc.functions}
        lines = [(n, by_name[n]) for n in names]
        purposes = desc.general_purposes
    template = render_template(toolkit, purposes, lines)

    out_docs: list[ToolDoc] = []
    per_function: dict[str, dict[str, Any]] = {}
    g_base, _ = prompt("easytool_guideline")
    for doc, (name, functionality) in zip(docs, lines, strict=True):
        allowed = {p.name for p in doc.parameters}

        def check_params(obj: Guideline, allowed: set[str] = allowed) -> None:
            unknown = sorted(set(obj.Parameters) - allowed)
            if unknown:
                raise ValueError(f"unknown parameters {unknown}; use only {sorted(allowed)}")

        params = [{"name": p.name, "type": p.type or ""} for p in doc.parameters]
        content = fill(
            g_base,
            tool_description=template,
            function=name,
            functionality=functionality,
            parameters=json.dumps(params, ensure_ascii=False),
            tool_name=toolkit,
        )
        guideline = json_call(
            settings,
            [{"role": "user", "content": content}],
            Guideline,
            cost,
            purpose=Purpose("easytool.guideline", name),
            check=check_params,
            response_schema=guideline_schema(doc),
        )
        fd = f"{name} is to {functionality.strip().rstrip('.')}."
        example = (
            json.dumps(
                {"Scenario": guideline.Scenario, "Parameters": guideline.Parameters}, ensure_ascii=False
            )
            if guideline is not None
            else None
        )
        # EasyTool keeps the tool's own description and gives the agent its concise instruction
        # beside it: the toolkit template with this function's entry, and the guideline example.
        new = ToolDoc(
            tool=doc.tool,
            name=doc.name,
            description=doc.description or fd,
            parameters=doc.parameters,
            returns=doc.returns if config.keep_returns else (),
            examples=(example,) if example else (),
            guidance=template if doc.description else None,
        )
        out_docs.append(new)
        per_function[doc.tool] = {"functionality": functionality, "guideline": example is not None}
    cost.seconds = time.perf_counter() - t0
    return ToolkitResult(toolkit, template, out_docs, cost, per_function)


@dataclass
class BaselineResult:
    """A baseline's output: the new doc set plus per-tool cost (for the efficiency table)."""

    method: str
    docset: DocSet
    costs: dict[str, dict[str, Any]]  # tool -> cost and notes
    meta: dict[str, Any]


def run_easytool(
    original: DocSet, tools: Sequence[str] | None, config: EasyToolConfig, run_id: str | None = None
) -> BaselineResult:
    """EasyTool over `tools` (default: all); other tools keep their original docs."""
    chosen = [original[t] for t in (tools or list(original))]
    docset = original
    costs: dict[str, dict[str, Any]] = {}
    templates: dict[str, str] = {}
    for toolkit, docs in toolkits(chosen).items():
        res = easytool_toolkit(toolkit, docs, config, run_id)
        templates[toolkit] = res.description
        share = 1.0 / len(docs)
        for d in res.docs:
            docset = docset.replace(d)
            c = res.cost.to_json()
            costs[d.tool] = {
                **{
                    k: (v * share if k in ("calls", "tokens_in", "tokens_out", "tokens", "seconds") else v)
                    for k, v in c.items()
                },
                "toolkit": toolkit,
                **res.per_function.get(d.tool, {}),
            }
    named = DocSet(docset.values(), name=f"easytool {config.model}")
    return BaselineResult(ORIGIN, named, costs, {"templates": templates, "config": config.__dict__})
