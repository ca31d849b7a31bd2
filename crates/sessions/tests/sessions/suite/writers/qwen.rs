//! Qwen Code: `~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl`, no header line.
//! Records are chained by `parentUuid`, and a reply is preceded by the `ui_telemetry`
//! record the CLI writes before it (shapes as Qwen Code 0.24.4 writes them).

use std::path::{Path, PathBuf};

use memory_bank_sessions::{Role, Source};
use serde_json::{json, Value};

use super::jsonl::{JsonlFormat, JsonlWriter};
use crate::suite::uuid_for;

/// Qwen Code's records.
pub struct Qwen;

/// The uuid of message `n` (from 1) of session `id`, or of a record written beside it.
fn record_uuid(id: &str, n: usize, what: &str) -> String {
    uuid_for(&format!("{id}/{n}/{what}"))
}

/// The fields every record has.
fn base(id: &str, uuid: &str, parent: Value, ts: &str, kind: &str) -> Value {
    json!({"uuid": uuid, "parentUuid": parent, "sessionId": id, "timestamp": ts, "type": kind,
           "cwd": "/work/suite", "version": "0.24.4", "gitBranch": "main"})
}

fn with(mut record: Value, fields: Value) -> String {
    let (Value::Object(record_fields), Value::Object(more)) = (&mut record, fields) else { unreachable!() };
    record_fields.extend(more);
    record.to_string()
}

impl JsonlFormat for Qwen {
    const SOURCE: Source = Source::QwenCode;

    fn path(home: &Path, id: &str) -> PathBuf {
        home.join(".qwen/projects/-work-suite/chats").join(format!("{id}.jsonl"))
    }

    fn header(_id: &str, _ts: &str) -> Option<String> {
        None
    }

    fn message(id: &str, n: usize, role: Role, text: &str, ts: &str) -> String {
        let parent = if n == 1 { Value::Null } else { json!(record_uuid(id, n - 1, "message")) };
        let uuid = record_uuid(id, n, "message");
        match role {
            Role::User => with(
                base(id, &uuid, parent, ts, "user"),
                json!({"provenance": "real_user", "message": {"role": "user", "parts": [{"text": text}]}}),
            ),
            Role::Assistant => {
                let telemetry = record_uuid(id, n, "telemetry");
                let event = json!({"event.name": "qwen-code.api_response", "event.timestamp": ts, "model": "qwen3-coder-plus",
                                   "status_code": 200, "duration_ms": 812, "input_token_count": 1200, "output_token_count": 40});
                let before = with(
                    base(id, &telemetry, parent, ts, "system"),
                    json!({"provenance": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": event}}),
                );
                let reply = with(
                    base(id, &uuid, json!(telemetry), ts, "assistant"),
                    json!({"provenance": "assistant_output", "model": "qwen3-coder-plus",
                           "message": {"role": "model", "parts": [{"text": text}]},
                           "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 40, "totalTokenCount": 1240}}),
                );
                format!("{before}\n{reply}")
            }
        }
    }

    fn unknown_records(id: &str, ts: &str) -> Vec<String> {
        let first = uuid_for(&format!("{id}/{ts}/hologram"));
        let second = uuid_for(&format!("{id}/{ts}/hologram-part"));
        let third = uuid_for(&format!("{id}/{ts}/hologram-user"));
        vec![
            // A system record of a new subtype, a new record type, a reply holding only a
            // part of a new kind, and a user record of a new subtype.
            with(base(id, &first, Value::Null, ts, "system"), json!({"subtype": "hologram_snapshot", "systemPayload": {"frames": [1, 2]}})),
            with(base(id, &uuid_for(&format!("{id}/{ts}/type")), json!(first), ts, "hologram"), json!({"data": "x"})),
            with(
                base(id, &second, json!(first), ts, "assistant"),
                json!({"message": {"role": "model", "parts": [{"hologram": {"frames": [1, 2]}}]}}),
            ),
            with(
                base(id, &third, json!(second), ts, "user"),
                json!({"subtype": "hologram", "message": {"role": "user", "parts": [{"text": "not the person's words"}]}}),
            ),
        ]
    }
}

/// Qwen Code sessions.
pub type QwenWriter = JsonlWriter<Qwen>;
