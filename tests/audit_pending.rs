//! Readers and an interrupted write: `tier --write` killed (SIGKILL, `CCMEM_FAULT_AT=k`, a fault
//! point of debug builds) before each of its write system calls in turn; after each kill that
//! leaves a journal, `audit` reports `interrupted-write` and audits the state recovery will
//! leave (the same findings as a copy of the folder holding exactly that state), and `budget`
//! and `receipt` say the folder is mid-operation.

mod common;

use common::cli::Test;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

fn put(dir: &Path, name: &str, text: &str) {
    fs::write(dir.join(name), text).unwrap();
}

/// Three groups of six entries, clean manager-spec files, over a 6-line target.
fn library(dir: &Path) {
    let mut index = String::from("# Memory\n");
    for g in ["build", "deploy", "tests"] {
        index.push_str(&format!("\n## {g}\n"));
        for i in 0..6 {
            let file = format!("project_{g}{i}.md");
            index.push_str(&format!("- [{g} {i}]({file}) — fact {i}\n"));
            put(
                dir,
                &file,
                &format!(
                    "---\nname: {g}{i}\ndescription: fact {i} of {g}\ntype: project\nmodified: 2026-11-20\n---\nfact {i}\n"
                ),
            );
        }
    }
    put(dir, "MEMORY.md", &index);
}

fn audit(dir: &Path) -> serde_json::Value {
    let out = Test::new().args(["audit", "--json"]).arg(dir);
    out.env("CCMEM_NOW", "2026-11-29T12:00:00Z").run().json()
}

/// `(rule, file name, line)` of every finding but `interrupted-write`.
fn findings(doc: &serde_json::Value) -> Vec<(String, String, u64)> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] != "interrupted-write")
        .map(|d| {
            let path = Path::new(d["path"].as_str().unwrap());
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (
                d["rule"].as_str().unwrap().to_owned(),
                name,
                d["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A copy of `dir`'s user files as recovery will leave them.
fn recovered_copy(dir: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    let mut files: BTreeMap<String, Vec<u8>> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    let preview = ccmem::write::preview(dir)
        .unwrap()
        .expect("a pending journal");
    for f in preview.files {
        match f.content {
            Some(b) => files.insert(f.name, b),
            None => files.remove(&f.name),
        };
    }
    for (name, bytes) in files {
        fs::write(copy.path().join(name), bytes).unwrap();
    }
    copy
}

#[test]
fn every_interrupted_tier_is_audited_as_recovery_will_leave_it() {
    let mut interrupted = 0;
    for k in 1.. {
        let dir = tempfile::tempdir().unwrap();
        library(dir.path());
        let run = Test::new()
            .args(["tier", "--write", "--target-lines", "6"])
            .arg(dir.path())
            .env("NO_COLOR", "1")
            .env("CCMEM_NOW", "2026-11-29T12:00:00Z")
            .env("CCMEM_FAULT_AT", k.to_string())
            .run();
        if run.status.success() {
            break; // fewer than k write calls: every point was tried
        }
        if ccmem::write::preview(dir.path()).unwrap().is_none() {
            continue; // killed before the journal or after the commit: nothing pending
        }
        interrupted += 1;
        let doc = audit(dir.path());
        let note: Vec<&serde_json::Value> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == "interrupted-write")
            .collect();
        assert_eq!(note.len(), 1, "k={k}: {doc}");
        let message = note[0]["message"].as_str().unwrap();
        assert!(message.contains("interrupted `tier`"), "{message}");
        let copy = recovered_copy(dir.path());
        assert_eq!(
            findings(&doc),
            findings(&audit(copy.path())),
            "k={k}: the audit differs from one of the recovered state"
        );
        assert!(
            findings(&doc)
                .iter()
                .all(|(r, _, _)| r != "unreachable-file" && r != "broken-link"),
            "k={k}: half-written files audited: {doc}"
        );
        let budget = Test::new().args(["budget"]).arg(dir.path()).run();
        let text = budget.stdout();
        assert!(
            text.contains("interrupted `tier`"),
            "k={k}: budget says nothing: {text}"
        );
        if interrupted == 1 {
            session_readers_say_so(dir.path());
        }
    }
    assert!(
        interrupted > 0,
        "no kill left a journal: the fault points moved"
    );
}

/// `receipt`, the session-start hook and the status line of a session whose auto-memory folder
/// is `mem` (the client's override variable points it there).
fn session_readers_say_so(mem: &Path) {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str], stdin: Option<String>| {
        let c = Test::at(home.path())
            .env("HOME", home.path())
            .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", mem)
            .env_remove("CCMEM_NOW")
            .args(args);
        stdin.map_or(c.clone(), |s| c.stdin(s)).run().stdout()
    };
    let receipt = run(&["receipt"], None);
    assert!(receipt.contains("interrupted `tier`"), "{receipt}");
    let json: serde_json::Value = serde_json::from_str(&run(&["receipt", "--json"], None)).unwrap();
    assert_eq!(json["memory_pending"]["op"], "tier", "{json}");
    let input = serde_json::json!({"session_id": "s", "transcript_path": "/t",
        "cwd": home.path(), "hook_event_name": "SessionStart", "source": "startup"});
    let hook = run(&["hook", "session-start"], Some(input.to_string()));
    assert!(hook.contains("interrupted `tier`"), "{hook}");
    let status_input = serde_json::json!({"session_id": "s", "cwd": home.path(),
        "workspace": {"current_dir": home.path()}});
    let line = run(&["statusline"], Some(status_input.to_string()));
    assert!(line.contains("interrupted ccmem write"), "{line}");
}
