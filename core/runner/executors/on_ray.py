"""The `ray` executor: episodes on long-lived actors of a Ray cluster, records back to the driver.

What moves over the network: the run's shared work (the benchmark's recipe
`source`, doc set, agent configuration, scripted models; once per run
through the object store; each actor builds a benchmark once and keeps it
for later runs), a task per episode, and
back the finished episode record with its accounting entries and new cache
rows. The warehouse never moves: the runner in this process writes what
comes back, in its usual batched transactions.

Faults. Actors restart without limit (`max_restarts=-1`); an episode whose
actor died is run again, up to `max_task_retries` times, once the restarted
actor answers, so a killed worker costs the episode's time, never a
duplicate (only the returned record is stored) nor a loss. The session does
those retries itself rather than through Ray's `max_task_retries`: Ray
fast-fails a task sent to an actor that is still restarting and counts that
as a try, so a restart slower than the retries (imports on a loaded
machine) lost the episode. An episode that kills its worker every time
comes back, after the retries, as a failed episode with the error class
`worker_lost`; so does one whose worker does not come back within
`RESTART_WAIT_S`. Cancel kills the run's actors: their episodes stop where
they are, are not stored and run again next time.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from core.benchmarks.base import Task
from core.benchmarks.registry import benchmark_key
from core.llm import current as current_gateway
from core.llm.keys import env_names_for
from core.redaction import is_secret_name
from core.runner.executors.base import EpisodeResult, EpisodeWork
from core.runner.executors.lost import lost_episode
from core.runner.executors.relay import CacheRelay, Pump
from core.runner.executors.worker import EpisodeActor, Shipped
from core.runner.infra import RunAborted

MAX_TASK_RETRIES = 2
# How long a restarted actor may take to answer again (a fresh process imports the project first).
RESTART_WAIT_S = 600.0
# What a worker inherits from the driver besides the models' keys: the project's settings.
_ENV_PREFIXES = ("DOCSCHISEL_", "LITELLM_", "HF_HUB_OFFLINE")
_ENV_DRIVER_ONLY = ("DOCSCHISEL_WAREHOUSE", "DOCSCHISEL_JOB_ID", "DOCSCHISEL_EXECUTOR")


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError("the ray executor needs Ray: pip install 'docschisel[ray]'") from exc
    return ray


class RayExecutor:
    """Runs episodes on actors of a Ray cluster (`address`: auto, ray://..., host:port, None = local)."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        cpus_per_actor: float = 1.0,
        max_task_retries: int = MAX_TASK_RETRIES,
        actors: int | None = None,
    ) -> None:
        self.address = address
        self.cpus_per_actor = cpus_per_actor
        self.max_task_retries = max_task_retries
        self.actors = actors  # fixed pool size; default: the run's concurrency (bounded by the cluster)
        self._pool: list[Any] = []
        self._pool_env: dict[str, str] = {}
        self._relay: Any = None
        self._pump: Pump | None = None
        self._lookup: Any = None
        self._lock = threading.Lock()

    def actor_env(self, model: str) -> dict[str, str]:
        """The environment of this executor's actors: `worker_env`, with llama.cpp threads set to the
        CPUs each actor reserves.

        The driver's `DOCSCHISEL_LOCAL_THREADS` sizes the models the driver runs itself (GEPA's
        reflection model, the LLM engine's optimizer) while its actors wait; actors given it too
        would spin against each other's threads on cores they did not reserve.
        """
        return {**worker_env(model), "DOCSCHISEL_LOCAL_THREADS": str(max(1, int(self.cpus_per_actor)))}

    # ------------------------------------------------------------------ cluster
    def connect(self) -> Any:
        ray = _ray()
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                # no cluster at that address: a setup the user can fix, not a bug
                where = self.address or "a new local instance"
                raise RunAborted(f"cannot reach the Ray cluster at {where}: {exc}") from exc
        return ray

    def open(self, work: EpisodeWork, concurrency: int) -> RaySession:
        ray = self.connect()
        gateway = current_gateway()
        self._lookup = gateway.cache.get  # the pump answers from this run's cache
        self._start_relay(ray)
        bench = work.benchmark
        source = getattr(bench, "source", None) or _shippable(bench)
        actors = self._actors(ray, self.actors or max(1, concurrency), self.actor_env(work.config.model))
        known = known_keys(gateway.cache, work.config.model)
        payload = (replace(work, benchmark=None), _scripts(work), source, benchmark_key(bench), known)
        return RaySession(self, work, actors, [ray.put(payload)])

    def _start_relay(self, ray: Any) -> None:
        with self._lock:
            if self._relay is None:
                relay_cls = ray.remote(num_cpus=0, max_concurrency=1000, max_restarts=-1)(CacheRelay)
                self._relay = relay_cls.remote()
            if self._pump is None or not self._pump.is_alive():
                self._pump = Pump(self._relay, lambda key: self._lookup(key) if self._lookup else None)
                self._pump.start()

    def _actors(self, ray: Any, wanted: int, env: dict[str, str]) -> list[Any]:
        """The pool grown to `wanted` actors (no more than the cluster's CPUs hold).

        Runs of one command share the pool: each actor keeps the benchmarks
        it built and a local model stays loaded in its process. A run that
        needs another environment (a hosted model's key) gets new actors.
        """
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        wanted = max(1, min(wanted, int(cpus // self.cpus_per_actor) or 1))
        # max_task_retries=0: the session retries a dead actor's episode itself (see the module doc)
        actor_cls = ray.remote(num_cpus=self.cpus_per_actor, max_restarts=-1, max_task_retries=0)(
            EpisodeActor
        )
        with self._lock:
            if env != self._pool_env:  # another model's key or other settings: actors start with the new ones
                for actor in self._pool:
                    ray.kill(actor, no_restart=True)
                self._pool, self._pool_env = [], env
            while len(self._pool) < wanted:
                options = {"runtime_env": {"env_vars": env}} if env else {}
                self._pool.append(actor_cls.options(**options).remote(self._relay))
            return self._pool[:wanted]

    def actor_pids(self) -> list[int]:
        """The worker processes of the pool (tests kill one to check fault handling)."""
        ray = self.connect()
        return [ray.get(a.pid.remote()) for a in self._pool]

    def kill_actors(self, actors: list[Any] | None = None) -> None:
        """Stop actors now (cancel), or every actor of this executor; later runs start fresh ones."""
        ray = _ray()
        with self._lock:
            doomed = self._pool if actors is None else actors
            for actor in doomed:
                ray.kill(actor, no_restart=True)
            self._pool = [a for a in self._pool if all(a is not d for d in doomed)]

    def shutdown(self) -> None:
        """Kill the actors and the relay (the cluster itself keeps running)."""
        if not _ray().is_initialized():
            return
        self.kill_actors()
        if self._pump is not None:
            self._pump.stop()
            self._pump = None
        if self._relay is not None:
            _ray().kill(self._relay, no_restart=True)
            self._relay = None


class RaySession:
    """One run on the executor's actors: one episode in flight per actor."""

    def __init__(self, executor: RayExecutor, work: EpisodeWork, actors: list[Any], box: list[Any]) -> None:
        self.executor = executor
        self.work = work
        self.actors = actors
        self.capacity = len(actors)
        self.id = uuid.uuid4().hex
        self._box = box
        self._busy = dict.fromkeys(range(len(actors)), 0)
        self._turn = itertools.count()
        self._lock = threading.Lock()
        self.aborted = False

    def submit(self, episode_id: str, task: Task, repeat: int) -> Future[EpisodeResult]:
        with self._lock:
            start = next(self._turn) % len(self.actors)
            order = sorted(
                range(len(self.actors)), key=lambda i: (self._busy[i], (i - start) % len(self.actors))
            )
            index = order[0]
            self._busy[index] += 1
        out = _Remote(self._accept)
        self._attempt(out, index, task, repeat, 1)
        return out

    def _attempt(self, out: _Remote, index: int, task: Task, repeat: int, tries: int) -> None:
        """Send the episode to actor `index`; its result, its retry or its loss ends in `out`.

        The actor's slot stays busy while a dead actor restarts, so no other
        episode is sent to it meanwhile.
        """
        ref = self.actors[index].run.remote(self.id, self._box, task, repeat)

        def done(fut: Future) -> None:
            try:
                shipped = fut.result()
            except BaseException as exc:  # noqa: BLE001 - handed to the runner through the future
                if _died(exc) and not self.aborted and tries <= self.executor.max_task_retries:
                    threading.Thread(
                        target=self._recover, args=(out, index, task, repeat, tries), daemon=True
                    ).start()
                    return
                self._release(index)
                lost = self._lost(exc, task, repeat, tries)
                if lost is not None:
                    out.set_result((lost, [], []))
                else:
                    out.set_exception(exc)
            else:
                self._release(index)
                out.set_result(shipped)

        ref.future().add_done_callback(done)

    def _recover(self, out: _Remote, index: int, task: Task, repeat: int, tries: int) -> None:
        """Wait until the restarted actor answers, then run the episode on it again."""
        ray = _ray()
        actor = self.actors[index]
        deadline = time.monotonic() + RESTART_WAIT_S
        while not self.aborted and time.monotonic() < deadline:
            try:
                ray.get(actor.pid.remote(), timeout=30)
            except Exception:  # noqa: BLE001 - still restarting (unavailable, timed out): ask again
                time.sleep(0.5)
                continue
            self._attempt(out, index, task, repeat, tries + 1)
            return
        self._release(index)
        if self.aborted:
            out.set_exception(RunAborted("the run was cancelled while its worker restarted"))
            return
        message = f"the worker running this episode died and did not come back within {RESTART_WAIT_S:.0f} s"
        out.set_result((lost_episode(self.work, task, repeat, message), [], []))

    def _release(self, index: int) -> None:
        with self._lock:
            self._busy[index] -= 1

    def _accept(self, shipped: Shipped) -> EpisodeResult:
        """Book a finished episode's accounting and new cache rows in the driver, then hand it over.

        This runs in the runner's thread when it reads the result, so the
        entries join the runner's next batched transaction.
        """
        result, entries, rows = shipped
        gateway = current_gateway()
        for entry in entries:
            gateway.ledger.record(entry)
        for row in rows:
            gateway.cache.put(**row)
        return result

    def _lost(self, exc: BaseException, task: Task, repeat: int, tries: int) -> EpisodeResult | None:
        """The episode record for a task whose worker died on every try (None: another error)."""
        if self.aborted or not _died(exc):
            return None
        return lost_episode(
            self.work, task, repeat, f"the worker running this episode died {tries} times: {exc}"[:500]
        )

    def abort(self) -> bool:
        if not self.aborted:
            self.aborted = True
            self.executor.kill_actors(self.actors)
        return True

    def close(self) -> None:
        self._box.clear()  # the run's shared work can leave the object store


def _died(exc: BaseException) -> bool:
    """Whether `exc` says the episode's worker process died (or restarts), not that the episode failed."""
    from ray.exceptions import RayActorError, WorkerCrashedError

    return isinstance(exc, RayActorError | WorkerCrashedError)


def worker_env(*models: str) -> dict[str, str]:
    """What a worker gets from the driver's environment: project settings and the models' keys, by name."""
    out = {
        k: v
        for k, v in os.environ.items()
        if k.startswith(_ENV_PREFIXES) and k not in _ENV_DRIVER_ONLY and not is_secret_name(k)
    }
    for name in env_names_for(models):
        if name in os.environ:
            out[name] = os.environ[name]
    return out


def known_keys(cache: Any, model: str) -> frozenset[str] | None:
    """The keys the driver's cache holds for `model` (None: unknown, so workers ask about every key).

    Shipped to the workers once per run: a key outside the set is a miss
    without a round trip to the driver, so the relay only carries lookups
    that can hit.
    """
    warehouse = getattr(cache, "warehouse", None)
    try:
        if warehouse is not None:
            return frozenset(
                r[0] for r in warehouse.rows("SELECT key FROM llm_cache WHERE model = ?", [model])
            )
        rows = getattr(cache, "rows", None)
        if callable(rows):
            return frozenset(r["key"] for r in rows() if r.get("model") == model)
    except Exception:  # noqa: BLE001 - without the key set workers simply ask about every key
        return None
    return None


def _scripts(work: EpisodeWork) -> list[tuple[str, Any, str]]:
    """The scripted models the run's configuration names, to register on the workers."""
    models = [v for v in work.config.to_json().values() if isinstance(v, str) and v.startswith("scripted/")]
    if not models:
        return []
    from core.llm.scripted import SCRIPTED

    out = []
    for model in models:
        sm = SCRIPTED.scripts.get(model.split("/", 1)[1])
        if sm is not None:
            out.append((sm.name, sm.replies, sm.salt))
    return out


def _shippable(bench: Any) -> Any:
    """A benchmark without a registry recipe travels whole, if it can be pickled."""
    import cloudpickle

    try:
        cloudpickle.dumps(bench)
    except Exception as exc:
        raise RuntimeError(
            f"benchmark {getattr(bench, 'name', bench)!r} cannot run on Ray: it has no `source` recipe "
            f"(core.benchmarks.registry.get_benchmark gives one) and cannot be pickled ({exc})"
        ) from exc
    return bench


class _Remote(Future):
    """A future of a shipped episode whose `result()` books it in the driver once, in the reader's thread."""

    def __init__(self, accept: Any) -> None:
        super().__init__()
        self._accept = accept
        self._booked: tuple[EpisodeResult] | None = None

    def result(self, timeout: float | None = None) -> EpisodeResult:
        if self._booked is None:
            self._booked = (self._accept(super().result(timeout)),)
        return self._booked[0]
