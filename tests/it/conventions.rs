//! `discover_conventions` and `ai-rulez learn conventions` through the real binary: fixtures in
//! Rust, TypeScript and Python written here with exact counts (comments and string literals
//! full of misleading text count for nothing; ignored, vendored, hidden, generated, binary and
//! oversized files are left out), Go (receivers, tabs, error checks), the MCP tool returning
//! the same report, bad arguments, and a run on this repository itself.

use serde_json::{Value, json};

use crate::learn::learner;
use crate::mcp::project_with;
use crate::support::Project;

const RUST_NAMES: [(&str, &str); 5] = [
    ("load_config", "LoadConfig"),
    ("parse_rules", "ParseRules"),
    ("write_output", "WriteOutput"),
    ("error_kind", "ErrorKind"),
    ("main_loop", "MainLoop"),
];

/// A Rust file: 2 `snake_case` functions, 1 `PascalCase` type, 1 `use crate::`, 1 `?`, and names,
/// `unwrap()` and quotes in comments and literals that must not count.
fn rust_file(name: &str, pascal: &str) -> String {
    format!(
        r##"//! Module {name}: fn BadName() and x.unwrap() in a comment do not count.

use crate::shared_types::Item;

/// A type.
pub struct {pascal}State {{
    count: usize,
}}

/* block comment: fn AlsoBad() /* nested */ still a comment .expect("x") */
pub fn {name}_run(items: &[Item]) -> Result<usize, String> {{
    let text = "fn NotReal() {{ a.unwrap() }} 'q'";
    let raw = r#"fn RawBad() "still" .unwrap()"#;
    let first = items.first().ok_or("empty")?;
    let _ = (text, raw, first, 'x', '\'');
    Ok(items.len())
}}

fn {name}_helper<'a>(value: &'a str) -> &'a str {{
    value
}}
"##
    )
}

/// Rust's `lib.rs`: an inline test module whose `unwrap()` is test code.
const RUST_LIB: &str = "pub fn x() -> Option<bool> {
    Some(true)
}

#[cfg(test)]
mod tests {
    #[test]
    fn checks_it() {
        assert!(super::x().unwrap());
    }
}
";

const TS_NAMES: [(&str, &str); 5] = [
    ("user-card", "UserCard"),
    ("order-list", "OrderList"),
    ("api-client", "ApiClient"),
    ("date-format", "DateFormat"),
    ("app-shell", "AppShell"),
];

/// A TypeScript file without semicolons: 2 single-quoted strings (a third holds `"` and says
/// nothing), 6 statement ends, 2 relative imports, 1 `camelCase` function, 1 `PascalCase` type.
fn typescript_file(pascal: &str) -> String {
    format!(
        r#"// import {{ bad }} from "../nowhere"; and "double" quotes in a comment do not count
import {{ helper }} from './shared-utils'
import type {{ Item }} from '../types/item-types'

/* const x = "inside a block comment"; function BadName() {{}} */
export interface {pascal}Props {{
  items: Item[]
}}

export function render{pascal}(props: {pascal}Props): string {{
  const label = 'say "hi"'
  const title = `template "x" ${{props.items.length}}`
  return helper(label + title)
}}
"#
    )
}

/// A TypeScript test: 4 single-quoted strings, 2 statement ends, 1 relative import.
const TS_TEST: &str = "import { renderUserCard } from './user-card'

describe('renderUserCard', () => {
  it('renders', () => {
    expect(renderUserCard({ items: [] })).toBe('')
  })
})
";

const PY_NAMES: [(&str, &str); 5] = [
    ("order_service", "OrderService"),
    ("user_repo", "UserRepo"),
    ("price_rules", "PriceRules"),
    ("tax_table", "TaxTable"),
    ("report_builder", "ReportBuilder"),
];

/// A Python file: 2 double-quoted strings (one more holds `'`, the docstring is triple-quoted),
/// 1 `snake_case` function, 1 `PascalCase` class, 1 absolute import of the project's own package
/// (`os` is not the project's).
fn python_file(name: &str, pascal: &str) -> String {
    format!(
        r#""""Module docstring: def BadName(): and 'single' quotes here do not count."""
import os
from app.shared_base import BaseThing

# def AnotherBad(): "double" and 'single' in a comment


class {pascal}Service(BaseThing):
    def run_{name}(self, value):
        text = "it's fine"
        label = "plain"
        return os.path.join(text, label, f"{{value}}")
"#
    )
}

/// A Python test: 1 double-quoted string, 1 function, 1 absolute import.
const PY_TEST: &str = "from app.order_service import OrderServiceService


def test_runs():
    assert OrderServiceService().run_order_service(1) == \"1\"
";

/// The three-language fixture plus files the walk must leave out.
fn fixture() -> Project {
    let project = Project::empty();
    for (name, pascal) in RUST_NAMES {
        project.write(&format!("src/{name}.rs"), rust_file(name, pascal));
    }
    project.write("src/lib.rs", RUST_LIB);
    for (name, pascal) in TS_NAMES {
        project.write(&format!("web/src/{name}.ts"), typescript_file(pascal));
    }
    project.write("web/src/user-card.test.ts", TS_TEST);
    for (name, pascal) in PY_NAMES {
        project.write(&format!("app/{name}.py"), python_file(name, pascal));
    }
    project.write("tests/test_order_service.py", PY_TEST);
    project.write("Cargo.lock", "version = 4\n");
    project.write("web/package-lock.json", "{}\n");
    project.write("pyproject.toml", "[project]\nname = \"app\"\n");
    // Left out without being read: ignored, vendored, hidden folders.
    let tabbed = "def BadOne():\n\tx = 'a'\n\treturn x\n";
    project.write(".gitignore", "ignored/\n");
    project.write("ignored/bad_tabs.py", tabbed);
    project.write(
        "web/node_modules/left-pad/index.js",
        "function LeftPad() {\n\treturn \"x\";\n}\n",
    );
    project.write(".cursor/helper_tool.py", tabbed);
    // Left out after a look: generated, binary, over 1 MiB (counted as skipped).
    project.write(
        "app/generated_pb.py",
        format!("# @generated by protoc\n{tabbed}"),
    );
    project.write("app/blob_data.py", b"x = 1\n\0\0\0binary");
    project.write("web/src/huge-table.ts", "const a = \"b\";\n".repeat(80_000));
    project
}

fn expected_findings() -> Value {
    json!([
        {"language": "rust", "aspect": "indentation", "convention": "4 spaces", "counts": {"4 spaces": 6}, "percent": 100, "files": 6,
         "examples": ["src/error_kind.rs", "src/lib.rs", "src/load_config.rs"], "rule": "Indent Rust code with 4 spaces."},
        {"language": "rust", "aspect": "file_naming", "convention": "snake_case", "counts": {"snake_case": 5}, "percent": 100, "files": 5,
         "examples": ["src/error_kind.rs", "src/load_config.rs", "src/main_loop.rs"], "rule": "Name Rust files in snake_case."},
        {"language": "rust", "aspect": "function_naming", "convention": "snake_case", "counts": {"snake_case": 11}, "percent": 100, "files": 6,
         "examples": ["src/error_kind.rs", "src/lib.rs", "src/load_config.rs"], "rule": "Name Rust functions in snake_case."},
        {"language": "rust", "aspect": "type_naming", "convention": "PascalCase", "counts": {"PascalCase": 5}, "percent": 100, "files": 5,
         "examples": ["src/error_kind.rs", "src/load_config.rs", "src/main_loop.rs"], "rule": "Name Rust types in PascalCase."},
        {"language": "rust", "aspect": "import_style", "convention": "crate:: paths", "counts": {"crate:: paths": 5}, "percent": 100, "files": 5,
         "examples": ["src/error_kind.rs", "src/load_config.rs", "src/main_loop.rs"], "rule": "Import Rust items of this crate with crate:: paths."},
        {"language": "rust", "aspect": "error_handling", "convention": "? operator", "counts": {"? operator": 5}, "percent": 100, "files": 5,
         "examples": ["src/error_kind.rs", "src/load_config.rs", "src/main_loop.rs"],
         "rule": "Propagate Rust errors with the ? operator; do not call unwrap() or expect() outside tests."},
        {"language": "typescript", "aspect": "indentation", "convention": "2 spaces", "counts": {"2 spaces": 6}, "percent": 100, "files": 6,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"], "rule": "Indent TypeScript code with 2 spaces."},
        {"language": "typescript", "aspect": "quotes", "convention": "single quotes", "counts": {"single quotes": 14}, "percent": 100, "files": 6,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"],
         "rule": "Write TypeScript strings with single quotes, using the other kind only to avoid escaping."},
        {"language": "typescript", "aspect": "semicolons", "convention": "no semicolons", "counts": {"no semicolons": 32}, "percent": 100, "files": 6,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"], "rule": "Do not end TypeScript statements with semicolons."},
        {"language": "typescript", "aspect": "file_naming", "convention": "kebab-case", "counts": {"kebab-case": 6}, "percent": 100, "files": 6,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"], "rule": "Name TypeScript files in kebab-case."},
        {"language": "typescript", "aspect": "function_naming", "convention": "camelCase", "counts": {"camelCase": 5}, "percent": 100, "files": 5,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"], "rule": "Name TypeScript functions in camelCase."},
        {"language": "typescript", "aspect": "type_naming", "convention": "PascalCase", "counts": {"PascalCase": 5}, "percent": 100, "files": 5,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"], "rule": "Name TypeScript types in PascalCase."},
        {"language": "typescript", "aspect": "import_style", "convention": "relative paths", "counts": {"relative paths": 11}, "percent": 100, "files": 6,
         "examples": ["web/src/api-client.ts", "web/src/app-shell.ts", "web/src/date-format.ts"],
         "rule": "Import local TypeScript modules with relative paths (./ and ../)."},
        {"language": "python", "aspect": "indentation", "convention": "4 spaces", "counts": {"4 spaces": 6}, "percent": 100, "files": 6,
         "examples": ["app/order_service.py", "app/price_rules.py", "app/report_builder.py"], "rule": "Indent Python code with 4 spaces."},
        {"language": "python", "aspect": "quotes", "convention": "double quotes", "counts": {"double quotes": 11}, "percent": 100, "files": 6,
         "examples": ["app/order_service.py", "app/price_rules.py", "app/report_builder.py"],
         "rule": "Write Python strings with double quotes, using the other kind only to avoid escaping."},
        {"language": "python", "aspect": "file_naming", "convention": "snake_case", "counts": {"snake_case": 6}, "percent": 100, "files": 6,
         "examples": ["app/order_service.py", "app/price_rules.py", "app/report_builder.py"], "rule": "Name Python files in snake_case."},
        {"language": "python", "aspect": "function_naming", "convention": "snake_case", "counts": {"snake_case": 6}, "percent": 100, "files": 6,
         "examples": ["app/order_service.py", "app/price_rules.py", "app/report_builder.py"], "rule": "Name Python functions in snake_case."},
        {"language": "python", "aspect": "type_naming", "convention": "PascalCase", "counts": {"PascalCase": 5}, "percent": 100, "files": 5,
         "examples": ["app/order_service.py", "app/price_rules.py", "app/report_builder.py"], "rule": "Name Python types in PascalCase."},
        {"language": "python", "aspect": "import_style", "convention": "absolute imports", "counts": {"absolute imports": 6}, "percent": 100, "files": 6,
         "examples": ["app/order_service.py", "app/price_rules.py", "app/report_builder.py"],
         "rule": "Import the project's own Python modules with absolute imports, not relative ones."}
    ])
}

fn expected_toolchain() -> Value {
    json!([
        {"language": "rust", "file": "Cargo.lock", "paths": ["Cargo.lock"], "rule": "Keep Cargo.lock committed and updated with cargo."},
        {"language": "javascript", "file": "package-lock.json", "paths": ["web/package-lock.json"],
         "rule": "Install packages with npm (package-lock.json is committed); do not add another lockfile."},
        {"language": "python", "file": "pyproject.toml", "paths": ["pyproject.toml"],
         "rule": "Declare Python dependencies and tool settings in pyproject.toml."}
    ])
}

fn json_run(project: &Project, args: &[&str]) -> Value {
    let run = project.run(args);
    run.expect_code(0);
    serde_json::from_str(&run.stdout()).expect("one JSON document")
}

#[test]
fn three_languages_give_exact_counts_and_misleading_comments_and_strings_count_for_nothing() {
    let project = fixture();
    // A symlink is neither followed nor read, even to a file inside the project.
    std::os::unix::fs::symlink(
        "load_config.rs",
        project.path().join("src/linked_module.rs"),
    )
    .expect("symlink");
    let report = json_run(&project, &["learn", "conventions", "--format", "json"]);
    assert_eq!(report["findings"], expected_findings());
    assert_eq!(report["toolchain"], expected_toolchain());
    assert_eq!(report["files_scanned"], 18);
    assert_eq!(report["files_skipped"], 3);
    assert_eq!(
        report["message"],
        "Scanned 18 source files: 19 conventions and 3 toolchain files. Nothing was saved; pass the rules you want to keep to propose_rules."
    );
}

#[test]
fn lower_thresholds_show_the_minority_options_and_paths_narrow_the_walk() {
    let project = fixture();
    // Rust tests: one inline module (lib.rs) and no tests/ folder; at one file it is reported.
    let report = json_run(
        &project,
        &[
            "learn",
            "conventions",
            "src",
            "--min-files",
            "1",
            "--format",
            "json",
        ],
    );
    let aspects: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| {
            (
                finding["aspect"].as_str().expect("aspect"),
                finding["convention"].as_str().expect("convention"),
            )
        })
        .collect();
    assert_eq!(
        aspects,
        [
            ("indentation", "4 spaces"),
            ("file_naming", "snake_case"),
            ("function_naming", "snake_case"),
            ("type_naming", "PascalCase"),
            ("test_layout", "inline #[cfg(test)] modules"),
            ("import_style", "crate:: paths"),
            ("error_handling", "? operator"),
        ]
    );
    assert_eq!(report["files_scanned"], 6);
    assert_eq!(report["toolchain"], json!([]));
    // JSX attributes (double quotes, no `;` between lines) say nothing about quotes or semicolons.
    project.write(
        "web/src/user-badge.tsx",
        "import { Badge } from './badge-view'\n\nexport function UserBadge() {\n  return (\n    <Badge\n      size=\"small\"\n      tone=\"calm\"\n    />\n  )\n}\n",
    );
    let web = json_run(
        &project,
        &["learn", "conventions", "web", "--format", "json"],
    );
    let counts = |aspect: &str| {
        web["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|finding| finding["aspect"] == aspect)
            .map(|finding| finding["counts"].clone())
    };
    assert_eq!(counts("quotes"), Some(json!({"single quotes": 14})));
    assert_eq!(counts("semicolons"), Some(json!({"no semicolons": 32})));
    assert_eq!(counts("import_style"), Some(json!({"relative paths": 12})));
    assert_eq!(counts("indentation"), Some(json!({"2 spaces": 7})));
    // A mixed tree: a tab-indented Python file among four space-indented ones is 80%.
    project.write("app/tabbed_one.py", "def run_it():\n\treturn 1\n");
    let text = project
        .run(&["learn", "conventions", "app", "--min-ratio", "0.8"])
        .expect_code(0)
        .stdout();
    assert!(
        text.contains("Python indentation: 4 spaces (83% of 6 observations in 6 files: 4 spaces 5, tabs 1; e.g. app/order_service.py, app/price_rules.py, app/report_builder.py)\n  rule: Indent Python code with 4 spaces.\n"),
        "{text}"
    );
    let strict = project
        .run(&["learn", "conventions", "app", "--min-ratio", "0.9"])
        .expect_code(0)
        .stdout();
    assert!(!strict.contains("Python indentation"), "{strict}");
}

#[test]
fn bad_paths_and_thresholds_are_refused_with_what_to_do() {
    let project = fixture();
    let outside = project.run(&["learn", "conventions", ".."]);
    outside.expect_code(1);
    assert!(
        outside.stderr().contains("lies outside the project")
            && outside.stderr().contains("pass folders or files inside it"),
        "{}",
        outside.stderr()
    );
    let missing = project.run(&["learn", "conventions", "nowhere"]);
    missing.expect_code(1);
    assert!(
        missing
            .stderr()
            .contains("`nowhere` cannot be scanned; pass an existing folder or file"),
        "{}",
        missing.stderr()
    );
    let ratio = project.run(&["learn", "conventions", "--min-ratio", "0.5"]);
    ratio.expect_code(1);
    assert_eq!(
        ratio.stderr(),
        "error: min_ratio 0.5 is out of range; pass a share above 0.5 and at most 1 (default 0.9)\n"
    );
}

#[test]
fn the_mcp_tool_returns_the_same_report_and_refuses_paths_outside_the_project() {
    let project = project_with(&[]);
    let files = fixture();
    crate::support::copy_tree(files.path(), project.path());
    let mut server = learner(&project);
    let (text, report) = server.text("discover_conventions", json!({"paths": ["web"]}));
    let typescript: Vec<Value> = expected_findings()
        .as_array()
        .expect("findings")
        .iter()
        .filter(|finding| finding["language"] == "typescript")
        .cloned()
        .collect();
    assert_eq!(report["findings"], Value::Array(typescript));
    assert!(
        text.starts_with("Scanned 6 source files: 7 conventions and 1 toolchain files."),
        "{text}"
    );
    assert!(
        text.contains("\nTypeScript semicolons: no semicolons (100% of 32 observations in 6 files: no semicolons 32; e.g. web/src/api-client.ts, web/src/app-shell.ts, web/src/date-format.ts)\n  rule: Do not end TypeScript statements with semicolons."),
        "{text}"
    );
    let refused = server.fails("discover_conventions", json!({"paths": ["../elsewhere"]}));
    assert!(
        refused.contains("is not a path inside the project"),
        "{refused}"
    );
    std::os::unix::fs::symlink(project.path().join("web"), project.path().join("linked"))
        .expect("symlink");
    let refused = server.fails("discover_conventions", json!({"paths": ["linked"]}));
    assert!(
        refused.starts_with("linked: ") && refused.contains("symlink"),
        "{refused}"
    );
    let refused = server.fails("discover_conventions", json!({"paths": ["/etc"]}));
    assert!(
        refused.contains("`/etc` is not a path inside the project"),
        "{refused}"
    );
    let absolute = project.path().canonicalize().expect("root").join("web");
    let (_, same) = server.text(
        "discover_conventions",
        json!({"paths": [absolute.to_str().expect("UTF-8")]}),
    );
    assert_eq!(same, report);
    let refused = server.fails("discover_conventions", json!({"min_files": 0}));
    assert_eq!(
        refused,
        "Invalid arguments: `min_files` is 0; use 1 to 2147483647."
    );
    server.finish();
}

#[test]
fn this_repository_is_rust_with_four_spaces_snake_case_files_and_a_cargo_lock() {
    let repository = env!("CARGO_MANIFEST_DIR");
    let run = Project::empty().run(&["-C", repository, "learn", "conventions", "--format", "json"]);
    run.expect_code(0);
    let report: Value = serde_json::from_str(&run.stdout()).expect("JSON");
    let finding = |aspect: &str| {
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|finding| finding["language"] == "rust" && finding["aspect"] == aspect)
            .map(|finding| finding["convention"].clone())
    };
    assert_eq!(finding("indentation"), Some(json!("4 spaces")));
    assert_eq!(finding("file_naming"), Some(json!("snake_case")));
    assert_eq!(finding("function_naming"), Some(json!("snake_case")));
    assert_eq!(finding("type_naming"), Some(json!("PascalCase")));
    assert_eq!(report["toolchain"][0]["file"], "Cargo.lock");
    assert_eq!(report["toolchain"][0]["paths"][0], "Cargo.lock");
}

/// A Go file: tabs, a `PascalCase` type, a `PascalCase` method (after its receiver) and a
/// `camelCase` function, one `if err != nil` (a second one inside a string does not count).
fn go_file(pascal: &str) -> String {
    format!(
        "// Package store: func BadName() and if err != nil in a comment do not count.
package store

import \"errors\"

// {pascal}Order is a type.
type {pascal}Order struct {{
\tID string
}}

func (o *{pascal}Order) Save{pascal}() error {{
\ttext := \"if err != nil {{ panic(x) }}\"
\terr := errors.New(text)
\tif err != nil {{
\t\treturn err
\t}}
\treturn nil
}}

func load{pascal}(raw string) (string, error) {{
\treturn raw, nil
}}
"
    )
}

#[test]
fn go_receivers_tabs_and_error_checks_are_counted_and_test_files_are_not_error_handling() {
    let project = Project::empty();
    for (name, pascal) in [
        ("user_order", "User"),
        ("cart_order", "Cart"),
        ("price_order", "Price"),
        ("stock_order", "Stock"),
        ("ship_order", "Ship"),
    ] {
        project.write(&format!("store/{name}.go"), go_file(pascal));
    }
    project.write(
        "store/user_order_test.go",
        "package store\n\nimport \"testing\"\n\nfunc TestSave(t *testing.T) {\n\tif err := (&UserOrder{}).SaveUser(); err != nil {\n\t\tpanic(err)\n\t}\n}\n",
    );
    project.write("go.mod", "module example.com/store\n");
    let report = json_run(
        &project,
        &[
            "learn",
            "conventions",
            "--min-ratio",
            "0.51",
            "--format",
            "json",
        ],
    );
    let summary: Vec<Value> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| {
            json!([
                finding["aspect"],
                finding["convention"],
                finding["counts"],
                finding["files"]
            ])
        })
        .collect();
    assert_eq!(
        summary,
        [
            json!(["indentation", "tabs", {"tabs": 6}, 6]),
            json!(["file_naming", "snake_case", {"snake_case": 6}, 6]),
            json!(["function_naming", "PascalCase", {"PascalCase": 6, "camelCase": 5}, 6]),
            json!(["type_naming", "PascalCase", {"PascalCase": 5}, 5]),
            json!(["error_handling", "if err != nil", {"if err != nil": 5}, 5]),
        ]
    );
    assert_eq!(
        report["findings"][4]["rule"],
        "Check Go errors with if err != nil and return them; do not panic."
    );
    assert_eq!(report["toolchain"][0]["file"], "go.mod");
}
