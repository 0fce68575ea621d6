// Drives `ai-rulez mcp` with the official TypeScript MCP SDK (@modelcontextprotocol/sdk, pinned
// in compat/versions.txt), the client most assistants embed: the TypeScript twin of
// tests/mcp_client.py.
//
//   NODE_PATH=<sdk prefix>/node_modules node compat/mcp_sdk.mjs PATH/TO/ai-rulez
//
// Builds a small project in a temporary folder, then: initialize, list the default tools (exact
// names), compile every input and output schema with Ajv in strict mode (no unknown keywords or
// formats), call each read tool and validate its structured result against the tool's output
// schema, enable the author toolset (tools/list_changed must arrive), create a rule, and call an
// unknown tool (a -32602 protocol error). Prints each check; exits 1 on the first failure.
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH ?? ".", "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema, McpError } = require("@modelcontextprotocol/sdk/types.js");
const Ajv = require("ajv").default;
const sdkVersion = JSON.parse(
  fs.readFileSync(path.join(process.env.NODE_PATH ?? ".", "@modelcontextprotocol", "sdk", "package.json"), "utf8"),
).version;

const DEFAULT_TOOLS = ["enable_toolset", "get_rules", "search_rules", "get_context", "read_item", "list_items", "list_domains"];
const AUTHOR_TOOLS = ["rule", "context", "skill", "agent", "command"]
  .flatMap((kind) => ["create", "update", "delete"].map((verb) => `${verb}_${kind}`))
  .concat(["create_domain", "delete_domain"]);

function check(what, got, want) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  console.log(`  ${ok ? "ok  " : "FAIL"} ts-sdk: ${what}`);
  if (!ok) {
    console.log(`       got:  ${JSON.stringify(got)}\n       want: ${JSON.stringify(want)}`);
    process.exit(1);
  }
}

const binary = path.resolve(process.argv[2]);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ai-rulez-ts-sdk-"));
fs.mkdirSync(path.join(root, ".ai-rulez", "rules"), { recursive: true });
fs.writeFileSync(path.join(root, ".ai-rulez", "config.toml"), 'version = "5.0"\nname = "demo"\npresets = ["claude"]\n');
fs.writeFileSync(path.join(root, ".ai-rulez", "rules", "style.md"), "---\npriority: medium\ntitle: Code style\n---\nKeep functions short.\n");
fs.writeFileSync(
  path.join(root, ".ai-rulez", "rules", "rust.md"),
  '---\nglobs: ["**/*.rs"]\npriority: high\ntitle: Rust errors\n---\nReturn typed errors; never unwrap input.\n',
);
fs.writeFileSync(
  path.join(root, ".ai-rulez", "rules", "database.md"),
  '---\nglobs: "src/db/**"\ntitle: Database access\ntriggers: [migration, query]\n---\nUse the query builder for every migration.\n',
);

const client = new Client({ name: "ai-rulez-compat", version: "1.0.0" });
let listChanged = false;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged = true;
});
const transport = new StdioClientTransport({ command: binary, args: ["mcp"], cwd: root, stderr: "inherit" });
try {
  await client.connect(transport);
  console.log(`  ts-sdk ${sdkVersion}: connected over stdio`);
  check("initialize: server name", client.getServerVersion().name, "ai-rulez");

  const ajv = new Ajv({ strict: true, allErrors: true });
  const validators = new Map();
  const compileAll = (tools) => {
    for (const tool of tools) {
      ajv.compile(tool.inputSchema);
      if (tool.outputSchema) validators.set(tool.name, ajv.compile(tool.outputSchema));
    }
  };
  let listed = await client.listTools();
  check("tools/list: the default toolset's tools", listed.tools.map((tool) => tool.name), DEFAULT_TOOLS);
  compileAll(listed.tools);
  check("every schema compiles under Ajv strict mode", true, true);

  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    check(`${name}: not an error`, result.isError ?? false, false);
    const validate = validators.get(name);
    if (validate) {
      const valid = validate(result.structuredContent);
      check(`${name}: structured result matches its output schema`, valid ? [] : validate.errors, []);
    }
    return result;
  };
  const rules = await call("get_rules", { paths: ["src/db/schema.rs"], task: "write a migration for orders" });
  check("get_rules: the scoped rule", rules.structuredContent.rules.map((rule) => rule.id), ["database"]);
  const found = await call("search_rules", { query: "typed errors" });
  check("search_rules: best match", found.structuredContent.rules.map((rule) => rule.id), ["rust"]);
  await call("get_context", { path: "src/db/schema.rs" });
  const items = await call("list_items", { kind: "rule" });
  check("list_items: every rule", items.structuredContent.items.map((item) => item.name).sort(), ["database", "rust", "style"]);
  await call("read_item", { kind: "rule", name: "style" });
  await call("list_domains", {});

  await call("enable_toolset", { toolset: "author" });
  for (let i = 0; i < 600 && !listChanged; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  check("enable_toolset: tools/list_changed received", listChanged, true);
  listed = await client.listTools();
  check("tools/list after enable: default + author", listed.tools.map((tool) => tool.name), DEFAULT_TOOLS.concat(AUTHOR_TOOLS));
  compileAll(listed.tools);
  const content = "---\npriority: low\n---\nLog with context.\n";
  await call("create_rule", { name: "logging", content });
  check("create_rule: file written", fs.readFileSync(path.join(root, ".ai-rulez", "rules", "logging.md"), "utf8"), content);

  let code = null;
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (error) {
    code = error instanceof McpError ? error.code : String(error);
  }
  check("unknown tool: protocol error -32602", code, -32602);
} finally {
  await client.close();
  fs.rmSync(root, { recursive: true, force: true });
}
console.log("ts-sdk: all checks passed");
