"""Gold replay: every kept sample's gold call, after its history, must score correct.

This is the benchmark's self-test (`docschisel bench check api-bank`): it proves
the re-implemented APIs, the replay and the repairs reproduce every kept gold
result, and it reports the kept counts per domain with and without the
duplicated samples, plus the upstream-compatible count for comparison.

The report is a read-only mapping (like the WorkBench check's dict, with the
same `benchmark`, `data_dir`, `tasks`, `tools`, `docs`, `ok`, `failures`,
`n_failures` and `seconds` keys) that also has attributes and `to_text()`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.benchmarks.apibank.benchmark import ApiBank
from core.benchmarks.apibank.upstream import upstream_gold_pass


@dataclass
class CheckReport(Mapping[str, Any]):
    """Outcome of replaying the gold calls of one ApiBank configuration."""

    benchmark: str
    data_dir: str
    total: int
    passed: int
    per_domain: dict[str, dict[str, int]]  # domain -> tasks, passed, kept_with_duplicates, repaired
    tools: int = 0
    docs: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    kept_with_duplicates: int = 0
    kept_without_duplicates: int = 0
    repaired: dict[str, int] = field(default_factory=dict)  # repair kind -> samples
    excluded: dict[str, int] = field(default_factory=dict)  # gold API -> samples
    upstream_compatible: dict[str, int] = field(default_factory=dict)  # all in-scope samples, SPEC 4.4
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.total > 0 and self.passed == self.total

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "data_dir": self.data_dir,
            "ok": self.ok,
            "tasks": self.total,
            "passed": self.passed,
            "tools": self.tools,
            "docs": self.docs,
            "per_domain": self.per_domain,
            "kept_with_duplicates": self.kept_with_duplicates,
            "kept_without_duplicates": self.kept_without_duplicates,
            "repaired": self.repaired,
            "excluded": self.excluded,
            "upstream_compatible": self.upstream_compatible,
            "failures": self.failures[:20],
            "n_failures": len(self.failures),
            "seconds": self.seconds,
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())

    def to_text(self) -> str:
        lines = [
            f"{self.benchmark}: gold replay {self.passed}/{self.total} correct ({self.rate:.1%})",
            f"kept samples: {self.kept_with_duplicates} with duplicates, {self.kept_without_duplicates} without",
            f"{'domain':<12} {'tasks':>5} {'passed':>6} {'w/ dups':>7} {'repaired':>8}",
        ]
        for dom, row in self.per_domain.items():
            lines.append(
                f"{dom:<12} {row['tasks']:>5} {row['passed']:>6} {row['kept_with_duplicates']:>7} {row['repaired']:>8}"
            )
        if self.repaired:
            lines.append("repairs: " + ", ".join(f"{k} {v}" for k, v in sorted(self.repaired.items())))
        if self.excluded:
            lines.append("excluded: " + ", ".join(f"{k} {v}" for k, v in sorted(self.excluded.items())))
        if self.upstream_compatible:
            up = self.upstream_compatible
            lines.append(
                "upstream-compatible pipeline (recorded gold, fresh session, no repairs, all in-scope samples): "
                f"{up['passed']}/{up['total']}"
            )
        for f in self.failures[:20]:
            lines.append(f"FAIL {f['task_id']}: {f['reason']} {f.get('error') or ''}".rstrip())
        return "\n".join(lines)


def check(benchmark: ApiBank | None = None, *, upstream: bool = True) -> CheckReport:
    """Replay each task's gold call after its history and score it with the benchmark's scorer.

    With `upstream`, also count the recorded gold through the upstream-compatible
    pipeline (SPEC 4.4: 173 of 215 in-scope samples) for side-by-side reporting.
    """
    bench = benchmark if benchmark is not None else ApiBank()
    start = time.perf_counter()
    tasks = bench.tasks()
    samples = bench.samples()
    per_domain: dict[str, dict[str, int]] = {
        d: {"tasks": 0, "passed": 0, "kept_with_duplicates": 0, "repaired": 0} for d in bench.domains()
    }
    for s in samples:
        per_domain[s.domain]["kept_with_duplicates"] += 1
    failures: list[dict[str, Any]] = []
    passed = 0
    for task in tasks:
        row = per_domain[task.domain]
        row["tasks"] += 1
        row["repaired"] += task.meta.get("repair") is not None
        score = bench.score(task, list(task.gold), None, bench.new_sandbox(task))
        if score.success and score.tool_correct:
            passed += 1
            row["passed"] += 1
        else:
            failures.append(
                {"task_id": task.task_id, **{k: score.details.get(k) for k in ("reason", "error")}}
            )
    return CheckReport(
        benchmark=bench.name,
        data_dir=str(bench.root),
        total=len(tasks),
        passed=passed,
        per_domain=per_domain,
        tools=len(bench.tool_names()),
        docs=len(bench.original_docs()),
        failures=failures,
        kept_with_duplicates=len(samples),
        kept_without_duplicates=sum(1 for s in samples if s.duplicate_of is None),
        repaired=dict(Counter(s.repair for s in samples if s.repair)),
        excluded=dict(Counter(d.gold_api for d in bench.dropped())),
        upstream_compatible=upstream_gold_pass(bench.root) if upstream else {},
        seconds=round(time.perf_counter() - start, 2),
    )
