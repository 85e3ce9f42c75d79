"""Running agents on benchmarks at scale: episodes, resumable runs, metrics."""

from core.runner.metrics import Metrics, compute_metrics
from core.runner.runner import RunPlan, RunResult, run

__all__ = ["Metrics", "RunPlan", "RunResult", "compute_metrics", "run"]
