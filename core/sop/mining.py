"""Mine recurring, data-linked call sequences from trajectories and gold calls (deterministic, no LLM).

    patterns = mine(experiences, max_len=3)
    patterns[0].steps, patterns[0].support, patterns[0].key

A segment is two or three calls in order where every later call takes at
least one argument from an earlier call: a value found in the earlier call's
output (and extractable again by `sopapi.pick(output, key)`, so the SOP can
reproduce the link at run time) or the same value as an earlier argument.
Arguments that come from nowhere are the routine's free parameters.

Which segments can be trusted: every segment of a successful trajectory; in
a failed trajectory, a segment that ends in a call equal to one of the task's
gold calls and whose earlier steps are gold or hand their output on (a wrong
write on the way is not part of the routine). Gold calls (training split only, served by the caller's audited
accessor) also join a trajectory as steps after it, so a weak agent that
looked the right thing up but never made the right write still teaches the
routine "look up, then write what the gold write needs" — the observation is
the agent's own, the write is the ground truth's.

Segments with the same tools and the same bindings are one pattern; its
support is the number of distinct tasks it was seen in.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.benchmarks.base import Call
from core.benchmarks.credit import call_match
from core.docs import DocSet
from core.docs.lookups import lookup_source
from core.evaluation import Trace
from core.sop import sopapi
from core.sop.model import is_sop_tool
from core.warehouse.records import content_hash

MIN_VALUE_CHARS = 3
MAX_GAP = 3  # steps of a trajectory farther apart than this are not one routine


@dataclass(frozen=True)
class Experience:
    """One training task's evidence: the agent's trace and (when the caller may read it) its gold calls."""

    task_id: str
    trace: Trace | None
    gold: tuple[Call, ...] = ()
    query: str = ""  # the task's request (a trace carries its own)


@dataclass(frozen=True)
class Binding:
    """Where one argument of a step comes from: a parameter, an earlier output (key), an earlier argument."""

    kind: str  # param | output | arg
    step: int = -1
    key: str | None = None

    def to_json(self) -> list[Any]:
        return [self.kind, self.step, self.key]


@dataclass(frozen=True)
class PatternStep:
    tool: str
    args: tuple[tuple[str, Binding], ...]  # in the order the call gave them


@dataclass
class Pattern:
    """A routine: its steps with bindings, where it was seen, and one concrete occurrence."""

    steps: tuple[PatternStep, ...]
    support: set[str] = field(default_factory=set)
    sources: list[str] = field(default_factory=list)  # episode ids or gold:<task>
    example: list[dict[str, Any]] = field(default_factory=list)  # the first occurrence's arguments per step

    @property
    def key(self) -> str:
        return pattern_key(self.steps)

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(s.tool for s in self.steps)

    def links(self) -> int:
        return sum(1 for s in self.steps for _, b in s.args if b.kind != "param")


def steps_json(steps: Sequence[PatternStep]) -> list[Any]:
    """Pattern steps as JSON (kept in an SOP's meta, so the merger can rebuild them)."""
    return [[s.tool, [[a, *b.to_json()] for a, b in s.args]] for s in steps]


def steps_from_json(data: Sequence[Any]) -> tuple[PatternStep, ...]:
    return tuple(
        PatternStep(str(tool), tuple((str(a), Binding(str(k), int(i), key)) for a, k, i, key in args))
        for tool, args in data
    )


def pattern_key(steps: Sequence[PatternStep]) -> str:
    body = [[s.tool, sorted([a, b.to_json()] for a, b in s.args)] for s in steps]
    return content_hash("sop-pattern", json.dumps(body, sort_keys=True, default=str))


@dataclass(frozen=True)
class _Step:
    tool: str
    args: dict[str, Any]
    output: Any  # parsed output; None for a gold step (no observation)
    raw: str | None
    gold: bool  # a ground-truth call (or a trajectory call equal to one)
    index: int  # position in the trajectory (gold steps after it)


def _usable(value: Any) -> bool:
    text = sopapi.norm(value)
    return len(text) >= MIN_VALUE_CHARS and text not in ("none", "null", "true", "false")


def _steps(exp: Experience) -> list[_Step]:
    out: list[_Step] = []
    trace_steps = list(exp.trace.steps) if exp.trace is not None else []
    for i, s in enumerate(trace_steps):
        if not s.tool or is_sop_tool(s.tool) or s.error or s.output is None:
            continue
        call = Call(s.tool, dict(s.args or {}))
        matches_gold = any(call_match(g, call) == 1.0 for g in exp.gold)
        out.append(_Step(s.tool, dict(s.args or {}), sopapi.parse(s.output), s.output, matches_gold, i))
    n = len(trace_steps)
    for j, g in enumerate(exp.gold):
        if not any(st.gold and call_match(g, Call(st.tool, st.args)) == 1.0 for st in out):
            out.append(_Step(g.tool, dict(g.args), None, None, True, n + j))
    return out


def _bindings(earlier: Sequence[tuple[int, _Step]], step: _Step) -> tuple[tuple[str, Binding], ...]:
    """Each argument's binding: the nearest earlier output that yields it by `pick`, else an equal argument."""
    out = []
    for name, value in step.args.items():
        binding = Binding("param")
        if _usable(value):
            want = sopapi.norm(value)
            for pos, prev in reversed(earlier):
                key = _output_key(prev, name, want)
                if key is not False:
                    binding = Binding("output", pos, key)  # type: ignore[arg-type]
                    break
                same = [a for a, v in prev.args.items() if sopapi.norm(v) == want]
                if same:
                    binding = Binding("arg", pos, name if name in same else same[0])
                    break
        out.append((name, binding))
    return tuple(out)


def _output_key(prev: _Step, arg: str, want: str) -> str | None | bool:
    """The key whose first value in `prev`'s output is `want` (the arg's own name first); False if none."""
    if prev.output is None:
        return False
    keys = [k for k, v in sopapi.leaves(prev.output) if sopapi.norm(v) == want]
    if not keys:
        return False
    ordered = sorted(set(keys), key=lambda k: (k != arg, str(k)))
    for key in ordered:
        if sopapi.norm(sopapi.pick(prev.raw, key)) == want:
            return key
    return False


def _segments(steps: list[_Step], max_len: int) -> list[list[int]]:
    """Index chains (in order, 2..max_len) where every later step is linked to an earlier one of the chain."""
    chains: list[list[int]] = []

    def linked(chain: list[int], j: int) -> bool:
        b = _bindings([(p, steps[i]) for p, i in enumerate(chain)], steps[j])
        return any(x.kind != "param" for _, x in b)

    def grow(chain: list[int]) -> None:
        if len(chain) >= 2:
            chains.append(list(chain))
        if len(chain) >= max_len:
            return
        last = steps[chain[-1]]
        for j in range(chain[-1] + 1, len(steps)):
            nxt = steps[j]
            near = nxt.gold and nxt.index >= last.index or nxt.index - last.index <= MAX_GAP
            if near and linked(chain, j):
                grow([*chain, j])

    for i in range(len(steps)):
        grow([i])
    return chains


def _feeds(psteps: Sequence[PatternStep], segment: Sequence[_Step]) -> bool:
    """In a failed trajectory, every step before the last is gold or hands an output to a later step."""
    fed = {b.step for s in psteps for _, b in s.args if b.kind == "output"}
    return all(segment[k].gold or k in fed for k in range(len(segment) - 1))


def mine(experiences: Sequence[Experience], max_len: int = 3) -> list[Pattern]:
    """Patterns of the trusted segments, most supported first (then longer, then more links; then key)."""
    found: dict[str, Pattern] = {}
    for exp in experiences:
        steps = _steps(exp)
        success = bool(exp.trace is not None and exp.trace.success)
        seen_here: set[str] = set()
        for chain in _segments(steps, max_len):
            segment = [steps[i] for i in chain]
            if not (success and not any(s.raw is None for s in segment)) and not segment[-1].gold:
                continue
            psteps = tuple(
                PatternStep(s.tool, _bindings(list(enumerate(segment[:k])), s)) for k, s in enumerate(segment)
            )
            if not success and not _feeds(psteps, segment):
                continue
            key = pattern_key(psteps)
            pat = found.setdefault(key, Pattern(psteps))
            if key in seen_here:
                continue
            seen_here.add(key)
            pat.support.add(exp.task_id)
            source = exp.trace.episode_id if exp.trace is not None and segment[0].raw is not None else ""
            pat.sources.append(source or f"gold:{exp.task_id}")
            if not pat.example:
                pat.example = [dict(s.args) for s in segment]
    return sorted(found.values(), key=lambda p: (-len(p.support), -len(p.steps), -p.links(), p.key))


def doc_linked(
    experiences: Sequence[Experience], atomic: DocSet, read_only: Collection[str]
) -> list[Pattern]:
    """Lookup → write routines the training tasks need, linked through the lookups' own docs.

    A weak agent rarely looks anything up (WorkBench's 0.5B target calls a
    search before the write in almost no calendar or email task), so its
    trajectories hold no lookup → write segment to mine, while every gold
    write of those tasks takes an id or an address no request states. The
    docs of the read-only tools say which of them returns such a value
    (`core.docs.lookups.lookup_source`: an `event_id` key in
    `calendar.search_events`' example output, an address from
    `company_directory.find_email_address`). Each such gold write gives the
    routine "look each value up with its tool, then write with what it
    returned": the lookups' parameters are the routine's (those a lookup may
    go without keep its default: `core.sop.composer.optional_params`), the
    linked arguments are bound to the lookups' outputs, the others stay
    parameters. Support is the tasks whose gold write needs it; its sources
    are `doc:<lookup>`, so the reviewer and the page can tell it was not
    seen in a trajectory.
    """
    found: dict[str, Pattern] = {}
    for exp in experiences:
        request = sopapi.norm(exp.trace.query if exp.trace is not None else exp.query)
        for g in exp.gold:
            if g.tool in read_only or g.tool not in atomic:
                continue
            lookups: dict[str, int] = {}
            steps: list[PatternStep] = []
            bindings: list[tuple[str, Binding]] = []
            for name, value in g.args.items():
                source = None
                if _usable(value) and sopapi.norm(value) not in request:
                    source = lookup_source(name, [value], atomic, read_only, g.tool)
                if source is None or not atomic[source].parameters:
                    bindings.append((name, Binding("param")))
                    continue
                if source not in lookups:
                    lookups[source] = len(steps)
                    free = tuple((p.name, Binding("param")) for p in atomic[source].parameters)
                    steps.append(PatternStep(source, free))
                key = None if "@" in str(value) else name  # an address is the lookup's whole answer
                bindings.append((name, Binding("output", lookups[source], key)))
            if not steps or len(steps) + 1 > 3:
                continue
            psteps = (*steps, PatternStep(g.tool, tuple(bindings)))
            pat = found.setdefault(pattern_key(psteps), Pattern(psteps))
            if exp.task_id in pat.support:
                continue
            pat.support.add(exp.task_id)
            pat.sources.append("doc:" + ",".join(lookups))  # no example: no call of it was ever seen
    return sorted(found.values(), key=lambda p: (-len(p.support), -len(p.steps), -p.links(), p.key))


def merged(*groups: Sequence[Pattern]) -> list[Pattern]:
    """Patterns of several sources as one list: the same routine's support and sources pooled."""
    out: dict[str, Pattern] = {}
    for group in groups:
        for p in group:
            have = out.get(p.key)
            if have is None:
                out[p.key] = Pattern(p.steps, set(p.support), list(p.sources), list(p.example))
                continue
            have.support |= p.support
            have.sources += p.sources
    return sorted(out.values(), key=lambda p: (-len(p.support), -len(p.steps), -p.links(), p.key))
