//! libFuzzer target: any bytes as one JSON-RPC line. What the framing forwards must be a
//! message rmcp can read (so rmcp never answers without an id); what it answers must carry the
//! request's id when that is a string or a number. A panic is a crash.
#![no_main]

use ai_rulez::testing::mcp::framing::{self, Verdict, batch};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|bytes: &[u8]| {
    let request: Option<Value> = serde_json::from_slice(bytes).ok();
    match framing::judge(bytes.to_vec()) {
        Verdict::Forward { .. } | Verdict::Skip => {}
        Verdict::Reply(reply) => {
            let reply: Value = serde_json::from_str(&reply).expect("replies are JSON");
            let expected = match request.as_ref().and_then(|request| request.get("id")) {
                Some(id @ (Value::String(_) | Value::Number(_)))
                    if request.as_ref().is_some_and(Value::is_object) =>
                {
                    id.clone()
                }
                _ => Value::Null,
            };
            assert_eq!(reply["id"], expected, "{reply}");
        }
        Verdict::Batch(entries) => {
            let _plan = batch::plan(entries, Some(batch::BATCH_VERSION), 1);
        }
    }
});
