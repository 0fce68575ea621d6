//! Checks one JSON-RPC message before the protocol library (rmcp) sees it. rmcp answers a message
//! it cannot read with an error that carries no `id`, and a known method with unreadable params
//! with "method not found"; here every such request is answered instead, with its own `id`
//! whenever that can be read (`null` only when it cannot, JSON-RPC 2.0 §5), and -32602 when the
//! fault is in `params`. Whatever is forwarded parses as rmcp's own message type, so rmcp never
//! has to answer without an id.

use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, InitializeRequest, JsonRpcRequest,
    ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest, PingRequest,
    ReadResourceRequest,
};
use serde::Deserialize as _;
use serde_json::{Map, Value, json};

/// JSON-RPC "Parse error": the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC "Invalid Request": JSON, but not an acceptable message.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC "Invalid params": a known method with params of the wrong shape.
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one message.
#[derive(Debug)]
pub(super) enum Check {
    /// Pass it to the service as it is.
    Forward,
    /// Answer it with this error reply instead (a JSON-RPC response object).
    Reply(Value),
    /// Drop it: a notification or a client's response that the service could not read. Neither
    /// is ever answered, even when malformed.
    Skip,
}

/// A JSON-RPC error response object with `id`, `code` and `message`.
#[must_use]
pub fn error_reply(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `id` to answer with: the message's own `id` when it is a string or a number, else
/// `null` (an object, list, boolean or missing id cannot be echoed as an id).
pub(super) fn readable_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// Decides about one message (any JSON value; a batch's entries are checked one by one).
pub(super) fn check_message(message: &Value) -> Check {
    let Value::Object(object) = message else {
        return Check::Reply(error_reply(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message must be a JSON object",
        ));
    };
    let id = readable_id(message);
    let method = object.get("method").and_then(Value::as_str);
    let is_response =
        method.is_none() && (object.contains_key("result") || object.contains_key("error"));
    let is_notification = !object.contains_key("id");
    let is_jsonrpc = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    if !is_jsonrpc || (method.is_none() && !is_response) {
        if object.contains_key("method") && is_notification {
            return Check::Skip;
        }
        return Check::Reply(error_reply(
            &id,
            INVALID_REQUEST,
            "Invalid Request: expected a JSON-RPC 2.0 request with `jsonrpc` and `method`",
        ));
    }
    let Some(method) = method else {
        // A response from the client to a request of the server: never answered.
        return if parses_for_service(message) {
            Check::Forward
        } else {
            Check::Skip
        };
    };
    if is_notification {
        return if parses_for_service(message) {
            Check::Forward
        } else {
            Check::Skip
        };
    }
    check_request(message, object, method, &id)
}

/// The checks of a request (a message with a `method` and an `id`): a usable id, params that
/// are an object, the params our own checks require, and a shape rmcp can read.
fn check_request(message: &Value, object: &Map<String, Value>, method: &str, id: &Value) -> Check {
    let id_is_usable = match &object["id"] {
        Value::String(_) => true,
        Value::Number(number) => number.as_i64().is_some(),
        _ => false,
    };
    if !id_is_usable {
        return Check::Reply(error_reply(
            id,
            INVALID_REQUEST,
            "Invalid Request: `id` must be a string or an integer between -2^63 and 2^63-1",
        ));
    }
    if let Some(params) = object.get("params")
        && !params.is_object()
        && !params.is_null()
    {
        return Check::Reply(error_reply(
            id,
            INVALID_PARAMS,
            &format!("Invalid params for `{method}`: `params` must be an object"),
        ));
    }
    if let Some(reason) = params_problem(method, message) {
        return Check::Reply(error_reply(
            id,
            INVALID_PARAMS,
            &format!("Invalid params for `{method}`: {reason}"),
        ));
    }
    if parses_for_service(message) {
        return Check::Forward;
    }
    // Whatever else rmcp cannot read: the params when the message reads without them.
    let mut without_params = message.clone();
    if let Some(object) = without_params.as_object_mut() {
        object.remove("params");
    }
    if parses_for_service(&without_params) {
        return Check::Reply(error_reply(
            id,
            INVALID_PARAMS,
            &format!("Invalid params for `{method}`: they do not have the shape MCP defines"),
        ));
    }
    Check::Reply(error_reply(
        id,
        INVALID_REQUEST,
        "Invalid Request: not an MCP request this server can read",
    ))
}

/// Whether rmcp reads `message` as a client message (what its stdio transport does per line).
fn parses_for_service(message: &Value) -> bool {
    ClientJsonRpcMessage::deserialize(message).is_ok()
}

/// For the methods this server answers, why the request's params do not fit the method (rmcp
/// would otherwise treat it as an unknown method), using rmcp's own request types.
fn params_problem(method: &str, message: &Value) -> Option<String> {
    fn problem<T: serde::de::DeserializeOwned>(message: &Value) -> Option<String> {
        JsonRpcRequest::<T>::deserialize(message)
            .err()
            .map(|error| error.to_string())
    }
    match method {
        "initialize" => problem::<InitializeRequest>(message),
        "ping" => problem::<PingRequest>(message),
        "tools/list" => problem::<ListToolsRequest>(message),
        "tools/call" => problem::<CallToolRequest>(message),
        "resources/list" => problem::<ListResourcesRequest>(message),
        "resources/templates/list" => problem::<ListResourceTemplatesRequest>(message),
        "resources/read" => problem::<ReadResourceRequest>(message),
        _ => None,
    }
}
