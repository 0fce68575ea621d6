//! Tool schemas every function-calling model accepts. schemars describes a Rust type in full
//! JSON Schema 2020-12; Gemini's function declarations reject `$schema`, a `type` given as a
//! list, and unknown `format`s, and every client pays for `$defs`, titles and unsigned-integer
//! noise in its context. This module turns a schemars schema into the small common subset.
//!
//! The result has no `$schema`, `$defs`, `$ref`, `title` or `format` anywhere (Ajv in strict
//! mode refuses the `uint32` formats schemars writes) and every `type` is one string. Input
//! schemas keep `minimum`, `maximum` and `enum`. An `Option` field of an input is simply not required. An output field that is
//! always present but may be `null` (an `Option` serialized as `null`) has no `type` at all, so
//! a validating client accepts both the value and `null`.
//!
//! Output schemas keep field names and types but no descriptions: the model reads a reply's text
//! block, and a validating client needs only the shape. That halves the default `tools/list`
//! (the field docs stay on the Rust types).

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::Value;

/// The portable input schema of `T` (what a call may send: `Option` fields are optional).
pub(crate) fn input<T: JsonSchema>() -> JsonObject {
    portable::<T>(Contract::Deserialize, Descriptions::Keep)
}

/// The portable output schema of `T` (what a reply holds, as serialized).
pub(crate) fn output<T: JsonSchema>() -> JsonObject {
    portable::<T>(Contract::Serialize, Descriptions::Drop)
}

/// Whether field descriptions stay in a schema.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Descriptions {
    Keep,
    Drop,
}

fn portable<T: JsonSchema>(contract: Contract, descriptions: Descriptions) -> JsonObject {
    let schema = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
            settings.contract = contract;
        })
        .into_generator()
        .into_root_schema_for::<T>();
    let Value::Object(mut root) = schema.to_value() else {
        // Every argument and reply type is a struct, whose schema is an object.
        return JsonObject::new();
    };
    // The tool's own description says what the call does; the type's doc comment would repeat it.
    root.remove("description");
    simplify(&mut root, descriptions);
    root
}

/// Rewrites one schema object and its subschemas in place. Returns whether the schema allowed
/// `null` before `null` was taken out of it.
fn simplify(node: &mut JsonObject, descriptions: Descriptions) -> bool {
    for noise in ["$schema", "$defs", "title", "format"] {
        node.remove(noise);
    }
    if descriptions == Descriptions::Drop {
        node.remove("description");
    }
    // schemars marks every unsigned integer with `minimum: 0`; in an output schema it only
    // costs tokens. Input schemas keep their bounds (`#[schemars(range(..))]` on the argument
    // types), which `super::bounds` enforces on every call.
    if descriptions == Descriptions::Drop && node.get("minimum") == Some(&Value::from(0)) {
        node.remove("minimum");
    }
    let nullable = take_null_out(node);
    constants_to_enum(node);
    let required: Vec<String> = match node.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if let Value::Object(property) = property
                && simplify(property, descriptions)
                && required.contains(name)
            {
                // Always present but sometimes null: no single type describes it.
                property.remove("type");
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(Value::Object(subschema)) = node.get_mut(key) {
            simplify(subschema, descriptions);
        }
    }
    nullable
}

/// Rewrites `oneOf: [{const: "a"}, {const: "b"}, ...]` (what schemars makes of an enum whose
/// variants carry doc comments) as `type: "string", enum: ["a", "b", ...]`: the one form of a
/// closed set of strings that every client accepts (`oneOf` and `const` are not). Leaves any
/// other `oneOf` alone.
fn constants_to_enum(node: &mut JsonObject) {
    let Some(Value::Array(alternatives)) = node.get("oneOf") else {
        return;
    };
    let constants: Option<Vec<Value>> = alternatives
        .iter()
        .map(|alternative| {
            alternative
                .get("const")
                .filter(|constant| constant.is_string())
                .cloned()
        })
        .collect();
    let Some(constants) = constants else {
        return;
    };
    node.remove("oneOf");
    node.insert("type".to_owned(), Value::from("string"));
    node.insert("enum".to_owned(), Value::Array(constants));
}

/// Removes `null` from `type: [T, "null"]` (leaving `type: T`, and taking `null` out of an
/// `enum` next to it) and from
/// `anyOf: [S, {type: null}]` (leaving `S` merged into the node). Returns whether it did.
fn take_null_out(node: &mut JsonObject) -> bool {
    if let Some(Value::Array(types)) = node.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|kind| kind.as_str() != Some("null"))
            .cloned()
            .collect();
        let nullable = kept.len() < types.len();
        // An optional enum lists `null` among its values too; with `type` narrowed to one
        // string it would contradict it.
        if nullable && let Some(Value::Array(values)) = node.get_mut("enum") {
            values.retain(|value| !value.is_null());
        }
        match kept.as_slice() {
            [single] => node.insert("type".to_owned(), single.clone()),
            // Several non-null types have no one-string form; leaving `type` out accepts them all.
            _ => node.remove("type"),
        };
        return nullable;
    }
    let Some(Value::Array(alternatives)) = node.get("anyOf") else {
        return false;
    };
    let is_null = |schema: &Value| schema.get("type").and_then(Value::as_str) == Some("null");
    let [first, second] = alternatives.as_slice() else {
        return false;
    };
    let kept = match (is_null(first), is_null(second)) {
        (false, true) => first.clone(),
        (true, false) => second.clone(),
        _ => return false,
    };
    node.remove("anyOf");
    if let Value::Object(kept) = kept {
        for (key, value) in kept {
            node.entry(key).or_insert(value);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Argument shape with every case the rewrite handles.
    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        /// Needed.
        name: String,
        /// Optional text.
        note: Option<String>,
        /// Optional count.
        limit: Option<u32>,
        /// Optional nested value.
        inner: Option<Inner>,
        /// Items.
        list: Vec<Inner>,
    }

    /// Nested.
    #[derive(serde::Deserialize, serde::Serialize, JsonSchema)]
    struct Inner {
        /// A number.
        count: usize,
    }

    #[test]
    fn an_enum_of_documented_variants_becomes_one_string_enum() {
        let mut node = serde_json::json!({"oneOf": [
            {"type": "string", "const": "rust", "description": "Rust."},
            {"type": "string", "const": "go"}
        ]});
        let Value::Object(object) = &mut node else {
            unreachable!()
        };
        constants_to_enum(object);
        assert_eq!(
            node,
            serde_json::json!({"type": "string", "enum": ["rust", "go"]})
        );
        let mut mixed = serde_json::json!({"oneOf": [{"const": "a"}, {"type": "integer"}]});
        let Value::Object(object) = &mut mixed else {
            unreachable!()
        };
        constants_to_enum(object);
        assert_eq!(
            mixed,
            serde_json::json!({"oneOf": [{"const": "a"}, {"type": "integer"}]})
        );
    }

    #[test]
    fn input_schema_is_flat_with_optional_fields_not_required() {
        let inner = serde_json::json!({
            "type": "object",
            "properties": {"count": {"description": "A number.", "type": "integer", "minimum": 0}},
            "required": ["count"]
        });
        assert_eq!(
            Value::Object(input::<Sample>()),
            serde_json::json!({
                "type": "object",
                "properties": {
                    "name": {"description": "Needed.", "type": "string"},
                    "note": {"description": "Optional text.", "type": "string"},
                    "limit": {"description": "Optional count.", "type": "integer", "minimum": 0},
                    "inner": {
                        "description": "Optional nested value.",
                        "type": "object",
                        "properties": inner["properties"],
                        "required": ["count"]
                    },
                    "list": {
                        "description": "Items.",
                        "type": "array",
                        // An inlined type keeps its own doc comment where no field names it.
                        "items": {"description": "Nested.", "type": "object",
                                  "properties": inner["properties"], "required": ["count"]}
                    }
                },
                "additionalProperties": false,
                "required": ["name", "list"]
            })
        );
    }

    #[test]
    fn output_schema_has_types_without_descriptions_and_null_fields_untyped() {
        let inner = serde_json::json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}},
            "required": ["count"]
        });
        assert_eq!(
            Value::Object(output::<Sample>()),
            serde_json::json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "note": {},
                    "limit": {},
                    "inner": {"properties": inner["properties"], "required": ["count"]},
                    "list": {"type": "array", "items": inner}
                },
                "additionalProperties": false,
                "required": ["name", "note", "limit", "inner", "list"]
            })
        );
    }
}
