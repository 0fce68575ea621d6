#!/usr/bin/env bash
# bench/mcp-schema.sh — what `tools/list` costs a client: for each toolset (served with the
# always-served core tool), and for the default set, the number of tools, the size of the
# tools/list result in bytes (compact JSON, as sent) and an estimate in tokens (bytes / 4).
#
# Target (issue 9): the default set at most 20 tools and 12 KB.
#
# Usage: bash bench/mcp-schema.sh        (debug build; sizes do not depend on the build)
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }
(cd "$ROOT" && cargo build --quiet)
BIN=$ROOT/target/debug/ai-rulez
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/.git" "$WORK/.ai-rulez"
printf 'version = "5.0"\nname = "bench"\npresets = ["claude"]\n' > "$WORK/.ai-rulez/config.toml"

python3 - "$BIN" "$WORK" <<'PY'
import json, subprocess, sys

binary, work = sys.argv[1], sys.argv[2]
HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]

def tools_list(args):
    """Every tool `ai-rulez mcp ARGS` lists, following nextCursor."""
    tools, cursor, next_id = [], None, 2
    while True:
        params = {"cursor": cursor} if cursor else {}
        lines = HANDSHAKE + [{"jsonrpc": "2.0", "id": next_id, "method": "tools/list", "params": params}]
        text = "".join(json.dumps(line) + "\n" for line in lines)
        out = subprocess.run([binary, "mcp", *args], input=text, capture_output=True,
                             text=True, cwd=work, check=True).stdout
        reply = [json.loads(line) for line in out.splitlines()][-1]["result"]
        tools += reply["tools"]
        cursor = reply.get("nextCursor")
        if not cursor:
            return tools

def row(label, tools):
    size = len(json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False).encode())
    print(f"| {label} | {len(tools)} | {size:,} | {size // 4:,} |")

print("| toolsets served | tools | bytes | ~tokens |")
print("|---|---:|---:|---:|")
row("default", tools_list([]))
for toolset in ["read", "skills", "author", "admin"]:
    row(f"{toolset} (+ core)", tools_list(["--toolsets", toolset]))
row("read,author,admin", tools_list(["--toolsets", "read,author,admin"]))
row("read-only, all", tools_list(["--read-only", "--toolsets", "read,author,admin"]))
PY
