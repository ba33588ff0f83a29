"""Other installations of a runtime: declare one, list them."""

from __future__ import annotations

from pathlib import Path

from ..catalogue import installations as inst
from ..catalogue.drivers import DriverError, discover
from .errors import InputError


def add_installation(name: str, runtime: str, home: str) -> tuple[Path, str]:
    """Declare installation `name` of driver folder `runtime` at `home` (results/installations.toml), after
    reading its version from it: (the file written, the version). InputError on what cannot be used."""
    folders = {d.base: d for d in discover().values()}
    d = folders.get(runtime)
    if d is None:
        raise InputError(f"unknown runtime {runtime!r}; known: {', '.join(folders)}")
    if not home.strip():
        raise InputError("--home is empty: give the installation's home folder (or go's toolchain name)")
    try:
        version = d.at(inst.Installation(name, home, runtime)).install_version()
        return inst.add(name, runtime, home), version
    except (DriverError, inst.InstallationError) as e:
        raise InputError(str(e)) from None


def installations() -> list[dict]:
    """The declared installations: name, runtime, home, the version read from it (or the problem), built."""
    folders = {d.base: d for d in discover().values()}
    rows = []
    try:
        found = inst.declared()
    except inst.InstallationError as e:
        raise InputError(str(e)) from None
    for i in found.values():
        row: dict = {"name": i.name, "runtime": i.runtime, "home": i.home, "version": None, "built": False}
        d = folders.get(i.runtime)
        try:
            if d is None:
                raise DriverError(f"no driver {i.runtime!r}")
            at = d.at(i)
            row.update(version=at.install_version(), built=at.is_built())
        except DriverError as e:
            row["problem"] = str(e)
        rows.append(row)
    return rows
