"""Oracles that need no agreement on semantics: each builds, from one generated filter P, the filters to ask and
the relation their answers must satisfy.

==================== ==================================================================================
oracle               the relation
==================== ==================================================================================
partition            P and NOT P never share a document; for a two-valued engine (NOT is the
                     complement) they select every document together; for a three-valued one whose
                     language says "unknown" (SQL's ``(P) IS NULL``), P, NOT P and P-unknown share
                     none and select every one together (ternary logic partitioning); for the others,
                     what neither selects is judged by ``reference``
double_negation      NOT NOT P selects what P selects
de_morgan            NOT (A AND B) = (NOT A) OR (NOT B), NOT (A OR B) = (NOT A) AND (NOT B)
reorder              the children of every AND and OR reversed: the same answer
conjunct             A AND B selects a subset of A's answer (and of B's); A OR B a superset of A's
paths                a filtered search with k = the collection size, a filtered scroll and a filtered
                     count (the target's ``vias``) select the same documents
index                with the payload indexes built, the same answer as without
optimize             the same answer before and after the engine's own ``optimize()`` (the target's
                     ``optimizable``: segments rebuilt, indexes extended to rows written after them)
spelling             two spellings of P that the engine documents as equivalent (Qdrant's
                     ``IsEmptyCondition`` and ``FieldCondition(is_empty=True)``): the same answer
reference            on every document where each condition of P has the meaning all engines share
                     (``semantics.defined``), the engine answers as the neutral evaluator does
differential         two implementations of one language (Qdrant's local mode and its engine; pgvector
                     over JSONB and over typed columns) give the same answer on every document
==================== ==================================================================================

Each relation is also a Python expression over ``answers`` (label -> set of ids) and
``ALL``, so that a reproducer can check it with the engine's client alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or
from filterproof.fuzz import semantics
from filterproof.fuzz.target import Docs, Target


@dataclass(frozen=True)
class Ask:
    label: str
    expr: Expr
    via: str = "search"
    indexed: bool = False
    target: int = 0
    """Which of the relation's targets answers (1: the second, for ``differential``)."""
    spelling: int | None = None
    """How the target writes the filter (``Target.spellings``); None: the case's spelling."""
    optimized: bool | None = None
    """Ask the copy before (False) or after (True) the engine's ``optimize()``; None: the plain or indexed copy."""
    unknown: bool = False
    """Ask for the documents on which ``expr`` is unknown (``Target.render_unknown``), not for ``expr``."""

    def render(self, target: Target) -> str:
        """The native filter this ask sends ``target``."""
        return target.rendered(self.expr, self.spelling or 0, self.unknown)


@dataclass(frozen=True)
class Relation:
    oracle: str
    asks: tuple[Ask, ...]
    python: str
    """True when the relation holds, over ``answers`` and ``ALL`` (and ``EXPECTED``/``DEFINED`` for reference)."""
    expected: frozenset[str] = frozenset()
    defined: frozenset[str] = frozenset()

    def spelled(self, spellings: tuple[int, int]) -> Relation:
        """The relation with each ask that leaves its spelling to the case written as that target's."""
        asks = tuple(a if a.spelling is not None else replace(a, spelling=spellings[a.target]) for a in self.asks)
        return replace(self, asks=asks)

    def holds(self, answers: Mapping[str, set[str]], every: set[str]) -> bool:
        scope = {"answers": answers, "ALL": every, "EXPECTED": set(self.expected), "DEFINED": set(self.defined)}
        return bool(eval(self.python, {"__builtins__": {}, "len": len}, scope))  # our own fixed expressions


Builder = Callable[[Expr, Docs, Target], Relation | None]


def partition(p: Expr, docs: Docs, target: Target) -> Relation:
    asks = (Ask("P", p), Ask("NOT P", Not(p)))
    if target.two_valued:
        return Relation("partition", asks, "not (answers['P'] & answers['NOT P']) and "
                                           "answers['P'] | answers['NOT P'] == ALL")
    if target.says_unknown:  # SQLancer's TLP: P, NOT P and P IS NULL partition the rows
        return Relation("partition", (*asks, Ask("P unknown", p, unknown=True)),
                        "not (answers['P'] & answers['NOT P']) and not (answers['P'] & answers['P unknown']) and "
                        "not (answers['NOT P'] & answers['P unknown']) and "
                        "answers['P'] | answers['NOT P'] | answers['P unknown'] == ALL")
    return Relation("partition", asks, "not (answers['P'] & answers['NOT P'])")


def double_negation(p: Expr, docs: Docs, target: Target) -> Relation:
    return Relation("double_negation", (Ask("P", p), Ask("NOT NOT P", Not(Not(p)))),
                    "answers['P'] == answers['NOT NOT P']")


def de_morgan(p: Expr, docs: Docs, target: Target) -> Relation | None:
    match p:
        case And(parts) if len(parts) >= 2:
            other: Expr = Or(tuple(Not(q) for q in parts))
        case Or(parts) if len(parts) >= 2:
            other = And(tuple(Not(q) for q in parts))
        case _:
            return None
    return Relation("de_morgan", (Ask("NOT P", Not(p)), Ask("De Morgan", other)),
                    "answers['NOT P'] == answers['De Morgan']")


def reversed_children(expr: Expr) -> Expr:
    match expr:
        case And(parts):
            return And(tuple(reversed([reversed_children(q) for q in parts])))
        case Or(parts):
            return Or(tuple(reversed([reversed_children(q) for q in parts])))
        case Not(part):
            return Not(reversed_children(part))
    return expr


def reorder(p: Expr, docs: Docs, target: Target) -> Relation | None:
    other = reversed_children(p)
    if other == p:
        return None
    return Relation("reorder", (Ask("P", p), Ask("P reordered", other)), "answers['P'] == answers['P reordered']")


def conjunct(p: Expr, docs: Docs, target: Target) -> Relation | None:
    match p:
        case And(parts) if parts:
            asks = (Ask("P", p), *(Ask(f"part {i}", q) for i, q in enumerate(parts)))
            return Relation("conjunct", asks, " and ".join(f"answers['P'] <= answers['part {i}']"
                                                           for i in range(len(parts))))
        case Or(parts) if parts:
            asks = (Ask("P", p), *(Ask(f"part {i}", q) for i, q in enumerate(parts)))
            return Relation("conjunct", asks, " and ".join(f"answers['P'] >= answers['part {i}']"
                                                           for i in range(len(parts))))
    return None


def paths(p: Expr, docs: Docs, target: Target) -> Relation | None:
    if len(target.vias) < 2:
        return None
    first, *rest = target.vias
    asks = tuple(Ask(f"P via {via}", p, via) for via in target.vias)
    # A count answers with that many placeholders ("#0", "#1"...): only its size is compared.
    checks = [f"len(answers['P via {first}']) == len(answers['P via {via}'])" if via == "count" else
              f"answers['P via {first}'] == answers['P via {via}']" for via in rest]
    return Relation("paths", asks, " and ".join(checks))


def index(p: Expr, docs: Docs, target: Target) -> Relation | None:
    if not target.indexable:
        return None
    return Relation("index", (Ask("P", p), Ask("P indexed", p, indexed=True)),
                    "answers['P'] == answers['P indexed']")


def optimize(p: Expr, docs: Docs, target: Target) -> Relation | None:
    if not target.optimizable:
        return None
    return Relation("optimize", (Ask("P before optimize()", p, indexed=True, optimized=False),
                                 Ask("P after optimize()", p, indexed=True, optimized=True)),
                    "answers['P before optimize()'] == answers['P after optimize()']")


def reference(p: Expr, docs: Docs, target: Target) -> Relation | None:
    defined = frozenset(i for i, doc in docs.items() if semantics.defined(p, doc))
    if not defined:
        return None
    expected = frozenset(i for i in defined if semantics.truth(p, docs[i]))
    return Relation("reference", (Ask("P", p),), "answers['P'] & DEFINED == EXPECTED", expected, defined)


def spelling(p: Expr, docs: Docs, target: Target) -> Relation | None:
    if not target.equivalent:
        return None
    asks = (Ask("P", p, spelling=0), *(Ask(f"P spelled {s}", p, spelling=s) for s in target.equivalent))
    return Relation("spelling", asks, " and ".join(f"answers['P'] == answers['P spelled {s}']"
                                                   for s in target.equivalent))


def differential(p: Expr, docs: Docs, target: Target) -> Relation:
    return Relation("differential", (Ask("P", p), Ask("P (other)", p, target=1)),
                    "answers['P'] == answers['P (other)']")


ONE_TARGET: dict[str, Builder] = {
    "partition": partition, "double_negation": double_negation, "de_morgan": de_morgan, "reorder": reorder,
    "conjunct": conjunct, "paths": paths, "index": index, "optimize": optimize, "reference": reference,
    "spelling": spelling,
}
ORACLES = (*ONE_TARGET, "differential")
DESCRIPTIONS = {
    "partition": "P and NOT P must not share a document (where NOT is the complement, they must cover all; where "
                 "the language says 'P is unknown', P, NOT P and P-unknown must partition the documents).",
    "double_negation": "NOT NOT P must select what P selects.",
    "de_morgan": "NOT (A AND B) must equal (NOT A) OR (NOT B), and NOT (A OR B) must equal (NOT A) AND (NOT B).",
    "reorder": "Reordering the children of AND and OR must not change the answer.",
    "conjunct": "A AND B must select a subset of A's answer; A OR B a superset.",
    "paths": "A filtered search, a filtered scroll and a filtered count must select the same documents.",
    "index": "Building payload indexes must not change what a filter selects.",
    "optimize": "The engine's own optimize() (segments rebuilt, indexes extended to the rows written after them) "
                "must not change what a filter selects.",
    "reference": "On documents where every condition has the meaning engines share, the answer must be the "
                 "neutral evaluator's.",
    "spelling": "Two spellings of one filter that the engine documents (or SQL defines) as the same must select the "
                "same documents.",
    "differential": "Two implementations of the same filter language must select the same documents.",
}


def conditions(expr: Expr) -> list[Cond]:
    match expr:
        case Cond():
            return [expr]
        case And(parts) | Or(parts):
            return [c for q in parts for c in conditions(q)]
        case Not(part):
            return conditions(part)
    raise TypeError(f"unknown expression {expr!r}")
