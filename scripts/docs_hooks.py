"""MkDocs hooks (``hooks:`` in mkdocs.yml): the pages that are generated from the code, so they cannot drift.

A page asks for generated content with a marker on a line of its own::

    <!-- generated: cli -->                      every filterproof command's --help, as the terminal shows it
    <!-- generated: results-schema -->           the results document, from filterproof.report's docstring
    <!-- generated: options chroma -->           a backend's options table, from its Options model
    <!-- generated: defects -->                  the seeded defects, from filterproof.conformance.defects
    <!-- generated: backends -->                 the built-in backends, from the stores' descriptors
    <!-- generated: docstring MODULE -->         a module's docstring (the adapter contract)
    <!-- generated: mutation -->                 the mutation run's summary, bench/results/mutation/summary.txt

The markers stay invisible on GitHub (an HTML comment); the site shows what the code
says at build time. ``bench/results/arecall_vs_selectivity.png`` is added to the site
as ``assets/bench/`` so that the scale page shows the committed figure, not a copy.
The functions are importable (``tests/docs/test_docs.py`` checks their output).
"""

from __future__ import annotations

import importlib
import posixpath
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "src") not in sys.path:  # document the checkout being built, not whatever is installed
    sys.path.insert(0, str(ROOT / "src"))

MARKER = re.compile(r"^<!-- generated: (?P<what>[\w-]+)(?: (?P<arg>[\w.-]+))? -->$", re.MULTILINE)
HELP_WIDTH = 100
FIGURES = {"assets/bench/arecall_vs_selectivity.png": "bench/results/arecall_vs_selectivity.png"}


def inline_code(text: str) -> str:
    """reST ``code`` (also across a line break) as Markdown `code`."""
    return re.sub(r"``(.+?)``", r"`\1`", text, flags=re.S)


def rst_to_markdown(text: str) -> str:
    """The docstrings' light reST: ``code`` becomes `code`, a ``::`` paragraph introduces a code block."""
    out: list[str] = []
    prose: list[str] = []
    lines = text.strip("\n").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            stripped = line.rstrip()[:-2].rstrip()
            prose.append(stripped + (":" if stripped else ""))
            out.append(inline_code("\n".join(prose)))
            prose, block, i = [], [], i + 2
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```text", *block, "```", ""]
            continue
        prose.append(line)
        i += 1
    out.append(inline_code("\n".join(prose)))
    return "\n".join(out).strip() + "\n"


def command_paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and subcommand of a click group, depth first, in the order ``--help`` lists them."""
    paths = [prefix]
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            paths += command_paths(sub, (*prefix, name))
    return paths


def help_text(path: tuple[str, ...]) -> str:
    """``filterproof PATH --help`` exactly as a terminal of ``HELP_WIDTH`` columns shows it, without colour."""
    from typer.testing import CliRunner

    from filterproof.cli import app

    result = CliRunner().invoke(app, [*path, "--help"], prog_name="filterproof",
                                env={"COLUMNS": str(HELP_WIDTH), "NO_COLOR": "1", "TERM": "dumb"})
    if result.exit_code != 0:
        raise RuntimeError(f"filterproof {' '.join(path)} --help exited {result.exit_code}: {result.output}")
    return "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n") + "\n"


def cli_reference() -> str:
    import typer

    from filterproof.cli import app

    root = typer.main.get_command(app)
    paths = command_paths(root)
    lines = ["| command | what it does |", "|---|---|"]
    for path in paths[1:]:
        command: Any = root
        for name in path:
            command = command.commands[name]
        summary = (command.help or "").strip().split("\n\n")[0].replace("\n", " ")
        lines.append(f"| [`filterproof {' '.join(path)}`](#{'-'.join(path)}) | {summary} |")
    sections = ["\n".join(lines) + "\n"]
    for path in paths:
        title = "filterproof " + " ".join(path) if path else "filterproof"
        anchor = "-".join(path) if path else "filterproof"
        sections.append(f"## `{title.strip()}` {{#{anchor}}}\n\n```text\n{help_text(path)}```\n")
    return "\n".join(sections)


def results_schema() -> str:
    import filterproof.report as report

    return f"Schema identifier: `{report.SCHEMA}`.\n\n" + rst_to_markdown(report.__doc__ or "")


def options_table(name: str) -> str:
    from filterproof.adapters import options_of
    from filterproof.adapters.options import type_name

    model = options_of(name)
    if model is None or not model.model_fields:
        return f"`{name}` takes no options.\n"
    rows = [f"Options of `{name}` (`-b {name}:key=value,...`):", "", "| option | type | default | meaning |",
            "|---|---|---|---|"]
    for key, info in model.model_fields.items():
        value = None if info.is_required() else info.get_default(call_default_factory=True)
        default = "-" if value is None else f"`{str(value).lower() if isinstance(value, bool) else value}`"
        bounds = " ".join(f"{op} {getattr(item, attr)}" for item in info.metadata
                          for op, attr in ((">=", "ge"), (">", "gt"), ("<=", "le"), ("<", "lt"))
                          if getattr(item, attr, None) is not None)
        kind = type_name(info.annotation) + (f" ({bounds})" if bounds else "")
        meaning = (info.description or "").replace("|", "\\|")
        rows.append(f"| `{key}` | {kind.replace('|', ', ')} | {default} | {meaning} |")
    return "\n".join(rows) + "\n"


def first_paragraph(doc: str | None) -> str:
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def defects_table() -> str:
    """The seeded defects by family (the module each lives in), each with the first paragraph of its docstring."""
    from filterproof.conformance.defects import DEFECTS

    families: dict[str, list[str]] = {}
    for name, cls in DEFECTS.items():
        family = cls.__module__.rsplit(".", 1)[-1]
        mistake = inline_code(first_paragraph(cls.__doc__))
        families.setdefault(family, []).append(f"- **`{name}`**: {mistake}")
    sections = [f"## {family} ({len(items)})\n\n" + "\n".join(items) for family, items in families.items()]
    return f"{len(DEFECTS)} seeded defects, by family:\n\n" + "\n\n".join(sections) + "\n"


def module_docstring(module: str) -> str:
    return rst_to_markdown(importlib.import_module(module).__doc__ or "")


def backends_table(page: str) -> str:
    """Every built-in backend (``adapters.descriptor``): its name linked to its page (relative to ``page``), what it
    is, its extra, and whether ``compare`` runs it when no ``--backend`` is given."""
    from filterproof.adapters.descriptor import stores

    here = posixpath.dirname(page)
    lines = ["| name | what it is | extra | by default |", "|---|---|---|---|"]
    for store in stores():
        link = posixpath.relpath(store.page.split("#")[0], here or ".") + ("#" + store.page.split("#")[1]
                                                                           if "#" in store.page else "")
        extra = f"`{store.extra}`" if store.extra else "-"
        lines.append(f"| [`{store.name}`]({link}) | {store.summary} | {extra} | {'yes' if store.embedded else ''} |")
    return "\n".join(lines) + "\n"


def render(what: str, arg: str | None, page: str = "index.md") -> str:
    """The Markdown a marker stands for (``page``: the page it is on, relative to docs/, for its links)."""
    if what == "backends":
        return backends_table(page)
    if what == "cli":
        return cli_reference()
    if what == "results-schema":
        return results_schema()
    if what == "options" and arg:
        return options_table(arg)
    if what == "defects":
        return defects_table()
    if what == "docstring" and arg:
        return module_docstring(arg)
    if what == "mutation":
        return mutation_summary()
    raise ValueError(f"unknown generated block {what!r} {arg or ''}".strip())


def expand(markdown: str, page: str = "index.md") -> str:
    return MARKER.sub(lambda m: render(m.group("what"), m.group("arg"), page).rstrip("\n"), markdown)


def with_store_pages(nav: list[Any]) -> list[Any]:
    """``nav`` with each store's page (``adapters.descriptor``) that it does not list yet added to its
    "Backends" section, after the stores' pages it lists (before the section's other pages) and titled by the
    page's own heading: a store added as a package needs no edit of mkdocs.yml."""
    from filterproof.adapters.descriptor import stores

    pages = list(dict.fromkeys(store.page.split("#")[0] for store in stores()))
    listed = set(nav_pages(nav))
    section = next(entry["Backends"] for entry in nav if isinstance(entry, dict) and "Backends" in entry)
    for page in pages:
        if page not in listed:
            after = [i for i, entry in enumerate(section) if not set(nav_pages(entry)).isdisjoint(pages)]
            section.insert(after[-1] + 1 if after else len(section), page)
            listed.add(page)
    return nav


def nav_pages(nav: Any) -> list[str]:
    """Every page a navigation lists."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return [page for entry in nav for page in nav_pages(entry)]


def on_config(config: Any) -> Any:
    config["nav"] = with_store_pages(config["nav"])
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for uri, source in FIGURES.items():
        files.append(File.generated(config, uri, abs_src_path=str(ROOT / source)))
    return files


def mutation_summary() -> str:
    """The committed mutation run's summary (``bench/mutation/run.py`` writes it), as it is."""
    summary = (ROOT / "bench" / "results" / "mutation" / "summary.txt").read_text()
    return f"```text\n{summary.rstrip()}\n```\n"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return expand(markdown, page.file.src_uri)
