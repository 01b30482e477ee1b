"""``filterproof new-adapter NAME [DIR]``: a package for your own store, the conformance suite ready to run.

The files come from ``filterproof.scaffold``; this module checks the name against
the backends filterproof knows and prints what to do next.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from filterproof.cli.common import console, notice, usage_errors

FILES = (
    ("pyproject.toml", "the filterproof.adapters entry point"),
    ("src/filterproof_mystore/adapter.py", "MystoreAdapter: six methods to write"),
    ("tests/test_conformance.py", "the conformance suite, subclassed"),
    ("src/filterproof_mystore/fuzz_target.py", "MystoreFuzzTarget: the store's filter language, fuzzed"),
    ("README.md", "six steps, from writing to CI and fuzzing"),
)
HELP = "\n\n".join([
    "Write a package for your own store: an adapter skeleton, the conformance suite against it, a fuzz target "
    "skeleton for the store's own filter language, a README.",
    "NAME is the backend name: lowercase letters, digits and single hyphens (mystore, my-store). DIR defaults "
    "to ./NAME and must be empty, unless --force. For NAME mystore the package is filterproof-mystore:",
    "\n".join(f"  {path:<40}{what}" for path, what in FILES),
    # Brackets escaped: typer reads help as rich markup.
    "The entry point mystore = filterproof_mystore.adapter:MystoreAdapter names the factory, the adapter class, "
    "called as MystoreAdapter(options: MystoreOptions | Mapping\\[str, Any] | None = None). Through the entry "
    "point (filterproof compare --backend mystore:key=value, pytest --backend mystore) it receives the "
    "validated MystoreOptions model; from code (tests/test_conformance.py), a mapping.",
    "Next: cd DIR && pip install -e . && pytest -x. The first failure names the method to write.",
])


def new_adapter_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Backend name: lowercase letters, digits, hyphens.",
                                        show_default=False)],
    directory: Annotated[Path | None, typer.Argument(metavar="DIR", help="Where to write the package.",
                                                     show_default="./NAME")] = None,
    force: Annotated[bool, typer.Option("--force", help="Write into a non-empty DIR, overwriting the files the "
                                                        "scaffold writes (others are left alone).")] = False,
) -> None:
    """Write the package (``HELP`` is the command's help)."""
    from importlib.metadata import entry_points

    from filterproof.adapters.registry import BUILTIN, ENTRY_POINT_GROUP
    from filterproof.scaffold import Names, create

    target = directory if directory is not None else Path(name)
    with usage_errors():
        written = create(name, target, force=force, reserved=BUILTIN)
    names = Names.of(name)
    installed = next((ep.value for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name), None)
    if installed and installed != names.entry_point:
        notice(f"note: a backend named {name!r} is already installed ({installed}); after `pip install -e .` "
               f"two packages claim the name: uninstall the other one")
    console.print(Text.assemble("wrote ", (str(target), "bold"), f": {names.distribution}, backend {name!r}, "
                                f"factory {names.entry_point}"), highlight=False, soft_wrap=True)
    for relative in written:
        console.print(Text(f"  {relative}"), highlight=False)
    console.print(Text("next: write the six methods of "
                       f"src/{names.module}/adapter.py; the suite says which one is next:"), highlight=False)
    console.print(Text(f"  cd {shlex.quote(str(target))} && pip install -e . && pytest -x"), highlight=False,
                  soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("new-adapter", help=HELP)(new_adapter_command)
