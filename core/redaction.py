"""Secret redaction: the one filter every text passes before it is written to the warehouse.

Why one layer. Keys leak through paths nobody plans for: a provider error that
echoes the key it was given, a tool observation that prints the environment, a
traceback in a job log. Redacting at each producer misses the next one, so the
warehouse's single write path (`core.warehouse.store.insert_rows`) runs every
string cell through `Redactor.text`, and job logs pass it on their way to disk.

What is removed:
- the value of every environment variable whose name looks secret (`*KEY*`,
  `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, …) and is at least 8
  characters long: the configured provider keys, whatever their shape;
- text shaped like a well-known key even when it is not in this environment
  (OpenAI / Anthropic `sk-…`, AWS access key ids, GitHub, Slack, Google, Hugging
  Face and Groq tokens, `Bearer …` headers, PEM private keys).

What is not: generic `password=…` pairs. Benchmarks are full of fake
credentials that are task data (API-Bank's `GetUserToken(password=…)`), and
rewriting them would corrupt stored traces.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MARK = "[redacted]"
MIN_SECRET_LEN = 8
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|AUTH)", re.IGNORECASE)
# Names that match SECRET_NAME but never hold a secret (their values are paths or switches).
NOT_SECRET = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "KEYTIMEOUT", "XAUTHORITY"})

KEY_SHAPES = re.compile(
    "|".join(
        (
            r"sk-(?:proj-|ant-(?:api\d{2}-)?|live-|test-)?[A-Za-z0-9_\-]{20,}",  # OpenAI, Anthropic, …
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
            r"\bgh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{30,}",
            r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",  # Slack
            r"\bAIza[0-9A-Za-z_\-]{35}",  # Google API keys
            r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face
            r"\bgsk_[A-Za-z0-9]{30,}",  # Groq
            r"(?i:bearer)\s+[A-Za-z0-9._\-~+/]{16,}=*",  # Authorization headers
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
        )
    )
)
# No key shape matches fewer characters (Slack's `xoxb-` and ten more): a shorter cell, and most
# cells are ids, kinds and numbers, skips the search. tests/test_sandbox.py checks the number.
SHORTEST_KEY_SHAPE = 15
# A literal that every match of each key shape contains, lower-cased (`Bearer` matches in any
# case). A cell holding none of them cannot match; looking for them is about twenty times
# faster than the pattern, which tries ten alternatives at every position of a long prompt.
KEY_ANCHORS = (
    "sk-",
    "akia",
    "asia",
    *(f"gh{c}_" for c in "pousr"),
    "github_pat_",
    *(f"xox{c}-" for c in "abprs"),
    "aiza",
    "hf_",
    "gsk_",
    "bearer",
    "-----begin ",
)


def may_hold_key_shape(value: str) -> bool:
    """False only when `value` cannot contain a key shape (too short, or none of KEY_ANCHORS)."""
    if len(value) < SHORTEST_KEY_SHAPE:
        return False
    low = value.lower()
    return any(a in low for a in KEY_ANCHORS)


def secret_env_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look secret, longest first."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if v and len(v) >= MIN_SECRET_LEN and is_secret_name(k)}
    return sorted(values, key=len, reverse=True)


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name is treated as a secret (remembered per name)."""
    return name not in NOT_SECRET and bool(SECRET_NAME.search(name))


@dataclass(frozen=True)
class Redactor:
    """Removes a fixed set of secret values and every key-shaped string from text.

    Build one per batch (`Redactor.from_env()`): reading the environment once
    per write, not once per cell, keeps bulk imports fast.
    """

    secrets: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, extra: Iterable[str] = ()) -> Redactor:
        values = set(secret_env_values(environ)) | {s for s in extra if s and len(s) >= MIN_SECRET_LEN}
        forms: set[str] = set()
        for v in values:
            forms.add(v)
            escaped = json.dumps(v)[1:-1]  # how the value reads inside JSON text
            if escaped != v:
                forms.add(escaped)
        return cls(tuple(sorted(forms, key=len, reverse=True)))

    def text(self, value: str) -> str:
        """`value` with every secret replaced by `[redacted]`."""
        for s in self.secrets:
            if s in value:
                value = value.replace(s, MARK)
        if may_hold_key_shape(value) and KEY_SHAPES.search(value):
            value = KEY_SHAPES.sub(MARK, value)
        return value

    def value(self, value: Any) -> Any:
        """Strings redacted; lists, tuples and dicts redacted inside; anything else as it is."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return type(value)(self.value(v) for v in value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value


def redact(value: Any) -> Any:
    """Redact with the current environment (for one-off texts; batches build a `Redactor`)."""
    return Redactor.from_env().value(value)
