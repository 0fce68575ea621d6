#!/usr/bin/env python3
"""Writes a synthetic .ai-rulez/ tree of a given number of rules, for the scaling benchmark.

usage: make-scale.py DIR RULES

The tree is the same shape at every size, so only the size changes between runs:
- presets claude, cursor and copilot; the managed .gitignore block on;
- a tenth of the rules in .ai-rulez/rules/, the rest spread over RULES/100 domains
  (domains/d<k>/rules/), every domain selected (no profiles);
- per 20 rules: 2 global, 13 path-scoped (Rust services, TypeScript apps with a brace glob, docs),
  4 tagged with triggers (half of them also path-scoped), 1 with a description and
  `activation: auto` (Cursor expresses it; Claude and Copilot write it always-on with a warning);
- priorities cycle through critical (rare), high, medium and low;
- one context item per 500 rules and one skill per 1,000 rules.
Text comes from a fixed seed, so two runs with the same arguments write the same bytes.
"""
import os
import random
import sys

directory, rules = sys.argv[1], int(sys.argv[2])
random.seed(58)
WORDS = ("cache retry database migration logging error handling pagination auth token "
         "validation schema queue worker metrics tracing config secrets testing fixtures "
         "api endpoint client timeout render component style accessibility build deploy "
         "index transaction lock batch stream parser encoder session cookie header").split()
PRIORITIES = ["high", "medium", "medium", "low", "medium", "high", "low", "medium"]
domains = max(1, rules // 100)
base = os.path.join(directory, ".ai-rulez")


def sentence(count):
    return " ".join(random.choice(WORDS) for _ in range(count))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def frontmatter(number):
    """The frontmatter lines of rule `number`, following the mix in the module comment."""
    kind = number % 20
    service = f"services/s{number % 700:03}"
    app = f"apps/a{number % 300:03}"
    priority = "critical" if number % 997 == 0 else PRIORITIES[number % len(PRIORITIES)]
    lines = [f"priority: {priority}"]
    if kind < 2:
        pass
    elif kind < 9:
        lines.append(f'paths: ["{service}/**/*.rs"]')
    elif kind < 13:
        lines.append(f'paths: ["{app}/**/*.{{ts,tsx}}", "{app}/*.css"]')
    elif kind < 15:
        lines.append(f'paths: ["docs/{WORDS[number % len(WORDS)]}/**"]')
    elif kind < 19:
        triggers = ", ".join(sorted({random.choice(WORDS) for _ in range(3)}))
        lines.append(f"triggers: [{triggers}]")
        if kind >= 17:
            lines.append(f'paths: ["{service}/**"]')
    else:
        lines.append(f'description: "Use when the change touches {sentence(4)}"')
        lines.append("activation: auto")
    return lines


def rule_text(number):
    head = "\n".join(frontmatter(number))
    title = f"Rule {number}: {sentence(3)}"
    return (f"---\n{head}\n---\n# {title}\n\n{sentence(30)}.\n\n"
            f"- {sentence(10)}.\n- {sentence(10)}.\n- {sentence(8)}.\n")


config_text = (f'version = "5.0"\nname = "scale-{rules}"\n'
               'presets = ["claude", "cursor", "copilot"]\ngitignore = true\n')
write(os.path.join(base, "config.toml"), config_text)
for number in range(rules):
    if number % 10 == 0:
        folder = os.path.join(base, "rules")
    else:
        folder = os.path.join(base, "domains", f"d{number % domains:04}", "rules")
    write(os.path.join(folder, f"r{number:06}.md"), rule_text(number))
for number in range(max(1, rules // 500)):
    write(os.path.join(base, "context", f"c{number:04}.md"),
          f"# Context {number}\n\n{sentence(40)}.\n")
for number in range(max(1, rules // 1000)):
    write(os.path.join(base, "skills", f"s{number:04}", "SKILL.md"),
          f"---\nname: s{number:04}\ndescription: Workflow for {sentence(3)}\n---\n"
          f"1. {sentence(8)}.\n2. {sentence(8)}.\n")
