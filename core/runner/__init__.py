"""Running agents on benchmarks at scale: episodes, resumable runs, metrics."""

from core.runner.infra import RunAborted
from core.runner.metrics import Metrics, compute_metrics
from core.runner.runner import RunPlan, RunResult, run

__all__ = ["Metrics", "RunAborted", "RunPlan", "RunResult", "compute_metrics", "run"]
