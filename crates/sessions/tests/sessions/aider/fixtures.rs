//! The histories the tests read: shaped as Aider writes them, and one Aider wrote.

/// Three runs in a git repository: commands, a two-line prompt, an edit and a commit, an
/// `/ask` (Aider writes the question again as a prompt), a reply with a `####` heading and
/// a `>` quote of its own, an empty input; a `--message` run with a reasoning model, a
/// shell command it ran, and a reply cut when the run was killed; then a third run.
pub(crate) const HISTORY: &str = r#"
# aider chat started at 2026-03-02 09:15:02

> /home/ana/.local/bin/aider --model sonnet␣␣
> Aider v0.86.2␣␣
> Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output␣␣
> Git repo: .git with 42 files␣␣
> Repo-map: using 4096 tokens, auto refresh␣␣

#### /add src/cli.py␣␣
> Added src/cli.py to the chat␣␣

#### add a --verbose flag to the cli␣␣
#### and print each file as it is processed␣␣

I'll add a `--verbose` flag.

src/cli.py
```python
<<<<<<< SEARCH
parser.add_argument("paths", nargs="+")
=======
parser.add_argument("paths", nargs="+")
parser.add_argument("--verbose", action="store_true")
>>>>>>> REPLACE
```

> Tokens: 3.1k sent, 120 received. Cost: $0.01 message, $0.01 session.␣␣
> Applied edit to src/cli.py␣␣
> Commit 4f9c2d1 feat: Add --verbose flag to the cli␣␣
> You can use /undo to undo and discard each aider commit.␣␣

#### /ask why argparse and not click?␣␣

#### why argparse and not click?␣␣

#### Why argparse

It is in the standard library:

> no extra dependency

so the tool installs anywhere.

> Tokens: 2.9k sent, 60 received. Cost: $0.0094 message, $0.02 session.␣␣

#### <blank>␣␣

#### /exit␣␣

# aider chat started at 2026-03-02 14:40:11

> /home/ana/.local/bin/aider --model r1 --message fix the failing test
in tests/test_cli.py␣␣
> Aider v0.86.2␣␣
> Model: openrouter/deepseek/deepseek-r1 with diff edit format␣␣
> Git repo: .git with 42 files␣␣

#### fix the failing test␣␣
#### in tests/test_cli.py␣␣

<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

The test expects the old output, so

</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

The test still expects the old output. Run it with:

```bash
pytest tests/test_cli.py
```

> Tokens: 5.2k sent, 300 received.␣␣
> pytest tests/test_cli.py␣␣
> Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y␣␣
> Running pytest tests/test_cli.py␣␣
> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y␣␣
> Added 12 lines of output to the chat.␣␣

The failure is in `test_verbose`: it
# aider chat started at 2026-03-03 08:00:00

> /home/ana/.local/bin/aider␣␣
> Aider v0.86.2␣␣

#### /settings␣␣
> Aider v0.86.2
Model: anthropic/claude-sonnet-4-20250514 with diff edit format

Option settings:
  - cache_prompts: False␣␣

#### !git status␣␣

#### what changed since yesterday?␣␣

The `--verbose` flag, and its test.

"#;


/// What typing at Aider's prompt left in `.aider.input.history` for [`HISTORY`].
pub(crate) const INPUTS: &str = "
# 2026-03-02 09:14:00.000001
+a prompt of an earlier run

# 2026-03-02 09:15:30.500000
+/add src/cli.py

# 2026-03-02 09:16:10.250000
+add a --verbose flag to the cli
+and print each file as it is processed

# 2026-03-02 09:18:00.000000
+/ask why argparse and not click?

# 2026-03-02 09:19:00
+/exit

# 2026-03-02 14:40:12.000001
+fix the failing test
+in tests/test_cli.py

# 2026-03-02 14:40:12.000050
+fix the failing test
+in tests/test_cli.py

# 2026-03-03 08:00:40.000000
+/add src/cli.py
";


/// What Aider 0.86.2 wrote, word for word (`␣␣` aside), run in a new git repository with
/// `--yes-always --edit-format diff --message "think, then create hello.py"` against a
/// loopback stand-in for an OpenAI-compatible API that streamed some reasoning and a
/// SEARCH/REPLACE reply (and, asked for a commit message, the same reply).
pub(crate) const WRITTEN_BY_AIDER: &str = r#"
# aider chat started at 2026-12-05 20:00:45

> You can skip this check with --no-gitignore␣␣
> Add .aider* to .gitignore (recommended)? (Y)es/(N)o [Yes]: y␣␣
> Added .aider* to .gitignore␣␣
> /tmp/aider-probe/venv/bin/aider --openai-api-base http://127.0.0.1:18765/v1 --openai-api-key ...-key --model openai/stub --yes-always --analytics-disable --no-check-update --no-show-model-warnings --no-pretty --edit-format diff --message think, then create hello.py␣␣
> Aider v0.86.2␣␣
> Model: openai/stub with diff edit format␣␣
> Git repo: .git with 1 files␣␣
> Repo-map: using 1024 tokens, auto refresh␣␣

#### think, then create hello.py␣␣

<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

Let me think about it.

</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>

I will add a greeting.

hello.py
```python
<<<<<<< SEARCH
=======
print("hello")
>>>>>>> REPLACE
```

> Tokens: 2.5k sent, 80 received.␣␣
> hello.py␣␣
> Create new file? (Y)es/(N)o [Yes]: y␣␣
> Applied edit to hello.py␣␣
> Commit c50a02b I will add a greeting.

hello.py
```python
<<<<<<< SEARCH
=======
print("hello")
>>>>>>> REPLACE
```␣␣
"#;
