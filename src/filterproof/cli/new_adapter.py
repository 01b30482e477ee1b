"""``filterproof new-adapter NAME[,NAME...] [DIR]``: a package for your own stores, the conformance suite ready.

The files come from ``filterproof.scaffold``; this module checks the names against the
backends filterproof knows and prints what to do next. Several backends are one argument,
comma-separated (a backend name holds no comma), so that ``NAME [DIR]`` reads as it always
did; ``--add`` adds backends to a package the command wrote.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from filterproof.cli.common import console, notice, usage_errors

if TYPE_CHECKING:
    from filterproof.scaffold import Names

FILES = (
    ("pyproject.toml", "the filterproof.adapters entry points"),
    ("src/filterproof_mystore/adapter.py", "MystoreAdapter: six methods to write"),
    ("tests/test_conformance.py", "the conformance suite, subclassed"),
    ("src/filterproof_mystore/fuzz_target.py", "MystoreFuzzTarget: the store's filter language, fuzzed"),
    ("README.md", "the backends, and six steps from writing to CI and fuzzing"),
)
HELP = "\n\n".join([
    "Write a package for your own stores: for each backend an adapter skeleton, the conformance suite against "
    "it and a fuzz target skeleton for the store's own filter language; a README.",
    "NAME is the backend name: lowercase letters, digits and single hyphens (mystore, my-store). DIR defaults "
    "to ./NAME and must be empty, unless --force. For NAME mystore the package is filterproof-mystore:",
    "\n".join(f"  {path:<40}{what}" for path, what in FILES),
    # Brackets escaped: typer reads help as rich markup.
    "The entry point mystore = filterproof_mystore.adapter:MystoreAdapter names the factory, the adapter class, "
    "called as MystoreAdapter(options: MystoreOptions | Mapping\\[str, Any] | None = None). Through the entry "
    "point (filterproof compare --backend mystore:key=value, pytest --backend mystore) it receives the "
    "validated MystoreOptions model; from code (tests/test_conformance.py), a mapping.",
    "Several backends in one package: give their names together, comma-separated, and the package's name: "
    "new-adapter acme-qdrant,acme-chroma --package acme writes filterproof-acme, each backend's files named "
    "after it (src/filterproof_acme/acme_qdrant_adapter.py, tests/test_acme_qdrant_conformance.py, ...) with "
    "its own entry point. --add adds backends to a package new-adapter wrote (DIR defaults to .): their own "
    "files, and their lines in the blocks of pyproject.toml and README.md marked for it; no file is overwritten.",
    "Next: cd DIR && pip install -e . && pytest -x. The first failure names the method to write.",
])


def new_adapter_command(
    name: Annotated[str, typer.Argument(metavar="NAME[,NAME...]", show_default=False,
                                        help="Backend names: lowercase letters, digits, hyphens; commas between.")],
    directory: Annotated[Path | None, typer.Argument(metavar="DIR", help="Where to write the package.",
                                                     show_default="./NAME, or . with --add")] = None,
    package: Annotated[str | None, typer.Option("--package", metavar="PACKAGE", show_default="NAME",
                                                help="The package's name (filterproof-PACKAGE): needed with "
                                                     "several backends.")] = None,
    add: Annotated[bool, typer.Option("--add", help="Add the backends to the package new-adapter wrote in DIR, "
                                                    "overwriting nothing.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Write into a non-empty DIR, overwriting the files the "
                                                        "scaffold writes (others are left alone).")] = False,
) -> None:
    """Write the package, or add to one (``HELP`` is the command's help)."""
    from filterproof.adapters.registry import BUILTIN

    with usage_errors():
        if add:
            refuse_with_add(force, package)
            add_backends(name, directory if directory is not None else Path("."), BUILTIN)
        else:
            create_package(name, directory, package, force, BUILTIN)


def refuse_with_add(force: bool, package: str | None) -> None:
    from filterproof.errors import UsageError

    if force:
        raise UsageError("--add never overwrites a file: --force is for writing a new package")
    if package is not None:
        raise UsageError("--add adds to the package in DIR, which has its name: --package is for a new package")


def create_package(name: str, directory: Path | None, package: str | None, force: bool,
                   reserved: Collection[str]) -> None:
    from filterproof.scaffold import Names, backend_list, create

    target = directory if directory is not None else Path(package or name)
    written = create(name, target, force=force, reserved=reserved, package=package)
    backends = [Names.of(backend, package) for backend in backend_list(name)]
    warn_installed(backends)
    first = backends[0]
    if len(backends) == 1:
        console.print(Text.assemble("wrote ", (str(target), "bold"), f": {first.distribution}, backend "
                                    f"{first.backend!r}, factory {first.entry_point}"), highlight=False,
                      soft_wrap=True)
    else:
        console.print(Text.assemble("wrote ", (str(target), "bold"), f": {first.distribution}, backends "
                                    f"{', '.join(repr(b.backend) for b in backends)}"), highlight=False)
        for each in backends:
            console.print(Text(f"  backend {each.backend!r}, factory {each.entry_point}"), highlight=False,
                          soft_wrap=True)
    for relative in written:
        console.print(Text(f"  {relative}"), highlight=False)
    console.print(Text("next: write the six methods of " + " and of ".join(b.adapter_path for b in backends)
                       + "; the suite says which one is next:"), highlight=False, soft_wrap=True)
    console.print(Text(f"  cd {shlex.quote(str(target))} && pip install -e . && pytest -x"), highlight=False,
                  soft_wrap=True)


def add_backends(name: str, directory: Path, reserved: Collection[str]) -> None:
    from filterproof.scaffold import add

    added = add(name, directory, reserved=reserved)
    warn_installed(added.backends)
    console.print(Text.assemble("added to ", (str(directory), "bold"), f" ({added.backends[0].distribution}):"),
                  highlight=False, soft_wrap=True)
    for each in added.backends:
        console.print(Text(f"  backend {each.backend!r}, factory {each.entry_point}"), highlight=False,
                      soft_wrap=True)
    for relative in added.written:
        console.print(Text(f"  {relative}"), highlight=False)
    for relative in added.extended:
        console.print(Text(f"  {relative} (within the block marked for filterproof new-adapter)"), highlight=False)
    for why in added.left:
        notice(f"note: {why}")
    tests = " ".join(shlex.quote(each.test_path) for each in added.backends)
    console.print(Text("next: pip install -e . again (an entry point is registered at install), then write the "
                       "six methods of " + " and of ".join(b.adapter_path for b in added.backends) + ":"),
                  highlight=False, soft_wrap=True)
    console.print(Text(f"  cd {shlex.quote(str(directory))} && pip install -e . && pytest -x {tests}"),
                  highlight=False, soft_wrap=True)


def warn_installed(backends: list[Names]) -> None:
    """A note for each name another installed package already claims through its entry point."""
    from importlib.metadata import entry_points

    from filterproof.adapters.registry import ENTRY_POINT_GROUP

    installed = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    for names in backends:
        other = installed.get(names.backend)
        if other and other != names.entry_point:
            notice(f"note: a backend named {names.backend!r} is already installed ({other}); after `pip install "
                   f"-e .` two packages claim the name: uninstall the other one")


def register(app: typer.Typer) -> None:
    app.command("new-adapter", help=HELP)(new_adapter_command)
