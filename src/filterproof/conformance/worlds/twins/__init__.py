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
* **controls**: the other control characters (C0, DEL, C1), which text cleaners and XML 1.0
  serialisers strip or replace, and which an expression's string literal may not take raw.
* **nul**: C strings stop at U+0000 (SQLite's JSON functions, C extensions).
* **encoding errors**: text encoded with ``errors="replace"`` (or decoded so) before it
  is checked turns a lone surrogate into ``?`` or U+FFFD, so a malformed identity
  equals an ordinary one.
* **url**: identities put into URL paths without percent-encoding: the server decodes
  ``%6F`` into ``o``, cuts at ``?`` or ``#``, and may read ``+`` as a space.
* **astral**: characters beyond U+FFFF (emoji) where UTF-16 or narrow storage reaches: a JSON
  surrogate pair decoded escape by escape, UCS-2 keeping the low 16 bits, a 3-byte UTF-8 column
  (MySQL's ``utf8mb3``) cutting the string there, a 4-digit hex escape written without a
  terminator (``\\x1f600`` reads back as U+1F60 and ``0``), a lossy encoder's U+FFFD.
* **empty**: an empty string read as missing (Oracle: ``'' IS NULL``) or dropped
  by a filter builder, so that the clause matches everything.
* **collation**: language collations equate ``ß`` and ``ss`` (``utf8mb4_unicode_ci``,
  ICU), a ligature and its letters, the Kelvin sign and ``K``, the long s and ``s``.
* **hash**: strings whose 32-bit hashes are equal (``HASH_PAIRS``), for stores that key
  identities by a hash and never compare the strings.
* **names and quotes** (``NAME_VALUES``): values an interpreter reads as a column name, an
  operator, a placeholder or a quote, when a store pastes them into a query.
* **composite keys** (``COMPOSITE_SEPARATORS``): pairs a joined ``tenant``/``logical_id``
  key makes one.

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

from filterproof.conformance.worlds.twins.base import Twin, shown
from filterproof.conformance.worlds.twins.days import (
    DATE_BOUNDARIES,
    DATE_SPELLINGS,
    NOT_DAYS,
    WINDOW_SHAPES,
    asked_days,
    shifted,
    spellings,
    window,
)
from filterproof.conformance.worlds.twins.numbers import OUT_OF_RANGE, REVISION_TWINS, revision_twins
from filterproof.conformance.worlds.twins.strings import (
    COMPOSITE_SEPARATORS,
    HASH_PAIRS,
    IDENTITY_SEEDS,
    NAME_VALUES,
    NUL,
    SECOND_SEED,
    STRING_FAMILIES,
    identity_twins,
    string_twins,
)

__all__ = ["COMPOSITE_SEPARATORS", "DATE_BOUNDARIES", "DATE_SPELLINGS", "HASH_PAIRS", "IDENTITY_SEEDS", "NAME_VALUES",
           "NOT_DAYS", "NUL", "OUT_OF_RANGE", "REVISION_TWINS", "SECOND_SEED", "STRING_FAMILIES", "WINDOW_SHAPES",
           "Twin", "asked_days", "identity_twins", "revision_twins", "shifted", "shown", "spellings", "string_twins",
           "window"]
