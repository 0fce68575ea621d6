#!/usr/bin/env bash
# bench/scale.sh — how no-op `generate` and the first MCP `get_rules` grow with the number of
# rules (issue 8, case B58), on projects built by bench/make-scale.py (3 presets: claude,
# cursor, copilot; global, path-scoped and trigger-tagged rules over RULES/100 domains).
#
# For each size the script generates once, checks that a second run changes nothing, then times:
#   (a) no-op `ai-rulez generate` (every output up to date): hyperfine, one warm-up run, RUNS
#       runs, median wall and mean user CPU time;
#   (b) from starting `ai-rulez mcp` to the reply of the first `get_rules` call (initialize,
#       initialized and the call written at once): one run without the machine-local snapshot
#       of parsed items (`.ai-rulez/local/parsed-items`, removed first; that run leaves one),
#       then RUNS runs that start from it: median wall and median user CPU time of the server
#       process.
# It prints one table row per size and the 10k -> 100k growth factor of each measure.
#
# Targets (issue 8): growth <= 12x from 10k to 100k rules, and <= 3 s at 100k, for both.
#
# Usage:     bash bench/scale.sh
# Tunables:  SIZES="10000 30000 100000" RUNS=5; BIN=path times that binary instead of building
#            the dist profile (fat LTO: a cold build takes minutes).
# Output:    the table on stdout and in bench/out/scale/results.md; hyperfine JSON next to it.
#            The generated trees are kept under bench/out/scale/tree-<size> (deleted and rebuilt
#            on every run) so a slow case can be inspected or profiled afterwards.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
OUT=$BENCH/out/scale
SIZES=${SIZES:-"10000 30000 100000"}
RUNS=${RUNS:-5}

command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }
if ! command -v hyperfine >/dev/null; then
  [ "$(id -u)" = 0 ] || { echo "error: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
  timeout 300 apt-get update -qq && timeout 600 apt-get install -y -qq hyperfine >/dev/null
fi
if [ -z "${BIN:-}" ]; then
  (cd "$ROOT" && timeout 1800 cargo build --profile dist --quiet)
  BIN=$ROOT/target/dist/ai-rulez
fi
case "$OUT" in *[[:space:]]*) echo "error: bench path must not contain spaces: $OUT" >&2; exit 1 ;; esac
mkdir -p "$OUT"
ROWS=$OUT/rows.tsv
: >"$ROWS"

for size in $SIZES; do
  tree=$OUT/tree-$size
  rm -rf "$tree"
  mkdir -p "$tree"
  python3 "$BENCH/make-scale.py" "$tree" "$size"
  git -C "$tree" init -q
  echo "== $size rules: first generate" >&2
  timeout 1800 "$BIN" -q -C "$tree" generate >/dev/null
  # The timed runs must be real no-op runs: a second generate writes and removes nothing.
  summary=$(timeout 1800 "$BIN" -q -C "$tree" generate 2>&1 >/dev/null | tail -n 1)
  case "$summary" in
    "0 written, "*", 0 removed") ;;
    *) echo "error: the second generate at $size rules was not a no-op: $summary" >&2; exit 1 ;;
  esac
  outputs=${summary#0 written, }
  outputs=${outputs%% unchanged*}
  echo "== $size rules ($outputs outputs): no-op generate x $RUNS" >&2
  # One untimed run first: outputs are recorded in .ai-rulez/local/output-stats only once
  # they have not changed for 2 s, so the timed runs measure the steady no-op state.
  sleep 2
  timeout 3600 hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$OUT/generate-$size.json" \
    "$BIN -q -C $tree generate" >&2
  echo "== $size rules: first get_rules x $RUNS" >&2
  mcp=$(timeout 3600 python3 - "$BIN" "$tree" "$RUNS" <<'PY'
import json, os, statistics, subprocess, sys, time

binary, tree, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
# H1, H2 from ../shared/cases/bug-cases.md, then one get_rules call.
messages = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "probe", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
     "params": {"name": "get_rules",
                "arguments": {"paths": ["services/s001/src/handlers/mod.rs"],
                              "task": "add retry with a timeout to the database client"}}},
]
payload = "".join(json.dumps(message) + "\n" for message in messages).encode()
# The first run starts without the snapshot of parsed items (as on a fresh checkout or after a
# rebuild of the binary) and leaves one; the timed runs after it start from that snapshot.
snapshot = os.path.join(tree, ".ai-rulez", "local", "parsed-items")
if os.path.exists(snapshot):
    os.remove(snapshot)
walls, users = [], []
for _ in range(runs + 1):
    began = time.perf_counter()
    process = subprocess.Popen([binary, "mcp"], cwd=tree, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write(payload)
    process.stdin.flush()
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("the server closed stdout before answering get_rules")
        answer = json.loads(line)
        if answer.get("id") == 2:
            break
    walls.append(time.perf_counter() - began)
    result = answer.get("result", {})
    if result.get("isError") or not result.get("structuredContent", {}).get("rules"):
        raise SystemExit(f"get_rules sent no rules: {line[:300]!r}")
    process.stdin.close()
    # User time of the whole server process (start, load, reply and exit).
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    users.append(usage.ru_utime)
if not os.path.exists(snapshot):
    raise SystemExit("the first server left no snapshot of parsed items")
print(f"{walls[0]:.3f} {statistics.median(walls[1:]):.3f} {statistics.median(users[1:]):.3f}")
PY
)
  python3 - "$OUT/generate-$size.json" "$size" "$outputs" "$mcp" >>"$ROWS" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
mcp_cold, mcp_wall, mcp_user = sys.argv[4].split()
print("\t".join([sys.argv[2], sys.argv[3], f"{result['median']:.3f}", f"{result['user']:.3f}",
                 mcp_cold, mcp_wall, mcp_user]))
PY
done

python3 - "$ROWS" "$BIN" "$RUNS" <<'PY' | tee "$OUT/results.md"
import subprocess, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
version = subprocess.run([sys.argv[2], "--version"], capture_output=True, text=True).stdout.strip()
print(f"# Scaling: no-op generate and first get_rules ({version}, {sys.argv[3]} runs each)")
print()
print("| rules | outputs | generate wall s | generate user s | first get_rules without snapshot, wall s | first get_rules wall s | first get_rules user s |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for size, outputs, gen_wall, gen_user, mcp_cold, mcp_wall, mcp_user in rows:
    print(f"| {int(size):,} | {int(outputs):,} | {gen_wall} | {gen_user} | {mcp_cold} | {mcp_wall} | {mcp_user} |")
sizes = {int(row[0]): row for row in rows}
if 10000 in sizes and 100000 in sizes:
    small, large = sizes[10000], sizes[100000]
    print()
    print("10k -> 100k growth (target <= 12x) and 100k time (target <= 3 s):")
    for label, column in [("generate wall", 2), ("generate user", 3),
                          ("first get_rules without snapshot, wall", 4),
                          ("first get_rules wall", 5), ("first get_rules user", 6)]:
        growth = float(large[column]) / max(float(small[column]), 1e-9)
        seconds = float(large[column])
        verdict = "met" if growth <= 12 and seconds <= 3 else "NOT met"
        print(f"- {label}: {growth:.1f}x, {seconds:.2f} s at 100k: {verdict}")
PY
