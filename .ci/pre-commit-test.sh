#!/usr/bin/env bash
# End-to-end test of .pre-commit-hooks.yaml with the real `pre-commit` from PyPI.
#
# It installs pre-commit into a throwaway venv, makes a sample git repository with a small
# .ai-rulez tree, generates and locks it with this checkout's debug build (target/debug/ai-rulez,
# built by `cargo build`/`cargo test` before), and points a .pre-commit-config.yaml at this
# checkout as a local hook repository (`rev` = this checkout's HEAD). Then:
#   1. `pre-commit run --all-files` must pass (lock and generated files in sync);
#   2. after editing a source, it must fail, naming the changed source.
#
# pre-commit clones the hook repository at `rev`, so it sees COMMITTED files only: commit
# .pre-commit-hooks.yaml before running this. Its `language: rust` runs `cargo install` of that
# revision (a release build); the release profile has no LTO, which keeps that from taking
# many minutes on a small machine. Set PRE_COMMIT_HOME to reuse pre-commit's cache between runs.
set -euo pipefail

checkout="$(cd "$(dirname "$0")/.." && pwd)"
binary="$checkout/target/debug/ai-rulez"
step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

[ -x "$binary" ] || fail "$binary is missing; run \`cargo build\` first"
rev="$(git -C "$checkout" rev-parse HEAD)"
git -C "$checkout" cat-file -e "$rev:.pre-commit-hooks.yaml" 2>/dev/null \
    || fail ".pre-commit-hooks.yaml is not committed at $rev; pre-commit only sees committed files"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="${PRE_COMMIT_HOME:-$work/pre-commit-home}"
# The release profile already builds fast (no LTO, opt-level 0 but for a few crates; see Cargo.toml).
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.com
export PIP_DISABLE_PIP_VERSION_CHECK=1 PRE_COMMIT_COLOR=never

step "hook repository: $checkout at $rev"

step "installing pre-commit from PyPI into a venv"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet pre-commit
pre_commit="$work/venv/bin/pre-commit"
"$pre_commit" --version

step "sample repository with a small .ai-rulez tree"
sample="$work/sample"
mkdir -p "$sample/.ai-rulez/rules" "$sample/.ai-rulez/skills/deploy"
cd "$sample"
git init -q .
cat > .ai-rulez/config.toml <<'EOF'
version = "5.0"
name = "pre-commit-sample"
presets = ["claude", "cursor"]
EOF
printf -- '---\npriority: high\n---\nUse tabs for indentation.\n' > .ai-rulez/rules/style.md
printf -- '---\ndescription: Deploy steps\n---\nRun make deploy.\n' > .ai-rulez/skills/deploy/SKILL.md
"$binary" generate
"$binary" lock
cat > .pre-commit-config.yaml <<EOF
repos:
  - repo: $checkout
    rev: $rev
    hooks:
      - id: ai-rulez-lock-check
      - id: ai-rulez-generate-check
EOF
git add -A
git commit -q -m "sample"
git ls-files | sed 's/^/  committed: /'

step "pre-commit run --all-files on the synced tree (expect success; builds the hook first)"
start=$SECONDS
if ! "$pre_commit" run --all-files; then
    fail "pre-commit failed on a tree whose lock and generated files are in sync"
fi
echo "first run (cargo install of the hook + checks): $((SECONDS - start))s"
start=$SECONDS
"$pre_commit" run --all-files >/dev/null || fail "second run failed"
echo "second run (hook already built): $((SECONDS - start))s"

step "edit .ai-rulez/rules/style.md, then pre-commit run --all-files (expect failure)"
printf 'Never use spaces.\n' >> .ai-rulez/rules/style.md
set +e
output="$("$pre_commit" run --all-files 2>&1)"
code=$?
set -e
printf '%s\n' "$output"
[ "$code" -ne 0 ] || fail "pre-commit passed although a source changed"
grep -q 'source changed rule style (.ai-rulez/rules/style.md)' <<<"$output" \
    || fail "ai-rulez-lock-check did not name the changed source"
grep -q 'stale: CLAUDE.md\|stale: .claude/rules/style.md\|stale: .cursor/rules/style.mdc' <<<"$output" \
    || fail "ai-rulez-generate-check did not report a stale output"

step "pre-commit hooks: ok (in sync passes, an edited source fails)"
