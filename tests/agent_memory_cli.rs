//! `budget`, `audit` and `tier` on a subagent's memory folder: `--agent NAME` finds the folder
//! the client gives the agent, a path to the folder (or to `.claude/agent-memory/`) works like
//! any memory folder, and `budget` measures the index as the agent's system prompt loads it
//! (no frontmatter or comment stripping, unlike the main MEMORY.md).

mod common;

use common::cli::{Test, snapshot};

use std::fs;

/// A project with agent `rev` (project memory) whose MEMORY.md is 201 lines counting its
/// 3 frontmatter lines (the agent's cut), 198 without them (the main index's count), and an
/// agent `plain` without memory. Runs start in the project.
fn project() -> Test {
    let entries: String = (1..=198).map(|i| format!("- entry {i}\n")).collect();
    Test::new()
        .file(
            "proj/.claude/agents/rev.md",
            "---\nname: rev\ndescription: d\nmemory: project\n---\nReview.\n",
        )
        .file(
            "proj/.claude/agents/plain.md",
            "---\nname: plain\ndescription: d\n---\nPlain.\n",
        )
        .file(
            "proj/.claude/agent-memory/rev/MEMORY.md",
            format!("---\nx: 1\n---\n{entries}"),
        )
        .env_remove("CCMEM_NOW")
        .current_dir("proj")
}

#[test]
fn budget_measures_an_agent_index_as_the_agent_loads_it() {
    let t = project();
    for (i, args) in [
        ["budget", "--agent", "rev"].as_slice(),
        &["budget", ".claude/agent-memory/rev"],
        &["budget", ".claude/agent-memory"],
    ]
    .into_iter()
    .enumerate()
    {
        snapshot!(format!("budget_{i}"), t.ccmem(args).run().code(1));
    }
    // The same file outside an agent-memory folder is a main index: frontmatter stripped.
    let other = t.path("proj/notes");
    fs::create_dir_all(&other).unwrap();
    fs::copy(
        t.path("proj/.claude/agent-memory/rev/MEMORY.md"),
        other.join("MEMORY.md"),
    )
    .unwrap();
    t.ccmem(["budget", "notes"]).run().code(0);
}

#[test]
fn audit_and_tier_take_the_agent_folder() {
    let t = project();
    let out = t.ccmem(["audit", "--agent", "rev"]).run();
    snapshot!("audit", out);
    let out = t.ccmem(["tier", "--agent", "rev"]).run();
    snapshot!("tier", out);
}

#[test]
fn an_unknown_agent_or_one_without_memory_is_a_clear_error() {
    let t = project();
    for cmd in ["budget", "audit", "tier"] {
        let nobody = t.ccmem([cmd, "--agent", "nobody"]).run().code(2);
        snapshot!(format!("{cmd}_unknown_agent"), nobody);
        let plain = t.ccmem([cmd, "--agent", "plain"]).run().code(2);
        snapshot!(format!("{cmd}_agent_without_memory"), plain);
    }
}
