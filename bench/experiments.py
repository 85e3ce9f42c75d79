"""The experiments behind docs/RESULTS.md, with the sizes they were run at, as `docschisel` commands.

    python bench/experiments.py --list                 # the steps and their commands
    python bench/experiments.py retrieval compare-api-bank   # run some steps (each resumable)
    python bench/experiments.py all                    # everything, then `make results`

Every step is a sequence of `docschisel` commands writing one warehouse file
under data/; every command is resumable (episodes, baseline runs, optimizer
tools and expansions are content-hashed), so re-running a step after a crash
or Ctrl-C finishes only what is missing. Steps can run side by side in two
shells (one core each: the local model runs one llama.cpp thread per process).

Sizes are planned for this 2-core machine: per step, the planned episode
count and the expected hours (one local-model process per core, one llama.cpp
thread each; measured seconds per episode from the backbone table in
docs/RESULTS.md: SmolLM2 ~3 s, Qwen 0.5B ~7 s, Qwen 1.5B ~12 s per API-Bank
episode; WorkBench episodes take up to four calls). API-Bank is evaluated as
upstream does, on the first API call of each dialogue, hence `--max-steps 1`
there; WorkBench tasks need a lookup before the action, hence `--max-steps 4`.
Steps without a model name use the project default (Qwen2.5-Coder-0.5B as the
target agent, 1.5B as the optimizer model).
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time

API_BANK_DOMAINS = "finance,health,information,smart_home"
Q05, Q15, SMOL = "local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-1.5b", "local/smollm2-135m"


def _study(model: str, cell: str, limit: int, repeats: int) -> str:
    steps = 1 if cell.startswith("api-bank") else 4
    return (
        f"python bench/field_study.py --agent react --model {model} --cells {cell} --max-steps {steps} "
        f"--limit {limit} --repeats {repeats} --warehouse data/study-backbones.duckdb"
    )


# step -> (planned episodes, expected hours on 2 cores, commands)
PLAN: dict[str, tuple[int, float, list[str]]] = {
    # speed, memory and API-Bank level-1 accuracy of every installed local model (195 samples each)
    "backbones": (585, 1.3, ["python bench/local_model.py --warehouse data/bench-local.duckdb"]),
    # the original-docs baseline table: every domain, both paradigms, the default backbone
    # (API-Bank: the whole test split, 78 tasks; WorkBench: 20 tasks per domain)
    "baseline": (
        396,
        2.5,
        ["python bench/baseline_local.py --limit-workbench 20 --warehouse data/baseline.duckdb"],
    ),
    # field impact by backbone (Fig. 1's backbone panel): ReAct, 12 test tasks x 3 repeats per cell,
    # ~16 doc sets (original + one variant per applicable field) -> ~576 episodes per cell
    "study-backbones": (
        2880,
        5.5,
        [
            _study(Q05, "api-bank:finance", 12, 3),
            _study(SMOL, "api-bank:finance", 12, 3),
            _study(Q15, "api-bank:finance", 12, 3),
            _study(SMOL, "workbench:analytics", 12, 3),
            _study(Q05, "workbench:analytics", 12, 3),
        ],
    ),
    # Tool-REX expansion (rules-only judge, then the local LLM judge) and retrieval with the ablation
    "retrieval": (
        0,
        1.0,
        [
            "expand --benchmark api-bank --judge-model none -q",
            "expand --benchmark workbench --judge-model none -q",
            "retrieval eval --benchmark api-bank,workbench --docs original",
            "retrieval eval --benchmark api-bank,workbench --docs expanded --ablation",
            f"expand --benchmark api-bank --judge-model {Q15} -q",
            f"expand --benchmark workbench --judge-model {Q15} -q",
            "retrieval eval --benchmark api-bank,workbench --docs expanded --ablation",
        ],
    ),
    # OG / EasyTool / DRAFT / DocsChisel on API-Bank level-1, one tool per domain
    "compare-api-bank": (
        1600,
        3.0,
        [
            f"compare --benchmark api-bank --domain {API_BANK_DOMAINS} --limit-tools 1 --iterations 3 "
            "--max-steps 1 --opt-runs 3 --eval-runs 5 --limit 0 --curve-eval-runs 1"
        ],
    ),
    # the same four methods on WorkBench calendar (delete_event, the tool with the most tasks)
    "compare-workbench": (
        700,
        4.0,
        [
            "compare --benchmark workbench --domain calendar --limit-tools 1 --iterations 2 --max-steps 4 "
            "--max-opt-tasks 4 --max-val-tasks 2 --opt-runs 3 --eval-runs 5 --limit 8 --no-memory-ablation "
            "--curve-eval-runs 0"
        ],
    ),
}
STEPS: dict[str, list[str]] = {k: v[2] for k, v in PLAN.items()}
WAREHOUSE = {
    "retrieval": "data/retrieval.duckdb",
    "compare-api-bank": "data/chisel.duckdb",
    "compare-workbench": "data/chisel-workbench.duckdb",
}


def commands(step: str) -> list[list[str]]:
    """Full argv of each command of a step (docschisel commands get the step's warehouse)."""
    out = []
    for line in STEPS[step]:
        argv = shlex.split(line)
        if argv[0] == "python":
            out.append([sys.executable, *argv[1:]])
        else:
            out.append([sys.executable, "-m", "core.cli.main", *argv, "--warehouse", WAREHOUSE[step]])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("steps", nargs="*", help=f"some of: {', '.join(STEPS)}, or all")
    ap.add_argument("--list", action="store_true", help="print the steps and their commands")
    args = ap.parse_args(argv)
    if args.list or not args.steps:
        for step in STEPS:
            episodes, hours = PLAN[step][:2]
            print(f"{step}: ~{episodes} episodes, ~{hours:g} h on 2 cores")
            for line, cmd in zip(STEPS[step], commands(step), strict=True):
                print(
                    "   ", line if line.startswith("python") else f"docschisel {line} --warehouse {cmd[-1]}"
                )
        return 0
    chosen = list(STEPS) if args.steps == ["all"] else args.steps
    unknown = [s for s in chosen if s not in STEPS]
    if unknown:
        ap.error(f"unknown step(s) {unknown}; steps are {', '.join(STEPS)}")
    for step in chosen:
        for cmd in commands(step):
            t0 = time.time()
            print(f"{time.strftime('%H:%M:%S')} [{step}] {' '.join(cmd[1:])}", flush=True)
            done = subprocess.run(cmd)
            if done.returncode != 0:
                print(f"[{step}] failed with exit code {done.returncode}", file=sys.stderr)
                return done.returncode
            print(f"[{step}] {time.time() - t0:.0f} s", flush=True)
    if args.steps == ["all"]:
        return subprocess.run(["make", "results"]).returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
