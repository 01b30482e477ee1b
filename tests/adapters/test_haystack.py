"""Haystack's document stores under an access filter: the integrations' findings, each reproduced with Haystack and
the integration alone (``bench/repro/haystack_*.py``), held as strict xfails: green once a release fixes it, and
then this test fails, so that the findings page and the coming bridges' workarounds are revisited.

The Haystack bridges themselves (the suite through each integration's retriever) are issue 46's next part.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.paths import ROOT

pytest.importorskip("haystack")
pytest.importorskip("haystack_integrations")

FINDINGS = {
    "haystack_qdrant_empty_in.py": "qdrant-haystack 13.1.0: `in []` is Filter(should=[]), which matches every "
                                   "document (findings/integration.md#finding-9)",
    "haystack_qdrant_not.py": "qdrant-haystack 13.1.0: NOT [A, B] is written must_not=[A, B], neither A nor B, where "
                              "Haystack defines not (A and B) (findings/integration.md#finding-10)",
    "haystack_chroma_overwrite_merges.py": "chroma-haystack 5.0.0: write_documents(policy=OVERWRITE) merges the new "
                                           "metadata into the old (findings/integration.md#finding-11)",
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
