#!/usr/bin/env bash
# Times `ai-rulez lock --check` (the pre-commit check) on synthetic monorepos of growing size,
# next to `git status` on the same tree as the floor, and prints medians and ratios.
#   bash bench/lock.sh            (sizes 1500, 6000, 20000 items over 500 domains)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
out="$here/out/lock"
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
(cd "$repo" && cargo build --profile dist --quiet)
bin="$repo/target/dist/ai-rulez"
mkdir -p "$out"
printf '| items | domains | lock --check median (ms) | git status median (ms) | ratio |\n|---:|---:|---:|---:|---:|\n' > "$out/results.md"
for items in 1500 6000 20000; do
  dir="$out/tree-$items"
  rm -rf "$dir"; mkdir -p "$dir"
  python3 "$here/make-monorepo.py" "$dir" "$items" 500
  (cd "$dir" && git init -q && "$bin" -q generate >/dev/null && "$bin" -q lock >/dev/null \
     && git add -A && git -c user.email=b@b -c user.name=bench commit -qm tree)
  # The check must pass before it is timed, so the timing is of a real, clean check.
  (cd "$dir" && "$bin" lock --check >/dev/null 2>&1)
  hyperfine --warmup 3 --runs 20 --export-json "$out/$items.json" \
    "cd $dir && $bin lock --check" "cd $dir && git status --porcelain" >/dev/null
  python3 - "$out/$items.json" "$items" >> "$out/results.md" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
ours, git = (result["median"] * 1000 for result in results)
print(f"| {sys.argv[2]} | 500 | {ours:.1f} | {git:.1f} | {ours / git:.2f}x |")
PY
done
cat "$out/results.md"
