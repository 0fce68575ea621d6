#!/usr/bin/env bash
# bench/lint.sh — times `ai-rulez validate` and `ai-rulez scan` on 2,000 synthetic items
# (RULES rules + SKILLS skills built by make-sample.sh, in a git repository so the glob check
# reads a real index) and compares with the Go ai-rulez's published figure of about 300 ms for
# 200 files, i.e. about 3,000 ms for 2,000 at the same per-file rate.
#
# Usage:   bash bench/lint.sh
# Tunables: RULES=1800 SKILLS=200 WARMUP=2 MIN_RUNS=10; BIN=path times that binary instead of
#           building the dist profile first.
# Output:  the hyperfine table, bench/out/lint.json, and a line with the median of
#          validate + scan and the ratio against the Go figure. Target: <= 300 ms median.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
OUT=$BENCH/out
RULES=${RULES:-1800}
SKILLS=${SKILLS:-200}
WARMUP=${WARMUP:-2}
MIN_RUNS=${MIN_RUNS:-10}
SAMPLE=$BENCH/make-sample.sh
[ -f "$SAMPLE" ] || SAMPLE=$ROOT/../shared/bench/make-sample.sh

command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p "$OUT"
if [ -z "${BIN:-}" ]; then
  timeout 900 cargo build --profile dist --quiet --manifest-path "$ROOT/Cargo.toml"
  BIN=$ROOT/target/dist/ai-rulez
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
timeout 300 bash "$SAMPLE" "$WORK" "$RULES" "$SKILLS" >/dev/null
cd "$WORK/ai-rulez"
items=$(find .ai-rulez -name '*.md' | wc -l)
echo "sample: $items item files under $WORK/ai-rulez/.ai-rulez"

# Both commands exit 0 with --fail-on none, whatever the sample holds, so hyperfine can time them.
timeout 600 hyperfine -N --warmup "$WARMUP" --min-runs "$MIN_RUNS" \
  --export-json "$OUT/lint.json" \
  "$BIN validate --fail-on none --format json" \
  "$BIN scan --fail-on none --format json"

python3 - "$OUT/lint.json" "$items" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
items = int(sys.argv[2])
medians = [result["median"] * 1000 for result in results]
total = sum(medians)
go_ms = 300.0 * items / 200.0
print(f"validate {medians[0]:.1f} ms + scan {medians[1]:.1f} ms = {total:.1f} ms median for {items} items")
print(f"Go ai-rulez at ~300 ms per 200 files would take ~{go_ms:.0f} ms: {go_ms / total:.1f}x the throughput")
print("target <= 300 ms:", "met" if total <= 300 else "NOT met")
PY
