"""EvoSOP's configuration and its pure decisions: mini-batches, task samples, checkpoint selection.

Kept apart from the loop (`core.sop.evolve`) so the decisions are plain
functions over typed values, testable without running anything.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from core.agents.base import AgentConfig
from core.benchmarks.base import Call, Task
from core.benchmarks.splits import DEFAULT_GROUPING, Split, check_grouping
from core.sop.executor import Limits
from core.sop.model import Toolset
from core.sop.review import PruneRules
from core.sop.store import EpochSummary

ALGORITHM_VERSION = "evosop-1"
VARIANTS = ("full", "no-merge", "no-review", "asi")
OFFERS = ("beside", "instead")
Log = Callable[[str], None]


class GoldAccess(Protocol):
    """Ground truth of permitted tasks with an audit trail (`core.chisel.access.GroundTruth` fits)."""

    def calls(self, task_id: str, purpose: str) -> tuple[Call, ...]: ...

    def flush(self) -> int: ...


GoldFactory = Callable[[str, Split, Sequence[Task]], GoldAccess]


@dataclass(frozen=True)
class SopConfig:
    """Everything that defines an evolve run (its hash is the run id; `name` is a label)."""

    benchmark: str = "workbench"
    domains: tuple[str, ...] = ()
    agent: AgentConfig = field(default_factory=AgentConfig)
    variant: str = "full"
    constructor: str = "composer"  # composer (offline) | llm
    reviewer: str = "evidence"  # evidence (offline) | llm
    model: str | None = None  # the LLM engines' model
    epochs: int = 10
    batch_size: int = 5
    construct_epochs: int = 5
    max_new: int = 3
    max_len: int = 3
    min_support: int = 1
    repeats: int = 1
    seed: int = 0
    split_seed: int = 0
    split_grouping: str = DEFAULT_GROUPING  # see core.benchmarks.splits
    max_train_tasks: int | None = None
    max_test_tasks: int | None = None
    test: bool = True
    limits: Limits = field(default_factory=Limits)
    rules: PruneRules = field(default_factory=PruneRules)
    # Another agent (e.g. a stronger model) whose trajectories on the training tasks join the
    # construction material: a weak target agent rarely succeeds, so its own trajectories hold
    # few routines to mine. SOPs are still evaluated, reviewed and tested with `agent`.
    explorer: AgentConfig | None = None
    # The composer also links lookup -> write routines through the read-only tools' docs
    # (`core.sop.mining.doc_linked`): for a target agent that never looks anything up, no trajectory
    # shows them. Off is the paper's setting (routines from trajectories only).
    doc_links: bool = False
    # beside: SOPs offered next to every atomic tool (the paper). instead: an ablation that withholds
    # the atomic writes an offered SOP wraps (`core.sop.bench.SopBenchmark`), for an agent that does
    # not pick a routine over the atomic call by itself; read-only tools stay offered.
    offer: str = "beside"
    name: str = ""

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown EvoSOP variant {self.variant!r}; expected one of {VARIANTS}")
        if self.offer not in OFFERS:
            raise ValueError(f"unknown SOP offer {self.offer!r}; expected one of {OFFERS}")
        check_grouping(self.split_grouping)
        if self.epochs < 1 or self.batch_size < 1:
            raise ValueError("epochs and batch_size must be at least 1")

    @property
    def merge(self) -> bool:
        return self.variant in ("full", "no-review")

    @property
    def review(self) -> bool:
        return self.variant in ("full", "no-merge")

    @property
    def n_epochs(self) -> int:
        return 1 if self.variant == "asi" else self.epochs

    def key(self, bench_key: str) -> dict[str, Any]:
        out = asdict(self)
        out.pop("name")
        out["benchmark"] = bench_key
        out["agent"] = self.agent.to_json()
        if not self.doc_links:
            out.pop("doc_links")  # runs without them keep the ids they always had
        if self.offer == "beside":
            out.pop("offer")  # likewise
        if self.split_grouping == "task":
            out.pop("split_grouping")  # likewise
        if self.explorer is None:
            out.pop("explorer")  # runs without one keep the ids they always had
        else:
            out["explorer"] = self.explorer.to_json()
        out["algorithm"] = ALGORITHM_VERSION
        if "llm" not in (self.constructor, self.reviewer):
            out.pop("model")
        return out


@dataclass
class SopResult:
    run_id: str
    epochs: list[EpochSummary]
    best_epoch: int
    toolset: Toolset
    test: dict[str, Any] | None = None
    cancelled: bool = False


def select_epoch(epochs: Sequence[EpochSummary]) -> EpochSummary | None:
    """The checkpoint to keep: best training TS over the SOP epochs; ties to fewer SOPs, rounds, earlier."""
    candidates = [e for e in epochs if e.epoch >= 1]
    if not candidates:
        return None
    return max(candidates, key=lambda e: (round(e.ts, 9), -len(e.evaluated), -round(e.rounds, 9), -e.epoch))


def batches(tasks: Sequence[Task], size: int, count: int, seed: int) -> list[list[Task]]:
    """Seeded mini-batches of the training tasks (the first `count` chunks of a shuffle)."""
    order = sorted(tasks, key=lambda t: t.task_id)
    random.Random(f"evosop:{seed}").shuffle(order)
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    return chunks[:count]


def cap_tasks(tasks: Sequence[Task], limit: int | None, seed: int, part: str) -> list[Task]:
    ordered = sorted(tasks, key=lambda t: t.task_id)
    if not limit or len(ordered) <= limit:
        return ordered
    return sorted(random.Random(f"evosop:{seed}:{part}").sample(ordered, limit), key=lambda t: t.task_id)
