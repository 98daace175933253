//! One `ccmem.toml` for every command: a file holding `[audit]`, `[tier]` and `[check]` is read
//! whole by `audit`, `tier`, `add` and `check`, each taking its own table; an unknown key in any
//! table stops every command with the file and line (exit 2); a repository's `[check]`-only file
//! leaves the audit as it is without one.

use std::path::Path;

use serde_json::Value;

mod common;

use common::{ccmem, json};

/// A memory in the client's own format (`metadata:` holding `type`).
const USER: &str = "---\nname: a\ndescription: lives in Tokyo\nmetadata:\n  type: user\n  modified: 2026-11-01\n---\nx\n";

/// A repository with a memory library in `memory/` and a lower-case `notes/claude.md` (which
/// `check` reports as `wrong-case-name`), plus `ccmem.toml` at its root when given.
fn repo(config: Option<&str>) -> tempfile::TempDir {
    let mut files = vec![
        ("CLAUDE.md", "hello\n"),
        ("notes/claude.md", "lower\n"),
        ("memory/MEMORY.md", "- [a](user_a.md) — lives in Tokyo\n"),
        ("memory/user_a.md", USER),
    ];
    files.extend(config.map(|text| ("ccmem.toml", text)));
    common::tree(&files)
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
    let audit = |r: &Path| json(&["audit", "memory", "--json"], r);
    let (before, after) = (audit(plain.path()), audit(configured.path()));
    assert!(!rules(&before).contains(&"oversized-file"));
    assert!(rules(&after).contains(&"oversized-file"), "{after}");
    let used = after["libraries"][0]["config"].as_str().unwrap_or_default();
    assert!(used.ends_with("ccmem.toml"), "{after}");
    assert_eq!(after["libraries"][0]["spec"], "claude-memory-manager");

    let target =
        |r: &Path| json(&["tier", "memory", "--check", "--json"], r)["target"]["lines"].clone();
    assert_eq!(target(plain.path()), 120);
    assert_eq!(target(configured.path()), 4);

    let add = |r: &Path| {
        json(
            &[
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
            ],
            r,
        )["spec"]
            .clone()
    };
    assert_eq!(add(plain.path()), "client");
    assert_eq!(add(configured.path()), "claude-memory-manager");

    let check = |r: &Path| ccmem(&["check", "."], r).status.code();
    assert_eq!(check(plain.path()), Some(1), "notes/claude.md never loads");
    assert_eq!(check(configured.path()), Some(0), "[check] disable");
}

#[test]
fn an_unknown_key_in_any_table_stops_every_command_with_file_and_line() {
    let cases = [
        ("spec = \"auto\"\nspecs = \"client\"\n", 2, "specs"),
        (
            "[audit]\nstale-days = 3\nmax-file-line = 3\n",
            3,
            "max-file-line",
        ),
        ("[tier]\n\npin = [\"a.md\"]\n", 3, "pin"),
        ("[check]\ndisabled = []\n", 2, "disabled"),
        ("[check]\ncontext_window = 1000\n", 2, "context_window"),
        ("[audit]\n[tier]\n[check]\n[chek]\n", 4, "chek"),
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
    for (text, line, key) in cases {
        let r = repo(Some(text));
        for args in commands {
            let out = ccmem(args, r.path());
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?} on {text:?}: {err}");
            assert!(
                err.contains(&format!("ccmem.toml:{line}:")),
                "{args:?} on {text:?}: {err}"
            );
            assert!(err.contains(key), "{args:?} on {text:?}: {err}");
        }
    }
}

#[test]
fn a_check_only_repository_file_does_not_disturb_audit() {
    let check_only = "[check]\ndisable = [\"nested-agents-md\"]\ncontext-window = 1000000\n\n[check.per-file-ignores]\n\"vendor/**\" = [\"*\"]\n";
    let plain = repo(None);
    let configured = repo(Some(check_only));
    let mut before = json(&["audit", "memory", "--json"], plain.path());
    let mut after = json(&["audit", "memory", "--json"], configured.path());
    assert!(
        after["libraries"][0]["config"].as_str().is_some(),
        "{after}"
    );
    for doc in [&mut before, &mut after] {
        doc["libraries"][0]["config"] = Value::Null;
        doc["libraries"][0]["root"] = Value::Null;
    }
    assert_eq!(before, after);
    assert_eq!(
        ccmem(&["audit", "memory"], configured.path()).status.code(),
        Some(0)
    );
}
