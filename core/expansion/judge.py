"""The judge of a generated profile: deterministic rules first, then an LLM per field.

Rules (RULES_VERSION), in order; a field that fails one is rejected with the reason:

1. The reply is a JSON object (else every field is rejected: "invalid JSON").
2. Required fields (function_description, tags) are present and non-empty;
   an optional field that is absent or empty is simply omitted (not a rejection).
3. Prose fields have at least 3 words and are not degenerate repetition.
4. Grounding: at least GROUNDING of the field's content words occur in the
   original doc (words compared by a 5-letter prefix, so "calculates" matches
   "calculator"; identifiers split; a few generic words like "user" or "use"
   are neutral). This is what "only when the original supports it" means in
   code: a when_to_use or limitations the doc does not support has
   unsupported words and is rejected.
5. Tags are judged one by one (they are independent keywords): a tag must be
   1-3 plain words, all grounded; bad tags are dropped and the field is
   rejected when fewer than 2 remain. Tags are lower-cased.
6. example_usage, when it looks like a call, must parse as a call (with `ast`,
   never evaluated) of this tool with argument names of this tool; otherwise
   it is treated as an example query and must pass the grounding rule.

7. when_to_use and limitations must not repeat function_description (Jaccard of
   content words >= 0.9).

Then, when a judge model is configured, each field that passed the rules is
sent to it (one call per field). Its JSON verdict has `supported`, `evidence`
(a quote of the doc backing the field) and `reason`. "unsupported", an
unreadable verdict, or evidence that is not actually in the doc rejects the
field: requiring a verifiable quote keeps a weak judge that answers "true" to
everything from letting content through unchecked. A field is accepted only
when both stages accept it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.benchmarks.base import CallParseError, parse_call
from core.docs import ToolDoc, render_text
from core.expansion.profile import PROFILE_FIELDS, REQUIRED_FIELDS
from core.expansion.prompts import judge_messages, judge_schema
from core.retrieval.text import tokenize

RULES_VERSION = "rules-3"
GROUNDING = 0.75
MIN_TAGS = 2
GENERIC = frozenset(
    """user users use used uses using tool tools api apis function functions ask asks asked want wants
    need needs needed given call calls called example query request requests help like also one get gets
    can may must able provide provides provided specific""".split()
)


@dataclass
class FieldVerdict:
    """One judgement of one field: stage `rule` or `llm`."""

    field: str
    stage: str
    accepted: bool
    content: str
    reason: str
    judge_model: str | None = None


def _stem(term: str) -> str:
    return term[:5]


def content_terms(text: str) -> list[str]:
    return [t for t in tokenize(text) if len(t) >= 3 and t.isalpha() and t not in GENERIC]


def doc_vocabulary(doc: ToolDoc) -> set[str]:
    text = render_text(doc) + " " + doc.tool
    return {_stem(t) for t in tokenize(text)}


def grounding(text: str, vocabulary: set[str]) -> tuple[float, list[str]]:
    """Share of content words found in the doc, and the words that are not."""
    terms = content_terms(text)
    if not terms:
        return 0.0, []
    missing = [t for t in terms if _stem(t) not in vocabulary]
    return 1 - len(missing) / len(terms), sorted(set(missing))


def _degenerate(text: str) -> bool:
    terms = tokenize(text)
    if len(terms) >= 8 and len(set(terms)) / len(terms) < 0.5:
        return True
    return bool(re.search(r"(.{2,}?)\1{4,}", text))


def _same(a: str, b: str) -> bool:
    """Two texts with (nearly) the same content words: Jaccard >= 0.9."""
    ta, tb = set(content_terms(a)), set(content_terms(b))
    return bool(ta and tb) and len(ta & tb) / len(ta | tb) >= 0.9


def _check_prose(name: str, text: str, vocab: set[str]) -> str | None:
    """None when the prose field passes the rules, else the reason."""
    if len(text.split()) < 3:
        return "fewer than 3 words"
    if _degenerate(text):
        return "degenerate repetition"
    share, missing = grounding(text, vocab)
    if share < GROUNDING:
        return f"not grounded: {share:.0%} of content words in the doc; unsupported: {', '.join(missing[:8])}"
    return None


def _check_tags(value: Any, vocab: set[str]) -> tuple[list[str], list[str]]:
    """(kept tags, reasons for the dropped ones)."""
    items = value if isinstance(value, list) else [value]
    kept: list[str] = []
    dropped: list[str] = []
    for item in items:
        tag = " ".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", str(item)).strip().lower().split())
        if not re.fullmatch(r"[a-z][a-z0-9]*(?:[ _-][a-z0-9]+){0,2}", tag):
            dropped.append(f"{item!r}: not a plain 1-3 word keyword")
            continue
        share, missing = grounding(tag, vocab)
        terms = content_terms(tag)
        if not terms or share < 1.0:
            dropped.append(f"{item!r}: not grounded ({', '.join(missing) or 'no content word'})")
            continue
        if tag not in kept:
            kept.append(tag)
    return kept, dropped


def _check_example(text: str, doc: ToolDoc, vocab: set[str]) -> str | None:
    names = {doc.tool.lower(), (doc.name or doc.tool).lower()}
    short = {n.rsplit(".", 1)[-1] for n in names}
    looks_like_call = bool(re.match(r"^\s*[A-Za-z_][\w.]*\s*\(", text))
    if looks_like_call:
        try:
            call = parse_call(text)
        except CallParseError as exc:
            return f"example call does not parse: {exc}"
        if call.tool.lower() not in names and call.tool.lower().rsplit(".", 1)[-1] not in short:
            return f"example calls {call.tool!r}, not this tool"
        params = {p.name for p in doc.parameters}
        unknown = sorted(set(call.args) - params)
        if unknown:
            return f"example uses unknown argument(s) {unknown}"
        return None
    return _check_prose("example_usage", text, vocab)


def rule_check(raw: str | None, doc: ToolDoc) -> tuple[dict[str, Any], list[FieldVerdict], str | None]:
    """(fields that pass the rules, verdicts, parse error). Tags pass as a list."""
    try:
        data = json.loads(raw or "")
    except json.JSONDecodeError as exc:
        data, error = None, f"invalid JSON: {exc.msg}"
    else:
        error = None if isinstance(data, dict) else "the reply is not a JSON object"
    if error:
        verdicts = [FieldVerdict(f, "rule", False, "", error) for f in REQUIRED_FIELDS]
        return {}, verdicts, error
    vocab = doc_vocabulary(doc)
    passed: dict[str, Any] = {}
    verdicts: list[FieldVerdict] = []
    for name in PROFILE_FIELDS:
        value = data.get(name)
        empty = value is None or (isinstance(value, str | list) and not value) or str(value).strip() == ""
        if empty:
            if name in REQUIRED_FIELDS:
                verdicts.append(FieldVerdict(name, "rule", False, "", "required field missing or empty"))
            continue
        if name == "tags":
            kept, dropped = _check_tags(value, vocab)
            content = ", ".join(str(v) for v in (value if isinstance(value, list) else [value]))
            ok = len(kept) >= MIN_TAGS
            reason = "; ".join(dropped) if dropped else "ok"
            if not ok:
                reason = f"fewer than {MIN_TAGS} valid tags; " + reason
            verdicts.append(FieldVerdict(name, "rule", ok, content, reason))
            if ok:
                passed[name] = kept
            continue
        if not isinstance(value, str):
            verdicts.append(FieldVerdict(name, "rule", False, str(value), "not a string"))
            continue
        text = " ".join(value.split())
        if name == "example_usage":
            reason = _check_example(text, doc, vocab)
        else:
            reason = _check_prose(name, text, vocab)
            fd = data.get("function_description")
            if reason is None and name != "function_description" and isinstance(fd, str) and _same(text, fd):
                reason = "repeats function_description"
        verdicts.append(FieldVerdict(name, "rule", reason is None, text, reason or "ok"))
        if reason is None:
            passed[name] = text
    return passed, verdicts, None


def llm_judge(
    doc: ToolDoc, name: str, content: str, model: str, *, seed: int = 0, run_id: str | None = None
) -> FieldVerdict:
    """Ask `model` whether one field is supported by the doc; unreadable answers reject."""
    from core.llm import complete

    try:
        result = complete(
            model,
            judge_messages(render_text(doc), name, content),
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": judge_schema()},
            },
            temperature=0.0,
            seed=seed,
            max_tokens=120,
            purpose="toolrex-judge",
            run_id=run_id,
        )
        verdict = json.loads(result.content or "")
        supported = verdict.get("supported") if isinstance(verdict, dict) else None
        reason = str(verdict.get("reason", "")) if isinstance(verdict, dict) else ""
        evidence = str(verdict.get("evidence", "")) if isinstance(verdict, dict) else ""
    except json.JSONDecodeError:
        return FieldVerdict(name, "llm", False, content, "judge reply is not JSON", model)
    except Exception as exc:  # noqa: BLE001 - a failed judge call is a recorded rejection
        return FieldVerdict(name, "llm", False, content, f"judge call failed: {type(exc).__name__}", model)
    if not isinstance(supported, bool):
        return FieldVerdict(name, "llm", False, content, "judge verdict missing", model)
    if not supported:
        return FieldVerdict(name, "llm", False, content, f"unsupported: {reason}".strip(), model)
    if not quote_found(evidence, render_text(doc)):
        reason = f"supported, but the evidence is not a quote of the doc: {evidence[:80]!r}"
        return FieldVerdict(name, "llm", False, content, reason, model)
    return FieldVerdict(name, "llm", True, content, f"supported by {evidence[:100]!r}", model)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def quote_found(evidence: str, doc_text: str, min_chars: int = 8) -> bool:
    """The evidence is a real quote: `min_chars` or longer and inside the doc (ignoring case and punctuation)."""
    quote = _norm(evidence)
    return len(quote) >= min_chars and quote in _norm(doc_text)
