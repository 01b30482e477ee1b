"""A finding as a standalone script that uses the engines' own clients only, and as JSON to replay.

The script loads the shrunk world into each target's store (the target's ``script``
part), asks the native filters exactly as the fuzzer rendered them, prints every
answer and checks the oracle's relation: exit 1 when the bug reproduces, 0 when it
does not (fixed, or another version).
"""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from filterproof.adapters import filterlang
from filterproof.fuzz.finding import Finding
from filterproof.fuzz.oracles import DESCRIPTIONS
from filterproof.fuzz.target import Target

FINDING_SCHEMA = "filterproof/fuzz-finding-1"


def script(finding: Finding, targets: list[Target]) -> str:
    parts = []
    for t in targets:
        with t.guard("script", engine=False):  # a skeleton's NotImplementedError passes: the command names it
            parts.append(t.script(finding.docs))
    versions = {k: v for t in targets for k, v in t.versions().items()}
    imports = _imports({line for p in parts for line in p.imports.splitlines() if line.strip()} | {"import sys"})
    asks = []
    for ask in finding.relation.asks:
        target = targets[ask.target]
        optimized = "" if ask.optimized is None else f", {ask.optimized!r}"  # an optimizable target's 4th argument
        asks.append(f"    {ask.label!r}: {parts[ask.target].ask}({ask.render(target)}, {ask.via!r}, {ask.indexed!r}"
                    f"{optimized}),")
    header = [
        f'"""filterproof fuzz finding: {finding.oracle} on {" and ".join(finding.targets)}.',
        "",
        f"{DESCRIPTIONS[finding.oracle]}",
        f"Filter: {filterlang.show(finding.expr)}",
        f"Versions: {', '.join(f'{k} {v}' for k, v in versions.items())}",
        f"Found by `filterproof fuzz --seed {finding.seed}` (case {finding.case}), shrunk from "
        f"{finding.shrunk_from[0]} documents and {finding.shrunk_from[1]} filter nodes.",
        "Exit status 1: the relation is violated (the bug reproduces); 0: it holds.",
        '"""',
    ]
    body = [
        "# ruff: noqa: E501  (the world and the filters, as found, one per line)", *imports, "",
        f"DOCS = {finding.docs!r}", "ALL = set(DOCS)",
        f"EXPECTED = {set(finding.relation.expected) or set()!r}",
        f"DEFINED = {set(finding.relation.defined) or set()!r}", "",
        *[p.setup for p in parts], "",
        "answers = {", *asks, "}",
        "for label, ids in answers.items():",
        "    print(f'{label}: {sorted(ids)}')",
        f"holds = {finding.relation.python}",
        f"print('holds' if holds else 'VIOLATED: {finding.oracle}')",
        "sys.exit(0 if holds else 1)",
    ]
    return "\n".join(header + body) + "\n"


def _imports(lines: set[str]) -> list[str]:
    """The standard library's imports, then the engines', each group ``import`` lines first (as isort orders)."""
    def module(line: str) -> str:
        return line.split()[1].split(".")[0]

    def order(line: str) -> tuple[bool, str]:
        return line.startswith("from "), line.split()[1]

    std = sorted((x for x in lines if module(x) in sys.stdlib_module_names), key=order)
    other = sorted((x for x in lines if module(x) not in sys.stdlib_module_names), key=order)
    return [*std, *([""] if std and other else []), *other]


def to_json(finding: Finding, versions: dict[str, str]) -> dict[str, Any]:
    return {
        "schema": FINDING_SCHEMA, "targets": list(finding.targets), "oracle": finding.oracle,
        "signature": finding.signature, "filter": filterlang.to_json(finding.expr),
        "shown": filterlang.show(finding.expr),
        "docs": _docs_json(finding.docs), "answers": finding.answers, "error": finding.error,
        "seed": finding.seed, "case": finding.case, "spellings": list(finding.spellings),
        "shrunk_from": list(finding.shrunk_from),
        "versions": versions, "reproducer": finding.reproducer,
    }


def _docs_json(docs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {i: {k: filterlang.value_to_json(v) if isinstance(v, date) else v for k, v in d.items()}
            for i, d in docs.items()}


def write(finding: Finding, targets: list[Target], directory: Path, first: int = 1) -> Path:
    """``finding-N.py`` (the reproducer) and ``finding-N.json`` (for ``--replay``) in ``directory``, N the first
    number from ``first`` under which neither file exists: what the directory already holds (an earlier run's
    findings, the user's own files) is never overwritten, and each file is created new (``x``: an existing path,
    a symbolic link too, is never written through)."""
    directory.mkdir(parents=True, exist_ok=True)
    text = script(finding, targets)  # before any file: a target whose script() fails leaves none
    versions = {k: v for t in targets for k, v in t.versions().items()}
    number = first
    while True:
        path, record = directory / f"finding-{number}.py", directory / f"finding-{number}.json"
        number += 1
        if any(p.exists() or p.is_symlink() for p in (path, record)):
            continue
        try:
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
        except FileExistsError:  # another run took the number meanwhile
            continue
        finding.reproducer = str(path)
        try:
            with record.open("x", encoding="utf-8") as out:
                out.write(json.dumps(to_json(finding, versions), indent=1) + "\n")
        except FileExistsError:
            path.unlink()
            continue
        return path


def number_of(path: Path) -> int:
    """N of ``finding-N.py``."""
    return int(path.stem.rpartition("-")[2])
