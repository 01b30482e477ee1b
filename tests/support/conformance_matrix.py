"""The conformance matrix covers every built-in store: a class for each one the test modules do not write.

A test module's classes name their store (``STORE``); ``described`` adds, for each store of
``adapters.descriptor`` that none names, a class of the module's base for its kind, named
``Test<Name>``, so that a store added as a package is tested without an edit here.
"""

from __future__ import annotations

from typing import Any

from filterproof.adapters.descriptor import Store, stores


def class_name(store: Store) -> str:
    return "Test" + "".join(part.capitalize() for part in store.name.replace("_", "-").split("-"))


def covered(namespace: dict[str, Any]) -> set[str]:
    return {value.STORE for value in namespace.values() if isinstance(value, type) and hasattr(value, "STORE")}


def described(namespace: dict[str, Any], engine: type, bridge: type) -> None:
    """Add to ``namespace`` a class of ``engine`` or ``bridge`` for each store not covered."""
    for store in stores():
        if store.name in covered(namespace):
            continue
        name = class_name(store)
        namespace[name] = type(name, (bridge if store.kind == "bridge" else engine,),
                               {"STORE": store.name, "__module__": namespace["__name__"],
                                "__doc__": f"{store.name}: {store.summary} (from its description)"})
