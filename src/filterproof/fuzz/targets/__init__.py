"""The built-in fuzz targets by name (each imported on first use, so an engine not installed costs nothing)."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from filterproof.adapters.descriptor import fuzz_targets
from filterproof.errors import UsageError
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Target

DEFECT = "reference:defect="
"""``reference:defect=NAME``: the reference with one seeded defect (``reference.DEFECTS``)."""


class TargetError(UsageError):
    """A fuzz target that cannot be opened; the message says why (the command adds the name it was given)."""

    target: str = ""
    """The name it was given (``open_targets`` sets it)."""


class TargetUnavailable(TargetError, ImportError):
    """A target whose engine is not installed here, or whose server does not answer: ``installed`` leaves it out.
    An ``ImportError`` too, as the targets raise it: ``except ImportError`` around ``open_target`` still holds."""

TARGETS = {t.name: t.target for t in fuzz_targets()}
"""The built-in targets by name (``module:Class``), from the stores' descriptors (``adapters.descriptor``)."""
FAMILIES = {t.name: t.family for t in fuzz_targets() if t.family is not None}
"""Targets of one filter language, which the fuzzer pairs for the differential oracle."""


def installed() -> list[str]:
    """The built-in targets whose engine imports here (and whose server, for a server target, answers)."""
    found = []
    for name, where in TARGETS.items():
        try:
            importlib.import_module(where.partition(":")[0])
            open_target(name).namespace()
        except (ImportError, TargetUnavailable):
            continue
        except TargetError as error:  # installed, but broken otherwise: not to be left out in silence
            raise TargetError(f"the built-in fuzz target {name}: {error}") from error
        found.append(name)
    return found


def builtin(name: str) -> bool:
    """Whether ``name`` is one of filterproof's own targets (``TARGETS``, or the reference with a seeded defect):
    opening it imports filterproof's code and the engine's, never a module the name chooses."""
    return name in TARGETS or name.startswith(DEFECT)


def open_target(name: str) -> Target:
    """A target by name, or ``module:Class`` (your own ``Target`` subclass, importable; the current directory is
    searched last); ``reference:defect=NAME`` is the reference with one seeded defect (``reference.DEFECTS``).
    ``TargetError`` (``TargetUnavailable`` when its engine is not installed or its server not there) says why
    it cannot be opened, whatever the module or the constructor raised."""
    cls = target_class(name)
    try:
        return cls()
    except ImportError as error:  # a server target without its server says so this way (``installed``)
        raise TargetUnavailable(" ".join(str(error).split())) from error
    except (Exception, SystemExit) as error:  # a store that cannot be reached, a constructor's own bug
        raise TargetError(f"opening it failed: {type(error).__name__}: {' '.join(str(error).split())}") from error


def open_targets(names: Sequence[str]) -> list[Target]:
    """``open_target`` of each name, in order. The first that cannot be opened closes the ones opened before it
    and raises its ``TargetError``, whose ``target`` is the name as given (for the command's message)."""
    opened: list[Target] = []
    for name in names:
        try:
            opened.append(open_target(name))
        except TargetError as error:
            for target in opened:
                with contextlib.suppress(Exception):  # closing what was opened must not hide why this failed
                    target.close()
            error.target = name
            raise
    return opened


def target_class(name: str) -> type[Target]:
    """The class ``name`` names, checked to be a ``Target`` before anything calls it."""
    if name.startswith(DEFECT):
        from filterproof.fuzz.targets.reference import DEFECTS

        defect = name.removeprefix(DEFECT)
        if defect not in DEFECTS:
            raise TargetError(f"unknown defect {defect!r}; the seeded ones: {', '.join(DEFECTS)}")
        return DEFECTS[defect]
    if name not in TARGETS and ":" not in name:
        raise TargetError(f"unknown fuzz target {name!r}; the built-in ones: {', '.join(TARGETS)}, or module:Class")
    module_name, _, attribute = TARGETS.get(name, name).partition(":")  # module:Class: a target of your own
    if not all(part.isidentifier() for part in [*module_name.split("."), *attribute.split(".")]):
        raise TargetError("expected a built-in target's name or module:Class (a Python module and a Target "
                          "subclass in it, e.g. my_targets:MyStore)")
    found: Any = _module(module_name)
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise TargetError(f"module {module_name} has no attribute {part!r}")
        found = getattr(found, part)
    if not (isinstance(found, type) and issubclass(found, Target)):
        what = "class" if isinstance(found, type) else type(found).__name__  # never called: it could be anything
        raise TargetError(f"{module_name}.{attribute} is a {what}, not a fuzz target (a subclass of "
                          "filterproof.fuzz.target.Target)")
    return declared(found)


def _module(module_name: str) -> Any:
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())  # `filterproof` is a script: let a module beside the user be found, last
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and (module_name + ".").startswith(error.name + "."):
            raise TargetError(f"no module named {error.name!r} (neither installed nor in the current directory)"
                              ) from None
        raise TargetUnavailable(f"importing {module_name} failed: {error}") from error
    except ImportError as error:
        raise TargetUnavailable(f"importing {module_name} failed: {error}") from error
    except (Exception, SystemExit) as error:  # any bug of the module's, at import time
        raise TargetError(f"importing {module_name} failed: {type(error).__name__}: "
                          f"{' '.join(str(error).split())}") from error


def declared(cls: type[Target]) -> type[Target]:
    """``cls``, once the class attributes the fuzzer reads are of the types it reads them as."""
    where = f"{cls.__module__}.{cls.__qualname__}"
    name, packages = getattr(cls, "name", None), getattr(cls, "packages", None)
    if not isinstance(name, str) or not name:
        raise TargetError(f"{where} declares no name (a class attribute: name = \"my-store\")")
    if not isinstance(packages, tuple) or not all(isinstance(p, str) for p in packages):
        raise TargetError(f"{where}.packages: expected a tuple of distribution names, got {packages!r}")
    errors = cls.engine_errors
    if not isinstance(errors, tuple) or not all(isinstance(e, type) and issubclass(e, BaseException)
                                                for e in errors):
        raise TargetError(f"{where}.engine_errors: expected a tuple of exception classes (the engine's own: "
                          f"(MyClientError,)), got {errors!r}")
    if not isinstance(cls.allows, Allows):
        raise TargetError(f"{where}.allows: expected a filterproof.fuzz.generate.Allows, got {cls.allows!r}")
    if not isinstance(cls.spellings, int) or cls.spellings < 1:
        raise TargetError(f"{where}.spellings: expected a positive integer, got {cls.spellings!r}")
    if not isinstance(cls.vias, tuple) or not cls.vias or not all(isinstance(v, str) for v in cls.vias):
        raise TargetError(f"{where}.vias: expected a tuple of read paths (\"search\", ...), got {cls.vias!r}")
    return cls
