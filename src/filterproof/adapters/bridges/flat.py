"""The flat encoding of the policy fields, for frameworks whose filters are numeric-ranged and flat (pure).

The Chroma engine adapter's encoding (``adapters.chroma.where.stored_metadata``): flat
scalars, dates as integers ``YYYYMMDD``, an open ``valid_until`` as ``OPEN_UNTIL``, and a
malformed document stored without any policy field; without its None fields (these
metadata are added, never merged), with our id in ``fp_id``, and groups as the
integration can filter them (``Groups``). Used by the LlamaIndex bridges and
``langchain-pgvector``; imports no framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from filterproof.adapters.chroma.where import GROUPS, stored_metadata
from filterproof.adapters.qdrant.payload import ID

Groups = Literal["list", "any", "flags", "hex"]
"""How groups are stored: a list (``list``, ``any``: the integration's list operator), one key per group named
``fp_group:<name>`` (``flags``), or one key per group named by the hex of its UTF-8 name (``hex``: for integrations
that take only identifiers as keys, or cut a key at its dots)."""
GROUP_FLAG = "fp_group:"


def group_key(group: str) -> str:
    """A group as a metadata key of letters, digits and underscores only: langchain-postgres refuses keys that are
    not identifiers, and chroma-haystack keeps only a key's last dotted segment (integration finding 12)."""
    return "fp_group_" + group.encode().hex()


def node_metadata(doc_id: str, meta: Mapping[str, Any], groups: Groups) -> dict[str, Any]:
    """A node's metadata: the Chroma engine encoding without its None fields (nodes are added, never merged;
    ``ChromaVectorStore.add`` would write a None as ``""``), our id in ``fp_id``, groups per ``groups``."""
    stored = {key: value for key, value in stored_metadata(meta).items() if value is not None}
    stored[ID] = doc_id
    if groups == "flags" and GROUPS in stored:
        stored.update({GROUP_FLAG + group: 1 for group in stored.pop(GROUPS)})
    elif groups == "hex" and GROUPS in stored:
        stored.update({group_key(group): 1 for group in stored.pop(GROUPS)})
    return stored
