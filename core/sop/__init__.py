"""EvoSOP: higher-order tools ("SOPs") synthesised from agent trajectories and kept lean.

Constructor (`composer` offline, `llm` through the gateway) -> Merger (`merge`)
-> Evaluator (`evolve`, through the evaluation seam, with `bench.SopBenchmark`)
-> Reviewer (`review`) -> checkpoints (`store`). SOP code is generated text: it
is parsed with `ast` here (`validate`) and runs only in a limited worker
process (`worker`, `executor`); see docs/sop.md.

This package's `__init__` imports nothing on purpose: the worker process
imports `core.sop.sopapi` and must stay on the standard library.
"""
