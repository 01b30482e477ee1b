"""The pytest plugin (entry point ``pytest11``): options for running the suite from the command line.

Loaded by every pytest run wherever filterproof is installed, so it imports nothing
but pytest at module level. A mistake in its options (an ``--adapter`` that cannot
be imported, a ``--backend-option`` without "=", an unknown ``--backend``) is a
usage error, reported once when the run starts (exit code 4), not once per test.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Generator, Mapping
from typing import Any

import pytest

from filterproof.conformance import requirements

EXAMPLES_ENV = "FILTERPROOF_CONFORMANCE_EXAMPLES"
DEFAULT_EXAMPLES = 60
SCALE_ENV = "FILTERPROOF_CONFORMANCE_SCALE"
DEFAULT_SCALE = 5_000
"""Documents in the scale tier by default: the reference runs the whole suite in a few seconds."""
ACCEPT_SHORT_ENV = "FILTERPROOF_CONFORMANCE_ACCEPT_SHORT"
BUDGET_ENV = "FILTERPROOF_CONFORMANCE_BUDGET"
DEFAULT_BUDGET_S = 600.0
"""Seconds the scale tier may take by its first writes' and query's projection (the reference takes about 2)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("filterproof", "filterproof conformance suite")
    group.addoption("--adapter", dest="filterproof_adapter", metavar="MODULE:FACTORY",
                    help="factory(options) returning a fresh adapter, for --pyargs filterproof.conformance")
    try:
        group.addoption("--backend", "--filterproof-backend", dest="filterproof_backend", metavar="SPEC",
                        help="a filterproof backend spec, NAME or NAME:key=value,... (built in, or from the "
                             "filterproof.adapters entry point)")
    except ValueError:  # another plugin owns --backend; keep ours reachable under its long name
        group.addoption("--filterproof-backend", dest="filterproof_backend", metavar="SPEC",
                        help="a filterproof backend spec, NAME or NAME:key=value,...")
    group.addoption("--backend-option", dest="filterproof_options", action="append", default=[],
                    metavar="KEY=VALUE", help="an option for the backend or adapter factory (repeatable)")
    group.addoption("--conformance-examples", dest="conformance_examples", type=int, default=None,
                    help=f"hypothesis examples for the generated congruence test (default {DEFAULT_EXAMPLES}, "
                         f"or ${EXAMPLES_ENV})")
    group.addoption("--conformance-scale", dest="conformance_scale", type=int, default=None, metavar="N",
                    help=f"documents in the scale tier (default {DEFAULT_SCALE}, or less where a built-in store's "
                         f"description says why, or ${SCALE_ENV}; 0 skips it)")
    group.addoption("--conformance-accept-short", dest="conformance_accept_short", action="store_true",
                    default=None, help="an approximate store may return fewer than min(K, eligible) (answers lost, "
                                       f"which no recall_tolerance covers; or ${ACCEPT_SHORT_ENV}=1)")
    group.addoption("--conformance-budget", dest="conformance_budget", type=float, default=None, metavar="SECONDS",
                    help=f"seconds the scale tier may take, projected from its first writes and query (default "
                         f"{DEFAULT_BUDGET_S:.0f}, or ${BUDGET_ENV}): past it the tier stops and says what is slow")
    group.addoption("--conformance-require", dest="conformance_require", default=None, metavar="NAME,...",
                    help="capabilities the adapter must have: a check that would skip for one fails instead "
                         f"({', '.join(requirements.CAPABILITIES)}; or ${requirements.REQUIRE_ENV})")


LONGEST_FIRST = ("test_generated_sequences_of_operations",)
"""The suite's longest test on the slowest engines, started first (LanceDB: 24.5 s of a run of 42 s, wall clock, on
``-n 2``). xdist hands tests out in collection order, in chunks: this one came late, when the other worker had
little left, and ran alone. First, it fills one worker while the other takes everything else. (All of the longest
first would be worse: xdist's first chunk, about an eighth of the suite, goes to one worker, and they with it.) It
now runs as two parts (``SEQUENCE_PARTS``), one first on each worker (``spread_parts``)."""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker only (``-n``): within each run of consecutive tests of one conformance class,
    ``LONGEST_FIRST`` first, in that order; the others keep theirs, and so does everything outside the suite's
    classes. In one process the suite's own order holds, whose first failure names the clause at fault (the
    exact eligibility checks first, the scale tier last): with workers, failures arrive as they finish."""
    if not hasattr(config, "workerinput"):
        return

    def rank(item: pytest.Item) -> int:
        name = getattr(item, "originalname", item.name)
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    start = 0
    while start < len(items):
        cls = getattr(items[start], "cls", None)
        end = start + 1
        while end < len(items) and getattr(items[end], "cls", None) is cls:
            end += 1
        if cls is not None:  # a class holding the suite's tests (the names are the suite's own)
            items[start:end] = sorted(items[start:end], key=rank)
        start = end
    spread_parts(items, int(config.workerinput.get("workercount", 1)))


def spread_parts(items: list[pytest.Item], workers: int) -> None:
    """The parts of the longest test, all first, would all run on one worker: xdist's load scheduling first hands
    each worker a chunk of consecutive items, ``(len(items) // workers) // 4`` long (``xdist/scheduler/load.py``),
    the first chunk to the first worker. So in a run of one class (a user's suite on one store), the k-th part moves
    to the start of the k-th worker's chunk. With more classes (this repository's matrix) the order stays."""
    longest = [item for item in items if getattr(item, "originalname", item.name) == LONGEST_FIRST[0]]
    if workers < 2 or len(longest) < 2 or len({getattr(item, "cls", None) for item in items}) > 1:
        return
    chunk = max((len(items) // workers) // 4, 2)
    for k, part in enumerate(longest[1:workers], start=1):
        items.remove(part)
        items.insert(min(k * chunk, len(items)), part)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "docker: needs a server from QDRANT_URL / CHROMA_URL or a Docker engine")
    config.stash[OUTER_REQUIRED] = requirements.required()
    validate(config)


OUTER_REQUIRED = pytest.StashKey[frozenset[str]]()
"""What the run around this one required (an in-process run, pytester's, sets its own and gives it back)."""


def pytest_unconfigure(config: pytest.Config) -> None:
    requirements.restore(config.stash.get(OUTER_REQUIRED, frozenset()))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any) -> Generator[None, None, None]:
    """The checks a missing capability left out, counted, after pytest's own short summary (the outermost
    wrapper: pytest's terminal reporter writes its short summary on the way out of its own)."""
    try:
        return (yield)
    finally:
        stats = terminalreporter.stats
        for line in requirements.summary_lines([*stats.get("skipped", []), *stats.get("failed", [])]):
            terminalreporter.write_line(line)


def _option(config: pytest.Config, name: str) -> Any:
    try:
        return config.getoption(name)
    except ValueError:  # the plugin's options are not registered (a run without this plugin's addoption)
        return None


def budget_seconds(config: pytest.Config) -> float:
    """``--conformance-budget``, else ``$FILTERPROOF_CONFORMANCE_BUDGET``, else ``DEFAULT_BUDGET_S``."""
    return float(_option(config, "conformance_budget") or os.environ.get(BUDGET_ENV) or DEFAULT_BUDGET_S)


def accept_short(config: pytest.Config) -> bool:
    """``--conformance-accept-short``, else ``$FILTERPROOF_CONFORMANCE_ACCEPT_SHORT`` set to 1 (short results of an
    approximate store accepted, still counted in the messages)."""
    return bool(_option(config, "conformance_accept_short")) or os.environ.get(ACCEPT_SHORT_ENV) == "1"


def example_count(config: pytest.Config) -> int:
    """``--conformance-examples``, else ``$FILTERPROOF_CONFORMANCE_EXAMPLES``, else the default."""
    return int(_option(config, "conformance_examples") or os.environ.get(EXAMPLES_ENV) or DEFAULT_EXAMPLES)


def scale_size(config: pytest.Config, store: str | None = None) -> int:
    """``--conformance-scale``, else ``$FILTERPROOF_CONFORMANCE_SCALE``, else the default of the built-in
    ``store`` (or of ``--backend``'s, its descriptor's ``scale``), else ``DEFAULT_SCALE`` (0: no scale tier)."""
    option = _option(config, "conformance_scale")
    if option is not None:
        return int(option)
    if os.environ.get(SCALE_ENV):
        return int(os.environ[SCALE_ENV])
    return store_scale(store or backend_spec(config), options(config)) or DEFAULT_SCALE


def backend_spec(config: pytest.Config) -> str | None:
    """``--backend`` as given (None: no ``--backend``, or ``--adapter``); its options come with ``--backend-option``
    (``options``)."""
    spec = _option(config, "filterproof_backend")
    return None if not spec or _option(config, "filterproof_adapter") else str(spec)


def store_scale(spec: str | None, given: Mapping[str, str] | None = None) -> int | None:
    """The scale budget a built-in store's descriptor sets for ``spec`` (``NAME[:key=value,...]``, with ``given``
    options besides); None: an unknown store, the default, or a spec or environment that points the store at a
    server (``scale_unless``)."""
    if not spec:
        return None
    from filterproof.adapters.descriptor import stores
    from filterproof.adapters.spec import BackendSpec

    parsed = BackendSpec.of(spec, given)
    chosen = dict(parsed.options)
    store = next((store for store in stores() if store.name == parsed.name), None)
    if store is None or store.scale is None:
        return None
    for condition in store.scale_unless:
        option, _, prefix = condition.partition("=")
        if str(chosen.get(option, "")).startswith(prefix) if prefix else os.environ.get(condition):
            return None
    return store.scale


def options(config: pytest.Config) -> dict[str, str]:
    pairs = _option(config, "filterproof_options") or []
    bad = [pair for pair in pairs if "=" not in pair or not pair.split("=", 1)[0]]
    if bad:
        raise pytest.UsageError(f"--backend-option takes KEY=VALUE, got {', '.join(map(repr, bad))}")
    return dict(pair.split("=", 1) for pair in pairs)


def adapter_factory(target: str) -> Callable[..., Any]:
    """The factory ``package.module:attribute`` names; a usage error when it cannot be found."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise pytest.UsageError(f"--adapter {target!r}: expected package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise pytest.UsageError(f"--adapter {target!r}: cannot import {module_name!r}: {error}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise pytest.UsageError(f"--adapter {target!r}: {module_name} has no callable {attribute!r}")
    return factory


def validate(config: pytest.Config) -> None:
    """Check the plugin's options once, before any test runs; raise ``pytest.UsageError`` on a mistake."""
    options(config)
    target, backend = _option(config, "filterproof_adapter"), _option(config, "filterproof_backend")
    if target:
        adapter_factory(target)
    elif backend:
        resolved_backend(config)
    for name in ("conformance_examples", "conformance_scale"):
        value = _option(config, name)
        if value is not None and value < 0:
            raise pytest.UsageError(f"--{name.replace('_', '-')} takes a number >= 0, got {value}")
    requirements.configure(_option(config, "conformance_require"))


def resolved_backend(config: pytest.Config) -> Any:
    """``--backend`` (a spec) with the ``--backend-option`` pairs, checked: a bad name, key or value is a
    usage error, reported once, with the message ``filterproof compare`` gives for the same spec."""
    from filterproof.adapters import BackendSpec, resolve
    from filterproof.errors import UsageError

    try:
        return resolve(BackendSpec.parse(_option(config, "filterproof_backend")).with_options(options(config)))
    except UsageError as error:
        raise pytest.UsageError(f"--backend: {error}") from None


def configured_factory(config: pytest.Config) -> Callable[[], Any]:
    """The adapter factory named by --adapter or --backend; skips when neither was given."""
    target, backend = _option(config, "filterproof_adapter"), _option(config, "filterproof_backend")
    if target:
        factory = adapter_factory(target)
        return lambda: factory(options(config))
    if backend:
        return refusing_to_touch(resolved_backend(config).open)
    pytest.skip("no adapter selected: pass --backend NAME or --adapter package.module:factory")


def refusing_to_touch(factory: Callable[[], Any]) -> Callable[[], Any]:
    """``factory``, ending the whole run (exit 2, one line) when the store it names holds an object of the same
    name that filterproof did not create (``adapters.ownership``): no test may write into a user's table."""
    from filterproof.adapters.ownership import NotOurs

    def opened() -> Any:
        try:
            return factory()
        except NotOurs as error:
            pytest.exit(f"error: {error}", returncode=2)
    return opened


class Budgets:
    """What a suite class spends on its generated checks; by default the command line's budgets.

    A subclass may lower one for a store whose filtered search is a Python loop over every document, or
    for a quick tier of its own test run (and say why): ``examples`` feeds the generated property and the
    generated sequences, ``scale_documents`` the scale tier.
    """

    def examples(self, config: pytest.Config) -> int:
        """Generated examples and sequences: ``--conformance-examples``."""
        return example_count(config)

    def scale_documents(self, config: pytest.Config) -> int:
        """Documents in the scale tier: ``--conformance-scale`` (0 skips it), else the store's default (a test
        class of a built-in store names it in ``STORE``)."""
        return scale_size(config, getattr(self, "STORE", None))
