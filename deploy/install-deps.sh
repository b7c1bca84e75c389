#!/usr/bin/env bash
# Installs what Paddock needs to build, test and run on Debian 12, and nothing
# that is already there. Idempotent: a second run installs nothing. Uses
# apt-get as root, sudo otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git python3
  libuv1-dev
  libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
  nanopb libnanopb-dev
  libsqlite3-dev sqlite3
  check
  libjansson-dev
  python3-protobuf python3-pytest python3-numpy python3-pandas python3-matplotlib
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deploy/install-deps.sh: every dependency is installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "deploy/install-deps.sh: missing ${missing[*]}, and not root and no sudo to install them" >&2
  exit 1
fi

echo "deploy/install-deps.sh: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
