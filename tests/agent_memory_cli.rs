//! `budget`, `audit` and `tier` on a subagent's memory folder: `--agent NAME` finds the folder
//! the client gives the agent, a path to the folder (or to `.claude/agent-memory/`) works like
//! any memory folder, and `budget` measures the index as the agent's system prompt loads it
//! (no frontmatter or comment stripping, unlike the main MEMORY.md).

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::str::contains;

/// A project with agent `rev` (project memory) whose MEMORY.md is 201 lines counting its
/// 3 frontmatter lines (the agent's cut), 198 without them (the main index's count), and an
/// agent `plain` without memory.
fn project() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let p = t.path();
    fs::create_dir_all(p.join("home")).unwrap();
    let agents = p.join("proj/.claude/agents");
    fs::create_dir_all(&agents).unwrap();
    fs::write(
        agents.join("rev.md"),
        "---\nname: rev\ndescription: d\nmemory: project\n---\nReview.\n",
    )
    .unwrap();
    fs::write(
        agents.join("plain.md"),
        "---\nname: plain\ndescription: d\n---\nPlain.\n",
    )
    .unwrap();
    let mem = p.join("proj/.claude/agent-memory/rev");
    fs::create_dir_all(&mem).unwrap();
    let entries: String = (1..=198).map(|i| format!("- entry {i}\n")).collect();
    fs::write(mem.join("MEMORY.md"), format!("---\nx: 1\n---\n{entries}")).unwrap();
    t
}

fn ccmem(root: &Path) -> Command {
    let mut c = Command::cargo_bin("ccmem").unwrap();
    c.env_clear()
        .env("HOME", root.join("home"))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .current_dir(root.join("proj"));
    c
}

#[test]
fn budget_measures_an_agent_index_as_the_agent_loads_it() {
    let t = project();
    for args in [
        vec!["budget", "--agent", "rev"],
        vec!["budget", ".claude/agent-memory/rev"],
        vec!["budget", ".claude/agent-memory"],
    ] {
        ccmem(t.path())
            .args(&args)
            .assert()
            .code(1)
            .stdout(contains("agent-memory/rev/MEMORY.md"))
            .stdout(contains("201"));
    }
    // The same file outside an agent-memory folder is a main index: frontmatter stripped.
    let other = t.path().join("proj/notes");
    fs::create_dir_all(&other).unwrap();
    fs::copy(
        t.path().join("proj/.claude/agent-memory/rev/MEMORY.md"),
        other.join("MEMORY.md"),
    )
    .unwrap();
    ccmem(t.path()).args(["budget", "notes"]).assert().success();
}

#[test]
fn audit_and_tier_take_the_agent_folder() {
    let t = project();
    let folder = t
        .path()
        .join("proj/.claude/agent-memory/rev")
        .canonicalize()
        .unwrap();
    let out = ccmem(t.path())
        .args(["audit", "--agent", "rev", "--json"])
        .assert();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains(&*folder.to_string_lossy()), "{text}");
    let out = ccmem(t.path())
        .args(["tier", "--agent", "rev", "--json"])
        .assert();
    let out = out.get_output();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("agent-memory/rev"), "{text}");
}

#[test]
fn an_unknown_agent_or_one_without_memory_is_a_clear_error() {
    let t = project();
    for cmd in ["budget", "audit", "tier"] {
        ccmem(t.path())
            .args([cmd, "--agent", "nobody"])
            .assert()
            .code(2)
            .stderr(contains("no agent named \"nobody\""))
            .stderr(contains("rev"));
        ccmem(t.path())
            .args([cmd, "--agent", "plain"])
            .assert()
            .code(2)
            .stderr(contains(
                "agent \"plain\" has no memory folder: it has no memory: key",
            ));
    }
}
