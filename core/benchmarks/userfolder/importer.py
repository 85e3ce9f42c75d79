"""Register a user's benchmark folder in the warehouse (what the dashboard's Data page calls).

Loading validates the whole folder first (nothing partial is stored when it has
a defect); then the benchmark, its original docs as a doc set, its tasks and its
stored opt/val/test split are registered, so the folder can be evaluated and
optimized from the dashboard or the CLI right away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split
from core.benchmarks.userfolder.loader import load_user_benchmark


def import_user_folder(warehouse, folder: str | Path, *, seed: int = 0) -> dict[str, Any]:
    bench = load_user_benchmark(folder)
    tasks = bench.tasks()
    warehouse.register_benchmark(bench.name, bench.warehouse_info)
    docset_id = warehouse.register_docset(bench.original_docs(), benchmark=bench.name, origin="original")
    warehouse.register_tasks(bench.name, tasks)
    split = get_or_create_split(warehouse, bench.key, tasks, seed=seed, grouping=DEFAULT_GROUPING)
    bench.close()  # the tools ran in worker processes; importing needs them no longer
    return {
        "benchmark": bench.name,
        "tools": len(bench.tool_names()),
        "tasks": len(tasks),
        "docset_id": docset_id,
        "split": split.counts(),
    }
