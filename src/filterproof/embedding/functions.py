"""A user's embedding function as the shared vectors: ``--embedding module:callable``.

The contract. The callable takes a list of texts and returns an array-like of shape
``(len(texts), d)`` of real numbers (a numpy array, a list of lists; anything
``numpy.asarray`` reads), every row finite and not all zeros, the same ``d`` on every
call. It is called for the queries first (every case's query, once), then for the
documents in fixture order, a chunk of several thousand texts per call. When it
declares a parameter named ``kind`` (or ``**kwargs``), it is called with
``kind="query"`` or ``kind="document"``: the models that embed questions and passages
with different prompts need to know which. It is given a list of its own (a copy): if it
changes that list, its answer is still checked against the texts as they were. Its rows are scaled to unit length
(float32): every backend compares by cosine, which ignores length.

filterproof imports the module when a run asks for it (never at startup), searching
the current directory after the installed packages, and never downloads anything:
loading a model is the function's affair. Anything wrong, whether an import that
fails, an exception inside the function or an answer of the wrong shape, type or
values, is a ``UsageError`` that names the callable (exit code 2 on the command line).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from filterproof.embedding.spaces import first_bad_row, real_numbers, unit_float32
from filterproof.errors import UsageError

KINDS = ("query", "document")


def takes_kind(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` accepts ``kind=`` (a parameter of that name, or ``**kwargs``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: called with the texts only
        return False
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return any((p.name == "kind" and p.kind in named) or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def shown(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


class FunctionEmbedding:
    """An ``Embedding`` over a user's function; ``dim`` is known after the first call (the queries)."""

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        self._fn, self.name, self.dim = fn, name, 0
        self._kind = takes_kind(fn)

    def documents(self) -> np.ndarray:
        raise UsageError(f"embedding function {self.name}: embeds documents chunk by chunk (transform)")

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        return self._call(texts, "document")

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._call(texts, "query")

    def _call(self, texts: Sequence[str], kind: str) -> np.ndarray:
        batch = list(texts)
        given = list(batch)  # the function's own copy: what it does to the list cannot change what we check against
        try:
            answer = self._fn(given, kind=kind) if self._kind else self._fn(given)
        except Exception as error:
            raise UsageError(f"embedding function {self.name} raised {type(error).__name__} on {len(batch)} {kind} "
                             f"texts: {error}") from error
        matrix = self.checked(answer, batch, kind)
        self.dim = self.dim or matrix.shape[1]
        return unit_float32(matrix)

    def checked(self, answer: Any, texts: list[str], kind: str) -> np.ndarray:
        """The answer as a float64 matrix, or a ``UsageError`` saying what is wrong with it."""
        where = f"embedding function {self.name}"
        try:
            matrix = np.asarray(answer)
        except Exception as error:  # ragged lists, a tensor on a GPU
            raise UsageError(f"{where} returned a {type(answer).__name__} that is no array of numbers: {error}") \
                from None
        if not real_numbers(matrix):
            raise UsageError(f"{where} returned {matrix.dtype} values for {kind} texts; expected real numbers")
        if matrix.ndim != 2 or matrix.shape[0] != len(texts) or matrix.shape[1] < 1:
            raise UsageError(f"{where} returned shape {matrix.shape} for {len(texts)} {kind} texts; "
                             f"expected ({len(texts)}, d): one row per text")
        if self.dim and matrix.shape[1] != self.dim:
            raise UsageError(f"{where} returned {matrix.shape[1]}-d vectors for {kind} texts after "
                             f"{self.dim}-d ones: every call must give the same dimension")
        matrix = matrix.astype(np.float64)
        bad = first_bad_row(matrix)
        if bad is not None:
            row, why = bad
            raise UsageError(f"{where}: the vector of {kind} text {shown(texts[row])} {why}")
        return matrix


def import_callable(spec: str) -> Callable[..., Any]:
    """``module:callable`` (either may be dotted), imported now; the current directory is searched last."""
    module_name, _, attribute = spec.partition(":")
    if not all(part.isidentifier() for part in [*module_name.split("."), *attribute.split(".")]):
        raise UsageError(f"--embedding {spec!r}: expected tfidf, svd, fixture, or module:callable "
                         "(a Python module and a function in it, e.g. my_vectors:embed)")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # `filterproof` is a script: let a module beside the user be found, last
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and (module_name + ".").startswith(error.name + "."):
            raise UsageError(f"--embedding {spec}: no module named {error.name!r} "
                             "(neither installed nor in the current directory)") from None
        raise UsageError(f"--embedding {spec}: importing {module_name} failed: {error}") from error
    except Exception as error:
        raise UsageError(f"--embedding {spec}: importing {module_name} failed: {type(error).__name__}: {error}") \
            from error
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise UsageError(f"--embedding {spec}: {module_name} has no {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise UsageError(f"--embedding {spec}: {attribute} is a {type(target).__name__}, not a function")
    return target  # type: ignore[no-any-return]


def function_label(fn: Callable[..., Any]) -> str:
    """``module:qualname`` of a callable given from Python."""
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{getattr(fn, '__module__', None) or '?'}:{name}"
