#!/usr/bin/env bash
# bench/conventions.sh — speed of `ai-rulez learn conventions` on a 10,000-file tree (release
# build).
#
# The generated tree has 4,000 Rust, 3,000 TypeScript, 2,000 Python and 1,000 Go files of
# 60-200 lines each (about 45 MB), in folders 3 levels deep, with a .gitignore, comments and
# string literals; plus an ignored folder and a node_modules folder the walk must skip. Each run
# is one process (walk, read, lex, tally, JSON out), timed end to end; RUNS runs after one
# untimed warm-up that fills the page cache.
# Target (issue 10): <= 2 s on 2 cores.
#
# Usage: bash bench/conventions.sh        Tunables: FILES=10000 RUNS=5
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
FILES=${FILES:-10000}
RUNS=${RUNS:-5}

command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }
(cd "$ROOT" && cargo build --release --quiet)
BIN=$ROOT/target/release/ai-rulez
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$BIN" "$WORK" "$FILES" "$RUNS" <<'PY'
import json, os, random, statistics, subprocess, sys, time

binary, work, total, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
random.seed(14)
WORDS = "order user price cart item token cache queue report index table event".split()

def name(separator, parts=2):
    return separator.join(random.choice(WORDS) for _ in range(parts))

def rust(lines):
    out = ["//! A module: fn NotCounted() in a comment.", "use crate::shared::Thing;", ""]
    while len(out) < lines:
        n = name("_")
        out += [f"/// Does {n}.", f"pub fn {n}_{len(out)}(value: &str) -> Result<String, Error> {{",
                f"    let text = \"literal with fn Fake() and .unwrap()\";",
                "    let parsed = value.parse::<u32>()?;",
                "    Ok(format!(\"{text}{parsed}\"))", "}", ""]
    return "\n".join(out) + "\n"

def typescript(lines):
    out = ["// import x from \"nowhere\"", "import { helper } from './helper'", ""]
    while len(out) < lines:
        n = name("")
        out += [f"export function {n}{len(out)}(value: string): string {{",
                "  const label = 'a \"quoted\" word'", "  const other = 'plain'",
                "  return helper(label + other + value)", "}", ""]
    return "\n".join(out) + "\n"

def python(lines):
    out = ['"""Docstring with def Fake(): inside."""', "from pkg.core import base", ""]
    while len(out) < lines:
        n = name("_")
        out += [f"def {n}_{len(out)}(value):", "    # a 'comment'", "    text = \"it's\"",
                "    return base(text, \"plain\", value)", "", ""]
    return "\n".join(out) + "\n"

def go(lines):
    out = ["package pkg", "", "import \"fmt\"", ""]
    while len(out) < lines:
        n = name("").capitalize()
        out += [f"func {n}{len(out)}(value string) (string, error) {{",
                "\tresult, err := parse(value)", "\tif err != nil {", "\t\treturn \"\", err", "\t}",
                "\treturn fmt.Sprint(result), nil", "}", ""]
    return "\n".join(out) + "\n"

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)

tree = os.path.join(work, "tree")
os.makedirs(os.path.join(tree, ".git"))
write(os.path.join(tree, ".gitignore"), "ignored/\n")
kinds = [("rs", rust, "_", 0.4), ("ts", typescript, "-", 0.3), ("py", python, "_", 0.2), ("go", go, "_", 0.1)]
size = 0
for extension, make, separator, share in kinds:
    for number in range(int(total * share)):
        folder = os.path.join(tree, extension, f"a{number % 10}", f"b{number % 7}", f"c{number % 13}")
        text = make(random.randint(60, 200))
        size += len(text)
        write(os.path.join(folder, f"{name(separator)}{separator}{number}.{extension}"), text)
for number in range(500):
    write(os.path.join(tree, "ignored", f"f{number}.py"), "def Bad():\n\treturn 1\n")
    write(os.path.join(tree, "node_modules", "dep", f"f{number}.js"), "function Bad() {\n\treturn 1\n}\n")

def run():
    start = time.perf_counter()
    done = subprocess.run([binary, "-C", tree, "learn", "conventions", "--format", "json"],
                          check=True, capture_output=True)
    return time.perf_counter() - start, json.loads(done.stdout)

_, report = run()
assert report["files_scanned"] == total, report["files_scanned"]
times = [run()[0] for _ in range(runs)]
print(f"conventions: {report['files_scanned']} files ({size / 1e6:.1f} MB), {len(report['findings'])} findings, "
      f"{os.cpu_count()} cores")
for finding in report["findings"]:
    print(f"  {finding['language']} {finding['aspect']}: {finding['convention']} {finding['counts']}")
print(f"wall time over {runs} runs: median {statistics.median(times):.3f} s, "
      f"min {min(times):.3f} s, max {max(times):.3f} s (target <= 2 s)")
PY
