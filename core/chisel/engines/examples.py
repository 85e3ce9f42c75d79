"""Usage examples (UE) from ground-truth calls that stay internally consistent and show formats.

Why: an example pairs a request with a call. Quoting a shortened request of a
task beside one of that task's calls can pair text about one order with a call
on another (a task that handles two orders mentions both; the shortened line
shows the first). And a call copied verbatim teaches a small model one task's
values, which it then pastes into other tasks' calls.

So an example's call keeps a concrete value only where the reader can see
where it came from: a value the quoted request contains, or one of the few
values an argument takes across tasks (a constraint, not one task's data).
A record's id (`id`, `order_id`, `event_ids`) is never shown, not even when the
request holds it: an agent that sees `appointment_id="90123456"` next to a
request pastes 90123456 into other users' calls, so the request's copy is
masked too (`It's <appointment_id>.`). Every other value is shown as its
format (`<YYYY-MM-DD>`, `<order_id: "#W" + 7 digits>`). A list or record is
shown as it is when every value inside it may be: a request that gives
"blood pressure 120/80 and heart rate 80" beside
`health_data=[{"name": "blood_pressure", "value": "120/80"}, ...]` shows where
each of the user's values goes, which a structure's format does not (the agent
given only the format wrote `[120, 80]`). The request quoted is
the passage of the task's query that holds the call's values, led by the
turn that asked when that passage is only a reply ("It's <appointment_id>.");
when no passage holds them, the example shows the call's formats alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.benchmarks.base import Call

MAX_REQUEST = 140


def leaves(value: Any, key: str = "") -> list[tuple[str, Any]]:
    """The scalar values inside a structured value, each with the key it sits under (a list's items
    under the list's key): `[{"name": "heart_rate", "value": "80"}]` holds ("name", "heart_rate")
    and ("value", "80")."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, str(k))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v, key)]
    return [(key, value)]


def _texts(call: Call) -> list[str]:
    """The call's string values worth finding in a request (not booleans, not tiny tokens), the
    strings inside a list or record included."""
    found = [v for k, v in call.args.items() for _, v in leaves(v, k)]
    return [v.strip() for v in found if isinstance(v, str) and len(v.strip()) >= 2]


MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip

# a date's month and day at the start of a value: 2023-10-12, 2023-10-12 09:30:00 or a bare 10-12
MONTH_DAY = re.compile(r"(?:\d{4}-)?(\d{2})-(\d{2})(?!\d)")


def stated_in(value: Any, query: str | None) -> bool:
    """Whether a request states `value`: verbatim, or a date in words or as month/day.

    "October 12th" states 2023-10-12 and 10-12 alike: an argument whose value
    the user wrote in another format is the user's data (the format is what
    the doc owes), not a convention no request states.
    """
    text = (query or "").lower()
    if str(value).lower() in text:
        return True
    m = MONTH_DAY.match(value) if isinstance(value, str) else None
    if not m:
        return False
    month, day = int(m.group(1)), int(m.group(2))
    if not 1 <= month <= 12:
        return False
    name = MONTHS[month - 1]
    words = rf"\b(?:{name}|{name[:3]})\.?\s+0?{day}(?:st|nd|rd|th)?\b|\b0?{day}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{name}|{name[:3]})\b"
    return bool(re.search(words, text) or re.search(rf"\b0?{month}/0?{day}\b", text))


# a date, or a date and a time of day, as the tools take them (`2023-03-01`, `2023-03-01 10:00:00`)
DATE_TIME = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?")
# the times a bare day stands for: its start and its end ("from March 1st to March 3rd")
DAY_BOUNDS = ((0, 0, 0), (23, 59, 59))


def time_stated(hour: int, minute: int, text: str) -> bool:
    """Whether `text` states a time of day, on a 24-hour clock ("14:30", "9:30") or with am/pm
    ("2:30 pm", "10am", "10 a.m.")."""
    text = text.lower()
    clock = rf"(?<![\d:])0?{hour}:{minute:02d}(?!\d)"
    for m in re.finditer(clock, text):
        after = text[m.end() : m.end() + 6]
        # "10:00 pm" is 22:00, not 10:00; "10:00 am" and a bare "10:00" are 10:00
        if not (hour < 12 and re.match(r"(?::\d{2})?\s*p\.?\s*m\b", after)):
            return True
    twelve = hour % 12 or 12
    half = "a" if hour < 12 else "p"
    minutes = rf"(?::{minute:02d})" if minute else r"(?::00)?"
    return re.search(rf"(?<![\d:]){twelve}{minutes}\s*{half}\.?\s*m\b", text) is not None


def converted_date(value: str, request: str) -> bool:
    """Whether an example may show a date value that `request` states in another form.

    "from March 1st, 2023" states `start_time="2023-03-01 00:00:00"`: shown beside the request, the
    converted value teaches the conversion the tool needs, where the format alone left the 1.5B text
    agent writing "2023-03-05" or "2023-03-05T00:00:00" for "from March 5th" in all 12 of its calls. The
    date must be the request's (in words, as month/day or as an ISO date; a year the request states must
    be the value's); a time of day must be one it states, or a bare day's start or end (00:00:00,
    23:59:59). A month-day alone (`04-21`) is shown only where its day cannot be read as a month (`12-10`
    reads either way round).
    """
    text = value.strip()
    if m := re.fullmatch(r"(\d{2})-(\d{2})", text):
        return int(m.group(2)) > 12 and stated_in(text, request)
    m = DATE_TIME.fullmatch(text)
    if not m or not stated_in(m.group(1), request):
        return False
    years = set(re.findall(r"(?<!\d)(?:19|20)\d{2}(?!\d)", request))
    if years and text[:4] not in years:
        return False  # a call whose year is not the one the request states teaches a wrong conversion
    if m.group(2) is None:
        return True
    hour, minute, second = int(m.group(2)), int(m.group(3)), int(m.group(4) or 0)
    return (hour, minute, second) in DAY_BOUNDS or (second == 0 and time_stated(hour, minute, request))


def user_lines(query: str) -> list[str]:
    """A dialogue's user turns (the query's non-empty lines where it has none), stripped."""
    lines = [ln.strip() for ln in query.splitlines() if ln.strip()]
    users = [ln[5:].strip() for ln in lines if ln.startswith("User:")]
    return users or lines


def passages(query: str) -> list[str]:
    """The query's lines (a dialogue's user turns only) split into sentences."""
    out: list[str] = []
    for line in user_lines(query):
        out.extend(s.strip() for s in SENTENCE_END.split(line) if s.strip())
    return out


# a sentence ends at . ! or ? followed by a space, but not after a title ("Dr. Lee" is one name)
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)\s+")


def asks(text: str, words: int = 4) -> bool:
    """Whether a passage says what is wanted (at least `words` words), not only a reply or a value.

    A dialogue often ends with a bare confirmation ("Yes, please.") or the data
    asked for ("It's 90123456."), which says nothing about when the tool applies.
    """
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= words


# words that, beside a record's id and its argument's name, say nothing about what is wanted
FILLER = frozenset(
    "it its is are the my our your his her their this that number id no yes sure ok okay and here of was".split()
)


def only_ids(text: str, call: Call) -> bool:
    """Whether a passage only states a record id ("It's 90123456.", "The appointment ID is 90123456.").

    Such a reply answers "which appointment?"; quoted alone, with its id
    masked, it says nothing about when the tool applies. `asks` counts the
    second one as a request (four words), hence this separate test.
    """
    keys = [k for k in call.args if identifier(k)]
    rest = text
    for key in keys:
        rest = _masked(rest, "", call.args[key])
    if rest == text:  # no id of this call's is stated
        return False
    names = {part for k in keys for part in k.lower().split("_")}
    words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", rest)}
    return not (words - FILLER - names)


def request_for(query: str, call: Call, constant: set[str]) -> str | None:
    """The passage of `query` that holds the most of the call's task-specific values, if any.

    Values in `constant` (an argument's recurring values) need not appear. None
    when the call has task-specific values and no passage holds one of them.
    When the passage is a bare reply (`asks`, `only_ids`), the nearest earlier
    passage that asks is quoted before it: "Can you move my appointment …? …
    It's <appointment_id>." shows both when the tool applies and where its id
    comes from.
    """
    wanted = [t for t in _texts(call) if t not in constant]
    parts = passages(query)
    if not parts:
        return None

    def says(part: str) -> bool:
        return asks(part) and not only_ids(part, call)

    if wanted:
        best, rank = None, (0, False)
        for i, part in enumerate(parts):
            n = sum(1 for t in wanted if stated_in(t, part))
            # as many of the call's values as possible; then a passage that asks over a bare reply
            if n and (n, says(part)) > rank:
                best, rank = i, (n, says(part))
        if best is None:
            return None
        first = next(t for t in wanted if stated_in(t, parts[best]))
    else:  # every value recurs across tasks (an id used by many): the last turn that asks or gives the id
        marked = [i for i, part in enumerate(parts) if says(part) or only_ids(part, call)]
        best, first = (marked or [len(parts) - 1])[-1], None
    shown = _clip(parts[best], first)
    earlier = [p for p in parts[:best] if says(p)]
    room = MAX_REQUEST - len(shown) - 3
    if says(parts[best]) or not earlier or room < 20:
        return shown
    ask = _clip(earlier[-1], None, room - 1)  # one character for the ellipsis a cut adds
    return f"{ask} {shown}" if ask.endswith("…") else f"{ask} … {shown}"


def _clip(text: str, keep: str | None, limit: int = MAX_REQUEST) -> str:
    """`text` shortened to `limit` characters around `keep`, so the value stays visible."""
    if len(text) <= limit:
        return text
    at = text.lower().find(keep.lower()) if keep else 0
    start = max(0, min(at - limit // 3, len(text) - limit))
    cut = text[start : start + limit].strip()
    return ("…" if start else "") + cut + ("…" if start + limit < len(text) else "")


def value_pattern(values: Sequence[Any], fmt: str | None) -> str | None:
    """A format for some string values: a known one (`fmt`), else a shared prefix plus a digit count."""
    if fmt:
        return fmt
    texts = [v for v in values if isinstance(v, str) and v]
    if len(texts) != len(values) or not texts:
        return None
    shapes = {re.sub(r"\d", "9", t) for t in texts}
    if len(shapes) == 1:
        shape = shapes.pop()
        m = re.fullmatch(r"(\D*)(9+)", shape)
        if m and texts[0].startswith(m.group(1)):
            prefix = f"{json.dumps(m.group(1))} + " if m.group(1) else ""
            return f"{prefix}{len(m.group(2))} digits"
    return None


def identifier(key: str) -> bool:
    """Whether an argument names one record (`id`, `*_id`, `*_ids`), whose value is never shown."""
    low = key.lower()
    return low == "id" or low.endswith(("_id", "_ids"))


def _whole(text: str) -> str:
    """A pattern for `text` as a whole token: 9012 is not found inside 90123 or 1.9012, nor a heart
    rate of 80 inside a blood pressure of 120/80."""
    return rf"(?<![\w./]){re.escape(text)}(?![\w/])"


def _masked(request: str, key: str, value: Any) -> str:
    """`request` with each literal occurrence of an id `value` replaced by `<key>`."""
    for item in value if isinstance(value, list) else [value]:
        text = str(item).strip() if item is not None else ""
        if len(text) >= 2:
            request = re.sub(_whole(text), f"<{key}>", request, flags=re.I)
    return request


def example_text(
    name: str,
    call: Call,
    request: str | None,
    formats: Mapping[str, str],
    constant: Mapping[str, set[str]],
) -> str:
    """One example line: `Request: "..." -> tool(arg=value or <format>)` (or the call alone)."""
    shown = (request or "").lower()
    parts = []
    for key, value in call.args.items():
        record = identifier(key)
        if request:  # a record's id, or one inside a list or record (`orders[].order_id`)
            for inner, item in [(key, value)] if record else leaves(value, key):
                if identifier(inner):
                    request = _masked(request, inner, item)
        if not record and _traceable(value, shown, constant.get(key, set())):
            parts.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
        else:
            fmt = formats.get(key)
            parts.append(f"{key}=<{key}: {fmt}>" if fmt else f"{key}=<{key}>")
    text = f"{name}({', '.join(parts)})"
    return f'Request: "{request}" -> {text}' if request else text


def _traceable(value: Any, shown: str, constant: set[str]) -> bool:
    """Whether a concrete value may stay in an example: a flag or null, one of the argument's allowed
    values (`core.chisel.engines.values.allowed_values`), a value the quoted request holds as a whole
    word, or a list or record made only of such values."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, list | dict):
        # a structure is shown when every value inside it is: how the request's words map onto it is
        # what a format alone does not teach (the agent wrote [110, 70, 90] for two named readings)
        return all(not identifier(k) and _traceable(v, shown, constant) for k, v in leaves(value))
    text = str(value)
    if (
        isinstance(value, str)
        and (m := re.fullmatch(r"\d{2}-(\d{2})", text.strip()))
        and int(m.group(1)) <= 12
    ):
        return False  # a month-day such as 12-10 reads either way round (10 December, 12 October): its format
    if text in constant:
        return True
    if not shown:
        return False
    if isinstance(value, str) and converted_date(text, shown):
        return True
    # a whole word: "user4" is not traced to "user4pass", nor "nausea" to "nauseous"
    return re.search(_whole(text.lower()), shown) is not None
