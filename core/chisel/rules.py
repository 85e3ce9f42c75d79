"""The rule table: failure class -> implicated fields and the operations that may fix them.

This is the evidence engine's documented knowledge, kept as data so that a
reviewer can read (and change) it in one place. Each rule lists candidate
operations in order of preference; `prior` is how much the planner trusts a
rule before the domain's planning memory has any statistics of its own.

| failure class | doc-related | implicated fields | candidate operations (preferred first) |
|---|---|---|---|
| no_action | yes | FD, UG, UE | Refine FD, Add UG, Add UE |
| parse_error | yes | UE, IPT | Add UE, Refine IPT |
| unknown_tool | yes | TN, FD, UE | Add UE, Refine FD |
| wrong_tool | yes | FD, UG, UE, TD, CI | Add UG, Refine FD, Add UE, Add TD, Remove CI |
| misused | yes | UG, FD | Add UG, Refine FD |
| missing_call | yes | FD, UG, UE, IC | Add UG, Refine FD, Add UE |
| extra_call | yes | UG, IC | Add IC, Add UG |
| unknown_argument | yes | IPN, IPD, UE, IC | Refine IPN, Add IC, Add UE, Refine IPD |
| missing_argument | yes | PRF, POF, IPD, UE | Add PRF, Add UE, Refine IPD |
| wrong_format | yes | IPT, IPD, UE | Refine IPD, Add UE, Refine IPT |
| wrong_value | yes | IPD, UE, CI | Add UE, Refine IPD, Remove CI |
| tool_error | yes | IC, IPT, IPD | Add IC, Refine IPT |
| wrong_order | yes | UG, IC | Add UG |
| step_limit | yes | RPN, RPD, RT, UG | Add RT, Add RPD, Add UG |
| output_misuse | yes | RPN, RPD, RPT, RT | Add RT, Add RPT, Refine RPD |
| other_tool | no | — | — |
| infrastructure | no | — | — |

Operations name the field only; whether an `Add` becomes a `Refine` (the field
is already there) or is dropped (nothing to remove) is decided against the
original documentation when plans are merged.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    failure_class: str
    doc_related: bool
    fields: tuple[str, ...]
    operations: tuple[tuple[str, str], ...]  # (op, field), preferred first
    prior: float = 1.0
    why: str = ""


RULES: dict[str, Rule] = {
    r.failure_class: r
    for r in (
        Rule(
            "no_action",
            True,
            ("FD", "UG", "UE"),
            (("Refine", "FD"), ("Add", "UG"), ("Add", "UE")),
            why="the agent did not see that the tool serves the request",
        ),
        Rule(
            "parse_error",
            True,
            ("UE", "IPT"),
            (("Add", "UE"), ("Refine", "IPT")),
            why="a concrete invocation shows the expected shape of a call",
        ),
        Rule(
            "unknown_tool",
            True,
            ("TN", "FD", "UE"),
            (("Add", "UE"), ("Refine", "FD")),
            why="the agent invented a tool name; an example shows the exact name",
        ),
        Rule(
            "wrong_tool",
            True,
            ("FD", "UG", "UE", "TD", "CI"),
            (("Add", "UG"), ("Refine", "FD"), ("Add", "UE"), ("Add", "TD"), ("Remove", "CI")),
            why="confusion between tools: show the requests this tool serves and what it is for",
        ),
        Rule(
            "misused",
            True,
            ("UG", "FD"),
            (("Add", "UG"), ("Refine", "FD")),
            why="the agent reached for this tool where another one serves the request: it is judged on those "
            "requests, and its doc names neither the other tool nor the values that route them there (naming "
            "them drew the requests to it)",
        ),
        Rule(
            "missing_call",
            True,
            ("FD", "UG", "UE", "IC"),
            (("Add", "UG"), ("Refine", "FD"), ("Add", "UE")),
            why="the agent did not know this tool is needed for the request",
        ),
        Rule(
            "extra_call",
            True,
            ("UG", "IC"),
            (("Add", "IC"), ("Add", "UG")),
            why="the agent called the tool when it should not (or too often)",
        ),
        Rule(
            "unknown_argument",
            True,
            ("IPN", "IPD", "UE", "IC"),
            # IC says which names to leave out: an agent that passes a request's patient_name beside the
            # appointment_id a cancellation takes has read the parameter list and still guessed
            (("Refine", "IPN"), ("Add", "IC"), ("Add", "UE"), ("Refine", "IPD")),
            why="the agent guessed parameter names",
        ),
        Rule(
            "missing_argument",
            True,
            ("PRF", "POF", "IPD", "UE"),
            (("Add", "PRF"), ("Add", "UE"), ("Refine", "IPD")),
            why="the agent did not know the argument is needed",
        ),
        Rule(
            "wrong_format",
            True,
            ("IPT", "IPD", "UE"),
            (("Refine", "IPD"), ("Add", "UE"), ("Refine", "IPT")),
            why="the right value in the wrong format: state the format",
        ),
        Rule(
            "wrong_value",
            True,
            ("IPD", "UE", "CI"),
            (("Add", "UE"), ("Refine", "IPD"), ("Remove", "CI")),
            why="the argument's meaning was unclear",
        ),
        Rule(
            "tool_error",
            True,
            ("IC", "IPT", "IPD"),
            (("Add", "IC"), ("Refine", "IPT")),
            why="the tool's own error message states a constraint the doc does not",
        ),
        Rule(
            "wrong_order",
            True,
            ("UG", "IC"),
            (("Add", "UG"),),
            why="the doc does not say what must happen before or after this call",
        ),
        Rule(
            "step_limit",
            True,
            ("RPN", "RPD", "RT", "UG"),
            (("Add", "RT"), ("Add", "RPD"), ("Add", "UG")),
            why="the agent did not recognise the tool's output as the result it needed",
        ),
        Rule(
            "output_misuse",
            True,
            ("RPN", "RPD", "RPT", "RT"),
            (("Add", "RT"), ("Add", "RPT"), ("Refine", "RPD")),
            why="the agent misread the tool's output",
        ),
        Rule("other_tool", False, (), (), why="this tool was used correctly; the failure lies elsewhere"),
        Rule("infrastructure", False, (), (), why="timeouts and crashes are not documentation failures"),
    )
}


def rule(failure_class: str) -> Rule:
    return RULES.get(failure_class) or RULES["infrastructure"]


def rule_table_markdown() -> str:
    """The table as markdown (for docs and the dashboard)."""
    lines = ["| failure class | doc-related | fields | operations |", "|---|---|---|---|"]
    for r in RULES.values():
        ops = ", ".join(f"{o} {f}" for o, f in r.operations) or "—"
        lines.append(
            f"| {r.failure_class} | {'yes' if r.doc_related else 'no'} | {', '.join(r.fields) or '—'} | {ops} |"
        )
    return "\n".join(lines)
