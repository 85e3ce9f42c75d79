"""Framework overhead per agent step: older commits against the working tree, in one run.

CPU time per step moves with the machine's load (other processes evict caches
and share the cores), so figures taken at different times do not compare.
This script checks each baseline commit out into a `git worktree` under the
temporary directory and runs `bench/agent_overhead.py` alternately in every
tree — baselines and the working tree, round after round, with the same
interpreter and packages — then prints the median ms of CPU per step per
paradigm for each tree, with the load average seen during its runs.

    python bench/overhead_compare.py [--episodes 40] [--rounds 3] [--ref bd2bb73^ --ref e25960b]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(\w+/\w+)\s+([\d.]+) ms wall,\s+([\d.]+) ms CPU per agent step")
DEFAULT_REFS = ("bd2bb73^", "e25960b")  # before the Arrow insert path; the start of this round of work


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def worktree(ref: str) -> tuple[str, Path]:
    """A detached checkout of `ref` under the temporary directory (reused when present)."""
    sha = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    path = Path(tempfile.gettempdir()) / f"docschisel-overhead-{sha[:12]}"
    if not (path / "bench" / "agent_overhead.py").exists():
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False, capture_output=True)
        git("worktree", "add", "--detach", "--force", str(path), sha)
    return sha[:9], path


def measure(tree: Path, episodes: int, steps: int) -> tuple[dict[str, float], float]:
    """CPU ms per step by paradigm from one run of the tree's own bench, and the 1-minute load after it."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "bench/agent_overhead.py", "--episodes", str(episodes), "--steps", str(steps)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"bench failed in {tree}:\n{out.stdout}\n{out.stderr[-3000:]}")
    figures = {}
    for line in out.stdout.splitlines():
        m = LINE.match(line.strip())
        if m:
            figures[m.group(1)] = float(m.group(3))
    return figures, os.getloadavg()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=40)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--ref", action="append", help=f"baseline commit (repeatable; default {' '.join(DEFAULT_REFS)})"
    )
    args = ap.parse_args()

    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    trees = [
        (f"{label} ({ref})", path) for ref in args.ref or DEFAULT_REFS for label, path in [worktree(ref)]
    ]
    trees.append((f"{git('rev-parse', '--short=9', 'HEAD')} (working tree{dirty})", ROOT))
    print(
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; "
        f"{args.rounds} rounds × {len(trees)} trees, {args.episodes} episodes of {args.steps} tool steps",
        flush=True,
    )

    runs: dict[str, list[tuple[dict[str, float], float]]] = {name: [] for name, _ in trees}
    for r in range(args.rounds):
        for name, path in trees:
            figures, load = measure(path, args.episodes, args.steps)
            runs[name].append((figures, load))
            shown = "  ".join(f"{k} {v:5.1f}" for k, v in figures.items())
            print(f"round {r + 1}  {name:<48} {shown}  ms CPU/step   load {load:.1f}", flush=True)

    paradigms = list(dict.fromkeys(k for rs in runs.values() for figures, _ in rs for k in figures))
    print("\nmedian ms of CPU per agent step (target < 10)")
    print(f"{'tree':<48} " + " ".join(f"{p:>13}" for p in paradigms) + "   load avg (min–max)")
    for name, rs in runs.items():
        cells = []
        for p in paradigms:
            values = [figures[p] for figures, _ in rs if p in figures]
            cells.append(f"{statistics.median(values):13.1f}" if values else f"{'–':>13}")
        loads = [load for _, load in rs]
        print(
            f"{name:<48} "
            + " ".join(cells)
            + f"   {statistics.mean(loads):.1f} ({min(loads):.1f}–{max(loads):.1f})"
        )


if __name__ == "__main__":
    main()
