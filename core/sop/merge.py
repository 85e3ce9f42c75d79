"""The offline Merger: SOPs that share their lookup but end in different actions get a composite.

    composites = merge_offline(toolset, atomic_docs)

Overlap, concretely: composer SOPs whose steps before the last are the same
calls with the same bindings (the same lookup, the same value picked from it)
and whose last steps call different tools — "search the event, then delete
it" and "search the event, then update it". The composite does the shared
lookup once and takes an `action` naming the final tool; its parameters are
the shared ones plus each branch's own (optional, for that action only).

Non-destructive, as the paper argues: the parts stay in the toolset; the
reviewer later keeps whichever the agent used well (a composite that did
better makes its parts redundant, and vice versa). A group that already has
its composite gets no second one. The LLM merger (`core.sop.llm`) writes the
composite's code with a model instead and handles SOPs without a pattern.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence

from core.docs import DocSet, Param, Return, ToolDoc
from core.sop.composer import (
    MAX_NAME,
    Rejected,
    needed_outputs,
    param_exprs,
    short_name,
    step_lines,
    unique_name,
)
from core.sop.mining import Pattern, PatternStep, steps_from_json
from core.sop.model import Sop, Toolset, sop_tool
from core.sop.validate import SopCodeError, validate
from core.warehouse.records import content_hash


def groups(toolset: Toolset) -> list[list[Sop]]:
    """Sets of composer SOPs with the same prefix (calls and bindings) and different last tools."""
    by_prefix: dict[str, list[Sop]] = defaultdict(list)
    for sop in toolset:
        steps = sop.meta.get("steps") if sop.origin == "composer" else None
        if not steps or len(steps) < 2:
            continue
        by_prefix[json.dumps(steps[:-1], sort_keys=True, default=str)].append(sop)
    out = []
    for members in by_prefix.values():
        last: dict[str, Sop] = {}
        for s in sorted(members, key=lambda s: (-int(s.meta.get("support") or 0), s.name)):
            last.setdefault(s.uses[-1], s)  # one member per final tool: the best supported
        if len(last) >= 2:
            out.append(sorted(last.values(), key=lambda s: s.uses[-1]))
    return sorted(out, key=lambda g: [s.name for s in g])


def merge_key(members: Sequence[Sop]) -> str:
    return content_hash("sop-merge", sorted(s.pattern or s.sop_id for s in members))


def composite(members: Sequence[Sop], atomic: DocSet, name: str) -> Sop:
    """The generalised SOP of one group (see the module docstring)."""
    patterns = [Pattern(steps_from_json(s.meta["steps"])) for s in members]
    prefix: tuple[PatternStep, ...] = patterns[0].steps[:-1]
    k_last = len(prefix)
    shared_exprs, shared = param_exprs(Pattern(prefix))
    needed: dict[int, list[str | None]] = {}
    branch_params: dict[str, tuple[str, str]] = {}  # param -> (tool, arg)
    branches: list[tuple[str, list[str]]] = []
    for p in patterns:
        exprs, params = param_exprs(p)
        for step_k, keys in needed_outputs(p.steps).items():
            for key in keys:
                if key not in needed.setdefault(step_k, []):
                    needed[step_k].append(key)
        for arg, b in p.steps[-1].args:
            if b.kind == "param" and exprs[(k_last, arg)] not in shared:
                branch_params.setdefault(exprs[(k_last, arg)], (p.steps[-1].tool, arg))
        lines = step_lines(p.steps, exprs, {}, indent="        ", first=k_last)
        branches.append((p.steps[-1].tool, [*lines, f"        return out{k_last + 1}"]))
    actions = [short_name(t) for t, _ in branches]
    header = ", ".join(["action", *shared, *(f"{p}=None" for p in branch_params)])
    lines = [
        f"def {name}({header}):",
        f'    """{" -> ".join(s.tool for s in prefix)} -> one of {", ".join(actions)} (EvoSOP merger)"""',
        f"    if action not in {tuple(actions)!r}:",
        f"        return 'Unknown action ' + str(action) + '; use one of: {', '.join(actions)}'",
        *step_lines(prefix, shared_exprs, needed),
    ]
    for action, (_, body) in zip(actions, branches, strict=True):
        lines += [f"    if action == {action!r}:", *body]
    lines.append("    return 'Unknown action ' + str(action)")
    code = "\n".join(lines) + "\n"
    params = [
        Param(
            name="action",
            description="Which final step to run: "
            + "; ".join(f"'{a}' calls {t}" for a, (t, _) in zip(actions, branches, strict=True)),
            type="str",
            required=True,
        ),
        *(p for m in members for p in m.doc.parameters if p.name in shared),
        *(
            Param(
                name=p,
                description=f"`{arg}` of {tool} (only for action '{short_name(tool)}').",
                required=False,
            )
            for p, (tool, arg) in branch_params.items()
        ),
    ]
    unique = list({p.name: p for p in params}.values())
    doc = ToolDoc(
        tool=sop_tool(name),
        name=name,
        description=(
            f"Looks the input up once ({', '.join(f'`{s.tool}`' for s in prefix)}) and then runs the final step "
            f"you choose with `action`: {', '.join(f'`{t}`' for t, _ in branches)}. Generalises "
            f"{', '.join(m.name for m in members)}. Stops with a message naming the step when a step fails or "
            "finds nothing."
        ),
        domain=members[0].doc.domain,
        parameters=tuple(unique),
        returns=(
            Return(name="result", description="The output of the chosen final step, or why it stopped."),
        ),
    )
    uses = tuple(dict.fromkeys([*(s.tool for s in prefix), *(t for t, _ in branches)]))
    return Sop(
        name=name,
        doc=doc,
        code=code,
        uses=uses,
        origin="merge",
        parents=tuple(m.sop_id for m in members),
        sources=tuple(dict.fromkeys(x for m in members for x in m.sources)),
        pattern=merge_key(members),
        meta={"members": [m.name for m in members], "actions": actions},
    )


def merge_offline(toolset: Toolset, atomic: DocSet) -> tuple[list[Sop], list[Rejected]]:
    """Composites for the overlapping groups of `toolset` that have none yet; validated."""
    have = toolset.patterns()
    taken = toolset.names()
    out: list[Sop] = []
    rejected: list[Rejected] = []
    for members in groups(toolset):
        key = merge_key(members)
        if key in have:
            continue
        base = f"{short_name(members[0].uses[0])}_then_" + "_or_".join(
            short_name(m.uses[-1]) for m in members
        )
        name = unique_name(base[:MAX_NAME].rstrip("_"), key, taken)
        sop = composite(members, atomic, name)
        try:
            validate(sop.code, known_tools=set(atomic))
        except SopCodeError as exc:
            rejected.append(Rejected(name, f"invalid composite: {exc}", sop.code))
            continue
        out.append(sop)
        have.add(key)
        taken.add(name)
    return out, rejected
