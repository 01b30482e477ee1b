"""Twin catalogues: for every field the policy reads, the values real stores take for another one.

A *twin* of a value is a different value (the policy compares exactly, so it never
admits one for the other) that some store, driver, collation or encoding makes
equal to it. The suite puts each twin beside its original, on the document's side,
on the principal's side and in the active map's keys (``twin_checks``), so a store
that conflates the two leaks or drops a document in a world of a few documents.

Where each family occurs (public reports where they exist):

* **case**: case-insensitive collations (MySQL's ``*_ci`` defaults, SQL Server's
  default, SQLite ``COLLATE NOCASE``), lowercasing normalizers and analyzers
  (Elasticsearch/OpenSearch), RediSearch TAG fields (case-insensitive unless
  ``CASESENSITIVE``).
* **accents**: ASCII-folding analyzers (``asciifolding``), accent-insensitive
  collations (``*_ai``; ICU at primary strength).
* **unicode form**: NFC against NFD (macOS file names are NFD, most input is NFC);
  NFKC folds full-width letters and ligatures (Elasticsearch's ``icu_normalizer``
  defaults to ``nfkc_cf``; Python's identifiers; some drivers).
* **whitespace**: PAD SPACE collations compare ``'acme' = 'acme '`` (SQL Server
  always, MySQL's non-``_0900`` collations), ``CHAR(n)`` columns pad, loaders and
  form handlers trim one side only.
* **ignorable**: Unicode default-ignorable code points (zero-width space and
  joiners, the byte-order mark, the soft hyphen) are ignored by ICU collation and
  stripped by text cleaners; they are invisible in logs.
* **affix**: prefix and substring matches (``LIKE 'acme%'``, ``startswith`` on a
  key path), word tokenization (weaviate #5156: ``Equal("Verified")`` matched
  "Not Verified").
* **nul**: C strings stop at U+0000 (SQLite's JSON functions, C extensions).
* **empty**: an empty string read as missing (Oracle: ``'' IS NULL``) or dropped
  by a filter builder, so that the clause matches everything.
* **collation**: language collations equate ``ß`` and ``ss`` (``utf8mb4_unicode_ci``,
  ICU), a ligature and its letters, the Kelvin sign and ``K``, the long s and ``s``.

Revisions are signed 64-bit integers; ``REVISION_TWINS`` are pairs that collide when
a store keeps them narrower (32-bit columns wrap or saturate; JSON numbers in
JavaScript and many drivers are float64, exact only to 2^53; float32 to 2^24) or as
text (a key prefix). Pinecone documents that every metadata number "gets converted to
a 64 bit floating point"; epsilla-cloud/vectordb #57 returned a BIGINT key as a float
(1157567399403462676 came back 1157567399403462912); spring-ai PRs #5360/#5361 stored
Java ``Long`` metadata as strings in Qdrant to dodge JavaScript's 2^53, so ranges
compared text; chroma PR #7548 truncated a float bound against integer metadata.

``DATE_BOUNDARIES`` are the days where date encodings break (epoch day 0 and before,
the 32-bit-seconds limits of 1901 and 2038, the 64-bit nanosecond limits of 1677 and
2262, leap days, the calendar's ends). Reports: negative epoch timestamps that a
parser refused (wakirin/Litepicker PR #62), timestamps compared as text whose digit
count changed in 2001 (alnv/catalog-manager #391).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

NUL = "\x00"


def strip_accents(value: str) -> str:
    return unicodedata.normalize("NFC", "".join(
        c for c in unicodedata.normalize("NFD", value) if not unicodedata.combining(c)))


def accented(value: str) -> str:
    """The first plain vowel with an acute accent: a twin for a value that has no accent to strip."""
    for i, c in enumerate(value):
        if c in "aeiouAEIOU":
            return unicodedata.normalize("NFC", value[:i] + c + "\u0301" + value[i + 1:])
    return value


def full_width(value: str) -> str:
    """ASCII letters and digits as their full-width forms (NFKC maps them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in value)


def inside(mark: str) -> Callable[[str], str]:
    """Insert ``mark`` after the first character."""
    return lambda value: value[:1] + mark + value[1:]


def swap(a: str, b: str) -> Callable[[str], str]:
    """Replace the first ``a`` with ``b``, or else the first ``b`` with ``a``."""
    return lambda value: value.replace(a, b, 1) if a in value else value.replace(b, a, 1)


STRING_FAMILIES: dict[str, dict[str, Callable[[str], str]]] = {
    "case": {"upper": str.upper, "lower": str.lower, "casefold": str.casefold, "title": str.title,
             "swapcase": str.swapcase},
    "accents": {"accents stripped": strip_accents, "accent added": accented},
    "unicode form": {form: (lambda f: lambda v: unicodedata.normalize(f, v))(form)  # type: ignore[misc]
                     for form in ("NFC", "NFD", "NFKC", "NFKD")} | {"full width": full_width},
    "whitespace": {"leading space": lambda v: " " + v, "trailing space": lambda v: v + " ",
                   "trailing spaces (CHAR padding)": lambda v: v + "   ", "leading tab": lambda v: "\t" + v,
                   "trailing tab": lambda v: v + "\t", "trailing newline": lambda v: v + "\n",
                   "trailing no-break space": lambda v: v + "\u00a0", "inner space": inside(" "),
                   "inner no-break space": inside("\u00a0"), "ideographic space": lambda v: v + "\u3000"},
    "ignorable": {"zero-width space inside": inside("\u200b"), "zero-width space at the end": lambda v: v + "\u200b",
                  "zero-width joiner": inside("\u200d"), "zero-width non-joiner": inside("\u200c"),
                  "word joiner": inside("\u2060"), "byte-order mark": lambda v: "\ufeff" + v,
                  "soft hyphen": inside("\u00ad")},
    "affix": {"prefix": lambda v: v[:-1], "extended": lambda v: v + "x", "suffixed": lambda v: v + "-corp",
              "prefixed": lambda v: "x" + v},
    "nul": {"NUL at the end": lambda v: v + NUL, "NUL then more": lambda v: v + NUL + "evil"},
    "empty": {"empty string": lambda v: ""},
    "collation": {"sharp s": swap("ß", "ss"), "ligature fi": swap("\ufb01", "fi"), "Kelvin sign": swap("K", "\u212a"),
                  "long s": swap("s", "\u017f"), "dotless i": swap("i", "\u0131")},
}
"""Family -> transformation name -> function making a twin of a string (the same string: not applicable)."""

SECOND_SEED = "Kio\u0308sk-straße-\ufb01n"
"""Written with a decomposed ö (NFD) and the ligature ﬁ, so that NFC and NFKC change it too."""
IDENTITY_SEEDS: dict[str, tuple[str, ...]] = {
    "tenant": ("Ácme", SECOND_SEED),
    "logical_id": ("Ácme", SECOND_SEED),
    "group": ("Ácme", SECOND_SEED),
    "status": ("active",),
}
"""The values each identity field's twins are made of. The free fields' two seeds give every transformation
something to change (letter case, a precomposed and a decomposed accent, a ligature, a sharp s, a K, an s,
an i); the status is fixed by the policy, so its catalogue holds the transformations that change ``"active"``."""


@dataclass(frozen=True)
class Twin:
    """``twin`` is ``value`` after ``family``/``name``: different to the policy, equal to some store."""

    field: str
    family: str
    name: str
    value: Any
    twin: Any

    def __str__(self) -> str:
        return f"{self.field} {self.family} twin ({self.name}) {shown(self.twin)} of {shown(self.value)}"


def string_twins(field: str, seed: str) -> list[Twin]:
    """Every twin the string families make of ``seed`` (one per transformation that changes it)."""
    return [Twin(field, family, name, seed, twin) for family, transforms in STRING_FAMILIES.items()
            for name, transform in transforms.items() if (twin := transform(seed)) != seed]


def identity_twins(field: str) -> list[Twin]:
    """The catalogue for one identity field (``tenant``, ``logical_id``, ``group``, ``status``); two
    transformations may make the same twin (NFKC and the ligature, say): both are listed."""
    return [twin for seed in IDENTITY_SEEDS[field] for twin in string_twins(field, seed)]


REVISION_TWINS: tuple[tuple[str, str, int, int], ...] = (
    ("32-bit", "signed wrap", 1, 2**32 + 1),
    ("32-bit", "zero and 2^32", 0, 2**32),
    ("32-bit", "unsigned -1", -1, 2**32 - 1),
    ("32-bit", "sign of 2^31", 2**31, -(2**31)),
    ("32-bit", "saturation at the top", 2**31 - 1, 2**31),
    ("32-bit", "saturation at the bottom", -(2**31), -(2**31) - 1),
    ("float64", "above 2^53", 2**53, 2**53 + 1),
    ("float64", "nanosecond timestamps", 1_767_225_600_000_000_000, 1_767_225_600_000_000_001),
    ("float64", "the int64 maximum", 2**63 - 1, 2**63 - 512),
    ("float64", "the int64 minimum", -(2**63), -(2**63) + 1),
    ("float32", "above 2^24", 2**24, 2**24 + 1),
    ("float32", "around 2^31", 2**31 - 1, 2**31 - 64),
    ("text", "decimal prefix", 1, 10),
    ("text", "negative prefix", -1, -12),
    ("sign", "absolute value", 7, -7),
)
"""(family, name, revision, twin): distinct signed 64-bit revisions that a narrower or textual encoding makes
equal (or, for a key matched by prefix, nested)."""


def revision_twins() -> list[Twin]:
    return [Twin("revision", family, name, a, b) for family, name, a, b in REVISION_TWINS]


DATE_BOUNDARIES: tuple[tuple[str, str], ...] = (
    ("0001-01-01", "the calendar's first day (date.min), a sentinel for 'no start'"),
    ("1677-09-22", "the first whole day of signed 64-bit nanoseconds since 1970 (pandas, Arrow timestamp[ns])"),
    ("1901-12-14", "the first whole day of signed 32-bit seconds since 1970"),
    ("1969-12-31", "epoch day -1: negative day numbers, division rounding toward zero"),
    ("1970-01-01", "epoch day 0: false in a truth test, the default of an unset number"),
    ("2000-02-29", "a leap day of a year divisible by 400"),
    ("2038-01-19", "the last whole day of signed 32-bit seconds (the year-2038 limit)"),
    ("2100-03-01", "the day after 2100-02-28: 2100 is not a leap year"),
    ("2106-02-06", "the last whole day of unsigned 32-bit seconds"),
    ("2262-04-10", "the last whole day of signed 64-bit nanoseconds since 1970"),
    ("9999-12-31", "the calendar's last day (date.max), a sentinel for 'no end'"),
)
"""(day, why): days where stored date encodings wrap, saturate, collide with a sentinel or read as missing."""

NOT_DAYS: tuple[tuple[str, str], ...] = (
    ("1900-02-29", "a century year that is not a leap year: a year % 4 rule takes it"),
    ("2100-02-29", "the next such year"),
    ("1970-01-00", "day 0 of a month: an epoch-day codec reads it as the day before"),
    ("2038-01-32", "day 32: a codec that adds days to the month's start rolls it over"),
)
"""(spelling, why): strings shaped like days at the boundaries that are no calendar date: malformed, as a start
and as an end."""

WINDOW_SHAPES = {"starts": "a window that starts on {day}", "ends": "a window that ends on {day}",
                 "one day": "a window of {day} alone", "empty": "an empty window (until = from = {day})",
                 "reversed": "a reversed window (from {day}, until the day before)"}
"""The windows built at each boundary day d: [d, open), [d - 30, d), [d, d + 1), [d, d), [d, d - 1)."""


def shifted(day: date, days: int) -> date | None:
    """``day`` moved by ``days``, or None past the calendar's ends."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return None


def window(shape: str, day: date) -> tuple[date, date | None] | None:
    """(valid_from, valid_until) of a window ``shape`` at ``day``; None where the calendar cannot hold it."""
    before, after = shifted(day, -1), shifted(day, 1)
    windows: dict[str, tuple[date | None, date | None]] = {
        "starts": (day, None), "ends": (shifted(day, -30) or date.min, day), "one day": (day, after),
        "empty": (day, day), "reversed": (day, before),
    }
    start, end = windows[shape]
    if start is None or (shape != "starts" and end is None) or (shape == "ends" and start == day):
        return None
    return start, end


def asked_days() -> list[date]:
    """Every boundary day with the day before and after (within the calendar), sorted."""
    days = set()
    for text, _ in DATE_BOUNDARIES:
        day = date.fromisoformat(text)
        days |= {d for d in (shifted(day, -1), day, shifted(day, 1)) if d is not None}
    return sorted(days)


# -- showing values in messages -----------------------------------------------------


def _plain(c: str) -> bool:
    """A character that prints as itself and as nothing else: no invisible, combining or compatibility form."""
    return (c == " " or (c.isprintable() and not c.isspace())) and not unicodedata.combining(c) and (
        unicodedata.normalize("NFKC", c) == c) and unicodedata.category(c) != "Cf"


def _escaped(c: str) -> str:
    if c in "\\'":
        return "\\" + c
    return c if _plain(c) else c.encode("unicode_escape").decode()


def shown(value: Any) -> str:
    """``repr`` with every character that could print like another escaped: two different identities never
    print alike (NFC and NFD, a no-break space, a zero-width space, a full-width letter, the Kelvin sign)."""
    if isinstance(value, str):
        return "'" + "".join(map(_escaped, value)) + "'"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{shown(k)}: {shown(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        inner = ", ".join(shown(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)
