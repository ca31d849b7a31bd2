//! The HTTP API end to end: a real server on loopback over a real SQLite file.

mod support;

use std::collections::HashSet;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use support::{encode, Service};

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const DELETE: Method = Method::DELETE;

fn error(json: &Value) -> &str {
    json["error"].as_str().unwrap_or("<none>")
}

/// Method, path, token, org, body, expected status, expected error code.
type RouteCase<'a> = (Method, String, Option<&'a str>, Option<&'a str>, Option<Value>, u16, Option<&'a str>);

#[tokio::test]
async fn every_route_answers_with_its_documented_status() {
    let s = Service::start().await;
    let mine = s.save(&s.alice, json!({"content": "route table memory"})).await;
    let mine = mine["id"].as_str().unwrap().to_owned();
    let (a, acme) = (Some(s.alice.token.as_str()), Some(s.acme.as_str()));
    let cases: Vec<RouteCase> = vec![
        (POST, "/v1/memory".into(), a, acme, Some(json!({"content": "x"})), 201, None),
        (GET, "/v1/memory".into(), a, acme, None, 200, None),
        (GET, "/v1/memory/search?q=route".into(), a, acme, None, 200, None),
        (GET, "/v1/me".into(), a, None, None, 200, None),
        (GET, "/healthz".into(), None, None, None, 200, None),
        (GET, "/v1/openapi.json".into(), None, None, None, 200, None),
        (DELETE, format!("/v1/memory/{mine}"), a, acme, None, 204, None),
        (DELETE, format!("/v1/memory/{mine}"), a, acme, None, 404, Some("memory_not_found")),
        (POST, "/v1/memory".into(), a, acme, Some(json!({"content": " "})), 400, Some("invalid_request")),
        (GET, "/v1/memory/search".into(), a, acme, None, 400, Some("invalid_request")),
        (GET, "/v1/memory?limit=0".into(), a, acme, None, 400, Some("invalid_request")),
        (GET, "/v1/memory".into(), None, acme, None, 401, Some("unauthorized")),
        (GET, "/v1/me".into(), None, None, None, 401, Some("unauthorized")),
        (GET, "/v1/memory".into(), a, None, None, 404, Some("organization_not_found")),
        (GET, "/v1/nope".into(), a, acme, None, 404, Some("not_found")),
        (Method::PUT, "/v1/memory".into(), a, acme, None, 405, Some("method_not_allowed")),
    ];
    for (method, path, token, org, body, status, code) in cases {
        let (got, json) = s.call(method.clone(), &path, token, org, body).await;
        assert_eq!(got.as_u16(), status, "{method} {path}: {json}");
        if let Some(code) = code {
            assert_eq!(error(&json), code, "{method} {path}");
        }
    }
}

#[tokio::test]
async fn unauthorized_requests_get_401_whatever_is_wrong() {
    let s = Service::start().await;
    let revoked = s.bank.issue_token(&s.alice.id).await.unwrap();
    assert!(s.bank.revoke_token(&revoked).await.unwrap());
    for header in [None, Some("".to_owned()), Some("Bearer".into()), Some("Bearer ".into()), Some(format!("Basic {}", s.alice.token)),
        Some("Bearer mbk_unknown".into()), Some(format!("Bearer {revoked}")), Some(format!("Bearer {}x", s.alice.token))] {
        let mut request = s.http.get(format!("{}/v1/memory", s.url)).header("X-Org-Id", &s.acme);
        if let Some(value) = &header {
            request = request.header("Authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{header:?}");
        assert_eq!(response.json::<Value>().await.unwrap(), json!({"error": "unauthorized"}));
    }
    let (status, _) = s.call(GET, "/v1/memory", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn org_header_must_name_an_org_the_caller_belongs_to() {
    let s = Service::start().await;
    let routes = [(GET, "/v1/memory".to_owned(), None), (GET, "/v1/memory/search?q=x".to_owned(), None),
        (POST, "/v1/memory".to_owned(), Some(json!({"content": "x"}))), (DELETE, "/v1/memory/mem_01jdq0000000000000000000".to_owned(), None)];
    // Carol belongs to no org; Alice is not in Beta; org_unknown does not exist.
    for (token, org) in [(&s.carol.token, Some(s.acme.as_str())), (&s.alice.token, Some(s.beta.as_str())),
        (&s.alice.token, Some("org_01jdq0000000000000000000")), (&s.alice.token, Some("")), (&s.alice.token, None)] {
        for (method, path, body) in &routes {
            let (status, json) = s.call(method.clone(), path, Some(token), org, body.clone()).await;
            assert_eq!((status, json), (StatusCode::NOT_FOUND, json!({"error": "organization_not_found"})), "{method} {path} {org:?}");
        }
    }
    assert!(s.bank.list(&s.alice.id, &memory_bank_contract::validate::parse_list(None, None).unwrap()).await.unwrap().memories.is_empty());
}

#[tokio::test]
async fn limits_accept_the_maximum_and_reject_one_more() {
    let s = Service::start().await;
    let ctx = |snippet: String| json!({"snippet": snippet});
    let cases: Vec<(&str, Value, Option<&str>)> = vec![
        ("content max", json!({"content": "a".repeat(8000)}), None),
        ("content max+1", json!({"content": "a".repeat(8001)}), Some("content")),
        ("content trimmed to max", json!({"content": format!("  {}  ", "a".repeat(8000))}), None),
        ("content whitespace", json!({"content": " \n\t "}), Some("content")),
        ("content empty", json!({"content": ""}), Some("content")),
        ("content cjk max", json!({"content": "字".repeat(8000)}), None),
        ("tags max", json!({"content": "x", "tags": vec!["t"; 32]}), None),
        ("tags max+1", json!({"content": "x", "tags": vec!["t"; 33]}), Some("tags")),
        ("tag max", json!({"content": "x", "tags": ["t".repeat(64)]}), None),
        ("tag max+1", json!({"content": "x", "tags": ["t".repeat(65)]}), Some("tags[0]")),
        ("tag whitespace", json!({"content": "x", "tags": ["ok", "  "]}), Some("tags[1]")),
        ("contexts max", json!({"content": "x", "contexts": vec![ctx("s".into()); 16]}), None),
        ("contexts max+1", json!({"content": "x", "contexts": vec![ctx("s".into()); 17]}), Some("contexts")),
        ("snippet max", json!({"content": "x", "contexts": [ctx("s".repeat(4000))]}), None),
        ("snippet max+1", json!({"content": "x", "contexts": [ctx("s".into()), ctx("s".into()), ctx("s".into()), ctx("s".repeat(4001))]}), Some("contexts[3].snippet")),
        ("snippet whitespace", json!({"content": "x", "contexts": [ctx("   ".into())]}), Some("contexts[0].snippet")),
        ("snippet missing", json!({"content": "x", "contexts": [{"messageId": "m"}]}), Some("contexts[0].snippet")),
        ("conversationId max", json!({"content": "x", "contexts": [{"snippet": "s", "conversationId": "c".repeat(128)}]}), None),
        ("conversationId max+1", json!({"content": "x", "contexts": [{"snippet": "s", "conversationId": "c".repeat(129)}]}), Some("contexts[0].conversationId")),
        ("messageId max", json!({"content": "x", "contexts": [{"snippet": "s", "messageId": "m".repeat(128)}]}), None),
        ("messageId max+1", json!({"content": "x", "contexts": [{"snippet": "s", "messageId": "m".repeat(129)}]}), Some("contexts[0].messageId")),
        ("messageId whitespace", json!({"content": "x", "contexts": [{"snippet": "s", "messageId": " "}]}), Some("contexts[0].messageId")),
        ("origin unknown", json!({"content": "x", "contexts": [{"snippet": "s", "origin": "somewhere"}]}), Some("contexts[0].origin")),
        ("content wrong type", json!({"content": 5}), Some("content")),
        ("content null", json!({"content": null}), Some("content")),
        ("tags wrong type", json!({"content": "x", "tags": "a,b"}), Some("tags")),
        ("tag wrong type", json!({"content": "x", "tags": ["a", 1]}), Some("tags[1]")),
        ("contexts wrong type", json!({"content": "x", "contexts": {"snippet": "s"}}), Some("contexts")),
        ("not an object", json!(["content"]), Some("body")),
    ];
    let accepted = cases.iter().filter(|(_, _, bad)| bad.is_none()).count();
    for (name, body, bad_path) in cases {
        let (status, json) = s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(body)).await;
        match bad_path {
            None => assert_eq!(status, StatusCode::CREATED, "{name}: {json}"),
            Some(path) => {
                assert_eq!(status, StatusCode::BAD_REQUEST, "{name}: {json}");
                assert_eq!(error(&json), "invalid_request", "{name}");
                let paths: Vec<&str> = json["details"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
                assert!(paths.contains(&path), "{name}: wanted {path} in {paths:?}");
                assert!(json["details"][0]["message"].as_str().is_some_and(|m| !m.is_empty()), "{name}");
            }
        }
    }
    let stored = s.bank.list(&s.alice.id, &memory_bank_contract::validate::parse_list(Some("100"), None).unwrap()).await.unwrap();
    assert_eq!(stored.memories.len(), accepted, "exactly the accepted cases were stored");
    assert!(stored.memories.iter().any(|m| m.content == "a".repeat(8000)), "trimmed value is stored");
}

#[tokio::test]
async fn malformed_json_and_oversized_bodies_are_rejected_cleanly() {
    let s = Service::start().await;
    let send = |body: Vec<u8>, content_type: Option<&'static str>| {
        let mut request = s.http.post(format!("{}/v1/memory", s.url)).bearer_auth(&s.alice.token).header("X-Org-Id", &s.acme).body(body);
        if let Some(ct) = content_type {
            request = request.header("Content-Type", ct);
        }
        request.send()
    };
    for (body, ct) in [(b"{\"content\": ".to_vec(), Some("application/json")), (b"not json".to_vec(), Some("application/json")),
        (vec![0xff, 0xfe], Some("application/json")), (b"".to_vec(), None), (b"{\"content\":\"x\"".to_vec(), Some("text/plain"))] {
        let response = send(body.clone(), ct).await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body:?}");
        let json: Value = response.json().await.unwrap();
        assert_eq!(error(&json), "invalid_request");
        assert_eq!(json["details"][0]["path"], "body");
    }
    // Without a JSON content type a valid body is still accepted.
    assert_eq!(send(br#"{"content":"no content type"}"#.to_vec(), None).await.unwrap().status(), StatusCode::CREATED);
    // 256 KiB is the cap: a body just under it is read, one just over it is 413.
    let under = serde_json::to_vec(&json!({"content": "x", "padding": "p".repeat(256 * 1024 - 40)})).unwrap();
    assert!(under.len() <= 256 * 1024);
    assert_eq!(send(under, Some("application/json")).await.unwrap().status(), StatusCode::CREATED);
    let over = serde_json::to_vec(&json!({"content": "x", "padding": "p".repeat(256 * 1024)})).unwrap();
    let response = send(over, Some("application/json")).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({"error": "payload_too_large"}));
}

#[tokio::test]
async fn query_parameters_are_checked_at_their_boundaries() {
    let s = Service::start().await;
    let q512 = encode(&"q".repeat(512));
    let q513 = encode(&"q".repeat(513));
    let cases = [
        (format!("/v1/memory/search?q={q512}"), 200, None),
        (format!("/v1/memory/search?q={q513}"), 400, Some("q")),
        ("/v1/memory/search?q=%20%20".to_owned(), 400, Some("q")),
        ("/v1/memory/search?q=".to_owned(), 400, Some("q")),
        ("/v1/memory/search?q=x&limit=50".to_owned(), 200, None),
        ("/v1/memory/search?q=x&limit=51".to_owned(), 400, Some("limit")),
        ("/v1/memory/search?q=x&limit=1".to_owned(), 200, None),
        ("/v1/memory/search?q=x&limit=0".to_owned(), 400, Some("limit")),
        ("/v1/memory/search?q=x&limit=-1".to_owned(), 400, Some("limit")),
        ("/v1/memory/search?q=x&limit=2.5".to_owned(), 400, Some("limit")),
        ("/v1/memory/search?q=x&limit=ten".to_owned(), 400, Some("limit")),
        ("/v1/memory?limit=100".to_owned(), 200, None),
        ("/v1/memory?limit=101".to_owned(), 400, Some("limit")),
        ("/v1/memory?limit=1".to_owned(), 200, None),
        ("/v1/memory?cursor=bogus".to_owned(), 400, Some("cursor")),
        // Invalid UTF-8 is decoded lossily: a plain search that finds nothing.
        ("/v1/memory/search?q=%FF".to_owned(), 200, None),
    ];
    for (path, status, bad) in cases {
        let (got, json) = s.call(GET, &path, Some(&s.alice.token), Some(&s.acme), None).await;
        assert_eq!(got.as_u16(), status, "{path}: {json}");
        if let Some(bad) = bad {
            assert_eq!(json["details"][0]["path"], bad, "{path}");
        }
    }
}

#[tokio::test]
async fn the_server_decides_owner_and_source_and_stamps_one_time() {
    let s = Service::start().await;
    // `scope` asks for a bank (crates/server/tests/teams.rs); the owner, org and source are
    // the server's to decide, whatever the body says.
    let body = json!({"content": "  Ships on Fridays  ", "source": "modal", "userId": "someone-else", "orgId": "org_x",
        "tags": ["release"], "contexts": [{"snippet": "we ship fridays", "conversationId": "c-1", "origin": "searched_conversation", "extra": 1}]});
    let (status, raw) = {
        let response = s.http.post(format!("{}/v1/memory", s.url)).bearer_auth(&s.alice.token).header("X-Org-Id", &s.acme)
            .json(&body).send().await.unwrap();
        (response.status(), response.text().await.unwrap())
    };
    assert_eq!(status, StatusCode::CREATED);
    let saved: Value = serde_json::from_str(&raw).unwrap();
    let memory = &saved["memory"];
    assert_eq!(memory["content"], "Ships on Fridays");
    assert_eq!((memory["scope"].as_str(), memory["source"].as_str()), (Some("user"), Some("chat")));
    assert_eq!(memory["orgId"], s.acme.as_str());
    assert!(memory["id"].as_str().unwrap().starts_with("mem_"));
    assert!(memory["contexts"][0]["id"].as_str().unwrap().starts_with("mctx_"));
    assert_eq!(memory["contexts"][0]["citation"], json!({"conversationId": "c-1"}));
    assert_eq!(memory["createdAt"], memory["updatedAt"]);
    assert_eq!(memory["createdAt"], memory["contexts"][0]["createdAt"]);
    assert_eq!(memory["createdAt"].as_str().unwrap().len(), "2026-11-29T22:25:11.123Z".len());
    // The save response is byte-for-byte what a later list returns.
    let listed = s.http.get(format!("{}/v1/memory", s.url)).bearer_auth(&s.alice.token).header("X-Org-Id", &s.acme)
        .send().await.unwrap().text().await.unwrap();
    let saved_text = raw.strip_prefix("{\"memory\":").and_then(|r| r.strip_suffix('}')).expect("compact {\"memory\":…}");
    assert!(listed.contains(saved_text), "list holds the identical bytes:\n{listed}\n{saved_text}");
    let owner: String = sqlx::query_scalar("SELECT user_id FROM memory").fetch_one(s.store.pool()).await.unwrap();
    assert_eq!(owner, s.alice.id);
}

#[tokio::test]
async fn a_save_that_fails_half_way_leaves_nothing_behind() {
    let s = Service::start().await;
    sqlx::query("CREATE TRIGGER fail_second BEFORE INSERT ON memory_context WHEN NEW.snippet = 'second'
                 BEGIN SELECT RAISE(ABORT, 'injected'); END").execute(s.store.pool()).await.unwrap();
    let body = json!({"content": "half saved", "contexts": [{"snippet": "first"}, {"snippet": "second"}, {"snippet": "third"}]});
    let (status, json) = s.call(POST, "/v1/memory", Some(&s.alice.token), Some(&s.acme), Some(body)).await;
    assert_eq!((status, json), (StatusCode::INTERNAL_SERVER_ERROR, json!({"error": "internal"})));
    for table in ["SELECT count(*) FROM memory", "SELECT count(*) FROM memory_context"] {
        let n: i64 = sqlx::query_scalar(table).fetch_one(s.store.pool()).await.unwrap();
        assert_eq!(n, 0, "{table}");
    }
    assert!(s.search(&s.alice, "half").await.is_empty());
}

#[tokio::test]
async fn another_user_can_never_reach_my_memories() {
    let s = Service::start().await;
    let mine = s.save(&s.alice, json!({"content": "alice private narwhal", "contexts": [{"snippet": "narwhal snippet"}]})).await;
    let id = mine["id"].as_str().unwrap();
    // Bob shares Acme with Alice and also has Beta: no org header value helps him.
    for org in [s.acme.as_str(), s.beta.as_str()] {
        let bob = Some(s.bob.token.as_str());
        let (status, json) = s.call(GET, "/v1/memory?limit=100", bob, Some(org), None).await;
        assert_eq!((status, json["memories"].as_array().unwrap().len()), (StatusCode::OK, 0), "list in {org}");
        let (status, json) = s.call(GET, "/v1/memory/search?q=narwhal", bob, Some(org), None).await;
        assert_eq!((status, json), (StatusCode::OK, json!({"results": []})), "search in {org}");
        let (status, json) = s.call(DELETE, &format!("/v1/memory/{id}"), bob, Some(org), None).await;
        assert_eq!((status, json), (StatusCode::NOT_FOUND, json!({"error": "memory_not_found"})), "delete in {org}");
    }
    // Carol is in no org at all.
    let (status, _) = s.call(DELETE, &format!("/v1/memory/{id}"), Some(&s.carol.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // A malformed id, an absent id and someone else's id look exactly alike.
    let answers: HashSet<String> = futures_like(&s, &[id, "mem_01jdq0000000000000000000", "garbage", "mem_", "MEM_01JDQ0000000000000000000", "mem_01JDQ0000000000000000000"]).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(s.search(&s.alice, "narwhal").await, ["alice private narwhal"]);
}

async fn futures_like(s: &Service, ids: &[&str]) -> HashSet<String> {
    let mut answers = HashSet::new();
    for id in ids {
        let (status, json) = s.call(DELETE, &format!("/v1/memory/{id}"), Some(&s.bob.token), Some(&s.acme), None).await;
        answers.insert(format!("{status} {json}"));
    }
    answers
}

#[tokio::test]
async fn org_scoped_rows_are_never_returned_or_deleted() {
    let s = Service::start().await;
    s.save(&s.alice, json!({"content": "visible manatee"})).await;
    sqlx::query("UPDATE memory SET scope = 'org'").execute(s.store.pool()).await.unwrap();
    let id: String = sqlx::query_scalar("SELECT id FROM memory").fetch_one(s.store.pool()).await.unwrap();
    let (_, json) = s.call(GET, "/v1/memory", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(json["memories"], json!([]));
    assert!(s.search(&s.alice, "manatee").await.is_empty());
    let (status, _) = s.call(DELETE, &format!("/v1/memory/{id}"), Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn hostile_queries_return_200() {
    let s = Service::start().await;
    s.save(&s.alice, json!({"content": "tea \"quoted\" (paren) e-mail NEAR OR"})).await;
    for q in ["\"", "\"unterminated", "*", "tea*", "-tea", "- -", "OR", "tea OR", "AND NOT", "NEAR(tea, 2)", "(", ")", "tea^2",
        "\0", "a\0b", "😀🔥", "user_id:x", "terms:tea", "'; DROP TABLE memory; --", "%", "\\", "{}", "[]", "+tea", "~tea", "@3"] {
        let path = format!("/v1/memory/search?q={}", encode(q));
        let (status, json) = s.call(GET, &path, Some(&s.alice.token), Some(&s.acme), None).await;
        assert_eq!(status, StatusCode::OK, "{q:?}: {json}");
        assert!(json["results"].is_array());
    }
    assert_eq!(s.search(&s.alice, "NEAR(").await.len(), 1);
    assert_eq!(s.search(&s.alice, "e-mail").await.len(), 1);
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM memory").fetch_one(s.store.pool()).await.unwrap();
    assert_eq!(n, 1);
}

#[tokio::test]
async fn search_finds_cjk_words_and_short_terms() {
    let s = Service::start().await;
    for content in ["客户迁移计划下周开始", "我喜欢喝绿茶", "我喜欢Python编程", "Writes Go at work", "Owns the UI", "Reads about AI",
        "日本語のテストです"] {
        s.save(&s.alice, json!({"content": content})).await;
    }
    s.save(&s.alice, json!({"content": "Tagged only", "tags": ["北京"]})).await;
    s.save(&s.alice, json!({"content": "Snippet only", "contexts": [{"snippet": "搬家到上海"}]})).await;
    let expect = [("迁移", "客户迁移计划下周开始"), ("客户迁移", "客户迁移计划下周开始"), ("绿茶", "我喜欢喝绿茶"), ("Python", "我喜欢Python编程"),
        ("编程", "我喜欢Python编程"), ("go", "Writes Go at work"), ("UI", "Owns the UI"), ("ai", "Reads about AI"), ("テスト", "日本語のテストです"),
        ("北京", "Tagged only"), ("上海", "Snippet only")];
    for (q, content) in expect {
        assert_eq!(s.search(&s.alice, q).await.first().map(String::as_str), Some(content), "{q}");
    }
    assert!(s.search(&s.alice, "广州").await.is_empty());
}

#[tokio::test]
async fn paging_walks_250_memories_once_while_rows_come_and_go() {
    let s = Service::start().await;
    let mut ids = Vec::new();
    for i in 0..250 {
        ids.push(s.save(&s.alice, json!({"content": format!("paged memory {i}")})).await["id"].as_str().unwrap().to_owned());
    }
    let mut seen: Vec<String> = Vec::new();
    let mut deleted = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            None => "/v1/memory?limit=23".to_owned(),
            Some(c) => format!("/v1/memory?limit=23&cursor={c}"),
        };
        let (status, page) = s.call(GET, &path, Some(&s.alice.token), Some(&s.acme), None).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let memories = page["memories"].as_array().unwrap();
        let dates: Vec<&str> = memories.iter().map(|m| m["createdAt"].as_str().unwrap()).collect();
        assert!(dates.windows(2).all(|w| w[0] >= w[1]), "newest first");
        seen.extend(memories.iter().map(|m| m["id"].as_str().unwrap().to_owned()));
        // Between pages, one new memory arrives and one not yet seen is deleted.
        s.save(&s.alice, json!({"content": "arrived while paging"})).await;
        if let Some(victim) = ids.iter().find(|id| !seen.contains(id) && !deleted.contains(*id)) {
            let (status, _) = s.call(DELETE, &format!("/v1/memory/{victim}"), Some(&s.alice.token), Some(&s.acme), None).await;
            assert_eq!(status, StatusCode::NO_CONTENT);
            deleted.insert(victim.clone());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no memory twice");
    let survivors: Vec<&String> = ids.iter().rev().filter(|id| !deleted.contains(*id)).collect();
    let walked: Vec<&String> = seen.iter().filter(|id| ids.contains(id)).collect();
    assert_eq!(walked, survivors);
    assert!(deleted.len() > 5);
}

#[tokio::test]
async fn me_lists_the_caller_and_their_orgs() {
    let s = Service::start().await;
    let (status, json) = s.call(GET, "/v1/me", Some(&s.bob.token), None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(json["user"]["id"], s.bob.id.as_str());
    assert_eq!(json["user"]["email"], "bob@example.com");
    let orgs: Vec<&str> = json["orgs"].as_array().unwrap().iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert_eq!(orgs, [s.acme.as_str(), s.beta.as_str()]);
    assert!(!json.to_string().contains(&s.bob.token));
    let (_, json) = s.call(GET, "/v1/me", Some(&s.carol.token), None, None).await;
    assert_eq!(json["orgs"], json!([]));
}

#[tokio::test]
async fn openapi_documents_exactly_the_routes_that_exist() {
    let s = Service::start().await;
    let (status, doc) = s.call(GET, "/v1/openapi.json", None, None, None).await;
    assert_eq!(status, StatusCode::OK);
    let mut operations = HashSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            operations.insert(op["operationId"].as_str().unwrap().to_owned());
            assert!(op["operationId"].as_str().unwrap().len() <= 49);
            // Every documented operation is routed (an unrouted one would be 404 not_found / 405).
            let concrete = path.replace("{id}", "mem_01jdq0000000000000000000").replace("{revisionId}", "mrev_01jdq0000000000000000000");
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let (got, json) = s.call(method.clone(), &concrete, Some(&s.alice.token), Some(&s.acme), Some(json!({"content": "doc"}))).await;
            assert!(!matches!(error(&json), "not_found" | "method_not_allowed"), "{method} {path} is documented but not routed: {got}");
        }
    }
    let expected: HashSet<String> = [
        "postMemory", "getMemorySearch", "getMemory", "getMemoryById", "deleteMemoryById", "postProposals", "getProposals",
        "getProposalsById", "postProposalsByIdAccept", "postProposalsByIdReject", "getMe", "getHealthz",
        "patchMemoryById", "postMemorySimilar", "getMemoryCiting", "getMemoryRevisions", "postMemoryRevisionRestore", "getExport", "postImport",
        "getMemorySearchStatus", "getOrgAudit", "getOrgExport", "getOrgMembers", "putOrgMember", "deleteOrgMember", "getOrgPolicy", "putOrgPolicy",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(operations, expected);
    assert_eq!(doc["paths"]["/v1/memory"]["post"]["tags"], json!(["Memory"]));
    assert!(doc["components"]["schemas"]["Memory"].is_object());
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
    assert!(!doc.to_string().contains("memory_save") && !doc.to_string().contains("memory_search"));
}

#[tokio::test]
async fn memories_citing_a_session_are_the_callers_newest_first() {
    let s = Service::start().await;
    let cite = |content: &str, message: &str| json!({"content": content, "contexts": [{"snippet": "it was said", "conversationId": "ses-7", "messageId": message}]});
    let first = s.save(&s.alice, cite("First from ses-7", "m1")).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let second = s.save(&s.alice, cite("Second from ses-7", "m4")).await;
    s.save(&s.bob, cite("Bob's from ses-7", "m1")).await;
    let (status, body) = s.call(GET, "/v1/memory/citing?conversationId=ses-7", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ids: Vec<&Value> = body["memories"].as_array().unwrap().iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&second["id"], &first["id"]], "alice's, newest first");
    assert_eq!(body["memories"][0]["contexts"][0]["citation"]["messageId"], "m4");
    let (_, none) = s.call(GET, "/v1/memory/citing?conversationId=ses-8", Some(&s.alice.token), Some(&s.acme), None).await;
    assert_eq!(none["memories"], json!([]));
    for bad in ["/v1/memory/citing", "/v1/memory/citing?conversationId=", "/v1/memory/citing?conversationId=ses-7&limit=0"] {
        let (status, body) = s.call(GET, bad, Some(&s.alice.token), Some(&s.acme), None).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{bad}: {body}");
    }
}
