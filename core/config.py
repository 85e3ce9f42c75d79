"""Where things live: the warehouse file and the benchmark data directory.

Every command and the app resolve paths the same way: an explicit argument,
then an environment variable, then a default. Benchmark data is third-party and
never part of the project, so a missing data directory is reported with where to
get it rather than with a stack trace.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WAREHOUSE = PROJECT_ROOT / "data" / "warehouse.duckdb"

UPSTREAM = {
    "workbench": "WorkBench — https://github.com/olly-styles/WorkBench at commit "
    "42f1b6dc18986f47701ca83de2d63dd4f95c59a0 (MIT): copy its data/ folder to <data-dir>/workbench/data/",
    "api-bank": "API-Bank — https://github.com/AlibabaResearch/DAMO-ConvAI folder api-bank/ at commit "
    "483554eae102996f5ec1f4feab4e78ef29c2a394 (Apache-2.0), test data from commit "
    "1d76900822d9ecfcd6e9eb0ca64a073cb892b735 or the Hugging Face dataset liminghao1630/API-Bank: "
    "copy it to <data-dir>/api-bank/api-bank/",
}


class DataDirError(FileNotFoundError):
    """The benchmark data is not where we looked; the message says where to get it."""


def warehouse_path(explicit: str | os.PathLike | None = None) -> Path:
    """The warehouse file: argument, then DOCSCHISEL_WAREHOUSE, then data/warehouse.duckdb."""
    value = explicit or os.environ.get("DOCSCHISEL_WAREHOUSE")
    return Path(value).expanduser() if value else DEFAULT_WAREHOUSE


def data_dir(explicit: str | os.PathLike | None = None, *, must_exist: bool = True) -> Path:
    """The benchmark data directory: argument, DOCSCHISEL_DATA_DIR, then ../shared/benchmarks."""
    value = explicit or os.environ.get("DOCSCHISEL_DATA_DIR")
    candidates = (
        [Path(value).expanduser()]
        if value
        else [
            Path.cwd().parent / "shared" / "benchmarks",
            PROJECT_ROOT.parent / "shared" / "benchmarks",
        ]
    )
    for c in candidates:
        if c.is_dir():
            return c.resolve()
    if not must_exist:
        return candidates[0]
    where = ", ".join(str(c) for c in candidates)
    raise DataDirError(
        f"benchmark data directory not found (looked in {where}). Pass --data-dir or set "
        "DOCSCHISEL_DATA_DIR to a folder holding workbench/ and api-bank/. Upstream sources:\n  - "
        + "\n  - ".join(UPSTREAM.values())
    )


def user_benchmark_dirs() -> list[Path]:
    """Folders the dashboard may import benchmark folders from (the allow-list).

    $DOCSCHISEL_USER_BENCHMARKS (paths separated by the OS path separator),
    else `data/user-benchmarks/` in the project. A folder typed on the Data
    page is imported only when it lies inside one of them: a dashboard user
    must not be able to make the server load (and run the tools.py of) any
    path on its disk.
    """
    value = os.environ.get("DOCSCHISEL_USER_BENCHMARKS", "")
    dirs = [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]
    return [d.resolve() for d in (dirs or [PROJECT_ROOT / "data" / "user-benchmarks"])]


def importable(folder: str | os.PathLike) -> Path | None:
    """The resolved folder when it lies inside an allowed directory (`user_benchmark_dirs`), else None."""
    path = Path(folder).expanduser().resolve()
    for root in user_benchmark_dirs():
        if path == root or root in path.parents:
            return path
    return None


def benchmark_dir(name: str, explicit: str | os.PathLike | None = None) -> Path:
    """The folder of one benchmark inside the data directory, with a helpful error."""
    root = data_dir(explicit)
    path = root / name
    if not path.is_dir():
        raise DataDirError(f"{path} is missing. Get it from {UPSTREAM.get(name, 'its upstream repository')}")
    return path
