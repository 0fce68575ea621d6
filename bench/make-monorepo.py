#!/usr/bin/env python3
"""Writes a synthetic monorepo .ai-rulez/ tree for benchmarks.

usage: make-monorepo.py DIR ITEMS DOMAINS

ITEMS rule files are spread evenly over DOMAINS domains (domains/d<k>/rules/r<i>.md); every
tenth item is a skill (domains/d<k>/skills/s<i>/SKILL.md). Each rule is scoped to its domain's
source folder, as in a real monorepo. One profile selects every domain, and the claude preset is
enabled so `generate` writes one output per rule.
"""
import os
import sys

directory, items, domains = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
base = os.path.join(directory, ".ai-rulez")
os.makedirs(base, exist_ok=True)
with open(os.path.join(base, "config.toml"), "w") as config:
    # `default` must come before `[profiles]`, or TOML reads it as a key of that table.
    config.write('version = "5.0"\nname = "monorepo"\npresets = ["claude"]\ndefault = "all"\n\n[profiles]\n')
    names = ", ".join(f'"d{k}"' for k in range(domains))
    config.write(f"all = [{names}]\n")
for i in range(items):
    domain = f"d{i % domains}"
    if i % 10 == 9:
        folder = os.path.join(base, "domains", domain, "skills", f"s{i}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "SKILL.md"), "w") as skill:
            skill.write(f"---\nname: s{i}\ndescription: Workflow {i} for {domain}\n---\nRun the checks for task family {i}.\n")
        continue
    folder = os.path.join(base, "domains", domain, "rules")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"r{i}.md"), "w") as rule:
        rule.write(
            f"---\npriority: medium\npaths: [\"services/{domain}/**/*.rs\"]\n---\n"
            f"# Rule {i}\n\nKeep handlers in {domain} small; errors use the crate error type.\n"
        )
