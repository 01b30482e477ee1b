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
from filterproof.conformance.defects.clients import ReaderCachesResults, ReaderRefreshesLate
from filterproof.conformance.defects.dates import (
    EmptyWindowIsOpen,
    EpochDayZeroIsOpen,
    Int32Seconds,
    LenientDates,
    LexicalDates,
    LocalTimeAsOf,
    SentinelOpenEnd,
    StrptimeDates,
)
from filterproof.conformance.defects.identity import (
    CapsPrincipalGroups,
    CaseFoldsIdentities,
    CaseInsensitiveStatus,
    DecodesKeyPaths,
    EmptyMeansAny,
    EncodesWithReplacement,
    FirstWriteWidth,
    FoldsAccents,
    FoldsCompatibilityForms,
    GroupBitmask,
    GroupSlots,
    HashedGroups,
    JoinedMapKeys,
    NocaseLogicalIds,
    NormalizesUnicode,
    QuotedNamesAsColumns,
    StripsIgnorables,
    TenantByKeyPrefix,
    TrimsWhitespace,
    TruncatesAtNul,
)
from filterproof.conformance.defects.lifecycle import (
    FlagKeptOnUpdate,
    FlagKeptWhenPairLeaves,
    FlushesDeletesFirst,
    OptimizeRestoresFlags,
    StoredFlags,
    TombstoneRevives,
    UpdateResurrects,
    ZoneMapWidenedOnUpsert,
)
from filterproof.conformance.defects.revisions import (
    Float32Revisions,
    Float64Revisions,
    Int32Revisions,
    PacksRevisionsLoosely,
    RevisionKeyPrefix,
)
from filterproof.conformance.defects.scale import (
    BatchMasksWithoutDate,
    FixedCandidatePool,
    IndexBuiltOnce,
    OnePageMetadata,
    StaleBitmapIndex,
    WindowedNearest,
)
from filterproof.conformance.defects.sizes import (
    BrokenByBigDocument,
    CapsActiveMap,
    ComparesPrefixes,
    DropsBigDocuments,
    RefusesTooEagerly,
)
from filterproof.conformance.defects.store import (
    AppendsOnUpsert,
    BatchUsesFirstFilter,
    DotProductScores,
    KeepsFirstOfRepeats,
    LazyRevisionFlag,
    RaisesOnUnknownDelete,
    ResetKeepsGroupRows,
)

DEFECTS = {cls.__name__: cls for cls in (
    IgnoresValidUntil, GroupsStringAsList, DropsTenantClause, CachesAcrossRevocation, SilentlyShort, DropsOpenEnded,
    LexicalDates, LenientDates, LocalTimeAsOf, EpochDayZeroIsOpen, Int32Seconds, EmptyWindowIsOpen, SentinelOpenEnd,
    StrptimeDates,
    CaseFoldsIdentities, NormalizesUnicode, FoldsAccents, TruncatesAtNul, TenantByKeyPrefix, TrimsWhitespace,
    FoldsCompatibilityForms, StripsIgnorables, NocaseLogicalIds, CaseInsensitiveStatus, EmptyMeansAny,
    HashedGroups, QuotedNamesAsColumns, JoinedMapKeys, FirstWriteWidth, EncodesWithReplacement, DecodesKeyPaths,
    GroupBitmask, GroupSlots, CapsPrincipalGroups, BrokenByBigDocument, DropsBigDocuments, RefusesTooEagerly,
    ComparesPrefixes, CapsActiveMap,
    Int32Revisions, Float64Revisions, Float32Revisions, RevisionKeyPrefix, PacksRevisionsLoosely,
    FlagKeptOnUpdate, FlagKeptWhenPairLeaves, TombstoneRevives, UpdateResurrects, FlushesDeletesFirst,
    OptimizeRestoresFlags, ZoneMapWidenedOnUpsert,
    AppendsOnUpsert, KeepsFirstOfRepeats, RaisesOnUnknownDelete, ResetKeepsGroupRows, DotProductScores,
    BatchUsesFirstFilter,
    WindowedNearest, OnePageMetadata,
    LazyRevisionFlag, FixedCandidatePool, IndexBuiltOnce, StaleBitmapIndex, BatchMasksWithoutDate,
    ReaderCachesResults, ReaderRefreshesLate,
)}
"""Every seeded defect by class name (``StoredFlags``, the correct stored-flag store they build on, is not one)."""

__all__ = ["DEFECTS", "RowPredicate", "StoredFlags", *DEFECTS]  # the defects, and the two bases they build on
