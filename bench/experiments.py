"""The experiments behind docs/RESULTS.md, with the sizes they were run at, as `docschisel` commands.

    python bench/experiments.py --list                 # the steps and their commands
    python bench/experiments.py retrieval compare-api-bank   # run some steps (each resumable)
    python bench/experiments.py all                    # everything, then `make results`

Every step is a sequence of `docschisel` commands writing one warehouse file
under data/; every command is resumable (episodes, baseline runs, optimizer
tools and expansions are content-hashed), so re-running a step after a crash
or Ctrl-C finishes only what is missing. Steps can run side by side in two
shells (one core each: the local model runs one llama.cpp thread per process).

Sizes were chosen to finish on a 2-core machine with the offline SmolLM2-135M
(about 7 s per API-Bank episode and 10–20 s per WorkBench episode): API-Bank
is evaluated as upstream does, on the first API call of each dialogue, hence
`--max-steps 1` there; WorkBench tasks need a search before the action, hence
`--max-steps 4`.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time

API_BANK_DOMAINS = "finance,health,information,smart_home"

STEPS: dict[str, list[str]] = {
    # the original-docs baseline table (both paradigms, every domain)
    "baseline": ["python bench/baseline_local.py --warehouse data/baseline.duckdb"],
    # Tool-REX expansion (rules-only judge, then the local LLM judge) and retrieval with the ablation
    "retrieval": [
        "expand --benchmark api-bank --judge-model none -q",
        "expand --benchmark workbench --judge-model none -q",
        "retrieval eval --benchmark api-bank,workbench --docs original",
        "retrieval eval --benchmark api-bank,workbench --docs expanded --ablation",
        "expand --benchmark api-bank --judge-model local/smollm2-135m -q",
        "expand --benchmark workbench --judge-model local/smollm2-135m -q",
        "retrieval eval --benchmark api-bank,workbench --docs expanded --ablation",
    ],
    # OG / EasyTool / DRAFT / DocsChisel on API-Bank level-1, one tool per domain
    "compare-api-bank": [
        f"compare --benchmark api-bank --domain {API_BANK_DOMAINS} --limit-tools 1 --iterations 3 "
        "--max-steps 1 --opt-runs 3 --eval-runs 5 --limit 0 --curve-eval-runs 1"
    ],
    # the same four methods on WorkBench calendar (delete_event, the tool with the most tasks)
    "compare-workbench": [
        "compare --benchmark workbench --domain calendar --limit-tools 1 --iterations 2 --max-steps 4 "
        "--max-opt-tasks 4 --max-val-tasks 2 --opt-runs 3 --eval-runs 5 --limit 8 --no-memory-ablation "
        "--curve-eval-runs 0"
    ],
    # the field-impact study: one API-Bank and two WorkBench domains, both paradigms (in this order;
    # the results document shows the cells stored so far)
    "study": [
        "python bench/field_study.py --agent react --cells api-bank:finance --max-steps 1 --limit 4 "
        "--repeats 2 --warehouse data/study.duckdb",
        "python bench/field_study.py --agent multi --cells api-bank:finance --max-steps 1 --limit 4 "
        "--repeats 2 --warehouse data/study.duckdb",
        "python bench/field_study.py --agent react --cells workbench:calendar,workbench:email --limit 4 "
        "--repeats 2 --warehouse data/study.duckdb",
        "python bench/field_study.py --agent multi --cells workbench:calendar,workbench:email --limit 4 "
        "--repeats 2 --warehouse data/study.duckdb",
        # larger samples of some cells (each reuses the smaller study's episodes; results show the larger)
        "python bench/field_study.py --agent react --cells api-bank:finance --max-steps 1 --limit 12 "
        "--repeats 3 --warehouse data/study.duckdb",
        "python bench/field_study.py --agent multi --cells api-bank:finance --max-steps 1 --limit 12 "
        "--repeats 3 --warehouse data/study.duckdb",
        "python bench/field_study.py --agent react --cells workbench:calendar --limit 8 --repeats 3 "
        "--warehouse data/study.duckdb",
    ],
}
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
            print(f"{step}:")
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
