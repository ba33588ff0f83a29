#!/usr/bin/env bash
# Sets up everything ringbench needs on a fresh Debian machine, idempotently:
# Debian packages named by the drivers' manifests, the Python virtualenv, every driver built.
# --test also installs what only the tests need (Debian's chromium, to open the HTML report).
set -euo pipefail
extra=""
[ "${1:-}" = "--test" ] && extra="chromium"
cd "$(dirname "$0")/.."

# Toolchains the image puts outside the default PATH.
for d in /usr/local/go/bin "$HOME/.cargo/bin"; do
  [ -d "$d" ] && case ":$PATH:" in *":$d:"*) ;; *) PATH="$d:$PATH" ;; esac
done
export PATH

# 1. Debian packages: each driver lists its own in driver.toml (`apt = [...]`).
wanted=$(python3 - <<'PY'
import pathlib, tomllib
pkgs = set()
for m in pathlib.Path("drivers").glob("*/driver.toml"):
    pkgs.update(tomllib.loads(m.read_text()).get("apt", []))
print(" ".join(sorted(pkgs)))
PY
)
wanted="$wanted $extra"
missing=""
for p in $wanted; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

# 2. The Python environment (orchestrator, statistics, Python drivers' libraries, tests).
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.ringbench-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "setup: installing Python packages"
  .venv/bin/pip install -q --disable-pip-version-check -e '.[test]'
  touch "$stamp"
fi
# Bytecode for the orchestrator, the Python drivers and the tests' fake drivers, written once here: an
# environment with PYTHONDONTWRITEBYTECODE set (as some images are) would otherwise compile them again at
# every start of a process (~56 ms a `ringbench` command), and Python reads what is there either way.
.venv/bin/python -m compileall -q -x '/(bin|target|\.venv)/' ringbench drivers tests >/dev/null

# 3. Every driver, with its runtime's own tools.
.venv/bin/ringbench build
