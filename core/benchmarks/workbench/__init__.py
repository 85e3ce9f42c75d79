"""WorkBench: a simulated workplace with 27 tools over five tables (Styles et al., 2024).

Re-implemented from `workbench/SPEC.md` in the benchmark data directory; the
data is read at run time and never copied into the project.
"""

from core.benchmarks.workbench.benchmark import SYSTEM_SENTENCE, VARIANTS, WorkBench
from core.benchmarks.workbench.check import check
from core.benchmarks.workbench.sandbox import ToolCrash, WorkBenchSandbox

__all__ = ["SYSTEM_SENTENCE", "VARIANTS", "ToolCrash", "WorkBench", "WorkBenchSandbox", "check"]
