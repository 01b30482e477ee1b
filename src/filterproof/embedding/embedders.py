"""Where a run's vectors come from: filterproof's TF-IDF or SVD, the fixture's own, or the user's function.

``choose`` is the one place that decides, for ``truth.prepare`` (so for ``compare``,
``sweep`` and the conformance suite alike). What may be asked (``--embedding``, or
``prepare(embedding=...)``):

=====================  ===================================================================
None (not given)       the fixture's own vectors when it carries them, else ``tfidf``
``fixture``            the fixture's own vectors (an error when it carries none)
``tfidf``, ``svd``     filterproof's, fitted on the fixture's texts (``embedding``)
``module:callable``    the user's embedding function, imported when asked (``FunctionEmbedding``)
a callable             the same, given from Python
an ``Embedding``       used as it is (fitted on every document)
=====================  ===================================================================

A fixture that carries its own vectors and an embedding asked for anyway is an
error (``UsageError``): which vectors the verdicts are about must never be a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from filterproof.embedding.functions import FunctionEmbedding, function_label, import_callable
from filterproof.embedding.spaces import Embedding, SvdSpace, TfidfSpace
from filterproof.errors import UsageError
from filterproof.fixtures import CarriedVectors, Fixture
from filterproof.fixtures.chunks import texts_of

BUILT_IN = ("tfidf", "svd")
Request = str | Callable[..., Any] | Embedding | None


@dataclass(frozen=True)
class Choice:
    """The vectors of one fixture: the space that gives them, its label for the results, and how to read it."""

    space: Embedding
    label: str
    """``tfidf``, ``svd``, ``fixture``, or ``embedding:<module>:<callable>`` (``"vectors"`` in the results)."""
    streamed: bool = False
    """The documents' vectors come from ``space.transform``, chunk by chunk; else ``space.documents()``."""
    fit_sample: int | None = None
    """How many documents a built-in embedding was fitted on, when a sample (None: all of them)."""


@dataclass(frozen=True)
class VectorRequest:
    """What was asked for, parsed once (``module:callable`` imported) and used for every fixture of a run."""

    kind: str
    """``auto``, ``fixture``, ``tfidf``, ``svd``, ``function`` or ``space``."""
    label: str
    function: Callable[..., Any] | None = None
    space: Embedding | None = None


class CarriedSpace:
    """A fixture's own vectors as an ``Embedding``: they cover its documents and cases, nothing else."""

    def __init__(self, vectors: CarriedVectors) -> None:
        self._vectors, self.dim = vectors, vectors.dim

    def documents(self) -> np.ndarray:
        return self._vectors.documents

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        raise UsageError("a fixture's own vectors cover its own documents only")

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) != len(self._vectors.queries):
            raise UsageError(f"{len(texts)} queries for the fixture's {len(self._vectors.queries)} query vectors")
        return self._vectors.queries


def request_of(asked: Request | VectorRequest) -> VectorRequest:
    """Parse what was asked for; a ``module:callable`` is imported here, before any work."""
    if isinstance(asked, VectorRequest):
        return asked
    if asked is None:
        return VectorRequest("auto", "auto")
    if isinstance(asked, str):
        text = asked.strip()
        if text in (*BUILT_IN, "fixture"):
            return VectorRequest(text, text)
        return VectorRequest("function", f"embedding:{text}", function=import_callable(text))
    if all(hasattr(asked, name) for name in ("documents", "transform", "queries")):
        builtin = {TfidfSpace: "tfidf", SvdSpace: "svd"}.get(type(asked))  # type: ignore[call-overload]
        return VectorRequest("space", builtin or f"embedding:{function_label(type(asked))}", space=asked)
    if callable(asked):
        return VectorRequest("function", f"embedding:{function_label(asked)}", function=asked)
    raise UsageError(f"embedding: expected a name, module:callable, a callable or an Embedding, not {asked!r}")


def sampled(n: int, sample: int) -> bool:
    """Whether the embedding of ``n`` documents is fitted on a sample of ``sample`` of them (else on all)."""
    return 0 < sample < n


def fit_rows(n: int, sample: int, seed: int = 0) -> np.ndarray | None:
    """The rows the embedding is fitted on, sorted: a seeded sample of ``sample`` rows; None for all rows."""
    if not sampled(n, sample):
        return None
    return np.sort(np.random.default_rng(seed).choice(n, size=sample, replace=False))


def embed(fixture: Fixture, kind: str = "tfidf", dim: int = 128, seed: int = 0, sample: int = 0) -> Embedding:
    """Exact TF-IDF (one dimension per term: exact seed scores) or TF-IDF + TruncatedSVD (dense, ``dim``),
    fitted on every document, or on a seeded sample of ``sample`` documents when there are more."""
    rows = fit_rows(len(fixture.documents), sample, seed)
    texts = texts_of(fixture, range(len(fixture.documents)) if rows is None else rows.tolist())
    return TfidfSpace(texts) if kind == "tfidf" else SvdSpace(texts, dim=dim, seed=seed)


def resolved(fixture: Fixture, asked: Request | VectorRequest, fallback: str = "tfidf") -> VectorRequest:
    """What ``asked`` means for ``fixture``: not given, its own vectors if it carries them, else ``fallback``.
    A fixture that carries vectors and another embedding asked for (or ``fixture`` asked of one that carries
    none) is a ``UsageError``."""
    request = request_of(asked)
    carried = fixture.vectors
    if request.kind == "auto":
        request = request_of("fixture" if carried is not None else fallback)
    if carried is not None and request.kind != "fixture":
        raise UsageError(f"{fixture.path}: the fixture carries its own vectors ({carried.origin}), and --embedding "
                         f"{request.label.removeprefix('embedding:')} asks for others: leave --embedding out to use "
                         "the fixture's, or use a copy of the fixture without them")
    if request.kind == "fixture" and carried is None:
        raise UsageError(f"{fixture.path}: --embedding fixture, but the fixture carries no vectors "
                         "(a \"vector\" on every document and case, or .npy files)")
    return request


def choose(fixture: Fixture, asked: Request | VectorRequest, dim: int, fit_sample: int) -> Choice:
    """The vectors of ``fixture`` for what was asked (module docstring; ``resolved``)."""
    request = resolved(fixture, asked)
    if request.kind == "fixture":
        assert fixture.vectors is not None
        return Choice(CarriedSpace(fixture.vectors), "fixture")
    if request.kind == "function":
        assert request.function is not None
        name = request.label.removeprefix("embedding:")
        return Choice(FunctionEmbedding(request.function, name), request.label, streamed=True)
    if request.kind == "space":
        assert request.space is not None
        return Choice(request.space, request.label)
    on_sample = sampled(len(fixture.documents), fit_sample)
    space = embed(fixture, request.kind, dim, sample=fit_sample)
    return Choice(space, request.kind, streamed=on_sample, fit_sample=fit_sample if on_sample else None)
