"""A ring across nodes (contract section 10): which runtimes spread a ring over nodes, by what, and whether they
take nodes the user starts (each driver's manifest); and, for nodes on other hosts (`--hosts`), the hosts as
given, the cookie, and the cluster file a driver reads for the life of one driver process.

The cookie is Erlang distribution's means of keeping a cluster private, and the one the cluster file carries;
a runtime whose manifest says it takes no nodes started by the user (`[nodes] hosts = false`) is refused
`--hosts` before anything reads a cookie.

The cookie comes from `--cookie-file` when given, else from the environment variable RINGBENCH_COOKIE,
else from Erlang's own ~/.erlang.cookie; a file must be readable by its owner alone (mode 0600 or 0400), as Erlang
itself demands. It is never on a command line (where `ps` shows it), never stored with a run, never
printed, and never in a driver's environment: the driver gets the path of a cluster file (the manifest's
`{cluster}` placeholder), written with mode 0600 into a private folder and removed when the process ends.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..catalogue.drivers import Driver, Remoting, discover

COOKIE_ENV = "RINGBENCH_COOKIE"
DEFAULT_NAME = "ringbench"
_HOST = re.compile(r"^(?:(?P<name>[A-Za-z0-9_-]+)@)?(?P<host>[A-Za-z0-9._-]+)(?::(?P<port>\d{1,5}))?$")


class ClusterError(ValueError):
    """Hosts or a cookie that cannot be used (bad input, exit 2)."""


# -- which runtimes spread a ring over nodes (the manifests' [nodes] tables, read by the catalogue) -------
def remoting(d: Driver) -> Remoting | None:
    """The driver's ring across nodes as its manifest declares it, None for a driver without one."""
    return d.remoting


def with_nodes(drivers: Iterable[Driver] | None = None) -> dict[str, Remoting]:
    """The runtimes (driver folders, by name) whose manifest declares a ring across nodes: of the given drivers,
    else of every driver found (found once per search path: a refusal is asked once a cell)."""
    if drivers is None:
        return _with_nodes_found(os.environ.get(_DIRS), os.environ.get(_PATH))
    found: dict[str, Remoting] = {}
    for d in drivers:
        if d.remoting is not None:
            found.setdefault(d.name.split("/")[0], d.remoting)
    return dict(sorted(found.items()))


_DIRS, _PATH = "RINGBENCH_DRIVERS_DIR", "RINGBENCH_DRIVER_PATH"  # where discover() looks (catalogue/drivers.py)


@functools.lru_cache(maxsize=16)
def _with_nodes_found(_dirs: str | None, _path: str | None) -> dict[str, Remoting]:
    return with_nodes(discover().values())


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def no_nodes(name: str, k: int, drivers: Iterable[Driver] | None = None) -> str:
    """The one line that refuses a ring over `k` nodes to a driver without the feature, naming the runtimes whose
    manifests declare it (`only elixir and erlang can`)."""
    have = list(with_nodes(drivers))
    can = f"only {_listed(have)} can" if have else "no runtime here can"
    return f"{name} cannot spread a ring over {k} nodes ({can})"


def no_hosts(d: Driver) -> str | None:
    """The one line that refuses `--hosts` to a driver whose manifest says it starts every node itself; None
    when it takes nodes the user started (or has no ring across nodes at all: refused as such elsewhere)."""
    r = remoting(d)
    if r is None or r.hosts:
        return None
    takes = [n for n, x in with_nodes().items() if x.hosts]
    who = f"; {_listed(takes)} take{'s' if len(takes) == 1 else ''} it" if takes else ""
    return f"{d.name} starts its nodes itself: no --hosts (give --nodes K){who}"


def uses_cookie(d: Driver) -> bool:
    """Whether the nodes of a driver's ring on other hosts are kept private by a shared cookie (the manifest's
    `[nodes] cookie`, true unless it says otherwise): Erlang distribution's, not Pekko's or CAF's TLS."""
    r = remoting(d)
    return r is None or r.cookie


def parse_hosts(text: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """`a,b,name@c:4370` → each as `name@host[:port]` (name `ringbench` by default); a node given twice, an
    empty item or one that is not `[name@]host[:port]` is a ClusterError."""
    items = [h.strip() for h in (text.split(",") if isinstance(text, str) else text)]
    if not items or any(not h for h in items):
        raise ClusterError(f"--hosts is a comma-separated list of [name@]host[:port], got {text!r}")
    out: list[str] = []
    for item in items:
        m = _HOST.match(item)
        if not m or (m["port"] and not 0 < int(m["port"]) < 65536):
            raise ClusterError(f"--hosts: {item!r} is not [name@]host[:port] (e.g. ringbench@db1 or db1:4370)")
        node = f"{m['name'] or DEFAULT_NAME}@{m['host']}"
        if any(o.split(":")[0] == node for o in out):
            raise ClusterError(f"--hosts names the node {node} twice")
        out.append(node + (f":{m['port']}" if m["port"] else ""))
    return tuple(out)


def nodes_of(hosts: tuple[str, ...]) -> int:
    """Nodes of a ring over these hosts: this machine's (node 0, where the timing happens) and one on each."""
    return 1 + len(hosts)


def cookie(cookie_file: str = "") -> str:
    """The cookie of the user's nodes: from the given file, else RINGBENCH_COOKIE, else ~/.erlang.cookie."""
    env = os.environ.get(COOKIE_ENV, "").strip()
    if env and not cookie_file:
        return _checked(env, f"${COOKIE_ENV}")
    path = Path(cookie_file).expanduser() if cookie_file else Path.home() / ".erlang.cookie"
    try:
        st = path.stat()
    except OSError:
        raise ClusterError(
            f"no cookie for the nodes on other hosts: set {COOKIE_ENV}, or give --cookie-file, or create "
            f"{path} (mode 0600) with the cookie the remote nodes use"
        ) from None
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ClusterError(
            f"the cookie file {path} can be read by others (mode {stat.S_IMODE(st.st_mode):04o}): "
            f"`chmod 600 {path}` first"
        )
    try:
        text = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as e:
        raise ClusterError(f"cannot read the cookie file {path}: {e}") from None
    return _checked(text, str(path))


def _checked(value: str, where: str) -> str:
    if not value or not all(c.isascii() and c.isprintable() and c not in "\n=" for c in value):
        raise ClusterError(f"the cookie in {where} is empty or not printable ASCII (the cookie itself is not shown)")
    return value


FOLDER_PREFIX = "ringbench-cluster-"


def _started(pid: int) -> int | None:
    """A live process's start time (clock ticks since boot, /proc/<pid>/stat field 22), None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # the command (field 2) may hold spaces and parentheses
    return None if fields[0] in ("Z", "X", "x") else int(fields[19])


def _owner_tag() -> str:
    pid = os.getpid()
    return f"{pid}-{_started(pid) or 0}-"


def sweep_stale() -> list[str]:
    """Remove the cluster folders (and the cookie in them) that processes of this user left behind when they
    were killed (SIGKILL, a power cut) before their own cleanup: only a folder whose owner, the pid and start
    time in its name, is gone. Returns the folders removed."""
    tmp = tempfile.gettempdir()
    removed = []
    try:
        names = [n for n in os.listdir(tmp) if n.startswith(FOLDER_PREFIX)]
    except OSError:
        return []
    for name in names:
        m = re.fullmatch(rf"{FOLDER_PREFIX}(\d+)-(\d+)-.*", name)
        path = os.path.join(tmp, name)
        try:
            mine = os.lstat(path).st_uid == os.getuid() and stat.S_ISDIR(os.lstat(path).st_mode)
        except OSError:
            continue
        if not m or not mine:
            continue  # another user's, or not named by its owner: left alone
        started = _started(int(m[1]))
        if started is None or (int(m[2]) and started != int(m[2])):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


@contextmanager
def cluster_file(hosts: tuple[str, ...], cookie_file: str = "", driver: Driver | None = None) -> Iterator[str]:
    """The cluster file for one driver process (its path; "" without hosts), removed afterwards. Its folder is
    named after this process (pid and start time), so a later run can sweep it if this one is killed first.
    The cookie line only for a driver whose nodes are kept private by one (uses_cookie)."""
    if not hosts:
        yield ""
        return
    secret = cookie(cookie_file) if driver is None or uses_cookie(driver) else ""
    sweep_stale()
    folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX + _owner_tag())  # mode 0700
    path = os.path.join(folder, "cluster")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"hosts={','.join(hosts)}\n" + (f"cookie={secret}\n" if secret else ""))
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)
