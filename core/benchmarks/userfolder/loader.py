"""`load_user_benchmark(path)`: validate a whole folder, then build the benchmark.

Order matters only where a stage needs an earlier one (tasks are checked
against the tools); otherwise every stage runs and all problems are raised
together. Nothing is returned unless the whole folder is valid, so no caller
ever holds a half-loaded benchmark.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from core.benchmarks.userfolder.benchmark import UserBenchmark
from core.benchmarks.userfolder.errors import BenchmarkFolderError, Problem, Problems
from core.benchmarks.userfolder.manifest import MANIFEST, read_manifest
from core.benchmarks.userfolder.scoring import parse_options, with_scoring_options
from core.benchmarks.userfolder.state import STATE_DIR, read_state
from core.benchmarks.userfolder.taskfile import TASKS_FILE, read_tasks
from core.benchmarks.userfolder.toolkit import TOOLS_DIR, TOOLS_MODULE, Toolkit, load_toolkit
from core.sandbox import Limits

LAYOUT = f"{MANIFEST} (optional), {TOOLS_MODULE}, {TOOLS_DIR}/*.json (optional), {TASKS_FILE}, {STATE_DIR}/ (optional)"


def load_user_benchmark(
    path: str | os.PathLike[str], *, verify: bool = False, limits: Limits | None = None
) -> UserBenchmark:
    """Load a benchmark folder; raise `BenchmarkFolderError` listing every defect.

    The folder's tools.py is imported in a worker process (core.sandbox), never
    in this one; `limits` sets its timeouts and memory (default: from the
    environment). With `verify=True` every task's gold calls are also replayed,
    and a gold call that fails is a load error (this runs the tools once per task).
    """
    holder: list[Toolkit] = []
    try:
        return _load(Path(path).expanduser(), verify, limits, holder)
    except BaseException:
        for toolkit in holder:  # a rejected folder leaves no worker behind
            toolkit.close()
        raise


def _load(folder: Path, verify: bool, limits: Limits | None, holder: list[Toolkit]) -> UserBenchmark:
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
    outside_links(folder, problems)
    problems.raise_if_any()  # nothing is read through a link that leaves the folder
    manifest = read_manifest(folder, problems)
    state = read_state(folder, problems)
    if problems:
        problems.raise_if_any()
    toolkit = load_toolkit(folder, manifest.state_param, problems, limits)
    if toolkit is not None:
        holder.append(toolkit)
    if toolkit is None or problems:
        problems.raise_if_any()
    assert toolkit is not None
    for domain, tools in manifest.domain_tools.items():
        unknown = [t for t in tools if t not in toolkit.tools]
        if unknown:
            problems.add(MANIFEST, f"domain {domain!r} lists unknown tool(s) {', '.join(unknown)}")
    problems.raise_if_any()  # tasks are checked against this mapping; a broken one would flag every line
    tasks = read_tasks(folder, toolkit, manifest, problems, extra_keys=("scoring",))
    params = {name: spec.params for name, spec in toolkit.tools.items()}
    defaults = manifest.task_scoring
    if defaults and parse_options(defaults, params, lambda m: problems.add(MANIFEST, f"task_{m}")) is None:
        defaults = {}
    tasks = [with_scoring_options(t, params, defaults, problems) for t in tasks]
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


def outside_links(folder: Path, problems: Problems) -> None:
    """Every file of the benchmark must be inside the folder: a symlink out of it is a defect.

    Why: a folder is something a user hands us (or a dashboard user types a
    path to); following a link to /etc or another user's files would read, and
    for tools.py run, something nobody reviewed as part of the benchmark.
    """
    root = folder.resolve()
    candidates = [folder / MANIFEST, folder / TOOLS_MODULE, folder / TASKS_FILE]
    for sub in (TOOLS_DIR, STATE_DIR):
        d = folder / sub
        candidates.append(d)
        if d.is_dir():
            candidates.extend(p for p in d.iterdir() if not p.name.startswith("."))
    for path in candidates:
        if not (path.exists() or path.is_symlink()):
            continue
        target = path.resolve()
        if target != root and root not in target.parents:
            rel = str(path.relative_to(folder))
            problems.add(
                rel, f"is a link to {target}, outside the benchmark folder; copy the file in instead"
            )


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
