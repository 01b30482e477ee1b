"""A fuzz target: one engine's own filter language over one store, and a standalone script that does the same.

A target renders a neutral filter (``lang``) into the engine's native filter as
*Python source* (``render``: ``models.Filter(must=[...])``, a ``where`` dict, an SQL
or Milvus expression string), so that the same text is what the fuzzer evaluates and
what the reproducer prints. A language with no faithful form for a condition raises
``Unsupported`` with the reason (the case is skipped and counted). ``load`` writes a
world of raw documents (``{id: payload}``, no policy encoding); ``ask`` returns the ids
a native filter selects, through one of the target's ``vias`` (a filtered search with
k = the collection size, a filtered scroll, a filtered count...), with the payload
indexes built or not (``indexed``). Two capabilities are optional: ``optimizable``
(the world also written around the engine's own ``optimize()``, asked before and
after it) and ``says_unknown`` (the language can select the documents on which a
filter is unknown, SQL's ``(P) IS NULL``: ``render_unknown``).

``script`` writes the reproducer's part for this engine: imports, the setup that loads
``DOCS`` into the store, and a function ``ask_<slug>(native, via)``; it uses the
engine's client alone (no filterproof import).

An engine that raises on a filter its own language accepts is a finding; a target
whose own code raises is not: the exceptions of ``engine_errors`` (the engine's and
its client's) are the engine's answer, any other exception out of ``render``, ``ask``,
``load`` or ``script`` is the target's bug, raised as ``TargetFailed`` (the command
ends with exit 2, naming the target, the method and where). ``Unsupported`` and a
skeleton's ``NotImplementedError`` pass as they are.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from filterproof import installed_versions
from filterproof.adapters.filterlang import Expr, Unsupported
from filterproof.fuzz.generate import Allows

Docs = Mapping[str, Mapping[str, Any]]


class TargetFailed(Exception):
    """A target's own code raised (not the engine's error, ``Target.engine_errors``): a bug in the target, which
    must not pass for an engine's finding. ``__cause__`` is the exception."""

    def __init__(self, target: str, method: str, error: BaseException) -> None:
        super().__init__(f"the fuzz target {target} failed in {method}: {type(error).__name__}: "
                         f"{' '.join(str(error).split())[:300]}")
        self.target, self.method, self.error = target, method, error


@dataclass(frozen=True)
class Script:
    """A target's part of a reproducer."""

    imports: str
    setup: str
    """Statements that load ``DOCS`` (a dict of id -> payload, defined before) into a fresh store."""
    ask: str
    """The name of the function ``(native, via) -> set of ids`` the setup defines."""


class Target(ABC):
    name: ClassVar[str]
    packages: ClassVar[tuple[str, ...]]
    """The distributions whose versions a finding records."""
    allows: ClassVar[Allows] = Allows()
    two_valued: ClassVar[bool] = True
    """NOT is the complement (Qdrant's ``must_not``): P and NOT P together select every document. False for SQL's
    and Milvus's three-valued logic, where a condition on a null is neither."""
    vias: ClassVar[tuple[str, ...]] = ("search",)
    indexable: ClassVar[bool] = False
    """The target keeps a second copy of the world with payload indexes on every field (``ask(..., indexed=True)``):
    results must not change."""
    optimizable: ClassVar[bool] = False
    """The target also writes the world, with its payload indexes, in the state the engine's own ``optimize()``
    changes (qdrant-edge: an appendable segment; LanceDB: rows appended after the scalar indexes were built) and in
    the state it leaves (optimized segments; the indexes covering every row): ``ask(..., optimized=False)`` reads
    the first, ``ask(..., optimized=True)`` the second, and results must not change. Only targets that say True
    are ever asked with ``optimized``."""
    says_unknown: ClassVar[bool] = False
    """``render_unknown`` writes "P is unknown" in the engine's own language (SQL's ``(P) IS NULL``), so that P,
    NOT P and P-unknown must partition the documents (ternary logic partitioning, with the engine's own rule)."""
    spellings: ClassVar[int] = 1
    """Ways ``render`` can write one filter (``spelling``: 0 the plain one). Each case picks one at random."""
    equivalent: ClassVar[tuple[int, ...]] = ()
    """The spellings the engine documents (or SQL defines: ``x IN (a, b)`` is ``x = a OR x = b``) as the same
    filter as spelling 0 (the ``spelling`` oracle)."""
    engine_errors: ClassVar[tuple[type[BaseException], ...]] = ()
    """The exceptions that are the engine's own answer when ``render`` or ``ask`` raises (its client's errors:
    ``(MilvusException,)``); an engine refusing a filter its language accepts is a finding. Any other exception is
    the target's own bug and ends the run. Empty by default: nothing a target raises passes for the engine's. The
    built-in targets declare ``(Exception,)``: their engines raise anything from ``ValueError`` to a driver's own
    class, and their own code is tested."""

    @property
    def slug(self) -> str:
        return re.sub(r"\W", "_", self.name)

    def versions(self) -> dict[str, str]:
        return installed_versions(self.packages)

    @abstractmethod
    def render(self, expr: Expr, spelling: int = 0) -> str:
        """The native filter as Python source (evaluated with ``namespace``); ``Unsupported`` when it has none."""

    def render_unknown(self, expr: Expr, spelling: int = 0) -> str:
        """The native filter selecting the documents on which ``expr`` is unknown (neither it nor its negation
        holds), where the language can say so (``says_unknown``)."""
        raise Unsupported(f"{self.name}: no filter for 'unknown'")

    def namespace(self) -> dict[str, Any]:
        """The names ``render``'s source uses (``models``, ``qe``...)."""
        return {}

    def native(self, source: str) -> Any:
        return eval(source, self.namespace())  # our own renderer's text, never input

    def rendered(self, expr: Expr, spelling: int = 0, unknown: bool = False) -> str:
        """``render`` (``render_unknown`` when ``unknown``), its own exceptions raised as ``TargetFailed``."""
        with self.guard("render_unknown" if unknown else "render"):
            return self.render_unknown(expr, spelling) if unknown else self.render(expr, spelling)

    def world(self, docs: Docs) -> None:
        """``load`` the documents and forget the answers of the last world (whatever ``load`` raises is a
        ``TargetFailed``: no relation is judged there, so no exception of it is a finding)."""
        self._answers: dict[tuple[str, str, bool, bool | None], set[str]] = {}
        with self.guard("load", engine=False):
            self.load(docs)

    def answer(self, source: str, via: str = "search", indexed: bool = False, optimized: bool | None = None
               ) -> set[str]:
        """``ask``, once per native filter and world: every oracle asks P, most ask NOT P."""
        key = (source, via, indexed, optimized)
        if key not in self._answers:
            # ``optimized`` only where the oracle asks it: a target that is not ``optimizable`` need not take it
            more = () if optimized is None else (optimized,)
            with self.guard("ask"):
                found = self.ask(source, via, indexed, *more)
            self._answers[key] = found
        return self._answers[key]

    @contextmanager
    def guard(self, method: str, engine: bool = True) -> Iterator[None]:
        """Let ``Unsupported``, a skeleton's ``NotImplementedError`` and (``engine``) the engine's own errors
        through; raise anything else as ``TargetFailed``: the target's bug, not the engine's."""
        try:
            yield
        except (Unsupported, NotImplementedError, TargetFailed):
            raise
        except Exception as error:
            if engine and isinstance(error, self.engine_errors):
                raise
            raise TargetFailed(self.name, method, error) from error

    @abstractmethod
    def load(self, docs: Docs) -> None:
        """A fresh store holding exactly ``docs`` (replacing what the last ``load`` wrote), no payload index."""

    @abstractmethod
    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        """The ids the native filter selects among the loaded documents (an ``optimizable`` target also takes
        ``optimized``: False the copy before the engine's ``optimize()``, True the copy after it)."""

    @abstractmethod
    def script(self, docs: Docs) -> Script:
        """The reproducer's part: the same store, loaded with ``docs``, asked through the engine's client."""

    def close(self) -> None:  # noqa: B027  # a target with nothing to release keeps this
        """Release the store."""
