#!/usr/bin/env python3
"""Drives `ai-rulez mcp` with the official Python MCP SDK (`mcp` from PyPI), a third-party client.

Usage: python tests/mcp_client.py PATH/TO/ai-rulez

Builds a small project in a temporary directory, then: initialize, list the default tools (exact
names, at most 12 KB), call get_rules, search_rules, get_context, enable the author toolset
(which must send notifications/tools/list_changed), create_rule, and update_rule with a stale
expected_hash. Then the learning loop: enable the learn toolset, record_feedback saves a pending
rule file, `ai-rulez review approve` (the CLI, as a person would) activates it, and get_rules
serves it. Then team memory: enable the memory toolset, write_memory saves a memory of `src/db`,
a second writer changes it, the first writer's update_memory with its stale expected_version_id
is refused with the current version and text, it merges and retries, and get_context lists the
memory. Then skills on demand: a served skill written by hand is found with find_skill, loaded
within a byte budget, its reference read in a window and as a skill:// resource whose sha256 digest
matches. Every answer is compared exactly; the script prints each check and exits non-zero on
the first failure.
"""

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

CONFIG = 'version = "5.0"\nname = "demo"\npresets = ["claude"]\n'
DEFAULT_TOOLS = [
    "enable_toolset",
    "get_rules",
    "search_rules",
    "get_context",
    "read_item",
    "list_items",
    "list_domains",
]
AUTHOR_TOOLS = [
    f"{verb}_{kind}"
    for kind in ["rule", "context", "skill", "agent", "command"]
    for verb in ["create", "update", "delete"]
] + ["create_domain", "delete_domain"]
RULES = {
    "style": "---\npriority: medium\ntitle: Code style\n---\nKeep functions short.\n",
    "rust": '---\nglobs: ["**/*.rs"]\npriority: high\ntitle: Rust errors\n---\n'
    "Return typed errors; never unwrap input.\n",
    "database": '---\nglobs: "src/db/**"\ntitle: Database access\ntriggers: [migration, query]\n---\n'
    "Use the query builder for every migration.\n",
}


EPOCH_2026 = "1767225600"
LEARNED = "Use the repository layer for database access."
LEARNED_ID = "use-the-repository-layer-for-database"
LEARNED_FILE = (
    "---\ntitle: Use the repository layer for database\nscope: section:src/db\nstatus: pending\n"
    "source: feedback\nevidence: user said so\ncreated: 2026-01-01\n---\n" + LEARNED + "\n"
)


SKILL_TOOLS = ["find_skill", "load_skill", "list_skill_resources", "read_skill_file"]
SKILL_MD = "---\ndescription: Cut a release and publish its notes.\ndelivery: served\n---\nTag, push, then publish.\n"
SERVED_SKILL_MD = "---\nname: release\ndescription: Cut a release and publish its notes.\n---\nTag, push, then publish.\n"
STEPS = "1. Tag.\n2. Push.\n"


MEMORY_TOOLS = [
    "list_memories",
    "read_memory",
    "write_memory",
    "update_memory",
    "delete_memory",
    "restore_memory",
    "get_tree",
    "resolve",
    "read_items",
    "record_learning",
    "review_learnings",
    "retire_learning",
    "request_refresh",
    "list_refresh_requests",
    "resolve_refresh",
    "log_activity",
    "recent_activity",
]
MEMORY_PATH = ".ai-rulez/memories/src/db/migrations.md"


def sha256(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def check(label, actual, expected):
    if actual != expected:
        print(f"FAIL {label}\n  expected: {expected!r}\n  actual:   {actual!r}")
        sys.exit(1)
    print(f"ok   {label}")


def make_project(root):
    os.makedirs(os.path.join(root, ".git"))
    os.makedirs(os.path.join(root, ".ai-rulez", "rules"))
    with open(os.path.join(root, ".ai-rulez", "config.toml"), "w", encoding="utf-8") as handle:
        handle.write(CONFIG)
    for name, text in RULES.items():
        with open(os.path.join(root, ".ai-rulez", "rules", f"{name}.md"), "w", encoding="utf-8") as handle:
            handle.write(text)
    # A folder of the repository for team memories to attach to.
    os.makedirs(os.path.join(root, "src", "db"))


async def run(binary, root):
    # Days are fixed at 2026-01-01 (the `created` date of learned rules).
    parameters = StdioServerParameters(
        command=binary, args=["mcp"], cwd=root, env={"SOURCE_DATE_EPOCH": EPOCH_2026}
    )
    list_changed = asyncio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            list_changed.set()

    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            initialized = await session.initialize()
            check("initialize: server name", initialized.server_info.name, "ai-rulez")
            check("initialize: tools capability", initialized.capabilities.tools is not None, True)
            check("initialize: tools listChanged", initialized.capabilities.tools.list_changed, True)

            listed = await session.list_tools()
            names = [tool.name for tool in listed.tools]
            check("tools/list: the default toolset's tools", names, DEFAULT_TOOLS)
            check("tools/list: no pagination", listed.next_cursor, None)
            size = len(
                json.dumps(
                    {"tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]},
                    separators=(",", ":"),
                    ensure_ascii=False,
                ).encode()
            )
            print(f"     default tools/list: {size} bytes")
            check("tools/list: at most 12 KB", size <= 12 * 1024, True)
            get_rules = next(tool for tool in listed.tools if tool.name == "get_rules")
            check("get_rules: read-only hint", get_rules.annotations.read_only_hint, True)
            check("get_rules: closed input schema", get_rules.input_schema.get("additionalProperties"), False)
            check("get_rules: output schema", get_rules.output_schema.get("type"), "object")

            result = await session.call_tool(
                "get_rules", {"paths": ["src/db/schema.rs"], "task": "write a migration for orders"}
            )
            check("get_rules: not an error", result.is_error, False)
            data = result.structured_content
            check(
                "get_rules: relevant rule sent in full",
                data["rules"],
                [
                    {
                        "id": "database",
                        "title": "Database access",
                        "priority": "medium",
                        "scope": "src/db/**",
                        "reason": "scope matches; task words: migration (triggers)",
                        "body": "Use the query builder for every migration.",
                    }
                ],
            )
            check(
                "get_rules: other covering rules named",
                data["others"],
                [
                    {"kind": "rule", "id": "rust", "title": "Rust errors", "summary": "Rust errors"},
                    {"kind": "rule", "id": "style", "title": "Code style", "summary": "Code style"},
                ],
            )
            check("get_rules: text carries the rule", "Use the query builder" in result.content[0].text, True)

            result = await session.call_tool("search_rules", {"query": "typed errors"})
            check("search_rules: not an error", result.is_error, False)
            check("search_rules: best match", [rule["id"] for rule in result.structured_content["rules"]], ["rust"])

            result = await session.call_tool("get_context", {"path": "src/db/schema.rs"})
            check("get_context: not an error", result.is_error, False)
            check(
                "get_context: entries nearest first",
                [(entry["kind"], entry["id"]) for entry in result.structured_content["entries"]],
                [("rule", "rust"), ("rule", "database"), ("rule", "style")],
            )

            # The SDK checks structured content against the output schema: `description` is null
            # for these rules, which the schema must allow.
            result = await session.call_tool("list_items", {"kind": "rule"})
            check("list_items: not an error", result.is_error, False)
            check(
                "list_items: rules with null descriptions",
                [(item["name"], item["description"]) for item in result.structured_content["items"]],
                [("rust", None), ("database", None), ("style", None)],
            )
            check(
                "list_items: one page holds every rule",
                result.structured_content["page"],
                {"offset": 0, "total": 3, "next_offset": None},
            )

            result = await session.call_tool("enable_toolset", {"toolset": "author"})
            check("enable_toolset: not an error", result.is_error, False)
            check(
                "enable_toolset: reply",
                result.structured_content,
                {"toolsets": ["read", "author"], "added": AUTHOR_TOOLS},
            )
            # A hang guard, not a speed check: the notification comes before the reply.
            await asyncio.wait_for(list_changed.wait(), timeout=60)
            check("enable_toolset: tools/list_changed received", list_changed.is_set(), True)
            listed = await session.list_tools()
            check("tools/list after enable: default + author", [tool.name for tool in listed.tools], DEFAULT_TOOLS + AUTHOR_TOOLS)

            content = "---\npriority: low\n---\nLog with context.\n"
            result = await session.call_tool("create_rule", {"name": "logging", "content": content})
            check("create_rule: not an error", result.is_error, False)
            check(
                "create_rule: record",
                result.structured_content,
                {"name": "logging", "path": ".ai-rulez/rules/logging.md", "content": content, "hash": sha256(content)},
            )
            with open(os.path.join(root, ".ai-rulez", "rules", "logging.md"), encoding="utf-8") as handle:
                check("create_rule: file written", handle.read(), content)

            stale = sha256("something older\n")
            result = await session.call_tool(
                "update_rule", {"name": "logging", "content": "Changed.\n", "expected_hash": stale}
            )
            check("update_rule (stale hash): error result", result.is_error, True)
            check(
                "update_rule (stale hash): message names the current hash",
                result.content[0].text,
                f".ai-rulez/rules/logging.md: changed since you read it (expected_hash {stale}, "
                f"current hash {sha256(content)}); read it again, merge your change, and retry with the current hash",
            )
            with open(os.path.join(root, ".ai-rulez", "rules", "logging.md"), encoding="utf-8") as handle:
                check("update_rule (stale hash): file unchanged", handle.read(), content)

            await learning_loop(session, binary, root)
            await memory_loop(session, root)
            await learnings(session, root)
            await skills_on_demand(session, root)
            await nested_context(session, root)


async def learning_loop(session, binary, root):
    """record_feedback -> pending file -> `ai-rulez review approve` -> served by get_rules."""
    result = await session.call_tool("enable_toolset", {"toolset": "learn"})
    check("enable_toolset learn: not an error", result.is_error, False)
    check(
        "enable_toolset learn: tools added",
        result.structured_content["added"],
        [
            "record_feedback",
            "propose_rules",
            "organize_rules",
            "tag_rules",
            "learn_from_reviews",
            "discover_conventions",
        ],
    )
    result = await session.call_tool(
        "record_feedback",
        {"rule": LEARNED, "paths": ["src/db/orders.rs"], "evidence": "user said so"},
    )
    check("record_feedback: not an error", result.is_error, False)
    check(
        "record_feedback: saved pending",
        (result.structured_content["outcome"], result.structured_content["status"], result.structured_content["id"]),
        ("saved", "pending", LEARNED_ID),
    )
    check(
        "record_feedback: says how to approve",
        f"ai-rulez review approve {LEARNED_ID}" in result.content[0].text,
        True,
    )
    path = os.path.join(root, ".ai-rulez", "rules", f"{LEARNED_ID}.md")
    with open(path, encoding="utf-8") as handle:
        check("record_feedback: pending rule file", handle.read(), LEARNED_FILE)

    def served():
        return session.call_tool(
            # Without a task every rule that applies to the path is sent.
            "get_rules", {"paths": ["src/db/orders.rs"], "refresh": True}
        )

    result = await served()
    check("get_rules: the pending rule is not served", LEARNED_ID in [rule["id"] for rule in result.structured_content["rules"]], False)

    approved = subprocess.run(
        [binary, "review", "approve", LEARNED_ID], cwd=root, capture_output=True, text=True, check=False
    )
    check("review approve: exit code", approved.returncode, 0)
    check(
        "review approve: output",
        approved.stdout,
        f"approved: rule `{LEARNED_ID}` is active (.ai-rulez/rules/{LEARNED_ID}.md)\n",
    )
    with open(path, encoding="utf-8") as handle:
        check(
            "review approve: an ordinary file edit (status removed)",
            handle.read(),
            LEARNED_FILE.replace("status: pending\n", ""),
        )

    result = await served()
    check("get_rules: the approved rule is served", LEARNED_ID in [rule["id"] for rule in result.structured_content["rules"]], True)


async def nested_context(session, root):
    """enable context -> find_context for a nested path -> load_context -> resources/read."""
    agents = "# API conventions\n\nEvery handler validates its input.\n"
    rule = '---\npaths: "handlers/**"\ndescription: How handlers report errors\n---\nReturn problem+json.\n'
    for relative, text in (("pkg/api/AGENTS.md", agents), ("pkg/api/.claude/rules/handlers.md", rule)):
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    result = await session.call_tool("enable_toolset", {"toolset": "context"})
    check("enable_toolset context: tools added", result.structured_content["added"], ["find_context", "load_context"])
    result = await session.call_tool("find_context", {"path": "pkg/api/handlers/user.go"})
    check("find_context: not an error", result.is_error, False)
    check(
        "find_context: nested scope, rule relative to it",
        [(found["kind"], found["scope"], found["name"], found["uri"]) for found in result.structured_content["results"]],
        [
            ("instruction", "pkg/api", "AGENTS.md", "context://pkg/api/AGENTS.md"),
            ("rule", "pkg/api", "handlers", "context://pkg/api/.claude/rules/handlers.md"),
        ],
    )
    result = await session.call_tool("load_context", {"uri": "context://pkg/api/AGENTS.md"})
    check("load_context: not an error", result.is_error, False)
    check("load_context: text", result.structured_content["text"], agents)
    check("load_context: hash", result.structured_content["hash"], sha256(agents))
    read = await session.read_resource("context://pkg/api/.claude/rules/handlers.md")
    check("resources/read context://: text", read.contents[0].text, rule)


def memory_file(root):
    with open(os.path.join(root, MEMORY_PATH), encoding="utf-8") as handle:
        return handle.read()


async def memory_loop(session, root):
    """write_memory -> a second writer updates -> a stale update conflicts -> merge -> get_context."""
    result = await session.call_tool("enable_toolset", {"toolset": "memory"})
    check("enable_toolset memory: tools added", result.structured_content["added"], MEMORY_TOOLS)
    result = await session.call_tool(
        "write_memory",
        {"node_path": "src/db", "title": "Migrations", "content": "Migrations run in order.\n"},
    )
    check("write_memory: not an error", result.is_error, False)
    check("write_memory: id", result.structured_content["id"], "src/db/migrations")
    first = result.structured_content["version_id"]
    check("write_memory: version_id is the file's digest", first, sha256(memory_file(root)))

    # Another writer (here the same session) changes the memory first.
    result = await session.call_tool(
        "update_memory",
        {
            "id": "src/db/migrations",
            "edit": {"old": "run in order.", "new": "run in order, never edited."},
            "expected_version_id": first,
        },
    )
    check("update_memory (second writer): not an error", result.is_error, False)
    second = result.structured_content["version_id"]

    # The first writer still holds the first version: refused, with the current state.
    result = await session.call_tool(
        "update_memory",
        {
            "id": "src/db/migrations",
            "content": "Migrations run in order.\nEach one is reversible.\n",
            "expected_version_id": first,
        },
    )
    check("update_memory (stale version): is an error", result.is_error, True)
    check(
        "update_memory (stale version): current version and text",
        result.content[0].text,
        f"`src/db/migrations` changed since you read it (expected_version_id {first}, current version_id {second}); "
        f"nothing was saved. Merge your change into the current content below and call again with expected_version_id {second}."
        "\ncurrent content:\nMigrations run in order, never edited.\n",
    )
    current_text = result.content[0].text.split("current content:\n", 1)[1]
    merged = current_text + "Each one is reversible.\n"
    result = await session.call_tool(
        "update_memory",
        {"id": "src/db/migrations", "content": merged, "expected_version_id": second},
    )
    check("update_memory (merged): not an error", result.is_error, False)
    check(
        "update_memory (merged): both changes kept",
        result.structured_content["content"],
        "Migrations run in order, never edited.\nEach one is reversible.\n",
    )
    check("update_memory (merged): new version", result.structured_content["version_id"], sha256(memory_file(root)))

    result = await session.call_tool("get_context", {"path": "src/db/schema.rs", "verbose": True})
    memories = [entry for entry in result.structured_content["entries"] if entry["kind"] == "memory"]
    check(
        "get_context: the memory of src/db, in full",
        memories,
        [
            {
                "kind": "memory",
                "id": "src/db/migrations",
                "title": "Migrations",
                "why": "memory of `src/db/`",
                "text": "Migrations run in order, never edited.\nEach one is reversible.",
            }
        ],
    )


async def learnings(session, root):
    """record_learning -> served by get_context -> stale after an edit, not served any more."""
    # memory_loop enabled the memory toolset; enabling it again adds nothing.
    result = await session.call_tool("enable_toolset", {"toolset": "memory"})
    check("enable_toolset memory again: not an error", result.is_error, False)
    check("enable_toolset memory again: nothing added", result.structured_content["added"], [])
    source = os.path.join(root, "src", "db", "pool.rs")
    os.makedirs(os.path.dirname(source), exist_ok=True)
    with open(source, "w", encoding="utf-8") as handle:
        handle.write("pub fn pool() -> Pool {\n    Pool::new(8)\n}\n")
    claim = "The pool holds eight connections."
    result = await session.call_tool("record_learning", {"claim": claim, "files_read": ["src/db/pool.rs"]})
    check("record_learning: not an error", result.is_error, False)
    learning_id = result.structured_content["id"]
    check("record_learning: id from the claim", learning_id, "the-pool-holds-eight-connections")
    result = await session.call_tool("get_context", {"path": "src/db/pool.rs"})
    check(
        "get_context: the fresh learning is served, labelled",
        [(item["id"], item["label"]) for item in result.structured_content.get("learnings", [])],
        [(learning_id, "verify before relying on it")],
    )
    with open(source, "a", encoding="utf-8") as handle:
        handle.write("// sixteen now\n")
    result = await session.call_tool("review_learnings", {})
    check(
        "review_learnings: stale after the source changed",
        [(item["id"], item["status"]) for item in result.structured_content["learnings"]],
        [(learning_id, "stale")],
    )
    result = await session.call_tool("get_context", {"path": "src/db/pool.rs"})
    check("get_context: the stale learning is not served", result.structured_content.get("learnings", []), [])


async def skills_on_demand(session, root):
    """A served skill written by hand: enable the skills toolset, find it, load it within a byte
    budget, read a window of its reference file, and read it as a skill:// resource whose digest
    matches its bytes."""
    folder = os.path.join(root, ".ai-rulez", "skills", "release")
    os.makedirs(os.path.join(folder, "references"))
    with open(os.path.join(folder, "SKILL.md"), "w", encoding="utf-8") as handle:
        handle.write(SKILL_MD)
    with open(os.path.join(folder, "references", "steps.md"), "w", encoding="utf-8") as handle:
        handle.write(STEPS)
    result = await session.call_tool("enable_toolset", {"toolset": "skills"})
    check("enable_toolset skills: tools added", result.structured_content["added"], SKILL_TOOLS)
    result = await session.call_tool("find_skill", {"query": "publish a release"})
    check("find_skill: not an error", result.is_error, False)
    check(
        "find_skill: the served skill",
        [(skill["name"], skill["uri"]) for skill in result.structured_content["skills"]],
        [("release", "skill://release/SKILL.md")],
    )
    result = await session.call_tool("load_skill", {"name": "release", "budget_bytes": 20})
    check("load_skill: not an error", result.is_error, False)
    loaded = result.structured_content
    check("load_skill: cut at the budget", (loaded["text"], loaded["truncated"], loaded["next_offset"]),
          (SERVED_SKILL_MD[:20], True, 20))
    check("load_skill: digest of the whole SKILL.md", loaded["digest"], sha256(SERVED_SKILL_MD))
    check(
        "load_skill: its files",
        [(entry["path"], entry["size"], entry["digest"]) for entry in loaded["resources"]],
        [("SKILL.md", len(SERVED_SKILL_MD), sha256(SERVED_SKILL_MD)),
         ("references/steps.md", len(STEPS), sha256(STEPS))],
    )
    result = await session.call_tool(
        "read_skill_file", {"uri": "skill://release/references/steps.md", "offset": 9, "length": 100}
    )
    check("read_skill_file: the window", (result.structured_content["content"], result.structured_content["size"]),
          (STEPS[9:], len(STEPS)))
    result = await session.call_tool("read_skill_file", {"uri": "skill://release/../../etc/passwd"})
    check("read_skill_file: a path leaving the skill is refused", result.is_error, True)
    read = await session.read_resource("skill://release/references/steps.md")
    contents = read.contents[0]
    check("resources/read skill://: text and media type", (contents.text, contents.mime_type), (STEPS, "text/markdown"))
    check("resources/read skill://: digest", contents.meta["io.modelcontextprotocol.skills/digest"],
          sha256(STEPS))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as root:
        make_project(root)
        asyncio.run(run(binary, root))
    print("all checks passed")


if __name__ == "__main__":
    main()
