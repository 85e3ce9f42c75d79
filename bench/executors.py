"""What running episodes on Ray costs and gives, against the local executor, measured in one run.

1. Overhead: a zero-latency scripted model (one tool call, then an answer) on
   a tiny in-memory benchmark, one episode at a time, through the real
   gateway, runner and warehouse. Prints milliseconds per episode for the
   local executor and for one Ray actor, and the difference (target: under
   20 ms added per episode). Model calls in the worker read the driver's
   cache through the relay, as they do in real runs.
2. Throughput: the offline local model (default SmolLM2-135M) on the same
   benchmark: episodes per minute with the local executor and with 1 and 2
   Ray actors, each as a ratio to local. Each variant has its own warehouse
   (no cache hits between them) and a warm-up run first (actor start, model
   load), which is not counted.

Ray runs as a local instance on loopback. The load average is printed: on a
shared machine the throughput ratios say more about the other processes than
about Ray.

    python bench/executors.py [--episodes 60] [--local-episodes 4] [--max-actors 2] [--model local/smollm2-135m]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.agents import AgentConfig  # noqa: E402
from core.llm import Gateway, script, tool_call, using  # noqa: E402
from core.runner import RunPlan, run  # noqa: E402
from core.runner.executors import Executor, LocalExecutor  # noqa: E402
from core.runner.executors.on_ray import RayExecutor  # noqa: E402
from core.warehouse import Warehouse  # noqa: E402
from tests.toybench import ToyBench  # noqa: E402


def reply(messages):
    """Zero latency: add the task's number, then answer."""
    if any(m.get("role") == "tool" for m in messages):
        return "done"
    query = next(m["content"] for m in messages if m["role"] == "user")
    return tool_call("math__add", x=int(query.split()[-1]))


def timed(
    wh: Warehouse, executor: Executor, bench: ToyBench, config: AgentConfig, n: int, concurrency: int
) -> float:
    """Seconds to run the first `n` tasks of `bench` once with `config` on `executor`."""
    plan = RunPlan(bench, bench.original_docs(), config, bench.tasks()[:n])
    with using(Gateway.for_warehouse(wh)):
        start = time.perf_counter()
        res = run(wh, plan, concurrency=concurrency, executor=executor)
        took = time.perf_counter() - start
    if res.ran != n:
        raise SystemExit(f"expected {n} new episodes, ran {res.ran}")
    calls, hits = wh.rows(
        "SELECT count(*), count(*) FILTER (WHERE cache_hit) FROM events JOIN run_episodes r USING (episode_id) "
        "WHERE r.run_id = ? AND kind = 'model_call'",
        [res.run_id],
    )[0]
    if hits:  # a cached reply measures the cache, not the executor
        raise SystemExit(f"{hits} of {calls} model calls of {res.run_id} were cache hits")
    return took


def measure(
    tmp: Path, label: str, executor: Executor, model: str, episodes: int, concurrency: int, warm: int
) -> float:
    """Seconds for `episodes` episodes after a warm-up of `warm` episodes (another seed: new episodes).

    The same benchmark object serves both, so the warm-up's actors (and their loaded model) run the
    measured episodes.
    """
    wh = Warehouse(tmp / f"{label}.duckdb")
    bench = ToyBench(n=max(episodes, warm))
    timed(wh, executor, bench, AgentConfig(model=model, max_steps=3, seed=99), warm, concurrency)
    return timed(wh, executor, bench, AgentConfig(model=model, max_steps=3), episodes, concurrency)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=60, help="scripted episodes per executor")
    ap.add_argument("--local-episodes", type=int, default=4, help="local-model episodes per executor")
    ap.add_argument("--max-actors", type=int, default=2, choices=(0, 1, 2), help="0 skips the local model")
    ap.add_argument("--model", default="local/smollm2-135m")
    args = ap.parse_args()

    import ray

    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    if load[0] > 0.5 * (os.cpu_count() or 1):
        print("  the machine is loaded by other processes: read the numbers as this machine today, not Ray")

    scripted = script(reply, name="bench-executors").model
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        print(f"\n1. overhead, zero-latency scripted model, {args.episodes} episodes one at a time")
        local_s = measure(tmp, "overhead-local", LocalExecutor(), scripted, args.episodes, 1, warm=4)
        one = RayExecutor(actors=1)
        ray_s = measure(tmp, "overhead-ray", one, scripted, args.episodes, 1, warm=4)
        one.shutdown()
        per_local, per_ray = 1000 * local_s / args.episodes, 1000 * ray_s / args.episodes
        verdict = "meets" if per_ray - per_local < 20 else "misses"
        print(f"   local  {per_local:7.1f} ms/episode")
        print(f"   ray    {per_ray:7.1f} ms/episode (1 actor)")
        print(f"   added  {per_ray - per_local:7.1f} ms/episode ({verdict} the 20 ms target)")

        if args.max_actors:
            n = args.local_episodes
            print(f"\n2. throughput, {args.model}, {n} episodes per executor")
            base = measure(tmp, "model-local", LocalExecutor(), args.model, n, 1, warm=1)
            print(f"   local     {60 * n / base:6.2f} episodes/min  ratio 1.00")
            for actors in range(1, args.max_actors + 1):
                ex = RayExecutor(actors=actors)
                took = measure(tmp, f"model-ray{actors}", ex, args.model, n, actors, warm=actors)
                ex.shutdown()
                print(f"   ray × {actors}   {60 * n / took:6.2f} episodes/min  ratio {base / took:.2f}")
    ray.shutdown()


if __name__ == "__main__":
    main()
