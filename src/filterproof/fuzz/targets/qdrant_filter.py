"""Qdrant's filter language for the ``qdrant`` fuzz targets: the neutral filter as the source of a ``Filter`` in
either model family, qdrant-client's (``qdrant_client.models``, keyword arguments: ``qdrant-local``,
``qdrant-server``) or Qdrant's engine in process (``qdrant_edge``, positional: ``qdrant-edge``); the stores are
``qdrant``'s.

Rendering, spellings and Qdrant's rules are written once in ``adapters.qdrant.language`` (``Qdrant``, strict, with
this target's field kinds, which say where ``exists`` has a faithful form: scalar fields only), the renderer the
``qdrant`` adapters compile their policy with: what the fuzzer judges is what the adapters send. ``equivalent =
(1,)``: the ``spelling`` oracle compares spelling 1 (``min_should``, ``FieldCondition(is_null=True)``, one
``MatchAny`` for ``eq``) with 0; spelling 2 (``MatchExcept`` for ``ne``/``nin``, which Qdrant's documentation does
not make equal to ``must_not``) is judged by the other oracles.
"""

from __future__ import annotations

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.qdrant.language import Family, Qdrant
from filterproof.fuzz.generate import FIELDS

KINDS = {f.name: f.kind for f in FIELDS}
"""The kind of value each field holds (``exists`` is said for the scalar ones alone)."""


def source(expr: Expr, family: Family, spelling: int = 0) -> str:
    """The ``Filter`` for ``expr`` as Python source over ``family``'s module (``models`` or ``qe``)."""
    return Qdrant(family, spelling, KINDS).source(expr)
