"""Adapters with one deliberate defect each, to show what the suite catches and how it says so.

    pytest --pyargs filterproof.conformance --adapter filterproof.conformance.defects:IgnoresValidUntil
    pytest --pyargs filterproof.conformance --adapter filterproof.conformance.defects:WindowedNearest \\
        --backend-option window=100000

Each is the reference adapter with one mistake that real store adapters make; the
suite's own tests (``tests/test_conformance_suite.py``) show each failing, and with
which message. ``DEFECTS`` maps each name to its class.
"""

from __future__ import annotations

from filterproof.conformance.defects.clauses import (
    CachesAcrossRevocation,
    DropsOpenEnded,
    DropsTenantClause,
    GroupsStringAsList,
    IgnoresValidUntil,
    RowPredicate,
    SilentlyShort,
)
from filterproof.conformance.defects.dates import LenientDates, LexicalDates, LocalTimeAsOf
from filterproof.conformance.defects.identity import (
    CaseFoldsIdentities,
    FoldsAccents,
    NormalizesUnicode,
    TenantByKeyPrefix,
    TruncatesAtNul,
)
from filterproof.conformance.defects.store import (
    AppendsOnUpsert,
    BatchUsesFirstFilter,
    DotProductScores,
    FixedCandidatePool,
    LazyRevisionFlag,
    OnePageMetadata,
    RaisesOnUnknownDelete,
    WindowedNearest,
)

__all__ = [
    "DEFECTS", "AppendsOnUpsert", "BatchUsesFirstFilter", "CachesAcrossRevocation", "CaseFoldsIdentities",
    "DotProductScores", "DropsOpenEnded", "DropsTenantClause", "FixedCandidatePool", "FoldsAccents",
    "GroupsStringAsList",
    "IgnoresValidUntil", "LazyRevisionFlag", "LenientDates", "LexicalDates", "LocalTimeAsOf", "NormalizesUnicode",
    "OnePageMetadata",
    "RaisesOnUnknownDelete", "RowPredicate", "SilentlyShort", "TenantByKeyPrefix", "TruncatesAtNul",
    "WindowedNearest",
]

DEFECTS = {cls.__name__: cls for cls in (
    IgnoresValidUntil, GroupsStringAsList, DropsTenantClause, CachesAcrossRevocation, SilentlyShort, DropsOpenEnded,
    LexicalDates, LenientDates, LocalTimeAsOf,
    CaseFoldsIdentities, NormalizesUnicode, FoldsAccents, TruncatesAtNul, TenantByKeyPrefix,
    AppendsOnUpsert, RaisesOnUnknownDelete, DotProductScores, BatchUsesFirstFilter, WindowedNearest, OnePageMetadata,
    LazyRevisionFlag, FixedCandidatePool,
)}
