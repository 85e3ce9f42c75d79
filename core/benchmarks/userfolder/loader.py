"""`load_user_benchmark(path)`: validate a whole folder, then build the benchmark.

Order matters only where a stage needs an earlier one (tasks are checked
against the tools); otherwise every stage runs and all problems are raised
together. Nothing is returned unless the whole folder is valid, so no caller
ever holds a half-loaded benchmark.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from core.benchmarks.userfolder.benchmark import UserBenchmark
from core.benchmarks.userfolder.errors import BenchmarkFolderError, Problem, Problems
from core.benchmarks.userfolder.manifest import MANIFEST, read_manifest
from core.benchmarks.userfolder.state import STATE_DIR, read_state
from core.benchmarks.userfolder.taskfile import TASKS_FILE, read_tasks
from core.benchmarks.userfolder.toolkit import MODULE_PREFIX, TOOLS_DIR, TOOLS_MODULE, load_toolkit

LAYOUT = f"{MANIFEST} (optional), {TOOLS_MODULE}, {TOOLS_DIR}/*.json (optional), {TASKS_FILE}, {STATE_DIR}/ (optional)"


def load_user_benchmark(path: str | os.PathLike[str], *, verify: bool = False) -> UserBenchmark:
    """Load a benchmark folder; raise `BenchmarkFolderError` listing every defect.

    Importing the folder's tools.py runs the user's code. With `verify=True`
    every task's gold calls are also replayed, and a gold call that fails is a
    load error (this runs the tools once per task).
    """
    before = set(sys.modules)
    try:
        return _load(Path(path).expanduser(), verify)
    except BenchmarkFolderError:
        for name in set(sys.modules) - before:  # a rejected folder leaves no module of it behind
            if name.startswith(MODULE_PREFIX):
                sys.modules.pop(name, None)
        raise


def _load(folder: Path, verify: bool) -> UserBenchmark:
    problems = Problems(folder)
    if not folder.is_dir():
        reason = (
            "not a folder (pass the benchmark folder, not a file in it)"
            if folder.exists()
            else "no such folder"
        )
        raise BenchmarkFolderError([Problem(str(folder), reason)])
    entries = [p.name for p in folder.iterdir() if not p.name.startswith(".")]
    if not entries:
        raise BenchmarkFolderError(
            [Problem(str(folder), f"the folder is empty; a benchmark folder holds {LAYOUT}")]
        )
    for required in (TOOLS_MODULE, TASKS_FILE):
        if not (folder / required).is_file():
            present = ", ".join(sorted(entries))
            problems.add(required, f"missing; a benchmark folder holds {LAYOUT} (found: {present})")
    manifest = read_manifest(folder, problems)
    state = read_state(folder, problems)
    if problems:
        problems.raise_if_any()
    toolkit = load_toolkit(folder, manifest.state_param, problems)
    if toolkit is None or problems:
        problems.raise_if_any()
    assert toolkit is not None
    for domain, tools in manifest.domain_tools.items():
        unknown = [t for t in tools if t not in toolkit.tools]
        if unknown:
            problems.add(MANIFEST, f"domain {domain!r} lists unknown tool(s) {', '.join(unknown)}")
    problems.raise_if_any()  # tasks are checked against this mapping; a broken one would flag every line
    tasks = read_tasks(folder, toolkit, manifest, problems)
    problems.raise_if_any()
    bench = UserBenchmark(folder, manifest, toolkit, tasks, state, fingerprint(folder))
    if verify:
        for task in tasks:
            errors = bench.gold_run(task).errors
            if errors:
                problems.add(
                    TASKS_FILE,
                    f"task {task.task_id!r}: a gold call fails: {errors[0]}",
                    task.meta.get("line"),
                )
        problems.raise_if_any()
    return bench


def fingerprint(folder: Path) -> str:
    """SHA-256 over every file that defines the benchmark (names and bytes)."""
    h = hashlib.sha256()
    files = [folder / MANIFEST, folder / TOOLS_MODULE, folder / TASKS_FILE]
    for sub in (TOOLS_DIR, STATE_DIR):
        if (folder / sub).is_dir():
            files.extend(
                sorted(p for p in (folder / sub).iterdir() if p.is_file() and not p.name.startswith("."))
            )
    for f in files:
        if f.is_file():
            h.update(str(f.relative_to(folder)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()
