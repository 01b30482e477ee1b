"""The matrix as a console table, a Markdown document and JSON (``Matrix.to_json``).

Rows are target x search path, columns the probes; a cell is its verdict. The two
silent verdicts (``ignored``, ``wrong``) are the dangerous ones: they return a
plausible answer. ``raises`` and ``unsupported`` fail loudly.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from filterproof.adapters.bridges.options import PATHS
from filterproof.matrix.probes import PROBES
from filterproof.matrix.run import Cell, Matrix

MARK = {"works": "ok", "ignored": "IGNORED", "wrong": "WRONG", "raises": "raises", "unsupported": "n/a"}
STYLE = {"works": "green", "ignored": "bold red", "wrong": "bold red", "raises": "yellow", "unsupported": "dim"}
LEGEND = ("ok: exactly the expected documents; IGNORED: the expected ones and more (a leak); WRONG: expected "
          "documents missing or others returned; raises: the integration raised; n/a: the filter language cannot "
          "say it")


def _rows(matrix: Matrix) -> list[tuple[str, str]]:
    """Each target with each search path it was asked through (an integration may lack one: Haystack's MMR)."""
    targets = list(dict.fromkeys(c.target for c in matrix.cells))
    return [(t, p) for t in targets for p in PATHS if any(c.target == t and c.path == p for c in matrix.cells)]


def _probes(matrix: Matrix) -> list[str]:
    present = {c.probe for c in matrix.cells}
    return [p.name for p in PROBES if p.name in present]


def render_console(console: Console, matrix: Matrix) -> None:
    table = Table(title="Filter operators through each integration and search path", title_justify="left")
    table.add_column("integration / language")
    table.add_column("path")
    probes = _probes(matrix)
    for name in probes:
        table.add_column(name)
    for target, path in _rows(matrix):
        cells = [matrix.verdict(target, probe, path) for probe in probes]
        table.add_row(target, path, *[f"[{STYLE[c.verdict]}]{MARK[c.verdict]}[/]" if c else "" for c in cells])
    console.print(table)
    console.print(LEGEND, style="dim")
    for target, why in matrix.skipped.items():
        console.print(f"[yellow]skipped[/] {target}: {why}", highlight=False)
    console.print("versions: " + ", ".join(f"{k} {v}" for k, v in sorted(matrix.versions.items())), highlight=False)


def _mark(cell: Cell | None) -> str:
    if cell is None:
        return ""
    return f"**{MARK[cell.verdict]}**" if cell.verdict in ("ignored", "wrong") else MARK[cell.verdict]


def to_markdown(matrix: Matrix) -> str:
    """One row per integration when its search paths all agree ("all N"), else one row per path."""
    probes = _probes(matrix)
    lines = ["| integration / language | path | " + " | ".join(probes) + " |",
             "|---|---|" + "---|" * len(probes)]
    rows = _rows(matrix)
    for target in dict.fromkeys(t for t, _ in rows):
        paths = [p for t, p in rows if t == target]
        marks = {p: [_mark(matrix.verdict(target, probe, p)) for probe in probes] for p in paths}
        if len({tuple(m) for m in marks.values()}) == 1:
            marks = {f"all {len(paths)}": marks[paths[0]]}
        lines += [f"| {target} | {path} | " + " | ".join(m) + " |" for path, m in marks.items()]
    lines += ["", LEGEND + ".", "", "Probes:", ""]
    lines += [f"- `{p.name}`: {p.description}" for p in PROBES if p.name in probes]
    lines += ["", "Measured with " + ", ".join(f"{k} {v}" for k, v in sorted(matrix.versions.items())) + "."]
    silent: dict[tuple[str, str, str, str], list[str]] = {}
    for c in matrix.cells:
        if c.verdict in ("ignored", "wrong"):
            silent.setdefault((c.target, c.probe, str(c.got), str(c.expected)), []).append(c.path)
    if silent:
        lines += ["", "Silent failures:", ""]
        lines += [f"- {target} `{probe}` ({', '.join(paths)}): returned {got}, expected {expected}"
                  for (target, probe, got, expected), paths in silent.items()]
    return "\n".join(lines) + "\n"
