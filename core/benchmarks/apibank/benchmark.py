"""API-Bank level 1 ("Call") as a Benchmark: finance, health, information, smart home.

A task is one level-1 sample: the dialogue so far and the one API call that
should come next. Each episode gets a fresh session of the init databases with
the dialogue's earlier gold calls replayed (SPEC 5), so the state the agent
acts on matches the dialogue.

Scoring (SPEC 4.4/4.5): the agent's *first* call is the prediction, as
upstream level 1 evaluates the single next call. It is executed in a fresh
replayed session and the gold API's own check compares its response record
with the gold result. TC is whether that call names the gold API. With
`call_policy="any"` an episode succeeds when any of its calls passes the check
(TC then asks that every call used the gold API); that is a lenient variant for
agents that explore before answering and is not upstream's rule.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from core.benchmarks.apibank.common import Record
from core.benchmarks.apibank.docs import load_original_docs
from core.benchmarks.apibank.samples import DOMAINS, Dropped, Sample, load_samples, render_history
from core.benchmarks.apibank.session import REGISTRY, CallLayerError, Session, parse_list_text
from core.benchmarks.apibank.textcall import LIST_TYPES, parse_api_request, render_request
from core.benchmarks.base import Call, CallParseError, Score, Task, ToolError, invoked
from core.config import benchmark_dir
from core.docs import DocSet

ToolSet = Literal["domain", "upstream", "all"]
CallPolicy = Literal["first", "any"]

# APIs offered as tools. CheckToken is implemented (QueryBalance validates tokens
# through it) but never appears in a level-1 dialogue or its shown descriptions.
ACCOUNT_TOOLS: tuple[str, ...] = ("GetUserToken",)
# APIs that change a database of the session (SPEC section 3); every other in-scope API only reads.
WRITE_APIS: frozenset[str] = frozenset(
    {
        "OpenBankAccount",
        "RecordHealthData",
        "AppointmentRegistration",
        "CancelRegistration",
        "ModifyRegistration",
        "SendEmail",
        "AddScene",
        "DeleteScene",
        "ModifyScene",
        "TimedSwitch",
        "CancelTimedSwitch",
    }
)
INTERNAL_APIS: tuple[str, ...] = ("CheckToken",)

_SYSTEM_PROMPT = """\
You are the assistant in the dialogue below, and you can use APIs. Your job is to make the API request \
that should come next in the conversation, given everything the user and the assistant have said so far \
and the results of earlier API requests.
Choose one of the available APIs and fill in its parameters with values taken from the dialogue, in the \
formats the API descriptions ask for. The current year is 2023.
Make exactly one API request. Do not answer the user in prose instead of calling an API."""


class ApiBankSandbox:
    """One episode's session: earlier gold calls replayed, then the agent's calls."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.records: list[Record | dict[str, str]] = []  # one entry per agent call

    def execute(self, call: Call) -> str:
        try:
            record = self.session.call(call.tool, call.args)
        except CallLayerError as exc:
            self.records.append({"error": str(exc), "kind": exc.kind})
            raise ToolError(str(exc)) from exc
        self.records.append(record)
        if record.get("exception") is not None:
            raise ToolError(str(record["exception"]))
        return render_output(record.get("output"))


def render_output(output: Any) -> str:
    """Observation text: the Python text form the dialogue history also uses."""
    return output if isinstance(output, str) else str(output)


class ApiBank:
    """API-Bank level-1 over the four DocsChisel domains plus GetUserToken.

    Options: `domains` restricts tasks (and tools) to some of
    finance/health/information/smart_home; `tool_set` picks what `tools_for`
    offers ("domain": every API of the task's domain plus GetUserToken, so
    choosing the tool matters; "upstream": the APIs whose descriptions the
    upstream sample shows, in recorded order; "all": every offered API);
    `keep_duplicates` keeps the 3 samples that duplicate another sample
    (upstream totals, 198) instead of dropping them (195, the default, so no
    task can land in two splits); `replay=False` is upstream's fresh session
    per step (B9), under which the one id-dependent QueryRegistration fails.
    """

    name = "api-bank"

    def __init__(
        self,
        data_dir: str | Path | None = None,
        domains: Sequence[str] | None = None,
        *,
        tool_set: ToolSet = "domain",
        keep_duplicates: bool = False,
        replay: bool = True,
        call_policy: CallPolicy = "first",
    ) -> None:
        self.root = benchmark_dir("api-bank", data_dir)
        unknown = sorted(set(domains or ()) - set(DOMAINS))
        if unknown:
            raise ValueError(f"unknown API-Bank domain(s) {unknown}; choose from {list(DOMAINS)}")
        self._domains = [d for d in DOMAINS if domains is None or d in domains]
        if tool_set not in ("domain", "upstream", "all"):
            raise ValueError(f"tool_set must be domain, upstream or all, not {tool_set!r}")
        if call_policy not in ("first", "any"):
            raise ValueError(f"call_policy must be first or any, not {call_policy!r}")
        self.tool_set, self.keep_duplicates, self.replay, self.call_policy = (
            tool_set,
            keep_duplicates,
            replay,
            call_policy,
        )
        self._samples: list[Sample] | None = None
        self._dropped: list[Dropped] = []
        self._tasks: list[Task] | None = None
        self._docs: DocSet | None = None

    # ------------------------------------------------------------------ catalogue
    def domains(self) -> list[str]:
        return list(self._domains)

    def tool_names(self) -> list[str]:
        return [a.name for a in REGISTRY.values() if a.domain in self._domains] + list(ACCOUNT_TOOLS)

    def tool_domain(self, tool: str) -> str:
        """The short domain id of an API (`account` for GetUserToken)."""
        return REGISTRY[tool].domain

    def original_docs(self) -> DocSet:
        if self._docs is None:
            self._docs = load_original_docs(self.root, self.tool_names())
        return self._docs

    def param_types(self) -> dict[str, dict[str, str]]:
        """API -> parameter -> declared type, for parsing call text."""
        return {a.name: {p.name: p.type for p in a.params} for a in REGISTRY.values()}

    # ------------------------------------------------------------------ tasks
    def samples(self) -> list[Sample]:
        """Kept samples of the selected domains (duplicates included), after repairs."""
        if self._samples is None:
            kept, self._dropped = load_samples(self.root)
            self._samples = [s for s in kept if s.domain in self._domains]
        return self._samples

    def dropped(self) -> list[Dropped]:
        self.samples()
        return list(self._dropped)

    def tasks(self) -> list[Task]:
        if self._tasks is None:
            self._tasks = [
                self._task(s) for s in self.samples() if self.keep_duplicates or s.duplicate_of is None
            ]
        return list(self._tasks)

    def task(self, task_id: str) -> Task:
        """One task by id, e.g. `QueryStock-level-1-1#0` (dialogue file stem # sample id)."""
        found = next((t for t in self.tasks() if t.task_id == task_id), None)
        if found is None:
            raise KeyError(f"no API-Bank task {task_id!r} (ids look like 'QueryStock-level-1-1#0')")
        return found

    def _task(self, s: Sample) -> Task:
        gold = gold_call(s.gold)
        meta = {
            "file": s.file,
            "sample_id": s.sample_id,
            "status": s.status,
            "repair": s.repair,
            "duplicate_of": s.duplicate_of,
            "gold_domain": s.gold_domain,
            "visible_apis": list(s.visible_apis),
            "history": [copy.deepcopy(t) for t in s.history],
            "gold_result": copy.deepcopy(s.gold["result"]),
            "expected_output": render_request(s.gold["api_name"], s.gold["param_dict"]),
        }
        return Task(
            task_id=s.task_id,
            domain=s.domain,
            query=render_history(s.history),
            gold=(gold,),
            tools=(gold.tool,),
            meta=meta,
        )

    def tools_for(self, task: Task) -> list[str]:
        if self.tool_set == "upstream":
            return list(task.meta["visible_apis"])
        offered = self.tool_names()
        if self.tool_set == "all":
            return offered
        return [t for t in offered if REGISTRY[t].domain in (task.domain, "account")]

    def system_prompt(self, task: Task) -> str:
        return _SYSTEM_PROMPT

    def tool_writes(self, tool: str) -> bool | None:
        """Whether the API changes the session's databases (queries, searches and tokens only read)."""
        return tool in WRITE_APIS if tool in REGISTRY else None

    def tool_source(self, tool: str, max_lines: int = 40) -> str | None:
        """The source of the API's implementation in our sandbox."""
        from core.benchmarks.meta import source_text

        api = REGISTRY.get(tool)
        return source_text(api.func, max_lines) if api is not None else None

    def tool_signature(self, tool: str) -> list[dict[str, Any]] | None:
        """Parameters as the API classes declare them: a type and a required flag each."""
        api = REGISTRY.get(tool)
        if api is None:
            return None
        return [
            {"name": p.name, "type": p.type, "required": p.required, "source": "api-bank registry"}
            for p in api.params
        ]

    # ------------------------------------------------------------------ episodes
    def new_sandbox(self, task: Task) -> ApiBankSandbox:
        session = Session(self.root / "api-bank" / "init_database")
        if self.replay:
            replay_history(session, task.meta.get("history", ()))
        return ApiBankSandbox(session)

    def parse_call_text(self, text: str) -> Call:
        """An agent's `API-Request: [Api(k='v')]` text as a Call (CallParseError if none)."""
        return parse_api_request(text, self.param_types())

    def score(self, task: Task, calls: Sequence[Call], final_answer: str | None, sandbox: Any) -> Score:
        """Judge the predicted call; the episode's own sandbox is not needed (see module doc)."""
        gold = task.gold[0]
        if not calls:
            return Score(False, False, {"reason": "NO_API_CALL", "gold": gold.to_json()})
        if self.call_policy == "any":
            tool_correct = {c.tool for c in invoked(calls)} == {gold.tool}
            judged = [self._judge(task, c) for c in calls if c.tool == gold.tool] or [
                self._judge(task, calls[0])
            ]
            best = next((j for j in judged if j["correct"]), judged[0])
            return Score(bool(best["correct"]), tool_correct, best)
        verdict = self._judge(task, calls[0])
        first_ok = calls[0].error is None and calls[0].tool == gold.tool  # a call that raised invoked nothing
        return Score(bool(verdict["correct"]), first_ok, verdict)

    def score_text(self, task: Task, text: str) -> Score:
        """Upstream-style scoring of a model's raw output text (parse, then judge)."""
        try:
            call = self.parse_call_text(text)
        except CallParseError as exc:
            return Score(False, False, {"reason": "NO_API_CALL", "error": str(exc)})
        return self.score(task, [call], None, None)

    def _judge(self, task: Task, call: Call) -> dict[str, Any]:
        gold = task.gold[0]
        gold_result = task.meta["gold_result"]
        details: dict[str, Any] = {"pred": call.to_json(), "gold": gold.to_json()}
        if call.tool != gold.tool:
            return {**details, "correct": False, "reason": f"API Name Mismatch: {call.tool} vs {gold.tool}"}
        session = self.new_sandbox(task).session
        try:
            record = session.call(call.tool, call.args)
        except CallLayerError as exc:
            return {**details, "correct": False, "reason": exc.kind, "error": str(exc)}
        details["response"] = _jsonable(record)
        try:
            ok = bool(REGISTRY[gold.tool].check(record, gold_result))
        except Exception as exc:  # noqa: BLE001 - a check that cannot run scores incorrect
            return {
                **details,
                "correct": False,
                "reason": "CHECK_ERROR",
                "error": f"{type(exc).__name__}: {exc}",
            }
        if ok:
            return {**details, "correct": True, "reason": "CORRECT"}
        if record.get("exception") is not None:
            reason = "HAS_EXCEPTION"
        elif record.get("output") != gold_result.get("output"):
            reason = "OUTPUT_MISMATCH"
        else:
            reason = "INPUT_MISMATCH"
        return {**details, "correct": False, "reason": reason}


def gold_call(turn: Mapping[str, Any]) -> Call:
    """The gold Call of an API turn: its `param_dict`, list-typed texts parsed."""
    api = REGISTRY.get(turn["api_name"])
    args: dict[str, Any] = {}
    for name, value in turn["param_dict"].items():
        spec = api.param(name) if api else None
        if spec is not None and spec.type in LIST_TYPES and isinstance(value, str):
            value = parse_list_text(value)
        args[name] = value
    return Call(turn["api_name"], args)


def replay_history(session: Session, history: Sequence[Mapping[str, Any]]) -> None:
    """Execute the earlier gold API turns in order and pin their random outputs (SPEC 5)."""
    for turn in history:
        if turn.get("role") != "API":
            continue
        call = gold_call(turn)
        try:
            record = session.call(call.tool, call.args)
        except CallLayerError:
            continue  # a gold turn the call layer rejects changes nothing
        recorded = (turn.get("result") or {}).get("output")
        if call.tool == "AppointmentRegistration" and isinstance(recorded, str):
            fresh = record.get("output")
            table = session.db("Appointments")
            if isinstance(fresh, str) and fresh in table and fresh != recorded:
                table[recorded] = table.pop(fresh)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)
