"""Defects in comparing identities: tenants, logical ids and groups that a store does not keep exact.

The policy compares identity strings exactly. A store that folds case, strips
accents, normalises Unicode, stops at a NUL character, or finds tenants through a
``tenant/logical_id`` path, makes two distinct identities one: a leak across tenants
or groups.
"""

from __future__ import annotations

import unicodedata
import urllib.parse
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.base import Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects.clauses import RowPredicate
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible, is_text


class RewritesIdentities(RowPredicate):
    """Rewrites the identities of ``fields`` (stored, asked and in the active map's keys) through ``rewrite``
    before comparing exactly."""

    fields: tuple[str, ...] = ("tenant", "logical_id", "status", "groups")

    @staticmethod
    def rewrite(value: str) -> str:
        return value

    def _text(self, name: str, value: Any) -> Any:
        return self.rewrite(value) if name in self.fields and isinstance(value, str) else value

    def _meta(self, meta: Mapping[str, Any]) -> dict[str, Any]:
        out = {**meta, **{k: self._text(k, meta[k]) for k in ("tenant", "logical_id", "status") if k in meta}}
        if isinstance(meta.get("groups"), list):
            out["groups"] = [self._text("groups", g) for g in meta["groups"]]
        return out

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        principal = Principal(self._text("tenant", where.principal.tenant),
                              tuple(self._text("groups", g) for g in where.principal.groups))
        active = ActiveRevisions.of({(self._text("tenant", t), self._text("logical_id", lid)): r
                                     for (t, lid), r in where.active.items()})
        return PolicyFilter(principal, where.as_of, active)

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        return is_eligible(self._meta(meta), where)


class CaseFoldsIdentities(RewritesIdentities):
    """Compares identities case-insensitively (a case-insensitive collation, a lowercased keyword field)."""

    name = "defect-case-folds-identities"

    @staticmethod
    def rewrite(value: str) -> str:
        return value.casefold()


class NormalizesUnicode(RewritesIdentities):
    """Stores and asks identities in NFC, so ``"a\\u0301cme"`` (NFD) is ``"ácme"`` (NFC)."""

    name = "defect-normalizes-unicode"

    @staticmethod
    def rewrite(value: str) -> str:
        return unicodedata.normalize("NFC", value)


class FoldsAccents(RewritesIdentities):
    """Strips accents (an ASCII-folding analyzer): ``"ácme"`` is ``"acme"``."""

    name = "defect-folds-accents"

    @staticmethod
    def rewrite(value: str) -> str:
        return "".join(c for c in unicodedata.normalize("NFD", value) if not unicodedata.combining(c))


class TruncatesAtNul(RewritesIdentities):
    """Reads identities as C strings, up to the first NUL: ``"acme\\x00evil"`` is ``"acme"`` (SQLite's JSON
    functions do this)."""

    name = "defect-truncates-at-nul"

    @staticmethod
    def rewrite(value: str) -> str:
        return value.split("\x00", 1)[0]


class TrimsWhitespace(RewritesIdentities):
    """Trims leading and trailing whitespace from every identity (a loader, a form handler, a driver that
    strips strings; SQL PAD SPACE comparisons do the same at the end): ``"acme "`` is ``"acme"``."""

    name = "defect-trims-whitespace"

    @staticmethod
    def rewrite(value: str) -> str:
        return value.strip()


class FoldsCompatibilityForms(RewritesIdentities):
    """Normalises identities to NFKC (Elasticsearch's ``icu_normalizer``, some drivers): full-width letters
    and ligatures fold, ``"\ufb01n"`` is ``"fin"``."""

    name = "defect-folds-compatibility-forms"

    @staticmethod
    def rewrite(value: str) -> str:
        return unicodedata.normalize("NFKC", value)


class StripsIgnorables(RewritesIdentities):
    """Removes invisible format characters (zero-width space and joiners, the byte-order mark, the soft
    hyphen), as text cleaners and ICU collation do: ``"ac\u200bme"`` is ``"acme"``."""

    name = "defect-strips-ignorables"

    @staticmethod
    def rewrite(value: str) -> str:
        return "".join(c for c in value if unicodedata.category(c) != "Cf")


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class NocaseLogicalIds(RewritesIdentities):
    """Keys the active map by logical id in a ``COLLATE NOCASE`` column (SQLite's folds ASCII letters only):
    tenants and groups stay exact, but ``doc-A`` finds the map entry of ``doc-a``."""

    name = "defect-nocase-logical-ids"
    fields = ("logical_id",)

    @staticmethod
    def rewrite(value: str) -> str:
        return value.translate(_ASCII_LOWER)


class CaseInsensitiveStatus(RewritesIdentities):
    """Compares the status case-insensitively (``status ILIKE 'active'``): ``"Active"`` counts as active."""

    name = "defect-case-insensitive-status"
    fields = ("status",)

    @staticmethod
    def rewrite(value: str) -> str:
        return value.casefold()


class EmptyMeansAny(RowPredicate):
    """Drops a clause whose asked value is empty, as filter builders that skip falsy values do: a principal
    of tenant ``""`` is asked with no tenant clause."""

    name = "defect-empty-means-any"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        tenant = meta.get("tenant") if where.principal.tenant == "" else where.principal.tenant
        if not isinstance(tenant, str):
            return False
        return is_eligible(meta, PolicyFilter(Principal(tenant, where.principal.groups), where.as_of, where.active))


class TenantByKeyPrefix(RowPredicate):
    """Finds a tenant's documents by the prefix ``principal.tenant + "/"`` of their ``tenant/logical_id`` key,
    so a principal "acme/x" is shown acme's document "x/y"."""

    name = "defect-tenant-by-key-prefix"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        tenant, logical_id = meta.get("tenant"), meta.get("logical_id")
        if not isinstance(tenant, str) or not isinstance(logical_id, str):
            return False
        if not f"{tenant}/{logical_id}".startswith(where.principal.tenant + "/"):
            return False
        return is_eligible(meta, PolicyFilter(Principal(tenant, where.principal.groups), where.as_of, where.active))


class HashedGroups(RowPredicate):
    """Indexes groups by their CRC-32 and never compares the names (a bitmap per hashed tag): ``plumless`` and
    ``buckeroo`` are one group."""

    name = "defect-hashed-groups"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        asked = {zlib.crc32(g.encode("utf-8", "surrogatepass")) for g in where.principal.groups if isinstance(g, str)}
        groups = meta.get("groups")
        stored = [g for g in groups if isinstance(g, str)] if isinstance(groups, list) else []
        shared = [g for g in stored if zlib.crc32(g.encode("utf-8", "surrogatepass")) in asked]
        if not shared:
            return False
        return is_eligible(meta, PolicyFilter(Principal(where.principal.tenant, (shared[0],)), where.as_of,
                                              where.active))


COLUMNS = ("tenant", "logical_id", "revision", "status", "groups", "valid_from", "valid_until", "id")


class QuotedNamesAsColumns(RowPredicate):
    """Pastes asked values into SQL in double quotes, which SQLite reads as a column name when one exists: a
    principal whose group or tenant is spelled like a column compares that column with itself (always true)."""

    name = "defect-quoted-names-as-columns"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        tenant = meta.get("tenant") if where.principal.tenant in COLUMNS else where.principal.tenant
        groups = meta.get("groups") if any(g in COLUMNS for g in where.principal.groups) else None
        asked = tuple(groups) if isinstance(groups, list) and all(isinstance(g, str) for g in groups) \
            else where.principal.groups
        if not isinstance(tenant, str):
            return False
        return is_eligible(meta, PolicyFilter(Principal(tenant, asked), where.as_of, where.active))


class JoinedMapKeys(RowPredicate):
    """Keeps the active map as ``{tenant}:{logical_id}`` strings: (``acme``, ``x:y``) and (``acme:x``, ``y``) are
    one key, so a document borrows the other pair's revision."""

    name = "defect-joined-map-keys"

    _joined: tuple[ActiveRevisions, dict[str, int]] | None = None

    def joined(self, active: ActiveRevisions) -> dict[str, int]:
        """The map as joined strings, built once per map (the last key written wins, as in a dict)."""
        if self._joined is None or self._joined[0] is not active:
            self._joined = (active, {f"{t}:{lid}": r for (t, lid), r in active.items()})
        return self._joined[1]

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        joined = self.joined(where.active)
        tenant, logical_id = meta.get("tenant"), meta.get("logical_id")
        if not isinstance(tenant, str) or not isinstance(logical_id, str):
            return False
        key = f"{tenant}:{logical_id}"
        if key not in joined:
            return False
        active = ActiveRevisions.of({(tenant, logical_id): joined[key]})
        return is_eligible(meta, PolicyFilter(where.principal, where.as_of, active))


class FirstWriteWidth(ReferenceAdapter):
    """Sizes its tenant column from the first upsert and truncates longer tenants written later: ``acme`` first,
    then ``acme-corp`` is stored as ``acme`` (a leak across tenants)."""

    name = "defect-first-write-width"

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._width: int | None = None

    def _cut(self, metadata: Mapping[str, Any]) -> dict[str, Any]:
        tenant = metadata.get("tenant")
        if not isinstance(tenant, str) or self._width is None:
            return dict(metadata)
        return {**metadata, "tenant": tenant[: self._width]}

    def upsert(self, records: Sequence[Record]) -> None:
        if self._width is None and records:
            self._width = max((len(t) for r in records if isinstance(t := r.metadata.get("tenant"), str)), default=8)
        super().upsert([Record(r.id, r.vector, self._cut(r.metadata)) for r in records])

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        super().update_metadata(id, self._cut(metadata))


class EncodesWithReplacement(RewritesIdentities):
    """Encodes identities with ``errors="replace"`` before it checks them: a lone surrogate becomes ``?``, so a
    malformed identity passes and equals an ordinary one."""

    name = "defect-encodes-with-replacement"

    @staticmethod
    def rewrite(value: str) -> str:
        return value.encode("utf-8", "replace").decode("utf-8")


class DecodesKeyPaths(RewritesIdentities):
    """Keeps the active map behind ``PUT /revisions/{tenant}/{logical_id}`` without percent-encoding the logical
    id: the server decodes ``%65`` into ``e`` and cuts at ``?`` or ``#``."""

    name = "defect-decodes-key-paths"
    fields = ("logical_id",)

    @staticmethod
    def rewrite(value: str) -> str:
        return urllib.parse.unquote(value).split("?")[0].split("#")[0]


class GroupBitmask(RowPredicate):
    """Interns groups, in the order they are first written, as bits of a 64-bit mask: from the 65th distinct group
    on there is no bit, and those groups match nothing."""

    name = "defect-group-bitmask"

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._bits: dict[str, int] = {}

    def _intern(self, metadata: Mapping[str, Any]) -> None:
        groups = metadata.get("groups")
        for group in groups if isinstance(groups, list) else []:
            if isinstance(group, str):
                self._bits.setdefault(group, len(self._bits))

    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            self._intern(record.metadata)
        super().upsert(records)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        if id in self._row:
            self._intern(metadata)
        super().update_metadata(id, metadata)

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        asked = tuple(g for g in where.principal.groups if self._bits.get(g, 64) < 64)
        return is_eligible(meta, PolicyFilter(Principal(where.principal.tenant, asked), where.as_of, where.active))


class GroupSlots(RowPredicate):
    """Keeps a document's groups in eight columns (``group_0`` .. ``group_7``): a document's ninth group and
    later are dropped on write, so a principal holding only one of those never sees it."""

    name = "defect-group-slots"
    SLOTS = 8

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        groups = meta.get("groups")
        kept = {**meta, "groups": groups[:self.SLOTS]} if isinstance(groups, list) and groups else meta
        return is_eligible(kept, where)


class CapsPrincipalGroups(RowPredicate):
    """Compiles at most the first 1,000 of a principal's groups (an ``IN`` list capped at 1,000 values, a
    clause limit met by truncating): a document in a later group is never returned to that principal."""

    name = "defect-caps-principal-groups"
    CAP = 1_000

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        asked = Principal(where.principal.tenant, where.principal.groups[:self.CAP])
        return is_eligible(meta, PolicyFilter(asked, where.as_of, where.active))


class AbsentTenantAsEmpty(RowPredicate):
    """Writes a missing or null tenant as ``''`` (a driver's ``None`` becomes the empty string, then the
    document passes as well formed): a principal whose tenant is ``''`` reads the malformed document."""

    name = "defect-absent-tenant-as-empty"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        return is_eligible({**meta, "tenant": "" if meta.get("tenant") is None else meta["tenant"]}, where)


class FoldsKeyCase(RowPredicate):
    """Reads metadata keys case-insensitively, the last one written winning (columns named by unquoted SQL
    identifiers, a case-insensitive schema): a document without a tenant but with ``Tenant`` is read as well
    formed, and one whose ``Tenant`` follows its ``tenant`` is read as the other tenant's."""

    name = "defect-folds-key-case"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        return is_eligible({str(key).lower(): value for key, value in meta.items()}, where)


class UnterminatedHexEscapes(RewritesIdentities):
    """Escapes every character beyond ASCII as ``\\x`` and at least four hex digits, with no terminator (a
    hand-written escaper for a filter language's string literals): the emoji U+1F600 becomes ``\\x1f600``, which
    is also what U+1F60 followed by ``0`` becomes."""

    name = "defect-unterminated-hex-escapes"

    @staticmethod
    def rewrite(value: str) -> str:
        if not is_text(value):  # judged malformed before it is escaped, as the adapters do
            return value
        return "".join(f"\\x{ord(c):04x}" if ord(c) > 0x7F else c for c in value)
