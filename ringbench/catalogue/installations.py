"""Other installations of a runtime: named once, kept in results/installations.toml, selected as `-r go@go1.27.3`.

A driver's manifest says how it takes an installation (its `[installation]` table, contract section 1):
the variables that point its build and its run at the installation's home (`{home}`), the command that
reads the installation's version, and the oldest version the driver can run on. This module keeps the
named installations and compares versions; `drivers.Driver.at` makes the driver of one installation.

    [jdk17]                                   # results/installations.toml
    runtime = "java-threads"
    home = "/usr/lib/jvm/java-17-openjdk-amd64"

`@X` with X not a name in the file takes X itself as the home (a path, or what the manifest's variables
accept, as Go's toolchain name go1.27.3), named by its last path component.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,62}")


class InstallationError(Exception):
    """An installation that cannot be named, found or used (one line, bad input)."""


@dataclass(frozen=True)
class Installation:
    name: str  # as in the row label: java-threads/stock@jdk17
    home: str  # the value of {home}: a folder, or a name the runtime's own tools resolve (go1.27.3)
    # the driver folder it was declared (and its version read) for, "" for an unnamed @home; another driver
    # whose manifest takes the same kind of home may use it too (pekko@jdk17 beside java-threads@jdk17)
    runtime: str = ""


def config_path() -> Path:
    """results/installations.toml beside the default store ($RINGBENCH_INSTALLATIONS to use another file)."""
    return Path(os.environ.get("RINGBENCH_INSTALLATIONS") or REPO / "results" / "installations.toml")


def declared() -> dict[str, Installation]:
    """The named installations, in the file's order ({} when there is no file)."""
    path = config_path()
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise InstallationError(f"{path}: cannot be read ({e})") from None
    out = {}
    for name, v in data.items():
        if not isinstance(v, dict) or not isinstance(v.get("home"), str) or not NAME.fullmatch(name):
            raise InstallationError(f'{path}: [{name}] needs home = "..." (and a name of letters, digits, ._+-)')
        out[name] = Installation(name, v["home"], str(v.get("runtime", "")))
    return out


def resolve(text: str) -> Installation:
    """The installation `@text` means: a declared name, else `text` taken as the home itself."""
    found = declared().get(text)
    if found:
        return found
    name = Path(text.rstrip("/")).name
    if not text or not NAME.fullmatch(name):
        raise InstallationError(f"@{text}: not a declared installation (`ringbench runtimes` lists them)")
    return Installation(name, text)


def add(name: str, runtime: str, home: str) -> Path:
    """Declare (or re-declare) an installation; returns the file written."""
    if not NAME.fullmatch(name):
        raise InstallationError(f"installation name {name!r}: letters, digits and ._+- only, 63 at most")
    if "@" in runtime or "/" in runtime:
        raise InstallationError(f"--runtime {runtime!r}: give the driver folder, e.g. java-threads")
    entries = {**declared(), name: Installation(name, home, runtime)}
    path = config_path()
    lines = ["# Installations of runtimes, selected as -r <runtime>@<name> (ringbench runtimes add).", ""]
    for inst in entries.values():
        lines += [f"[{_quote(inst.name)}]", f"runtime = {_quote(inst.runtime)}", f"home = {_quote(inst.home)}", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines))
    tmp.replace(path)
    return path


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def version_key(version: str) -> tuple[int, ...]:
    """The numbers of a version, to compare: go1.27.3 → (1, 27, 3), 17.0.15 → (17, 0, 15)."""
    return tuple(int(x) for x in re.findall(r"\d+", version))


def older(version: str, minimum: str) -> bool:
    """True when `version` is older than `minimum` (21 is not older than 21.0.2)."""
    have, need = version_key(version), version_key(minimum)
    return have[: len(need)] < need
