//! Broken input: a half-written last line, lines over the cap, bytes that are not UTF-8, lone
//! surrogates, another client version, a link, a file that is no transcript.

use serde_json::json;

use super::*;

#[test]
fn a_half_written_last_line_is_reported_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{ID}.jsonl"));
    let whole = instructions("2026-11-02T09:00:00Z", &[("/p/CLAUDE.md", "Project", "r")]);
    let half = tool(
        "2026-11-02T09:00:01Z",
        "Read",
        json!({"file_path": format!("{MEM}a.md")}),
    );
    std::fs::write(&path, format!("{whole}\n{}", &half[..half.len() / 2])).unwrap();
    let got = scan(&path, ctx(None));
    assert_eq!(got.sessions.len(), 1);
    assert_eq!(got.sessions[0].start.len(), 1);
    assert!(
        !got.sessions[0].ended,
        "a running session has no end record"
    );
    assert_eq!(got.diagnostics.len(), 1);
    assert!(
        got.diagnostics[0]
            .message
            .contains("last line is incomplete"),
        "{:?}",
        got.diagnostics
    );
    assert_eq!(got.diagnostics[0].line, Some(2));
}

#[test]
fn a_50_mb_line_is_passed_over_and_what_follows_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let index = format!("{MEM}MEMORY.md");
    let huge_wanted = tool(
        "2026-11-02T09:00:01Z",
        "Write",
        json!({"file_path": format!("{MEM}big.md"), "content": "w".repeat(50 << 20)}),
    );
    let lines = vec![
        instructions("2026-11-02T09:00:00Z", &[(&index, "AutoMem", "- a")]),
        blob(50 << 20),
        huge_wanted,
        tool(
            "2026-11-02T09:00:02Z",
            "Read",
            json!({"file_path": format!("{MEM}a.md")}),
        ),
    ];
    let path = write(dir.path(), &format!("{ID}.jsonl"), &lines);
    let got = scan(&path, ctx(None));
    let s = &got.sessions[0];
    assert_eq!(s.topic_reads.len(), 1);
    assert!(
        s.memory_writes.is_empty(),
        "the over-long record is not read"
    );
    assert_eq!(got.diagnostics.len(), 1, "{:?}", got.diagnostics);
    assert_eq!(got.diagnostics[0].line, Some(3));
    assert!(got.diagnostics[0].message.contains("over the 16 MiB"));
}

#[test]
fn bytes_that_are_not_utf8_and_lone_surrogates_are_read_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let index = format!("{MEM}MEMORY.md");
    // MEMORY.md cut inside an emoji pair: JSON.stringify writes the lone high surrogate.
    let content = format!(
        "- a\n- b 😀{}",
        &INDEX_CUT[INDEX_CUT.find("\n\n> WARNING").unwrap()..]
    );
    let cut = instructions("2026-11-02T09:00:00Z", &[(&index, "AutoMem", &content)])
        .replace("😀", "\\ud83d");
    let mut bad = nested("2026-11-02T09:00:01Z", "/p/src/CLAUDE.md").into_bytes();
    let at = bad.windows(3).position(|w| w == b"\"x\"").unwrap() + 1;
    bad[at] = 0xff;
    let path = dir.path().join(format!("{ID}.jsonl"));
    let mut text = cut.into_bytes();
    text.push(b'\n');
    text.extend_from_slice(&bad);
    text.push(b'\n');
    std::fs::write(&path, text).unwrap();
    let today = Today::of(&index, "- a\n- b \n");
    let got = scan(&path, ctx(Some(&today)));
    let s = &got.sessions[0];
    let i = s.memory_index.as_ref().unwrap();
    assert_eq!(i.lines, 2);
    assert!(
        i.has_today(0) && i.has_today(1),
        "the lone surrogate is dropped, as the loader does"
    );
    assert_eq!(s.lazy.len(), 1);
    assert_eq!(got.diagnostics.len(), 1, "{:?}", got.diagnostics);
    assert!(got.diagnostics[0].message.contains("2 lines held bytes"));
}

#[test]
fn a_transcript_of_an_unknown_version_gives_what_it_has_and_never_fails() {
    let dir = tempfile::tempdir().unwrap();
    // Keys in another order, a renamed start record, unknown kinds, a bare string, numbers
    // where strings were.
    let lines = vec![
        json!({"sessionId": ID, "timestamp": "2027-01-01T00:00:00Z", "version": "9.0.0", "cwd": "/p", "type": "user", "message": {"role": "user", "content": "hi"}}).to_string(),
        json!({"sessionId": ID, "type": "attachment", "attachment": {"type": "claude_md_files", "items": [{"p": "/p/CLAUDE.md"}]}, "timestamp": "2027-01-01T00:00:01Z"}).to_string(),
        json!({"type": "attachment", "attachment": {"files": [{"path": "/p/CLAUDE.md"}], "type": "instructions"}, "sessionId": ID}).to_string(),
        json!({"type": "assistant", "message": {"content": "just text"}, "sessionId": ID}).to_string(),
        json!({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": 5}}]}, "sessionId": ID}).to_string(),
        json!({"type": "future-kind", "payload": [1, 2, 3]}).to_string(),
        "\"a bare string\"".into(),
        "[1, 2".into(),
        "".into(),
    ];
    let path = write(dir.path(), &format!("{ID}.jsonl"), &lines);
    let got = scan(&path, ctx(None));
    assert_eq!(got.sessions.len(), 1);
    let s = &got.sessions[0];
    assert_eq!(s.version.as_deref(), Some("9.0.0"));
    assert_eq!(
        s.start.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        ["/p/CLAUDE.md"]
    );
    assert!(s.topic_reads.is_empty());
    assert_eq!(s.auto_memory, AutoMemory::Unknown);
    assert!(!got.diagnostics.is_empty());
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn links_and_files_that_are_no_transcript_are_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let real = write(
        dir.path(),
        "real.jsonl",
        &[instructions(
            "2026-11-02T09:00:00Z",
            &[("/p/C.md", "Project", "r")],
        )],
    );
    let link = dir.path().join(format!("{ID}.jsonl"));
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let got = scan(&link, ctx(None));
    assert!(got.sessions.is_empty());
    assert!(
        got.diagnostics[0].message.contains("symbolic link"),
        "{:?}",
        got.diagnostics
    );

    let noise = dir.path().join("noise.jsonl");
    std::fs::write(
        &noise,
        (0..=255u8).cycle().take(100_000).collect::<Vec<_>>(),
    )
    .unwrap();
    let got = scan(&noise, ctx(None));
    assert!(got.sessions.is_empty());
    assert!(!got.diagnostics.is_empty());
}
