#!/usr/bin/env bash
# bench/learn-reviews.sh — speed of `learn_from_reviews` on 1,000 review comments (release build).
#
# A generated JSON file of 1,000 pull-request review comments in GitHub's REST shape (two pages
# written back to back, as `gh api --paginate` prints them): 60 requests reworded and repeated by
# members across 400 paths, plus bots, outsiders, agreement replies, praise, questions, comments
# with hidden characters and old ones in the proportions a busy repository shows. The project has
# 1,000 rules, some of which the comments repeat (the known-rule check runs for real).
# `ai-rulez learn reviews --from FILE --format json` runs once per measurement, the whole process
# (start, project load, read, filters, grouping, known-rule check, ledger write); the ledger is
# removed before each run so every run does the full work.
# Target (issue 10): <= 200 ms on 1,000 comments.
#
# Usage: bash bench/learn-reviews.sh        Tunables: RUNS=30
# A separate script from bench/learning.sh so the learning benches can grow without merge churn.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
RUNS=${RUNS:-30}

command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }
(cd "$ROOT" && cargo build --release --quiet)
BIN=$ROOT/target/release/ai-rulez
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK" <<'PY'
import json, os, random, sys

work = sys.argv[1]
random.seed(1000)
root = os.path.join(work, "project")
os.makedirs(os.path.join(root, ".git"))
os.makedirs(os.path.join(root, ".ai-rulez", "rules"))
with open(os.path.join(root, ".ai-rulez", "config.toml"), "w") as handle:
    handle.write('version = "5.0"\nname = "bench"\npresets = ["claude"]\n')

TOPICS = ("cache retry database migration logging error pagination auth token validation schema "
          "queue worker metrics tracing config secret fixture endpoint client timeout component "
          "accessibility deploy handler repository builder iterator allocation lifetime").split()
VERBS = ("Use", "Prefer", "Always use", "Never use", "Avoid", "Keep", "Return", "Wrap")

def request(number):
    rng = random.Random(number)
    words = rng.sample(TOPICS, 4)
    return f"{rng.choice(VERBS)} the {words[0]} {words[1]} for {words[2]} {words[3]} code"

for number in range(1000):
    body = request(10_000 + number) + "."
    if number < 10:
        body = request(number) + "."  # these repeat review requests 0-9: already known
    with open(os.path.join(root, ".ai-rulez", "rules", f"r{number:04}.md"), "w") as handle:
        handle.write(f"---\ntitle: Rule {number}\n---\n{body}\n")

def comment(number, body, association="MEMBER", login="alice", kind="User", day="2025-12-01", reply=None):
    return {
        "id": number, "user": {"login": login, "type": kind}, "author_association": association,
        "created_at": f"{day}T10:00:00Z", "html_url": f"https://github.com/acme/shop/pull/{number // 7}#discussion_r{number}",
        "path": f"src/module{number % 400}/file.rs", "body": body, "in_reply_to_id": reply,
        "diff_hunk": "@@ -1,3 +1,4 @@ " + "x" * 200,
    }

comments = []
for number in range(1000):
    slot = number % 20
    if slot == 0:
        comments.append(comment(number, "Bump the lockfile.", login="dependabot[bot]", kind="Bot"))
    elif slot == 1:
        comments.append(comment(number, request(number % 60) + ".", association="CONTRIBUTOR", login="dave"))
    elif slot == 2:
        comments.append(comment(number, "+1, agreed", reply=number - 1))
    elif slot == 3:
        comments.append(comment(number, "Nice refactor, thanks!"))
    elif slot == 4:
        comments.append(comment(number, f"Why not {request(number).lower()}?"))
    elif slot == 5:
        comments.append(comment(number, request(number % 60) + "\u202e here."))
    elif slot == 6:
        comments.append(comment(number, request(number % 60) + ".", day="2025-01-01"))
    else:
        prefix = random.choice(("", "nit: ", "Please ", "We should "))
        text = request(number % 60)
        comments.append(comment(number, f"{prefix}{text[0].lower() if prefix else text[0]}{text[1:]}. "
                                f"See the guide for details.\n\n```suggestion\nlet value = build();\n```"))
with open(os.path.join(work, "comments.json"), "w") as handle:
    handle.write(json.dumps(comments[:500]) + json.dumps(comments[500:]) + "\n")
PY

cd "$WORK/project"
export SOURCE_DATE_EPOCH=1767225600
"$BIN" learn reviews --from "$WORK/comments.json" --format json > "$WORK/reply.json"
python3 - "$WORK/reply.json" <<'PY'
import json, sys
reply = json.load(open(sys.argv[1]))
print(f"read {reply['read']}, skipped {reply['skipped']}, candidates {len(reply['candidates'])}, "
      f"already known {len(reply['already_known'])}, more {reply['more']}")
PY
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs "$RUNS" --prepare "rm -f .ai-rulez/local/ledger.json" \
    --export-json "$WORK/hyperfine.json" \
    "$BIN learn reviews --from $WORK/comments.json --format json" >/dev/null
  python3 - "$WORK/hyperfine.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
times = sorted(result["times"])
print(f"learn reviews, 1,000 comments, 1,000 rules: median {result['median'] * 1000:.1f} ms, "
      f"max {times[-1] * 1000:.1f} ms over {len(times)} runs (target <= 200 ms)")
PY
else
  python3 - "$BIN" "$WORK/comments.json" "$RUNS" <<'PY'
import os, subprocess, sys, time
binary, comments, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for _ in range(runs):
    if os.path.exists(".ai-rulez/local/ledger.json"):
        os.remove(".ai-rulez/local/ledger.json")
    began = time.perf_counter()
    subprocess.run([binary, "learn", "reviews", "--from", comments, "--format", "json"],
                   check=True, stdout=subprocess.DEVNULL)
    times.append((time.perf_counter() - began) * 1000)
times.sort()
print(f"learn reviews, 1,000 comments, 1,000 rules: median {times[len(times) // 2]:.1f} ms, "
      f"max {times[-1]:.1f} ms over {runs} runs (target <= 200 ms)")
PY
fi
