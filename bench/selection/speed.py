#!/usr/bin/env python3
"""get_rules latency on 5,000 items (4,300 rules, 500 context files, 200 skills; scoped and global).

Writes the project into a temporary folder, starts `ai-rulez mcp --read-only` once, loads the
project with a first call (timed apart), then makes CALLS calls with varied paths and tasks
(`refresh: true`, so every call does the full work) and prints p50, p99 and the maximum in
milliseconds, measured from writing the request to reading the answer, and the server's CPU time
per call (which a busy machine inflates less than the wall-clock latencies).

Usage: cargo build --profile dist && python3 bench/selection/speed.py target/dist/ai-rulez [CALLS]
"""

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

WORDS = ("cache retry database migration logging error handling pagination auth token validation "
         "schema queue worker metrics tracing config secrets testing fixtures api endpoint client "
         "timeout render component style accessibility build deploy release changelog flag").split()


def sentence(count):
    return " ".join(random.choice(WORDS) for _ in range(count))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def scope(number):
    kind = number % 10
    if kind == 0:
        return ""
    if kind < 6:
        return f'paths: ["services/s{number % 400:03}/**/*.rs"]\n'
    return f'paths: ["apps/a{number % 300:03}/**/*.{{ts,tsx}}", "apps/a{number % 300:03}/*.css"]\n'


def project(root):
    base = os.path.join(root, ".ai-rulez")
    os.makedirs(os.path.join(root, ".git"))
    write(os.path.join(base, "config.toml"), 'version = "5.0"\nname = "speed"\npresets = ["claude"]\n')
    for number in range(4300):
        write(os.path.join(base, "rules", f"r{number:04}.md"),
              f"---\n{scope(number)}priority: {random.choice(['high', 'medium', 'low'])}\n"
              f"title: {sentence(4)}\ntriggers: [{random.choice(WORDS)}]\n---\n"
              f"{sentence(60)}\n\n- {sentence(12)}\n- {sentence(12)}\n")
    for number in range(500):
        write(os.path.join(base, "context", f"c{number:03}.md"),
              f"---\n{scope(number)}description: {sentence(8)}\n---\n{sentence(120)}\n")
    for number in range(200):
        write(os.path.join(base, "skills", f"s{number:03}", "SKILL.md"),
              f"---\nname: s{number:03}\ndescription: {sentence(12)}\n---\n{sentence(200)}\n")


def cpu_seconds(pid):
    """User plus system CPU time of process `pid` in seconds (Linux /proc), or 0 elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def main():
    binary = os.path.abspath(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    random.seed(12)
    with tempfile.TemporaryDirectory() as root:
        project(root)
        process = subprocess.Popen([binary, "mcp", "--read-only"], cwd=root, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

        def call(identifier, method, params):
            process.stdin.write((json.dumps({"jsonrpc": "2.0", "id": identifier, "method": method,
                                             "params": params}) + "\n").encode())
            process.stdin.flush()
            while True:
                message = json.loads(process.stdout.readline())
                if message.get("id") == identifier:
                    return message

        call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "speed", "version": "0"}})
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        began = time.perf_counter()
        first = call(2, "tools/call", {"name": "get_rules", "arguments": {
            "paths": ["services/s001/src/lib.rs"], "task": "add retry to the client"}})
        load = (time.perf_counter() - began) * 1000
        assert not first["result"].get("isError"), first
        latencies = []
        cpu_before = cpu_seconds(process.pid)
        for number in range(calls):
            paths = [random.choice([f"services/s{random.randrange(400):03}/src/lib.rs",
                                    f"apps/a{random.randrange(300):03}/src/App.tsx",
                                    f"apps/a{random.randrange(300):03}/main.css", "README.md"])
                     for _ in range(random.randint(1, 3))]
            arguments = {"paths": paths, "refresh": True, "task": sentence(random.randint(3, 12))}
            began = time.perf_counter()
            answer = call(10 + number, "tools/call", {"name": "get_rules", "arguments": arguments})
            latencies.append((time.perf_counter() - began) * 1000)
            assert not answer["result"].get("isError"), answer
        cpu = cpu_seconds(process.pid) - cpu_before
        process.stdin.close()
        process.wait()
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"5,000 items: first call (loads the project) {load:.1f} ms; "
          f"{calls} calls: p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {latencies[-1]:.2f} ms; "
          f"server CPU time {cpu * 1000 / calls:.2f} ms per call (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
