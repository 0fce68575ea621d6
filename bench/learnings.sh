#!/usr/bin/env bash
# bench/learnings.sh — speed of `review_learnings` over 2,000 learnings.
#
# A project with LEARNINGS learnings (default 2,000), each read from 3 of 400 source files
# (about 2 KB each) in 40 folders, with the files' git blob ids recorded as `record_learning`
# writes them. A tenth of the learnings name a file changed afterwards, so they are stale.
# One `ai-rulez mcp` server (toolsets read,memory) answers CALLS `review_learnings` calls with the
# default listing (100), CALLS listing all, and CALLS `get_context` calls on one folder. Each
# review lists the learnings folder (parsed files are kept; only changed ones are read again),
# reads and hashes every source file (blob ids with gix, each file once per call) and compares
# the claims of learnings sharing a file; `get_context` checks the learnings read from files in
# the folder.
# Also times `ai-rulez learnings --format json` as a whole process (hyperfine, when installed).
# The wall-clock times include the client parsing each reply (about 0.7 MB of JSON) and any other
# load on the machine; the server's CPU time per call (from /proc) is printed beside them.
# Target (issue 11): review_learnings <= 100 ms over 2,000 learnings.
#
# Usage: bash bench/learnings.sh        Tunables: LEARNINGS=2000 CALLS=30 PROFILE=release|dist,
#        BIN=path/to/ai-rulez (an existing build; nothing is built then)
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
LEARNINGS=${LEARNINGS:-2000}
CALLS=${CALLS:-30}
PROFILE=${PROFILE:-release}

command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
    (cd "$ROOT" && cargo build --profile "$PROFILE" --quiet)
    BIN=$ROOT/target/$PROFILE/ai-rulez
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$BIN" "$WORK" "$LEARNINGS" "$CALLS" <<'PY'
import hashlib, json, os, random, statistics, subprocess, sys, time

binary, work, count, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
random.seed(11)
WORDS = ("cache retry database migration logging error handling pagination auth token "
         "validation schema queue worker metrics tracing config secrets testing fixtures "
         "api endpoint client timeout render component style build deploy").split()

def sentence(size):
    return " ".join(random.choice(WORDS) for _ in range(size))

def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)

def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

root = os.path.join(work, "project")
os.makedirs(os.path.join(root, ".git"))
write(os.path.join(root, ".ai-rulez", "config.toml"),
      b'version = "5.0"\nname = "learned"\npresets = ["claude"]\n')
sources = {}
for number in range(400):
    path = f"src/m{number % 40:02}/f{number:03}.rs"
    data = "".join(f"fn f{line}() {{ {sentence(8)} }}\n" for line in range(40)).encode()
    write(os.path.join(root, path), data)
    sources[path] = data
paths = sorted(sources)
changed = set(random.sample(paths, 14))
for number in range(count):
    chosen = sorted(random.sample(paths, 3))
    lines = "".join(f"  - path: {path}\n    blob: \"{blob_id(sources[path])}\"\n" for path in chosen)
    claim = f"The {sentence(5)} in {chosen[0]} keeps {sentence(6)}."
    write(os.path.join(root, ".ai-rulez", "learnings", f"l{number:05}.md"),
          f"---\nsources:\n{lines}created: 2026-01-01\n---\n{claim}\n".encode())
for path in changed:
    write(os.path.join(root, path), sources[path] + b"// changed\n")
# Files as a checkout leaves them: written an hour ago, not in the last seconds.
an_hour_ago = time.time() - 3600
for folder, _, names in os.walk(root):
    for name in names:
        os.utime(os.path.join(folder, name), (an_hour_ago, an_hour_ago))

def send(process, message):
    process.stdin.write((json.dumps(message) + "\n").encode())
    process.stdin.flush()

def receive(process, wanted):
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("server closed stdout")
        message = json.loads(line)
        if message.get("id") == wanted:
            return message

process = subprocess.Popen([binary, "mcp", "--toolsets", "read,memory"], cwd=root,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
send(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "1"}}})
receive(process, 0)
send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
def cpu_ms(pid):
    # utime + stime of the server process, in clock ticks (fields 14 and 15 of /proc/PID/stat).
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

next_id = 1

def timed(name, arguments):
    """CALLS timed calls (after one untimed): (sorted wall ms, server CPU ms per call, last result)."""
    global next_id
    timings, result, cpu_before = [], None, None
    for number in range(calls + 1):
        if number == 1:
            cpu_before = cpu_ms(process.pid)
        started = time.perf_counter()
        send(process, {"jsonrpc": "2.0", "id": next_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}})
        reply = receive(process, next_id)
        next_id += 1
        elapsed = (time.perf_counter() - started) * 1000
        if "result" not in reply or reply["result"].get("isError"):
            raise SystemExit(f"{name} failed: {reply}")
        result = reply["result"]["structuredContent"]
        if number > 0:  # the first call also loads the project
            timings.append(elapsed)
    return sorted(timings), (cpu_ms(process.pid) - cpu_before) / calls, result

def line(label, timings, cpu):
    print(f"{label}, {calls} calls: p50 {statistics.median(timings):.1f} ms, "
          f"p90 {timings[int(len(timings) * 0.9)]:.1f} ms; server CPU {cpu:.1f} ms per call")

timings, cpu, data = timed("review_learnings", {})
assert len(data["learnings"]) == min(count, 100) and data["omitted"] == max(count - 100, 0)
line(f"review_learnings over {count} learnings ({data['current']} current, {data['stale']} stale, "
     f"{len(data['conflicting'])} conflicting pairs), default listing of 100", timings, cpu)
timings, cpu, data = timed("review_learnings", {"limit": count})
assert len(data["learnings"]) == count, len(data["learnings"])
line(f"review_learnings listing all {count}", timings, cpu)
timings, cpu, data = timed("get_context", {"path": "src/m00"})
line(f"get_context on a folder (serves {len(data.get('learnings', []))} current learnings "
     f"of the {count})", timings, cpu)
process.stdin.close()
process.wait()
with open(os.path.join(work, "root"), "w") as handle:
    handle.write(root)
PY

if command -v hyperfine >/dev/null; then
    (cd "$(cat "$WORK/root")" && hyperfine --warmup 2 --runs 15 --style basic \
        "$BIN learnings --format json")
else
    echo "skipping: hyperfine is not installed (the whole-process timing)"
fi
