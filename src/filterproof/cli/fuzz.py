"""The ``fuzz`` command, added to the main typer app by ``register``.

Exit codes: 0 no finding, 1 a finding (each written as a reproducer and JSON), 2 bad
input or usage. ``--replay FILE`` reruns one finding's world and filter on its targets.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from filterproof.cli.common import EXIT_USAGE, console


def seconds(text: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(s|m)?", text.strip())
    if match is None:
        raise typer.BadParameter(f"{text!r} is no duration (60s, 2m, 90)")
    return float(match[1]) * (60 if match[2] == "m" else 1)


def fuzz_command(
    backend: Annotated[list[str] | None, typer.Option(
        "--backend", "-b", help="A fuzz target (repeat): qdrant-local, qdrant-edge, qdrant-server (QDRANT_URL), "
                                "chroma, chroma-server, lancedb, pgvector-typed, pgvector-jsonb, milvus, "
                                "milvus-server (MILVUS_URI), llamaindex-qdrant, llamaindex-chroma, "
                                "llamaindex-pgvector, llamaindex-milvus, llamaindex-lancedb (LlamaIndex "
                                "MetadataFilters), langchain-pgvector (LangChain filter dicts), selfquery-qdrant, "
                                "selfquery-chroma, selfquery-milvus, selfquery-pgvector (LangChain's "
                                "SelfQueryRetriever), or module:Class (your own). Default: every installed one. Two "
                                "targets of one filter language are also diffed.")] = None,
    budget: Annotated[str, typer.Option(help="How long to generate cases: 60s, 2m.")] = "60s",
    seed: Annotated[int, typer.Option(help="The generator's seed: a seed and a case count name the cases.")] = 1,
    cases: Annotated[int | None, typer.Option(help="Stop after this many filters (with the budget).")] = None,
    out: Annotated[Path, typer.Option(help="Where reproducers and findings are written.")] = Path("fuzz-findings"),
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the run as JSON here.")] = None,
    shrink_s: Annotated[float, typer.Option("--shrink-seconds", help="Time to shrink each finding.")] = 5.0,
    replay: Annotated[Path | None, typer.Option(help="Rerun one finding (its finding-N.json).")] = None,
) -> None:
    """Generate filters and worlds, judge each engine's own filter language by metamorphic and differential
    oracles, and write a minimal standalone reproducer for every finding."""
    import logging
    import warnings

    from filterproof.fuzz import report
    from filterproof.fuzz.targets import FAMILIES, TARGETS, installed, open_target

    if replay is not None:
        raise typer.Exit(report.replay(replay))
    names = list(backend or installed())
    unknown = [n for n in names if n not in TARGETS and ":" not in n]
    if unknown:
        console.print(f"error: unknown fuzz target {unknown[0]!r}; built in: {', '.join(TARGETS)}")
        raise typer.Exit(EXIT_USAGE)
    try:
        targets = [open_target(n) for n in names]
    except (ImportError, AttributeError, KeyError) as error:
        console.print(Text(f"error: cannot open the fuzz target: {error}"))
        raise typer.Exit(EXIT_USAGE) from None
    pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))
             if FAMILIES.get(names[a]) is not None and FAMILIES.get(names[a]) == FAMILIES.get(names[b])]
    logging.disable(logging.ERROR)  # engines log what they refuse before raising it; the run reports it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from filterproof.fuzz.run import fuzz

        try:
            outcome = fuzz(targets, seed, seconds(budget), cases, pairs, shrink_s)
            written = report.write(outcome, targets, out)
        except NotImplementedError as error:  # a target of your own, still a skeleton (filterproof new-adapter)
            console.print(Text(f"error: the fuzz target is not written yet: {error}"))
            raise typer.Exit(EXIT_USAGE) from None
        finally:
            for target in targets:
                target.close()
    console.print(Text(report.summary(outcome, targets, written)))  # no markup: signatures hold brackets
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(outcome, targets, written), indent=1) + "\n")
    if outcome.stopped is not None:
        from filterproof.guardian import end_stopped

        end_stopped(outcome.stopped)
    raise typer.Exit(1 if outcome.findings else 0)


def register(app: typer.Typer) -> None:
    app.command("fuzz")(fuzz_command)
