//! `history --check` on records that agree, disagree, or describe files that changed since, and
//! on sessions it cannot check.

use std::fs;

use serde_json::json;

use super::{World, set_mtime};
use crate::history::check;

/// Each checked session's id with what differs in it.
fn differences(report: &check::Report) -> Vec<(&str, Vec<&str>)> {
    report
        .sessions
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                s.differences.iter().map(|d| d.what).collect(),
            )
        })
        .collect()
}

#[test]
fn check_agrees_reports_what_differs_and_is_quiet_where_a_file_changed_since() {
    let w = World::new();
    let claude = w.proj.join("CLAUDE.md");
    fs::write(&claude, "# Rules\nUse pnpm.\n").unwrap();
    fs::create_dir_all(w.memory()).unwrap();
    fs::write(w.memory().join("MEMORY.md"), "- a\n").unwrap();
    let index = w.index();
    let claude_s = claude.to_str().unwrap();
    set_mtime(&claude, "2025-01-01T00:00:00Z");
    set_mtime(&w.memory().join("MEMORY.md"), "2025-01-01T00:00:00Z");
    let (pnpm, npm, memory) = (
        (claude_s, "Project", "# Rules\nUse pnpm."),
        (claude_s, "Project", "# Rules\nUse npm."),
        (index.as_str(), "AutoMem", "- a"),
    );
    let sessions = [
        ("s1-agrees", "2026-01-01T00:00:00Z", vec![pnpm, memory]),
        ("s2-lacks", "2026-01-02T00:00:00Z", vec![memory]),
        ("s3-content", "2026-01-03T00:00:00Z", vec![npm, memory]),
        ("s4-order", "2026-01-04T00:00:00Z", vec![memory, pnpm]),
    ];
    for (id, t, files) in &sessions {
        w.transcript(&w.proj, id, t, files);
    }
    let h = w.read(&w.proj, None);
    let report = check::check(&h.sessions, &h.sessions, &w.vars);
    let got = differences(&report);
    assert_eq!(
        got,
        [
            ("s1-agrees", vec![]),
            ("s2-lacks", vec!["not-recorded"]),
            ("s3-content", vec!["content"]),
            ("s4-order", vec!["order"]),
        ]
    );
    let content = &report.sessions[2].differences[0];
    assert_eq!(content.path, claude_s);
    assert_eq!(
        content.detail,
        "line 2 differs: the model got \"Use npm.\", ccmem predicts \"Use pnpm.\" (2 vs 2 lines)"
    );
    assert!(report.differs());

    // The file changes after every session: what its records say of it is left out, quietly;
    // a new rule no record shows may not have existed then.
    fs::write(&claude, "# Rules\nUse bun.\n").unwrap();
    fs::create_dir_all(w.proj.join(".claude/rules")).unwrap();
    fs::write(w.proj.join(".claude/rules/new.md"), "new rule\n").unwrap();
    let report = check::check(&h.sessions, &h.sessions, &w.vars);
    let got: Vec<(&str, Vec<&str>, usize)> = report
        .sessions
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                s.differences.iter().map(|d| d.what).collect(),
                s.changed_since.len(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("s1-agrees", vec![], 2),
            ("s2-lacks", vec![], 2),
            ("s3-content", vec![], 2),
            ("s4-order", vec![], 2),
        ]
    );
    assert!(!report.differs());
}

#[test]
fn check_follows_the_recorded_environment_and_skips_what_it_cannot_check() {
    let w = World::new();
    fs::write(w.proj.join("CLAUDE.md"), "rules\n").unwrap();
    fs::create_dir_all(w.memory()).unwrap();
    fs::write(w.memory().join("MEMORY.md"), "- a\n").unwrap();
    set_mtime(&w.proj.join("CLAUDE.md"), "2025-01-01T00:00:00Z");
    let claude = w.proj.join("CLAUDE.md");
    // Auto memory was off in this session: its system prompt has no memory section.
    let path = w.transcript(
        &w.proj,
        "off",
        "2026-01-01T00:00:00Z",
        &[(claude.to_str().unwrap(), "Project", "rules")],
    );
    let snapshot = json!({"parentUuid": null, "isSidechain": false,
        "attachment": {"type": "prompt_snapshot", "systemPrompt": ["You are an agent.", "# Environment"]},
        "type": "attachment", "timestamp": "2026-01-01T00:00:01Z", "sessionId": "off"});
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, format!("{text}{snapshot}\n")).unwrap();
    // No start block; a start directory that is gone.
    let gone = w.proj.join("gone");
    fs::create_dir_all(&gone).unwrap();
    w.transcript(&gone, "gone", "2026-01-02T00:00:00Z", &[]);
    fs::remove_dir(&gone).unwrap();
    let dir = w.folder(&w.proj);
    fs::write(dir.join("bare.jsonl"), format!("{}\n", json!({"type": "user", "sessionId": "bare", "cwd": w.proj, "timestamp": "2026-01-03T00:00:00Z", "message": {"content": "hi"}}))).unwrap();
    let h = w.read(&w.proj, None);
    let report = check::check(&h.sessions, &h.sessions, &w.vars);
    assert_eq!(report.sessions.len(), 1);
    assert!(
        report.sessions[0].differences.is_empty(),
        "{:?}",
        report.sessions[0].differences
    );
    let skipped: Vec<(&str, &str)> = report
        .not_checked
        .iter()
        .map(|n| (n.id.as_str(), n.why.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("gone", "its start directory is gone"),
            ("bare", "its transcript has no start block")
        ]
    );
}

/// `history --check` is how a macOS or Windows user catches what the captured cases miss, so it
/// runs under every platform model whose paths are this machine's: here Linux, macOS and WSL's
/// on a Unix host, Windows' natively under wine (`scripts/wine-test.sh`).
#[test]
fn check_runs_under_every_platform_model_of_this_host() {
    let models: &[&str] = if cfg!(windows) {
        &["windows"]
    } else {
        &["linux", "macos", "wsl"]
    };
    for model in models {
        let mut w = World::new();
        w.vars.insert("CCMEM_PLATFORM".into(), (*model).into());
        let claude = w.proj.join("CLAUDE.md");
        fs::write(&claude, "# Regeln\nImmer pnpm benutzen.\n").unwrap();
        set_mtime(&claude, "2025-01-01T00:00:00Z");
        let c = claude.to_str().unwrap();
        w.transcript(
            &w.proj,
            "agrees",
            "2026-01-01T00:00:00Z",
            &[(c, "Project", "# Regeln\nImmer pnpm benutzen.")],
        );
        w.transcript(
            &w.proj,
            "differs",
            "2026-01-02T00:00:00Z",
            &[(c, "Project", "# Regeln\nImmer npm benutzen.")],
        );
        let h = w.read(&w.proj, None);
        assert_eq!(h.sessions.len(), 2, "{model}");
        let report = check::check(&h.sessions, &h.sessions, &w.vars);
        let got = differences(&report);
        assert_eq!(
            got,
            [("agrees", vec![]), ("differs", vec!["content"])],
            "{model}"
        );
        assert!(report.not_checked.is_empty(), "{model}");
    }
}
