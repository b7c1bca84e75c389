#!/usr/bin/env bash
# CI's fuzz step (.ci/run): builds the fuzz targets alone with clang in
# build-fuzz (FUZZ_BUILD) and runs each for FUZZ_SECONDS (default 20) from
# its seeds in tests/fuzz/corpus/<target>/, copied to a scratch folder so
# the tree's corpus stays as committed. A finding (crash, leak, sanitizer
# report, timeout) fails the step and leaves its input in
# build-fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-20}
build=${FUZZ_BUILD:-build-fuzz}
targets=(frame script params import requests)

if ! command -v clang >/dev/null 2>&1; then
  echo "tests/fuzz/ci.sh: clang is not installed (deploy/install-deps.sh installs it): the fuzz targets need it" >&2
  exit 1
fi
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPDK_FUZZ=ON
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/findings"
for t in "${targets[@]}"; do
  mkdir -p "$scratch/$t"
  if [ -d "tests/fuzz/corpus/$t" ]; then
    cp tests/fuzz/corpus/"$t"/* "$scratch/$t/"
  fi
  echo "tests/fuzz/ci.sh: fuzz_$t for ${seconds} s"
  # -timeout: an input that takes 10 s is a finding (a hang), not slowness.
  if ! "$build"/bin/fuzz_"$t" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
       -artifact_prefix="$build"/findings/"$t"- "$scratch/$t" >"$scratch/$t.log" 2>&1; then
    tail -n 60 "$scratch/$t.log" >&2
    echo "tests/fuzz/ci.sh: fuzz_$t found something; its input is in $build/findings/" >&2
    exit 1
  fi
  grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE' "$scratch/$t.log" || true
done
