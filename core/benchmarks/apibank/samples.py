"""Level-1 samples: dialogues -> (history, gold call), statuses and repairs.

A dialogue file yields, for every API turn, a call sample (history before the
turn, gold = the turn) and a reply sample (history up to the turn, gold = the
next turn), numbered per file in emission order (SPEC 4.2). Only samples whose
gold is an API turn are level-1 call samples; a reply sample whose next turn is
again an API turn duplicates the following call sample.

`derived/level1_sample_status.csv` decides what is kept: in-scope dialogues
with status `usable` or `repair`. Repairs follow SPEC section 6 and are applied
to the gold here (QueryScene, SendEmail) or by the sandbox (list parsing for
RecordHealthData, replay with id pinning for QueryRegistration).
"""

from __future__ import annotations

import copy
import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.benchmarks.apibank.session import REGISTRY
from core.benchmarks.apibank.textcall import render_request

DOMAINS: tuple[str, ...] = ("finance", "health", "information", "smart_home")
# Domain labels of derived/api_docs.json (from all_apis.csv) -> short task-domain ids.
DOMAIN_IDS: dict[str, str] = {
    "finance management": "finance",
    "health management": "health",
    "information query & processing": "information",
    "smart home control": "smart_home",
    "account management": "account",
    "meta/tooling": "account",
}

SAMPLES_DIR = Path("api-bank/lv1-lv2-samples/level-1-given-desc")
STATUS_CSV = Path("derived/level1_sample_status.csv")
LEVEL1_TEST = Path("api-bank/test-data/level-1-api.json")

# SendEmail-level-1-1 id 0: the generator cut the content at an apostrophe (SPEC 6).
_RESTORED_CONTENT = {("SendEmail-level-1-1.jsonl", 0): "Don't forget our meeting tomorrow at 2pm."}


@dataclass(frozen=True)
class Sample:
    """One level-1 call sample after repair."""

    file: str
    sample_id: int
    history: tuple[dict[str, Any], ...]
    gold: dict[str, Any]  # the gold API turn: api_name, param_dict (text values), result
    status: str  # usable | repair
    repair: str | None  # kind of repair, None when usable as-is
    duplicate_of: int | None
    domain: str  # the dialogue's domain (one of DOMAINS)
    gold_domain: str  # the gold API's own domain (DOMAINS or "account")
    visible_apis: tuple[str, ...]  # the APIs upstream shows with this sample (B12)

    @property
    def task_id(self) -> str:
        return f"{self.file.removesuffix('.jsonl')}#{self.sample_id}"


@dataclass(frozen=True)
class Dropped:
    file: str
    sample_id: int
    gold_api: str
    reason: str


def read_turns(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def call_samples(turns: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(sample id, index of the gold turn) for every sample whose gold is an API turn."""
    out: list[tuple[int, int]] = []
    n = 0
    for i, turn in enumerate(turns):
        if turn.get("role") != "API":
            continue
        out.append((n, i))
        if i + 1 < len(turns) and turns[i + 1].get("role") == "API":
            out.append((n + 1, i + 1))
        n += 2
    return out


def render_turn(turn: dict[str, Any]) -> str:
    """One history line as upstream renders it (SPEC 4.3 `input`)."""
    if turn.get("role") == "API":
        return f"{render_request(turn['api_name'], turn['param_dict'])}->{turn['result'].get('output')}"
    return f"{turn['role']}: {turn['text']}"


def render_history(turns: Iterable[dict[str, Any]]) -> str:
    return "\n".join(render_turn(t) for t in turns)


def _visible_order(root: Path) -> dict[str, tuple[str, ...]]:
    """Per file, the API names in the recorded order of the upstream instruction."""
    path = root / LEVEL1_TEST
    if not path.is_file():
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for item in json.loads(path.read_text(encoding="utf-8")):
        if item["file"] in out:
            continue
        lines = item["instruction"].split("API descriptions:\n", 1)[-1].splitlines()
        out[item["file"]] = tuple(json.loads(line)["name"] for line in lines if line.strip())
    return out


def _repair(row: dict[str, str], gold: dict[str, Any], history: list[dict[str, Any]]) -> str:
    """Apply the SPEC 6 repair named by a `repair` row in place; return its kind."""
    api, key = row["gold_api"], (row["file"], int(row["id"]))
    if api == "RecordHealthData":
        return "parse-list-arguments"
    if api == "QueryRegistration" and "random appointment id" in row["reason"]:
        return "replay-pin-appointment-id"
    if api == "QueryScene":
        for device in gold["result"].get("output") or []:
            device["name"] = device["name"].lower()
        return "lowercase-device-names"
    if key in _RESTORED_CONTENT:
        text = _RESTORED_CONTENT[key]
        if not any(text in t.get("text", "") for t in history):
            raise ValueError(f"{key}: the restored content is not in the dialogue")
        gold["param_dict"]["content"] = text
        gold["result"]["input"]["content"] = text
        return "restore-truncated-content"
    raise ValueError(f"no repair known for {key} ({api}): {row['reason']}")


def _dialogue_domain(file: str, turns: list[dict[str, Any]]) -> str:
    domains = {REGISTRY[t["api_name"]].domain for t in turns if t.get("role") == "API"} - {"account"}
    if len(domains) != 1:
        raise ValueError(f"{file}: expected one domain, found {sorted(domains)}")
    return domains.pop()


def load_samples(root: Path) -> tuple[list[Sample], list[Dropped]]:
    """All kept in-scope level-1 samples (duplicates included) and the dropped ones."""
    with open(root / STATUS_CSV, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["dialogue_scope"] == "in"]
    by_file: dict[str, dict[int, dict[str, str]]] = {}
    for r in rows:
        by_file.setdefault(r["file"], {})[int(r["id"])] = r
    visible = _visible_order(root)
    kept: list[Sample] = []
    dropped: list[Dropped] = []
    for file in sorted(by_file):
        turns = read_turns(root / SAMPLES_DIR / file)
        domain = _dialogue_domain(file, turns)
        status_rows = by_file[file]
        built = dict(call_samples(turns))
        if set(built) != set(status_rows):
            raise ValueError(
                f"{file}: samples {sorted(built)} do not match the status file {sorted(status_rows)}"
            )
        names = visible.get(file) or tuple(sorted({t["api_name"] for t in turns if t.get("role") == "API"}))
        for sid, idx in sorted(built.items()):
            row = status_rows[sid]
            gold = copy.deepcopy(turns[idx])
            if gold["api_name"] != row["gold_api"]:
                raise ValueError(f"{file}#{sid}: gold {gold['api_name']} but status says {row['gold_api']}")
            if row["status"] == "exclude":
                dropped.append(Dropped(file, sid, row["gold_api"], row["reason"]))
                continue
            history = turns[:idx]
            repair = _repair(row, gold, history) if row["status"] == "repair" else None
            kept.append(
                Sample(
                    file=file,
                    sample_id=sid,
                    history=tuple(history),
                    gold=gold,
                    status=row["status"],
                    repair=repair,
                    duplicate_of=int(row["duplicate_of_id"]) if row["duplicate_of_id"] else None,
                    domain=domain,
                    gold_domain=REGISTRY[gold["api_name"]].domain,
                    visible_apis=names,
                )
            )
    return kept, dropped
