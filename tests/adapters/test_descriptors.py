"""One description per store (``adapters.descriptor``): every list of stores is read from them, never typed twice.

The last test adds a stub built-in store (a copy of the reference under a new name) as a package of its own,
and nothing else, and finds it in ``filterproof backends``, ``filterproof fuzz --help``, the docs' backend table
and navigation, and the conformance matrix of both tiers.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from filterproof.adapters import descriptor
from filterproof.adapters.descriptor import stores
from filterproof.adapters.registry import BUILTIN
from filterproof.fuzz.targets import FAMILIES, TARGETS
from support.paths import ROOT


def test_every_store_is_described_once_and_every_list_is_read_from_the_descriptions() -> None:
    from filterproof.cli.compare import DEFAULT_BACKENDS
    from filterproof.cli.freshness import DEFAULT_BACKENDS as FRESHNESS
    from filterproof.cli.sweep import DEFAULT_SWEEP_BACKENDS

    names = [store.name for store in stores()]
    assert len(names) == len(set(names)) and names[0] == "reference"
    assert list(BUILTIN) == names
    assert list(TARGETS) == [t.name for s in stores() for t in s.fuzz]
    assert set(FAMILIES) <= set(TARGETS)
    assert set(FAMILIES.values()) == {"chroma", "qdrant", "pgvector", "milvus", "haystack"}
    assert [s.name for s in stores() if s.embedded] == DEFAULT_BACKENDS
    assert [spec for s in stores() for spec in s.freshness] == FRESHNESS
    assert [s.name for s in stores() if s.sweep] == DEFAULT_SWEEP_BACKENDS


@pytest.mark.parametrize("store", stores(), ids=lambda s: s.name)
def test_a_description_names_what_exists(store: descriptor.Store) -> None:
    """Its options model imports without the store's client; its page and the page's heading exist; its adapter
    class and fuzz targets are where it says (their modules import where the extra is installed)."""
    if store.options:
        module, _, attribute = store.options.partition(":")
        assert hasattr(importlib.import_module(module), attribute)
    page, _, anchor = store.page.partition("#")
    text = (ROOT / "docs" / page).read_text()
    assert not anchor or f"\n## {anchor}\n" in text or f"{{#{anchor}}}" in text, f"{store.page}: no such heading"
    for target in (store.factory, *(t.target for t in store.fuzz)):
        module, _, attribute = target.partition(":")
        try:
            found = importlib.import_module(module)
        except ImportError as error:
            pytest.skip(f"{store.name}: {error}")
        assert hasattr(found, attribute.split(".")[0]), target


def test_reading_the_descriptions_loads_no_store_client_nor_numpy() -> None:
    code = ("import sys; from filterproof.adapters.descriptor import stores; stores(); "
            "print(sorted(m for m in ('numpy', 'pydantic', 'chromadb', 'qdrant_client', 'lancedb', 'pymilvus', "
            "'psycopg') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


STUB_DESCRIPTOR = '''
from filterproof.adapters.descriptor import FuzzTarget, Store

STORES = (
    Store("stub-store", "filterproof.adapters.stubstore.store:StubAdapter",
          "filterproof.adapters.reference.store:ReferenceOptions", None, "a copy of the reference, under a new name",
          "backends/stub-store.md", order=5, embedded=True,
          fuzz=(FuzzTarget("stub-store", "filterproof.fuzz.targets.reference:ReferenceTarget"),)),
)
'''
STUB_STORE = '''
from filterproof.adapters.reference.store import ReferenceAdapter


class StubAdapter(ReferenceAdapter):
    name = "stub-store"
'''
PLUGIN = '''
import filterproof.adapters

filterproof.adapters.__path__.append({root!r})  # as if the package were in src/filterproof/adapters
'''


def test_a_store_added_as_a_package_is_listed_everywhere_without_another_edit(tmp_path: Path) -> None:
    """The stub package, and a path to it (here instead of a copy into the source tree): the backends list,
    fuzz --help, the docs table and navigation, compare's defaults and both conformance tiers list it."""
    package = tmp_path / "adapters" / "stubstore"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "descriptor.py").write_text(STUB_DESCRIPTOR)
    (package / "store.py").write_text(STUB_STORE)
    (tmp_path / "stub_path.py").write_text(PLUGIN.format(root=str(tmp_path / "adapters")))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "tests"), str(ROOT / "scripts"),
                                                         os.environ.get("PYTHONPATH", "")])}

    def run(*code: str) -> str:
        script = "import stub_path\n" + textwrap.dedent("\n".join(code))
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT,
                              check=True, timeout=300).stdout

    # One interpreter for the lists (each start imports the package): the fuzz targets, the docs, the defaults,
    # then the backends command, which exits.
    out = run("from filterproof.cli.fuzz import target_names", "print(target_names())", "import docs_hooks, yaml",
              "print(docs_hooks.backends_table('backends/index.md'))",
              "print(docs_hooks.with_store_pages(yaml.safe_load(open('mkdocs.yml'))['nav']))",
              "from filterproof.cli.compare import DEFAULT_BACKENDS; print(DEFAULT_BACKENDS)", "print('-' * 8)",
              "from filterproof.cli import app", "import sys; sys.argv = ['filterproof', 'backends']", "app()")
    fuzz_help, docs, listed = out.split("\n", 1)[0], *out.split("\n", 1)[1].split("-" * 8 + "\n")
    assert "stub-store" in listed.split()
    assert "stub-store" in fuzz_help
    assert "[`stub-store`](stub-store.md)" in docs and "'backends/stub-store.md'" in docs
    assert "'stub-store'" in docs.splitlines()[-1]
    assert docs.index("'backends/stub-store.md'") < docs.index("'The revision clause'")  # among the stores' pages
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "stub_path", "-p", "no:cacheprovider", "--collect-only", "-q",
         "-m", "slow or not slow", "tests/conformance/test_conformance_quick.py",
         "tests/conformance/test_conformance_builtin.py"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300).stdout
    assert "test_conformance_quick.py::TestStubStore::test_scale_tier" in collected
    assert "test_conformance_builtin.py::TestStubStore::test_scale_tier[query]" in collected
