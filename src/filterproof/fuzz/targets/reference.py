"""The neutral language's own engine, and the seeded defects that prove each oracle finds what it is for.

``ReferenceTarget`` selects the documents whose ``semantics.truth`` is True (Kleene's
three-valued logic, as SQL): on it the fuzzer must find nothing. Each defect below
breaks one thing the way a real engine did, and ``tests/fuzz/test_fuzz.py`` holds that the
fuzzer finds it, through the oracle named, within a small budget:

======================= ======================================================== ===============
defect                  what it does (the public bug it stands for)              found by
======================= ======================================================== ===============
IsEmptyIgnored          ``is_empty`` matches every document (qdrant-client       reference
                        local mode ignored ``FieldCondition.is_empty``, #1308)
NinSelectsAll           ``nin`` matches every document (chromadb 0.4.13 #1424)   reference
EmptyInSelectsAll       ``in []`` matches every document                         reference
IndexDropsNegatives     with indexes built, a range skips negative numbers       index
                        (Qdrant #10096: indexed and unindexed answers differ)
ScrollSkipsLast         the scroll path loses the last document                  paths
AndReadsTwo             AND looks at its first two parts only                    conjunct
NotOfOrDistributes      NOT (A OR B) is computed as NOT A OR NOT B               de_morgan
NotOfNullIsTrue         NOT of a condition on a null field selects it (Milvus    partition
                        Lite's ``not in`` on a null row; milvus#49891)           (three-way)
OptimizeLosesNulls      after ``optimize()``, ``is_null`` matches nothing (an    optimize
                        index structure rebuilt without its null entries)
======================= ======================================================== ===============

The reference says "P is unknown" (``render_unknown``: its truth is None), as SQL's
``(P) IS NULL`` does, and keeps a copy of the world "before" and "after" an optimize
that changes nothing (``optimizable``), so that the two oracles those need run on it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, from_json, to_json
from filterproof.fuzz import semantics
from filterproof.fuzz.target import Docs, Script, Target

UNKNOWN = "unknown"
"""``render_unknown``'s source: ``{"unknown": <the filter's JSON>}``."""


class ReferenceTarget(Target):
    name = "reference"
    packages = ()
    two_valued = False
    vias = ("search", "scroll", "count")
    indexable = True
    optimizable = True
    says_unknown = True
    defect: ClassVar[str] = ""
    engine_errors: ClassVar[tuple[type[BaseException], ...]] = ()  # its engine is ours: whatever it raises is a bug

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return repr(to_json(expr))  # a JSON tree: the source is its Python literal

    def render_unknown(self, expr: Expr, spelling: int = 0) -> str:
        return repr({UNKNOWN: to_json(expr)})

    def load(self, docs: Docs) -> None:
        self.docs = {i: dict(d) for i, d in docs.items()}

    def ask(self, source: str, via: str = "search", indexed: bool = False, optimized: bool | None = None
            ) -> set[str]:
        tree = self.native(source)
        if isinstance(tree, dict) and UNKNOWN in tree:  # render_unknown's: the documents where P is neither
            expr = from_json(tree[UNKNOWN])
            found = [i for i, doc in self.docs.items() if self.truth(expr, doc, indexed, optimized) is None]
        else:
            expr = from_json(tree)
            found = [i for i, doc in self.docs.items() if self.truth(expr, doc, indexed, optimized)]
        if via == "count":
            return {f"#{n}" for n in range(len(found))}
        return set(found[:-1] if via == "scroll" and self.defect == "ScrollSkipsLast" else found)

    def truth(self, expr: Expr, doc: dict[str, Any], indexed: bool, optimized: bool | None = None) -> bool | None:
        """``semantics.truth``, but for the defect."""
        match expr:
            case Cond("is_null") if optimized and self.defect == "OptimizeLosesNulls":
                return False
            case Not(Cond() as part) if self.defect == "NotOfNullIsTrue" and doc.get(part.key) is None \
                    and part.key in doc and part.op not in ("is_null", "is_empty", "exists"):
                return True
            case Cond("is_empty") if self.defect == "IsEmptyIgnored":
                return True
            case Cond("nin") if self.defect == "NinSelectsAll":
                return True
            case Cond("in", _, ()) if self.defect == "EmptyInSelectsAll":
                return True
            case Cond("gt" | "gte" | "lt" | "lte", key) if indexed and self.defect == "IndexDropsNegatives":
                value = doc.get(key)
                if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
                    return False
            case And(parts) if self.defect == "AndReadsTwo" and len(parts) > 2:
                return self.truth(And(parts[:2]), doc, indexed, optimized)
            case Not(Or(parts)) if self.defect == "NotOfOrDistributes" and len(parts) >= 2:
                return self.truth(Or(tuple(Not(p) for p in parts)), doc, indexed, optimized)
            case And(parts) | Or(parts):
                values = [self.truth(p, doc, indexed, optimized) for p in parts]
                if isinstance(expr, And):
                    return False if False in values else (None if None in values else True)
                return True if True in values else (None if None in values else False)
            case Not(part):
                value = self.truth(part, doc, indexed, optimized)
                return None if value is None else not value
        return semantics.truth(expr, doc)

    def script(self, docs: Docs) -> Script:
        setup = (f"DEFECT = {self.defect!r}\n"
                 "reference = ReferenceTarget() if not DEFECT else DEFECTS[DEFECT]()\n"
                 "reference.world(DOCS)\n\n\n"
                 "def ask_reference(native, via, indexed, optimized=None):\n"
                 "    return reference.ask(repr(native), via, indexed, optimized)\n")
        return Script("from filterproof.fuzz.targets.reference import DEFECTS, ReferenceTarget", setup,
                      "ask_reference")


DEFECT_NAMES = ("IsEmptyIgnored", "NinSelectsAll", "EmptyInSelectsAll", "IndexDropsNegatives", "ScrollSkipsLast",
                "AndReadsTwo", "NotOfOrDistributes", "NotOfNullIsTrue", "OptimizeLosesNulls")
DEFECTS: dict[str, type[ReferenceTarget]] = {
    name: type(name, (ReferenceTarget,), {"defect": name, "name": f"reference:defect={name}"}) for name in DEFECT_NAMES
}
