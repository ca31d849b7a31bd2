//! Scaling out: several real `memory-bank serve` processes, each on a different node of
//! a real 3-node MariaDB Galera cluster (see memory_bank_store_mysql::testing::GaleraCluster),
//! share one database. A save through one instance is found through another, `db migrate`
//! run on two nodes at once creates the full-text index once, and a node killed while
//! the others carry a load of saves and searches takes down only its own instance,
//! which answers 503 until the node rejoins and then serves the rows written meanwhile.
//! A node cut off from the others (process up, outside the Primary component) makes its
//! instance answer 503 too, `/healthz` included. The team bank is written through
//! several nodes: a member's proposal through one, decided through another, and one
//! proposal accepted and rejected at once through two is decided once. Timings are printed (`[galera]` lines,
//! see BENCHMARKS.md), never asserted.
//!
//! Never skipped: without Galera, MariaDB or rsync it fails saying what to install.

#[path = "support/serve_process.rs"]
mod serve_process;

use std::process::{Child, Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memory_bank_store::MemoryStore as _;
use memory_bank_store_mysql::testing::{with_database, GaleraCluster, TestDatabase, GALERA_INSTALL_HINT};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_memory-bank");

fn run(url: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(["--database-url", url])
        .args(args)
        .env_remove("MEMORY_BANK_TOKEN")
        .env_remove("MEMORY_BANK_ORG")
        .env_remove("MEMORY_BANK_URL")
        .output()
        .unwrap()
}

fn ok(url: &str, args: &[&str]) -> String {
    let out = run(url, args);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A `memory-bank serve` process, killed when dropped so a failing test leaves none behind.
struct Instance {
    child: Child,
    url: String,
}

impl Instance {
    fn start(database_url: &str) -> Self {
        // No per-token rate limit: the load below is one token sending as fast as it can.
        let serving = serve_process::start(BIN, database_url, &[("MEMORY_BANK_RATE_LIMIT", "0")])
            .unwrap_or_else(|e| panic!("memory-bank serve on {database_url} did not start: {e}"));
        Self { child: serving.child, url: serving.url }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    token: String,
    org: String,
}

impl Api {
    /// (status, body); a transport error (connection refused, reset) is status 0.
    async fn call(&self, base: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request =
            self.http.request(method, format!("{base}{path}")).bearer_auth(&self.token).header("X-Org-Id", &self.org);
        if let Some(body) = body {
            request = request.json(&body);
        }
        match request.send().await {
            Ok(response) => {
                let status = response.status().as_u16();
                let text = response.text().await.unwrap_or_default();
                (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
            }
            Err(e) => (0, Value::String(e.to_string())),
        }
    }

    async fn save(&self, base: &str, content: &str) -> (u16, Value) {
        self.call(base, reqwest::Method::POST, "/v1/memory", Some(json!({ "content": content }))).await
    }

    /// The contents found for `q` (panics unless the search answered 200).
    async fn found(&self, base: &str, q: &str) -> Vec<String> {
        let (status, body) = self.call(base, reqwest::Method::GET, &format!("/v1/memory/search?q={q}&limit=50"), None).await;
        assert_eq!(status, 200, "search {q} on {base}: {body}");
        // The memories holding the word: a memory found by meaning alone (they are all
        // alike here) is not the one replication is checked for.
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["matched"] != "meaning")
            .map(|r| r["content"].as_str().unwrap().to_owned())
            .collect()
    }

    async fn healthz(&self, base: &str) -> u16 {
        self.call(base, reqwest::Method::GET, "/healthz", None).await.0
    }
}

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples.get(samples.len() / 2).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// One request of the load: which instance, what, when it started (since the load
/// began), how long it took, and its status.
struct Outcome {
    instance: &'static str,
    kind: &'static str,
    started: Duration,
    took: Duration,
    status: u16,
    detail: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_instances_on_three_galera_nodes_share_one_database_and_outlive_a_node() {
    let began = Instant::now();
    let mut cluster = tokio::task::block_in_place(|| GaleraCluster::start(3))
        .unwrap_or_else(|e| panic!("cannot start a 3-node Galera cluster: {e}\n{GALERA_INSTALL_HINT}"));
    eprintln!("[galera] 3 nodes synced in {:.1} s", began.elapsed().as_secs_f64());
    // CREATE DATABASE is DDL, replicated to every node.
    let db = TestDatabase::create_on(&cluster.server_url(0)).await;
    let node_url: Vec<String> = (0..3).map(|i| with_database(&cluster.server_url(i), db.name())).collect();

    // --- the schema, and `db migrate` on two nodes at once ---
    assert_eq!(ok(&node_url[0], &["db", "bootstrap"]).trim(), "bootstrapped; full-text index created");
    let user = ok(&node_url[0], &["admin", "user", "add", "ops@example.com"]).trim().to_owned();
    // The accounts through one node: under the server default (wsrep_sync_wait=0, which
    // the first part below measures) another node may apply a write a moment after it
    // committed, and on a loaded machine `member add` on node 2 once missed the org
    // added through node 1.
    let org = ok(&node_url[0], &["admin", "org", "add", "Operations"]).trim().to_owned();
    ok(&node_url[0], &["admin", "member", "add", &org, &user]);
    let token = ok(&node_url[0], &["admin", "token", "issue", &user]).trim().to_owned();
    for round in 0..3 {
        // The DDL replicates: dropped through node 2, gone everywhere.
        let store = memory_bank_store_mysql::MySqlStore::open(&node_url[2]).await.unwrap();
        sqlx::raw_sql("DROP TABLE memory_term").execute(store.pool()).await.unwrap();
        store.pool().close().await;
        // GET_LOCK, which serialises migrations on one server, is local to each Galera
        // node, so these two really run side by side; the DDL itself is ordered
        // cluster-wide (TOI) and the second creator gets "duplicate key name".
        let spawn = |url: &str| {
            Command::new(BIN).args(["--database-url", url, "db", "migrate"]).stdout(std::process::Stdio::piped()).spawn().unwrap()
        };
        let (first, second) = (spawn(&node_url[0]), spawn(&node_url[1]));
        let outputs = [first.wait_with_output().unwrap(), second.wait_with_output().unwrap()];
        let said: Vec<String> = outputs
            .iter()
            .map(|o| {
                assert!(
                    o.status.success(),
                    "round {round}: concurrent db migrate failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                String::from_utf8_lossy(&o.stdout).trim().to_owned()
            })
            .collect();
        let created = said.iter().filter(|s| *s == "migrated; full-text index created").count();
        let present = said.iter().filter(|s| *s == "migrated; full-text index present").count();
        assert_eq!((created, present), (1, 1), "round {round}: exactly one run creates the index: {said:?}");
        for url in &node_url {
            let store = memory_bank_store_mysql::MySqlStore::open(url).await.unwrap();
            assert!(store.search_index_exists().await.unwrap(), "round {round}: the index is on every node ({url})");
            store.pool().close().await;
        }
    }

    // --- a save through one instance is found through another ---
    let mut instances: Vec<Option<Instance>> = node_url.iter().map(|u| Some(Instance::start(u))).collect();
    let base: Vec<String> = instances.iter().map(|i| i.as_ref().unwrap().url.clone()).collect();
    let memory = |service: &str, args: &[&str]| {
        let out = Command::new(BIN)
            .arg("memory")
            .args(args)
            .env("MEMORY_BANK_URL", service)
            .env("MEMORY_BANK_TOKEN", &token)
            .env("MEMORY_BANK_ORG", &org)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?} via {service}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_str::<Value>(&String::from_utf8_lossy(&out.stdout)).unwrap()
    };
    let saved = memory(&base[0], &["save", "the standby generator is tested on Tuesdays", "--tag", "ops", "--json"]);
    let id = saved["memory"]["id"].as_str().unwrap().to_owned();
    let found = memory(&base[1], &["search", "generator", "--json"]);
    assert_eq!(found["results"][0]["id"], id.as_str(), "saved through node 0's instance, found through node 1's: {found}");
    let listed = memory(&base[1], &["list", "--json"]);
    assert_eq!(listed["memories"][0]["id"], id.as_str(), "listed through node 1's instance: {listed}");
    assert_eq!(listed["memories"][0]["tags"], json!(["ops"]));

    // The timeout only turns a hung request into a failure instead of a hung test.
    let http = reqwest::Client::builder().timeout(Duration::from_secs(120)).build().unwrap();
    let api = Api { http, token: token.clone(), org: org.clone() };
    // Read-your-writes across nodes: each save through one instance, then at once a
    // search through the next. Commit returns once every node has *certified* the
    // write; another node may still be *applying* it, so the server default
    // (wsrep_sync_wait=0) can miss it: counted, not asserted.
    let rounds = 60;
    let (mut misses, mut search_0) = (0, Vec::new());
    for n in 0..rounds {
        let word = format!("causal{n}x");
        assert_eq!(api.save(&base[n % 3], &format!("read-your-writes {word}")).await.0, 201);
        let started = Instant::now();
        let hits = api.found(&base[(n + 1) % 3], &word).await;
        search_0.push(started.elapsed());
        misses += usize::from(hits.is_empty());
    }
    // --- node 1 cut off from the others, its process up: a network partition (still
    // under the server default wsrep_sync_wait=0, where `SELECT 1` works on a node that
    // serves no data) ---
    let isolating = Instant::now();
    tokio::task::block_in_place(|| cluster.isolate(1)).unwrap_or_else(|e| panic!("cannot isolate node 1: {e}"));
    let isolated_in = isolating.elapsed();
    // Alone it is not Primary and refuses to serve data (error 1047): its instance must
    // say so with 503, on /healthz too, so a load balancer takes it out of rotation.
    assert_eq!(api.healthz(&base[1]).await, 503, "the instance of a node outside the Primary component is unhealthy");
    let (status, body) = api.call(&base[1], reqwest::Method::GET, "/v1/memory/search?q=generator", None).await;
    assert_eq!((status, body.clone()), (503, json!({ "error": "service_unavailable" })), "search on a non-Primary node");
    assert_eq!(api.save(&base[1], "refused by a non-Primary node").await.0, 503);
    // The majority goes on.
    let saving = Instant::now();
    assert_eq!(api.save(&base[0], "saved while node 1 was cut off: partitionword").await.0, 201);
    let majority_save = saving.elapsed();
    assert_eq!(api.found(&base[0], "partitionword").await.len(), 1);
    let reconnecting = Instant::now();
    tokio::task::block_in_place(|| cluster.reconnect(1)).unwrap_or_else(|e| panic!("node 1 did not rejoin: {e}"));
    let rejoined_in = reconnecting.elapsed();
    let recovering = Instant::now();
    while api.healthz(&base[1]).await != 200 {
        assert!(recovering.elapsed() < Duration::from_secs(60), "node 1's instance still unhealthy after its node synced");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(api.found(&base[1], "partitionword").await.len(), 1, "node 1's instance sees the write it missed");
    eprintln!(
        "[galera] node 1 isolated: non-Primary after {:.1} s, first save on the majority took {:.0} ms, rejoined and \
         synced {:.1} s after reconnecting",
        isolated_in.as_secs_f64(),
        majority_save.as_secs_f64() * 1000.0,
        rejoined_in.as_secs_f64()
    );
    // wsrep_sync_wait=1: a read first waits until its node has applied every write
    // committed anywhere before it. Set globally; new connections take it, so the
    // instances start again.
    for i in 0..3 {
        let root = memory_bank_store_mysql::MySqlStore::open(&node_url[i]).await.unwrap();
        sqlx::raw_sql("SET GLOBAL wsrep_sync_wait = 1").execute(root.pool()).await.unwrap();
        root.pool().close().await;
        instances[i] = None;
        instances[i] = Some(Instance::start(&node_url[i]));
    }
    let base: Vec<String> = instances.iter().map(|i| i.as_ref().unwrap().url.clone()).collect();
    let mut search_1 = Vec::new();
    for n in 0..rounds {
        let word = format!("causalsync{n}x");
        assert_eq!(api.save(&base[n % 3], &format!("read-your-writes {word}")).await.0, 201);
        let started = Instant::now();
        let hits = api.found(&base[(n + 1) % 3], &word).await;
        search_1.push(started.elapsed());
        assert_eq!(hits.len(), 1, "with wsrep_sync_wait=1 a save is found at once through another node ({n})");
    }
    eprintln!(
        "[galera] save then search on another node, {rounds} rounds: wsrep_sync_wait=0 missed {misses}, search p50 {:.1} ms; \
         wsrep_sync_wait=1 missed 0, search p50 {:.1} ms",
        median_ms(search_0),
        median_ms(search_1)
    );

    // --- the team bank written through two nodes (still wsrep_sync_wait=1) ---
    // The operator (the org's first member, its owner) saves to the team bank through
    // node 0; a member's team save through node 1 becomes a proposal; the owner decides
    // it through node 2, and accepting and rejecting one proposal at once through two
    // nodes decides it once. The audit log, read through any node, has each step once.
    let dev = ok(&node_url[0], &["admin", "user", "add", "dev@example.com"]).trim().to_owned();
    ok(&node_url[0], &["admin", "member", "add", &org, &dev]);
    let dev_token = ok(&node_url[0], &["admin", "token", "issue", &dev]).trim().to_owned();
    let member = Api { http: api.http.clone(), token: dev_token, org: org.clone() };
    let team_save = |text: &str| Some(json!({ "content": text, "scope": "org" }));
    let (status, body) = api.call(&base[0], reqwest::Method::POST, "/v1/memory", team_save("the team rotates on-call on Mondays")).await;
    assert_eq!(status, 201, "{body}");
    let mut proposals = Vec::new();
    for text in ["the team keeps runbooks in the wiki", "the team pages through the rota tool"] {
        let (status, body) = member.call(&base[1], reqwest::Method::POST, "/v1/memory", team_save(text)).await;
        assert_eq!(status, 202, "a member's team save is a proposal: {body}");
        proposals.push(body["proposal"]["id"].as_str().unwrap().to_owned());
    }
    let (status, body) = api.call(&base[2], reqwest::Method::POST, &format!("/v1/proposals/{}/accept", proposals[0]), None).await;
    assert_eq!(status, 200, "accepted through node 2: {body}");
    assert_eq!(body["memory"]["savedBy"].as_str(), Some(dev.as_str()));
    let decide = |verb: &'static str, node: usize| {
        let (api, base, id) = (api.clone(), base[node].clone(), proposals[1].clone());
        tokio::spawn(async move { api.call(&base, reqwest::Method::POST, &format!("/v1/proposals/{id}/{verb}"), None).await })
    };
    let (accepting, rejecting) = (decide("accept", 0), decide("reject", 1));
    let outcomes = [accepting.await.unwrap(), rejecting.await.unwrap()];
    let won: Vec<&(u16, Value)> = outcomes.iter().filter(|(status, _)| *status == 200).collect();
    assert_eq!(won.len(), 1, "one decision wins: {outcomes:?}");
    let lost = outcomes.iter().find(|(status, _)| *status != 200).unwrap();
    assert!(lost.0 == 409 || lost.0 == 503, "the other is told it was decided (or to retry): {lost:?}");
    let accepted = won[0].1["proposal"]["status"] == "accepted";
    let team_found = member.found(&base[2], "team").await;
    assert_eq!(team_found.len(), if accepted { 3 } else { 2 }, "what the decision left, through a third node: {team_found:?}");
    for (node, service) in base.iter().enumerate() {
        let (status, log) = api.call(service, reqwest::Method::GET, &format!("/v1/orgs/{org}/audit?limit=50"), None).await;
        assert_eq!(status, 200, "{log}");
        let mut actions: Vec<&str> = log["entries"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
        actions.reverse();
        let decided = if accepted { vec!["accepted", "saved"] } else { vec!["rejected"] };
        let mut expected = vec!["saved", "proposed", "proposed", "accepted", "saved"];
        expected.extend(decided);
        assert_eq!(actions, expected, "the same log, each step once, through node {node}");
    }
    eprintln!("[galera] team bank through three nodes: concurrent accept and reject of one proposal, {} won", if accepted { "accept" } else { "reject" });

    // --- node 2 killed mid-load ---
    let stop = Arc::new(AtomicBool::new(false));
    let load_began = Instant::now();
    let workers: Vec<_> = [("node0", base[0].clone()), ("node1", base[1].clone())]
        .into_iter()
        .map(|(instance, service)| {
            let (api, stop) = (api.clone(), stop.clone());
            tokio::spawn(async move {
                let mut outcomes = Vec::new();
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let word = format!("load{instance}n{n}x");
                    let started = load_began.elapsed();
                    let (status, body) = api.save(&service, &format!("saved under load {word}")).await;
                    outcomes.push(Outcome {
                        instance,
                        kind: "save",
                        started,
                        took: load_began.elapsed() - started,
                        status,
                        detail: format!("{word} {body}"),
                    });
                    let started = load_began.elapsed();
                    let (status, body) =
                        api.call(&service, reqwest::Method::GET, &format!("/v1/memory/search?q={word}"), None).await;
                    // The one memory holding the word (the others, all alike, come by meaning).
                    let by_words = |r: &Vec<serde_json::Value>| r.iter().filter(|r| r["matched"] != "meaning").count();
                    let detail = if status == 200 && body["results"].as_array().is_some_and(|r| by_words(r) == 1) {
                        word.clone()
                    } else {
                        format!("{word} not found by the instance that saved it: {body}")
                    };
                    let status = if detail == word { status } else { 1000 + status };
                    outcomes.push(Outcome {
                        instance,
                        kind: "search",
                        started,
                        took: load_began.elapsed() - started,
                        status,
                        detail,
                    });
                    n += 1;
                }
                outcomes
            })
        })
        .collect();
    // Reads only, beside the save/search loops: do they wait for the lost node too?
    let reader = {
        let (api, stop, service) = (api.clone(), stop.clone(), base[0].clone());
        tokio::spawn(async move {
            let mut outcomes = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let started = load_began.elapsed();
                let (status, body) = api.call(&service, reqwest::Method::GET, "/v1/memory/search?q=generator", None).await;
                let detail = body.to_string().chars().take(200).collect();
                outcomes.push(Outcome {
                    instance: "node0",
                    kind: "read",
                    started,
                    took: load_began.elapsed() - started,
                    status,
                    detail,
                });
            }
            outcomes
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    let killed_at = load_began.elapsed();
    tokio::task::block_in_place(|| cluster.kill(2));
    // The survivors notice the loss after a few seconds (evs.suspect_timeout); writes
    // wait for the new membership meanwhile.
    let evicted_at = loop {
        if tokio::task::block_in_place(|| cluster.status(0, "wsrep_cluster_size")).as_deref() == Ok("2") {
            break load_began.elapsed();
        }
        assert!(
            load_began.elapsed() - killed_at < Duration::from_secs(60),
            "nodes 0 and 1 never dropped node 2 from the cluster; node 0's log:\n{}",
            cluster.log_tail(0)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(tokio::task::block_in_place(|| cluster.status(1, "wsrep_cluster_status")).unwrap(), "Primary");
    let health_started = Instant::now();
    let health = api.healthz(&base[2]).await;
    let health_took = health_started.elapsed();
    assert_eq!(health, 503, "the instance whose node is gone reports it");
    assert_eq!(api.save(&base[2], "lost with its node").await.0, 503);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let restart_began = load_began.elapsed();
    tokio::task::block_in_place(|| cluster.restart(2)).unwrap_or_else(|e| panic!("node 2 did not rejoin: {e}"));
    let synced_at = load_began.elapsed();
    // The instance was never restarted: its pool replaces the dead connections.
    let recovering = Instant::now();
    let mut polls = 0;
    while api.healthz(&base[2]).await != 200 {
        polls += 1;
        assert!(recovering.elapsed() < Duration::from_secs(60), "node 2's instance still unhealthy after its node synced");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let healthy_at = load_began.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::Relaxed);
    let mut outcomes = Vec::new();
    for worker in workers {
        outcomes.extend(worker.await.unwrap());
    }
    let reads = reader.await.unwrap();

    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| !matches!((o.kind, o.status), ("save", 201) | ("search", 200)))
        .map(|o| format!("{} {} at {:?} took {:?}: {} {}", o.instance, o.kind, o.started, o.took, o.status, o.detail))
        .collect();
    let slowest = outcomes.iter().max_by_key(|o| o.took).unwrap();
    let saves = outcomes.iter().filter(|o| o.kind == "save").count();
    eprintln!(
        "[galera] load on nodes 0 and 1: {} requests ({saves} saves), {} failed; node 2 killed at {:.1} s, evicted at {:.1} s; \
         slowest request {:.0} ms ({} {} at {:.1} s); requests started between kill and eviction: {}, \
         p50 {:.0} ms; node 2's /healthz answered 503 in {:.0} ms; restart at {:.1} s, synced at {:.1} s, its instance \
         healthy at {:.1} s ({polls} polls)",
        outcomes.len(),
        failed.len(),
        killed_at.as_secs_f64(),
        evicted_at.as_secs_f64(),
        slowest.took.as_secs_f64() * 1000.0,
        slowest.instance,
        slowest.kind,
        slowest.started.as_secs_f64(),
        outcomes.iter().filter(|o| o.started >= killed_at && o.started < evicted_at).count(),
        median_ms(outcomes.iter().filter(|o| o.started >= killed_at && o.started < evicted_at).map(|o| o.took).collect()),
        health_took.as_secs_f64() * 1000.0,
        restart_began.as_secs_f64(),
        synced_at.as_secs_f64(),
        healthy_at.as_secs_f64(),
    );
    let reads_failed: Vec<String> =
        reads.iter().filter(|o| o.status != 200).map(|o| format!("{} {}", o.status, o.detail)).collect();
    let reads_in_stall: Vec<Duration> =
        reads.iter().filter(|o| o.started >= killed_at && o.started < evicted_at).map(|o| o.took).collect();
    eprintln!(
        "[galera] reads only on node 0 meanwhile: {} requests, {} failed, slowest {:.0} ms; {} started between kill and \
         eviction, slowest of those {:.0} ms",
        reads.len(),
        reads_failed.len(),
        reads.iter().map(|o| o.took).max().unwrap_or_default().as_secs_f64() * 1000.0,
        reads_in_stall.len(),
        reads_in_stall.iter().max().copied().unwrap_or_default().as_secs_f64() * 1000.0,
    );
    assert!(failed.is_empty(), "the instances on the surviving nodes failed requests: {failed:#?}");
    assert!(reads_failed.is_empty(), "reads on a surviving node failed: {reads_failed:?}");

    // Node 2's instance sees what was written while its node was down and rejoining.
    let written_meanwhile: Vec<&Outcome> =
        outcomes.iter().filter(|o| o.kind == "save" && o.started > killed_at && o.started < synced_at).collect();
    assert!(!written_meanwhile.is_empty(), "the load saved nothing while node 2 was down");
    for o in
        [written_meanwhile[0], written_meanwhile[written_meanwhile.len() / 2], written_meanwhile[written_meanwhile.len() - 1]]
    {
        let word = o.detail.split(' ').next().unwrap();
        assert_eq!(api.found(&base[2], word).await.len(), 1, "node 2's instance finds {word}, saved while it was down");
    }
    // Newest first: the load's last save is on the first page (the two workers' last
    // saves may be in either order).
    let (status, listed) = api.call(&base[2], reqwest::Method::GET, "/v1/memory?limit=20", None).await;
    assert_eq!(status, 200, "{listed}");
    let newest = outcomes.iter().filter(|o| o.kind == "save").max_by_key(|o| o.started).unwrap();
    let newest_word = newest.detail.split(' ').next().unwrap();
    let page: Vec<&str> = listed["memories"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert!(page.iter().any(|c| c.ends_with(newest_word)), "node 2's instance lists the load's last save: {page:?}");

    eprintln!("[galera] whole test {:.1} s", began.elapsed().as_secs_f64());
    drop(instances);
    drop(db);
}
