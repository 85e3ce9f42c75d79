"""The 690 WorkBench tasks (SPEC 4): five single-domain files and one multi-domain file.

Task ids are `<file-domain>-<row>` (row = 0-based position in the task file,
zero-padded to three digits), stable across releases of this code because the
task files are fixed upstream blobs. The ground truth is parsed with
`parse_call` (never evaluated); the original call strings are kept in
`meta["gold_strings"]` because the upstream labels (exact match, end-date and
meeting-time errors) are defined on that text.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pandas as pd

from core.benchmarks.base import Call, Task, parse_call
from core.benchmarks.workbench.replay import newline_rule
from core.benchmarks.workbench.scoring import normalise_tool
from core.benchmarks.workbench.tools import PROMPT_ORDER

# Task files in SPEC order; the file's domain is the task's `domain`.
TASK_FILES: tuple[str, ...] = (
    "analytics",
    "calendar",
    "customer_relationship_manager",
    "email",
    "project_management",
    "multi_domain",
)


def task_file(root: Path, domain: str) -> Path:
    return root / "data" / "processed" / "queries_and_answers" / f"{domain}_queries_and_answers.csv"


def listed_domains(cell: str) -> list[str]:
    """The upstream reading of the `domains` cell: strip brackets and quotes, split on ', '."""
    return [d for d in cell.replace("[", "").replace("]", "").replace("'", "").split(", ") if d]


def _load(root: Path, domain: str) -> list[Task]:
    df = pd.read_csv(task_file(root, domain), dtype=object, keep_default_na=False)
    templates: dict[str, int] = {}
    tasks = []
    for row, rec in enumerate(df.to_dict(orient="records")):
        strings = [newline_rule(s) for s in ast.literal_eval(rec["answer"])]
        gold = tuple(_gold_call(s) for s in strings)
        used = {c.tool for c in gold}
        template = templates.setdefault(rec["base_template"], len(templates))
        tasks.append(
            Task(
                task_id=f"{domain}-{row:03d}",
                domain=domain,
                query=rec["query"],
                gold=gold,
                tools=tuple(t for t in PROMPT_ORDER if t in used),
                meta={
                    "file": domain,
                    "row": row,
                    "template_id": f"{domain}-t{template:02d}",
                    "base_template": rec["base_template"],
                    "chosen_template": rec["chosen_template"],
                    "domains": listed_domains(rec["domains"]),
                    "answer": rec["answer"],
                    "gold_strings": strings,
                },
            )
        )
    return tasks


def _gold_call(text: str) -> Call:
    call = parse_call(text)
    return Call(normalise_tool(call.tool), dict(call.args))


@lru_cache(maxsize=4)
def _all(root: str) -> tuple[Task, ...]:
    return tuple(t for d in TASK_FILES for t in _load(Path(root), d))


def load_tasks(root: Path) -> list[Task]:
    """All 690 tasks in file order (cached per data directory)."""
    return list(_all(str(root)))
