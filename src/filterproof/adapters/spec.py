"""The backend spec: one grammar for ``compare``, ``sweep`` and ``pytest --backend``.

    name
    name:key=value,key=value

``name`` is a backend name (``filterproof backends`` lists them; names never hold
``:``); the options after the colon are the adapter's own (see its ``Options``).
Values are text up to the next comma, so a value cannot hold a comma. The same
backend may appear several times with different options: the spec as written is
its ``label`` in reports, which tells the runs apart.

    >>> BackendSpec.parse("qdrant-edge:exact=true,hnsw_ef=64").options
    (('exact', 'true'), ('hnsw_ef', '64'))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from filterproof.errors import UsageError

GRAMMAR = "expected NAME or NAME:key=value,key=value"


@dataclass(frozen=True)
class BackendSpec:
    """One backend with fixed options; ``label`` names it in every report."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: str) -> BackendSpec:
        name, colon, rest = text.strip().partition(":")
        if not name.strip():
            raise UsageError(f"backend {text!r}: missing name ({GRAMMAR})")
        if colon and not rest.strip():
            raise UsageError(f"backend {text!r}: nothing after ':' ({GRAMMAR})")
        options: dict[str, str] = {}
        for pair in (p.strip() for p in rest.split(",")) if colon else ():
            key, equals, value = pair.partition("=")
            if not equals or not key.strip():
                raise UsageError(f"backend {text!r}: {pair!r} is not key=value ({GRAMMAR})")
            if key.strip() in options:
                raise UsageError(f"backend {text!r}: option {key.strip()!r} given twice")
            options[key.strip()] = value.strip()
        return cls(name.strip(), tuple(options.items()))

    @classmethod
    def of(cls, name: str, options: Mapping[str, Any] | None = None) -> BackendSpec:
        """A spec from code: a name (itself possibly with options) and more options."""
        spec = cls.parse(name)
        return spec.with_options(options or {})

    def with_options(self, extra: Mapping[str, Any]) -> BackendSpec:
        merged = dict(self.options)
        for key, value in extra.items():
            if key in merged and merged[key] != value:
                raise UsageError(f"backend {self.label!r}: option {key!r} given twice ({merged[key]!r}, {value!r})")
            merged[key] = value
        return BackendSpec(self.name, tuple(merged.items()))

    @property
    def label(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{key}={value}" for key, value in self.options)

    def __str__(self) -> str:
        return self.label


def parse_specs(texts: Iterable[str]) -> list[BackendSpec]:
    """Specs in order; the same label twice is a mistake (its runs could not be told apart)."""
    specs, seen = [], set()
    for text in texts:
        spec = BackendSpec.parse(text)
        if spec.label in seen:
            raise UsageError(f"backend {spec.label!r} given twice")
        seen.add(spec.label)
        specs.append(spec)
    return specs
