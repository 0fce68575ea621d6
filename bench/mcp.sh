#!/usr/bin/env bash
# bench/mcp.sh — speed of `ai-rulez mcp` on synthetic projects (release build).
#
#   1. Cold start: a project of 1,500 items over 500 domains (rules with path scopes, context,
#      skills); time from process start to the answer of the first `tools/list` (initialize,
#      initialized, tools/list written at once), median over RUNS runs.
#   2. get_rules latency: a project of 5,000 rules (scoped and global); CALLS calls on one server
#      with varied paths and tasks (refresh on, so every call does the full work), p50 and p99.
#   3. find_skill latency: the same 5,000 rules plus 500 served skills (each with a reference
#      file); the first call (screens and indexes the skills) once, then CALLS calls with varied
#      queries, p50 and p99.
#
# Targets (issue 4): tools/list median <= 100 ms from start; get_rules p50 <= 2 ms, p99 <= 10 ms.
# Target (issue 12): find_skill p50 <= 2 ms, p99 <= 10 ms on 500 skills + 5,000 rules.
# The Go ai-rulez documents 6-8 s cold starts on such monorepos; the ratio is printed.
#
# Usage: bash bench/mcp.sh        Tunables: RUNS=20 CALLS=1000, BIN=path (skip the build and
#                                  measure that binary, e.g. target/release/ai-rulez)
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
RUNS=${RUNS:-20}
CALLS=${CALLS:-1000}

command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
    (cd "$ROOT" && cargo build --profile dist --quiet)
    BIN=$ROOT/target/dist/ai-rulez
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$BIN" "$WORK" "$RUNS" "$CALLS" <<'PY'
import json, os, random, statistics, subprocess, sys, time

binary, work, runs, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
random.seed(4)
WORDS = ("cache retry database migration logging error handling pagination auth token "
         "validation schema queue worker metrics tracing config secrets testing fixtures "
         "api endpoint client timeout render component style accessibility build deploy").split()

def sentence(count):
    return " ".join(random.choice(WORDS) for _ in range(count))

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)

def project(name, make_items):
    root = os.path.join(work, name)
    os.makedirs(os.path.join(root, ".git"))
    write(os.path.join(root, ".ai-rulez", "config.toml"),
          f'version = "5.0"\nname = "{name}"\npresets = ["claude"]\n')
    make_items(os.path.join(root, ".ai-rulez"))
    return root

def rule(folder, name, globs, priority="medium"):
    scope = f"globs: [{', '.join(json.dumps(glob) for glob in globs)}]\n" if globs else ""
    write(os.path.join(folder, "rules", f"{name}.md"),
          f"---\n{scope}priority: {priority}\ntitle: {sentence(4)}\ntriggers: [{random.choice(WORDS)}]\n---\n"
          f"{sentence(60)}\n\n- {sentence(12)}\n- {sentence(12)}\n")

def monorepo(base):
    # 500 domains x (2 scoped rules + 1 context) = 1,500 items.
    for domain in range(500):
        folder = os.path.join(base, "domains", f"d{domain:03}")
        rule(folder, f"d{domain:03}-api", [f"services/s{domain:03}/**/*.rs"])
        rule(folder, f"d{domain:03}-web", [f"apps/a{domain:03}/**/*.{{ts,tsx}}"])
        write(os.path.join(folder, "context", f"d{domain:03}-notes.md"), f"{sentence(80)}\n")

def many_rules(base):
    for number in range(5000):
        kind = number % 10
        if kind == 0:
            globs = []
        elif kind < 6:
            globs = [f"services/s{number % 400:03}/**/*.rs"]
        else:
            globs = [f"apps/a{number % 300:03}/**/*.{{ts,tsx}}", f"apps/a{number % 300:03}/*.css"]
        rule(base, f"r{number:04}", globs, random.choice(["high", "medium", "low"]))

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

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

def start(root):
    # Every toolset, so the listing carries the whole surface (the default serves `read` only).
    return subprocess.Popen([binary, "mcp", "--toolsets", "read,skills,author,admin,learn,memory"], cwd=root, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

big = project("monorepo", monorepo)
starts = []
for _ in range(runs):
    began = time.perf_counter()
    process = start(big)
    for message in (INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
        send(process, message)
    answer = receive(process, 2)
    starts.append((time.perf_counter() - began) * 1000)
    assert len(answer["result"]["tools"]) > 40, answer
    process.stdin.close()
    process.wait()
# The first get_rules loads the project; measured once for the record.
process = start(big)
send(process, INITIALIZE); receive(process, 1); send(process, INITIALIZED)
began = time.perf_counter()
send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_rules", "arguments": {"paths": ["services/s001/src/main.rs"]}}})
first = receive(process, 2)
first_load = (time.perf_counter() - began) * 1000
assert first["result"]["structuredContent"]["rules"], first
process.stdin.close(); process.wait()

many = project("many", many_rules)
process = start(many)
send(process, INITIALIZE); receive(process, 1); send(process, INITIALIZED)
began = time.perf_counter()
send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "get_rules", "arguments": {"paths": ["services/s000/a.rs"]}}})
receive(process, 2)
many_load = (time.perf_counter() - began) * 1000
latencies = []
sent_rules = 0
for call in range(calls):
    paths = [random.choice([f"services/s{random.randrange(400):03}/src/lib.rs",
                            f"apps/a{random.randrange(300):03}/src/App.tsx",
                            f"apps/a{random.randrange(300):03}/main.css",
                            "README.md"]) for _ in range(random.randint(1, 3))]
    arguments = {"paths": paths, "refresh": True}
    if call % 4:
        arguments["task"] = sentence(random.randint(3, 12))
    request = {"jsonrpc": "2.0", "id": 10 + call, "method": "tools/call",
               "params": {"name": "get_rules", "arguments": arguments}}
    began = time.perf_counter()
    send(process, request)
    answer = receive(process, 10 + call)
    latencies.append((time.perf_counter() - began) * 1000)
    assert not answer["result"].get("isError"), answer
    sent_rules += len(answer["result"]["structuredContent"]["rules"])
process.stdin.close(); process.wait()

def many_skills(base):
    many_rules(base)
    for number in range(500):
        folder = os.path.join(base, "skills", f"s{number:03}-{random.choice(WORDS)}")
        write(os.path.join(folder, "SKILL.md"),
              f"---\ndescription: {sentence(12)}\ntriggers: [{random.choice(WORDS)} {random.choice(WORDS)}]\n---\n"
              f"# {sentence(3)}\n\n{sentence(120)}\n")
        write(os.path.join(folder, "references", "notes.md"), f"{sentence(200)}\n")

skills_root = project("skills", many_skills)
with open(os.path.join(skills_root, ".ai-rulez", "config.toml"), "a", encoding="utf-8") as handle:
    handle.write('\n[skills]\ndelivery = "served"\n')
process = start(skills_root)
send(process, INITIALIZE); receive(process, 1); send(process, INITIALIZED)
began = time.perf_counter()
send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "find_skill", "arguments": {"query": "database migration"}}})
answer = receive(process, 2)
skills_load = (time.perf_counter() - began) * 1000
assert answer["result"]["structuredContent"]["served"] == 500, answer
skill_latencies = []
found_skills = 0
for call in range(calls):
    query = sentence(random.randint(2, 8))
    request = {"jsonrpc": "2.0", "id": 10 + call, "method": "tools/call",
               "params": {"name": "find_skill", "arguments": {"query": query, "limit": 5}}}
    began = time.perf_counter()
    send(process, request)
    answer = receive(process, 10 + call)
    skill_latencies.append((time.perf_counter() - began) * 1000)
    assert not answer["result"].get("isError"), answer
    found_skills += len(answer["result"]["structuredContent"]["skills"])
process.stdin.close(); process.wait()
skill_latencies.sort()

latencies.sort()
def percentile(share, values=None):
    values = latencies if values is None else values
    return values[min(len(values) - 1, int(share * len(values)))]
median_start = statistics.median(starts)
print(f"cold start to first tools/list, 1,500 items / 500 domains: median {median_start:.1f} ms "
      f"(min {min(starts):.1f}, max {max(starts):.1f}, {runs} runs; target <= 100 ms)")
print(f"first get_rules on that project (loads and indexes it): {first_load:.1f} ms")
print(f"first get_rules on 5,000 rules (load + index): {many_load:.1f} ms")
print(f"get_rules on 5,000 rules, {calls} calls: p50 {percentile(0.50):.2f} ms, "
      f"p99 {percentile(0.99):.2f} ms, max {latencies[-1]:.2f} ms "
      f"(targets p50 <= 2 ms, p99 <= 10 ms; {sent_rules / calls:.1f} rules sent per call)")
print(f"first find_skill on 500 skills + 5,000 rules (load, screen, index): {skills_load:.1f} ms")
print(f"find_skill on 500 skills + 5,000 rules, {calls} calls: p50 {percentile(0.50, skill_latencies):.2f} ms, "
      f"p99 {percentile(0.99, skill_latencies):.2f} ms, max {skill_latencies[-1]:.2f} ms "
      f"(targets p50 <= 2 ms, p99 <= 10 ms; {found_skills / calls:.1f} skills returned per call)")
for go_seconds in (6, 8):
    print(f"Go ai-rulez documented cold start {go_seconds} s: ours is "
          f"{go_seconds * 1000 / median_start:.0f}x faster to tools/list, "
          f"{go_seconds * 1000 / (median_start + first_load):.0f}x faster to the first rules")
PY
