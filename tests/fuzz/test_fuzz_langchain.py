"""The ``langchain-pgvector`` fuzz target: the neutral language as LangChain filter dicts, translated into SQL by
langchain-postgres's ``PGVector``; a seeded run in which every finding is a recorded one, replayed as a strict
xfail; a reproducer that runs with langchain-postgres alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from support.fuzz_known import Known, explained, known_cases, still_fails, unexplained
from support.paths import ROOT
from support.reproducers import Result, run_scripts, selected

pytest.importorskip("langchain_postgres")
pytest.importorskip("pgserver")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported, kind
from filterproof.fuzz.oracles import conditions
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.langchain import LangChainPgvector, langchain_filter


@pytest.fixture(scope="module")
def target() -> Iterator[LangChainPgvector]:
    opened = LangChainPgvector()
    yield opened
    opened.close()


@pytest.mark.parametrize(("expr", "spelling", "native"), [
    (Cond("eq", "s", "it's"), 0, {"s": {"$eq": "it's"}}),
    (Cond("eq", "s", "it's"), 1, {"s": "it's"}),
    (Cond("gt", "d", date(2026, 9, 8)), 0, {"d": {"$gt": "2026-09-08"}}),
    (Cond("nin", "n", (1, 2)), 0, {"n": {"$nin": [1, 2]}}),
    (Cond("nin", "n", (1, 2)), 2, {"$and": [{"n": {"$ne": 1}}, {"n": {"$ne": 2}}]}),
    (Cond("in", "s", ("a",)), 2, {"s": {"$eq": "a"}}),
    (Cond("contains", "tags", "a"), 0, {"tags": {"$eq": "a"}}),
    (Cond("contains_any", "nums", (3, 4)), 0, {"$or": [{"nums": {"$eq": 3}}, {"nums": {"$eq": 4}}]}),
    (Cond("is_null", "s"), 0, {"s": {"$eq": None}}),
    (Cond("exists", "s"), 0, {"$and": [{"s": {"$exists": True}}, {"$not": {"s": {"$eq": None}}}]}),
    (Cond("is_empty", "s"), 1, {"$or": [{"s": {"$exists": False}}, {"s": None}]}),
    (Not(Cond("lt", "x", 0.5)), 0, {"$not": {"x": {"$lt": 0.5}}}),
    (And((Cond("eq", "n", 1), Cond("eq", "s", "a"))), 1, {"n": 1, "s": "a"}),
    (And((Cond("eq", "n", 1), Cond("eq", "n", 2))), 1, {"$and": [{"n": 1}, {"n": 2}]}),  # one key: no dict
    (Or((Cond("eq", "n", 1), And((Cond("lte", "n", 3),)))), 0,
     {"$or": [{"n": {"$eq": 1}}, {"$and": [{"n": {"$lte": 3}}]}]}),
])
def test_renderings(expr: filterlang.Expr, spelling: int, native: dict[str, Any]) -> None:
    assert langchain_filter(expr, spelling) == native


@pytest.mark.parametrize("expr", [
    Cond("is_empty", "tags"), Cond("in", "n", (True,)), Cond("contains_any", "tags", ()), And(()), Or(()),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^langchain-pgvector: "):
        langchain_filter(expr)


def test_the_translation_keeps_the_meaning_on_a_plain_world(target: LangChainPgvector) -> None:
    """Every operator rendered selects what the neutral evaluator does where it is defined, in each spelling, by
    search and by MMR; under NOT, a null is selected (SQL/JSON's ``null == 'a'`` is FALSE, not unknown)."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "d": "2026-09-08", "tags": ["a", "b"]},
            "d1": {"s": "b", "n": 2, "x": 1.5, "d": "2026-09-09", "tags": []}, "d2": {"s": None}}
    target.world(docs)
    cases = {Cond("eq", "s", "a"): {"d0"}, Cond("ne", "n", 1): {"d1"}, Cond("in", "n", (2, 3)): {"d1"},
             Cond("nin", "n", (2, 3)): {"d0"}, Cond("gte", "x", 1.5): {"d1"}, Cond("lt", "n", 2): {"d0"},
             Cond("gt", "d", date(2026, 9, 8)): {"d1"}, Cond("contains", "tags", "b"): {"d0"},
             Cond("contains_any", "tags", ("b", "c")): {"d0"}, Cond("is_null", "s"): {"d2"},
             Cond("exists", "s"): {"d0", "d1"}, Cond("is_empty", "n"): {"d2"}, Not(Cond("eq", "s", "a")): {"d1", "d2"},
             Or((Cond("eq", "n", 1), Cond("eq", "n", 2))): {"d0", "d1"}}
    for expr, expected in cases.items():
        for spelling in range(target.spellings):
            for via in target.vias:
                shown = filterlang.show(expr)
                assert target.ask(target.render(expr, spelling), via) == expected, (shown, spelling, via)


def _in_nin(f: Finding) -> list[Cond]:
    return [c for c in conditions(f.expr) if c.op in ("in", "nin")] if f.oracle == "spelling" else []


def _in_across_kinds(f: Finding) -> bool:
    """A world holding, in an IN/NIN field, a value of another kind than the values asked."""
    return any(d.get(c.key) is not None and any(kind(d[c.key]) != kind(v) for v in c.value)
               for c in _in_nin(f) for d in f.docs.values())


def _in_on_null_or_missing(f: Finding) -> bool:
    return any(d.get(c.key) is None for c in _in_nin(f) for d in f.docs.values())


KNOWN = [
    Known("langchain_pgvector_in_text", frozenset({"langchain-pgvector"}),
          "finding: langchain-postgres 0.0.19 compares $in/$nin with the field's text (cmetadata->>'n' IN ('7')) "
          "and $eq/$ne as JSON values: {'n': {'$in': ['7']}} selects n = 7, which {'n': {'$eq': '7'}} does not "
          "(bench/repro/fuzz_langchain_pgvector_in_text.py)", _in_across_kinds),
    Known("langchain_pgvector_in_null", frozenset({"langchain-pgvector"}),
          "finding: langchain-postgres 0.0.19's $in/$nin are NULL on a missing or null field (->> text) where "
          "$eq/$ne are SQL/JSON paths (FALSE when missing; null != 'a' is TRUE): {'$not': {'n': {'$in': [7]}}} "
          "drops the documents without n that {'$not': {'n': {'$eq': 7}}} keeps "
          "(bench/repro/fuzz_langchain_pgvector_in_null.py)", _in_on_null_or_missing),
]


@pytest.mark.slow  # about 30 s: a seeded run through the framework (the slow set)
def test_a_seeded_run_finds_only_recorded_findings(target: LangChainPgvector) -> None:
    outcome = fuzz([target], seed=4, budget_s=90, max_cases=600, shrink_s=1)
    assert outcome.cases == 600
    assert {key.split(" ", 1)[1] for key in outcome.checked} >= {"partition", "double_negation", "de_morgan",
                                                                  "reorder", "conjunct", "paths", "reference",
                                                                  "spelling"}
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)
    assert {k.name for f in outcome.findings if (k := explained(f, KNOWN))} == {k.name for k in KNOWN}


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


@pytest.fixture(scope="module")
def reproduced(request: pytest.FixtureRequest) -> dict[str, Result]:
    """The selected reproducers below, in one interpreter (``support.reproducers``): each alone, 5 s to import."""
    from filterproof.adapters.bridges.pgvector import sqlalchemy_url
    from filterproof.servers.postgres import shared_server

    names = selected(request, "test_the_reproducer_runs_alone", "name")
    return run_scripts({name: ROOT / "bench/repro" / name for name in names},
                       env={"PGVECTOR_URL": sqlalchemy_url(shared_server().dsn, "psycopg")})


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
@pytest.mark.parametrize("name", ["fuzz_langchain_pgvector_in_text.py", "fuzz_langchain_pgvector_in_null.py"])
def test_the_reproducer_runs_alone(name: str, reproduced: dict[str, Result]) -> None:
    done = reproduced[name]
    assert done.returncode == 1 and "VIOLATED: spelling" in done.stdout, done.output
    assert done.filterproof is False, done.output
