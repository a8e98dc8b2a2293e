#!/usr/bin/env bash
# Build the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined, the engine compiled
# from source with the same flags) and run each for a bounded time on its seed corpus.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default 20 s, every target)
# Environment: FUZZ_BUILD (build directory, default build-fuzz), FUZZ_JOBS (parallel compiles).
# Inputs in tests/fuzz/regressions/<target>/ (crashes found earlier) are replayed first; a new
# crash is saved under FUZZ_BUILD/artifacts/ and the script fails: copy it to regressions/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(load post_load options api)
build="${FUZZ_BUILD:-$root/build-fuzz}"
jobs="${FUZZ_JOBS:-$(nproc)}"
mkdir -p "$build/obj" "$build/artifacts"

version="$(python3 "$root/scripts/header_version.py" "$root/include/vbmc/vbmc.h")"
flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -DVBMC_BUILDING "-DVBMC_VERSION_STRING=\"$version\""
       -I"$root/include" -I"$root/src" $(pkg-config --cflags lapacke openblas 2>/dev/null || true))
libs=($(pkg-config --libs lapacke openblas 2>/dev/null || echo -llapacke -lopenblas) -lm)

# Engine objects: recompiled when the source or any header is newer than the object.
newest_header="$(find "$root/src" "$root/include" -name '*.h*' -printf '%T@\n' | sort -n | tail -1)"
compile() {
  local src="$1" obj="$2"
  if [[ ! -f "$obj" ]] || [[ "$src" -nt "$obj" ]] ||
     (( $(printf '%.0f' "$newest_header") > $(stat -c %Y "$obj") )); then
    clang++ "${flags[@]}" -c "$src" -o "$obj"
  fi
}
export -f compile
export newest_header
objects=()
while IFS= read -r src; do
  rel="${src#$root/src/}"
  objects+=("$build/obj/${rel//\//_}.o")
done < <(find "$root/src" -name '*.cpp' | sort)
find "$root/src" -name '*.cpp' | sort | while IFS= read -r src; do
  rel="${src#$root/src/}"
  printf '%s\n%s\n' "$src" "$build/obj/${rel//\//_}.o"
done | FLAGS="${flags[*]}" xargs -d '\n' -n 2 -P "$jobs" bash -c "$(declare -p flags); compile \"\$0\" \"\$1\""

status=0
for target in "${targets[@]}"; do
  exe="$build/fuzz_$target"
  clang++ "${flags[@]}" -fsanitize=fuzzer "$root/tests/fuzz/fuzz_$target.cpp" "${objects[@]}" "${libs[@]}" -o "$exe"
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  regressions="$root/tests/fuzz/regressions/$target"
  if [[ -d "$regressions" ]] && compgen -G "$regressions/*" >/dev/null; then
    "$exe" -runs=0 "$regressions"/* >"$build/fuzz_$target.regressions.log" 2>&1 ||
      { echo "fuzz_$target: a regression input crashes again (see $build/fuzz_$target.regressions.log)"; status=1; }
  fi
  log="$build/fuzz_$target.log"
  # -timeout flags hangs only: under the sanitizers a degenerate run whose final boost takes
  # PyVBMC's full 10000 Adam iterations needs about two minutes (a few seconds uninstrumented).
  if OPENBLAS_NUM_THREADS=1 "$exe" -max_total_time="$seconds" -timeout=300 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$build/artifacts/${target}-" "$corpus" "$root/tests/fuzz/corpus/$target" >"$log" 2>&1; then
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
    echo "fuzz_$target: ${seconds} s, $runs executions, no crash"
  else
    echo "fuzz_$target: CRASH (log $log, input in $build/artifacts/)"
    tail -40 "$log"
    status=1
  fi
done
exit $status
