"""The ``matrix`` command, added to the main typer app by ``register``.

Only typer and the standard library at module level: frameworks load when it runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def matrix_command(
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the matrix as JSON to this file.")] = None,
    markdown: Annotated[Path | None, typer.Option("--markdown", help="Write the matrix as Markdown.")] = None,
    target: Annotated[list[str] | None, typer.Option(
        "--target", "-t", help="Only these integrations (backend name, or backend/language); repeat.")] = None,
    path: Annotated[list[str] | None, typer.Option(
        "--path", "-p", help="Only these search paths (plain, score_threshold, mmr, retriever); repeat.")] = None,
    probe: Annotated[list[str] | None, typer.Option("--probe", help="Only these probes; repeat.")] = None,
) -> None:
    """Probe every installed framework x store with one small query per filter operator and search path."""
    import logging
    import warnings

    from rich.console import Console

    from filterproof.adapters.bridges.options import PATHS
    from filterproof.matrix.probes import PROBE_NAMES, PROBES
    from filterproof.matrix.render import render_console, to_markdown
    from filterproof.matrix.run import run_matrix
    from filterproof.matrix.targets import TARGETS

    def chosen(given: list[str] | None, known: tuple[str, ...], what: str) -> list[str]:
        unknown = [g for g in given or () if g not in known]
        if unknown:
            raise _fail(f"unknown {what} {unknown[0]!r} (--{what}); known: {', '.join(known)}")
        return list(given or known)

    names = tuple(t.name for t in TARGETS) + tuple(dict.fromkeys(t.backend for t in TARGETS))
    targets = [t for t in TARGETS if t.name in chosen(target, names, "target") or t.backend in (target or [t.backend])]
    probes = [p for p in PROBES if p.name in chosen(probe, PROBE_NAMES, "probe")]
    paths = chosen(path, PATHS, "path")
    for place, option in ((json_out, "--json"), (markdown, "--markdown")):  # before the run: it takes minutes
        problem = _unwritable(place) if place is not None else None
        if problem:
            raise _fail(f"{option} {place}: {problem}")
    from filterproof.servers import guardian

    guardian.watch()  # the pgvector targets start a throwaway PostgreSQL: removed even if this process is killed
    # The integrations log and warn about their own fallbacks (MMR, local-mode indexes), and pymilvus logs every
    # refused request with its traceback before raising it; the matrix reports outcomes ("raises" with the error).
    logging.disable(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_matrix(targets, probes, paths)
    console = Console() if Console().is_terminal else Console(width=200)
    if result.stopped is None:
        render_console(console, result)
    if json_out is not None:
        json_out.write_text(json.dumps(result.to_json(), indent=2) + "\n")
        console.print(f"wrote {json_out}" + (" (stopped: incomplete)" if result.stopped is not None else ""))
    if result.stopped is not None:
        from filterproof.servers.guardian import end_stopped

        end_stopped(result.stopped)
    if markdown is not None:
        markdown.write_text(to_markdown(result))
        console.print(f"wrote {markdown}")


def _fail(message: str) -> typer.Exit:
    """``filterproof.cli.common.fail``'s one line on stderr, exit 2 (this layer is under the command line's)."""
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True).print(Text.assemble(("error: ", "bold red"), message), highlight=False, soft_wrap=True)
    return typer.Exit(2)


def _unwritable(path: Path) -> str | None:
    """Why no file can be written at ``path`` (as ``cli.common.writable`` checks it); None when one can."""
    import tempfile

    if path.is_dir():
        return "is a directory; give a file name"
    if not path.parent.is_dir():
        return f"directory {path.parent} does not exist"
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".check"):
            pass
    except OSError as error:
        return f"cannot write in {path.parent}: {error.strerror or error}"
    return None


def register(app: typer.Typer) -> None:
    app.command("matrix")(matrix_command)
