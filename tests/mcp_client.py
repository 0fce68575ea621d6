#!/usr/bin/env python3
"""Drives `ai-rulez mcp` with the official Python MCP SDK (`mcp` from PyPI), a third-party client.

Usage: python tests/mcp_client.py PATH/TO/ai-rulez

Builds a small project in a temporary directory, then: initialize, list the default tools (exact
names, at most 12 KB), call get_rules, search_rules, get_context, enable the author toolset
(which must send notifications/tools/list_changed), create_rule, and update_rule with a stale
expected_hash. Then the learning loop: enable the learn toolset, record_feedback saves a pending
rule file, `ai-rulez review approve` (the CLI, as a person would) activates it, and get_rules
serves it. Every answer is compared exactly; the script prints each check and exits non-zero on
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
                        "reason": "its scope matches; task words in its triggers: migration",
                        "body": "Use the query builder for every migration.",
                    }
                ],
            )
            check(
                "get_rules: other covering rules named",
                data["others"],
                [
                    {"kind": "rule", "id": "rust", "title": "Rust errors", "summary": "Rust errors"},
                    {"kind": "rule", "id": "style", "title": "Code style", "summary": ""},
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
