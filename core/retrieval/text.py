"""What a retriever reads of a tool doc, and how sparse retrieval splits text into terms.

A retriever indexes the same prompt text the agent reads (`render_text`), so
a documentation change that helps retrieval is exactly the change the agent
sees. The sparse tokenizer splits identifiers the way people say them
(`analytics.create_plot` -> analytics, create, plot; `AppointmentRegistration`
-> appointment, registration), lower-cases, and drops English stop-words, the
same idea as the Tool-REX BM25 baseline (stop-words, no stemming). Dense
retrieval cuts a long doc into line-aligned chunks because the encoder reads
at most 256 word pieces: appended expansion fields would otherwise be cut off
and be invisible to it.
"""

from __future__ import annotations

import re

from core.docs import ToolDoc, render_text

# A compact English stop-word list (articles, pronouns, auxiliaries, prepositions, conjunctions).
STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t""".split()
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-case terms for BM25: identifiers split at dots, underscores and camelCase; no stop-words."""
    out: list[str] = []
    for word in _WORD.findall(text):
        for part in _CAMEL.split(word):
            term = part.lower()
            if term and term not in STOPWORDS:
                out.append(term)
    return out


def doc_text(doc: ToolDoc) -> str:
    """The text indexed for a tool: its rendered prompt text (every present field, labelled)."""
    return render_text(doc)


def chunks(text: str, max_chars: int = 700) -> list[str]:
    """Line-aligned pieces of at most `max_chars` characters (a longer single line is cut).

    700 characters is about 180 word pieces of English with identifiers, under
    the 256-piece window of the MiniLM encoder.
    """
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.splitlines():
        while len(line) > max_chars:
            if current:
                pieces.append("\n".join(current))
                current, size = [], 0
            pieces.append(line[:max_chars])
            line = line[max_chars:]
        if current and size + len(line) + 1 > max_chars:
            pieces.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current and any(s.strip() for s in current):
        pieces.append("\n".join(current))
    return [p for p in pieces if p.strip()] or [text[:max_chars]]
