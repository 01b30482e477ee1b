"""The documentation site and the README hold together: navigation, generated pages, fixtures shown, commands.

The examples themselves run in ``tests/docs/test_docs.py``; ``mkdocs build --strict`` runs in ``.ci/run``.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from filterproof.fixtures import load_fixture
from support.paths import ROOT

yaml = pytest.importorskip("yaml", reason="PyYAML comes with the docs extra: pip install -e '.[docs]'")

DOCS = ROOT / "docs"
README = ROOT / "README.md"
SETUP = ("python3 -m venv .venv && .venv/bin/pip install uv && .venv/bin/uv pip install --python .venv/bin/python "
         "--compile-bytecode -e '.[all]' -e examples/sqlite-store && "
         ".venv/bin/filterproof compare fixtures/freshness-lab.json fixtures/authorized-recall")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<info>[^`\n]*)$", re.MULTILINE)
LANGUAGES = {"python", "bash", "text", "json", "toml", "yaml", "console", "sql"}
PAGES = sorted(DOCS.rglob("*.md"))


def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fenced_blocks(text: str) -> list[tuple[str, str, int]]:
    """(info string, body, start offset) of every fenced block."""
    blocks, position = [], 0
    while (opening := FENCE.search(text, position)) is not None:
        closing = re.compile(rf"^{re.escape(opening['indent'])}{opening['fence']}[ \t]*$", re.MULTILINE)
        end = closing.search(text, opening.end())
        assert end is not None, f"unclosed block at offset {opening.start()}"
        blocks.append((opening["info"].strip(), text[opening.end() + 1:end.start()], opening.start()))
        position = end.end()
    return blocks


def test_readme_is_at_most_250_lines() -> None:
    assert len(README.read_text().splitlines()) <= 250


def test_readme_set_up_commands_are_the_ones_ci_runs() -> None:
    """The main job's command verbatim, and the marked test and slow commands, each a line that .ci/run runs."""
    text = README.read_text()
    assert f"```bash\n{SETUP}\n```" in text
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    for which in ("test-command", "slow-command"):
        marked = re.findall(rf"<!-- {which}:start -->(.*?)<!-- {which}:end -->", text, re.S)
        assert len(marked) == 1, f"one {which} block between its markers"
        blocks = [body.strip() for info, body, _ in fenced_blocks(marked[0]) if info == "bash"]
        assert len(blocks) == 1 and len(blocks[0].splitlines()) == 1, blocks
        assert blocks[0] in ci, f"the README's {which} {blocks[0]!r} is not a line of .ci/run"


def test_readme_links_reach_pages() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = hooks().nav_pages(hooks().with_store_pages(config["nav"]))  # as the site is built
    assert len(listed) == len(set(listed)), "a page listed twice"
    on_disk = {str(page.relative_to(DOCS)) for page in PAGES}
    assert set(listed) == on_disk, (set(listed) ^ on_disk)


@pytest.mark.parametrize("page", [*PAGES, README], ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_say_what_they_are(page: Path) -> None:
    """Every block names a language the docs test knows: run (python, bash) or shown (the rest)."""
    for info, body, start in fenced_blocks(page.read_text()):
        line = page.read_text().count("\n", 0, start) + 1
        assert info in LANGUAGES, f"{page.name}:{line}: block language {info!r}"
        if info == "console":
            assert not re.search(r"^\$ ", body, re.M), f"{page.name}:{line}: a command in a console block: use bash"


def test_shown_fixtures_load(tmp_path: Path) -> None:
    shown = 0
    for page in PAGES:
        text = page.read_text()
        for info, body, start in fenced_blocks(text):
            if info == "json" and text[:start].rstrip().endswith("<!-- fixture: loadable -->"):
                path = tmp_path / f"{page.stem}-{start}.json"
                path.write_text(body)
                assert load_fixture(path).cases, f"{page.name}: the fixture shown has no cases"
                shown += 1
    assert shown >= 1


def test_generated_blocks_render() -> None:
    """Every marker renders (mkdocs would fail the build otherwise), and the CLI page covers every command."""
    module = hooks()
    for page in PAGES:
        rendered = module.expand(page.read_text())
        assert module.MARKER.search(rendered) is None, page.name
    cli = module.cli_reference()
    for command in ("compare", "sweep", "generate", "new-adapter", "matrix", "fuzz", "check", "backends", "version"):
        assert f"Usage: filterproof {command} " in cli or f"Usage: filterproof {command}\n" in cli, command
    assert "filterproof/2" in module.results_schema()
    assert "`ef_search`" in module.options_table("chroma")
    assert "`IgnoresValidUntil`" in module.defects_table()


def test_the_matrix_page_shows_the_measured_matrix() -> None:
    spec = importlib.util.spec_from_file_location("readme_matrix", ROOT / "scripts" / "readme_matrix.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.block(module.measured()) in module.PAGE.read_text(), "run scripts/readme_matrix.py"
    assert json.loads((ROOT / "bench" / "results" / "matrix.json").read_text())["cells"]


REPO_PATH = re.compile(r"(?<![\w/.-])((?:tests|src|bench|scripts|examples|fixtures)/[\w./-]*\w)")
ELSEWHERE = {"tests/test_conformance.py", "src/filterproof_mystore/adapter.py",
             "src/filterproof_mystore/fuzz_target.py", "tests/test_acme_lance_conformance.py", "fixtures/x.json"}
"""Named in the docs but not in this repository: what ``filterproof new-adapter`` writes in the user's project, and
a user's own fixture in an example."""


def test_repository_paths_named_in_the_docs_exist() -> None:
    """Every ``tests/...``, ``src/...``, ``bench/...`` path the README, the docs and the development guide name
    is in the repository (the tests moved into layer folders once; a page kept naming the old places)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    missing = sorted({f"{page.relative_to(ROOT)}: {path}" for page in pages
                      for path in REPO_PATH.findall(page.read_text()) if path not in ELSEWHERE and not exists(path)})
    assert not missing, "\n".join(missing)


def exists(path: str) -> bool:
    """A file or folder, a test's node id (``FILE::name``), or the start of names that exist, written ending in
    ``_`` (``test_fuzz_*``, ``freshness_{threads,processes}``)."""
    target = ROOT / path.split("::")[0]
    return target.exists() or (path.endswith("_") and any(target.parent.glob(target.name + "*")))


def test_the_readme_counts_the_modules_measured_by_mutation() -> None:
    """The README's "N of the M planned adapter modules": N finished runs in bench/results/mutation/, M modules in
    bench/mutation/plan.toml (a count typed once and left behind would overstate or understate the suite)."""
    import tomllib

    found = re.search(r"(\d+) of the (\d+) planned adapter modules", README.read_text())
    assert found, "the README names how many modules the mutation run measured"
    planned = tomllib.loads((ROOT / "bench" / "mutation" / "plan.toml").read_text())["module"]
    finished = [p for p in (ROOT / "bench" / "results" / "mutation").glob("*.json")
                if json.loads(p.read_text()).get("complete", True)]
    assert (int(found[1]), int(found[2])) == (len(finished), len(planned))
