"""Driver discovery: every `drivers/<name>/driver.toml` is a runtime (no registry to edit).

A driver with variants appears as one runtime per variant, named `<name>/<variant>`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DRIVERS_DIR = REPO / "drivers"


HOP_KINDS = ("mailbox", "channel", "rendezvous", "handoff", "floor")


def hop_group(hop: str) -> str:
    """Rows of one group are compared with each other: mailboxes and channels are both message passing."""
    return "message" if hop in ("mailbox", "channel") else hop


class DriverError(Exception):
    """A driver cannot be used as asked (unknown, not built, missing tool)."""


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
    hop: str = "mailbox"  # the kind of hop (contract section 1): mailbox, channel, rendezvous, handoff, floor
    mailbox: str = "stock"  # "stock" (the runtime's own channel or mailbox) or "hand-written"
    bench: bool = True  # in `ringbench bench`'s default set (false for tuning variants: named or `all` only)

    @property
    def is_floor(self) -> bool:
        return self.hop == "floor"

    @property
    def base(self) -> str:
        return self.folder.name

    def missing_tools(self) -> list[str]:
        return [t for t in self.requires if shutil.which(t) is None]

    def is_built(self) -> bool:
        return not self.artifact or (self.folder / self.artifact).exists()

    def build_hint(self) -> str:
        return f"build it with: ringbench build {self.base}   (or `make setup`)"

    def argv(self, cores: int, max_procs: int) -> list[str]:
        return [_fill(a, self, cores, max_procs) for a in self.command]

    def environ(self, cores: int, max_procs: int) -> dict[str, str]:
        env = dict(os.environ)
        env.update({k: _fill(v, self, cores, max_procs) for k, v in self.env.items()})
        return env


def _fill(text: str, d: Driver, cores: int, max_procs: int) -> str:
    return (
        text.replace("{dir}", str(d.folder))
        .replace("{cores}", str(cores))
        .replace("{max_procs}", str(max_procs))
        .replace("{python}", sys.executable)
    )


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
        bytes_per_process=int(manifest.get("bytes_per_process", 0)),
        maps_per_thread=int(manifest.get("maps_per_thread", 2)),
    )
    command = tuple(manifest["command"])
    env = {k: str(v) for k, v in manifest.get("env", {}).items()}
    variants = manifest.get("variants", {})
    kind = {"hop": manifest.get("hop", "mailbox"), "mailbox": manifest.get("mailbox", "stock")}
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
            hop=v.get("hop", kind["hop"]),
            mailbox=v.get("mailbox", kind["mailbox"]),
            bench=bool(v.get("bench", True)),
            **common,
        )
        for vname, v in variants.items()
    ]


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


def select(spec: str, drivers: dict[str, Driver] | None = None) -> list[Driver]:
    """Resolve `--runtime a,b` (or `all`: every built driver) to drivers.

    A folder name selects all its variants. Unknown names and unbuilt drivers named
    explicitly are errors; `all` skips unbuilt ones silently (`ringbench runtimes` lists them).
    """
    drivers = discover() if drivers is None else drivers
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise DriverError("no runtime given; see `ringbench runtimes`")
    chosen: list[Driver] = []
    for name in names:
        if name == "all":
            matches = [d for d in drivers.values() if d.is_built() and not d.missing_tools()]
            if not matches:
                raise DriverError("no driver is built yet; run `make setup` or `ringbench build`")
        else:
            matches = [d for d in drivers.values() if d.name == name or d.base == name]
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


def build(d: Driver) -> None:
    """Run the manifest's build command in the driver folder; raise DriverError on failure."""
    missing = d.missing_tools()
    if missing:
        raise DriverError(f"cannot build {d.base}: {', '.join(missing)} not on PATH")
    if not d.build:
        return
    proc = subprocess.run(d.build, shell=True, cwd=d.folder, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise DriverError(f"build of {d.base} failed (exit {proc.returncode}): `{d.build}`\n{tail}")
