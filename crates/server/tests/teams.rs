//! Team banks over real HTTP on loopback, against a real SQLite file: the cells of the
//! authz matrix for reads (roles × scopes × the memory routes). A member reads the
//! team bank beside their own and never another org's (a 404 that leaks nothing); an
//! owner never reads a member's personal bank; a removed member's token stops at once;
//! the org's kill switch is a 403 with its code; a scope that is none of the three is a
//! 400 that says what they are. And for writes: the org Inbox is decided by the org's
//! admins and owners alone, never a member or an agent token, and team memories change
//! only through them.

use std::sync::Arc;

use memory_bank_contract::teams::{AuditAction, OrgPolicy};
use memory_bank_contract::validate::validate_save;
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_store::{Bank, TokenKind};
use memory_bank_store_sqlite::SqliteStore;
use reqwest::{Method, StatusCode};
use serde_json::Value;

struct Service {
    _dir: tempfile::TempDir,
    url: String,
    http: reqwest::Client,
    bank: Bank,
    acme: String,
    globex: String,
    /// Acme's owner.
    ada: (String, String),
    /// An Acme member, with a full token and an agent token.
    bob: (String, String),
    bob_agent: String,
    /// Globex's owner, not in Acme.
    eve: (String, String),
    _stop: tokio::sync::oneshot::Sender<()>,
}

fn sentence(text: &str) -> memory_bank_contract::validate::ValidSave {
    validate_save(SaveMemoryRequest { content: text.into(), ..Default::default() }).unwrap()
}

impl Service {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&format!("sqlite://{}", dir.path().join("memory.db").display())).await.unwrap();
        let bank = Bank::new(Arc::new(store));
        let mut people = Vec::new();
        for email in ["ada@example.com", "bob@example.com", "eve@example.com"] {
            let id = bank.add_user(email).await.unwrap().id;
            let token = bank.issue_token(&id).await.unwrap();
            people.push((id, token));
        }
        let (acme, globex) = (bank.add_org("Acme").await.unwrap().id, bank.add_org("Globex").await.unwrap().id);
        bank.add_member(&acme, &people[0].0).await.unwrap(); // the first member owns it
        bank.add_member(&acme, &people[1].0).await.unwrap();
        bank.add_member(&globex, &people[2].0).await.unwrap();
        let bob_agent = bank.issue_token_of_kind(&people[1].0, TokenKind::Agent).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(memory_bank_server::serve(listener, bank.clone(), Default::default(), async move {
            let _ = stopped.await;
        }));
        let eve = people.pop().unwrap();
        let bob = people.pop().unwrap();
        let ada = people.pop().unwrap();
        Self { _dir: dir, url, http: reqwest::Client::new(), bank, acme, globex, ada, bob, bob_agent, eve, _stop: stop }
    }

    async fn get(&self, token: &str, org: &str, path: &str) -> (StatusCode, Value) {
        let response =
            self.http.request(Method::GET, format!("{}{path}", self.url)).bearer_auth(token).header("X-Org-Id", org).send().await.unwrap();
        let status = response.status();
        (status, serde_json::from_str(&response.text().await.unwrap()).unwrap())
    }

    /// The contents a search answers, sorted.
    async fn found(&self, token: &str, org: &str, query: &str) -> Vec<String> {
        let (status, body) = self.get(token, org, &format!("/v1/memory/search?{query}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let mut found: Vec<String> =
            body["results"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap().to_owned()).collect();
        found.sort();
        found
    }

    /// Any request with an optional JSON body: its status and JSON answer (`null` for none).
    async fn send(&self, method: Method, token: &str, org: &str, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.url)).bearer_auth(token).header("X-Org-Id", org);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
    }

    async fn listed(&self, token: &str, org: &str, query: &str) -> Vec<(String, String)> {
        let (status, body) = self.get(token, org, &format!("/v1/memory?{query}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["memories"].as_array().unwrap().iter().map(|m| (m["scope"].as_str().unwrap().to_owned(), m["content"].as_str().unwrap().to_owned())).collect()
    }
}

#[tokio::test]
async fn members_read_their_team_bank_and_nothing_else_on_every_read_route() {
    let s = Service::start().await;
    let team = s.bank.save_to_team(&s.ada.0, &s.acme, sentence("Staging deploys need the VPN")).await.unwrap();
    let bobs = s.bank.save(&s.bob.0, &s.acme, sentence("Bob deploys on Fridays")).await.unwrap();
    let theirs = s.bank.save_to_team(&s.eve.0, &s.globex, sentence("Globex deploys through Jenkins")).await.unwrap();

    // A member: both banks by default, each alone by scope, lists and searches alike,
    // with a full token and an agent token.
    for token in [&s.bob.1, &s.bob_agent] {
        assert_eq!(s.found(token, &s.acme, "q=deploys").await, ["Bob deploys on Fridays", "Staging deploys need the VPN"]);
        assert_eq!(s.found(token, &s.acme, "q=deploys&scope=all").await, ["Bob deploys on Fridays", "Staging deploys need the VPN"]);
        assert_eq!(s.found(token, &s.acme, "q=deploys&scope=team").await, ["Staging deploys need the VPN"]);
        assert_eq!(s.found(token, &s.acme, "q=deploys&scope=mine").await, ["Bob deploys on Fridays"]);
    }
    assert_eq!(
        s.listed(&s.bob.1, &s.acme, "").await,
        [("user".to_owned(), "Bob deploys on Fridays".to_owned()), ("org".to_owned(), "Staging deploys need the VPN".to_owned())]
    );
    assert_eq!(s.listed(&s.bob.1, &s.acme, "scope=team").await, [("org".to_owned(), "Staging deploys need the VPN".to_owned())]);
    let (status, body) = s.get(&s.bob.1, &s.acme, &format!("/v1/memory/{}", team.id)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["memory"]["scope"].as_str(), body["memory"]["savedBy"].as_str()), (Some("org"), Some(s.ada.0.as_str())));
    assert_eq!(body["memory"]["confirmedBy"].as_str(), Some(s.ada.0.as_str()));

    // The owner reads the team bank, never the member's own memories.
    assert_eq!(s.found(&s.ada.1, &s.acme, "q=deploys").await, ["Staging deploys need the VPN"]);
    let (status, body) = s.get(&s.ada.1, &s.acme, &format!("/v1/memory/{}", bobs.id)).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("memory_not_found")));

    // Another org's team memory: the same 404 as an id that never existed, through
    // either org; and an org one is not in is the 404 of an unknown org.
    let (missing_status, missing) = s.get(&s.bob.1, &s.acme, "/v1/memory/mem_01JD00000000000000000000000").await;
    let (status, body) = s.get(&s.bob.1, &s.acme, &format!("/v1/memory/{}", theirs.id)).await;
    assert_eq!((status, &body), (missing_status, &missing), "nothing tells them apart");
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, not_in) = s.get(&s.bob.1, &s.globex, &format!("/v1/memory/{}", theirs.id)).await;
    let (unknown_status, unknown) = s.get(&s.bob.1, "org_01JD00000000000000000000000", "/v1/memory?scope=team").await;
    assert_eq!((status, &not_in), (unknown_status, &unknown));
    assert_eq!(not_in["error"].as_str(), Some("organization_not_found"));
    assert!(!s.found(&s.eve.1, &s.globex, "q=deploys").await.iter().any(|c| c.contains("VPN") || c.contains("Bob")));
}

#[tokio::test]
async fn a_removed_member_stops_at_once_and_the_kill_switch_is_a_403_with_its_code() {
    let s = Service::start().await;
    s.bank.save_to_team(&s.ada.0, &s.acme, sentence("Invoices belong to billing")).await.unwrap();
    assert_eq!(s.found(&s.bob.1, &s.acme, "q=invoices").await, ["Invoices belong to billing"]);
    let (status, body) = s.get(&s.bob.1, &s.acme, "/v1/memory?scope=everything").await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")));
    assert!(body["details"][0]["message"].as_str().unwrap().contains("mine"), "{body}");

    // Memory off for the org: every read, of either bank, is refused with the code.
    s.bank.set_org_policy(&s.acme, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    for path in ["/v1/memory/search?q=invoices", "/v1/memory?scope=mine", "/v1/memory?scope=team", "/v1/memory/search?q=invoices&scope=mine"] {
        let (status, body) = s.get(&s.bob.1, &s.acme, path).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_memory_disabled")), "{path}: {body}");
        assert!(body["details"][0]["message"].as_str().unwrap().contains("--memory on"), "says what to do: {body}");
    }
    s.bank.set_org_policy(&s.acme, &OrgPolicy::default()).await.unwrap();

    // Removed: the same token is refused at once, on every read and scope.
    assert!(s.bank.remove_member(&s.acme, &s.bob.0).await.unwrap());
    for path in ["/v1/memory/search?q=invoices", "/v1/memory?scope=mine", "/v1/memory?scope=team"] {
        for token in [&s.bob.1, &s.bob_agent] {
            let (status, body) = s.get(token, &s.acme, path).await;
            assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("organization_not_found")), "{path}: {body}");
        }
    }
    assert_eq!(s.found(&s.ada.1, &s.acme, "q=invoices").await, ["Invoices belong to billing"], "the org keeps it");
}

#[tokio::test]
async fn only_admins_and_owners_save_to_the_team_bank_and_the_audit_log_says_so() {
    let s = Service::start().await;
    let post = |token: String, body: Value| {
        let request = s.http.post(format!("{}/v1/memory", s.url)).bearer_auth(token).header("X-Org-Id", &s.acme).json(&body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            (status, serde_json::from_str::<Value>(&response.text().await.unwrap()).unwrap())
        }
    };
    // The owner: saved in the team bank, authored and confirmed by her.
    let (status, body) = post(s.ada.1.clone(), serde_json::json!({"content": "The billing service owns invoices", "scope": "org"})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!((body["memory"]["scope"].as_str(), body["memory"]["savedBy"].as_str()), (Some("org"), Some(s.ada.0.as_str())));
    let id = body["memory"]["id"].as_str().unwrap().to_owned();
    assert_eq!(s.found(&s.bob.1, &s.acme, "q=invoices&scope=team").await, ["The billing service owns invoices"]);

    // A member: proposed to the org Inbox instead (202), nothing saved yet; an agent
    // token of anyone: refused, nothing saved.
    let (status, body) = post(s.bob.1.clone(), serde_json::json!({"content": "Bob's team fact about invoices", "scope": "org"})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!((body["proposal"]["scope"].as_str(), body["proposal"]["status"].as_str()), (Some("org"), Some("pending")));
    assert_eq!(body["proposal"]["proposer"].as_str(), Some(s.bob.0.as_str()));
    let (status, body) = post(s.bob_agent.clone(), serde_json::json!({"content": "An agent's fact about invoices", "scope": "org"})).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("agent_token_cannot_confirm")), "{body}");
    assert_eq!(s.found(&s.ada.1, &s.acme, "q=invoices").await, ["The billing service owns invoices"]);

    // Personal saves stay personal; the kill switch stops them too.
    let (status, body) = post(s.bob.1.clone(), serde_json::json!({"content": "Bob's own note on invoices"})).await;
    assert_eq!((status, body["memory"]["scope"].as_str()), (StatusCode::CREATED, Some("user")), "{body}");
    s.bank.set_org_policy(&s.acme, &OrgPolicy { memory_enabled: false, ..OrgPolicy::default() }).await.unwrap();
    let (status, body) = post(s.bob.1.clone(), serde_json::json!({"content": "While memory is off"})).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_memory_disabled")), "{body}");

    let audit = s.bank.org_audit(&s.acme, None, 10).await.unwrap();
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!((audit[0].action, audit[0].actor_id.as_str()), (AuditAction::Proposed, s.bob.0.as_str()), "newest first");
    assert_eq!((audit[1].memory_id.as_deref(), audit[1].actor_id.as_str()), (Some(id.as_str()), s.ada.0.as_str()));
}

#[tokio::test]
async fn the_audit_log_is_paged_for_admins_and_owners_and_refused_to_everyone_else() {
    let s = Service::start().await;
    let mut saved = Vec::new();
    for text in ["First team fact", "Second team fact", "Third team fact"] {
        saved.push(s.bank.save_to_team(&s.ada.0, &s.acme, sentence(text)).await.unwrap().id);
    }
    let path = |query: &str| format!("/v1/orgs/{}/audit{query}", s.acme);

    let (status, first) = s.get(&s.ada.1, &s.acme, &path("?limit=2")).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let ids = |page: &Value| page["entries"].as_array().unwrap().iter().map(|e| e["memoryId"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(ids(&first), [saved[2].clone(), saved[1].clone()], "newest first");
    assert_eq!(first["entries"][0]["action"].as_str(), Some("saved"));
    assert_eq!(first["entries"][0]["actorId"].as_str(), Some(s.ada.0.as_str()));
    assert_eq!(first["entries"][0]["contentChars"].as_u64(), Some(15));
    let text = first.to_string();
    assert!(!text.contains("team fact"), "ids and lengths only: {text}");
    let before = first["nextBefore"].as_i64().expect("a next page");
    let (status, second) = s.get(&s.ada.1, &s.acme, &path(&format!("?limit=2&before={before}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(ids(&second), [saved[0].clone()]);
    assert!(second["nextBefore"].is_null(), "the last page");

    // A member, an agent token: refused with their codes; another org's owner and an org
    // that does not exist: the same 404.
    let (status, body) = s.get(&s.bob.1, &s.acme, &path("")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")));
    let (status, body) = s.get(&s.bob_agent, &s.acme, &path("")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("agent_token_cannot_confirm")));
    let (status, outsider) = s.get(&s.eve.1, &s.globex, &path("")).await;
    let (_, unknown) = s.get(&s.eve.1, &s.globex, "/v1/orgs/org_01JD00000000000000000000000/audit").await;
    assert_eq!((status, &outsider), (StatusCode::NOT_FOUND, &unknown));
    assert_eq!(outsider["error"].as_str(), Some("organization_not_found"));
    let (status, body) = s.get(&s.ada.1, &s.acme, &path("?limit=500&before=x")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let paths: Vec<&str> = body["details"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["limit", "before"]);
}

/// The org Inbox over HTTP, cell by cell: a member's save to the team bank and their
/// agent's proposal wait in it; its owner lists and decides them, a member cannot (not
/// even their own), an agent token never, and another org's owner finds nothing. A
/// team memory is edited and deleted by its admins and owners only; an agent's team
/// proposal obeys the org's policy; the log says every step, without the words.
#[tokio::test]
async fn the_org_inbox_is_decided_by_its_admins_and_owners_alone() {
    let s = Service::start().await;
    let ada_agent = s.bank.issue_token_of_kind(&s.ada.0, TokenKind::Agent).await.unwrap();
    let json = |value: Value| Some(value);
    let (status, saved) =
        s.send(Method::POST, &s.bob.1, &s.acme, "/v1/memory", json(serde_json::json!({"content": "Staging deploys need the VPN", "scope": "org"}))).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{saved}");
    let from_bob = saved["proposal"]["id"].as_str().unwrap().to_owned();
    let (status, proposed) = s
        .send(Method::POST, &s.bob_agent, &s.acme, "/v1/proposals", json(serde_json::json!({"content": "Invoices belong to billing", "scope": "org"})))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    let from_agent = proposed["proposal"]["id"].as_str().unwrap().to_owned();

    // Who sees what.
    let (status, inbox) = s.get(&s.ada.1, &s.acme, "/v1/proposals?scope=team&status=pending").await;
    assert_eq!(status, StatusCode::OK, "{inbox}");
    let waiting: Vec<&str> = inbox["proposals"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(waiting, [from_agent.as_str(), from_bob.as_str()], "newest first");
    let (status, own) = s.get(&s.ada.1, &s.acme, "/v1/proposals").await;
    assert_eq!((status, own["proposals"].as_array().map(Vec::len)), (StatusCode::OK, Some(0)), "not in her own Inbox");
    let (status, body) = s.get(&s.bob.1, &s.acme, "/v1/proposals?scope=team").await;
    assert_eq!((status, body["yourRole"].as_str(), body["proposals"].as_array().map(Vec::len)), (StatusCode::OK, Some("member"), Some(2)), "his own: {body}");
    let (status, body) = s.get(&s.bob.1, &s.acme, &format!("/v1/proposals/{from_bob}")).await;
    assert_eq!((status, body["proposal"]["status"].as_str()), (StatusCode::OK, Some("pending")), "the proposer follows it");
    let (status, body) = s.get(&s.eve.1, &s.globex, &format!("/v1/proposals/{from_bob}")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("proposal_not_found")), "another org's");
    let (status, body) = s.get(&s.bob.1, &s.acme, "/v1/proposals?scope=everyone").await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");

    // Who decides.
    for (token, code) in [(&s.bob.1, "org_role_required"), (&s.bob_agent, "agent_token_cannot_confirm"), (&ada_agent, "agent_token_cannot_confirm")] {
        for verb in ["accept", "reject"] {
            let (status, body) = s.send(Method::POST, token, &s.acme, &format!("/v1/proposals/{from_bob}/{verb}"), None).await;
            assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some(code)), "{verb}: {body}");
        }
    }
    let (status, body) = s.send(Method::POST, &s.eve.1, &s.globex, &format!("/v1/proposals/{from_bob}/accept"), None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("proposal_not_found")));
    assert!(s.found(&s.bob.1, &s.acme, "q=VPN&scope=team").await.is_empty(), "nothing saved by any refusal");
    let (status, accepted) = s.send(Method::POST, &s.ada.1, &s.acme, &format!("/v1/proposals/{from_bob}/accept"), None).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    let memory = &accepted["memory"];
    assert_eq!((memory["scope"].as_str(), memory["savedBy"].as_str()), (Some("org"), Some(s.bob.0.as_str())));
    assert_eq!(memory["confirmedBy"].as_str(), Some(s.ada.0.as_str()));
    let team_id = memory["id"].as_str().unwrap().to_owned();
    let (status, _) = s.send(Method::POST, &s.ada.1, &s.acme, &format!("/v1/proposals/{from_agent}/reject"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(s.found(&s.bob.1, &s.acme, "q=VPN").await, ["Staging deploys need the VPN"]);

    // Team memories change through admins and owners only.
    let path = format!("/v1/memory/{team_id}");
    let wording = json(serde_json::json!({"content": "Staging deploys need the office VPN"}));
    let (status, body) = s.send(Method::PATCH, &s.bob.1, &s.acme, &path, wording.clone()).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "{body}");
    let (status, body) = s.send(Method::DELETE, &s.bob.1, &s.acme, &path, None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "{body}");
    let (status, body) = s.send(Method::PATCH, &s.ada.1, &s.acme, &path, wording).await;
    assert_eq!((status, body["memory"]["content"].as_str()), (StatusCode::OK, Some("Staging deploys need the office VPN")), "{body}");
    let (status, history) = s.get(&s.bob.1, &s.acme, &format!("{path}/revisions")).await;
    assert_eq!((status, history["revisions"].as_array().map(Vec::len)), (StatusCode::OK, Some(1)), "a member reads its history: {history}");
    let restore = format!("{path}/revisions/{}/restore", history["revisions"][0]["id"].as_str().unwrap());
    let (status, body) = s.send(Method::POST, &s.bob.1, &s.acme, &restore, None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "{body}");
    let (status, body) = s.send(Method::POST, &s.ada.1, &s.acme, &restore, None).await;
    assert_eq!((status, body["memory"]["content"].as_str()), (StatusCode::OK, Some("Staging deploys need the VPN")), "{body}");
    let (status, _) = s.send(Method::DELETE, &s.ada.1, &s.acme, &path, None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = s.send(Method::DELETE, &s.eve.1, &s.globex, &path, None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("memory_not_found")));

    // The org's policy on agents' team proposals; a person's still goes through.
    s.bank.set_org_policy(&s.acme, &OrgPolicy { agents_may_propose: false, ..OrgPolicy::default() }).await.unwrap();
    let fact = json(serde_json::json!({"content": "Agents may not say this", "scope": "org"}));
    let (status, body) = s.send(Method::POST, &s.bob_agent, &s.acme, "/v1/proposals", fact.clone()).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_agents_may_not_propose")), "{body}");
    let (status, _) = s.send(Method::POST, &s.bob.1, &s.acme, "/v1/proposals", fact).await;
    assert_eq!(status, StatusCode::CREATED);

    let (status, log) = s.get(&s.ada.1, &s.acme, &format!("/v1/orgs/{}/audit?limit=50", s.acme)).await;
    assert_eq!(status, StatusCode::OK);
    let mut actions: Vec<&str> = log["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    actions.reverse();
    assert_eq!(actions, ["proposed", "proposed", "accepted", "saved", "rejected", "edited", "edited", "deleted", "proposed"]);
    let text = log.to_string();
    assert!(!text.contains("VPN") && !text.contains("Invoices"), "ids and lengths only: {text}");
}

/// A member's `GET /v1/proposals?scope=team` lists the team proposals they made, by hand
/// or through their agent, pending or decided, with `yourRole: member`, never another
/// member's; the owner's lists the whole org Inbox with `yourRole: owner`; a personal
/// list names no role. A member's team save is answered with the team's alike memories,
/// and so is an owner's.
#[tokio::test]
async fn members_list_the_team_proposals_they_made_and_owners_the_whole_org_inbox() {
    let s = Service::start().await;
    let carol = s.bank.add_user("carol@example.com").await.unwrap().id;
    s.bank.add_member(&s.acme, &carol).await.unwrap();
    let carol_token = s.bank.issue_token(&carol).await.unwrap();
    let body = |content: &str| Some(serde_json::json!({"content": content, "scope": "org"}));
    let (status, direct) = s.send(Method::POST, &s.ada.1, &s.acme, "/v1/memory", body("Staging deploys need the VPN")).await;
    assert_eq!((status, direct.get("similar")), (StatusCode::CREATED, None), "nothing alike yet: {direct}");
    let team_memory = direct["memory"]["id"].as_str().unwrap().to_owned();

    let (status, saved) = s.send(Method::POST, &s.bob.1, &s.acme, "/v1/memory", body("Staging deploys need the VPN token")).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{saved}");
    assert_eq!(saved["similar"][0]["id"].as_str(), Some(team_memory.as_str()), "the team's alike memory: {saved}");
    assert_eq!(saved["proposal"]["similar"], saved["similar"]);
    let (status, owners) = s.send(Method::POST, &s.ada.1, &s.acme, "/v1/memory?similar=true", body("Staging deploys need the VPN always")).await;
    assert_eq!(status, StatusCode::CREATED, "{owners}");
    assert_eq!(owners["similar"][0]["id"].as_str(), Some(team_memory.as_str()), "an owner's team save, hint asked: {owners}");
    let from_bob = saved["proposal"]["id"].as_str().unwrap().to_owned();
    let (status, proposed) = s.send(Method::POST, &s.bob_agent, &s.acme, "/v1/proposals", body("Invoices belong to billing")).await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    let from_agent = proposed["proposal"]["id"].as_str().unwrap().to_owned();
    let (status, proposed) = s.send(Method::POST, &carol_token, &s.acme, "/v1/proposals", body("Releases ship on Tuesdays")).await;
    assert_eq!(status, StatusCode::CREATED, "{proposed}");
    let from_carol = proposed["proposal"]["id"].as_str().unwrap().to_owned();

    let listed = |body: &Value| -> Vec<(String, String)> {
        let proposals = body["proposals"].as_array().unwrap_or_else(|| panic!("a list: {body}"));
        proposals.iter().map(|p| (p["id"].as_str().unwrap().to_owned(), p["status"].as_str().unwrap().to_owned())).collect()
    };
    let pending = |id: &str| (id.to_owned(), "pending".to_owned());
    let (status, bobs) = s.get(&s.bob.1, &s.acme, "/v1/proposals?scope=team").await;
    assert_eq!((status, bobs["yourRole"].as_str()), (StatusCode::OK, Some("member")), "{bobs}");
    assert_eq!(listed(&bobs), [pending(&from_agent), pending(&from_bob)], "his and his agent's, newest first");
    assert!(bobs["proposals"].as_array().unwrap().iter().all(|p| p["proposer"].as_str() == Some(s.bob.0.as_str())));
    let (status, carols) = s.get(&carol_token, &s.acme, "/v1/proposals?scope=team").await;
    assert_eq!((status, listed(&carols)), (StatusCode::OK, vec![pending(&from_carol)]), "hers only");
    let (status, adas) = s.get(&s.ada.1, &s.acme, "/v1/proposals?scope=team").await;
    assert_eq!((status, adas["yourRole"].as_str()), (StatusCode::OK, Some("owner")));
    assert_eq!(listed(&adas), [pending(&from_carol), pending(&from_agent), pending(&from_bob)], "the whole org Inbox");
    let (status, own) = s.get(&s.bob.1, &s.acme, "/v1/proposals").await;
    assert_eq!((status, own.get("yourRole")), (StatusCode::OK, None), "a personal list: {own}");

    // Decided, it stays in his list with its outcome; he still decides nothing.
    let (status, body) = s.send(Method::POST, &s.bob.1, &s.acme, &format!("/v1/proposals/{from_bob}/accept"), None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "{body}");
    let (status, _) = s.send(Method::POST, &s.ada.1, &s.acme, &format!("/v1/proposals/{from_agent}/reject"), None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, accepted) = s.send(Method::POST, &s.ada.1, &s.acme, &format!("/v1/proposals/{from_bob}/accept"), None).await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    assert_eq!(accepted["similar"][0]["id"].as_str(), Some(team_memory.as_str()), "the accept's hint: {accepted}");
    let (_, bobs) = s.get(&s.bob.1, &s.acme, "/v1/proposals?scope=team").await;
    let decided = [(from_agent.clone(), "rejected".to_owned()), (from_bob.clone(), "accepted".to_owned())];
    assert_eq!(listed(&bobs), decided);
    let (_, bobs) = s.get(&s.bob.1, &s.acme, "/v1/proposals?scope=team&status=pending").await;
    assert!(listed(&bobs).is_empty(), "{bobs}");
    let (status, body) = s.get(&s.eve.1, &s.acme, "/v1/proposals?scope=team").await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("organization_not_found")), "outside the org: {body}");
}

/// The owners' page over HTTP: members are listed for admins and owners with the
/// caller's role; owners change any role and the policy, admins move people between
/// member and admin only, members neither; the org keeps an owner; agent tokens change
/// nothing; outsiders get the 404 of an unknown org; a removed member stops at once.
#[tokio::test]
async fn owners_and_admins_manage_members_and_owners_alone_the_policy() {
    let s = Service::start().await;
    let carol = s.bank.add_user("carol@example.com").await.unwrap().id;
    let carol_token = s.bank.issue_token(&carol).await.unwrap();
    s.bank.add_member(&s.acme, &carol).await.unwrap();
    let members = format!("/v1/orgs/{}/members", s.acme);
    let member = |id: &str| format!("{members}/{id}");
    let policy = format!("/v1/orgs/{}/policy", s.acme);
    let roles = |body: &Value| -> Vec<(String, String)> {
        body["members"].as_array().unwrap().iter().map(|m| (m["email"].as_str().unwrap().to_owned(), m["role"].as_str().unwrap().to_owned())).collect()
    };

    let (status, body) = s.get(&s.ada.1, &s.acme, &members).await;
    assert_eq!((status, body["yourRole"].as_str()), (StatusCode::OK, Some("owner")), "{body}");
    assert_eq!(roles(&body), [("ada@example.com".into(), "owner".into()), ("bob@example.com".into(), "member".into()), ("carol@example.com".into(), "member".into())]);
    let (status, body) = s.get(&s.bob.1, &s.acme, &members).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "a member: {body}");
    let (status, outsider) = s.get(&s.eve.1, &s.globex, &members).await;
    assert_eq!((status, outsider["error"].as_str()), (StatusCode::NOT_FOUND, Some("organization_not_found")));

    // The owner makes Bob an admin; Bob then moves Carol between member and admin, but
    // cannot make anyone an owner, touch the owner, or change the policy.
    let role = |r: &str| Some(serde_json::json!({"role": r}));
    let (status, body) = s.send(Method::PUT, &s.ada.1, &s.acme, &member(&s.bob.0), role("admin")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(roles(&body)[1], ("bob@example.com".into(), "admin".into()));
    let (status, _) = s.send(Method::PUT, &s.bob.1, &s.acme, &member(&carol), role("admin")).await;
    assert_eq!(status, StatusCode::OK);
    for (target, to) in [(carol.as_str(), "owner"), (s.ada.0.as_str(), "member")] {
        let (status, body) = s.send(Method::PUT, &s.bob.1, &s.acme, &member(target), role(to)).await;
        assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "{to}: {body}");
    }
    let (status, body) = s.send(Method::DELETE, &s.bob.1, &s.acme, &member(&s.ada.0), None).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "{body}");
    let (status, body) = s.send(Method::PUT, &s.bob_agent, &s.acme, &member(&carol), role("member")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("agent_token_cannot_confirm")), "{body}");
    let (status, body) = s.send(Method::PUT, &s.ada.1, &s.acme, &member(&s.eve.0), role("admin")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("member_not_found")), "not in Acme: {body}");
    let (status, body) = s.send(Method::PUT, &s.ada.1, &s.acme, &member(&carol), role("chief")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
    let (status, body) = s.send(Method::PUT, &s.ada.1, &s.acme, &member(&s.ada.0), role("admin")).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::CONFLICT, Some("org_needs_owner")), "the last owner: {body}");
    let why = body["details"][0]["message"].as_str().unwrap_or_default();
    assert!(why.starts_with("Acme would have no owner left") && !body.to_string().contains(&s.acme), "named by its name: {body}");

    // The policy: every member reads it (agents too); only the owner changes it.
    let strict = serde_json::json!({"memoryEnabled": true, "agentsMayPropose": false, "maxMemories": 500});
    let (status, body) = s.get(&s.bob_agent, &s.acme, &policy).await;
    assert_eq!((status, body["agentsMayPropose"].as_bool()), (StatusCode::OK, Some(true)), "{body}");
    let (status, body) = s.send(Method::PUT, &s.bob.1, &s.acme, &policy, Some(strict.clone())).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::FORBIDDEN, Some("org_role_required")), "an admin: {body}");
    assert!(body["details"][0]["message"].as_str().unwrap().contains("owners"), "{body}");
    let (status, body) = s.send(Method::PUT, &s.ada.1, &s.acme, &policy, Some(strict.clone())).await;
    assert_eq!((status, &body), (StatusCode::OK, &strict));
    let (status, body) = s.send(Method::PUT, &s.ada.1, &s.acme, &policy, Some(serde_json::json!({"memoryEnabled": "yes"}))).await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_request")), "{body}");
    assert_eq!(s.bank.org_policy(&s.acme).await.unwrap().max_memories, Some(500), "a refused change changes nothing");

    // Removed by an admin: Carol's token stops at once; anyone may leave.
    let (status, _) = s.send(Method::DELETE, &s.bob.1, &s.acme, &member(&carol), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = s.get(&carol_token, &s.acme, "/v1/memory").await;
    assert_eq!((status, body["error"].as_str()), (StatusCode::NOT_FOUND, Some("organization_not_found")));
    let (status, _) = s.send(Method::DELETE, &s.bob.1, &s.acme, &member(&s.bob.0), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "Bob leaves");
    let (status, body) = s.get(&s.ada.1, &s.acme, &members).await;
    assert_eq!((status, roles(&body)), (StatusCode::OK, vec![("ada@example.com".to_owned(), "owner".to_owned())]));
}

/// The org's export: its team memories (each with who saved and who confirmed it), then
/// its audit log, for admins and owners only; a person importing it into their own bank
/// gets the memories and is told each audit line stays with its org.
#[tokio::test]
async fn the_org_export_holds_the_team_bank_and_its_audit_log() {
    let s = Service::start().await;
    let first = s.bank.save_to_team(&s.ada.0, &s.acme, sentence("Invoices belong to billing")).await.unwrap();
    let second = s.bank.save_to_team(&s.ada.0, &s.acme, sentence("Staging deploys need the VPN")).await.unwrap();
    s.bank.save(&s.bob.0, &s.acme, sentence("Bob's own note")).await.unwrap();
    s.bank.save_to_team(&s.eve.0, &s.globex, sentence("Globex deploys through Jenkins")).await.unwrap();
    let path = format!("/v1/orgs/{}/export", s.acme);

    let response = s.http.get(format!("{}{path}", s.url)).bearer_auth(&s.ada.1).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let text = response.text().await.unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "two memories, then two audit lines: {text}");
    assert_eq!((lines[0]["id"].as_str(), lines[1]["id"].as_str()), (Some(second.id.as_str()), Some(first.id.as_str())), "newest first");
    assert_eq!((lines[0]["savedBy"].as_str(), lines[0]["confirmedBy"].as_str()), (Some(s.ada.0.as_str()), Some(s.ada.0.as_str())));
    assert_eq!(lines[2]["audit"]["action"].as_str(), Some("saved"));
    assert_eq!(lines[3]["audit"]["memoryId"].as_str(), Some(first.id.as_str()));
    assert!(!text.contains("Bob's own") && !text.contains("Globex"), "nobody else's memories: {text}");
    assert!(!lines[2].to_string().contains("billing") && !lines[2].to_string().contains("VPN"), "the log holds no words");

    for (token, org, status, code) in [
        (&s.bob.1, &s.acme, StatusCode::FORBIDDEN, "org_role_required"),
        (&s.bob_agent, &s.acme, StatusCode::FORBIDDEN, "agent_token_cannot_confirm"),
        (&s.eve.1, &s.globex, StatusCode::NOT_FOUND, "organization_not_found"),
    ] {
        let (got, body) = s.get(token, org, &path).await;
        assert_eq!((got, body["error"].as_str()), (status, Some(code)), "{body}");
    }

    // Into Eve's own bank: the memories import (authorship is the org's, not kept), and
    // each audit line is reported by number, with why.
    let response = s.http.post(format!("{}/v1/import", s.url)).bearer_auth(&s.eve.1).header("X-Org-Id", &s.globex).body(text).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let report: Value = response.json().await.unwrap();
    assert_eq!(report["imported"].as_u64(), Some(2), "{report}");
    let failed: Vec<(u64, &str)> = report["failed"].as_array().unwrap().iter().map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap())).collect();
    assert_eq!(failed.len(), 2, "{report}");
    assert_eq!((failed[0].0, failed[1].0), (3, 4));
    assert!(failed[0].1.contains("audit line") && failed[0].1.contains("stays with its org"), "{report}");
}
