"""API-Bank level 1 ("Call") re-implemented from its behavioural specification.

Domains (task ids <- labels of derived/api_docs.json, from upstream all_apis.csv):
`finance` <- finance management, `health` <- health management, `information` <-
information query & processing, `smart_home` <- smart home control. GetUserToken
(account management) and CheckToken (meta/tooling) form the `account` group the
finance dialogues depend on; a task's domain is its dialogue's domain, so the
GetUserToken samples count under `finance`.
"""

from core.benchmarks.apibank.benchmark import ApiBank, ApiBankSandbox, gold_call, replay_history
from core.benchmarks.apibank.check import CheckReport, check
from core.benchmarks.apibank.samples import DOMAIN_IDS, DOMAINS
from core.benchmarks.apibank.session import REGISTRY, CallLayerError, Session
from core.benchmarks.apibank.textcall import extract_request, parse_api_request, render_request

__all__ = [
    "DOMAINS",
    "DOMAIN_IDS",
    "REGISTRY",
    "ApiBank",
    "ApiBankSandbox",
    "CallLayerError",
    "CheckReport",
    "Session",
    "check",
    "extract_request",
    "gold_call",
    "parse_api_request",
    "render_request",
    "replay_history",
]
