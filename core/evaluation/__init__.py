"""The evaluation seam every optimizer uses: run docs on tasks, get typed traces and scores back.

    evaluator = RunnerEvaluator(warehouse, bench, agent_config, repeats=3)
    batch = evaluator.evaluate(docset, tasks, "val")
    batch.ts, batch.tc, batch.passing(), batch.failed(), batch.traces[0].steps[0].tool

DocsChisel, the baselines that execute tools, GEPA and EvoSOP call
`evaluate(docset, tasks, part) -> EvalBatch` and never touch the runner or the
warehouse's SQL themselves. `RunnerEvaluator` is backed by the runner (so
episodes are content-hashed, stored once and reused) and by the warehouse's
read queries; tests can pass any object with the same method.
"""

from core.evaluation.batch import EvalBatch, credit, passing, success_rate
from core.evaluation.evaluator import Evaluator, RunnerEvaluator
from core.evaluation.traces import Step, Trace, error_output_check, mark_error_outputs

__all__ = [
    "EvalBatch",
    "Evaluator",
    "RunnerEvaluator",
    "Step",
    "Trace",
    "credit",
    "error_output_check",
    "mark_error_outputs",
    "passing",
    "success_rate",
]
