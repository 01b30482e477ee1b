"""The conformance suite once against every built-in engine, at a quick budget: part of the README's test command.

Every check of the suite, on each engine under its default encoding (``revision=query``). The bridges (LangChain,
LlamaIndex) run a store of these engines through a framework: the slow set's full matrix runs each on every search
path (``test_conformance_builtin.py``, in this folder); here they cost as much again as
the engines beneath them (about 230 worker-seconds). The catalogues (twins, dates, names, sizes) are those of any
run; only the generated budgets shrink (``support.budgets``): ``QUICK_EXAMPLES`` examples and sequences (60 by
default) and a scale tier of ``QUICK_SCALE`` documents (5,000), ``QUICK_LOOP_SCALE`` for the stores whose filter is a
Python loop, so that a page or pool cap shows up to half of that. The full matrix (both encodings, every search
path, the other engine settings; the command line's budgets on each engine's default) is
``test_conformance_builtin.py``, in the slow set (``pytest -m slow``) that CI runs too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import test_conformance_builtin as full
from filterproof.adapters import Adapter
from support.budgets import QUICK_EXAMPLES, QUICK_LOOP_SCALE, QUICK_SCALE
from support.conformance_matrix import covered


class Quick:
    """The quick tier's budgets, never above the command line's, on the engine's default settings (revision=query)."""

    SCALE = QUICK_SCALE
    STORE: str

    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        yield from full.fresh(self.STORE)

    def examples(self, config: pytest.Config) -> int:
        return min(QUICK_EXAMPLES, super().examples(config))  # type: ignore[misc]

    def scale_documents(self, config: pytest.Config) -> int:
        return min(self.SCALE, super().scale_documents(config))  # type: ignore[misc]

    def test_a_reader_in_another_process_sees_each_change(self, second_client: Adapter) -> None:
        """A child process importing its store costs 5-7 s a backend: the full matrix (slow set) runs it on every
        engine, and tests/conformance/test_across_clients.py on the settings that govern it."""
        pytest.skip("the quick tier asks a reader in this process only; the full matrix and "
                    "tests/conformance/test_across_clients.py ask one in another process")

    def test_two_processes_writing_at_once_leave_one_order_of_their_writes(self, second_client: Adapter) -> None:
        """A child process each, as above: the quick tier asks two clients of this process to write at once."""
        pytest.skip("the quick tier asks two writers in this process only; the full matrix and "
                    "tests/conformance/test_across_clients.py ask one in another process")


class QuickLoop(Quick):
    SCALE = QUICK_LOOP_SCALE


chroma_url = full.chroma_url


class TestChromaServer(Quick, full.TestChromaServer):
    @pytest.fixture()
    def adapter(self, chroma_url: str) -> Iterator[Adapter]:
        yield from full.fresh(self.STORE, url=chroma_url)


class TestQdrantServer(Quick, full.TestQdrantServer):
    """Needs QDRANT_URL (a Docker engine: docker compose up -d qdrant); skipped with the reason otherwise."""

    adapter = full.TestQdrantServer.adapter


def quick_tier(namespace: dict[str, Any]) -> None:
    """The quick tier of every engine class of the full matrix (``STORE``) not written above: the full class at the
    quick budgets, the smaller scale tier where the store's filter is a Python loop (``PythonEvaluatorScale``)."""
    written = covered(namespace)
    for name, cls in vars(full).items():
        if (name.startswith("Test") and isinstance(cls, type) and getattr(cls, "STORE", None) not in (None, *written)
                and not issubclass(cls, full.BridgeConformanceTests)):
            base = QuickLoop if issubclass(cls, full.PythonEvaluatorScale) else Quick
            namespace[name] = type(name, (base, cls), {"__module__": __name__, "__doc__": cls.__doc__})


quick_tier(globals())
