#!/usr/bin/env bash
# bench/import.sh — times `ai-rulez import --from rulesync` of a RULES-rule rulesync tree
# (built by make-sample.sh: RULES rules, SKILLS skills, one MCP server in .rulesync/mcp.jsonc,
# rulesync.jsonc with eight targets) into a fresh .ai-rulez/ (hyperfine's --prepare removes it
# before every run), the same with --dry-run (reading and planning without writing), and, as the
# floor for creating that many files on this machine, `cp -r .rulesync` into a fresh folder.
#
# Usage:   bash bench/import.sh
# Tunables: RULES=500 SKILLS=20 WARMUP=3 MIN_RUNS=20; BIN=path times that binary instead of
#           building the release profile first (PROFILE=dist builds the dist profile);
#           TMPDIR=/dev/shm puts the sample on tmpfs, taking the disk out of the numbers.
# Measured 2026-12-01 (release profile, which is opt-level 0 for this crate; 2 shared cores,
# load ~4-10): on tmpfs import 132 ms mean (85 ms min), --dry-run 88 ms, cp -r 10 ms; on the
# disk import 488 ms, --dry-run 94 ms, cp -r 432 ms (creating 521 files costs that here).
# Output:  the hyperfine table and bench/out/import.json. Target (issue 13): <= 100 ms.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
OUT=$BENCH/out
RULES=${RULES:-500}
SKILLS=${SKILLS:-20}
WARMUP=${WARMUP:-3}
MIN_RUNS=${MIN_RUNS:-20}
PROFILE=${PROFILE:-release}
SAMPLE=$BENCH/make-sample.sh
[ -f "$SAMPLE" ] || SAMPLE=$ROOT/../shared/bench/make-sample.sh

command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install hyperfine)" >&2; exit 1; }
mkdir -p "$OUT"
if [ -z "${BIN:-}" ]; then
  timeout 1200 cargo build --profile "$PROFILE" --quiet --manifest-path "$ROOT/Cargo.toml"
  BIN=$ROOT/target/$PROFILE/ai-rulez
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
timeout 300 bash "$SAMPLE" "$WORK" "$RULES" "$SKILLS" >/dev/null
cd "$WORK/rulesync"
"$BIN" import --from rulesync --dry-run -q >/dev/null 2>&1
echo "sample: $(find .rulesync -name '*.md' | wc -l) rulesync files; binary: $BIN"

timeout 600 hyperfine -N --warmup "$WARMUP" --min-runs "$MIN_RUNS" \
  --export-json "$OUT/import.json" \
  --prepare "rm -rf $WORK/rulesync/.ai-rulez $WORK/copy" \
  -n "import --from rulesync ($RULES rules)" "$BIN import --from rulesync -q" \
  -n "import --from rulesync --dry-run" "$BIN import --from rulesync --dry-run -q" \
  -n "cp -r .rulesync (floor: creating the files)" "cp -r $WORK/rulesync/.rulesync $WORK/copy"
