#!/usr/bin/env python3
"""An independent implementation of the ai-rulez lock digest scheme (docs/lockfile.md), with
nothing but the standard library, so the Rust code is checked against a second reading of the spec.

    python3 tests/lock_vectors.py                 print the test vectors, one `name hex` a line
    python3 tests/lock_vectors.py verify ROOT     recompute ROOT/.ai-rulez/ai-rulez.lock from the
                                                  files on disk: every item, every whole-file
                                                  output, and the `tree`; print a summary line

Exit 0 when everything matches, 1 otherwise (differences on stderr).
"""

import hashlib
import os
import stat
import sys
import tomllib

TEXT_EXTENSIONS = {"md", "markdown", "mdc", "mdx", "txt", "toml", "yaml", "yml", "json", "jsonc"}


def lp(data: bytes) -> bytes:
    """8-byte big-endian length, then the bytes."""
    return len(data).to_bytes(8, "big") + data


def u64(number: int) -> bytes:
    return number.to_bytes(8, "big")


def file_leaf(path: str, executable: bool, data: bytes) -> bytes:
    extension = path.rsplit(".", 1)[1].lower() if "." in path else ""
    if extension in TEXT_EXTENSIONS:
        data = data.replace(b"\r\n", b"\n")
    mode = b"100755" if executable else b"100644"
    return hashlib.sha256(
        lp(b"ai-rulez/file/v1") + lp(path.encode()) + lp(mode) + lp(data)
    ).digest()


def item_digest(kind: str, files) -> str:
    """files: iterable of (path relative to the item, executable, bytes)."""
    leaves = sorted((path.encode(), file_leaf(path, executable, data)) for path, executable, data in files)
    body = lp(f"ai-rulez/{kind}/v1".encode()) + u64(len(leaves))
    body += b"".join(leaf for _, leaf in leaves)
    return "sha256:" + hashlib.sha256(body).hexdigest()


def top_digest(entries) -> str:
    """entries: iterable of (kind, key, "sha256:<hex>") strings."""
    encoded = sorted((kind.encode(), key.encode(), digest.encode()) for kind, key, digest in entries)
    body = lp(b"ai-rulez/tree/v1") + u64(len(encoded))
    for kind, key, digest in encoded:
        body += lp(kind) + lp(key) + lp(digest)
    return "sha256:" + hashlib.sha256(body).hexdigest()


def vectors():
    skill = item_digest(
        "skill",
        [
            ("SKILL.md", False, b"---\nname: deploy\n---\nDeploy.\n"),
            ("scripts/run.sh", True, b"#!/bin/sh\necho hi\n"),
            ("assets/logo.bin", False, bytes([0, 1, 0x0D, 0x0A, 2])),
        ],
    )
    return [
        ("leaf-skill-md", file_leaf("SKILL.md", False, b"# Title\nbody\n").hex()),
        ("rule-style", item_digest("rule", [("style.md", False, b"# Style\n")])),
        ("rule-style-crlf", item_digest("rule", [("style.md", False, b"# Style\r\n")])),
        ("rule-empty", item_digest("rule", [])),
        ("skill-deploy", skill),
        (
            "tree-two-entries",
            top_digest([("item/skill", "\0deploy", skill), ("output", "CLAUDE.md", "sha256:" + "ab" * 32)]),
        ),
        ("tree-empty", top_digest([])),
        ("skill-script", item_digest("skill", [("run.sh", True, b"echo hi\n")])),
        ("skill-script-crlf", item_digest("skill", [("run.sh", True, b"echo hi\r\n")])),
        (
            "include-dir",
            item_digest("include", [("rules/a.md", False, b"# A\n"), ("hooks/x.sh", True, b"#!/bin/sh\n")]),
        ),
    ]


def read(root: str, relative: str):
    path = os.path.join(root, relative)
    with open(path, "rb") as handle:
        data = handle.read()
    return bool(os.stat(path).st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)), data


def verify(root: str) -> int:
    with open(os.path.join(root, ".ai-rulez", "ai-rulez.lock"), "rb") as handle:
        lock = tomllib.load(handle)
    problems = []
    entries = []
    items = lock.get("item", [])
    for item in items:
        if item["kind"] == "skill":
            base = os.path.join(root, item["path"])
            files = []
            for folder, _, names in os.walk(base):
                for name in names:
                    relative = os.path.relpath(os.path.join(folder, name), base).replace(os.sep, "/")
                    files.append((relative,) + read(base, relative))
        else:
            files = [(item["path"].rsplit("/", 1)[-1],) + read(root, item["path"])]
        digest = item_digest(item["kind"], files)
        if digest != item["digest"]:
            problems.append(f"item {item['kind']} {item['id']}: lock {item['digest']}, computed {digest}")
        entries.append((f"item/{item['kind']}", f"{item['domain']}\0{item['id']}", item["digest"]))
    whole = 0
    outputs = lock.get("output", [])
    for output in outputs:
        if "entry" in output:
            key = output["path"] + "#" + "/".join(output["entry"])
        elif output.get("section"):
            key = output["path"] + "#section"
        else:
            key = output["path"]
            whole += 1
            executable, data = read(root, output["path"])
            digest = "sha256:" + file_leaf(output["path"], executable, data).hex()
            if digest != output["digest"]:
                problems.append(f"output {key}: lock {output['digest']}, computed {digest}")
        entries.append(("output", key, output["digest"]))
    servers = lock.get("mcp_server", [])
    entries.extend(("mcp-server", server["name"], server["digest"]) for server in servers)
    tree = top_digest(entries)
    if tree != lock["tree"]:
        problems.append(f"tree: lock {lock['tree']}, computed {tree}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(
        f"{'ok' if not problems else 'MISMATCH'}: {len(items)} items, {whole} of {len(outputs)} outputs "
        f"(whole files), {len(servers)} mcp servers, tree {tree}"
    )
    return 1 if problems else 0


def main() -> int:
    if sys.argv[1:2] == ["verify"] and len(sys.argv) == 3:
        return verify(sys.argv[2])
    if len(sys.argv) != 1:
        print(__doc__, file=sys.stderr)
        return 1
    for name, value in vectors():
        print(name, value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
