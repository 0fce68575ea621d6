//! The bounds a tool's input schema declares (`minimum`, `maximum`, `enum` on its top-level
//! arguments), checked on every call before the arguments are parsed. The schema a client reads
//! and the check a call meets come from the same `#[schemars(..)]` attributes, so they cannot
//! drift apart, and an out-of-range value gets a message naming the argument and its range
//! instead of being clamped in silence.

use rmcp::model::JsonObject;
use serde_json::Value;

/// What one argument may hold, read from its property in the input schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ArgumentBounds {
    /// The argument's name (the property key).
    name: String,
    /// Smallest number accepted (`minimum`), if any.
    minimum: Option<f64>,
    /// Largest number accepted (`maximum`), if any.
    maximum: Option<f64>,
    /// The only values accepted (`enum`), if any, in schema order.
    values: Option<Vec<Value>>,
}

/// The bounded arguments of `schema` (an input schema as [`super::schema::input`] makes it), in
/// property order; arguments without `minimum`, `maximum` or `enum` are left out.
pub(crate) fn of_schema(schema: &JsonObject) -> Vec<ArgumentBounds> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(name, property)| {
            let bounds = ArgumentBounds {
                name: name.clone(),
                minimum: property.get("minimum").and_then(Value::as_f64),
                maximum: property.get("maximum").and_then(Value::as_f64),
                values: property.get("enum").and_then(Value::as_array).cloned(),
            };
            let bounded =
                bounds.minimum.is_some() || bounds.maximum.is_some() || bounds.values.is_some();
            bounded.then_some(bounds)
        })
        .collect()
}

/// Checks `arguments` (a `tools/call`'s `arguments`) against `bounds`. An absent or `null`
/// argument is not checked (it takes its default), nor is a value of the wrong type (parsing
/// reports that).
///
/// Errors: a sentence naming the first argument out of bounds, the value given and what is
/// accepted.
pub(crate) fn check(bounds: &[ArgumentBounds], arguments: &JsonObject) -> Result<(), String> {
    for bound in bounds {
        let Some(value) = arguments.get(&bound.name) else {
            continue;
        };
        if let Some(number) = value.as_f64() {
            let below = bound.minimum.is_some_and(|minimum| number < minimum);
            let above = bound.maximum.is_some_and(|maximum| number > maximum);
            if below || above {
                return Err(format!(
                    "`{}` is {value}; {}",
                    bound.name,
                    range_text(bound.minimum, bound.maximum)
                ));
            }
        }
        if let (Some(values), Some(text)) = (&bound.values, value.as_str())
            && !values.iter().any(|allowed| allowed.as_str() == Some(text))
        {
            let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            return Err(format!(
                "`{}` is `{text}`; use one of {}",
                bound.name,
                names.join(", ")
            ));
        }
    }
    Ok(())
}

/// "use 1 to 50", "use at least 1", "use at most 32", written as the schema's numbers.
fn range_text(minimum: Option<f64>, maximum: Option<f64>) -> String {
    match (minimum, maximum) {
        (Some(minimum), Some(maximum)) => format!("use {minimum} to {maximum}"),
        (Some(minimum), None) => format!("use at least {minimum}"),
        (None, Some(maximum)) => format!("use at most {maximum}"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(object) => object,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn out_of_range_numbers_and_unknown_values_are_named_with_what_is_accepted() {
        let schema = object(serde_json::json!({"properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            "files": {"type": "integer", "minimum": 1},
            "mode": {"type": "string", "enum": ["split", "inline"]},
            "name": {"type": "string"}
        }}));
        let bounds = of_schema(&schema);
        assert_eq!(bounds.len(), 3);
        let call = |arguments: Value| check(&bounds, &object(arguments));
        assert_eq!(
            call(serde_json::json!({"limit": 1000})),
            Err("`limit` is 1000; use 1 to 50".to_owned())
        );
        assert_eq!(
            call(serde_json::json!({"files": 0})),
            Err("`files` is 0; use at least 1".to_owned())
        );
        assert_eq!(
            call(serde_json::json!({"mode": "both"})),
            Err("`mode` is `both`; use one of split, inline".to_owned())
        );
        assert_eq!(
            call(serde_json::json!({"limit": 50, "files": 9, "mode": "inline", "name": "x"})),
            Ok(())
        );
        assert_eq!(call(serde_json::json!({"limit": null})), Ok(()));
    }
}
