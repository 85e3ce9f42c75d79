"""Time the import of the 5,520 recorded WorkBench rows: parse + score, then the warehouse write.

Usage: python bench/import_workbench.py [--data-dir DIR] [--warehouse FILE]
Without --warehouse a temporary file is used and removed afterwards. The first
registration of a doc set counts doc tokens and so imports litellm, which is
reported inside "registering".
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from core.benchmarks.workbench import WorkBench
from core.benchmarks.workbench.importer import (
    import_workbench_results,
    iter_recorded_episodes,
    label_agreement,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--warehouse", default=None)
    args = ap.parse_args()

    t0, c0 = time.perf_counter(), time.process_time()
    bench = WorkBench(args.data_dir, variant="all")
    pairs = list(iter_recorded_episodes(benchmark=bench))
    t_parse, c_parse = time.perf_counter() - t0, time.process_time() - c0
    report = label_agreement([e for e, _ in pairs], args.data_dir)
    print(
        f"parse+score: {len(pairs)} episodes, {sum(len(e) for _, e in pairs)} events in {t_parse:.1f} s "
        f"(CPU {c_parse:.1f} s; wall time exceeds CPU time when other processes share the cores)"
    )
    print(f"label agreement: {report['agree']}/{report['rows']} ({report['agreement']:.2%})")
    for run, r in report["per_run"].items():
        print(
            f"  {run:22s} accuracy {r['accuracy_ours']:.1%} (ref {r['accuracy_ref']:.1%})  "
            f"side effects {r['side_effects_ours']:.1%} (ref {r['side_effects_ref']:.1%})  agreement {r['agreement']:.1%}"
        )
    for m in report["mismatches"][:20]:
        print("  mismatch:", json.dumps(m, default=str)[:300])

    from core.warehouse import Warehouse

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.warehouse) if args.warehouse else Path(tmp) / "bench.duckdb"
        t1, c1 = time.perf_counter(), time.process_time()
        summary = import_workbench_results(Warehouse(path), args.data_dir)
        total, cpu = time.perf_counter() - t1, time.process_time() - c1
        print(
            f"import into {path.name}: {summary['written']} new episodes, {summary['events']} events; "
            f"parse+score {summary['parse_score_s']:.1f} s, registering benchmark/docs/tasks/runs "
            f"{summary['catalogue_s']:.1f} s, episode write {summary['episodes_write_s']:.1f} s, "
            f"total with warehouse write {total:.1f} s (CPU {cpu:.1f} s)"
        )


if __name__ == "__main__":
    main()
