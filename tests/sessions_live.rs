//! The session shapes against the real client, live: one case of each shape (a subagent's
//! start, the first request after `/compact`, reads through Bash) is answered by the client
//! during the run with the repository's capture scripts (`tests/oracle/capture/`, a stub
//! Messages API on 127.0.0.1: no network, no tokens) and must equal both the stored
//! `expected.txt` and ccmem's prediction; and, with ccmem's hooks installed by `ccmem hook
//! install`, the session gets after `cat a/f.txt | head` (a read the client does not track) the
//! block it gets after a Read.
//!
//! `#[ignore]`d, so a plain `cargo test` reports them as ignored with the reason;
//! `scripts/live-conformance.sh` runs them with `--include-ignored` and `CCMEM_CLAUDE_BIN`
//! naming the client (without it they fail). They need `python3`.

mod common;

use std::path::Path;
use std::process::Command;

use common::shapes::{compare_agent, compare_compact, compare_steps};
use common::{Case, cases};

/// The real client's binary: these tests are only run on purpose, so a missing one is a failure.
fn client() -> String {
    std::env::var("CCMEM_CLAUDE_BIN")
        .ok()
        .filter(|b| !b.is_empty())
        .expect("CCMEM_CLAUDE_BIN must name the real client (scripts/install-client.sh prints it)")
}

/// Runs `tests/oracle/capture/SCRIPT CASE --claude BIN` and returns what it prints. One at a
/// time: the client keeps state under the temp folder.
fn capture(script: &str, case: &Path) -> String {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/capture");
    let out = Command::new("python3")
        .arg(dir.join(script))
        .arg(case)
        .args(["--claude", &client()])
        .env("CCMEM_BIN", env!("CARGO_BIN_EXE_ccmem"))
        .output()
        .expect("python3 runs the capture scripts");
    assert!(
        out.status.success(),
        "{script} {} failed:\n{}",
        case.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn case(name: &str) -> Case {
    let folder = name.split('/').next().unwrap();
    cases(&[folder])
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

/// The client answers `name` now; it must answer as when the case was captured, and ccmem must
/// predict what it answers.
fn live(name: &str, script: &str, compare: fn(&Case) -> Option<String>) {
    let stored = case(name);
    let now = capture(script, &stored.dir);
    assert_eq!(
        now, stored.expected,
        "{name}: the client no longer answers as it did when the case was captured"
    );
    let answered = Case {
        expected: now,
        ..stored
    };
    if let Some(diff) = compare(&answered) {
        panic!("ccmem differs from the live client:\n{diff}");
    }
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn live_subagent_start() {
    live(
        "agents/agent-project-basic",
        "capture_agent.py",
        compare_agent,
    );
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn live_after_compaction() {
    live(
        "compact/compact-nested-read-before",
        "capture_compact.py",
        compare_compact,
    );
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn live_reads_through_bash() {
    live(
        "bash-read/bash-cat-vs-read",
        "capture_bash_read.py",
        compare_steps,
    );
}

/// One step's section of `capture_bash_hook.py` output.
fn step(out: &str, k: usize) -> &str {
    let marker = format!("--- step {k}: ");
    let start = out
        .find(&marker)
        .unwrap_or_else(|| panic!("no step {k}:\n{out}"));
    let rest = &out[start..];
    let body = &rest[rest.find('\n').map_or(rest.len(), |i| i + 1)..];
    body.find("\n--- step ").map_or(body, |end| &body[..end])
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn live_bash_hook_gives_an_untracked_read_the_block_a_read_gets() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/live/bash-hook-cat-pipe");
    let out = capture("capture_bash_hook.py", &dir);
    // Step 1, a Read of b/f.txt: the client attaches b/CLAUDE.md itself.
    let read = step(&out, 1);
    let inner = read
        .strip_prefix("<system-reminder>\n")
        .and_then(|r| r.split("\n</system-reminder>").next())
        .unwrap_or_else(|| panic!("no reminder after the Read:\n{out}"));
    assert!(
        inner.starts_with("Contents of {ROOT}/proj/b/CLAUDE.md:"),
        "{out}"
    );
    // Step 0, `cat a/f.txt | head`: the client attaches nothing; ccmem's hook passes the same
    // block for a/CLAUDE.md, which the client hands on as hook context.
    let cat = step(&out, 0);
    assert!(
        !cat.contains("<system-reminder>"),
        "the client tracked the read itself:\n{out}"
    );
    let want = format!(
        "<<<< system >>>>\nPostToolUse:Bash hook additional context: {}",
        inner.replace("/proj/b/", "/proj/a/")
    );
    assert!(
        cat.contains(&want),
        "after the untracked read the session did not get the Read's block:\n--- want\n{want}\n--- got\n{out}"
    );
}
