//! `--door-phases DIR`: where a search's time goes between the store and the doors, on a
//! local bank `--load-local-bank` filled (issue 33 §2). Per query term (the
//! `--queries-in` file's classes), interleaved so the machine's noise falls on each alike:
//!
//! - **one bank**: `Bank::search`, the person's own bank (what the main bench times);
//! - **two banks**: `Bank::search_in` over the person's and their org's team bank, the
//!   doors' default scope `all`;
//! - **door**: `LocalAccess::search` as `memory-bank mcp` calls it (validation, the
//!   membership check, then the two banks).
//!
//! What the transports add on top is the MCP bench's (`bench/mcp/bench.py`) figure
//! less the door's here. Open a copy of the bank: opening it provisions and may write.

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use memory_bank_access::{LocalAccess, MemoryAccess};
use memory_bank_contract::validate::parse_search;
use memory_bank_store::BankKey;

use crate::{ms, stats, Stats};

pub async fn run(dir: &Path, queries_file: &Path, per_class: usize) -> anyhow::Result<()> {
    let access = LocalAccess::open_searching(dir, &memory_bank_db_key::KeySource::None, true)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))
        .context("open the local bank")?;
    let user = access.user_id().to_owned();
    let org = access.bank().user_orgs(&user).await?.into_iter().next().context("the local user has no org")?.id;
    let text = std::fs::read_to_string(queries_file).with_context(|| format!("read {}", queries_file.display()))?;
    let classes: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)?;
    let bank = access.bank();
    println!("| class | one bank | two banks | door (`LocalAccess::search`) |");
    println!("|---|---|---|---|");
    for (name, terms) in &classes {
        let terms: Vec<String> = serde_json::from_value(terms.clone())?;
        let terms = &terms[..per_class.min(terms.len())];
        let (mut one, mut two, mut door) = (Vec::new(), Vec::new(), Vec::new());
        // Untimed first: the pages and the statement cache warm.
        for term in terms.iter().take(20) {
            access.search(term, 10, None).await.map_err(|e| anyhow::anyhow!(e.message))?;
        }
        for (i, term) in terms.iter().enumerate() {
            let request = parse_search(Some(term), Some("10"), Some("true")).map_err(|e| anyhow::anyhow!("{e:?}"))?;
            // The order rotates each query.
            for k in 0..3 {
                let t = Instant::now();
                match (i + k) % 3 {
                    0 => {
                        std::hint::black_box(bank.search(&user, &request).await?);
                        one.push(t.elapsed());
                    }
                    1 => {
                        let banks = [BankKey::Personal(&user), BankKey::Team(&org)];
                        std::hint::black_box(bank.search_in(&banks, &request).await?);
                        two.push(t.elapsed());
                    }
                    _ => {
                        std::hint::black_box(access.search(term, 10, None).await.map_err(|e| anyhow::anyhow!(e.message))?);
                        door.push(t.elapsed());
                    }
                }
            }
        }
        let cell = |s: Stats| format!("{} / {}", ms(s.p50), ms(s.p95));
        println!("| {name} | {} | {} | {} |", cell(stats(one)), cell(stats(two)), cell(stats(door)));
    }
    Ok(())
}
