"""Information query and processing APIs (SPEC.md 3.4).

Two APIs need the network upstream (Dictionary, Translate). Their samples are
excluded (SPEC 6), but the tools stay in the information domain as candidates
an agent may pick, so they get offline stand-ins: Dictionary answers like a
dictionary service that knows no word (`Failed.`, the upstream non-200
message), Translate reports that no translation service is reachable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from core.benchmarks.apibank.calculator import calculate
from core.benchmarks.apibank.common import (
    DATE,
    ApiDef,
    ApiError,
    ParamSpec,
    arg,
    check_all_equal,
    check_inputs,
    lower_trim,
    out_exc,
    pad_year,
    same,
    trim,
)

TRANSLATE_OFFLINE = "Translation service is not reachable offline."


def _no_spaces(value: Any) -> str:
    return str(value).replace(" ", "")


def calculator(session: Any, formula: Any) -> float:
    return calculate(formula)


def dictionary(session: Any, keyword: Any) -> Any:
    _ = keyword.replace("_", " ").strip().lower()  # a non-text keyword fails as upstream would
    raise ApiError("Failed.")


def _check_api_out_exc(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """Dictionary and Wiki: the input is not compared."""
    return same(pred, gold, "api_name") and out_exc(pred, gold)


def document_qa(session: Any, url: Any, question: Any) -> str:
    link, text = url.strip(), question.strip()
    if not text:
        raise ApiError("The question is empty.")
    if link not in session.db("QuestionAnswering"):
        raise ApiError("The document of this url failed to be processed.")
    # Upstream bug B4, reproduced: the lookup never matches and the gold depends on it.
    return "The question is too difficult to answer."


def image_caption(session: Any, url: Any) -> str:
    link = url.strip()
    if not link.endswith((".jpg", ".jpeg", ".png")):
        raise ApiError("The url should end with .jpg, .jpeg or .png.")
    captions = session.shared("ImageCaptioning", _first_caption_index)
    if link not in captions:
        raise ApiError("The image of this url failed to be processed.")
    return captions[link]


def _first_caption_index(entries: list[dict]) -> dict[str, str]:
    index: dict[str, str] = {}
    for e in entries:
        index.setdefault(e["url"], e["caption"])
    return index


def _history_date(value: Any) -> str:
    text = pad_year(value.strip())
    try:
        return datetime.strptime(text, DATE).strftime("%m-%d")
    except ValueError:
        return datetime.strptime(text, "%m-%d").strftime("%m-%d")


def _history_date_or_invalid(value: Any) -> Any:
    try:
        return _history_date(value)
    except (ValueError, AttributeError):
        return object()


def query_history_today(session: Any, date: Any) -> list[str]:
    day = _history_date(date)
    history = session.db("History")
    if day not in history:
        raise ApiError("The date is not in the database.")
    return [
        f"Title: {e['Title'].strip()}, Date: {e['Date'].strip()}, Description: {e['Description'].strip()}"
        for e in history[day]
    ]


# --------------------------------------------------------------------------- search engine

_CONTRACTION = re.compile(r"(?i)^(\w+)(n't|'s|'re|'ve|'ll|'d|'m)$")
_WORDS = re.compile(r"\d+(?:[.,]\d+)+|\w+(?:[-']\w+)*|\.\.\.|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """A Treebank-style word tokenizer (stand-in for NLTK's `word_tokenize`).

    Words keep inner hyphens, numbers keep their decimal point, clitics such as
    `n't` and `'s` are split off, and every other punctuation mark is a token.
    """
    out: list[str] = []
    for tok in _WORDS.findall(text):
        m = _CONTRACTION.match(tok)
        if m:
            out.extend(g for g in m.groups() if g)
        elif tok == '"':
            out.append("``" if not out or out[-1] in ("(", "[", "{", "``") else "''")
        else:
            out.append(tok)
    return out


def _bm25_index(data: dict) -> Any:
    from rank_bm25 import BM25Okapi  # k1=1.5, b=0.75, epsilon=0.25 (SPEC 3.4)

    return BM25Okapi(data["tokenized_documents"])


def search_engine(session: Any, keyword: Any) -> list[dict]:
    import numpy as np

    bm25 = session.shared("SearchEngine", _bm25_index)
    scores = bm25.get_scores(tokenize(keyword.lower().strip()))
    top = np.argsort(scores)[::-1][:2]
    docs = session.db("SearchEngine")["raw_documents"]
    return [dict(docs[int(i)]) for i in top]


def _check_search(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    """Order of the two results does not matter; a missing output crashes upstream (here: incorrect)."""
    if not (same(pred, gold, "api_name") and same(pred, gold, "exception")):
        return False

    def key(doc: Mapping[str, Any]) -> str:
        return doc["title"] + doc["abstract"]

    return sorted(pred["output"], key=key, reverse=True) == sorted(gold["output"], key=key, reverse=True)


# --------------------------------------------------------------------------- e-mail, speech, translate, wiki

_EMAIL = re.compile(r"[a-z0-9]+[._]?[a-z0-9]+@\w+\.\w{2,3}")


def send_email(session: Any, receiver: Any, subject: Any, content: Any) -> str:
    to, title, body = receiver.strip(), subject.strip(), content.strip()
    if not _EMAIL.fullmatch(to):
        raise ApiError("Email address of the receiver is invalid.")
    if not title:
        raise ApiError("Subject cannot be empty.")
    if not body:
        raise ApiError("Content cannot be empty.")
    return "success"


def speech_recognition(session: Any, url: Any) -> str:
    link = url.strip()
    if not link.endswith(".wav"):
        raise ApiError("The url should end with .wav.")
    table = session.db("SpeechRecognition")
    if link not in table:
        raise ApiError("The audio of this url failed to be processed.")
    return table[link]


def translate(session: Any, src: Any, src_lang: Any = None, tgt_lang: Any = None) -> str:
    raise ApiError(TRANSLATE_OFFLINE)


def _check_translate(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
    return same(pred, gold, "api_name") and arg(pred, "src") == arg(gold, "src") and out_exc(pred, gold)


def wiki(session: Any, keyword: Any) -> dict[str, str]:
    key = keyword.replace("_", " ").strip().lower()
    table = session.db("Wiki")
    if key not in table:
        raise ApiError("Keyword not found.")
    return {"url": table[key]["url"], "summary": table[key]["summary"]}


S = ParamSpec
APIS: tuple[ApiDef, ...] = (
    ApiDef("Calculator", "information", (S("formula"),), calculator, check_inputs(("formula", _no_spaces))),
    ApiDef(
        "Dictionary",
        "information",
        (S("keyword"),),
        dictionary,
        _check_api_out_exc,
        offline_standin=True,
        notes="network API upstream; offline it always answers `Failed.`",
    ),
    ApiDef(
        "DocumentQA",
        "information",
        (S("url"), S("question")),
        document_qa,
        check_inputs(("url", trim), ("question", trim)),
    ),
    ApiDef("ImageCaption", "information", (S("url"),), image_caption, check_all_equal),
    ApiDef(
        "QueryHistoryToday",
        "information",
        (S("date"),),
        query_history_today,
        check_inputs(("date", _history_date_or_invalid)),
    ),
    ApiDef("SearchEngine", "information", (S("keyword"),), search_engine, _check_search),
    ApiDef(
        "SendEmail",
        "information",
        (S("receiver"), S("subject"), S("content")),
        send_email,
        check_inputs(("receiver", lower_trim), ("subject", trim), ("content", trim)),
    ),
    ApiDef("SpeechRecognition", "information", (S("url"),), speech_recognition, check_all_equal),
    ApiDef(
        "Translate",
        "information",
        (S("src"), S("src_lang", required=False), S("tgt_lang", required=False)),
        translate,
        _check_translate,
        offline_standin=True,
        notes="network API upstream; offline it always reports that no service is reachable",
    ),
    ApiDef("Wiki", "information", (S("keyword"),), wiki, _check_api_out_exc),
)
