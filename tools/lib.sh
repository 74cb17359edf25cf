# Shared helpers for tools/dev and tools/run-tests (sourced, not run).

say() { printf '==> %s\n' "$*" >&2; }

# need_root SCRIPT ARGS...: re-run SCRIPT through sudo unless we are root.
need_root() {
  [ "$(id -u)" -eq 0 ] && return
  if command -v sudo >/dev/null; then
    say "root is needed to install Debian packages: re-running through sudo"
    exec sudo "$@"
  fi
  echo "tools/dev: run me as root: I install Debian packages" >&2
  exit 1
}

# apt_install PKG...: install the packages that are missing, and only those.
apt_install() {
  local missing=()
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "Debian packages: all present"
    return
  fi
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # -sysv variants keep apt from pulling systemd in on hosts without it.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# make_venv DIR ROOT EXTRAS: (re)install the project into DIR when pyproject changed.
# The stamp lists every extras spec the install satisfies ([test] includes [client]).
make_venv() {
  local venv=$1 root=$2 extras=$3
  local stamp="$venv/.saphira-stamp"
  local hash
  hash="$(sha256sum "$root/pyproject.toml" | cut -c1-16)"
  if [ ! -x "$venv/bin/python" ]; then
    say "creating the Python environment in $venv"
    /usr/bin/python3 -m venv "$venv"
  fi
  if [ -f "$stamp" ] && grep -qxF "$hash$extras" "$stamp"; then
    say "Python environment: up to date"
    return
  fi
  say "installing Saphira and its Python dependencies into $venv"
  # uv resolves and installs in seconds what took pip minutes on a fresh CI
  # machine (docs/architecture.md, "Test tiers"); uv itself comes from PyPI
  # through the venv's pip. pip does the whole install if uv cannot.
  # The filter hides pip's notes about this machine's local package mirrors;
  # pipefail keeps pip's own exit status. --compile-bytecode writes the .pyc
  # files pip would: without them every process compiles what it imports (an
  # `openstack` command 1.8 s instead of 1.0), and where PYTHONDONTWRITEBYTECODE
  # is set (as on this project's CI machines) it does so every time.
  if "$venv/bin/pip" install -q uv 2>&1 | { grep -v '^WARNING: Location' || true; } &&
    "$venv/bin/uv" pip install -q --compile-bytecode --python "$venv/bin/python" -e "$root$extras"; then
    :
  else
    say "uv could not install: installing with pip instead"
    "$venv/bin/pip" install -q --upgrade pip setuptools wheel 2>&1 | { grep -v '^WARNING: Location' || true; }
    "$venv/bin/pip" install -q -e "$root$extras" 2>&1 | { grep -v '^WARNING: Location' || true; }
  fi
  {
    echo "$hash$extras"
    [ "$extras" = "[test]" ] && echo "$hash[client]"
    true
  } >"$stamp"
}
