"""Driver discovery: every `drivers/<name>/driver.toml` is a runtime (no registry to edit).

A driver with variants appears as one runtime per variant, named `<name>/<variant>`.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import installations

REPO = Path(__file__).resolve().parents[2]
DRIVERS_DIR = REPO / "drivers"


HOP_KINDS = ("mailbox", "channel", "rendezvous", "handoff", "floor")

# Names runs and comparisons recorded under contracts 1 and 2 give variants that contract 3 renamed
# (one convention: stock, handoff, tuned), for tools that set old figures beside new ones.
FORMER_NAMES = {
    "go": "go/stock", "go/channel": "go/stock", "c-pthreads": "c-pthreads/stock",
    "c-pthreads/mailbox": "c-pthreads/stock", "c-pthreads/sem": "c-pthreads/handoff",
    "erlang": "erlang/stock", "java-threads": "java-threads/stock", "java-virtual": "java-virtual/stock",
    "python-asyncio": "python-asyncio/stock", "python-greenlet/mailbox": "python-greenlet/stock",
    "python-threads": "python-threads/stock", "python-threads/simplequeue": "python-threads/stock",
    "rust-threads": "rust-threads/stock", "rust-threads/channel": "rust-threads/stock",
}  # fmt: skip


def hop_group(hop: str) -> str:
    """Rows of one group are compared with each other: mailboxes and channels are both message passing."""
    return "message" if hop in ("mailbox", "channel") else hop


class DriverError(Exception):
    """A driver cannot be used as asked (unknown, not built, missing tool)."""


def max_procs(processes: int) -> int:
    """A process-table size with room for `processes` plus the runtime's own helpers (BEAM's +P)."""
    return min(2 * processes + 1024, 134_217_727)  # BEAM's own maximum


def _legacy_max_procs(processes: int) -> int:
    """The contract-2 placeholder {max_procs}: never below 262,144 (kept until every manifest uses [limits])."""
    return max(262_144, max_procs(processes))


def _ram() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 0


@dataclass(frozen=True)
class Limit:
    """A limit the runtime has as it comes (contract section 7), raised only for a cell that needs more.

    `need` is "processes" (the cell's process count) or "bytes" (processes × bytes_per_process);
    `default` the runtime's own limit: a number, or "ram/K" (physical memory / K, as the JVM's heap).
    """

    name: str
    need: str
    default: int | str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)

    def _default(self) -> int:
        if isinstance(self.default, str):
            return _ram() // int(self.default.removeprefix("ram/"))
        return self.default

    def value(self, processes: int, bytes_per_process: int) -> int | None:
        """The raised limit for this cell ({value}), or None when the runtime's own default is enough."""
        if self.need == "processes":
            # the runtime's own processes share the table (BEAM starts ~40): the same headroom max_procs adds
            return max_procs(processes) if processes + 1024 > self._default() else None
        need = processes * bytes_per_process
        return math.ceil(2 * need / 2**20) if need > self._default() else None


@dataclass(frozen=True)
class Remoting:
    """A driver's ring across nodes, its manifest's `[nodes]` table (contract section 10): what carries a message
    to a process on another node, in words ("Erlang distribution", "Pekko Artery"; "" when the manifest does not
    say), whether it takes nodes the user started on other hosts (`--hosts`), and whether those are kept private
    by a shared cookie (Erlang distribution) rather than by the runtime's own means read from a file the user
    names (Pekko's and CAF's TLS): without one, the orchestrator reads no cookie and writes none."""

    transport: str = ""
    hosts: bool = True
    cookie: bool = True


@dataclass(frozen=True)
class Driver:
    name: str  # runtime id as the user types it, e.g. "go" or "rust-tokio/multi-thread"
    folder: Path
    description: str
    language: str
    build: str
    artifact: str
    command: tuple[str, ...]
    requires: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    variant: str = ""
    os_threads_per_process: int = 0
    bytes_per_process: int = 0
    maps_per_thread: int = 2  # memory mappings per OS thread (stack + guard; Rust adds a signal stack + guard)
    maps_per_process: int = 0  # memory mappings per process whatever its threads (Crystal's fiber stack + guard)
    hop: str = "mailbox"  # the kind of hop (contract section 1): mailbox, channel, rendezvous, handoff, floor
    mailbox: str = "stock"  # "stock" (the runtime's own channel or mailbox) or "hand-written"
    tuned: bool = False  # a tuning variant: never ranked beside stock rows; measured when named or with --tuned
    # "hand-written": a variant ranked apart from the runtimes' own mailboxes (a mailbox of the driver's own
    # where the runtime's library has one); "" for every other
    ranked: str = ""
    single_threaded: bool = False  # one OS thread runs every process whatever --cores says
    collector: str = ""  # the collector the manifest names ("" when the runtime has none)
    jit: bool = False  # compiles hot code as it runs: its warm-ups pass a floor of work first (results.modes)
    jit_warmup_hops: int | None = None  # the manifest's own floor in hops and spawned processes (None: the default)
    check: str = ""  # the language's own checks, run in the folder by `make test`
    limits: tuple[Limit, ...] = ()
    # Environment variables (fnmatch patterns) that tune the runtime when set (recorded, warned about, removed
    # by --clean-env), and those that change its build (removed from the build's environment): the manifest's
    # `tuning_env` and `build_env`, contract section 1.
    tuning_env: tuple[str, ...] = ()
    build_env: tuple[str, ...] = ()
    # The manifest's [installation] table (how the driver takes another installation of its runtime), and,
    # for the driver of one such installation (`at`), its name, its home ({home}) and its build folder ({build}).
    install: dict = field(default_factory=dict)
    installation: str = ""
    home: str = ""
    remoting: Remoting | None = None  # the manifest's [nodes]: None for a runtime whose ring is on one node
    # `ringbench perf` (contract section 11): the runner's name ("erlang", "python"; "" for a driver without
    # one) and what one of its workers is, in words, for the table ("BEAM processes")
    perf: str = ""
    perf_workers: str = ""
    build_dir: str = ""
    at_text: str = ""  # what follows `@` to select it again: the declared name, else the home itself

    @property
    def is_floor(self) -> bool:
        return self.hop == "floor"

    @property
    def base(self) -> str:
        return self.folder.name

    def missing_tools(self) -> list[str]:
        return [t for t in self.requires if shutil.which(t) is None]

    @property
    def output(self) -> Path:
        """Where the build puts what it makes ({build}): the driver folder, or an installation's build folder."""
        return Path(self.build_dir) if self.build_dir else self.folder

    def is_built(self) -> bool:
        return not self.artifact or (self.output / self.artifact).exists()

    def build_hint(self) -> str:
        if self.installation:
            return f"build it with: ringbench build {self.base}@{self.at_text or self.installation}"
        return f"build it with: ringbench build {self.base}   (or `make setup`)"

    def install_version(self) -> str:
        """The installation's version, read from it by the manifest's `[installation] version` command."""
        cmd = _fill(str(self.install.get("version", "")), self, 1, 0)
        env = {**os.environ, **{k: _fill(v, self, 1, 0) for k, v in self.env.items()}}
        try:
            proc = subprocess.run(
                cmd, shell=True, cwd=self.folder, capture_output=True, text=True, env=env, timeout=300
            )
        except subprocess.TimeoutExpired:
            proc = subprocess.CompletedProcess(cmd, 1, "", "timed out after 300 s")
        out = proc.stdout.strip().splitlines()
        if proc.returncode != 0 or not out or not installations.version_key(out[-1]):
            tail = (proc.stderr.strip().splitlines() or ["no version printed"])[-1]
            raise DriverError(
                f"{self.base}@{self.installation}: cannot read the version of {self.home!r}: {tail}"[:300]
            )
        return out[-1].strip()

    def at(self, inst: installations.Installation) -> Driver:
        """This driver on another installation of its runtime (the manifest's [installation] table), built
        into results/builds/<installation>/<driver>/. DriverError when the manifest has no such table or the
        installation is older than its `min_version`: one line, before anything is built or run."""
        spec = self.install
        if not spec:
            raise DriverError(f"{self.base} runs only on its own installation (no [installation] in its manifest)")
        d = replace(
            self,
            name=f"{self.name}@{inst.name}",
            installation=inst.name,
            home=inst.home,
            at_text=inst.name if inst.runtime else inst.home,
            build_dir=str(BUILDS_DIR / inst.name / self.base),
            env={**self.env, **{k: str(v) for k, v in spec.get("env", {}).items()}},
        )
        minimum = str(spec.get("min_version", ""))
        if minimum:
            version = d.install_version()
            if installations.older(version, minimum):
                why = f", the first with {spec['min_reason']}" if spec.get("min_reason") else ""
                raise DriverError(f"{d.name}: {version} is older than {minimum}{why}")
        return d

    def raised_limits(self, processes: int) -> dict[str, int]:
        """The limits this many processes need raised beyond the runtime's defaults: {name: value}."""
        out = {}
        for lim in self.limits:
            v = lim.value(processes, self.bytes_per_process)
            if v is not None:
                out[lim.name] = v
        return out

    def argv(self, cores: int, processes: int, cluster: str = "") -> list[str]:
        raised = self.raised_limits(processes)
        out: list[str] = []
        for a in self.command:
            if a == "{limits}":
                for lim in self.limits:
                    if lim.name in raised:
                        out += [_fill(x, self, cores, processes, raised[lim.name]) for x in lim.args]
            else:
                out.append(_fill(a, self, cores, processes, cluster=cluster))
        return out

    def environ(self, cores: int, processes: int, cluster: str = "") -> dict[str, str]:
        """The variables the manifest sets for this cell (its [env], and the env of each raised limit);
        `cluster` is the path of the cell's cluster file ({cluster}; "" without one, contract section 10)."""
        env = {k: _fill(v, self, cores, processes, cluster=cluster) for k, v in self.env.items()}
        raised = self.raised_limits(processes)
        for lim in self.limits:
            if lim.name in raised:
                env.update({k: _fill(v, self, cores, processes, raised[lim.name]) for k, v in lim.env.items()})
        return env


def _fill(text: str, d: Driver, cores: int, processes: int, value: int | None = None, cluster: str = "") -> str:
    text = (
        text.replace("{dir}", str(d.folder))
        .replace("{cores}", str(cores))
        .replace("{max_procs}", str(_legacy_max_procs(processes)))
        .replace("{python}", sys.executable)
        .replace("{cluster}", cluster)
        .replace("{home}", d.home)
        .replace("{build}", str(d.output))
    )
    return text.replace("{value}", str(value)) if value is not None else text


def _search_path() -> list[Path]:
    """drivers/ (or $RINGBENCH_DRIVERS_DIR instead), then the folders in $RINGBENCH_DRIVER_PATH."""
    extra = [Path(p) for p in os.environ.get("RINGBENCH_DRIVER_PATH", "").split(os.pathsep) if p]
    return [Path(os.environ.get("RINGBENCH_DRIVERS_DIR") or DRIVERS_DIR), *extra]


def _load(folder: Path) -> list[Driver]:
    manifest = tomllib.loads((folder / "driver.toml").read_text())
    if manifest.get("name", folder.name) != folder.name:
        raise DriverError(f"{folder}/driver.toml: name {manifest.get('name')!r} must equal the folder name")
    common = dict(
        folder=folder.resolve(),
        description=manifest.get("description", ""),
        language=manifest.get("language", ""),
        build=manifest.get("build", ""),
        artifact=manifest.get("artifact", ""),
        requires=tuple(manifest.get("requires", ())),
        os_threads_per_process=int(manifest.get("os_threads_per_process", 0)),
        maps_per_thread=int(manifest.get("maps_per_thread", 2)),
        maps_per_process=int(manifest.get("maps_per_process", 0)),
        check=manifest.get("check", ""),
        jit=bool(manifest.get("jit", False)),
        jit_warmup_hops=_optional_count(folder, manifest, "jit_warmup_hops"),
        limits=tuple(_limit(folder, k, v) for k, v in manifest.get("limits", {}).items()),
        tuning_env=_patterns(folder, manifest, "tuning_env"),
        build_env=_patterns(folder, manifest, "build_env"),
        install=_installation(folder, manifest),
        remoting=_remoting(folder, manifest),
        perf=str(manifest.get("perf", "")),
        perf_workers=str(manifest.get("perf_workers", "")),
    )
    command = tuple(manifest["command"])
    env = {k: str(v) for k, v in manifest.get("env", {}).items()}
    variants = manifest.get("variants", {})
    kind = {
        "hop": manifest.get("hop", "mailbox"),
        "mailbox": manifest.get("mailbox", "stock"),
        "single_threaded": bool(manifest.get("single_threaded", False)),
        "collector": manifest.get("collector", ""),
        "bytes_per_process": int(manifest.get("bytes_per_process", 0)),
    }
    for where, k in [("", kind), *((f" [variants.{n}]", v) for n, v in variants.items())]:
        if k.get("hop", "mailbox") not in HOP_KINDS or k.get("mailbox", "stock") not in ("stock", "hand-written"):
            raise DriverError(
                f"{folder}/driver.toml{where}: hop must be one of {', '.join(HOP_KINDS)} and "
                f"mailbox stock or hand-written"
            )
    if not variants:
        return [Driver(name=folder.name, command=command, env=env, **kind, **common)]
    return [
        Driver(
            name=f"{folder.name}/{vname}",
            variant=vname,
            command=command + tuple(v.get("args", ())),
            env={**env, **{k: str(x) for k, x in v.get("env", {}).items()}},
            **{k: v.get(k, default) for k, default in kind.items()},
            tuned=bool(v.get("tuned", False)),
            ranked=_ranked(folder, vname, v),
            **common,
        )
        for vname, v in variants.items()
    ]


def _optional_count(folder: Path, manifest: dict, key: str) -> int | None:
    value = manifest.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise DriverError(f"{folder}/driver.toml: {key} must be a whole number >= 0")
    return value


def _patterns(folder: Path, manifest: dict, key: str) -> tuple[str, ...]:
    value = manifest.get(key, [])
    if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
        raise DriverError(f"{folder}/driver.toml: {key} must be a list of variable names or patterns")
    return tuple(value)


def _installation(folder: Path, manifest: dict) -> dict:
    spec = manifest.get("installation", {})
    env = spec.get("env", {}) if isinstance(spec, dict) else None
    if not isinstance(env, dict) or (spec and not isinstance(spec.get("version"), str)):
        raise DriverError(f'{folder}/driver.toml [installation]: needs version = "<command>" and env = {{...}}')
    return spec


def _remoting(folder: Path, manifest: dict) -> Remoting | None:
    """The `[nodes]` table. A manifest without one that passes `{cluster}` to its driver (how Erlang and Elixir
    declared a ring across nodes first) declares one too, taking hosts."""
    table = manifest.get("nodes")
    if table is None:
        env = manifest.get("env", {})
        return Remoting() if isinstance(env, dict) and "{cluster}" in env.values() else None
    ok = isinstance(table, dict) and not set(table) - {"transport", "hosts", "cookie"}
    transport, hosts, cookie = (
        (table.get("transport", ""), table.get("hosts", True), table.get("cookie", True)) if ok else (None, None, None)
    )
    if not isinstance(transport, str) or not isinstance(hosts, bool) or not isinstance(cookie, bool):
        raise DriverError(f"{folder}/driver.toml: [nodes] takes transport (words), hosts and cookie (true or false)")
    return Remoting(transport, hosts, cookie)


def _ranked(folder: Path, vname: str, v: dict) -> str:
    value = v.get("ranked", "")
    if value not in ("", "hand-written"):
        raise DriverError(f'{folder}/driver.toml [variants.{vname}]: ranked must be "hand-written" or absent')
    return value


def _limit(folder: Path, name: str, v: dict) -> Limit:
    need, default = v.get("need", "processes"), v.get("default")
    if need not in ("processes", "bytes") or not (
        isinstance(default, int) or (isinstance(default, str) and default.removeprefix("ram/").isdigit())
    ):
        raise DriverError(
            f"{folder}/driver.toml [limits.{name}]: need must be processes or bytes, and default a number or 'ram/K'"
        )
    return Limit(name, need, default, tuple(v.get("args", ())), {k: str(x) for k, x in v.get("env", {}).items()})


def discover() -> dict[str, Driver]:
    """All drivers, keyed by runtime id, in name order."""
    found: dict[str, Driver] = {}
    for root in _search_path():
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if (p / "driver.toml").is_file()):
            for d in _load(folder):
                found.setdefault(d.name, d)
    return dict(sorted(found.items()))


def select(spec: str, drivers: dict[str, Driver] | None = None, tuned: bool = False) -> list[Driver]:
    """Resolve `--runtime a,b` (or `all`: every built driver) to drivers.

    A folder name selects all its stock variants; a tuned variant is selected when named, or with
    `tuned=True` (--tuned). Unknown names and unbuilt drivers named explicitly are errors; `all`
    skips unbuilt ones silently (`ringbench runtimes` lists them).
    """
    drivers = discover() if drivers is None else drivers
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise DriverError("no runtime given; see `ringbench runtimes`")
    chosen: list[Driver] = []
    for name in names:
        name, _, at = name.partition("@")
        if at:
            chosen += [d for d in _at_installation(name, at, drivers, tuned) if d not in chosen]
            continue
        if name == "all":
            matches = [d for d in drivers.values() if d.is_built() and not d.missing_tools() and (tuned or not d.tuned)]
            if not matches:
                raise DriverError("no driver is built yet; run `make setup` or `ringbench build`")
        else:
            matches = [d for d in drivers.values() if d.name == name or (d.base == name and (tuned or not d.tuned))]
            if not matches:
                raise DriverError(f"unknown runtime {name!r}; known: {', '.join(drivers) or '(none)'}")
            for d in matches:
                missing = d.missing_tools()
                if missing:
                    raise DriverError(
                        f"runtime {d.name!r} needs {', '.join(missing)} on PATH; `make setup` installs it"
                    )
                if not d.is_built():
                    raise DriverError(f"runtime {d.name!r} is not built; {d.build_hint()}")
        chosen += [d for d in matches if d not in chosen]
    return chosen


def at_installation(name: str, drivers: dict[str, Driver] | None = None, tuned: bool = False) -> list[Driver]:
    """`runtime@installation` (a folder or a variant, then a declared name or a home) as drivers, built or
    not; DriverError on what cannot be (unknown, no [installation], too old a version)."""
    drivers = discover() if drivers is None else drivers
    runtime, _, at = name.partition("@")
    try:
        inst = installations.resolve(at)
    except installations.InstallationError as e:
        raise DriverError(str(e)) from None
    matches = [d for d in drivers.values() if d.name == runtime or (d.base == runtime and (tuned or not d.tuned))]
    if not matches:
        raise DriverError(f"unknown runtime {runtime!r}; known: {', '.join(drivers) or '(none)'}")
    return [d.at(inst) for d in matches]


def _at_installation(runtime: str, at: str, drivers: dict[str, Driver], tuned: bool) -> list[Driver]:
    found = at_installation(f"{runtime}@{at}", drivers, tuned)
    for d in found:
        missing = d.missing_tools()
        if missing:
            raise DriverError(f"runtime {d.name!r} needs {', '.join(missing)} on PATH; `make setup` installs it")
        if not d.is_built():
            raise DriverError(f"runtime {d.name!r} is not built; {d.build_hint()}")
    return found


# Where each driver's build record is kept: the environment its last build ran with (results/ is the
# checkout's own output, not tracked).
BUILDS_DIR = REPO / "results" / "builds"


def _matching(environ: dict[str, str], patterns: tuple[str, ...]) -> dict[str, str]:
    return {k: v for k, v in sorted(environ.items()) if any(fnmatch.fnmatchcase(k, p) for p in patterns)}


def build_record(d: Driver) -> dict:
    """What the driver's last build ran with: {"removed": {...}, "kept": {...}} — the variables of the
    manifest's build_env that were set, taken out of the build's environment or (`--keep-env`) kept.
    {} when the driver was built before builds were recorded."""
    try:
        return json.loads(_record_path(d).read_text())
    except (OSError, ValueError):
        return {}


def _record_path(d: Driver) -> Path:
    return BUILDS_DIR / d.installation / f"{d.base}.json" if d.installation else BUILDS_DIR / f"{d.base}.json"


def build(d: Driver, keep_env: bool = False) -> dict:
    """Run the manifest's build command in the driver folder, without the variables of its `build_env`
    (a stock build is the ecosystem's standard release build) unless `keep_env`; record and return what
    was removed or kept. Raise DriverError on failure."""
    what = f"{d.base}@{d.installation}" if d.installation else d.base
    missing = d.missing_tools()
    if missing:
        raise DriverError(f"cannot build {what}: {', '.join(missing)} not on PATH")
    if not d.build:
        return {}
    env = dict(os.environ)
    matching = _matching(env, d.build_env)
    # an empty value changes nothing (make sets MAKEFLAGS= for the commands it runs): removed, not reported
    found = {k: v for k, v in matching.items() if v}
    if not keep_env:
        for k in matching:
            del env[k]
    command = _fill(d.build, d, 1, 0)  # {build}: the driver folder, or an installation's build folder
    if d.installation:  # another installation: its variables set
        env.update({k: _fill(str(v), d, 1, 0) for k, v in d.install.get("env", {}).items()})
        d.output.mkdir(parents=True, exist_ok=True)
    record = {"command": command, "removed": {} if keep_env else found, "kept": found if keep_env else {}}
    if d.installation:
        record |= {"installation": d.installation, "home": d.home}
    proc = subprocess.run(command, shell=True, cwd=d.folder, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise DriverError(f"build of {what} failed (exit {proc.returncode}): `{command}`\n{tail}")
    _record_path(d).parent.mkdir(parents=True, exist_ok=True)
    _record_path(d).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record
