//! Report formats: text lines, one JSON document, SARIF 2.1.0 and GitHub workflow annotations.

use serde_json::{Value, json};

use super::codes::{self, Code};
use super::{Finding, Report, Severity};

/// Output format of `validate` and `scan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputFormat {
    /// `file:line: CODE message` lines.
    Text,
    /// One JSON document with findings and a summary.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=..,line=..::...`).
    Github,
}

/// Renders `report` of `command` (`validate` or `scan`) in `format`; the result ends with a
/// newline unless it is empty.
#[must_use]
pub(crate) fn render(report: &Report, command: &str, format: OutputFormat) -> String {
    match format {
        OutputFormat::Text => report
            .findings
            .iter()
            .map(|finding| finding.text_line() + "\n")
            .collect(),
        OutputFormat::Json => pretty(&json!({
            "schema_version": 1,
            "command": command,
            "findings": report.findings,
            "summary": report.summary(),
        })),
        OutputFormat::Sarif => pretty(&sarif(report, command)),
        OutputFormat::Github => report.findings.iter().map(github_line).collect(),
    }
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn security_severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "8.0",
        Severity::Warning => "5.0",
        Severity::Info => "2.0",
    }
}

fn sarif_rule(entry: &Code) -> Value {
    let mut tags = vec![if entry.security {
        "security"
    } else {
        "correctness"
    }];
    tags.push("ai-rulez");
    let mut properties = json!({ "tags": tags });
    if entry.security {
        properties["security-severity"] = json!(security_severity(entry.severity));
    }
    json!({
        "id": entry.code,
        "name": entry.name,
        "shortDescription": { "text": entry.summary },
        "fullDescription": { "text": entry.doc },
        "help": { "text": entry.doc },
        "defaultConfiguration": { "level": sarif_level(entry.severity) },
        "properties": properties,
    })
}

/// A SARIF 2.1.0 log: one run whose driver lists every code of the table as a rule.
fn sarif(report: &Report, command: &str) -> Value {
    let rules: Vec<Value> = codes::CODES.iter().map(sarif_rule).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            let index = codes::CODES
                .iter()
                .position(|entry| entry.code == finding.code);
            let mut location = json!({
                "physicalLocation": {
                    "artifactLocation": { "uri": uri_reference(&finding.file), "uriBaseId": "%SRCROOT%" },
                }
            });
            if let Some(line) = finding.line.filter(|line| *line >= 1) {
                location["physicalLocation"]["region"] = json!({ "startLine": line });
            }
            let mut result = json!({
                "ruleId": finding.code,
                "level": sarif_level(finding.severity),
                "message": { "text": finding.message },
                "locations": [location],
                "partialFingerprints": { "aiRulezFingerprint/v1": finding.fingerprint },
            });
            if let Some(index) = index {
                result["ruleIndex"] = json!(index);
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "ai-rulez",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://github.com/xberg-io/ai-rulez",
                    "rules": rules,
                }
            },
            "automationDetails": { "id": format!("ai-rulez/{command}/") },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// Escapes a workflow command's message (`%`, CR, LF).
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value (also `:` and `,`).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn github_line(finding: &Finding) -> String {
    let command = match finding.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut properties = format!("file={}", escape_property(&finding.file));
    if let Some(line) = finding.line {
        properties.push_str(&format!(",line={line}"));
    }
    properties.push_str(&format!(
        ",title={}",
        escape_property(&format!("{} {}", finding.code, finding.name))
    ));
    format!(
        "::{command} {properties}::{}\n",
        escape_data(&format!("{} {}", finding.code, finding.message))
    )
}

/// A project path as a relative URI reference (RFC 3986): unreserved characters and `/` stay,
/// every other byte is percent-encoded, so a `#`, `%` or space in a file name cannot change
/// which file code scanning points at.
fn uri_reference(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            findings: vec![
                Finding::new("AR001", "a, b.md", Some(3), "x", "key 100% `AKIA…`\nnext"),
                Finding::new("AR101", "c.md", None, "", "no match"),
            ],
        }
    }

    #[test]
    fn text_and_github_lines() {
        assert_eq!(
            render(&report(), "scan", OutputFormat::Text),
            "a, b.md:3: AR001 key 100% `AKIA…`\nnext\nc.md: AR101 no match\n"
        );
        assert_eq!(
            render(&report(), "scan", OutputFormat::Github),
            "::error file=a%2C b.md,line=3,title=AR001 secret-detected::AR001 key 100%25 `AKIA…`%0Anext\n\
             ::warning file=c.md,title=AR101 glob-no-match::AR101 no match\n"
        );
    }

    #[test]
    fn json_and_sarif_shapes() {
        let json: Value =
            serde_json::from_str(&render(&report(), "scan", OutputFormat::Json)).expect("json");
        assert_eq!(json["summary"]["total"], 2);
        assert_eq!(json["summary"]["by_code"]["AR001"], 1);
        assert_eq!(json["findings"][0]["severity"], "error");
        assert_eq!(json["findings"][1]["line"], Value::Null);
        let sarif: Value =
            serde_json::from_str(&render(&report(), "scan", OutputFormat::Sarif)).expect("sarif");
        let run = &sarif["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(codes::CODES.len())
        );
        assert_eq!(run["results"][0]["ruleId"], "AR001");
        assert_eq!(run["results"][0]["ruleIndex"], 0);
        assert_eq!(
            run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
            3
        );
        assert_eq!(
            run["results"][1]["locations"][0]["physicalLocation"].get("region"),
            None
        );
        assert_eq!(
            run["tool"]["driver"]["rules"][0]["properties"]["security-severity"],
            "8.0"
        );
    }

    #[test]
    fn sarif_uris_are_percent_encoded() {
        assert_eq!(
            super::uri_reference(".ai-rulez/rules/sec urity#1%.md"),
            ".ai-rulez/rules/sec%20urity%231%25.md"
        );
        assert_eq!(
            super::uri_reference("skills/dé/SKILL.md"),
            "skills/d%C3%A9/SKILL.md"
        );
    }
}
