"""Original-documentation baseline with the offline local model, both paradigms.

For every API-Bank level-1 domain and every WorkBench domain, runs the
test-split tasks (all of them for API-Bank, a seeded sample per WorkBench
domain) with `docschisel eval` (resumable: re-run the script to finish an
interrupted sweep), then says how to regenerate docs/RESULTS.md.

    python bench/baseline_local.py [--model local/qwen2.5-coder-0.5b] [--limit-api-bank 0] [--limit-workbench 20]
                                   [--warehouse data/baseline.duckdb] [--shard I/N]

`--shard I/N` runs every N-th (benchmark, domain, paradigm) job starting at
I, so N processes (one per core) share the sweep: `--shard 0/2` and
`--shard 1/2` side by side. Episodes already stored are reused either way.

API-Bank is scored on the first API call of each sample (as upstream), so it
runs with one step; WorkBench tasks need a lookup before the action, hence
`--max-steps` (default 4) there.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.benchmarks.apibank.samples import DOMAINS as API_BANK_DOMAINS  # noqa: E402
from core.benchmarks.workbench.tasks import TASK_FILES as WORKBENCH_DOMAINS  # noqa: E402

PLAN = [("api-bank", list(API_BANK_DOMAINS)), ("workbench", list(WORKBENCH_DOMAINS))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--limit-api-bank", type=int, default=0, help="tasks per domain; 0 = the whole test split"
    )
    ap.add_argument("--limit-workbench", type=int, default=20, help="seeded sample per domain; 0 = all")
    ap.add_argument("--warehouse", default=None)
    ap.add_argument("--paradigms", default="react,multi")
    ap.add_argument("--max-steps", type=int, default=4, help="WorkBench step limit (API-Bank: 1)")
    ap.add_argument("--model", default=None, help="target agent model (default: the project default)")
    ap.add_argument("--shard", default="0/1", help="I/N: run every N-th job from the I-th (0-based)")
    args = ap.parse_args()
    try:
        index, count = (int(x) for x in args.shard.split("/"))
        if not 0 <= index < count:
            raise ValueError
    except ValueError:
        ap.error(f"--shard must be I/N with 0 <= I < N, not {args.shard!r}")
    wh = ["--warehouse", args.warehouse] if args.warehouse else []
    jobs = [
        (bench, domain, paradigm)
        for bench, domains in PLAN
        for domain in domains
        for paradigm in args.paradigms.split(",")
    ]
    for bench, domain, paradigm in jobs[index::count]:
        limit = args.limit_api_bank if bench == "api-bank" else args.limit_workbench
        cmd = [
            sys.executable,
            "-m",
            "core.cli.main",
            "eval",
            "--benchmark",
            bench,
            "--domain",
            domain,
            "--agent",
            paradigm,
            "--split",
            "test",
            *(["--limit", str(limit)] if limit else []),
            "--concurrency",
            "1",
            "--max-steps",
            "1" if bench == "api-bank" else str(args.max_steps),
            *(["--model", args.model] if args.model else []),
            *wh,
        ]
        t0 = time.time()
        out = subprocess.run(cmd, capture_output=True, text=True)
        last = [ln for ln in out.stdout.splitlines() if ln.startswith("run ")]
        print(
            f"{bench:<10} {domain:<30} {paradigm:<6} {time.time() - t0:7.1f}s  "
            f"{last[0] if last else out.stderr.strip().splitlines()[-1:]}",
            flush=True,
        )
    print("regenerate docs/RESULTS.md with: docschisel results --also <this warehouse> ...", flush=True)


if __name__ == "__main__":
    main()
