#!/usr/bin/env python3
"""Scores what `get_rules` sends against the labelled cases of bench/selection/cases/.

For each project under bench/selection/projects/ that has a cases file, the scorer starts the real
binary's MCP server (`ai-rulez mcp`) in the project folder and calls `get_rules` once per case (`--read-only`, so no usage counts are written into the projects) with
the case's paths and task (`refresh: true`, so no case hides what an earlier one sent). An item counts
as delivered when its full text is in the reply: a rule in `rules`, a context file in `context`, a
skill in `skills` with its body. Per case:

  recall        relevant items delivered / relevant items (cases that need nothing are left out
                of the recall figures and counted apart)
  reply tokens  estimated tokens (bytes / 4, rounded up) of the reply text the model reads
  eligible      estimated tokens of the full text of every rule, context file and skill that
                applies to the case's paths, from `ai-rulez explain <path> --format json` (the
                same binary) with each skill's whole SKILL.md body

It prints, per project, for the tuning and held-out projects and overall: mean recall, the share of
cases with recall 1.0, and the sum of reply tokens as a share of the sum of eligible tokens. The
split between tuning and held-out projects is fixed in HELD_OUT below and was chosen before any
score was seen.

Usage: python3 bench/selection/score.py [--binary PATH] [--verbose] [--json OUT]
"""

import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Projects never used to choose thresholds or weights; numbers on them are reported apart.
# FRESH are held-out projects whose cases were written after the first round of tuning and
# before any change they measure (see README.md); they are reported on their own line too.
FRESH = {"xberg-modules", "decode", "mise-cookbooks"}
HELD_OUT = {"poly", "xberg-core", "ods"} | FRESH


def tokens(text):
    return math.ceil(len(text.encode("utf-8")) / 4)


def body_of(path):
    """The text of a Markdown file after its frontmatter."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1:
            return text[end + 4:].lstrip("\n")
    return text


def skill_file(root, name):
    for folder, _, files in os.walk(os.path.join(root, ".ai-rulez")):
        if os.path.basename(folder) == name and "SKILL.md" in files:
            return os.path.join(folder, "SKILL.md")
    return None


class Server:
    def __init__(self, binary, root):
        self.process = subprocess.Popen([binary, "mcp", "--read-only"], cwd=root, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 1
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "selection-bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()

    def call(self, method, params):
        wanted = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("the MCP server closed its output")
            message = json.loads(line)
            if message.get("id") == wanted:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return message["result"]

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def eligible_items(binary, root, paths):
    """{"kind:id": tokens} of every rule, context file and skill applying to any of `paths`."""
    found = {}
    for path in paths:
        result = subprocess.run([binary, "explain", path, "--format", "json"], cwd=root,
                                capture_output=True, text=True, check=True)
        reply = json.loads(result.stdout)
        if reply.get("cut"):
            print(f"warning: explain cut texts for {path}; eligible tokens are low", file=sys.stderr)
        for entry in reply["entries"]:
            if entry["kind"] not in ("rule", "context", "skill"):
                continue
            key = f"{entry['kind']}:{entry['id']}"
            text = entry["text"]
            if entry["kind"] == "skill":
                location = skill_file(root, entry["id"])
                text = body_of(location) if location else text
            found[key] = tokens(text)
    return found


def delivered(structured):
    items = {f"rule:{rule['id']}" for rule in structured.get("rules", [])}
    items |= {f"context:{entry['id']}" for entry in structured.get("context", [])}
    items |= {f"skill:{entry['id']}" for entry in structured.get("skills", []) if entry.get("body")}
    return items


def summary(results):
    scored = [result for result in results if result["relevant"]]
    reply = sum(result["reply_tokens"] for result in results)
    eligible = sum(result["eligible_tokens"] for result in results)
    return {
        "cases": len(results),
        "needs_nothing": len(results) - len(scored),
        "mean_recall": sum(result["recall"] for result in scored) / len(scored) if scored else 1.0,
        "full_recall_share": sum(result["recall"] == 1.0 for result in scored) / len(scored) if scored else 1.0,
        "token_share": reply / eligible if eligible else 0.0,
        "noise_items": sum(len(result["noise"]) for result in results),
    }


def line(name, numbers):
    return (f"{name:<14} {numbers['cases']:>5} {numbers['needs_nothing']:>7} "
            f"{numbers['mean_recall']:>11.3f} {numbers['full_recall_share'] * 100:>9.1f} % "
            f"{numbers['token_share'] * 100:>9.1f} % {numbers['noise_items']:>6}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(HERE, "..", "..", "target", "debug", "ai-rulez"))
    parser.add_argument("--verbose", action="store_true", help="print every case that misses an item")
    parser.add_argument("--json", help="write per-case results to this file")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    results = {}
    for file in sorted(os.listdir(os.path.join(HERE, "cases"))):
        project = file.removesuffix(".json")
        root = os.path.join(HERE, "projects", project)
        with open(os.path.join(HERE, "cases", file), encoding="utf-8") as handle:
            cases = json.load(handle)
        server = Server(binary, root)
        results[project] = []
        for number, case in enumerate(cases, 1):
            reply = server.call("tools/call", {"name": "get_rules", "arguments": {
                "paths": case["paths"], "task": case["task"], "refresh": True}})
            text = "".join(part.get("text", "") for part in reply["content"])
            got = delivered(reply["structuredContent"])
            relevant = set(case["relevant"])
            eligible = eligible_items(binary, root, case["paths"])
            unknown = (relevant | set(case["acceptable"])) - set(eligible)
            if unknown:
                print(f"note: {project} #{number}: labelled but not eligible: {sorted(unknown)}", file=sys.stderr)
            result = {
                "case": number, "task": case["task"], "relevant": sorted(relevant),
                "missed": sorted(relevant - got),
                "noise": sorted(got - relevant - set(case["acceptable"])),
                "recall": len(relevant & got) / len(relevant) if relevant else 1.0,
                "reply_tokens": tokens(text),
                "eligible_tokens": sum(eligible.values()),
            }
            results[project].append(result)
            if arguments.verbose and (result["missed"] or result["noise"]):
                print(f"{project} #{number} {case['task']!r}: missed {result['missed']} noise {result['noise']}")
        server.close()
    print(f"{'project':<14} {'cases':>5} {'nothing':>7} {'mean recall':>11} {'recall 1.0':>11} {'tokens':>11} {'noise':>6}")
    for project, project_results in results.items():
        marker = " (held out)" if project in HELD_OUT else ""
        print(line(project, summary(project_results)) + marker)
    tuning = [result for project, items in results.items() if project not in HELD_OUT for result in items]
    held = [result for project, items in results.items() if project in HELD_OUT for result in items]
    fresh = [result for project, items in results.items() if project in FRESH for result in items]
    every = [result for items in results.values() for result in items]
    print(line("tuning", summary(tuning)))
    print(line("held out", summary(held)))
    print(line("fresh", summary(fresh)))
    print(line("overall", summary(every)))
    if arguments.json:
        with open(arguments.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
