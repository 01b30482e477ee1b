"""Every code example in the documentation runs, as a reader would run it (Sybil).

``docs/**/*.md`` and ``README.md``, each page's examples in order:

* ```python blocks run in one namespace per page, in a fresh interpreter of their own
  (``support.docs_worker``), from the repository root;
* ```bash blocks are run with ``bash -e -o pipefail`` from the repository root, this
  environment's ``filterproof``, ``pytest`` and ``python`` first on ``PATH``; a non-zero
  exit fails unless ``<!-- exit-code: N -->`` on the line before the block documents it;
* ``<!-- skip: next "why" -->`` skips the next block, and the reason shows in the report;
* ``<!-- save-as: NAME.py -->`` before a ```python block also writes the block, as shown, to
  ``NAME.py`` in a directory on the ``PYTHONPATH`` of every later bash block (a module the
  page tells the reader to save, e.g. an embedding function for ``--embedding``).

Output (```text, ```json, ```toml, ```yaml) is not run; ```json marked
``<!-- fixture: loadable -->`` must load as a fixture (``tests/docs/test_docs_site.py``).
"""

from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import unittest
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from support.paths import ROOT

pytest.importorskip("sybil", reason="the docs extra is not installed: pip install -e '.[docs]'")
from sybil import Document, Example, Sybil
from sybil.evaluators.skip import Skipper
from sybil.parsers.markdown import CodeBlockParser, SkipParser

from support.docs_worker import serve

PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
EXIT_CODE = re.compile(r"<!-- exit-code: (\d+) -->")
SAVE_AS = re.compile(r"<!-- save-as: ([\w.]+\.py) -->")
SAVED = Path(tempfile.mkdtemp(prefix="filterproof-docs-"))
"""Where ``save-as`` blocks are written; on the PYTHONPATH of bash blocks."""
TIMEOUT = 600
pytestmark = pytest.mark.slow  # about two minutes: every command on the site, each in its own process


def environment() -> dict[str, str]:
    """This interpreter's scripts (filterproof, pytest, python) first on PATH; no colour, a fixed width."""
    scripts = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in (str(SAVED), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PATH": scripts + os.pathsep + os.environ.get("PATH", ""), "NO_COLOR": "1",
            "COLUMNS": "120", "PYTHONPATH": path}


def line_before(document: Document, start: int) -> str:
    return document.text[:start].rstrip().rsplit("\n", 1)[-1].strip()


class PythonPages:
    """The ```python evaluator: one worker interpreter per page, started on the page's first block."""

    def __init__(self) -> None:
        self.workers: dict[str, tuple[multiprocessing.process.BaseProcess, Connection]] = {}

    def __call__(self, example: Example) -> str | None:
        if example.path not in self.workers:
            ours, theirs = multiprocessing.get_context("spawn").Pipe()
            process = multiprocessing.get_context("spawn").Process(target=serve, args=(theirs, str(ROOT)), daemon=True)
            process.start()
            self.workers[example.path] = (process, ours)
        process, connection = self.workers[example.path]
        connection.send((example.path, example.line + example.parsed.line_offset, str(example.parsed)))
        if not connection.poll(TIMEOUT):
            return f"no answer in {TIMEOUT} s"
        return connection.recv()

    def close(self) -> None:
        for process, connection in self.workers.values():
            connection.send(None)
            process.join(30)
            if process.is_alive():
                process.kill()
        self.workers.clear()


class PythonParser(CodeBlockParser):
    """```python blocks, run by ``PythonPages``; after ``save-as``, also written to ``SAVED``."""

    language = "python"

    def __call__(self, document: Document) -> Iterator:
        for region in super().__call__(document):
            marked = SAVE_AS.fullmatch(line_before(document, region.start))
            if marked:
                (SAVED / marked.group(1)).write_text(str(region.parsed), encoding="utf-8")
            yield region


class BashParser(CodeBlockParser):
    """```bash blocks, run in a subprocess; the exit code they must end with is 0 unless documented."""

    language = "bash"

    def __call__(self, document: Document) -> Iterator:
        for region in super().__call__(document):
            marked = EXIT_CODE.fullmatch(line_before(document, region.start))
            region.parsed = (str(region.parsed), int(marked.group(1)) if marked else 0)
            yield region

    def evaluate(self, example: Example) -> str | None:
        source, expected = example.parsed
        result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", source], cwd=ROOT, env=environment(),
                                capture_output=True, text=True, timeout=TIMEOUT, check=False)
        if result.returncode == expected:
            return None
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-40:])
        return f"exit code {result.returncode}, documented {expected}:\n{source}\n--- output (last lines) ---\n{tail}"


PYTHON = PythonPages()
SYBIL = Sybil(parsers=[PythonParser(evaluator=PYTHON), BashParser(), SkipParser()], path=str(ROOT))


def examples(page: Path) -> Iterator[object]:
    """One test per runnable block of ``page``, in order; skip directives run with the block they precede."""
    pending: list[Example] = []
    for example in SYBIL.parse(page):
        if isinstance(example.region.evaluator, Skipper):
            pending.append(example)
            continue
        yield pytest.param([*pending, example], id=f"{page.relative_to(ROOT)}:{example.line}")
        pending = []


@pytest.fixture(scope="module", autouse=True)
def python_workers() -> Iterator[None]:
    yield
    PYTHON.close()


def run(chain: list[Example]) -> None:
    for example in chain:
        try:
            example.evaluate()
        except unittest.SkipTest as reason:
            pytest.skip(f"{Path(example.path).relative_to(ROOT)}:{example.line}: {reason}")


def page_class(page: Path, chains: list[object]) -> type:
    """One class per page: ``--dist loadscope`` keeps a page's blocks in order on one worker (they share a
    namespace) and spreads the pages over the workers (one module-wide unit ran on one worker alone)."""

    class Page:
        @pytest.mark.parametrize("chain", chains)
        def test_example(self, chain: list[Example]) -> None:
            """The block runs as shown (or is skipped with the reason the page gives)."""
            run(chain)

    Page.__name__ = Page.__qualname__ = "TestPage_" + re.sub(r"\W", "_", str(page.relative_to(ROOT)))
    return Page


for _page in PAGES:
    if _chains := list(examples(_page)):  # a page with no runnable block has no class (no empty test)
        _class = page_class(_page, _chains)
        globals()[_class.__name__] = _class
