"""Users' own benchmarks as a folder: tools.py (+ tool JSON), tasks.jsonl, state files.

    from core.benchmarks.userfolder import load_user_benchmark, BenchmarkFolderError
    bench = load_user_benchmark("my_bench/")      # raises BenchmarkFolderError on any defect

The format and the scoring rules are documented in docs/user-benchmarks.md.
"""

from core.benchmarks.userfolder.benchmark import (
    GoldRun,
    ToolCrash,
    UserBenchmark,
    UserSandbox,
    render_observation,
)
from core.benchmarks.userfolder.check import check
from core.benchmarks.userfolder.errors import BenchmarkFolderError, Problem
from core.benchmarks.userfolder.importer import import_user_folder
from core.benchmarks.userfolder.loader import fingerprint, load_user_benchmark
from core.benchmarks.userfolder.manifest import Manifest
from core.benchmarks.userfolder.toolkit import ToolSpec

__all__ = [
    "BenchmarkFolderError",
    "GoldRun",
    "Manifest",
    "Problem",
    "ToolCrash",
    "ToolSpec",
    "UserBenchmark",
    "UserSandbox",
    "import_user_folder",
    "check",
    "fingerprint",
    "load_user_benchmark",
    "render_observation",
]
