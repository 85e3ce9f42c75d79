"""Failures that are not the agent's doing, told apart from those that are.

Why: an episode is a measurement of the agent. A missing model, a rejected API
key, a provider down after every retry or a sandbox that could not start
measure nothing, yet stored as an `agent_error` they count as failures in TS/TC
and — being finished episodes — are reused forever, even after the cause is
fixed. So the runner asks `classify` about every exception that ends an
episode:

- fatal (nothing will work until someone acts: the model is not installed,
  the key is wrong, the model does not exist): the run stops with the message;
- transient (an outage after retries, a sandbox that did not start): the
  attempt is recorded in `infra_failures`, not as an episode; TS/TC never see
  it and the next run of the same command runs the episode again.

Everything else (parse errors, wrong calls, step limits, an agent's own bug,
a local model's own errors) stays the agent's failure, stored and reused as
before.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from core.benchmarks.base import InfrastructureError
from core.llm.gateway import IN_PROCESS, provider_of
from core.redaction import redact


class RunAborted(RuntimeError):
    """A run stopped because of a fatal infrastructure failure; the message says what to fix."""


@dataclass(frozen=True)
class InfraFailure:
    """One episode attempt that failed outside the agent (what the runner gets instead of an episode)."""

    episode_id: str
    benchmark: str
    task_id: str
    repeat: int
    model: str
    error_class: str
    error: str
    fatal: bool

    def row(self, run_id: str) -> dict[str, object]:
        return {
            "episode_id": self.episode_id,
            "run_id": run_id,
            "benchmark": self.benchmark,
            "task_id": self.task_id,
            "repeat": self.repeat,
            "model": self.model,
            "error_class": self.error_class,
            "error": self.error,
        }


def classify(exc: BaseException, model: str) -> InfrastructureError | None:
    """The infrastructure failure `exc` stands for when the episode ran `model`, else None."""
    if isinstance(exc, InfrastructureError):
        return exc
    from core.llm.weights import LocalModelUnavailable

    if isinstance(exc, LocalModelUnavailable):
        return InfrastructureError(f"model {model} is not available: {exc}", "infra_model", fatal=True)
    litellm = sys.modules.get("litellm")  # an exception of litellm means litellm is imported
    if litellm is None:
        return None
    text = _short(exc)
    hosted = provider_of(model) not in IN_PROCESS
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return InfrastructureError(
            f"the provider rejected the credentials for {model}: {text}. Check the API key in the "
            "environment (e.g. OPENAI_API_KEY).",
            "infra_auth",
            fatal=True,
        )
    if hosted and isinstance(exc, litellm.NotFoundError):
        return InfrastructureError(
            f"model {model} was not found by its provider: {text}", "infra_model", fatal=True
        )
    server = (litellm.RateLimitError, litellm.ServiceUnavailableError, litellm.InternalServerError)
    if isinstance(exc, server) or (hosted and isinstance(exc, litellm.Timeout | litellm.APIConnectionError)):
        return InfrastructureError(f"provider failure for {model} after retries: {text}", "infra_provider")
    return None


def _short(exc: BaseException) -> str:
    return str(redact(f"{type(exc).__name__}: {str(exc)[:300]}"))
