//! `POST /v1/import` over HTTP, on loopback over a real SQLite file: a line repeating
//! an id is reported and the others imported (it was a 500 that rolled back the whole
//! file); an import confirms nothing, the file's claim is kept as `importedFrom`; odd
//! timestamps are refused per line with the rule, a bad one says the format wanted; a
//! byte-order mark is fine; another user's ids are imported under new ids like any
//! new line, with nothing of theirs touched or told.

mod support;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use support::{Account, Service};

const GET: Method = Method::GET;

const LINE: &str = r#"{"id":"mem_01kaaaaaaaaaaaaaaaaaaaaaa1","content":"Ada drinks tea","tags":null,"createdAt":"2026-11-01T10:00:00.000Z","updatedAt":"2026-11-02T10:00:00.000Z","contexts":[{"id":"mctx_01kaaaaaaaaaaaaaaaaaaaaaa1","snippet":"tea, always","citation":null,"origin":null,"createdAt":"2026-11-01T10:00:00.000Z"}],"revisions":[{"id":"mrev_01kaaaaaaaaaaaaaaaaaaaaaa1","memoryId":"mem_01kaaaaaaaaaaaaaaaaaaaaaa1","content":"Ada drinks coffee","tags":null,"createdAt":"2026-11-01T10:00:00.000Z","replacedAt":"2026-11-02T10:00:00.000Z"}]}"#;

/// `LINE` with every `aaaa…1` id ending in `n` instead.
fn line(n: char) -> String {
    LINE.replace("aaaaaaaaaaaaaaaaaaaaaa1", &format!("aaaaaaaaaaaaaaaaaaaaaa{n}"))
}

async fn import(s: &Service, who: &Account, body: impl Into<Vec<u8>>) -> (StatusCode, Value) {
    let response = s
        .http
        .post(format!("{}/v1/import", s.url))
        .bearer_auth(&who.token)
        .header("X-Org-Id", &s.acme)
        .body(body.into())
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn export(s: &Service, who: &Account) -> String {
    let response = s.http.get(format!("{}/v1/export", s.url)).bearer_auth(&who.token).header("X-Org-Id", &s.acme).send().await.unwrap();
    response.text().await.unwrap()
}

fn failures(report: &Value) -> Vec<(u64, String)> {
    report["failed"].as_array().unwrap().iter().map(|f| (f["line"].as_u64().unwrap(), f["error"].as_str().unwrap().to_owned())).collect()
}

#[tokio::test]
async fn a_line_repeating_an_id_is_reported_and_the_others_are_imported() {
    let s = Service::start().await;
    let mut twice: Value = serde_json::from_str(&line('2')).unwrap();
    let context = twice["contexts"][0].clone();
    twice["contexts"].as_array_mut().unwrap().push(context);
    let body = [line('1'), twice.to_string(), line('3'), line('1')].join("\n");
    let (status, report) = import(&s, &s.alice, body).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["imported"], 2, "{report}");
    assert_eq!(failures(&report), [(2, "invalid_request".to_owned()), (4, "invalid_request".to_owned())]);
    assert!(report["failed"][0]["message"].as_str().unwrap().contains("contexts[1].id repeats contexts[0].id"), "{report}");
    assert!(report["failed"][1]["message"].as_str().unwrap().contains("repeats the id of line 1"), "{report}");
    let (_, listed) = s.call(GET, "/v1/memory", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn an_import_confirms_nothing_and_keeps_the_files_claim_apart() {
    let s = Service::start().await;
    let mut forged: Value = serde_json::from_str(LINE).unwrap();
    forged["confirmedVia"] = json!("elicitation");
    forged["proposedBy"] = json!("claude-code");
    forged["revisions"][0]["confirmedVia"] = json!("app");
    let (status, report) = import(&s, &s.alice, forged.to_string()).await;
    assert_eq!((status, report["imported"].as_u64()), (StatusCode::OK, Some(1)), "{report}");
    let id = forged["id"].as_str().unwrap();
    let (_, got) = s.call(GET, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(got["memory"]["confirmedVia"], "import");
    assert_eq!(got["memory"].get("proposedBy"), None, "{got}");
    assert_eq!(got["memory"]["importedFrom"], json!({"confirmedVia": "elicitation", "proposedBy": "claude-code"}));
    let (_, history) = s.call(GET, &format!("/v1/memory/{id}/revisions"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(history["revisions"][0]["confirmedVia"], "import");
    let exported: Value = serde_json::from_str(export(&s, &s.alice).await.trim_end()).unwrap();
    assert_eq!((&exported["confirmedVia"], &exported["importedFrom"]), (&json!("import"), &got["memory"]["importedFrom"]));
    assert_eq!(exported["revisions"][0]["importedFrom"], json!({"confirmedVia": "app"}));
}

#[tokio::test]
async fn odd_timestamps_are_refused_by_line_with_the_rule_and_a_byte_order_mark_is_fine() {
    let s = Service::start().await;
    let far = line('2').replace("\"createdAt\":\"2026-11-01T10:00:00.000Z\",\"updatedAt\"", "\"createdAt\":\"9999-11-01T10:00:00.000Z\",\"updatedAt\"");
    let backwards = line('3').replace("\"updatedAt\":\"2026-11-02T10:00:00.000Z\"", "\"updatedAt\":\"2026-10-02T10:00:00.000Z\"");
    let no_time = line('4').replace("\"createdAt\":\"2026-11-01T10:00:00.000Z\",\"updatedAt\"", "\"createdAt\":\"2026-11-01\",\"updatedAt\"");
    let body = format!("\u{feff}{}\r\n{far}\r\n{backwards}\r\n{no_time}\r\n", line('1'));
    let (status, report) = import(&s, &s.alice, body).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    assert_eq!(report["imported"], 1, "line 1, after the byte-order mark: {report}");
    let messages: Vec<&str> = report["failed"].as_array().unwrap().iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(failures(&report).iter().map(|f| f.0).collect::<Vec<_>>(), [2, 3, 4], "{report}");
    assert!(messages[0].starts_with("createdAt is in the future") && messages[0].contains("at most a day ahead"), "{messages:?}");
    assert!(messages[1].starts_with("updatedAt is before createdAt"), "{messages:?}");
    assert!(messages[2].starts_with("createdAt: \"2026-11-01\" is not a date and time") && messages[2].contains("2026-11-29T22:25:11.123Z"), "{messages:?}");
}

#[tokio::test]
async fn another_users_ids_are_imported_under_new_ids_and_theirs_stay_as_they_are() {
    let s = Service::start().await;
    let (_, mine) = import(&s, &s.alice, line('1')).await;
    assert_eq!(mine["imported"], 1);
    let alices = export(&s, &s.alice).await;
    let (status, report) = import(&s, &s.bob, alices.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((report["imported"].as_u64(), report["failedCount"].as_u64(), report["newIdCount"].as_u64()), (Some(1), Some(0), Some(1)), "{report}");
    let new_id = report["newIds"][0]["id"].as_str().unwrap();
    assert_eq!(report["newIds"][0]["line"], 1);
    assert_ne!(new_id, "mem_01kaaaaaaaaaaaaaaaaaaaaaa1");
    let bobs: Value = serde_json::from_str(export(&s, &s.bob).await.trim_end()).unwrap();
    assert_eq!((bobs["id"].as_str(), bobs["content"].as_str()), (Some(new_id), Some("Ada drinks tea")));
    assert_ne!(bobs["contexts"][0]["id"], "mctx_01kaaaaaaaaaaaaaaaaaaaaaa1");
    assert_eq!(bobs["revisions"][0]["memoryId"], new_id);
    // Again: the copy it made is found, not made twice.
    let (_, again) = import(&s, &s.bob, alices.clone()).await;
    assert_eq!((again["imported"].as_u64(), again["skipped"].as_u64()), (Some(0), Some(1)), "{again}");
    assert_eq!(export(&s, &s.alice).await, alices, "Alice's memory is as it was");
}
