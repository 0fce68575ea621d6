//! Digests: what the manifest records for an entry, computed from its template so a resolved
//! secret never decides (or leaks into) the hash, and the matching digest of what is on disk.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::json::{cst_to_json, json_servers, parse_json};
use super::toml::{parse_toml, toml_item_to_json, toml_servers};
use super::{DocumentShape, Entry, McpConfigError, server_name};

fn digest_of(value: &Value) -> String {
    // With `preserve_order`, serde_json writes object keys in insertion order,
    // which is the document order for values read from disk.
    let compact = value.to_string();
    format!("sha256:{}", hex::encode(Sha256::digest(compact.as_bytes())))
}

/// Digest of an entry as recorded in the manifest.
///
/// Input: a rendered [`Entry`]. Output: `"sha256:<64 hex>"`, the SHA-256 of the
/// compact JSON (keys in document order) of the entry's **template**, so a
/// resolved secret never influences it. Never fails.
#[must_use]
pub(crate) fn entry_digest(entry: &Entry) -> String {
    digest_of(&entry.template)
}

/// Digest of what is on disk at `key`, in template form.
///
/// Inputs: the shape, the document text, the entry key (`[<servers key>, <name>]`)
/// and optionally the entry ai-rulez would write there. Every string position
/// that the hint entry resolved is replaced by the hint's template string before
/// hashing, so a secret never decides (or leaks into) the digest. Output:
/// `Some("sha256:<64 hex>")`, comparable with [`entry_digest`], or `None` when
/// the key is absent. Format references are listed in the module documentation.
///
/// # Errors
/// [`McpConfigError::InvalidDocument`] when the text does not parse,
/// [`McpConfigError::ServersNotContainer`] when the servers key is not an
/// object/table, and [`McpConfigError::InvalidKey`] for a malformed key.
pub(crate) fn disk_entry_digest(
    shape: DocumentShape,
    document_text: &str,
    key: &[String],
    entry_template_hint: Option<&Entry>,
) -> Result<Option<String>, McpConfigError> {
    let path = shape.default_path();
    let name = server_name(shape, path, key)?;
    let on_disk = if shape.is_toml() {
        let doc = parse_toml(path, document_text)?;
        toml_servers(&doc, path)?
            .and_then(|servers| servers.get(name))
            .map(toml_item_to_json)
    } else {
        let root = parse_json(path, document_text)?;
        json_servers(shape, path, &root)?
            .and_then(|servers| servers.get(name))
            .and_then(|prop| prop.value())
            .and_then(|node| cst_to_json(&node))
    };
    let Some(mut on_disk) = on_disk else {
        return Ok(None);
    };
    if let Some(hint) = entry_template_hint {
        let mut resolved = Vec::new();
        collect_resolved(&hint.value, &hint.template, &mut Vec::new(), &mut resolved);
        for (at, template) in resolved {
            if let Some(slot) = pointer_mut(&mut on_disk, &at)
                && slot.is_string()
            {
                *slot = Value::String(template);
            }
        }
    }
    Ok(Some(digest_of(&on_disk)))
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Records every string position where `value` and `template` differ, i.e. where
/// the entry resolved a placeholder.
fn collect_resolved(
    value: &Value,
    template: &Value,
    at: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, String)>,
) {
    match (value, template) {
        (Value::String(v), Value::String(t)) if v != t => out.push((at.clone(), t.clone())),
        (Value::Array(vs), Value::Array(ts)) => {
            for (i, (v, t)) in vs.iter().zip(ts).enumerate() {
                at.push(Step::Index(i));
                collect_resolved(v, t, at, out);
                at.pop();
            }
        }
        (Value::Object(vs), Value::Object(ts)) => {
            for (k, v) in vs {
                if let Some(t) = ts.get(k) {
                    at.push(Step::Key(k.clone()));
                    collect_resolved(v, t, at, out);
                    at.pop();
                }
            }
        }
        _ => {}
    }
}

fn pointer_mut<'v>(mut value: &'v mut Value, at: &[Step]) -> Option<&'v mut Value> {
    for step in at {
        value = match step {
            Step::Key(k) => value.as_object_mut()?.get_mut(k)?,
            Step::Index(i) => value.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(value)
}
