#!/usr/bin/env bash
# bench/build-cost.sh — what the `https` feature (git includes over `git+https://`) costs: a cold
# `cargo build --release` of this checkout with default features and with `--features https`,
# each in its own fresh target folder, one after the other. Prints wall and CPU seconds (user +
# system, which other work on the machine disturbs less than wall time), the stripped binary's
# size and the number of crates built.
#
# Usage: bash bench/build-cost.sh     Tunables: JOBS=2 (cargo -j); KEEP=1 keeps the target folders.
# Run it on a quiet machine: every other build running meanwhile inflates both times.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
JOBS=${JOBS:-2}
WORK=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
command -v /usr/bin/time >/dev/null || { echo "error: /usr/bin/time is needed" >&2; exit 1; }

# Fetch every crate first, so the timed builds download nothing.
(cd "$ROOT" && cargo fetch --quiet)
printf '%-16s %8s %8s %10s %7s\n' build wall_s cpu_s binary_MB crates
for features in "" "https"; do
  name=${features:-default}
  flags=()
  [ -z "$features" ] || flags=(--features "$features")
  target="$WORK/$name"
  (cd "$ROOT" && CARGO_TARGET_DIR="$target" /usr/bin/time -f '%e %U %S' -o "$WORK/$name.time" \
    cargo build --release --quiet -j "$JOBS" "${flags[@]}")
  read -r wall user system < <(tail -1 "$WORK/$name.time")
  cpu=$(echo "$user + $system" | bc)
  size=$(stat -c %s "$target/release/ai-rulez")
  crates=$(cd "$ROOT" && cargo tree -e normal --prefix none "${flags[@]}" | sort -u | wc -l)
  printf '%-16s %8s %8s %10.1f %7s\n' "$name" "$wall" "$cpu" "$(echo "$size / 1048576" | bc -l)" "$crates"
done
