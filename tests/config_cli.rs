//! One `ccmem.toml` for every command: a file holding `[audit]`, `[tier]` and `[check]` is read
//! whole by `audit`, `tier`, `add` and `check`, each taking its own table; an unknown key in any
//! table stops every command with the file and line (exit 2); a repository's `[check]`-only file
//! leaves the audit as it is without one.

use serde_json::Value;

mod common;

use common::cli::{Test, snapshot};

/// A memory in the client's own format (`metadata:` holding `type`).
const USER: &str = "---\nname: a\ndescription: lives in Tokyo\nmetadata:\n  type: user\n  modified: 2026-11-01\n---\nx\n";

/// A repository with a memory library in `memory/` and a lower-case `notes/claude.md` (which
/// `check` reports as `wrong-case-name`), plus `ccmem.toml` at its root when given.
fn repo(config: Option<&str>) -> Test {
    let mut files = vec![
        ("CLAUDE.md", "hello\n"),
        ("notes/claude.md", "lower\n"),
        ("memory/MEMORY.md", "- [a](user_a.md) — lives in Tokyo\n"),
        ("memory/user_a.md", USER),
    ];
    files.extend(config.map(|text| ("ccmem.toml", text)));
    let t = Test::new().dir("repo").current_dir("repo");
    (files.iter()).fold(t, |t, (rel, text)| t.file(format!("repo/{rel}"), text))
}

fn rules(audit: &Value) -> Vec<&str> {
    audit["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect()
}

const ALL_THREE: &str = "spec = \"claude-memory-manager\"\n\n[audit]\nmax-file-lines = 3\n\n[tier]\ntarget-lines = 4\n\n[check]\ndisable = [\"wrong-case-name\"]\n\n[check.per-file-ignores]\n\"docs/my_notes/**\" = [\"*\"]\n";

#[test]
fn one_file_with_all_three_tables_serves_audit_tier_add_and_check() {
    let plain = repo(None);
    let configured = repo(Some(ALL_THREE));
    let audit = |r: &Test| r.ccmem(["audit", "memory", "--json"]).run().json();
    let (before, after) = (audit(&plain), audit(&configured));
    assert!(!rules(&before).contains(&"oversized-file"));
    assert!(rules(&after).contains(&"oversized-file"), "{after}");
    let used = after["libraries"][0]["config"].as_str().unwrap_or_default();
    assert!(used.ends_with("ccmem.toml"), "{after}");
    assert_eq!(after["libraries"][0]["spec"], "claude-memory-manager");

    let target = |r: &Test| {
        r.ccmem(["tier", "memory", "--check", "--json"])
            .run()
            .json()["target"]["lines"]
            .clone()
    };
    assert_eq!(target(&plain), 120);
    assert_eq!(target(&configured), 4);

    let add = |r: &Test| {
        r.ccmem([
            "add",
            "memory",
            "--type",
            "feedback",
            "--topic",
            "globs",
            "--description",
            "use ** for deep globs",
            "--why",
            "it broke",
            "--dry-run",
            "--json",
        ])
        .run()
        .json()["spec"]
            .clone()
    };
    assert_eq!(add(&plain), "client");
    assert_eq!(add(&configured), "claude-memory-manager");

    let check = |r: &Test| r.ccmem(["check", "."]).run().exit_code();
    assert_eq!(check(&plain), 1, "notes/claude.md never loads");
    assert_eq!(check(&configured), 0, "[check] disable");
}

#[test]
fn an_unknown_key_in_any_table_stops_every_command_with_file_and_line() {
    // Each snapshot: the file, then each command's refusal naming its line and key.
    let cases = [
        "spec = \"auto\"\nspecs = \"client\"\n",
        "[audit]\nstale-days = 3\nmax-file-line = 3\n",
        "[tier]\n\npin = [\"a.md\"]\n",
        "[check]\ndisabled = []\n",
        "[check]\ncontext_window = 1000\n",
        "[audit]\n[tier]\n[check]\n[chek]\n",
    ];
    let commands: [&[&str]; 4] = [
        &["audit", "memory"],
        &["tier", "memory"],
        &[
            "add",
            "memory",
            "--type",
            "user",
            "--topic",
            "x",
            "--description",
            "d",
            "--dry-run",
        ],
        &["check", "."],
    ];
    for (i, text) in cases.into_iter().enumerate() {
        let r = repo(Some(text));
        let runs: Vec<String> = (commands.iter())
            .map(|args| r.ccmem(*args).run().code(2).transcript())
            .collect();
        snapshot!(
            format!("unknown_key_{i}"),
            format!("{text}\n{}", runs.join("\n"))
        );
    }
}

#[test]
fn a_check_only_repository_file_does_not_disturb_audit() {
    let check_only = "[check]\ndisable = [\"nested-agents-md\"]\ncontext-window = 1000000\n\n[check.per-file-ignores]\n\"vendor/**\" = [\"*\"]\n";
    let plain = repo(None);
    let configured = repo(Some(check_only));
    let mut before = plain.ccmem(["audit", "memory", "--json"]).run().json();
    let mut after = configured.ccmem(["audit", "memory", "--json"]).run().json();
    assert!(
        after["libraries"][0]["config"].as_str().is_some(),
        "{after}"
    );
    for doc in [&mut before, &mut after] {
        doc["libraries"][0]["config"] = Value::Null;
        doc["libraries"][0]["root"] = Value::Null;
    }
    assert_eq!(before, after);
    configured.ccmem(["audit", "memory"]).run().code(0);
}
