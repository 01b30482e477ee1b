"""``filterproof clean -b SPEC``: drop what killed runs left in a store, and only that.

Everything filterproof creates in a store carries its marker (``adapters.ownership``).
A run drops its temporary objects (fresh random names) when it ends; a run that was
killed cannot, and leaves them on a server or in a directory. ``clean`` lists the
objects with the marker where the spec points (a DSN, a URL, a path) and drops the
temporary ones whose run is over: created on this host by a process that no longer
exists, or elsewhere and older than ``--older-than``. Objects kept on purpose (a name
the user gave, ``table=NAME``) are dropped only with ``--kept``. An object without the
marker is never listed, whatever its name. Exit 0, or 2 for a bad spec or a store that
cannot be reached.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from filterproof.cli.common import console, fail, usage_errors

if TYPE_CHECKING:
    from filterproof.adapters.ownership import Owned

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}


def duration(text: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd])", text.strip())
    if match is None:
        raise fail(f"--older-than {text!r}: expected a duration such as 30m, 6h or 2d")
    return float(match[1]) * UNITS[match[2]]


def clean_command(
    backend: Annotated[list[str], typer.Option(
        "--backend", "-b", help="Where to look, as for compare: pgvector (PGVECTOR_DSN or dsn=), chroma-server "
                                "(CHROMA_URL or url=), qdrant-server (QDRANT_URL or url=), milvus (MILVUS_URI or "
                                "uri=), or chroma, lancedb, qdrant-local, qdrant-edge with path=DIR. Repeat for "
                                "several.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would be dropped; drop nothing.")] = False,
    kept: Annotated[bool, typer.Option("--kept", help="Also drop the objects kept on purpose (named with table= "
                                                      "or collection=, or under a path).")] = False,
    older_than: Annotated[str, typer.Option(help="Objects created on another host: only those older than this "
                                                 "(their run may still go on).")] = "6h",
) -> None:
    """Drop the tables and collections that killed runs of filterproof left behind (never anything else)."""
    from filterproof.adapters import parse_specs, resolve
    from filterproof.errors import FilterproofError

    age = duration(older_than)
    with usage_errors():
        resolved = [resolve(spec) for spec in parse_specs(backend)]
    for spec in resolved:
        with usage_errors():
            owned = getattr(spec.factory(), "owned_objects", None)
        if owned is None:
            raise fail(f"{spec.label}: nothing to clean: it creates nothing that outlives its run")
        try:
            with owned(spec.options) as found:
                for item in found:
                    drop = item.leftover(age) or (kept and not item.marker.temporary)
                    if drop and not dry_run:
                        item.drop()
                    console.print(Text(f"{spec.label}: {verdict(drop, dry_run)} {item.what} ({why(item, age)})"),
                                  soft_wrap=True)
                if not found:
                    console.print(Text(f"{spec.label}: nothing of filterproof's there"), soft_wrap=True)
        except FilterproofError as error:  # no server given, a path that is no directory, a server not there
            raise fail(str(error)) from None
        except Exception as error:  # the store's own error (a refused connection, a bad key): one line
            raise fail(f"{spec.label}: cannot clean: {type(error).__name__}: {error}") from None


def verdict(drop: bool, dry_run: bool) -> str:
    if not drop:
        return "left"
    return "would drop" if dry_run else "dropped"


def why(item: Owned, older_than_s: float) -> str:
    marker = item.marker
    made = f"created {marker.created} by pid {marker.pid} on {marker.host}"
    if not marker.temporary:
        return f"kept on purpose, {made}; --kept drops it"
    if marker.here():
        return f"{made}, {'still running' if marker.run_alive() else 'its run is over'}"
    return f"{made}, another host: {'older' if marker.age_s() >= older_than_s else 'younger'} than --older-than"


def register(app: typer.Typer) -> None:
    app.command("clean")(clean_command)
