#!/usr/bin/env bash
# Installs what Paddock needs to build, test and run on Debian 12, and nothing
# that is already there. Idempotent: a second run installs nothing. Uses
# apt-get as root, sudo otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git python3
  libuv1-dev
  libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
  libprotobuf-dev # google/protobuf/timestamp.proto, imported by Foxglove's schemas
  nanopb libnanopb-dev
  libsqlite3-dev sqlite3
  check
  libjansson-dev
  zlib1g-dev libwebsockets-dev libzstd-dev libssl-dev
  chromium
  clang libclang-rt-14-dev # CI's short fuzz run: clang and its libFuzzer runtime
  python3-protobuf python3-pytest python3-numpy python3-pandas python3-matplotlib
  python3-yaml # tests/deploy reads the Agones manifests
  openssl systemd # the tests' certificates; systemd-analyze checks deploy/systemd
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  sudo=(false)
fi

# Node runs the WebSocket, Foxglove, MCAP and browser tests; a machine
# without it gets Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "deploy/install-deps.sh: every Debian package is installed"
else
  if [ "${sudo[0]:-}" = false ]; then
    echo "deploy/install-deps.sh: missing ${missing[*]}, and not root and no sudo to install them" >&2
    exit 1
  fi
  echo "deploy/install-deps.sh: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The npm packages, each folder's exactly as its package-lock.json pins them:
# clients/web holds the dashboard's browser libraries, tests/web the Node
# tests' clients. A folder whose lock has not changed since its last install
# is left alone.
root="$(cd "$(dirname "$0")/.." && pwd)"
for dir in clients/web tests/web; do
  stamp="$root/$dir/node_modules/.paddock-installed-lock"
  if [ -f "$stamp" ] && cmp -s "$stamp" "$root/$dir/package-lock.json"; then
    continue
  fi
  echo "deploy/install-deps.sh: npm ci in $dir"
  (cd "$root/$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$root/$dir/package-lock.json" "$stamp"
done

# promtool checks /metrics in the tests. It comes in Debian's prometheus
# package, which as a package would also install and start a Prometheus
# server; so its .deb is fetched and only promtool (one static program)
# unpacked into .tools/bin. Kept while its version is Debian's.
tools="$root/.tools"
candidate() { apt-cache policy prometheus 2>/dev/null | awk '/Candidate:/ {print $2}'; }
want="$(candidate)"
if { [ -z "$want" ] || [ "$want" = "(none)" ]; } && [ "${sudo[0]:-}" != false ]; then
  "${sudo[@]}" apt-get update -qq
  want="$(candidate)"
fi
if [ -z "$want" ] || [ "$want" = "(none)" ]; then
  echo "deploy/install-deps.sh: apt knows no prometheus package, which has promtool" >&2
  exit 1
fi
if [ ! -x "$tools/bin/promtool" ] || [ "$(cat "$tools/promtool.version" 2>/dev/null)" != "$want" ]; then
  echo "deploy/install-deps.sh: promtool from prometheus $want into .tools/bin"
  scratch="$(mktemp -d)"
  (cd "$scratch" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" "prometheus=$want")
  dpkg-deb -x "$scratch"/prometheus_*.deb "$scratch/x"
  mkdir -p "$tools/bin"
  cp "$scratch/x/usr/bin/promtool" "$tools/bin/promtool"
  echo "$want" > "$tools/promtool.version"
  rm -rf "$scratch"
fi
