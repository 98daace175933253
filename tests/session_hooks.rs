//! The session-shape hooks and receipts end to end: `hook post-tool-use` on Bash attaches
//! what a Read would have only for reads the client does not track; `hook
//! instructions-loaded` logs beside the prediction and `receipt --session` compares;
//! `receipt --agents` lists the agents.

mod common;

use common::cli::{Run, Test, snapshot};

use std::fs;

fn project() -> Test {
    Test::new().tree(&[
        ("proj/CLAUDE.md", "ROOT\n"),
        ("proj/a/CLAUDE.md", "NESTED A\n"),
        ("proj/a/f.txt", "hi\n"),
        ("proj/b/CLAUDE.md", "NESTED B\n"),
        ("proj/b/g.txt", "yo\n"),
    ])
}

/// ccmem in the project, colours on as the hooks see them (never on their stdout).
fn ccmem(t: &Test) -> Test {
    t.clone()
        .env_remove("NO_COLOR")
        .env_remove("CCMEM_NOW")
        .current_dir("proj")
}

fn bash_hook(t: &Test, command: &str, transcript: &str) -> String {
    bash_run(t, command, transcript).stdout()
}

/// The context the hook adds for `command`, whole, the sandbox's paths redacted.
fn bash_context(t: &Test, command: &str) -> String {
    let run = bash_run(t, command, "/nonexistent");
    let ctx = &run.json()["hookSpecificOutput"]["additionalContext"];
    run.redacted(ctx.as_str().unwrap())
}

fn bash_run(t: &Test, command: &str, transcript: &str) -> Run {
    let proj = t.path("proj");
    let input = serde_json::json!({
        "session_id": "s1", "transcript_path": transcript, "cwd": proj,
        "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "hi\n", "stderr": "", "interrupted": false},
    });
    ccmem(t)
        .args(["hook", "post-tool-use"])
        .stdin(input.to_string())
        .run()
        .code(0)
}

#[test]
fn an_untracked_bash_read_gets_what_a_read_would_attach() {
    let t = project();
    snapshot!("bash_read_context", bash_context(&t, "cat a/f.txt | head"));
    snapshot!(
        "bash_cd_read_context",
        bash_context(&t, "cd b && cat g.txt")
    );
}

#[test]
fn nothing_for_reads_the_client_tracks_or_commands_that_read_nothing() {
    let t = project();
    assert_eq!(
        bash_hook(&t, "cat a/f.txt", "/nonexistent"),
        "",
        "the client attaches it"
    );
    assert_eq!(bash_hook(&t, "ls -la && git status", "/nonexistent"), "");
    assert_eq!(
        bash_hook(&t, "echo 'cat a/f.txt | head'", "/nonexistent"),
        ""
    );
}

#[test]
fn what_the_transcript_already_shows_is_not_attached_again() {
    let t = project();
    let proj = t.path("proj");
    let transcript = t.path("t.jsonl");
    let line = serde_json::json!({"type": "attachment", "attachment": {"content":
        format!("Contents of {}/a/CLAUDE.md:\n\nNESTED A", proj.display())}});
    fs::write(&transcript, format!("{line}\n")).unwrap();
    assert_eq!(
        bash_hook(&t, "cat a/f.txt | head", transcript.to_str().unwrap()),
        ""
    );
}

#[test]
fn instructions_loaded_is_logged_and_compared() {
    let t = project();
    let proj = t.path("proj");
    let cache = t.path("cache");
    for (file, reason, trigger) in [
        (proj.join("CLAUDE.md"), "session_start", None),
        (
            proj.join("a/CLAUDE.md"),
            "nested_traversal",
            Some(proj.join("a/f.txt")),
        ),
        (
            proj.join("zzz/CLAUDE.md"),
            "nested_traversal",
            Some(proj.join("zzz/x")),
        ),
    ] {
        let input = serde_json::json!({"session_id": "abc-1", "cwd": proj,
            "hook_event_name": "InstructionsLoaded", "file_path": file, "memory_type": "Project",
            "load_reason": reason, "trigger_file_path": trigger});
        ccmem(&t)
            .env("XDG_CACHE_HOME", &cache)
            .args(["hook", "instructions-loaded"])
            .stdin(input.to_string())
            .run()
            .code(0)
            .stdout_is("");
    }
    let log = fs::read_to_string(cache.join("ccmem/sessions/abc-1.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 3);
    let out = ccmem(&t)
        .env("XDG_CACHE_HOME", &cache)
        .args(["receipt", "--session", "abc-1"])
        .run()
        .code(1);
    snapshot!("receipt_session", out);
}

#[test]
fn receipt_lists_agents_and_shows_one() {
    let t = project();
    let agents = t.path("proj/.claude/agents");
    fs::create_dir_all(&agents).unwrap();
    fs::write(
        agents.join("rev.md"),
        "---\nname: rev\ndescription: d\nmemory: project\n---\nBody\n",
    )
    .unwrap();
    let mem = t.path("proj/.claude/agent-memory/rev");
    fs::create_dir_all(&mem).unwrap();
    let index: String = (1..=205).map(|i| format!("- entry {i}\n")).collect();
    fs::write(mem.join("MEMORY.md"), index).unwrap();
    let out = ccmem(&t).args(["receipt", "--agents"]).run().code(0);
    snapshot!("receipt_agents", out);
    let out = ccmem(&t).args(["receipt", "--agent", "rev"]).run().code(1);
    snapshot!("receipt_agent", out);
    let out = ccmem(&t).args(["context", "--agent", "nobody"]).run();
    snapshot!("unknown_agent", out.code(2));
}

#[test]
fn a_file_a_read_deny_rule_covers_gets_nothing() {
    // A Read of it would be refused (captured: bash-read-denied), so nothing is attached for it.
    let t = project();
    fs::create_dir_all(t.path("proj/.claude")).unwrap();
    fs::write(
        t.path("proj/.claude/settings.json"),
        r#"{"permissions": {"deny": ["Read(./a/**)"]}}"#,
    )
    .unwrap();
    assert_eq!(bash_hook(&t, "cat a/f.txt | head", "/nonexistent"), "");
    snapshot!(
        "bash_read_beside_a_denied_one",
        bash_context(&t, "cat b/g.txt | head")
    );
}

#[test]
fn the_hook_takes_its_input_from_a_file_and_other_arguments_go_to_the_parser() {
    let t = project();
    let proj = t.path("proj");
    let input = t.path("in.json");
    fs::write(
        &input,
        serde_json::json!({
            "session_id": "s1", "transcript_path": "/nonexistent", "cwd": proj,
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "cat a/f.txt | head"},
            "tool_response": {"stdout": "hi\n", "stderr": "", "interrupted": false},
        })
        .to_string(),
    )
    .unwrap();
    let out = ccmem(&t)
        .args(["hook", "post-tool-use", "--input"])
        .arg(&input)
        .run()
        .code(0);
    snapshot!("input_from_a_file", out);
    // Anything the fast path does not take is the parser's: a usage error, not a silent exit 0.
    let bogus = ccmem(&t).args(["hook", "post-tool-use", "--bogus"]).run();
    snapshot!("hook_usage_error", bogus.code(2));
    let help = ccmem(&t).args(["hook", "post-tool-use", "--help"]).run();
    snapshot!("hook_help", help.code(0));
}
