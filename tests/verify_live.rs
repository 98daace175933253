//! Live checks against the real client. They are `#[ignore]`d, so a plain `cargo test` reports
//! them as ignored with the reason; `scripts/live-conformance.sh` runs them with
//! `--include-ignored` and `CCMEM_CLAUDE_BIN` naming the client (without it they fail).
//!
//! A tiny project with a CLAUDE.md, a user settings file with an `apiKeyHelper` that would leave
//! a marker file, and an OAuth credentials file: the captured reminder must be exactly the
//! client's text for that CLAUDE.md, the helper must never run, only the dummy key may reach the
//! stub, and the memory files must be byte-identical afterwards.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use ccmem::env::ClientFlags;
use ccmem::verify::{self, Options};

/// The real client's binary: these tests are only run on purpose, so a missing one is a failure.
fn client() -> String {
    std::env::var("CCMEM_CLAUDE_BIN")
        .ok()
        .filter(|b| !b.is_empty())
        .expect("CCMEM_CLAUDE_BIN must name the real client (scripts/install-client.sh prints it)")
}

#[test]
#[ignore = "needs the real client: scripts/live-conformance.sh runs it with CCMEM_CLAUDE_BIN"]
fn live_client_reminder_matches_and_nothing_leaks() {
    let bin = client();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, project) = (root.join("home"), root.join("proj"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let marker = root.join("helper-ran");
    std::fs::write(
        home.join(".claude/settings.json"),
        format!(
            r#"{{"apiKeyHelper": "touch {}; echo sk-ant-from-helper"}}"#,
            marker.display()
        ),
    )
    .unwrap();
    std::fs::write(
        home.join(".claude/.credentials.json"),
        r#"{"claudeAiOauth": {"accessToken": "sk-ant-oat01-not-real", "refreshToken": "r",
            "expiresAt": 99999999999999, "scopes": ["user:inference"]}}"#,
    )
    .unwrap();
    std::fs::write(project.join("CLAUDE.md"), "Use tabs.\n").unwrap();
    let memory: Vec<PathBuf> = vec![
        project.join("CLAUDE.md"),
        home.join(".claude/settings.json"),
        home.join(".claude/.credentials.json"),
    ];
    let before: Vec<Vec<u8>> = memory.iter().map(|p| std::fs::read(p).unwrap()).collect();

    let vars: BTreeMap<String, String> = [
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("HOME", home.to_string_lossy().into_owned()),
        ("ANTHROPIC_API_KEY", "sk-ant-real-looking".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let outcome = verify::verify(&Options {
        bin: Some(bin),
        cwd: project.clone(),
        vars,
        flags: ClientFlags::default(),
        timeout: Duration::from_secs(120),
    })
    .unwrap();

    let expected = format!(
        "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to \
         these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you \
         MUST follow them exactly as written.\n\nContents of {}/CLAUDE.md (project instructions, \
         checked into the codebase):\n\nUse tabs.\n</system-reminder>",
        project.display()
    );
    assert_eq!(outcome.client, expected);
    assert!(!marker.exists(), "the apiKeyHelper ran");
    for r in &outcome.capture.requests {
        assert!(r.refused.is_none(), "{:?}", r.path);
        assert_eq!(r.header("x-api-key"), Some(verify::isolate::DUMMY_KEY));
        assert_eq!(
            r.header("authorization"),
            None,
            "a bearer token reached the stub"
        );
    }
    let after: Vec<Vec<u8>> = memory.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(before, after, "memory or settings files changed");
}
