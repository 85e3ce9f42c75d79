"""Benchmark and baseline doc formats -> ToolDoc: WorkBench, API-Bank, EasyTool/DRAFT, our own JSON.

Each reader keeps the source text verbatim and only decides which field each
piece of it is. Choices that are not obvious are stated where they are made.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from pydantic import ValidationError

from core.docs.model import Param, Return, ToolDoc
from core.docs.parsers.docstring import parse_docstring
from core.docs.parsers.errors import Where


# ------------------------------------------------------------------ WorkBench
def parse_workbench_tool(item: Any, where: Where) -> ToolDoc:
    """One entry of WorkBench `derived/tools.json`.

    tool = TN = the dotted name; TD = domain; FD, IPD, IPT, POF, returns and
    examples from the numpy docstring; DPV from the signature (`has_default`).
    The docstrings were LangChain prompt templates, so `{{ }}` is un-doubled.
    PRF is not set: WorkBench docs do not mark required parameters.
    """
    where.check(item, dict)
    name = where.require(item, "name", str)
    parsed = parse_docstring(where.optional(item, "docstring", str), undouble_braces=True)
    params = []
    raw_params = where.optional(item, "parameters", list) or []
    for i, p in enumerate(raw_params):
        w = where.key("parameters").index(i)
        w.check(p, dict)
        pname = w.require(p, "name", str)
        has_default = w.optional(p, "has_default", bool)
        if has_default is None:
            has_default = "default" in p
        pdoc = parsed.params.get(pname)
        params.append(
            Param(
                name=pname,
                description=pdoc.description if pdoc else None,
                type=pdoc.type if pdoc else None,
                has_default=has_default,
                default=p.get("default") if has_default else None,
                optional=True if pdoc and pdoc.optional else None,
            )
        )
    return ToolDoc(
        tool=name,
        name=name,
        description=parsed.description,
        domain=where.optional(item, "domain", str),
        parameters=tuple(params),
        returns=tuple(parsed.returns),
        examples=tuple(parsed.examples),
    )


# ------------------------------------------------------------------ API-Bank
def parse_api_bank_api(item: Any, where: Where) -> ToolDoc:
    """One API descriptor of API-Bank `derived/api_docs.json`.

    tool = TN = name; FD = description; TD = domain; inputs give IPN/IPT/IPD and
    outputs give RPN/RPT/RPD. The extra keys (database_name, source_file,
    used_in) are provenance, not documentation, and are dropped.
    """
    where.check(item, dict)
    name = where.require(item, "name", str)
    params = [
        Param(name=k, type=v.get("type"), description=v.get("description"))
        for k, v in _named_specs(item, "input_parameters", where)
    ]
    returns = [
        Return(name=k, type=v.get("type"), description=v.get("description"))
        for k, v in _named_specs(item, "output_parameters", where)
    ]
    return ToolDoc(
        tool=name,
        name=name,
        description=where.optional(item, "description", str),
        domain=where.optional(item, "domain", str),
        parameters=tuple(params),
        returns=tuple(returns),
    )


def _named_specs(item: dict[str, Any], key: str, where: Where) -> list[tuple[str, dict[str, Any]]]:
    specs = where.optional(item, key, dict) or {}
    out = []
    for pname, spec in specs.items():
        w = where.key(key).key(pname)
        w.check(spec, dict)
        w.optional(spec, "type", str)
        w.optional(spec, "description", str)
        out.append((pname, spec))
    return out


def disambiguate_api_bank(docs: list[ToolDoc], items: list[Any]) -> list[ToolDoc]:
    """API-Bank ships four APIs twice (level-1/2 and level-3 versions with different docs).

    The dispatch key must be unique, so a repeated name's level-3 version is
    keyed `Name@level-3`; its Tool Name stays `Name`.
    """
    counts = Counter(d.tool for d in docs)
    out = []
    for doc, item in zip(docs, items, strict=True):
        level = item.get("used_in") if isinstance(item, dict) else None
        if counts[doc.tool] > 1 and isinstance(level, str) and level.startswith("level-3"):
            doc = doc.model_copy(update={"tool": f"{doc.tool}@{level}"})
        out.append(doc)
    return out


# ------------------------------------------------------------------ EasyTool / DRAFT
def parse_tool_guidelines(entry: Any, where: Where) -> list[ToolDoc]:
    """One EasyTool/DRAFT tool entry -> one ToolDoc per API.

    tool = "<tool_name>.<api name>", TN = the API name, FD = the API's own
    (original) description, TD = DRAFT's category. The tool-level
    `tool_description` is EasyTool's generated overview of what each of the
    tool's APIs is for; it guides which API to pick rather than describing this
    API, so it becomes Usage Guidance (UG) and does not overwrite FD.
    `Example`/`example` ({Scenario|User Query, Parameters}) becomes a Usage Example.
    Required-list parameters get PRF true, optional-list ones POF true.
    """
    where.check(entry, dict)
    tool_name = where.require(entry, "tool_name", str)
    guidance = where.optional(entry, "tool_description", str)
    category = where.optional(entry, "category", str)
    guidelines = where.require(entry, "tool_guidelines", dict)
    docs = []
    for key, api in guidelines.items():
        w = where.key("tool_guidelines").key(key)
        w.check(api, dict)
        api_name = w.optional(api, "name", str) or key
        params = [
            _guideline_param(p, w.key(list_key).index(i), required)
            for list_key, required in (("required_parameters", True), ("optional_parameters", False))
            for i, p in enumerate(w.optional(api, list_key, list) or [])
        ]
        example = api.get("Example", api.get("example"))
        docs.append(
            ToolDoc(
                tool=f"{tool_name}.{api_name}",
                name=api_name,
                description=w.optional(api, "description", str) or None,
                domain=category,
                parameters=tuple(params),
                examples=(_example_text(example),) if example else (),
                guidance=guidance or None,
            )
        )
    return docs


def _guideline_param(p: Any, where: Where, required: bool) -> Param:
    if isinstance(p, str):
        return Param(name=p, required=True if required else None, optional=None if required else True)
    where.check(p, dict)
    default = p.get("default")
    has_default = default not in (None, "")  # ToolBench writes "" for "no default"
    return Param(
        name=where.require(p, "name", str),
        type=where.optional(p, "type", str),
        description=where.optional(p, "description", str) or None,
        has_default=has_default,
        default=default if has_default else None,
        required=True if required else None,
        optional=None if required else True,
    )


def _example_text(example: Any) -> str:
    if isinstance(example, dict):
        return "\n".join(
            f"{k}: {v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
            for k, v in example.items()
        )
    return example if isinstance(example, str) else json.dumps(example, ensure_ascii=False)


# ------------------------------------------------------------------ our own JSON
def parse_native(item: Any, where: Where) -> ToolDoc:
    """A ToolDoc as written by `ToolDoc.to_json`."""
    where.check(item, dict)
    try:
        return ToolDoc.model_validate(item)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = where
        for part in err["loc"][:-1]:
            loc = loc.index(part) if isinstance(part, int) else loc.key(str(part))
        last = err["loc"][-1] if err["loc"] else None
        if err["type"] == "missing":
            raise loc.error(f'missing "{last}"') from exc
        if last is not None:
            loc = loc.index(last) if isinstance(last, int) else loc.key(str(last))
        raise loc.error(err["msg"]) from exc
