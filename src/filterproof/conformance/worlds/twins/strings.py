"""String twins: transformations that stores, drivers and collations undo, and fixed pairs that collide.

See the package docstring for where each family occurs.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from filterproof.conformance.worlds.twins.base import Twin

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


def percent_encoded(value: str) -> str:
    """The last ASCII letter written as ``%XX`` (what a server that decodes paths reads back as the letter)."""
    for i in reversed(range(len(value))):
        if value[i].isascii() and value[i].isalpha():
            return value[:i] + f"%{ord(value[i]):02X}" + value[i + 1:]
    return value


def astral_at(value: str) -> int | None:
    """Where the first character beyond U+FFFF (an emoji) is, or None."""
    return next((i for i, c in enumerate(value) if ord(c) > 0xFFFF), None)


def at_astral(rewrite: Callable[[str], str]) -> Callable[[str], str]:
    """Rewrite the first character beyond U+FFFF with ``rewrite``; no such character: unchanged."""
    def twin(value: str) -> str:
        at = astral_at(value)
        return value if at is None else value[:at] + rewrite(value[at]) + value[at + 1:]
    return twin


def cut_at_astral(value: str) -> str:
    """What a 3-byte UTF-8 column (MySQL's ``utf8mb3``) keeps: the string up to its first astral character."""
    at = astral_at(value)
    return value if at is None else value[:at]


def surrogates(c: str) -> str:
    """The UTF-16 surrogate pair of ``c`` as two lone surrogates (``\\ud83d\\ude00`` in JSON, each escape read
    alone)."""
    units = c.encode("utf-16-be")
    return chr(int.from_bytes(units[:2], "big")) + chr(int.from_bytes(units[2:], "big"))


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
    "controls": {"a backspace inside": inside("\x08"), "an escape inside": inside("\x1b"),
                 "a start of heading inside": inside("\x01"), "a unit separator inside": inside("\x1f"),
                 "a vertical tab at the end": lambda v: v + "\x0b", "a form feed at the end": lambda v: v + "\x0c",
                 "a carriage return at the end": lambda v: v + "\r", "DEL at the end": lambda v: v + "\x7f",
                 "a C1 next line at the end": lambda v: v + "\x85"},
    "encoding errors": {"lone surrogate": lambda v: v + "\ud800", "the last lone surrogate": lambda v: v + "\udfff",
                        "replaced by ?": lambda v: v + "?",
                        "replacement character": lambda v: v + "\ufffd"},
    "url": {"a letter percent-encoded": percent_encoded, "a query string": lambda v: v + "?v=2",
            "a fragment": lambda v: v + "#x", "a space as +": lambda v: v[:1] + "+" + v[1:]},
    "empty": {"empty string": lambda v: ""},
    "astral": {"as a surrogate pair": at_astral(surrogates),
               "its low 16 bits (UCS-2)": at_astral(lambda c: chr(ord(c) & 0xFFFF)),
               "cut there (3-byte UTF-8)": cut_at_astral,
               "read as a 4-digit hex escape and a digit": at_astral(lambda c: chr(ord(c) >> 4) + f"{ord(c) & 15:x}"),
               "the replacement character": at_astral(lambda c: "\ufffd")},
    "collation": {"sharp s": swap("ß", "ss"), "ligature fi": swap("\ufb01", "fi"), "Kelvin sign": swap("K", "\u212a"),
                  "long s": swap("s", "\u017f"), "dotless i": swap("i", "\u0131")},
}
"""Family -> transformation name -> function making a twin of a string (the same string: not applicable)."""

SECOND_SEED = "Kio\u0308sk-straße-\U0001f600-\ufb01n"
"""Written with a decomposed ö (NFD), an emoji (beyond U+FFFF) and the ligature ﬁ, so that NFC, NFKC and the
astral twins change it too."""
IDENTITY_SEEDS: dict[str, tuple[str, ...]] = {
    "tenant": ("Ácme", SECOND_SEED),
    "logical_id": ("Ácme", SECOND_SEED),
    "group": ("Ácme", SECOND_SEED),
    "status": ("active",),
}
"""The values each identity field's twins are made of. The free fields' two seeds give every transformation
something to change (letter case, a precomposed and a decomposed accent, a ligature, a sharp s, a K, an s,
an i); the status is fixed by the policy, so its catalogue holds the transformations that change ``"active"``."""


def string_twins(field: str, seed: str) -> list[Twin]:
    """Every twin the string families make of ``seed`` (one per transformation that changes it)."""
    return [Twin(field, family, name, seed, twin) for family, transforms in STRING_FAMILIES.items()
            for name, transform in transforms.items() if (twin := transform(seed)) != seed]


HASH_PAIRS: tuple[tuple[str, str, str], ...] = (
    ("CRC-32", "plumless", "buckeroo"),
    ("FNV-1a 32-bit", "team-549599", "team-712382"),
    ("MurmurHash3 x86 32-bit, seed 0", "team-137621", "team-162224"),
    ("Java String.hashCode", "teamAa", "teamBB"),
)
"""Distinct strings whose 32-bit hashes are equal: a store that keys identities by hash (a bitmap or an
inverted index of hashed tags, a hash partition trusted as the boundary) and never compares the strings."""


def java_twin(value: str) -> str:
    """Another string with the same Java ``String.hashCode``: the first two characters (c1, c2) become
    (c1 + 1, c2 - 31)."""
    return chr(ord(value[0]) + 1) + chr(ord(value[1]) - 31) + value[2:]


def hash_twins(field: str) -> list[Twin]:
    """Hash-colliding pairs for a free field; for the status, the Java twin of ``active``."""
    if field == "status":
        return [Twin(field, "hash", "Java String.hashCode", "active", java_twin("active"))]
    return [Twin(field, "hash", name, a, b) for name, a, b in HASH_PAIRS]


def identity_twins(field: str) -> list[Twin]:
    """The catalogue for one identity field (``tenant``, ``logical_id``, ``group``, ``status``); two
    transformations may make the same twin (NFKC and the ligature, say): both are listed."""
    return [twin for seed in IDENTITY_SEEDS[field] for twin in string_twins(field, seed)] + hash_twins(field)


NAME_VALUES: dict[str, tuple[str, ...]] = {
    "field and column names": ("tenant", "logical_id", "revision", "status", "groups", "group", "grp", "valid_from",
                               "valid_until", "id", "_id", "rowid", "oid", "key", "value", "metadata", "payload",
                               "document", "embedding", "vector", "score", "distance", "_distance", "active"),
    "query words": ("NULL", "null", "None", "true", "false", "AND", "OR", "NOT", "SELECT", "in", "nin", "$or", "$in",
                    "$ne", "$exists", "*", "%", "_", "?", "$1", ":1", "@p", "{tenant}", "%s", "%(tenant)s"),
    "quotes and escapes": ("'", "\"", "`", "\\", "' OR '1'='1", "\" OR \"1\"=\"1", "a'b", 'a"b', "a\\'b",
                           "x') OR ('1'='1", "];--", "{}", "[]", '{"$ne": null}'),
    "numbers as text": ("0", "-1", "1.0", "1e3", "NaN", "Infinity", "0x10", "007"),
}
"""Identity values that an interpreter (SQL, a query language, a template) may read as something else: a column
or field name, an operator, a placeholder, a quote. Each must match itself and nothing else."""

COMPOSITE_SEPARATORS = ("/", ":", "#", "|", ".", "-", "_", " ", "")
"""Separators a store may join ``tenant`` and ``logical_id`` with into one key: (``acme``, ``x:y``) and
(``acme:x``, ``y``) are different pairs that make the same string (a ``/`` in a tenant is malformed, but the
active map may still hold such a key)."""


