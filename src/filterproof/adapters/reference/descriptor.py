"""The reference: the oracle every other store is compared with (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

STORES = (
    Store("reference", "filterproof.adapters.reference:ReferenceAdapter",
          "filterproof.adapters.reference.store:ReferenceOptions", None,
          "exact in-memory cosine search (numpy), native filter = the policy; the oracle", "backends/reference.md",
          kind="oracle", order=0, embedded=True, freshness=("reference",), sweep=True,
          fuzz=(FuzzTarget("reference", "filterproof.fuzz.targets.reference:ReferenceTarget"),)),
)
