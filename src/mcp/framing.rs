//! Newline-delimited JSON-RPC framing in front of the MCP service. Every stdin line is checked
//! before the protocol library sees it, so the server answers what the library would drop:
//! a line that is not JSON gets -32700, a JSON value that is not a message object gets -32600,
//! and a line over 16 MiB is discarded with -32600; the server keeps reading in every case.
//! Lines may end in CRLF; multi-byte UTF-8 split across reads is whole once a line is complete.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedSender;

/// Longest accepted line in bytes (16 MiB), newline excluded.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Outcome of reading one line.
enum Line {
    Complete(Vec<u8>),
    TooLong,
    End,
}

/// Reads one `\n`-terminated line of at most [`MAX_LINE_BYTES`] without buffering more than that.
async fn read_line(reader: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            // End of input: a last line without a newline still counts.
            return Ok(if too_long {
                Line::TooLong
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
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        reader.consume(consumed);
        if found_newline {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete(line)
            });
        }
    }
}

fn error_response(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// What to do with one line.
enum Verdict {
    Forward(Vec<u8>),
    Reply(String),
    Skip,
}

fn judge(mut line: Vec<u8>) -> Verdict {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(&line) {
        Ok(value) => value,
        Err(error) => {
            return Verdict::Reply(error_response(
                &Value::Null,
                -32700,
                &format!("Parse error: {error}"),
            ));
        }
    };
    let Value::Object(object) = &value else {
        return Verdict::Reply(error_response(
            &Value::Null,
            -32600,
            "Invalid Request: a message must be a JSON object",
        ));
    };
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    let is_message = object.get("jsonrpc") == Some(&Value::String("2.0".to_owned()))
        && (object.get("method").is_some_and(Value::is_string)
            || object.contains_key("result")
            || object.contains_key("error"));
    if !is_message {
        // A notification (no id) is never answered, even when malformed.
        if object.contains_key("method") && !object.contains_key("id") {
            return Verdict::Skip;
        }
        return Verdict::Reply(error_response(
            &id,
            -32600,
            "Invalid Request: expected a JSON-RPC 2.0 request with `jsonrpc` and `method`",
        ));
    }
    line.push(b'\n');
    Verdict::Forward(line)
}

/// Copies checked lines from `input` to `service_input` and sends error replies to `replies`.
/// Returns at end of input (after closing `service_input`, so the service sees the end too).
///
/// Errors: I/O errors reading stdin or writing to the service.
pub async fn pump_input(
    mut input: impl AsyncBufRead + Unpin,
    mut service_input: impl AsyncWrite + Unpin,
    replies: UnboundedSender<String>,
) -> std::io::Result<()> {
    loop {
        match read_line(&mut input).await? {
            Line::End => break,
            Line::TooLong => {
                replies
                    .send(error_response(
                        &Value::Null,
                        -32600,
                        "Invalid Request: line longer than 16 MiB, discarded",
                    ))
                    .ok();
            }
            Line::Complete(line) => match judge(line) {
                Verdict::Forward(bytes) => {
                    service_input.write_all(&bytes).await?;
                    service_input.flush().await?;
                }
                Verdict::Reply(reply) => {
                    replies.send(reply).ok();
                }
                Verdict::Skip => {}
            },
        }
    }
    service_input.shutdown().await
}

/// Copies whole lines from the service's output to `replies`.
///
/// Errors: I/O errors reading the service output.
pub async fn pump_output(
    service_output: impl AsyncBufRead + Unpin,
    replies: UnboundedSender<String>,
) -> std::io::Result<()> {
    let mut lines = service_output.lines();
    while let Some(line) = lines.next_line().await? {
        replies.send(line).ok();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert!(
            matches!(judge(b"{bad".to_vec()), Verdict::Reply(reply) if reply.contains("-32700"))
        );
        assert!(
            matches!(judge(b"[1,2]".to_vec()), Verdict::Reply(reply) if reply.contains("-32600"))
        );
        assert!(
            matches!(judge(br#"{"jsonrpc":"2.0","id":4,"foo":1}"#.to_vec()), Verdict::Reply(reply) if reply.contains("\"id\":4"))
        );
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"x"}"#.to_vec()),
            Verdict::Forward(_)
        ));
        assert!(matches!(
            judge(br#"{"method":"notifications/x"}"#.to_vec()),
            Verdict::Skip
        ));
        assert!(matches!(judge(b"  \r".to_vec()), Verdict::Skip));
    }
}
