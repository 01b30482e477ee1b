"""Haystack under an access filter: the integrations' findings, each reproduced with Haystack and the integration
alone (``bench/repro/haystack_*.py``), held as strict xfails (green once a release fixes one, and then this test
fails, so that the findings page and the bridge's workarounds are revisited); the ``haystack-qdrant`` bridge's
filter, paths, and a seeded bridge that the suite must fail. The suite on the bridge:
``tests/conformance/test_conformance_builtin.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date

import pytest

pytest.importorskip("haystack")
pytest.importorskip("haystack_integrations")

from typer.testing import CliRunner

from filterproof.adapters import OptionError, open_backend
from filterproof.adapters.bridges.haystack_filters import compile_filter, compile_partitions, match_nothing
from filterproof.cli import app
from filterproof.errors import BackendUnavailable
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal
from support.paths import FIXTURES, ROOT

pytest_plugins = ["pytester"]

FINDINGS = {
    "haystack_qdrant_empty_in.py": "qdrant-haystack 13.1.0: `in []` is Filter(should=[]), which matches every "
                                   "document (findings/integration.md#finding-9)",
    "haystack_qdrant_not.py": "qdrant-haystack 13.1.0: NOT [A, B] is written must_not=[A, B], neither A nor B, where "
                              "Haystack defines not (A and B) (findings/integration.md#finding-10)",
    "haystack_chroma_overwrite_merges.py": "chroma-haystack 5.0.0: write_documents(policy=OVERWRITE) merges the new "
                                           "metadata into the old (findings/integration.md#finding-11)",
    "haystack_chroma_dotted_key.py": "chroma-haystack 5.0.0: a filter on meta.acl.tenant compares the key tenant, "
                                     "the field's last dotted segment (findings/integration.md#finding-12)",
    "haystack_milvus_quotes.py": "milvus-haystack 0.0.18: a filter's string value and a deleted id are pasted into "
                                 "the expression unescaped (findings/integration.md#finding-14)",
}


@pytest.mark.slow  # a child interpreter each, importing Haystack (about 3 s)
@pytest.mark.parametrize("script", FINDINGS)
def test_the_integration_agrees_with_haystacks_in_memory_store(script: str) -> None:
    """Each script asks Haystack's InMemoryDocumentStore (the reference of Haystack's filter semantics) and the
    integration the same question, and exits 0 when they agree."""
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "repro" / script)], capture_output=True, text=True,
                         timeout=180)
    if run.returncode == 1 and "VIOLATED" in run.stdout:
        pytest.xfail(f"finding: {FINDINGS[script]}")
    assert run.returncode == 0, run.stdout + run.stderr
    pytest.fail(f"fixed in the installed release? {FINDINGS[script]} no longer reproduces:\n{run.stdout}")


@pytest.mark.slow  # a child interpreter importing Haystack, and up to five rounds of 1,000 retrievals (3-15 s)
def test_one_pgvector_store_shared_by_threads_answers_each_caller_its_own_rows() -> None:
    """pgvector-haystack's store runs every retrieval on one cursor (execute, then fetch): threads sharing it read
    each other's rows (findings/integration.md#finding-16); the ``haystack-pgvector`` bridge declares
    ``thread_safe=False`` for it. A race: the script asks until it meets it, five rounds at most."""
    pytest.importorskip("haystack_integrations.document_stores.pgvector")
    from filterproof.adapters.bridges.pgvector import libpq_dsn

    try:
        dsn = libpq_dsn(None)
    except BackendUnavailable as error:
        pytest.skip(str(error))
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "repro" / "haystack_pgvector_shared_store.py")],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "PGVECTOR_DSN": dsn})
    if run.returncode == 1 and "VIOLATED" in run.stdout:
        pytest.xfail("finding: pgvector-haystack 8.1.2 shares one cursor between retrievals "
                     "(findings/integration.md#finding-16)")
    assert run.returncode == 0, run.stdout + run.stderr
    pytest.fail(f"fixed in the installed release? a shared store no longer mixes callers' rows:\n{run.stdout}")


# -- the haystack-qdrant bridge ---------------------------------------------------------------------------------


def test_no_group_and_no_key_compile_to_match_nothing_never_an_empty_in() -> None:
    where = PolicyFilter(Principal("acme", ()), date(2026, 9, 8), ActiveRevisions.of({}))
    conditions = compile_filter(where)["conditions"]
    assert conditions[2] == conditions[3] == match_nothing()
    assert all(c.get("value") != [] for c in conditions)
    grouped = compile_filter(PolicyFilter(Principal("acme", ("eng", "eng", "ops")), date(2026, 9, 8),
                                          ActiveRevisions.of({("acme", "d"): 2})))["conditions"]
    assert grouped[2:4] == [{"field": "meta.fp_key", "operator": "in", "value": ["acme/d#2"]},
                            {"field": "meta.fp_groups", "operator": "in", "value": ["eng", "ops"]}]
    assert grouped[4:] == [{"field": "meta.fp_from", "operator": "<=", "value": 20260908},
                           {"field": "meta.fp_until", "operator": ">", "value": 20260908}]


def test_unknown_input_raises() -> None:
    """An encoding the translation does not take (the LlamaIndex bridges' list operators and flags, names sorting
    before, between and after its two) raises, as does an ``as_of`` that is not a calendar date."""
    from datetime import datetime

    active = ActiveRevisions.of({("acme", "a"): 1})
    where = PolicyFilter(Principal("acme", ("eng",)), date(2026, 9, 8), active)
    for encoding in ("any", "flags", "csv", "lists", "zzz"):
        with pytest.raises(ValueError, match="unknown groups encoding"):
            compile_filter(where, encoding)  # type: ignore[arg-type]
    for as_of in (datetime(2026, 9, 8, 12), "2026-09-08", 740_000):
        with pytest.raises(TypeError):
            compile_filter(PolicyFilter(Principal("acme", ("eng",)), as_of, active), "list")  # type: ignore[arg-type]


def test_groups_as_hex_keys_hold_no_dot_and_one_group_is_no_or() -> None:
    """chroma-haystack keeps a key's last dotted segment (finding 12): a group ``a.b`` must not become ``b``."""
    asked = PolicyFilter(Principal("acme", ("a.b", "eng")), date(2026, 9, 8), ActiveRevisions.of({("acme", "d"): 2}))
    groups = compile_filter(asked, "hex")["conditions"][3]
    assert groups == {"operator": "OR", "conditions": [
        {"field": "meta.fp_group_" + b"a.b".hex(), "operator": "==", "value": 1},
        {"field": "meta.fp_group_" + b"eng".hex(), "operator": "==", "value": 1}]}
    assert all("." not in c["field"].removeprefix("meta.") for c in groups["conditions"])
    alone = PolicyFilter(Principal("acme", ("eng",)), date(2026, 9, 8), ActiveRevisions.of({}))
    assert compile_filter(alone, "hex")["conditions"][3] == groups["conditions"][1]  # Chroma refuses an OR of one


def test_a_principal_of_many_groups_is_asked_in_slices_each_under_chromas_limits() -> None:
    many = PolicyFilter(Principal("acme", tuple(f"g{i}" for i in range(1_200))), date(2026, 9, 8),
                        ActiveRevisions.of({("acme", "d"): 2}))
    parts = compile_partitions(many, "hex")
    assert [len(p["conditions"][3]["conditions"]) for p in parts] == [500, 500, 200]
    assert len(compile_partitions(many, "list")) == 1


@pytest.mark.parametrize(("spec", "said"), [
    ("haystack-qdrant:path=mmr", r"no maximal-marginal-relevance retriever.*plain, score_threshold or retriever"),
    ("haystack-chroma:path=score_threshold", r"haystack-chroma: its retriever has no score_threshold.*plain or "),
    ("haystack-chroma:path=mmr", r"no maximal-marginal-relevance retriever.*path takes plain or retriever"),
])
def test_a_path_the_integration_lacks_is_refused_with_the_paths_it_takes(spec: str, said: str) -> None:
    with pytest.raises(OptionError, match=said):
        open_backend(spec)


PATHS = ["haystack-qdrant:path=score_threshold", "haystack-qdrant:path=retriever", "haystack-chroma:path=retriever",
         "haystack-pgvector:path=retriever", "haystack-milvus:path=retriever"]
"""Every Haystack bridge's paths but the plain one, which the docs' example compares (docs/integrations/haystack.md)
and the conformance matrix runs."""


@pytest.mark.slow  # one compare over five bridges (about 8 s; pgvector's starts a server)
def test_each_path_answers_as_the_reference_on_the_freshness_lab() -> None:
    specs = [arg for spec in PATHS for arg in ("-b", spec)]
    result = CliRunner().invoke(app, ["compare", str(FIXTURES / "freshness-lab.json"), "-b", "reference", *specs,
                                      "--no-cases"])
    assert result.exit_code == 0, result.output
    for spec in PATHS:
        assert f"{spec}: identical to reference" in result.output, result.output


def test_the_suite_fails_an_empty_in_passed_through(pytester: pytest.Pytester) -> None:
    """``support.haystack_defects.EmptyInPassedThrough``: the groups clause as ``in [the principal's groups]``, none
    included, which qdrant-haystack turns into a filter that matches everything (finding 9). The suite names it."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--adapter",
                                "support.haystack_defects:EmptyInPassedThrough", "-k", "no_groups_matches_nothing")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED *::test_no_groups_matches_nothing*"])
    assert "with no groups read ['doc'] (a leak)" in result.stdout.str()


@pytest.mark.slow  # the group twins through chroma-haystack: about 12 s
def test_the_suite_fails_group_keys_that_hold_a_dot(pytester: pytest.Pytester) -> None:
    """``support.haystack_defects.GroupKeysAsNamed``: one key per group named as the group, which chroma-haystack
    cuts at its last dot (finding 12): the group twins' ``1.0`` is asked as ``0`` and its document goes missing."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--adapter",
                                "support.haystack_defects:GroupKeysAsNamed", "-k", "identity_twins and group")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED *::test_identity_twins[[]group[]]*"])
    assert "groups ('1.0',) as of 2026-09-08: eligible but NOT returned (missing): g3" in result.stdout.str()


@pytest.mark.slow  # the tenant twins through milvus-haystack: about 8 s
def test_the_suite_fails_names_pasted_as_given(pytester: pytest.Pytester) -> None:
    """``support.haystack_defects.NamesAsGiven``: the Milvus bridge without its hex names, which milvus-haystack
    pastes between quotes unescaped (finding 14): a tenant holding a line break breaks the query (the logical-id
    twins fail it too, through the revision keys)."""
    result = pytester.runpytest("-p", "no:cacheprovider", "-W", "ignore", "--pyargs", "filterproof.conformance",
                                "--adapter", "support.haystack_defects:NamesAsGiven", "-k", "identity_twins and tenant")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED *::test_identity_twins[[]tenant[]]*"])
    assert "unterminated string literal" in result.stdout.str()
