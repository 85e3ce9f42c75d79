"""Settings of one optimization run; their hash is the run id (so a re-run resumes)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from core.agents.base import AgentConfig
from core.benchmarks.splits import DEFAULT_GROUPING, check_grouping

# Part of the run id: bump it when a change makes the optimizer decide differently, so that
# re-running a command after such a change starts a new run instead of resuming an old one.
ALGORITHM_VERSION = "docschisel-24"  # 24: a tool called in another one's place says nothing of the other tool's requests (no "It is not for what X does" in its description, no "It takes no token: ... call X instead" or "Do not use it for requests like ...; call X for those" in its guidance: naming X or the routing value drew those requests to it), constraints tell the agent to leave out only guessed names no other tool of the domain takes (a name another tool takes routes a request there) and otherwise say which names the tool takes, and guidance where nothing tells two confused tools apart says what this one is for without naming the other; 23: an argument name an observed error names among its call's arguments, and the tool lacks, is a guessed name too (told to leave out, the error no longer quoted; the findings of the last plan named only some: "leave out current_year" beside a quoted "invalid parameter name. parameter: username"); 22: a request is quoted as what a tool is for only where no other tool's optimization dialogue holds the same user turn (an account-opening turn is also an earlier turn of the balance dialogue after it), a usage example shows a date the quoted request states in words as the converted value ("from March 1st" -> "2023-03-01 00:00:00"; a time of day only where the request states it), constraints name the argument names the agent guessed and tell it to leave them out (no longer quoting the error that named them; Add IC is now among unknown_argument's operations), and the description no longer says "call it whenever the user's request needs this" (it drew other tools' requests to the tool whose description said it); 21: a confused tool's routing cue also sets it apart from every other tool of the domain that takes the cued values ("appointment_id and no new_appointment_date or new_appointment_doctor"; beside a tool taking the very same values, as a symptom search beside an emergency look-up, the cue stays as it is), cued parameters are joined by "and", and neither the description nor guidance that quotes requests names the confused tool; 20: that guidance no longer names the other tool ("use this tool for requests that give appointment_id"; naming it drew requests that fit both tools' parameters to the tool named); 19: a month-day value that reads either way round (12-10) is shown as its format even where the quoted request holds it, and a confused tool's guidance names its parameter that the other tool lacks and every failed request states ("for requests that give token") instead of quoting requests both tools' users write alike; 18: usage examples take the parameter descriptions' rule for allowed values (a value that recurs across tasks but that the requests state - one user's token, a booked doctor, a day asked in words - is the user's data, shown only where the quoted request holds it, and as its format elsewhere), a value is traced to the quoted request only as a whole word ("user4" is not in "user4pass"), and a month-day value is typed MM-DD and read in words ("December 10th" states 12-10); 17: an operation whose content restates the original field up to spacing and a final period is dropped (a parameter description that already states the format no longer takes a plan slot); 16: a misused tool that takes no date (say) names every other tool that takes one, not only the tool its misrouted requests belonged to; 15: a look-up tool called where the episode called none of the task's tools is diagnosed as misused (it changes decisions only for a look-up optimized as a misused tool, `--misused-tools`); 14: that rule also holds where the id recurs across tasks (then the last turn that asks or gives the id is quoted; before, "The appointment ID is <appointment_id>." alone); 13: a usage example whose request is a reply that only gives a record id quotes the turn that asked before it; 12: usage examples never show a record id (`*_id`), in the call or in the quoted request, and IPD never lists one as an allowed value; 11: failures are diagnosed from their traces where an episode was restored from the results archive without one (it is run again; before, it read as "no tool call"); 10: a misused tool's doc names the parameter that routes the misrouted requests elsewhere instead of quoting them; 9: a value the request states in another format (a date in words) is not an implied value, values the requests state are not listed as allowed values, and quoted requests are the turn that asks (not "Yes, please."); 8: the no-call validation guard, headroom on own tasks, implied values and lookup sources in IPD; 7: memory outcomes weighted by failure class and tool; 6: selection and memory credit by TS over all evaluated episodes
# The LLM engine's own version, in the run id of LLM-engine runs only (evidence-engine runs keep theirs):
# 2: a generation reply that leaves a planned field empty is sent back; a candidate that repeats the
# original or an earlier one is asked for again with what was tried. 3: a plan may name only the fields
# its diagnosis implicates (the JSON schema says so), with a reason for each operation. 4: content that
# copies one optimization task's value, or states a date/time format the tool's calls do not have, is sent
# back. 5: a usage example that is not a call of its own tool, or passes a parameter the tool does not
# take, is sent back (`core.chisel.engines.checks.example_problems`).
LLM_ENGINE_VERSION = 5
HEADROOM = (0.15, 0.85)
MIN_VAL_TASKS = 4
GUARD_VAL_TASKS = 4


@dataclass(frozen=True)
class OptimizeConfig:
    """Everything that changes what the optimizer does.

    `seed` drives the optimizer's own choices (task samples, example choice,
    LLM sampling); `split_seed` picks the stored opt/val/test split, which
    `docschisel eval --seed` must use too (default 0 for both). Caps on tasks
    per tool and traces per iteration keep a run affordable on a laptop; `None`
    means no cap (the paper's setting).
    """

    benchmark: str = "api-bank"
    domains: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    limit_tools: int | None = None
    agent: AgentConfig = field(default_factory=AgentConfig)
    iterations: int = 5
    memory: bool = True
    engine: str = "auto"  # auto | evidence | llm
    optimizer_model: str | None = None
    seed: int = 0
    split_seed: int = 0
    # gold: tasks that share a gold call stay in one part (`core.benchmarks.splits`); task: the
    # task-level split of runs made before grouping existed
    split_grouping: str = DEFAULT_GROUPING
    repeats: int = 1
    max_opt_tasks: int | None = None
    max_val_tasks: int | None = None
    max_traces: int | None = None
    selection: str = "evidence"  # evidence | paper (see core.chisel.decisions.select)
    # Tools whose TS⁰ (original docs, opt + val, all repeats) lies outside this band are skipped: an
    # agent that always or never succeeds leaves nothing to measure. None (the paper's setting)
    # optimizes every tool; the CLI and the comparison harness default to HEADROOM.
    headroom: tuple[float, float] | None = None
    # A tool with fewer validation tasks is judged on its domain's pooled validation tasks
    # (0: never pool, the paper's setting; the CLI and the comparison harness default to MIN_VAL_TASKS).
    min_val_tasks: int = 0
    # Pool from every validation task of the domain that calls a tool, not only from the tools optimized
    # together: a tool optimized alone (`--tools X`) otherwise has nothing to pool and is judged on its
    # own one or two validation tasks. Off keeps the pool the tools optimized together.
    pool_domain_val: bool = False
    # Every tool's validation also holds up to this many of its domain's validation tasks whose ground
    # truth calls no tool (0: none, the paper's setting; the CLI and the comparison harness default to
    # GUARD_VAL_TASKS). A doc that pushes the agent to call its tool ("call it whenever…") fixes the
    # tool's own tasks and breaks the requests where nothing should be done; only those tasks show it.
    guard_val_tasks: int = 0
    # Rank operations by a stored field-impact study of the same benchmark, backbone and paradigm
    # (core.chisel.priors); without such a study in the warehouse this changes nothing.
    priors: bool = True
    # Each tool's optimization and validation sets also hold up to this many of the domain's profiled
    # tasks where the original docs had the agent call it in another tool's place (0: none, the
    # paper's setting; `core.chisel.decisions.misuse_tasks`). The wrong tool's doc is where "not for
    # these requests; call X" belongs, and only those tasks can judge such a sentence.
    misuse_tasks: int = 0
    # Also optimize each tool outside the optimized ones (above the headroom band, or not asked for)
    # that the profile saw called in their place on at least this many episodes (0: none, the paper's
    # setting; `core.chisel.decisions.misused_tools`), judged on its misuse tasks (needs misuse_tasks)
    # and on its own tasks, which must not get worse.
    misused_tools: int = 0
    # Each tool's validation also holds up to this many of the other optimized tools' optimization tasks
    # of its domain (0: none, the paper's setting; `core.chisel.decisions.cross_validation`): a doc read
    # beside the others can move the agent on their requests, and only their tasks show it.
    cross_val_tasks: int = 0
    # Judge each tool's candidates beside the docs already selected for the tools optimized before it in
    # this run, not beside the original docs (off: every tool against the original docs, the paper's
    # setting). Selected independently, two docs that each help alone can cancel or hurt each other
    # (their effects overlap, or one pulls the agent to its tool on the other's requests), and nothing
    # judges the set they form; in context, the last changed tool is judged on the final set.
    in_context: bool = False
    name: str = ""

    def __post_init__(self) -> None:
        if self.iterations < 0:
            raise ValueError("iterations must be >= 0")
        if self.repeats < 1:
            raise ValueError("repeats must be >= 1")
        if self.guard_val_tasks < 0:
            raise ValueError("guard_val_tasks must be >= 0")
        if self.misuse_tasks < 0:
            raise ValueError("misuse_tasks must be >= 0")
        if self.misused_tools < 0:
            raise ValueError("misused_tools must be >= 0")
        if self.misused_tools and not self.misuse_tasks:
            raise ValueError(
                "misused_tools needs misuse_tasks > 0: a misused tool is judged on its misuse tasks"
            )
        if self.cross_val_tasks < 0:
            raise ValueError("cross_val_tasks must be >= 0")
        if self.selection not in ("evidence", "paper"):
            raise ValueError(f"selection must be evidence or paper, not {self.selection!r}")
        if self.headroom is not None:
            lo, hi = self.headroom
            if not 0.0 <= lo <= hi <= 1.0:
                raise ValueError(f"headroom must be a band 0 <= low <= high <= 1, not {self.headroom!r}")
        check_grouping(self.split_grouping)
        if self.engine not in ("auto", "evidence", "llm"):
            raise ValueError(f"engine must be auto, evidence or llm, not {self.engine!r}")

    @classmethod
    def like(cls, settings: Any, **overrides: Any) -> OptimizeConfig:
        """A config taking every setting `settings` has under the same name (e.g. a CompareSpec).

        Settings are matched by name, so a new optimizer setting reaches every
        caller that carries it without being copied by hand in each of them.
        """
        names = {f.name for f in fields(cls)}
        taken = {n: getattr(settings, n) for n in names if hasattr(settings, n) and n not in overrides}
        return cls(**taken, **overrides)

    def key(self, benchmark_key: str, engine: str, optimizer_model: str) -> dict[str, Any]:
        d = asdict(self)
        d.pop("name")
        if not d["guard_val_tasks"]:  # runs without a guard keep the ids they had before it existed
            d.pop("guard_val_tasks")
        if not d["pool_domain_val"]:  # likewise
            d.pop("pool_domain_val")
        if d["split_grouping"] == "task":  # likewise
            d.pop("split_grouping")
        if not d["misuse_tasks"]:  # likewise
            d.pop("misuse_tasks")
        if not d["misused_tools"]:  # likewise
            d.pop("misused_tools")
        if not d["cross_val_tasks"]:  # likewise
            d.pop("cross_val_tasks")
        if not d["in_context"]:  # likewise
            d.pop("in_context")
        d["benchmark"] = benchmark_key
        d["agent"] = self.agent.to_json()
        d["domains"] = sorted(self.domains)
        d["tools"] = sorted(self.tools)
        d["engine"] = engine
        d["optimizer_model"] = optimizer_model
        d["algorithm"] = ALGORITHM_VERSION
        if engine == "llm":
            d["llm_engine"] = LLM_ENGINE_VERSION
        return d
