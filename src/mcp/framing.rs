//! Newline-delimited JSON-RPC framing in front of the MCP service. Every stdin line is checked
//! before the protocol library sees it, so the server answers what the library would drop or
//! answer without an id: a line that is not JSON gets -32700, a JSON value that is not a message
//! object gets -32600, a request rmcp cannot read gets -32600 or -32602 with its own `id` (see
//! [`judge()`]), a JSON array is a batch handled per the negotiated protocol version (see
//! [`batch`]), and a line over [`limits::MAX_LINE_BYTES`] is discarded with -32600, carrying its
//! `id` when that comes within the line's first [`limits::MAX_DISCARDED_LINE_HEAD_BYTES`]; the
//! server keeps reading in every case. Lines may end in CRLF; multi-byte UTF-8 split across reads is
//! whole once a line is complete.

pub(crate) mod batch;
pub mod judge;

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedSender;

use self::batch::BatchPlan;
pub(crate) use self::batch::Exchange;
use self::judge::{Check, INVALID_REQUEST, PARSE_ERROR, check_message, error_reply};
use crate::limits;

/// Outcome of reading one line.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line without its `\n` (a `\r` before it is kept); the last line of the input
    /// counts even without a newline.
    Complete(Vec<u8>),
    /// A line over [`limits::MAX_LINE_BYTES`]; its bytes were read and dropped except `head`, its
    /// first [`limits::MAX_DISCARDED_LINE_HEAD_BYTES`] bytes (fewer when the reads filled less),
    /// kept so the refusal can carry the request's `id` when it comes before the huge part.
    TooLong {
        /// The first bytes of the discarded line.
        head: Vec<u8>,
    },
    /// End of input.
    End,
}

/// Reads one `\n`-terminated line of at most [`limits::MAX_LINE_BYTES`] without buffering more
/// than that.
///
/// Errors: I/O errors of `reader`.
pub async fn read_line(reader: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            // End of input: a last line without a newline still counts.
            return Ok(if too_long {
                Line::TooLong { head: line }
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Complete(line)
            });
        }
        let (chunk, found_newline) = match available.iter().position(|&byte| byte == b'\n') {
            Some(index) => (&available[..index], true),
            None => (available, false),
        };
        let consumed = chunk.len() + usize::from(found_newline);
        if !too_long {
            if line.len() + chunk.len() > limits::MAX_LINE_BYTES {
                too_long = true;
                // Only the head is kept from here on, so a huge line never holds more than
                // the limit in memory; the rest of it is read and dropped.
                line.truncate(limits::MAX_DISCARDED_LINE_HEAD_BYTES);
                let room = limits::MAX_DISCARDED_LINE_HEAD_BYTES - line.len();
                line.extend_from_slice(&chunk[..room.min(chunk.len())]);
                line.shrink_to_fit();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(consumed);
        if found_newline {
            return Ok(if too_long {
                Line::TooLong { head: line }
            } else {
                Line::Complete(line)
            });
        }
    }
}

/// The top-level `id` of a request whose line was too long, read from the line's first bytes
/// `head`: a string or an integer id that comes before the huge part (the usual
/// `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{...}}`), else `null`, as JSON-RPC 2.0
/// §5 asks when the id cannot be read. Parsed by `serde_json`, which stops at the id, so the cut
/// rest of the line is never read.
#[must_use]
pub(crate) fn id_before_the_huge_part(head: &[u8]) -> Value {
    let mut found = None;
    let mut deserializer = serde_json::Deserializer::from_slice(head);
    // The head is cut in the middle of the line, so serde_json always ends in an error once the
    // visitor returns; the id, when it was read, is already in `found`.
    let _cut_line_error = serde::Deserializer::deserialize_map(
        &mut deserializer,
        LeadingIdVisitor { found: &mut found },
    );
    match found {
        Some(id @ Value::String(_)) => id,
        Some(Value::Number(number)) if number.is_i64() || number.is_u64() => Value::Number(number),
        _ => Value::Null,
    }
}

/// Reads a JSON object's keys in order and stores the value of the first `id` key in `found`,
/// then stops; every other value is skipped without being kept.
struct LeadingIdVisitor<'slot> {
    found: &'slot mut Option<Value>,
}

impl<'de> serde::de::Visitor<'de> for LeadingIdVisitor<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "id" {
                *self.found = Some(map.next_value::<Value>()?);
                return Ok(());
            }
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(())
    }
}

/// What to do with one line.
#[derive(Debug)]
pub enum Verdict {
    /// Pass these bytes (the line with a `\n`) to the service. `initialize` holds the request's
    /// id when it is an `initialize` request, so the reply's protocol version can be learnt.
    Forward {
        /// The line to forward, newline included.
        bytes: Vec<u8>,
        /// The id of an `initialize` request.
        initialize: Option<Value>,
    },
    /// Answer with this line (a JSON-RPC error response) instead.
    Reply(String),
    /// A non-empty JSON array: a batch, handled by [`batch::plan`] once the version is known.
    Batch(Vec<Value>),
    /// Nothing to do: a blank line, or a notification that is never answered.
    Skip,
}

/// Decides about one line read by [`read_line`] (a trailing `\r` is dropped first).
#[must_use]
pub fn judge(mut line: Vec<u8>) -> Verdict {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(&line) {
        Ok(value) => value,
        Err(error) => {
            return Verdict::Reply(
                error_reply(&Value::Null, PARSE_ERROR, &format!("Parse error: {error}"))
                    .to_string(),
            );
        }
    };
    if let Value::Array(entries) = value {
        if entries.is_empty() {
            return Verdict::Reply(
                error_reply(
                    &Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: an empty batch",
                )
                .to_string(),
            );
        }
        return Verdict::Batch(entries);
    }
    match check_message(&value) {
        Check::Forward => {
            let initialize = (value.get("method").and_then(Value::as_str) == Some("initialize"))
                .then(|| value.get("id").cloned())
                .flatten();
            line.push(b'\n');
            Verdict::Forward {
                bytes: line,
                initialize,
            }
        }
        Check::Reply(reply) => Verdict::Reply(reply.to_string()),
        Check::Skip => Verdict::Skip,
    }
}

/// Copies checked lines from `input` to `service_input` and sends error replies to `replies`;
/// batches are split and their requests registered with `exchange` (see [`batch`]). Returns at
/// end of input (after closing `service_input`, so the service sees the end too).
///
/// Errors: I/O errors reading stdin or writing to the service.
pub(crate) async fn pump_input(
    mut input: impl AsyncBufRead + Unpin,
    mut service_input: impl AsyncWrite + Unpin,
    replies: UnboundedSender<String>,
    exchange: Arc<Exchange>,
) -> std::io::Result<()> {
    loop {
        let verdict = match read_line(&mut input).await? {
            Line::End => break,
            Line::TooLong { head } => Verdict::Reply(
                error_reply(
                    &id_before_the_huge_part(&head),
                    INVALID_REQUEST,
                    &format!(
                        "Invalid Request: line of {} MiB or more, discarded",
                        (limits::MAX_LINE_BYTES + 1) / (1024 * 1024)
                    ),
                )
                .to_string(),
            ),
            Line::Complete(line) => judge(line),
        };
        match verdict {
            Verdict::Forward { bytes, initialize } => {
                if let Some(id) = initialize {
                    exchange.initialize_forwarded(id);
                }
                exchange.forwarded(&bytes);
                service_input.write_all(&bytes).await?;
                service_input.flush().await?;
            }
            Verdict::Reply(reply) => {
                replies.send(reply).ok();
            }
            Verdict::Batch(entries) => {
                let version = exchange.agreed_version().await;
                let number = exchange.next_batch_number();
                match batch::plan(entries, version.as_deref(), number) {
                    BatchPlan::Reply(reply) => {
                        replies.send(reply).ok();
                    }
                    BatchPlan::Silent => {}
                    BatchPlan::Gather {
                        lines,
                        slots,
                        routes,
                    } => {
                        // Routes are registered before anything is forwarded, so no reply can
                        // arrive before its batch is known.
                        if let Some(reply) = exchange.gather(number, slots, routes) {
                            replies.send(reply).ok();
                        }
                        for line in lines {
                            exchange.forwarded(&line);
                            service_input.write_all(&line).await?;
                        }
                        service_input.flush().await?;
                    }
                }
            }
            Verdict::Skip => {}
        }
    }
    // Requests read before the end of input are still answered: closing the service's input
    // now would cancel the ones in progress and drop their replies.
    exchange.settled(END_OF_INPUT_PATIENCE).await;
    service_input.shutdown().await
}

/// How long the end of input waits for replies to requests still in progress.
const END_OF_INPUT_PATIENCE: std::time::Duration = std::time::Duration::from_mins(2);

/// Copies whole lines from the service's output to `replies`, through `exchange`, which learns
/// the agreed protocol version and gathers batch replies. Marks `exchange` closed at the end.
///
/// Errors: I/O errors reading the service output.
pub(crate) async fn pump_output(
    service_output: impl AsyncBufRead + Unpin,
    replies: UnboundedSender<String>,
    exchange: Arc<Exchange>,
) -> std::io::Result<()> {
    let mut lines = service_output.lines();
    let outcome = loop {
        match lines.next_line().await {
            Ok(Some(line)) => {
                if let Some(line) = exchange.service_line(line) {
                    replies.send(line).ok();
                }
            }
            Ok(None) => break Ok(()),
            Err(error) => break Err(error),
        }
    };
    exchange.close();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &[u8]) -> Value {
        match judge(line.to_vec()) {
            Verdict::Reply(reply) => serde_json::from_str(&reply).expect("reply is JSON"),
            other => panic!(
                "expected a reply to {}, got {other:?}",
                String::from_utf8_lossy(line)
            ),
        }
    }

    #[test]
    fn verdicts() {
        assert_eq!(reply(b"{bad")["error"]["code"], -32700);
        assert_eq!(reply(b"[]")["error"]["code"], -32600);
        assert!(matches!(judge(b"[1,2]".to_vec()), Verdict::Batch(entries) if entries.len() == 2));
        assert_eq!(
            reply(br#"{"jsonrpc":"2.0","id":4,"foo":1}"#),
            serde_json::json!({"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request: expected a JSON-RPC 2.0 request with `jsonrpc` and `method`"}})
        );
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"x"}"#.to_vec()),
            Verdict::Forward {
                initialize: None,
                ..
            }
        ));
        assert!(matches!(
            judge(br#"{"method":"notifications/x"}"#.to_vec()),
            Verdict::Skip
        ));
        assert!(matches!(judge(b"  \r".to_vec()), Verdict::Skip));
    }

    #[test]
    fn requests_rmcp_cannot_read_keep_their_id() {
        let cases: [(&[u8], Value, i64); 6] = [
            (
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}"#,
                7.into(),
                -32602,
            ),
            (
                br#"{"jsonrpc":"2.0","id":"s","method":"ping","params":5}"#,
                "s".into(),
                -32602,
            ),
            (
                br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}"#,
                9.into(),
                -32602,
            ),
            (
                br#"{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":3}}"#,
                10.into(),
                -32602,
            ),
            (
                br#"{"jsonrpc":"2.0","id":12.5,"method":"ping"}"#,
                serde_json::json!(12.5),
                -32600,
            ),
            (
                br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                Value::Null,
                -32600,
            ),
        ];
        for (line, id, code) in cases {
            let answer = reply(line);
            assert_eq!(answer["id"], id, "{answer}");
            assert_eq!(answer["error"]["code"], code, "{answer}");
        }
        assert_eq!(
            reply(br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{}}"#)["error"]["message"],
            "Invalid params for `tools/call`: missing field `name`"
        );
    }

    #[test]
    fn the_id_of_a_too_long_line_is_read_from_its_head() {
        let cases: [(&[u8], Value); 9] = [
            (
                br#"{"jsonrpc":"2.0","id":777,"method":"tools/call","params":{"arguments":{"content":"aaaa"#,
                777.into(),
            ),
            (br#"{"id":"req-1","params":{"x":[1,2,"#, "req-1".into()),
            (br#"{"params":{"id":5,"x":"aaaa"#, Value::Null),
            (br#"{"jsonrpc":"2.0","method":"x","params":{"a":"aaaa"#, Value::Null),
            (br#"{"jsonrpc":"2.0","id":12.5,"params":"#, Value::Null),
            (br#"{"jsonrpc":"2.0","id":{"a":1},"params":"#, Value::Null),
            (br#"{"jsonrpc":"2.0","id":"cut in the mid"#, Value::Null),
            (br#"[{"jsonrpc":"2.0","id":3,"#, Value::Null),
            (b"aaaaaaaa", Value::Null),
        ];
        for (head, id) in cases {
            assert_eq!(
                id_before_the_huge_part(head),
                id,
                "{}",
                String::from_utf8_lossy(head)
            );
        }
    }

    #[tokio::test]
    async fn a_too_long_line_keeps_only_its_head() {
        let mut stream = br#"{"id":1,"x":""#.to_vec();
        stream.resize(limits::MAX_LINE_BYTES + 10, b'a');
        stream.extend_from_slice(b"\n{}\n");
        let mut reader = tokio::io::BufReader::with_capacity(4096, stream.as_slice());
        let Line::TooLong { head } = read_line(&mut reader).await.expect("in-memory read") else {
            panic!("the line is too long");
        };
        assert_eq!(head, stream[..limits::MAX_DISCARDED_LINE_HEAD_BYTES]);
        assert_eq!(
            read_line(&mut reader).await.expect("in-memory read"),
            Line::Complete(b"{}".to_vec())
        );
    }

    #[test]
    fn initialize_is_flagged_for_the_version() {
        let line = br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}"#;
        assert!(matches!(
            judge(line.to_vec()),
            Verdict::Forward { initialize: Some(Value::String(id)), .. } if id == "init"
        ));
    }
}
