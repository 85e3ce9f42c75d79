"""The offline constructor: turn mined patterns into SOPs from a code template, deterministically.

    sops, rejected = compose(patterns, atomic_docs, existing=toolset, max_new=3)

Each SOP calls the pattern's atomic tools in order. An argument bound to an
earlier output is extracted with `tools.pick(output, key)` (the same function
the miner used to find the link); before extracting, the code checks that the
earlier call did not fail and found something, and otherwise returns a message
naming the step that stopped and why — the light control flow the paper's
SOPs have. The final call's output is the SOP's result. Free arguments become
the SOP's parameters, documented from the atomic tools' own parameter docs.

The generated source goes through `core.sop.validate` like any other SOP code
(a template bug is caught as a rejection, not at run time).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.docs import DocSet, Param, Return, ToolDoc
from core.sop.mining import Pattern, PatternStep, steps_json
from core.sop.model import Sop, Toolset, sop_tool
from core.sop.validate import SopCodeError, validate

MAX_NAME = 56


@dataclass(frozen=True)
class Rejected:
    """A candidate that did not become an SOP, and why (recorded with the epoch)."""

    name: str
    reason: str
    code: str = ""


def short_name(tool: str) -> str:
    return re.sub(r"\W+", "_", tool.rsplit(".", 1)[-1]).strip("_") or "tool"


def base_name(pattern: Pattern) -> str:
    name = "_then_".join(short_name(t) for t in pattern.tools)
    return name[:MAX_NAME].rstrip("_")


def unique_name(name: str, pattern_key: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    return f"{name[: MAX_NAME - 5]}_{pattern_key[:4]}"


def param_exprs(pattern: Pattern) -> tuple[dict[tuple[int, str], str], list[str]]:
    """(step, arg) -> the expression giving its value, and the parameter names in order.

    A free argument is a parameter (named like the argument; `<arg>_<step>` on
    a clash); an output-bound one the variable its value was picked into; an
    argument equal to an earlier one reuses that one's expression.
    """
    exprs: dict[tuple[int, str], str] = {}
    params: list[str] = []
    for k, step in enumerate(pattern.steps):
        for arg, b in step.args:
            if b.kind == "param":
                name = arg if arg not in params else f"{arg}_{k + 1}"
                exprs[(k, arg)] = name
                params.append(name)
            elif b.kind == "output":
                exprs[(k, arg)] = f"value{b.step + 1}_{_var(b.key)}"
            else:
                exprs[(k, arg)] = exprs[(b.step, b.key or arg)]
    return exprs, params


def step_lines(
    steps: Sequence[PatternStep],
    exprs: dict[tuple[int, str], str],
    needed: dict[int, list[str | None]],
    indent: str = "    ",
    first: int = 0,
) -> list[str]:
    """The lines of steps `first..`: each call, then the checks and picks later steps need from it."""
    lines: list[str] = []
    for k in range(first, len(steps)):
        step, n = steps[k], k + 1
        args = "".join(f", {arg}={exprs[(k, arg)]}" for arg, _ in step.args)
        lines += [
            f"{indent}try:",
            f"{indent}    out{n} = tools.call({json.dumps(step.tool)}{args})",
            f"{indent}except ToolFailed as exc:",
            f"{indent}    return {json.dumps(f'Stopped at step {n} ({step.tool}): ')} + str(exc)",
        ]
        if k not in needed:
            continue
        lines += [
            f"{indent}if tools.failed(out{n}) or tools.empty(out{n}):",
            f"{indent}    return {json.dumps(f'Stopped after step {n} ({step.tool}): ')} + out{n}",
        ]
        for key in needed[k]:
            var = f"value{n}_{_var(key)}"
            what = repr(key) if key is not None else "value"
            pick = f"tools.pick(out{n})" if key is None else f"tools.pick(out{n}, {json.dumps(key)})"
            lines += [
                f"{indent}{var} = {pick}",
                f"{indent}if {var} is None:",
                f"{indent}    return {json.dumps(f'Stopped after step {n} ({step.tool}): no {what} in ')} + out{n}",
            ]
    return lines


def needed_outputs(steps: Sequence[PatternStep]) -> dict[int, list[str | None]]:
    """step -> the output keys later steps pick from it."""
    needed: dict[int, list[str | None]] = {}
    for step in steps:
        for _, b in step.args:
            if b.kind == "output" and b.key not in needed.setdefault(b.step, []):
                needed[b.step].append(b.key)
    return needed


def render_code(name: str, pattern: Pattern, doc_line: str, defaults: dict[str, Any] | None = None) -> str:
    """The SOP source for `pattern` (see the module docstring); `defaults`: parameters that may be left out."""
    exprs, params = param_exprs(pattern)
    defaults = defaults or {}
    ordered = [p for p in params if p not in defaults] + [
        f"{p}={json.dumps(defaults[p]) if defaults[p] is not None else 'None'}"
        for p in params
        if p in defaults
    ]
    lines = [f"def {name}({', '.join(ordered)}):", f'    """{doc_line}"""']
    lines += step_lines(pattern.steps, exprs, needed_outputs(pattern.steps))
    lines.append(f"    return out{len(pattern.steps)}")
    return "\n".join(lines) + "\n"


def _var(key: str | None) -> str:
    return re.sub(r"\W+", "_", key or "value").strip("_").lower() or "value"


def _first_sentence(text: str | None) -> str:
    t = (text or "").strip().split("\n")[0]
    return (t.split(". ")[0].rstrip(".") + ".") if t else ""


def describe(pattern: Pattern, atomic: DocSet) -> str:
    """FD: what the routine does, in the atomic tools' own words, and when to use it."""
    steps = []
    for k, step in enumerate(pattern.steps):
        links = [
            f"the {b.key or 'value'} from step {b.step + 1}'s result as `{arg}`"
            for arg, b in step.args
            if b.kind == "output"
        ]
        what = _first_sentence(atomic[step.tool].description if step.tool in atomic else "")
        steps.append(
            f"({k + 1}) `{step.tool}`"
            + (f" with {', '.join(links)}" if links else "")
            + (f": {what}" if what else "")
        )
    return (
        f"Does in one call what otherwise takes {len(pattern.steps)} tool calls: " + "; ".join(steps) + ". "
        "Use it when the request needs the last step and you would first have to look its input up. "
        "Stops with a message naming the step when a step fails or finds nothing."
    )


def optional_params(pattern: Pattern, atomic: DocSet) -> dict[str, Any]:
    """A doc-linked routine's lookup parameters that the lookup's doc gives a default: SOP name -> default.

    A routine linked through the docs (`core.sop.mining.doc_linked`) offers
    every parameter of its lookups (a search by name, by date range, ...),
    since no trajectory showed which ones a request uses; those the lookup
    itself may go without keep its documented default. Mined routines keep
    every parameter required, as the calls they were seen in had them.
    """
    if not any(src.startswith("doc:") for src in pattern.sources):
        return {}
    exprs, _ = param_exprs(pattern)
    out: dict[str, Any] = {}
    for k, step in enumerate(pattern.steps[:-1]):
        doc = atomic[step.tool] if step.tool in atomic else None
        for arg, b in step.args:
            p = doc.param(arg) if doc is not None else None
            if b.kind == "param" and p is not None and (p.has_default or p.optional):
                default = p.default if isinstance(p.default, str | int | float | bool) else None
                out[exprs[(k, arg)]] = default
    return out


def _params_doc(pattern: Pattern, atomic: DocSet) -> tuple[Param, ...]:
    optional = optional_params(pattern, atomic)
    exprs, params = param_exprs(pattern)
    out: dict[str, Param] = {}
    for k, step in enumerate(pattern.steps):
        doc = atomic[step.tool] if step.tool in atomic else None
        for arg, b in step.args:
            name = exprs[(k, arg)]
            if b.kind != "param" or name in out:
                continue
            src = doc.param(arg) if doc is not None else None
            desc = f"{src.description.rstrip()} (passed to {step.tool})" if src and src.description else None
            out[name] = Param(
                name=name,
                description=desc or f"`{arg}` of {step.tool}.",
                type=src.type if src else None,
                required=name not in optional,
            )
    return tuple(out[p] for p in params)


def _example(name: str, pattern: Pattern) -> str | None:
    if len(pattern.example) < len(pattern.steps):
        return None
    exprs, params = param_exprs(pattern)
    values: dict[str, object] = {}
    for k, step in enumerate(pattern.steps):
        for arg, b in step.args:
            if b.kind == "param":
                values[exprs[(k, arg)]] = pattern.example[k].get(arg)
    inner = ", ".join(f"{p}={json.dumps(values.get(p), ensure_ascii=False, default=str)}" for p in params)
    return f"{name}({inner})"


def build_sop(pattern: Pattern, atomic: DocSet, name: str) -> Sop:
    last = atomic[pattern.steps[-1].tool] if pattern.steps[-1].tool in atomic else None
    description = describe(pattern, atomic)
    example = _example(name, pattern)
    returns = (
        Return(
            name="result",
            description=f"The output of {pattern.steps[-1].tool}, or a message naming the step that stopped.",
            type=(last.returns[0].type if last is not None and last.returns else None),
        ),
    )
    doc = ToolDoc(
        tool=sop_tool(name),
        name=name,
        description=description,
        domain=(last.domain if last is not None else None),
        parameters=_params_doc(pattern, atomic),
        returns=returns,
        examples=(example,) if example else (),
    )
    code = render_code(
        name, pattern, f"{' -> '.join(pattern.tools)} (EvoSOP composer)", optional_params(pattern, atomic)
    )
    return Sop(
        name=name,
        doc=doc,
        code=code,
        uses=pattern.tools,
        origin="composer",
        sources=tuple(dict.fromkeys(pattern.sources)),
        pattern=pattern.key,
        meta={
            "support": len(pattern.support),
            "tasks": sorted(pattern.support),
            "steps": steps_json(pattern.steps),
            "example": pattern.example,
        },
    )


def compose(
    patterns: Sequence[Pattern],
    atomic: DocSet,
    *,
    existing: Toolset | None = None,
    max_new: int = 3,
    min_support: int = 1,
) -> tuple[list[Sop], list[Rejected]]:
    """New SOPs for the best patterns not already in `existing` (by pattern), validated; and the rejects."""
    existing = existing or Toolset()
    have = existing.patterns()
    taken = existing.names()
    out: list[Sop] = []
    rejected: list[Rejected] = []
    for pattern in patterns:
        if len(out) >= max_new:
            break
        if pattern.key in have or len(pattern.support) < min_support:
            continue
        name = unique_name(base_name(pattern), pattern.key, taken)
        sop = build_sop(pattern, atomic, name)
        try:
            validate(sop.code, known_tools=set(atomic))
        except SopCodeError as exc:
            rejected.append(Rejected(name, f"invalid code: {exc}", sop.code))
            continue
        out.append(sop)
        have.add(pattern.key)
        taken.add(name)
    return out, rejected
