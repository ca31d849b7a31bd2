//! `--teams`: search over a person's own bank and their org's team bank together
//! (issue 32, "Performance"), against today's personal-only search.
//!
//! One org with `--members` members and `--team-memories` team memories, and each
//! member's own bank (`--personal-memories` per member on average, drawn as the plain
//! bench draws owners: uniformly at random). Team and personal rows come from the same
//! corpus (`corpus.rs`) and are interleaved in time, so a common word's newest matches
//! are in both banks alike.
//!
//! For each query (one term from each class, rare, mid and very common, picked as the
//! plain bench picks them) a random member searches three ways, exactly as
//! `GET /v1/memory/search` does: [`Bank::search_for`] (the role and policy lookup
//! beside [`Bank::search_in`] over the banks of the scope).
//!
//! - **mine**: `scope=mine`, the person's own bank: today's personal-only search;
//! - **all**: `scope=all` (the route's default), own and team bank ranked together;
//! - **team**: `scope=team`, the team bank alone;
//! - **one bank as large**: `scope=mine` for a member whose own bank holds as many
//!   memories as the team bank (`SOLO`): today's personal-only search at that size, the
//!   issue's baseline ("≤ 1.2× today's personal-only search at 10⁵ memories").
//!
//! The three run back to back for the same member and term, the first of them taking
//! turns, so the machine's noise and the caches meet all three alike. Then, with its
//! own random numbers, the parts of a search are timed on their own (more tables on
//! stdout; progress on stderr): the role and policy lookup (`member_access`), each
//! bank's candidate query, ranking, loading the top 20, both candidate queries run at
//! once (what running them concurrently inside `search_in` would give), and `all` with
//! the team bank's candidates already at hand (what keeping them would give). On MySQL,
//! last, the team bank's candidate statements one by one.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use memory_bank_contract::teams::{BankScope, OrgPolicy, Role};
use memory_bank_contract::validate::ValidSearch;
use memory_bank_contract::wire::Scope;
use memory_bank_contract::Timestamp;
use memory_bank_store::{rank, terms, Bank, BankKey, MemoryStore, NewMemory, SEARCH_CANDIDATE_CAP};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::corpus::{sentence, word, Zipf, VOCABULARY};
use crate::{ms, stats, Engine, Stats};

/// The org every member belongs to; its team memories are owned by this id.
const ORG: &str = "org_benchteam";
/// A member (not among the drawn ones) whose own bank is as large as the team bank.
const SOLO: &str = "usr_benchsolo";
/// Members 1..=ADMINS are admins (member 0 owns the org): they confirm team memories.
const ADMINS: usize = 3;
/// Rows a transaction of the bulk load inserts.
const BATCH: usize = 5000;
/// The term classes by vocabulary rank, as the plain bench has them.
const CLASSES: [(&str, usize, usize); 3] = [("rare", 2000, VOCABULARY), ("mid", 20, 2000), ("common", 0, 20)];
/// The three ways to search, in table order.
const SCOPES: [BankScope; 3] = [BankScope::Mine, BankScope::All, BankScope::Team];

/// What `--teams` loads and how many searches it times.
pub(crate) struct Options {
    /// Members of the org.
    pub members: usize,
    /// Memories in the org's team bank.
    pub team_memories: usize,
    /// Personal memories per member, on average.
    pub personal_memories: usize,
    /// Timed searches per term class and scope.
    pub queries: usize,
    /// Keep the loaded database (`--keep`) for inspection or `--search-kept`.
    pub keep: bool,
}

/// Loads the org into a fresh store of `engine` and prints its tables (markdown) to stdout.
pub(crate) async fn run(engine: &Engine, options: &Options) -> anyhow::Result<()> {
    let label = match engine {
        Engine::Sqlite(..) => "SQLite",
        Engine::MySql { _server: Some(_), .. } => "MariaDB",
        Engine::MySql { .. } => "MySQL",
    };
    anyhow::ensure!(options.members > ADMINS, "--members must be more than {ADMINS}");
    let personal_total = options.members * options.personal_memories + options.team_memories;
    let fresh = engine.fresh(personal_total + options.team_memories, options.members).await?;
    let store = fresh.store.clone();
    let members: Vec<String> = (0..options.members).map(|i| format!("usr_bench{i:05}")).collect();

    let started = Instant::now();
    set_up_org(store.as_ref(), &members).await?;
    eprintln!("{label}: org {ORG} with {} members in {:.1} s", members.len(), started.elapsed().as_secs_f64());
    let mut rng = StdRng::seed_from_u64(7);
    let started = Instant::now();
    load(store.as_ref(), &members, options, &mut rng).await?;
    let loaded = started.elapsed();
    let size_mb = fresh.size_mb().await?;
    eprintln!(
        "{label}: loaded {personal_total} personal + {} team memories in {:.1} s ({:.0} rows/s), {size_mb:.1} MB",
        options.team_memories,
        loaded.as_secs_f64(),
        (personal_total + options.team_memories) as f64 / loaded.as_secs_f64()
    );
    // MySQL: searches are measured once InnoDB has written the load back, as the plain
    // bench's table is.
    if let Some(waited) = fresh.settle(false).await? {
        eprintln!("{label}: InnoDB wrote back the load in {:.0} s", waited.as_secs_f64());
    }

    measure(store.clone(), &members, options, label).await?;
    drop(store);
    fresh.remove(options.keep);
    Ok(())
}

/// `--teams --search-kept URL`: the searches and their parts only, `rounds` times, on a
/// team database an earlier `--teams --keep` run loaded with the same `--members`
/// (nothing loaded, nothing changed), so a change to the search path is compared on the
/// same rows, with InnoDB's pages as warm for both builds.
pub(crate) async fn search_kept(url: &str, options: &Options, rounds: usize) -> anyhow::Result<()> {
    let store: std::sync::Arc<dyn MemoryStore> = std::sync::Arc::new(
        memory_bank_store_mysql::MySqlStore::open(url).await.with_context(|| format!("open {url}"))?,
    );
    let members: Vec<String> = (0..options.members).map(|i| format!("usr_bench{i:05}")).collect();
    for round in 1..=rounds {
        eprintln!("MariaDB (kept): round {round} of {rounds}");
        measure(store.clone(), &members, options, "MariaDB (kept)").await?;
    }
    Ok(())
}

/// The timed searches (the table) and their parts, on a loaded store.
async fn measure(store: std::sync::Arc<dyn MemoryStore>, members: &[String], options: &Options, label: &str) -> anyhow::Result<()> {
    let personal_total = options.members * options.personal_memories + options.team_memories;
    let bank = Bank::new(store.clone());
    let started = Instant::now();
    let cells = searches(&bank, members, options.queries).await?;
    eprintln!("{label}: {} timed searches in {:.0} s", options.queries * 9, started.elapsed().as_secs_f64());
    let cell = |s: &Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
    let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
    println!(
        "\n{label}: {} members, {} team memories, {personal_total} personal ({} a member on average), {} queries a cell\n",
        options.members, options.team_memories, options.personal_memories, options.queries
    );
    println!(
        "| engine | class | mine p50 / p95 ms | all p50 / p95 ms | team p50 / p95 ms | all ÷ mine p50 | all ÷ mine p95 | one bank of {} p50 / p95 ms | all ÷ one bank p95 |",
        options.team_memories
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for ((class, ..), [mine, all, team, solo]) in CLASSES.iter().zip(&cells) {
        println!(
            "| {label} | {class} | {} | {} | {} | {:.2}× | {:.2}× | {} | **{:.2}×** |",
            cell(mine), cell(all), cell(team), ratio(mine.p50, all.p50), ratio(mine.p95, all.p95), cell(solo), ratio(solo.p95, all.p95)
        );
    }
    phases(store.as_ref(), members, options.queries, label).await?;
    Ok(())
}

/// The org, its members (member 0 its owner, then `ADMINS` admins) and its policy
/// (a row, as an org whose admin ever changed it has, so the lookup's join finds one).
async fn set_up_org(store: &dyn MemoryStore, members: &[String]) -> anyhow::Result<()> {
    let now = Timestamp::now();
    store.create_org(ORG, "Bench org", now).await.context("create the org")?;
    for (i, user) in members.iter().enumerate() {
        store.create_user(user, &format!("bench{i:05}@example.com"), now).await.context("create a member")?;
        let role = match i {
            0 => Role::Owner,
            i if i <= ADMINS => Role::Admin,
            _ => Role::Member,
        };
        store.add_member(ORG, user, Some(role), now).await.context("add a member")?;
    }
    store.create_user(SOLO, "solo@example.com", now).await.context("create the large bank's owner")?;
    store.add_member(ORG, SOLO, Some(Role::Member), now).await.context("add the large bank's owner")?;
    store.set_org_policy(ORG, &OrgPolicy::default(), now).await.context("set the org's policy")?;
    Ok(())
}

/// Inserts the personal and team memories, `BATCH` to a transaction, oldest first, the
/// two kinds spread evenly over one timeline (10 ms apart, ending now). A team memory
/// is what [`Bank::save_to_team`] stores: owned by the org (`user_id = org_id`, its
/// terms scoped to the org), `scope = org`, saved by a member and confirmed by an
/// admin; each also writes its `saved` audit line, as the store's insert does.
/// `NewMemory::plain` indexes the content as `terms::memory_index_text` does for a
/// memory without tags or contexts.
async fn load(store: &dyn MemoryStore, members: &[String], options: &Options, rng: &mut StdRng) -> anyhow::Result<()> {
    let zipf = Zipf::new(VOCABULARY);
    let team = options.team_memories;
    let total = members.len() * options.personal_memories + team;
    let start_ms = Timestamp::now().unix_ms() - total as i64 * 10;
    let mut batch = Vec::with_capacity(BATCH);
    for i in 0..total {
        let content = sentence(&zipf, rng);
        let at = start_ms + i as i64 * 10;
        // Row i is a team memory when it takes the team's count past a multiple of
        // `total`: exactly `team` of them, evenly spread.
        let is_team = (i + 1) * team / total > i * team / total;
        let memory = if is_team {
            let mut memory = NewMemory::plain(ORG, ORG, content, at);
            memory.scope = Scope::Org;
            memory.saved_by = Some(members[rng.random_range(0..members.len())].clone());
            memory.confirmed_by = Some(members[rng.random_range(0..=ADMINS)].clone());
            memory
        } else {
            NewMemory::plain(&members[rng.random_range(0..members.len())], ORG, content, at)
        };
        batch.push(memory);
        if batch.len() == BATCH || i + 1 == total {
            store.insert_memories(&batch).await?;
            batch.clear();
        }
    }
    // `SOLO`'s own bank: as many memories as the team's, over the same timeline.
    for j in 0..team {
        let at = start_ms + (j * total / team.max(1)) as i64 * 10 + 5;
        batch.push(NewMemory::plain(SOLO, ORG, sentence(&zipf, rng), at));
        if batch.len() == BATCH || j + 1 == team {
            store.insert_memories(&batch).await?;
            batch.clear();
        }
    }
    Ok(())
}

/// p50/p95 per term class of each scope (`SCOPES` order): route's path, the same
/// member and term for all three, the first scope taking turns.
async fn searches(bank: &Bank, members: &[String], queries: usize) -> anyhow::Result<Vec<[Stats; 4]>> {
    let mut rng = StdRng::seed_from_u64(8);
    let mut samples: Vec<[Vec<Duration>; 4]> = (0..CLASSES.len()).map(|_| Default::default()).collect();
    for i in 0..queries {
        // The classes take turns too, so each meets the caches as warm as the others.
        for (class, (_, low, high)) in CLASSES.iter().enumerate() {
            let query = ValidSearch { query: word(rng.random_range(*low..*high)), limit: 20, words_only: false };
            let user = &members[rng.random_range(0..members.len())];
            // The three scopes, then the large bank's own search, in turns.
            for k in 0..=SCOPES.len() {
                let which = (i + k) % (SCOPES.len() + 1);
                let (who, scope) = if which == SCOPES.len() { (SOLO, BankScope::Mine) } else { (user.as_str(), SCOPES[which]) };
                let t = Instant::now();
                std::hint::black_box(bank.search_for(who, ORG, scope, &query).await?);
                samples[class][which].push(t.elapsed());
            }
        }
    }
    Ok(samples.into_iter().map(|[a, b, c, d]| [stats(a), stats(b), stats(c), stats(d)]).collect())
}

/// One sample of each part of an `all` search.
#[derive(Default)]
struct Parts {
    access: Vec<Duration>,
    mine_query: Vec<Duration>,
    team_query: Vec<Duration>,
    both_at_once: Vec<Duration>,
    rank_mine: Vec<Duration>,
    rank_all: Vec<Duration>,
    load_mine: Vec<Duration>,
    load_all: Vec<Duration>,
    mine_count: Vec<usize>,
    team_count: Vec<usize>,
    team_share: Vec<usize>,
    /// `mine` as `search_in` does it, step by step (lookup, query, rank, load).
    mine_steps: Vec<Duration>,
    /// `all` with the team bank's candidates already at hand (a cache hit).
    cached_steps: Vec<Duration>,
}

/// Where a search's time goes, per class: the role and policy lookup, each bank's
/// candidate query (and both at once), ranking and loading the top 20 for `mine` and
/// for `all`, as `search_in` does them. Its own random numbers; a table on stdout.
async fn phases(store: &dyn MemoryStore, members: &[String], queries: usize, label: &str) -> anyhow::Result<()> {
    let mut rng = StdRng::seed_from_u64(11);
    let mut parts: Vec<Parts> = CLASSES.iter().map(|_| Parts::default()).collect();
    for i in 0..queries {
        for (class, (_, low, high)) in CLASSES.iter().enumerate() {
            let term = terms::query_terms(&word(rng.random_range(*low..*high)));
            let user = members[rng.random_range(0..members.len())].as_str();
            let p = &mut parts[class];
            let (mine, team) = (BankKey::Personal(user), BankKey::Team(ORG));
            // The entries `Bank::search_in` reads in a store whose terms are current.
            let lookup = terms::covering_terms(&term);
            let (mine_terms, team_terms) = (terms::scope_terms(user, &lookup), terms::scope_terms(ORG, &lookup));

            let t = Instant::now();
            std::hint::black_box(store.member_access(user, ORG).await?);
            p.access.push(t.elapsed());

            let t = Instant::now();
            let mine_found = store.search_candidates(mine, &mine_terms, SEARCH_CANDIDATE_CAP).await?;
            p.mine_query.push(t.elapsed());
            let t = Instant::now();
            let team_found = store.search_candidates(team, &team_terms, SEARCH_CANDIDATE_CAP).await?;
            p.team_query.push(t.elapsed());
            let t = Instant::now();
            let (a, b) = tokio::join!(
                store.search_candidates(mine, &mine_terms, SEARCH_CANDIDATE_CAP),
                store.search_candidates(team, &team_terms, SEARCH_CANDIDATE_CAP)
            );
            std::hint::black_box((a?, b?));
            p.both_at_once.push(t.elapsed());

            let t = Instant::now();
            let ranked_mine = rank::rank(&term, &mine_found, 20);
            p.rank_mine.push(t.elapsed());
            let all: Vec<_> = mine_found.iter().chain(&team_found).cloned().collect();
            let t = Instant::now();
            let ranked_all = rank::rank(&term, &all, 20);
            p.rank_all.push(t.elapsed());

            p.load_mine.push(load_top(store, &[mine], &ranked_mine).await?);
            p.load_all.push(load_top(store, &[mine, team], &ranked_all).await?);
            p.mine_count.push(mine_found.len());
            p.team_count.push(team_found.len());
            p.team_share.push(ranked_all.iter().filter(|r| team_found.iter().any(|c| c.id == r.id)).count());

            // What `all` would cost if the team bank's candidates for these terms were
            // kept (they are the same for every member), against `mine`, step by step;
            // the two take turns going first.
            let mut pair = [(&mut p.mine_steps, None), (&mut p.cached_steps, Some(&team_found))];
            if i % 2 == 1 {
                pair.reverse();
            }
            for (steps, cached) in pair {
                let t = Instant::now();
                std::hint::black_box(store.member_access(user, ORG).await?);
                let mut found = store.search_candidates(mine, &mine_terms, SEARCH_CANDIDATE_CAP).await?;
                found.extend(cached.into_iter().flatten().cloned());
                let ranked = rank::rank(&term, &found, 20);
                let banks: &[BankKey] = if cached.is_some() { &[mine, team] } else { &[mine] };
                load_top(store, banks, &ranked).await?;
                steps.push(t.elapsed());
            }
        }
    }
    let cell = |v: &[Duration]| {
        let s = stats(v.to_vec());
        format!("{} / {}", ms(s.p50), ms(s.p95))
    };
    let counts = |v: &[usize]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        format!("{} ({})", v[v.len() / 2], v[v.len() - 1])
    };
    println!("\n{label}: the parts of a search on their own, p50 / p95 ms; candidates and team rows in the top 20 as p50 (max)\n");
    println!(
        "| engine | class | member_access | mine: candidates | mine: candidate query | team: candidates | team: candidate query | both queries at once | rank mine / all (p95) | load top 20 mine | load top 20 all | team rows in all's top 20 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for ((class, ..), p) in CLASSES.iter().zip(&parts) {
        println!(
            "| {label} | {class} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} | {} |",
            cell(&p.access),
            counts(&p.mine_count),
            cell(&p.mine_query),
            counts(&p.team_count),
            cell(&p.team_query),
            cell(&p.both_at_once),
            ms(stats(p.rank_mine.clone()).p95),
            ms(stats(p.rank_all.clone()).p95),
            cell(&p.load_mine),
            cell(&p.load_all),
            counts(&p.team_share),
        );
    }
    println!("\n{label}: mine, and all with the team bank's candidates from a cache (emulated), step by step, p50 / p95 ms\n");
    println!("| engine | class | mine | all, team candidates cached | ratio p50 | ratio p95 |");
    println!("|---|---|---|---|---|---|");
    for ((class, ..), p) in CLASSES.iter().zip(&parts) {
        let (mine, cached) = (stats(p.mine_steps.clone()), stats(p.cached_steps.clone()));
        let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
        println!(
            "| {label} | {class} | {} / {} | {} / {} | {:.2}× | {:.2}× |",
            ms(mine.p50), ms(mine.p95), ms(cached.p50), ms(cached.p95), ratio(mine.p50, cached.p50), ratio(mine.p95, cached.p95)
        );
    }
    Ok(())
}

/// Loads the ranked ids from `banks` as `search_in` does (a bank after the first only
/// while some are still missing) and returns how long it took.
async fn load_top(store: &dyn MemoryStore, banks: &[BankKey<'_>], ranked: &[rank::Ranked]) -> anyhow::Result<Duration> {
    let wanted: Vec<String> = ranked.iter().map(|r| r.id.clone()).collect();
    let t = Instant::now();
    let mut memories = Vec::with_capacity(wanted.len());
    for bank in banks {
        if memories.len() < wanted.len() {
            memories.extend(store.memories_by_ids(*bank, &wanted).await?);
        }
    }
    let took = t.elapsed();
    std::hint::black_box(memories);
    Ok(took)
}
