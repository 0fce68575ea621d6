//! JSON-RPC batches, which MCP allowed in protocol version 2025-03-26 only. The framing learns
//! the version the server agreed to from its reply to `initialize`; under 2025-03-26 a batch
//! line is split, each request is forwarded under a private id, and the replies are gathered
//! back, under the client's ids, into one JSON array line. Under any other version a batch is
//! one -32600 error.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::watch;

use super::judge::{Check, INVALID_REQUEST, check_message, error_reply, readable_id};
use crate::limits;

/// The one protocol version that has batches.
pub const BATCH_VERSION: &str = "2025-03-26";

/// Prefix of the private ids batch requests are forwarded under.
const PRIVATE_ID_PREFIX: &str = "ai-rulez-batch:";

/// The two members of a line from the service that tell what it is: `id` (kept as written,
/// `null` included) and whether it has a `method`. Any other member is skipped unread.
#[derive(serde::Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present_unread")]
    method: Option<()>,
}

/// A member that is present, whatever its value (`null` too).
fn present<'de, D: serde::Deserializer<'de>>(member: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(member).map(Some)
}

/// A member that is present, its value skipped.
fn present_unread<'de, D: serde::Deserializer<'de>>(member: D) -> Result<Option<()>, D::Error> {
    <serde::de::IgnoredAny as serde::Deserialize>::deserialize(member).map(|_| Some(()))
}

/// Where `initialize` stands, as the framing has seen it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Negotiation {
    /// No `initialize` forwarded yet, or the last one was answered with an error.
    Idle,
    /// An `initialize` with this id is forwarded and not answered yet.
    Pending(Value),
    /// The server answered `initialize` with this protocol version.
    Agreed(String),
    /// The service's output ended; nothing will be agreed any more.
    Closed,
}

/// State shared by the input and output pumps of one server: the negotiated version, the
/// batches whose replies are still being gathered, and how many forwarded requests are still
/// unanswered (so the end of input waits for them instead of dropping their replies).
pub(crate) struct Exchange {
    negotiation: watch::Sender<Negotiation>,
    gathering: Mutex<Gathering>,
    unanswered: watch::Sender<u64>,
    /// Requests forwarded and not yet answered, and which of them the client cancelled.
    requests: Mutex<Requests>,
}

/// The ids (as JSON text) of requests in progress, and of those the client cancelled: the
/// reply to a cancelled request is not sent (MCP: "the receiver ... SHOULD NOT send a
/// response for the cancelled request").
#[derive(Default)]
struct Requests {
    in_progress: std::collections::HashSet<String>,
    cancelled: std::collections::HashSet<String>,
}

#[derive(Default)]
struct Gathering {
    /// Private id → (batch number, slot, the client's id).
    routes: HashMap<String, (u64, usize, Value)>,
    /// Batch number → replies by slot, and how many are still missing.
    batches: HashMap<u64, (Vec<Option<Value>>, usize)>,
    next_batch: u64,
}

/// What one batch line becomes.
#[derive(Debug, PartialEq)]
pub enum BatchPlan {
    /// Answer the whole line with this reply line (a single error, or an array of errors).
    Reply(String),
    /// Nothing to answer: every entry was a notification or a client's response, or was skipped.
    Silent,
    /// Forward these lines (with newlines) and gather the replies into `slots` (one per entry
    /// that gets an answer, in batch order; `None` until its reply arrives). `routes` maps each
    /// private id to its slot and the client's id.
    Gather {
        /// Lines to forward to the service.
        lines: Vec<Vec<u8>>,
        /// Replies by slot: errors found here are already filled in.
        slots: Vec<Option<Value>>,
        /// (private id, slot, client's id) per forwarded request.
        routes: Vec<(String, usize, Value)>,
    },
}

impl Default for Exchange {
    fn default() -> Self {
        Self {
            negotiation: watch::Sender::new(Negotiation::Idle),
            gathering: Mutex::new(Gathering::default()),
            unanswered: watch::Sender::new(0),
            requests: Mutex::new(Requests::default()),
        }
    }
}

impl Exchange {
    /// Counts a line forwarded to the service that is a request (it has a `method` and an `id`),
    /// so its reply is waited for at the end of input.
    /// A `notifications/cancelled` for a request in progress marks that request cancelled.
    pub(crate) fn forwarded(&self, line: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let Ok(mut requests) = self.requests.lock() else {
            return;
        };
        match (message.get("method"), message.get("id")) {
            (Some(_), Some(id)) => {
                requests.in_progress.insert(id.to_string());
                self.unanswered.send_modify(|count| *count += 1);
            }
            (Some(method), None) if method == "notifications/cancelled" => {
                // rmcp sends nothing for a cancelled request, so it is no longer waited for at
                // the end of input; a reply that still comes is dropped.
                if let Some(id) = message.pointer("/params/requestId") {
                    let id = id.to_string();
                    if requests.in_progress.remove(&id) {
                        requests.cancelled.insert(id);
                        self.unanswered
                            .send_modify(|count| *count = count.saturating_sub(1));
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether `reply` answers a request the client cancelled (then it is not sent, and was
    /// already counted as answered); a reply ends its request's progress either way.
    fn answers_cancelled(&self, reply: &Envelope) -> bool {
        let Some(id) = reply.id.as_ref().filter(|_| reply.method.is_none()) else {
            return false;
        };
        let id = id.to_string();
        self.requests.lock().is_ok_and(|mut requests| {
            requests.in_progress.remove(&id);
            requests.cancelled.remove(&id)
        })
    }

    /// Counts a line from the service that answers a request (an `id`, no `method`).
    fn answered(&self, message: &Envelope) {
        if message.method.is_none() && message.id.is_some() {
            self.unanswered
                .send_modify(|count| *count = count.saturating_sub(1));
        }
    }

    /// Waits until every forwarded request has its reply, the service's output ends, or
    /// `patience` passes (a request the service never answers must not keep the process alive).
    pub(crate) async fn settled(&self, patience: std::time::Duration) {
        let mut receiver = self.unanswered.subscribe();
        let mut closed = self.negotiation.subscribe();
        tokio::select! {
            _ = receiver.wait_for(|count| *count == 0) => {}
            _ = closed.wait_for(|state| matches!(state, Negotiation::Closed)) => {}
            () = tokio::time::sleep(patience) => {}
        }
    }

    /// Records that an `initialize` request with `id` was forwarded (until a version is agreed).
    pub(crate) fn initialize_forwarded(&self, id: Value) {
        self.negotiation.send_if_modified(|state| {
            if matches!(state, Negotiation::Agreed(_) | Negotiation::Closed) {
                return false;
            }
            *state = Negotiation::Pending(id);
            true
        });
    }

    /// The protocol version the server agreed to, waiting while an `initialize` is unanswered;
    /// `None` before any `initialize`, after a failed one, or once the service has ended.
    pub(crate) async fn agreed_version(&self) -> Option<String> {
        let mut receiver = self.negotiation.subscribe();
        let state = receiver
            .wait_for(|state| !matches!(state, Negotiation::Pending(_)))
            .await
            .ok()?;
        match &*state {
            Negotiation::Agreed(version) => Some(version.clone()),
            _ => None,
        }
    }

    /// Marks the service's output as ended, so no caller waits for a version any more.
    pub(crate) fn close(&self) {
        self.negotiation.send_if_modified(|state| {
            if matches!(state, Negotiation::Agreed(_)) {
                return false;
            }
            *state = Negotiation::Closed;
            true
        });
    }

    /// Opens a batch: returns its number, used in the private ids of its requests.
    pub(crate) fn next_batch_number(&self) -> u64 {
        let Ok(mut gathering) = self.gathering.lock() else {
            return 0;
        };
        gathering.next_batch += 1;
        gathering.next_batch
    }

    /// Registers a planned batch's slots and routes; returns the reply line at once when
    /// nothing is forwarded for an answer (every slot is an error found while planning).
    pub(crate) fn gather(
        &self,
        batch: u64,
        slots: Vec<Option<Value>>,
        routes: Vec<(String, usize, Value)>,
    ) -> Option<String> {
        if routes.is_empty() {
            return reply_array(slots);
        }
        let Ok(mut gathering) = self.gathering.lock() else {
            return None;
        };
        let missing = routes.len();
        for (private, slot, id) in routes {
            gathering.routes.insert(private, (batch, slot, id));
        }
        gathering.batches.insert(batch, (slots, missing));
        None
    }

    /// Looks at one line the service wrote: learns the agreed version from the reply to
    /// `initialize`, and takes replies to batch requests into their batch. Returns the line to
    /// send to the client: the line itself, a finished batch's array, or `None` when the line
    /// was taken into a batch that still waits for replies.
    pub(crate) fn service_line(&self, line: String) -> Option<String> {
        let pending = match &*self.negotiation.borrow() {
            Negotiation::Pending(id) => Some(id.clone()),
            _ => None,
        };
        // Most lines are replies passed on as they are; reading only their `id` and `method`
        // spares building a tree of a reply's whole result (tens of KB for `get_rules`). Only an
        // object has members (serde would read an array's elements as the fields in order).
        if !line.trim_start().starts_with('{') {
            return Some(line);
        }
        let Ok(envelope) = serde_json::from_str::<Envelope>(&line) else {
            return Some(line);
        };
        if self.answers_cancelled(&envelope) {
            return None;
        }
        self.answered(&envelope);
        let has_routes = self
            .gathering
            .lock()
            .is_ok_and(|gathering| !gathering.routes.is_empty());
        if pending.is_none() && !has_routes {
            return Some(line);
        }
        if envelope.method.is_some() {
            return Some(line);
        }
        let Ok(mut reply) = serde_json::from_str::<Value>(&line) else {
            return Some(line);
        };
        if let Some(initialize) = pending
            && reply.get("id") == Some(&initialize)
        {
            let agreed = reply
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .map_or(Negotiation::Idle, |version| {
                    Negotiation::Agreed(version.to_owned())
                });
            self.negotiation.send_replace(agreed);
            return Some(line);
        }
        let Some(private) = reply
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| id.starts_with(PRIVATE_ID_PREFIX))
            .map(str::to_owned)
        else {
            return Some(line);
        };
        let Ok(mut gathering) = self.gathering.lock() else {
            return Some(line);
        };
        let Some((batch, slot, id)) = gathering.routes.remove(&private) else {
            return Some(line);
        };
        if let Some(object) = reply.as_object_mut() {
            object.insert("id".to_owned(), id);
        }
        let finished = gathering
            .batches
            .get_mut(&batch)
            .is_some_and(|(slots, missing)| {
                if let Some(entry) = slots.get_mut(slot) {
                    *entry = Some(reply);
                }
                *missing = missing.saturating_sub(1);
                *missing == 0
            });
        if !finished {
            return None;
        }
        let (slots, _) = gathering.batches.remove(&batch)?;
        reply_array(slots)
    }
}

/// The array line of a batch's replies in slot order; `None` when there are none.
fn reply_array(slots: Vec<Option<Value>>) -> Option<String> {
    let replies: Vec<Value> = slots.into_iter().flatten().collect();
    (!replies.is_empty()).then(|| Value::Array(replies).to_string())
}

/// Plans one batch line (a JSON array) under the agreed protocol `version` (`None`: nothing
/// agreed yet) as batch number `batch`. An empty array, a batch under any version but
/// [`BATCH_VERSION`], or one over [`limits::MAX_BATCH_MESSAGES`] entries is one -32600 error
/// with id `null`; otherwise each entry is checked like a single message, and an `initialize`
/// inside a batch is refused (the 2025-03-26 revision forbids it).
#[must_use]
pub fn plan(entries: Vec<Value>, version: Option<&str>, batch: u64) -> BatchPlan {
    let refuse = |message: &str| {
        BatchPlan::Reply(error_reply(&Value::Null, INVALID_REQUEST, message).to_string())
    };
    if entries.is_empty() {
        return refuse("Invalid Request: an empty batch");
    }
    match version {
        Some(BATCH_VERSION) => {}
        Some(other) => {
            return refuse(&format!(
                "Invalid Request: JSON-RPC batches are not part of MCP protocol version {other}; send one message per line"
            ));
        }
        None => {
            return refuse(
                "Invalid Request: a batch is accepted only after `initialize` agreed on protocol version 2025-03-26",
            );
        }
    }
    if entries.len() > limits::MAX_BATCH_MESSAGES {
        return refuse(&format!(
            "Invalid Request: a batch holds {} messages, over the limit of {}; split it",
            entries.len(),
            limits::MAX_BATCH_MESSAGES
        ));
    }
    let mut lines = Vec::new();
    let mut slots = Vec::new();
    let mut routes = Vec::new();
    for mut entry in entries {
        let is_request = entry.get("id").is_some() && entry.get("method").is_some();
        if is_request && entry.get("method").and_then(Value::as_str) == Some("initialize") {
            slots.push(Some(error_reply(
                &readable_id(&entry),
                INVALID_REQUEST,
                "Invalid Request: `initialize` must not be part of a batch",
            )));
            continue;
        }
        match check_message(&entry) {
            Check::Reply(reply) => slots.push(Some(reply)),
            Check::Skip => {}
            Check::Forward => {
                if is_request && let Some(object) = entry.as_object_mut() {
                    let private = format!("{PRIVATE_ID_PREFIX}{batch}:{}", slots.len());
                    let id = object.insert("id".to_owned(), Value::String(private.clone()));
                    routes.push((private, slots.len(), id.unwrap_or_default()));
                    slots.push(None);
                }
                let mut line = entry.to_string().into_bytes();
                line.push(b'\n');
                lines.push(line);
            }
        }
    }
    if lines.is_empty() {
        return reply_array(slots).map_or(BatchPlan::Silent, BatchPlan::Reply);
    }
    BatchPlan::Gather {
        lines,
        slots,
        routes,
    }
}

#[cfg(test)]
mod tests {
    use super::Envelope;
    use serde_json::{Value, json};

    fn read(line: &str) -> (Option<Value>, bool) {
        let envelope: Envelope = serde_json::from_str(line).expect("an object");
        (envelope.id, envelope.method.is_some())
    }

    #[test]
    fn an_envelope_keeps_a_null_id_and_sees_a_method_whatever_its_value() {
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}"#),
            (Some(Value::Null), false)
        );
        assert_eq!(
            read(
                r#"{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"x"}]},"id":"ai-rulez-batch:3"}"#
            ),
            (Some(json!("ai-rulez-batch:3")), false)
        );
        assert_eq!(read(r#"{"method":null}"#), (None, true));
        assert_eq!(
            read(r#"{"method":"notifications/progress","params":{}}"#),
            (None, true)
        );
    }
}
