//! A history's lines into sessions, messages, tool calls and times; its growth.

use memory_bank_sessions::testing::{ParsedSession, Unit, UnitKind};
use memory_bank_sessions::{Role, Source};

use super::fixtures::{HISTORY, INPUTS, WRITTEN_BY_AIDER};
use super::{aider, append, calls, local, m, md, parsed, read, tag, texts, write};

#[test]
fn a_history_holds_one_session_per_run_with_prompts_replies_and_aider_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("atlas/.aider.chat.history.md"), &md(HISTORY));
    let sessions = read(&path);
    let t = tag(&path);
    let ids: Vec<&str> = sessions.iter().map(|s| s.session_id.as_deref().unwrap()).collect();
    assert_eq!(ids, [format!("aider-{t}-20260302091502"), format!("aider-{t}-20260302144011"), format!("aider-{t}-20260303080000")]);
    let workspace = dir.path().join("atlas").to_string_lossy().into_owned();
    assert!(sessions.iter().all(|s| s.workspace.as_deref() == Some(workspace.as_str()) && s.key == s.session_id.clone().unwrap()));

    let [first, second, third] = &sessions[..] else { panic!("{sessions:#?}") };
    assert_eq!(
        texts(first),
        [
            m("M1", Role::User, "add a --verbose flag to the cli\nand print each file as it is processed"),
            m(
                "M2",
                Role::Assistant,
                "I'll add a `--verbose` flag.\n\nsrc/cli.py\n```python\n<<<<<<< SEARCH\nparser.add_argument(\"paths\", nargs=\"+\")\n\
                 =======\nparser.add_argument(\"paths\", nargs=\"+\")\nparser.add_argument(\"--verbose\", action=\"store_true\")\n\
                 >>>>>>> REPLACE\n```",
            ),
            m("M3", Role::User, "why argparse and not click?"),
            m(
                "M4",
                Role::Assistant,
                "#### Why argparse\n\nIt is in the standard library:\n\n> no extra dependency\n\nso the tool installs anywhere.",
            ),
        ]
    );
    assert_eq!(calls(first), [("/add".into(), -1), ("edit".into(), 1), ("commit".into(), 1), ("/ask".into(), 1), ("/exit".into(), 3)]);
    assert_eq!(first.title(), "add a --verbose flag to the cli\nand print each file as it is processed");
    assert_eq!(first.created, Some(local("2026-03-02 09:15:02")));

    // The thinking is left out; the reply cut by the next run's start is kept as far as written.
    assert_eq!(
        texts(second),
        [
            m("M1", Role::User, "fix the failing test\nin tests/test_cli.py"),
            m("M2", Role::Assistant, "The test still expects the old output. Run it with:\n\n```bash\npytest tests/test_cli.py\n```"),
            m("M3", Role::Assistant, "The failure is in `test_verbose`: it"),
        ]
    );
    assert_eq!(calls(second), [("shell".into(), 1)]);

    // `/settings` output spans lines with `>` on the first only; `!` runs a shell command.
    assert_eq!(
        texts(third),
        [m("M1", Role::User, "what changed since yesterday?"), m("M2", Role::Assistant, "The `--verbose` flag, and its test.")]
    );
    assert_eq!(calls(third), [("/settings".into(), -1), ("/run".into(), -1)]);
    assert_eq!(third.title(), "what changed since yesterday?");
}

#[test]
fn crlf_line_endings_read_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let lf = read(&write(&dir.path().join("lf/.aider.chat.history.md"), &md(HISTORY)));
    let crlf = read(&write(&dir.path().join("crlf/.aider.chat.history.md"), &md(HISTORY).replace('\n', "\r\n")));
    assert_eq!(lf.iter().map(texts).collect::<Vec<_>>(), crlf.iter().map(texts).collect::<Vec<_>>());
    assert_eq!(lf.iter().map(calls).collect::<Vec<_>>(), crlf.iter().map(calls).collect::<Vec<_>>());
}

#[test]
fn prompts_take_their_times_from_the_input_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("atlas/.aider.chat.history.md"), &md(HISTORY));
    write(&dir.path().join("atlas/.aider.input.history"), INPUTS);
    let sessions = read(&path);
    let times = |s: &ParsedSession| s.messages.iter().map(|m| m.timestamp).collect::<Vec<_>>();
    // The earlier run's entry is not taken; the `/ask` question Aider wrote again has no entry.
    assert_eq!(times(&sessions[0]), [Some(local("2026-03-02 09:16:10.25")), None, None, None]);
    assert_eq!((sessions[0].created, sessions[0].updated), (Some(local("2026-03-02 09:15:02")), Some(local("2026-03-02 09:19:00"))));
    // `--message` stores the prompt twice: the first is its time.
    assert_eq!(times(&sessions[1]), [Some(local("2026-03-02 14:40:12.000001")), None, None]);
    assert_eq!(sessions[1].updated, Some(local("2026-03-02 14:40:12.000001")));
    // Without entries of its own, a session is active when it started.
    assert_eq!(times(&sessions[2]), [None, None]);
    assert_eq!((sessions[2].created, sessions[2].updated), (Some(local("2026-03-03 08:00:00")), Some(local("2026-03-03 08:00:00"))));

    // Without the input history, sessions still have their start.
    std::fs::remove_file(dir.path().join("atlas/.aider.input.history")).unwrap();
    let sessions = read(&path);
    assert!(sessions.iter().all(|s| s.messages.iter().all(|m| m.timestamp.is_none()) && s.created == s.updated));
}

#[test]
fn a_half_written_line_waits_and_ids_stay_as_the_history_grows() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("atlas/.aider.chat.history.md"), &md(HISTORY));
    let before = read(&path);
    // A reply being written: its last line has no newline yet.
    append(&path, "\n#### and the diff?␣␣\n\nSure, here is the diff");
    let growing = read(&path);
    assert_eq!(growing.len(), 3);
    assert_eq!(texts(&growing[2])[..2], texts(&before[2])[..]);
    assert_eq!(texts(&growing[2])[2..], [m("M3", Role::User, "and the diff?")]);
    append(&path, " for it.\n\n");
    // The next run, started in the same second as the last one, then another file.
    append(&path, "\n# aider chat started at 2026-03-03 08:00:00\n\n#### again␣␣\n");
    let grown = read(&path);
    let ids = |s: &[ParsedSession]| s.iter().map(|s| s.session_id.clone().unwrap()).collect::<Vec<_>>();
    assert_eq!(ids(&grown)[..3], ids(&before)[..]);
    assert_eq!(ids(&grown)[3], format!("{}-2", ids(&before)[2]));
    assert_eq!(texts(&grown[2]).last().unwrap().2, "Sure, here is the diff for it.");
    assert_eq!(texts(&grown[3]), [m("M1", Role::User, "again")]);

    let other = write(&dir.path().join("other/.aider.chat.history.md"), &md(HISTORY));
    let other_ids = ids(&read(&other));
    assert!(other_ids.iter().all(|id| !ids(&grown).contains(id)), "{other_ids:?}");
}

#[test]
fn a_read_after_an_append_gives_only_the_sessions_from_the_last_one_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("atlas/.aider.chat.history.md"), &md(HISTORY));
    let unit = Unit::new(Source::Aider, path.clone(), UnitKind::Whole);
    let keys = |read: &memory_bank_sessions::testing::WholeRead| read.sessions.iter().map(|s| s.key.clone()).collect::<Vec<_>>();
    let all = aider().parse_whole_since(&unit, None).unwrap();
    assert_eq!(all.sessions.len(), 3);
    let every = keys(&all);
    assert_eq!(all.present.as_deref(), Some(&every[..]));

    // Appended to: the last session and the new one are read; all are still present.
    append(&path, "\n#### one more thing␣␣\n\nDone.\n\n\n# aider chat started at 2026-03-04 10:00:00\n\n#### next␣␣\n");
    let since = aider().parse_whole_since(&unit, all.mark).unwrap();
    let present = since.present.clone().unwrap();
    assert_eq!((present.len(), &present[..3]), (4, &every[..]));
    assert_eq!(keys(&since), [every[2].clone(), present[3].clone()]);
    assert_eq!(texts(&parsed(&since.sessions[0])).last().unwrap().2, "Done.");

    // An earlier session changed (the file edited): everything is read again.
    std::fs::write(&path, md(HISTORY).replace("why argparse", "why not argparse")).unwrap();
    let edited = aider().parse_whole_since(&unit, since.mark).unwrap();
    assert_eq!(keys(&edited), every);
    // A mark from another file reads everything too.
    assert_eq!(keys(&aider().parse_whole_since(&unit, Some(12345 << 32)).unwrap()), every);
}


#[test]
fn a_history_saved_without_trailing_blanks_goes_by_the_prefixes() {
    // An editor that strips trailing whitespace took Aider's line breaks away: `####` and
    // `> ` lines are then the person's and Aider's by their prefix alone, so a reply's own
    // heading and quote are misread (as Aider's own reader misreads them)…
    let stripped: String = md(HISTORY).lines().map(|l| l.trim_end().to_string() + "\n").collect();
    let dir = tempfile::tempdir().unwrap();
    let sessions = read(&write(&dir.path().join("atlas/.aider.chat.history.md"), &stripped));
    assert_eq!(
        texts(&sessions[0])[2..],
        [
            m("M3", Role::User, "why argparse and not click?"),
            m("M4", Role::User, "Why argparse"),
            m("M5", Role::Assistant, "It is in the standard library:"),
            m("M6", Role::Assistant, "so the tool installs anywhere."),
        ]
    );
    assert_eq!(calls(&sessions[0]), [("/add".into(), -1), ("edit".into(), 1), ("commit".into(), 1), ("/ask".into(), 1), ("/exit".into(), 5)]);
    // Lines after a `>` line with no blank between still continue Aider's output (a
    // reply follows a blank line); the rest of `/settings`, after its blank line, does not.
    assert_eq!(texts(&sessions[1]).len(), 3);
    assert_eq!(texts(&sessions[2])[0], m("M1", Role::Assistant, "Option settings:\n  - cache_prompts: False"));

    // …but `> ` lines inside a reply's code block stay in it.
    let edit = "
# aider chat started at 2026-03-05 10:00:00

> Aider v0.86.2
> Git repo: .git with 3 files

#### update the changelog quote

CHANGELOG.md
```markdown
<<<<<<< SEARCH
> old quote
=======
> new quote
>>>>>>> REPLACE
```

> Applied edit to CHANGELOG.md
> Commit 0a1b2c3 docs: Update the changelog quote

#### thanks
";
    let sessions = read(&write(&dir.path().join("docs/.aider.chat.history.md"), edit));
    assert_eq!(
        texts(&sessions[0]),
        [
            m("M1", Role::User, "update the changelog quote"),
            m("M2", Role::Assistant, "CHANGELOG.md\n```markdown\n<<<<<<< SEARCH\n> old quote\n=======\n> new quote\n>>>>>>> REPLACE\n```"),
            m("M3", Role::User, "thanks"),
        ]
    );
    assert_eq!(calls(&sessions[0]), [("edit".into(), 1), ("commit".into(), 1)]);
}


#[test]
fn a_10_mb_history_is_read_in_one_pass_and_its_growth_cheaply() {
    // 400 runs of 25 KB: prompts, replies with edit blocks, Aider's output.
    let mut text = String::new();
    for run in 0..400 {
        text += &format!("\n# aider chat started at 2026-01-{:02} {:02}:{:02}:00\n\n> Aider v0.86.2  \n", run % 28 + 1, run / 60 % 24, run % 60);
        for turn in 0..12 {
            text += &format!("\n#### change function f{turn} in module m{run}  \n\n");
            text += &format!("Here is the change.\n\nm{run}.py\n```python\n<<<<<<< SEARCH\n");
            text += &"    value = compute(value) + 1  # keep it\n".repeat(24);
            text += "=======\n";
            text += &"    value = compute(value) + 2  # changed\n".repeat(24);
            text += ">>>>>>> REPLACE\n```\n\n> Tokens: 3.1k sent, 120 received.  \n> Applied edit to m.py  \n";
        }
    }
    assert!(text.len() > 10 << 20, "{}", text.len());
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir.path().join("big/.aider.chat.history.md"), &text);
    let unit = Unit::new(Source::Aider, path.clone(), UnitKind::Whole);

    let started = std::time::Instant::now();
    let all = aider().parse_whole_since(&unit, None).unwrap();
    let whole = started.elapsed();
    assert_eq!(all.sessions.len(), 400);
    assert!(all.sessions.iter().all(|s| parsed(s).messages.len() == 24));

    append(&path, "\n#### one more  \n\nDone.\n\n");
    let started = std::time::Instant::now();
    let since = aider().parse_whole_since(&unit, all.mark).unwrap();
    let growth = started.elapsed();
    assert_eq!(since.sessions.len(), 1);
    assert_eq!(parsed(&since.sessions[0]).messages.len(), 26);
    eprintln!("10 MB history: whole {whole:?}, after an append {growth:?}");
}



#[test]
fn a_history_aider_wrote_itself_reads_as_its_prompt_and_reply() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = read(&write(&dir.path().join("repo/.aider.chat.history.md"), &md(WRITTEN_BY_AIDER)));
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        texts(&sessions[0]),
        [
            m("M1", Role::User, "think, then create hello.py"),
            m("M2", Role::Assistant, "I will add a greeting.\n\nhello.py\n```python\n<<<<<<< SEARCH\n=======\nprint(\"hello\")\n>>>>>>> REPLACE\n```"),
        ]
    );
    // The commit message, many lines with `>` on the first only, is Aider's output.
    assert_eq!(calls(&sessions[0]), [("edit".into(), 1), ("commit".into(), 1)]);
    assert_eq!(sessions[0].created, Some(local("2026-12-05 20:00:45")));
}
