//! `memory export --format markdown`: one readable file for people (not for import),
//! grouped by the month each memory was saved, newest first, with what each one cites
//! and how often it was edited.

use std::fmt::Write as _;

use memory_bank_contract::transfer::ExportedMemory;

/// The memories of an export as Markdown.
pub fn render(memories: &[ExportedMemory]) -> String {
    let mut out = String::from("# Memory Bank\n");
    let _ = writeln!(out, "\n{} memories, exported {}.", memories.len(), memory_bank_contract::Timestamp::now().to_rfc3339());
    let mut month = String::new();
    for memory in memories {
        let saved = memory.created_at.to_rfc3339();
        if saved[..7] != month {
            month = saved[..7].to_owned();
            let _ = writeln!(out, "\n## {month}\n");
        }
        let _ = writeln!(out, "- {}", one_line(&memory.content));
        let mut notes = vec![format!("saved {}", &saved[..10])];
        if let Some(tags) = memory.tags.as_ref().filter(|t| !t.is_empty()) {
            notes.push(format!("tags: {}", tags.join(", ")));
        }
        if !memory.revisions.is_empty() {
            let times = if memory.revisions.len() == 1 { "once".to_owned() } else { format!("{} times", memory.revisions.len()) };
            notes.push(format!("edited {times}, last on {}", &memory.updated_at.to_rfc3339()[..10]));
        }
        let _ = writeln!(out, "  <sub>{} · `{}`</sub>", notes.join(" · "), memory.id);
        for context in &memory.contexts {
            let cited: Vec<&str> =
                context.citation.iter().flat_map(|c| [c.conversation_id.as_deref(), c.message_id.as_deref()]).flatten().collect();
            let source = if cited.is_empty() { String::new() } else { format!(" — {}", cited.join(", message ")) };
            let _ = writeln!(out, "  > {}{source}", one_line(&context.snippet));
        }
    }
    out
}

/// Markdown lists break on newlines: a memory stays one item.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use memory_bank_contract::wire::{Citation, MemoryContext};
    use memory_bank_contract::Timestamp;

    fn memory(content: &str, at: &str) -> ExportedMemory {
        let at: Timestamp = serde_json::from_value(serde_json::Value::String(at.into())).unwrap();
        ExportedMemory {
            id: "mem_x".into(),
            content: content.into(),
            tags: None,
            created_at: at,
            updated_at: at,
            contexts: Vec::new(),
            revisions: Vec::new(),
            confirmed_via: None,
            proposed_by: None,
            imported_from: None,
            saved_by: None,
            confirmed_by: None,
        }
    }

    #[test]
    fn memories_are_grouped_by_month_with_their_citations() {
        let mut cited = memory("Tea,\nnot coffee", "2026-11-03T10:00:00.000Z");
        cited.tags = Some(vec!["drinks".into()]);
        cited.contexts.push(MemoryContext {
            id: "mctx_x".into(),
            snippet: "I always drink tea".into(),
            citation: Some(Citation { conversation_id: Some("sess-1".into()), message_id: Some("m7".into()) }),
            origin: None,
            created_at: cited.created_at,
        });
        let text = render(&[cited, memory("Older one", "2026-10-30T10:00:00.000Z")]);
        let november = text.find("## 2026-11").unwrap();
        let october = text.find("## 2026-10").unwrap();
        assert!(november < october, "{text}");
        assert!(text.contains("- Tea, not coffee\n"), "{text}");
        assert!(text.contains("tags: drinks"), "{text}");
        assert!(text.contains("  > I always drink tea — sess-1, message m7"), "{text}");
    }
}
