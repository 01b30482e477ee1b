"""Identity checks: tenants and groups compare as exact strings, whatever they look like.

Near misses meet a principal here: prefixes, letter case, accents, NFC against NFD,
a ``/`` in a principal's tenant, a NUL character in a stored or asked identity.
"""

from __future__ import annotations

import unicodedata

from filterproof.adapters.base import Adapter
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twins import shown
from filterproof.policy import PolicyFilter, Principal

NFC_TENANT = unicodedata.normalize("NFC", "ácme")
NFD_TENANT = unicodedata.normalize("NFD", "ácme")
NFC_GROUP = unicodedata.normalize("NFC", "ingeniería")
NFD_GROUP = unicodedata.normalize("NFD", "ingeniería")
LOOKALIKE_TENANTS = ("acme", "Acme", "ACME", NFC_TENANT, NFD_TENANT)
LOOKALIKE_GROUPS = ("eng", "Eng", "ENG", NFC_GROUP, NFD_GROUP, "ingenieria", "straße", "strasse")


class IdentityChecks:
    """Tenant isolation and exact group matching, against every near miss of a name."""

    def test_tenant_isolation(self, native: Adapter) -> None:
        """A principal never sees another tenant's documents, even when the names share a prefix.

        If this fails: the tenant clause is missing, or matches by prefix/substring
        (``acme`` must not match ``acme-corp``), or is case-folded.
        """
        docs = {"own": sc.meta(), "prefix": sc.meta(tenant="acme-corp"), "short": sc.meta(tenant="acm"),
                "upper": sc.meta(tenant="ACME"), "empty": sc.meta(tenant="")}
        s = sc.Scenario.build(native, docs)
        for tenant in ("acme", "acme-corp", "acm", "ACME", "", "ac"):
            where = PolicyFilter(sc.principal(tenant), sc.AS_OF, sc.active_for(docs))
            sc.expect_policy(s, where, f"tenant {shown(tenant)}")

    def test_groups_are_exact_strings(self, native: Adapter) -> None:
        """Groups match exactly: any shared group admits; operator-like, unicode and long names work.

        If this fails: a group name was interpreted as an operator (``$or``), matched as
        a substring, or a principal without groups matched everything.
        """
        long_group = "g" * 1000
        docs = {"dollar": sc.meta(groups=["$or"]), "two": sc.meta(groups=["finance", "engineering"]),
                "unicode": sc.meta(groups=["工程", "ingeniería"]), "long": sc.meta(groups=[long_group]),
                "sub": sc.meta(groups=["engineering-leads"])}
        s = sc.Scenario.build(native, docs)
        for groups in (("$or",), ("finance",), ("工程",), (long_group,), ("engineering",), ("engine",), ()):
            where = PolicyFilter(Principal(sc.TENANT, groups), sc.AS_OF, sc.active_for(docs))
            sc.expect_policy(s, where, f"groups {shown(groups)}")

    def test_case_accents_and_unicode_forms_are_distinct_identities(self, native: Adapter) -> None:
        """Tenants and groups differing only by letter case, by accents, or by NFC against NFD never match
        each other.

        If this fails: the store folds case (a case-insensitive collation, a lowercased
        keyword field), strips accents (an ASCII-folding analyzer) or normalises Unicode
        on write or on query. Store and compare identities as the exact code points given.
        """
        docs = {f"t-{i}": sc.meta(tenant=t, logical_id="t") for i, t in enumerate(LOOKALIKE_TENANTS)}
        docs |= {f"g-{i}": sc.meta(logical_id=f"g{i}", groups=[g]) for i, g in enumerate(LOOKALIKE_GROUPS)}
        s = sc.Scenario.build(native, docs)
        active = sc.active_for(docs)
        for tenant in LOOKALIKE_TENANTS:
            sc.expect_policy(s, PolicyFilter(sc.principal(tenant), sc.AS_OF, active), f"tenant {shown(tenant)}")
        for group in LOOKALIKE_GROUPS:
            sc.expect_policy(s, PolicyFilter(Principal(sc.TENANT, (group,)), sc.AS_OF, active), f"group {shown(group)}")

    def test_a_slash_in_the_principal_tenant_is_not_a_path(self, native: Adapter) -> None:
        """A principal whose tenant holds "/" matches nothing; it never reaches into a tenant's logical ids.

        If this fails: the tenant clause was built from the ``tenant/logical_id`` key
        (a prefix match on ``principal.tenant + "/"`` shows principal "acme/x" the
        document "x/y" of tenant acme). Compare the tenant field itself.
        """
        docs = {"nested": sc.meta(logical_id="x/y"), "flat": sc.meta(logical_id="x"),
                "slashed": sc.meta(tenant="acme/x", logical_id="y")}
        s = sc.Scenario.build(native, docs)
        for tenant in ("acme/x", "acme/", "acme/x/y", "acme"):
            sc.expect_policy(s, PolicyFilter(sc.principal(tenant), sc.AS_OF, sc.active_for(docs)),
                             f"tenant {shown(tenant)}")

    def test_nul_characters_fail_closed(self, native: Adapter) -> None:
        """An identity holding U+0000 is malformed when stored and matches nothing when asked.

        If this fails: a layer reads strings as C strings and stops at the NUL (SQLite's
        JSON functions read ``"acme\\u0000evil"`` as ``acme``), so two identities become
        one. Reject or mark malformed any tenant, logical_id, status or group holding
        U+0000 before it reaches such a layer.
        """
        docs = {"clean": sc.meta(), "nul-tenant": sc.meta(tenant="acme\x00evil", logical_id="t"),
                "nul-logical": sc.meta(logical_id="l\x00x"), "nul-status": sc.meta(logical_id="s", status="active\x00"),
                "nul-group": sc.meta(logical_id="g", groups=["engineering\x00x"])}
        s = sc.Scenario.build(native, docs)
        active = sc.active_for(docs)
        for principal in (sc.principal(), sc.principal("acme\x00evil"), sc.principal("acme\x00"),
                          Principal(sc.TENANT, ("engineering\x00x",)), Principal(sc.TENANT, ("engineering\x00",))):
            sc.expect_policy(s, PolicyFilter(principal, sc.AS_OF, active), "NUL in an identity")
