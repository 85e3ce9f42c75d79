"""WorkBench scoring: the upstream outcome-centric labels (SPEC 6.3-6.4) and TS/TC.

Task success (TS) is upstream `correct`: no episode error, and the predicted
calls, replayed on fresh tables, leave the same lower-cased end state as the
ground-truth calls. Scoring never reuses the live sandbox state: the calls are
re-executed with every argument turned into its `str()` form, because that is
what upstream scored (quirk Q7: unknown keywords make a call be skipped, `None`
becomes the text "None").

Tool correctness (TC) compares the set of *write* tools among the predicted
calls with the set of tools of the ground truth. WorkBench ground truth holds
only write calls (reads are exploration whose choice and number are free), so
counting reads would make TC false for almost every task that needs a lookup;
restricting to writes makes TC answer the paper's question "did the agent pick
the tools the task needs" and keeps tasks with an empty ground truth meaningful
(TC true iff the agent wrote nothing). A write call that raised (the sandbox
rejected it or the tool crashed) is no successful invocation and does not
count; one the tool answered with a validation message did run and counts,
because TC is about tool selection, not arguments. Calls to names that are not
WorkBench tools are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.benchmarks.base import Call, invoked
from core.benchmarks.workbench.replay import EndState, Replayer, call_function_name, newline_rule
from core.benchmarks.workbench.tools import TOOLS, WRITE_TOOLS

MEETING_TIMES = ("09:00:00", "11:00:00", "15:00:00", "15:30:00")


@dataclass(frozen=True)
class Labels:
    """The per-row labels of `derived/results_labels.csv`, plus replay counts."""

    correct: bool
    exact_match: bool
    unwanted_side_effects: bool
    no_actions: bool
    wrong_email: bool
    end_date_minor_error: bool
    meeting_start_time_error: bool
    correct_ignoring_error: bool
    calls_skipped: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def labels_for(
    replayer: Replayer,
    pred: Sequence[str],
    gold: Sequence[str],
    error: str | None,
    *,
    pred_state: EndState | None = None,
) -> Labels:
    """All upstream labels for one row of predicted call strings against gold call strings."""
    pred_n = [newline_rule(c) for c in pred]
    gold_n = [newline_rule(c) for c in gold]
    p_state = pred_state if pred_state is not None else replayer.run_strings(pred_n)
    g_state = replayer.run_strings(gold_n)
    same = p_state.lowered == g_state.lowered
    correct = not error and same
    pred_writes = sorted(c.lower() for c in pred_n if call_function_name(c) in WRITE_TOOLS)
    exact = pred_writes == sorted(c.lower() for c in gold_n)
    text = str(pred_n)
    pred_set = set(pred_n)
    end_date = (
        bool(gold_n)
        and all("2023-11-29" in g and g.replace("2023-11-29", "2023-11-30") in pred_set for g in gold_n)
        and not correct
    )
    meeting = (
        bool(gold_n)
        and all(
            "13:00:00" in g and any(g.replace("13:00:00", t) in pred_set for t in MEETING_TIMES)
            for g in gold_n
        )
        and not correct
    )
    return Labels(
        correct=correct,
        exact_match=exact,
        unwanted_side_effects=p_state.changed and not same,
        no_actions=not pred_n,
        wrong_email="@example" in text and "@atlas" not in text and not correct,
        end_date_minor_error=end_date,
        meeting_start_time_error=meeting,
        correct_ignoring_error=same,
        calls_skipped=p_state.skipped,
    )


def failure_reason(pred: Sequence[str], gold: Sequence[str], labels: Labels) -> str | None:
    """Why a failed episode failed, in terms of its write calls against the gold ones.

    Why: upstream's labels say *that* an end state differs; a reader of a field
    study needs to know whether the agent never acted, acted on the wrong tool,
    or called the right tool with wrong arguments, because each points at a
    different documentation field (usage guidance, tool description, parameter
    docs). None when the episode succeeded, or differs from the gold only by
    its abnormal end (its error class says why).
    """
    if labels.correct or labels.correct_ignoring_error:
        return None
    writes = {call_function_name(c) for c in pred if call_function_name(c) in WRITE_TOOLS}
    wanted = {call_function_name(g) for g in gold}
    if wanted and not writes:
        return f"no write call (needs {', '.join(sorted(wanted))})"
    if writes - wanted:
        return f"unwanted write: {', '.join(sorted(writes - wanted))}"
    if wanted - writes:
        return f"missing write: {', '.join(sorted(wanted - writes))}"
    for flag, text in (
        (labels.wrong_email, "wrong email address"),
        (labels.end_date_minor_error, "end date a day off"),
        (labels.meeting_start_time_error, "wrong meeting start time"),
    ):
        if flag:
            return text
    return f"wrong arguments: {', '.join(sorted(wanted))}"


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-7]{1,3}|[\\'\"abfnrtv\n])")
_SIMPLE = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def _unescape(text: str) -> str:
    """Decode Python string-literal escapes (what upstream `eval` did to a quoted value)."""

    def sub(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "ux":
            return chr(int(s[1:], 16))
        if s[0].isdigit():
            return chr(int(s, 8))
        if s == "\n":
            return ""
        return _SIMPLE[s]

    return _ESCAPE.sub(sub, text)


def upstream_value(value: Any) -> str:
    """A live argument as upstream scored it: `str()`, newline rule, then literal decoding."""
    return _unescape(newline_rule(str(value)))


def normalise_tool(name: str) -> str:
    """Accept `email.send_email` and the call-string form `email.send_email.func`."""
    return name[: -len(".func")] if name.endswith(".func") else name


def parsed_from_calls(calls: Sequence[Call]) -> list[tuple[str, dict[str, Any]]]:
    """Calls as upstream re-created them for scoring: every argument as a string."""
    return [(normalise_tool(c.tool), {k: upstream_value(v) for k, v in c.args.items()}) for c in calls]


def call_strings(calls: Sequence[Call]) -> list[str]:
    """The upstream `function_calls` text of some calls (SPEC 5.4), for exact-match style labels."""
    out = []
    for c in calls:
        inner = ", ".join(f'{k}="{v}"' for k, v in c.args.items())
        out.append(f"{normalise_tool(c.tool)}.func({inner})")
    return out


def tool_correct(calls: Sequence[Call], gold_tools: Sequence[str]) -> bool:
    """TC: the set of write tools invoked successfully equals the set of ground-truth tools (see module doc)."""
    called = {normalise_tool(c.tool) for c in invoked(calls)}
    return {t for t in called if t in WRITE_TOOLS} == set(gold_tools)


def known_tool(name: str) -> bool:
    return normalise_tool(name) in TOOLS
