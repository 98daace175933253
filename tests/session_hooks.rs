//! The session-shape hooks and receipts end to end: `hook post-tool-use` on Bash attaches
//! what a Read would have only for reads the client does not track; `hook
//! instructions-loaded` logs beside the prediction and `receipt --session` compares;
//! `receipt --agents` lists the agents.

use std::fs;
use std::path::Path;

use assert_cmd::Command;

fn project() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let p = t.path();
    fs::create_dir_all(p.join("home")).unwrap();
    fs::create_dir_all(p.join("proj/a")).unwrap();
    fs::create_dir_all(p.join("proj/b")).unwrap();
    fs::write(p.join("proj/CLAUDE.md"), "ROOT\n").unwrap();
    fs::write(p.join("proj/a/CLAUDE.md"), "NESTED A\n").unwrap();
    fs::write(p.join("proj/a/f.txt"), "hi\n").unwrap();
    fs::write(p.join("proj/b/CLAUDE.md"), "NESTED B\n").unwrap();
    fs::write(p.join("proj/b/g.txt"), "yo\n").unwrap();
    t
}

fn ccmem(root: &Path) -> Command {
    let mut c = Command::cargo_bin("ccmem").unwrap();
    c.env_clear()
        .env("HOME", root.join("home"))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .current_dir(root.join("proj"));
    c
}

fn bash_hook(root: &Path, command: &str, transcript: &str) -> String {
    let proj = root.join("proj").canonicalize().unwrap();
    let input = serde_json::json!({
        "session_id": "s1", "transcript_path": transcript, "cwd": proj,
        "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "hi\n", "stderr": "", "interrupted": false},
    });
    let out = ccmem(root)
        .args(["hook", "post-tool-use"])
        .write_stdin(input.to_string())
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn an_untracked_bash_read_gets_what_a_read_would_attach() {
    let t = project();
    let out = bash_hook(t.path(), "cat a/f.txt | head", "/nonexistent");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        ctx.starts_with("Contents of ") && ctx.contains("/proj/a/CLAUDE.md:\n\nNESTED A"),
        "{ctx}"
    );
    let cd = bash_hook(t.path(), "cd b && cat g.txt", "/nonexistent");
    assert!(cd.contains("NESTED B"), "{cd}");
}

#[test]
fn nothing_for_reads_the_client_tracks_or_commands_that_read_nothing() {
    let t = project();
    assert_eq!(
        bash_hook(t.path(), "cat a/f.txt", "/nonexistent"),
        "",
        "the client attaches it"
    );
    assert_eq!(
        bash_hook(t.path(), "ls -la && git status", "/nonexistent"),
        ""
    );
    assert_eq!(
        bash_hook(t.path(), "echo 'cat a/f.txt | head'", "/nonexistent"),
        ""
    );
}

#[test]
fn what_the_transcript_already_shows_is_not_attached_again() {
    let t = project();
    let proj = t.path().join("proj").canonicalize().unwrap();
    let transcript = t.path().join("t.jsonl");
    let line = serde_json::json!({"type": "attachment", "attachment": {"content":
        format!("Contents of {}/a/CLAUDE.md:\n\nNESTED A", proj.display())}});
    fs::write(&transcript, format!("{line}\n")).unwrap();
    assert_eq!(
        bash_hook(t.path(), "cat a/f.txt | head", transcript.to_str().unwrap()),
        ""
    );
}

#[test]
fn instructions_loaded_is_logged_and_compared() {
    let t = project();
    let proj = t.path().join("proj").canonicalize().unwrap();
    let cache = t.path().join("cache");
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
        ccmem(t.path())
            .env("XDG_CACHE_HOME", &cache)
            .args(["hook", "instructions-loaded"])
            .write_stdin(input.to_string())
            .assert()
            .success()
            .stdout("");
    }
    let log = fs::read_to_string(cache.join("ccmem/sessions/abc-1.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 3);
    let out = ccmem(t.path())
        .env("XDG_CACHE_HOME", &cache)
        .args(["receipt", "--session", "abc-1"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("UNPREDICTED") && text.contains("zzz/CLAUDE.md"),
        "{text}"
    );
    assert_eq!(text.matches("ok ").count(), 2, "{text}");
}

#[test]
fn receipt_lists_agents_and_shows_one() {
    let t = project();
    let agents = t.path().join("proj/.claude/agents");
    fs::create_dir_all(&agents).unwrap();
    fs::write(
        agents.join("rev.md"),
        "---\nname: rev\ndescription: d\nmemory: project\n---\nBody\n",
    )
    .unwrap();
    let mem = t.path().join("proj/.claude/agent-memory/rev");
    fs::create_dir_all(&mem).unwrap();
    let index: String = (1..=205).map(|i| format!("- entry {i}\n")).collect();
    fs::write(mem.join("MEMORY.md"), index).unwrap();
    let out = ccmem(t.path())
        .args(["receipt", "--agents"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("rev") && text.contains("memory: project") && text.contains("Explore"),
        "{text}"
    );
    let out = ccmem(t.path())
        .args(["receipt", "--agent", "rev"])
        .assert()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("CUT: 5 line(s) dark") && text.contains("line 201: - entry 201"),
        "{text}"
    );
    ccmem(t.path())
        .args(["context", "--agent", "nobody"])
        .assert()
        .code(2);
}

#[test]
fn a_file_a_read_deny_rule_covers_gets_nothing() {
    // A Read of it would be refused (captured: bash-read-denied), so nothing is attached for it.
    let t = project();
    fs::create_dir_all(t.path().join("proj/.claude")).unwrap();
    fs::write(
        t.path().join("proj/.claude/settings.json"),
        r#"{"permissions": {"deny": ["Read(./a/**)"]}}"#,
    )
    .unwrap();
    assert_eq!(
        bash_hook(t.path(), "cat a/f.txt | head", "/nonexistent"),
        ""
    );
    let other = bash_hook(t.path(), "cat b/g.txt | head", "/nonexistent");
    assert!(other.contains("NESTED B"), "{other}");
}

#[test]
fn the_hook_takes_its_input_from_a_file_and_other_arguments_go_to_the_parser() {
    let t = project();
    let proj = t.path().join("proj").canonicalize().unwrap();
    let input = t.path().join("in.json");
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
    let out = ccmem(t.path())
        .args(["hook", "post-tool-use", "--input"])
        .arg(&input)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("NESTED A"), "{text}");
    // Anything the fast path does not take is the parser's: a usage error, not a silent exit 0.
    ccmem(t.path())
        .args(["hook", "post-tool-use", "--bogus"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--bogus"));
    ccmem(t.path())
        .args(["hook", "post-tool-use", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("--input"));
}
