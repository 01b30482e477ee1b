"""The ``fuzz`` command, added to the main typer app by ``register``.

Exit codes: 0 no finding, 1 a finding (each written as a reproducer and JSON), 2 bad
input or usage: a target that cannot be opened, an output that cannot be written (checked
before the run), or a target whose own code raised (``Target.engine_errors``: not the
engine's answer, so no finding; ``--debug`` prints its traceback). ``--replay FILE``
reruns one finding's world and filter on its targets.
"""

from __future__ import annotations

import json
import re
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from filterproof.cli.checks import at_least, finite_number, writable_dir
from filterproof.cli.common import console, fail, notice, usage_errors, writable


def seconds(text: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(s|m)?", text.strip())
    if match is None:
        raise fail(f"--budget {text!r}: expected a duration (60s, 2m, 90)")
    return float(match[1]) * (60 if match[2] == "m" else 1)


def shown(name: str) -> str:
    """A ``-b`` value as typed, quoted when it is odd (empty, ``:``, spaces)."""
    return name if re.fullmatch(r"[\w.-]+(?::[\w.=-]+)?", name) else repr(name)


def target_names() -> str:
    """The built-in targets, as the stores' descriptors list them (``adapters.descriptor``, no engine imported)."""
    from filterproof.adapters.descriptor import fuzz_targets

    return ", ".join(t.name + (f" ({t.needs})" if t.needs else "") for t in fuzz_targets())


def fuzz_command(
    backend: Annotated[list[str] | None, typer.Option(
        "--backend", "-b", help=f"A fuzz target (repeat): {target_names()}, or module:Class (your own). Default: "
                                "every installed one. Two targets of one filter language are also diffed. With "
                                "--replay: the module:Class targets the finding may open.")] = None,
    budget: Annotated[str, typer.Option(help="How long to generate cases: 60s, 2m.")] = "60s",
    seed: Annotated[int, typer.Option(help="The generator's seed: a seed and a case count name the cases.")] = 1,
    cases: Annotated[int | None, typer.Option(help="Stop after this many filters (with the budget).")] = None,
    out: Annotated[Path, typer.Option(help="Where reproducers and findings are written (never over a file "
                                           "there: numbered past them).")] = Path("fuzz-findings"),
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the run as JSON here.")] = None,
    shrink_s: Annotated[float, typer.Option("--shrink-seconds", help="Time to shrink each finding.")] = 5.0,
    replay: Annotated[Path | None, typer.Option(
        help="Rerun one finding (its finding-N.json). It opens the built-in targets it names; a module:Class "
             "only when given with -b too.")] = None,
    debug: Annotated[bool, typer.Option(
        "--debug", help="When a target's own code raises, print the traceback too.")] = False,
) -> None:
    """Generate filters and worlds, judge each engine's own filter language by metamorphic and differential
    oracles, and write a minimal standalone reproducer for every finding."""
    from filterproof.fuzz.target import TargetFailed

    try:
        if replay is not None:
            from filterproof.errors import UsageError
            from filterproof.fuzz import report

            try:  # a finding file names its targets: -b says which module:Class it may open
                code = report.replay(replay, allowed=set(backend or ()))
            except UsageError as error:
                raise fail(f"--replay {error}") from None
            raise typer.Exit(code)
        _run(backend, seconds(budget), seed, cases, out, json_out, shrink_s)
    except TargetFailed as failed:  # the target's own bug (not one of its engine_errors), not the engine's
        raise target_failed(failed, debug) from None
    except NotImplementedError as error:  # a target of your own, still a skeleton (filterproof new-adapter)
        raise fail(f"the fuzz target is not written yet: {error}") from None


def _run(backend: list[str] | None, budget_s: float, seed: int, cases: int | None, out: Path, json_out: Path | None,
         shrink_s: float) -> None:
    import logging
    import warnings

    from filterproof.fuzz import report
    from filterproof.fuzz.targets import FAMILIES, TargetError, installed, open_targets

    at_least(cases, 0, "--cases")
    finite_number(shrink_s, "--shrink-seconds", 0)
    writable_dir(out, "--out")  # before any work: findings written into a place that takes none would be lost
    writable(json_out, "--json")
    if backend:
        names = list(backend)
    else:
        with usage_errors():  # a built-in target that fails for another reason than a missing engine says so
            names = installed()
    try:
        targets = open_targets(names)
    except TargetError as error:
        raise fail(f"-b {shown(error.target)}: {error}") from None
    try:
        pairs = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))
                 if FAMILIES.get(names[a]) is not None and FAMILIES.get(names[a]) == FAMILIES.get(names[b])]
        logging.disable(logging.ERROR)  # engines log what they refuse before raising it; the run reports it
        with warnings.catch_warnings(), usage_errors():
            warnings.simplefilter("ignore")
            from filterproof.fuzz.run import fuzz

            outcome = fuzz(targets, seed, budget_s, cases, pairs, shrink_s)
            written = report.write(outcome, targets, out)
    finally:
        close(targets)
    console.print(Text(report.summary(outcome, targets, written)))  # no markup: signatures hold brackets
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(outcome, targets, written), indent=1) + "\n")
    if outcome.stopped is not None:
        from filterproof.servers.guardian import end_stopped

        end_stopped(outcome.stopped)
    raise typer.Exit(1 if outcome.findings else 0)


def close(targets: list[Any]) -> None:
    """Close every target; one that raises is named, and the others are still closed."""
    for target in targets:
        try:
            target.close()
        except Exception as error:
            notice(f"warning: closing the fuzz target {target.name} failed: {type(error).__name__}: {error}")


def target_failed(failed: Any, debug: bool) -> typer.Exit:
    """The one line for a target whose own code raised: the target, the method, the exception and where it was
    raised (the innermost frame); the whole traceback before it with ``--debug``."""
    error = failed.error
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    where = "" if frame is None else (f"{frame.tb_frame.f_code.co_filename}:{frame.tb_lineno} in "
                                      f"{frame.tb_frame.f_code.co_name}; ")
    if debug:
        traceback.print_exception(error, file=sys.stderr)
    return fail(f"{failed} (at {where}{'the traceback above' if debug else '--debug prints the traceback'})")


def register(app: typer.Typer) -> None:
    app.command("fuzz")(fuzz_command)
