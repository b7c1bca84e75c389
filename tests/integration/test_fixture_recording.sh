#!/usr/bin/env bash
# A recording made by an earlier build (tests/fixtures/recording_*.db, made by
# tests/fixtures/make_recording.sh) verifies bit for bit with this build:
# every recorded state hash re-simulated and matched. A copy with one hash
# changed must fail, so the check itself can fail.
#
#   test_fixture_recording.sh PADDOCKD FIXTURE.db HASHES
set -euo pipefail
paddockd=$1 fixture=$2 hashes=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$fixture" "$tmp/good.db"
if ! "$paddockd" verify --db "$tmp/good.db" 1 >"$tmp/good.out" 2>&1; then
  cat "$tmp/good.out"
  echo "FAIL: $fixture does not verify with this build" >&2
  exit 1
fi
grep -q '^match: *yes$' "$tmp/good.out"
if ! grep -q "^hashes_checked: *$hashes\$" "$tmp/good.out"; then
  cat "$tmp/good.out"
  echo "FAIL: expected $hashes hashes checked" >&2
  exit 1
fi

cp "$fixture" "$tmp/bad.db"
sqlite3 "$tmp/bad.db" "UPDATE state_hashes SET hash = hash + 1
  WHERE tick = (SELECT MAX(tick) / 2 FROM state_hashes)"
if "$paddockd" verify --db "$tmp/bad.db" 1 >"$tmp/bad.out" 2>&1; then
  cat "$tmp/bad.out"
  echo "FAIL: a recording with a changed hash verified" >&2
  exit 1
fi
grep -q '^match: *no$' "$tmp/bad.out"
