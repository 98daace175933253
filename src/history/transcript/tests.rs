//! Every record kind `history` reads, in the shapes Claude Code 2.1.332 writes them (keys in its
//! order); broken input in `tests/broken.rs`.

use std::io::Write as _;

use serde_json::{Value, json};

use super::*;
use crate::history::entries::Today;
use crate::history::model::AutoMemory;

mod broken;

const ID: &str = "5f0c1d2e-0000-4000-8000-000000000001";
const MEM: &str = "/h/.claude/projects/-p/memory/";

/// A conversation record: the envelope keys in the client's order around `body`.
fn conv(kind: &str, t: &str, body: Value) -> String {
    let mut m = serde_json::Map::new();
    m.insert(
        "parentUuid".into(),
        json!("00000000-0000-4000-8000-0000000000aa"),
    );
    m.insert("isSidechain".into(), json!(false));
    if let Value::Object(b) = body {
        m.extend(b);
    }
    m.insert("type".into(), json!(kind));
    m.insert("timestamp".into(), json!(t));
    m.insert("cwd".into(), json!("/p"));
    m.insert("sessionId".into(), json!(ID));
    m.insert("version".into(), json!("2.1.332"));
    m.insert("gitBranch".into(), json!("main"));
    Value::Object(m).to_string()
}

fn attachment(t: &str, att: Value) -> String {
    conv("attachment", t, json!({ "attachment": att }))
}

fn instructions(t: &str, files: &[(&str, &str, &str)]) -> String {
    let files: Vec<Value> = files
        .iter()
        .map(|(p, k, c)| json!({"path": p, "type": k, "content": c}))
        .collect();
    attachment(t, json!({"type": "instructions", "files": files}))
}

fn nested(t: &str, path: &str) -> String {
    attachment(
        t,
        json!({"type": "nested_memory", "path": path,
               "content": {"path": path, "type": "Project", "content": "x", "contentDiffersFromDisk": false},
               "displayPath": path}),
    )
}

fn snapshot(t: &str, memory: Option<&str>) -> String {
    let mut parts = vec![json!("\nYou are an agent."), json!("# Environment\n - cwd")];
    if let Some(folder) = memory {
        parts.insert(
            1,
            json!(format!("# Memory\n\nYou have a persistent file-based memory at `{folder}`. This directory already exists.")),
        );
    }
    attachment(
        t,
        json!({"type": "prompt_snapshot", "systemPrompt": parts, "reminderFold": false}),
    )
}

fn tool(t: &str, name: &str, input: Value) -> String {
    conv(
        "assistant",
        t,
        json!({"message": {"id": "m", "type": "message", "role": "assistant", "model": "claude",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": input}]}}),
    )
}

fn user(t: &str, text: &str) -> String {
    let mut m = serde_json::Map::new();
    m.insert("parentUuid".into(), json!(null));
    m.insert("isSidechain".into(), json!(false));
    m.insert("promptId".into(), json!("x"));
    m.insert("type".into(), json!("user"));
    m.insert("message".into(), json!({"role": "user", "content": text}));
    m.insert("timestamp".into(), json!(t));
    m.insert("cwd".into(), json!("/p"));
    m.insert("sessionId".into(), json!(ID));
    m.insert("version".into(), json!("2.1.332"));
    Value::Object(m).to_string()
}

fn compact(t: &str) -> String {
    conv(
        "system",
        t,
        json!({"subtype": "compact_boundary", "content": "Conversation compacted"}),
    )
}

fn meta(kind: &str, extra: Value) -> String {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), json!(kind));
    if let Value::Object(b) = extra {
        m.extend(b);
    }
    m.insert("sessionId".into(), json!(ID));
    Value::Object(m).to_string()
}

fn queue(t: &str) -> String {
    meta(
        "queue-operation",
        json!({"operation": "enqueue", "timestamp": t, "content": "hi"}),
    )
}

fn blob(bytes: usize) -> String {
    meta(
        "api-request-blob",
        json!({"message": {"role": "user", "content": [{"type": "tool_use", "name": "Read",
               "input": {"file_path": format!("{MEM}x.md")}}, {"type": "text", "text": "y".repeat(bytes)}]}}),
    )
}

fn write(dir: &std::path::Path, name: &str, lines: &[String]) -> std::path::PathBuf {
    let p = dir.join(name);
    let mut f = std::fs::File::create(&p).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    p
}

fn ctx(today: Option<&Today>) -> Context<'_> {
    Context {
        today,
        memory_folder: Some(MEM),
    }
}

const INDEX_CUT: &str = "# Memory\n- [A](a.md) — a\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: 1 of 201 lines were cut off, starting at line 3 (\"- [B](b.md)\"). Keep index entries to one line under ~200 chars; move detail into topic files.";

#[test]
fn every_record_kind_of_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let index = format!("{MEM}MEMORY.md");
    let lines = vec![
        queue("2026-11-02T09:00:00.000Z"),
        user("2026-11-02T09:00:00.100Z", "hi"),
        instructions(
            "2026-11-02T09:00:00.200Z",
            &[
                ("/p/CLAUDE.md", "Project", "# Rules\nUse pnpm.\n"),
                (&index, "AutoMem", INDEX_CUT),
            ],
        ),
        snapshot("2026-11-02T09:00:00.300Z", Some(MEM)),
        blob(300_000),
        tool(
            "2026-11-02T09:00:01.000Z",
            "Read",
            json!({"file_path": format!("{MEM}feedback_a.md")}),
        ),
        tool(
            "2026-11-02T09:00:02.000Z",
            "Read",
            json!({"file_path": "/p/src/main.rs"}),
        ),
        nested("2026-11-02T09:00:02.100Z", "/p/src/CLAUDE.md"),
        nested("2026-11-02T09:00:02.200Z", "/p/.claude/rules/rs.md"),
        nested("2026-11-02T09:00:02.300Z", "/p/src/CLAUDE.md"),
        nested("2026-11-02T09:00:02.400Z", "/p/CLAUDE.md"),
        tool(
            "2026-11-02T09:00:03.000Z",
            "Write",
            json!({"file_path": format!("{MEM}feedback_b.md"), "content": "z".repeat(100_000)}),
        ),
        tool(
            "2026-11-02T09:00:04.000Z",
            "Edit",
            json!({"file_path": index, "old_string": "a", "new_string": "b"}),
        ),
        tool(
            "2026-11-02T09:00:05.000Z",
            "Bash",
            json!({"command": format!("printf -- '- [B](b.md)\\n' >> {MEM}MEMORY.md")}),
        ),
        tool(
            "2026-11-02T09:00:05.500Z",
            "Bash",
            json!({"command": format!("cat {MEM}MEMORY.md")}),
        ),
        compact("2026-11-02T09:00:06.000Z"),
        instructions(
            "2026-11-02T09:00:06.100Z",
            &[("/p/CLAUDE.md", "Project", "# Rules\nUse pnpm.\n")],
        ),
        meta("last-prompt", json!({"lastPrompt": "hi"})),
        meta("cost-state", json!({"totalCostUSD": 0.0})),
        meta("tools-used", json!({"tools": ["Read"]})),
    ];
    let path = write(dir.path(), &format!("{ID}.jsonl"), &lines);
    let today = Today::of(&index, "# Memory\n- [A](a.md) — a\n- [B](b.md) — b\n");
    let got = scan(&path, ctx(Some(&today)));
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    assert_eq!(
        got.sessions.len(),
        1,
        "tools-used after the end begins no run"
    );
    let s = &got.sessions[0];
    assert_eq!((s.id.as_str(), s.run, s.ended), (ID, 1, true));
    assert_eq!(s.started.as_deref(), Some("2026-11-02T09:00:00.000Z"));
    assert_eq!(
        (
            s.version.as_deref(),
            s.cwd.as_deref(),
            s.git_branch.as_deref()
        ),
        (Some("2.1.332"), Some("/p"), Some("main"))
    );
    let start: Vec<(&str, &str, usize)> = s
        .start
        .iter()
        .map(|f| (f.path.as_str(), f.kind.as_str(), f.lines))
        .collect();
    assert_eq!(
        start,
        [
            ("/p/CLAUDE.md", "Project", 2),
            (index.as_str(), "AutoMem", 4)
        ]
    );
    let i = s.memory_index.as_ref().unwrap();
    assert_eq!(
        (i.path.as_str(), i.lines, i.warned),
        (index.as_str(), 2, true)
    );
    assert!(i.has_today(0) && i.has_today(1) && !i.has_today(2));
    assert_eq!(s.auto_memory, AutoMemory::On { folder: MEM.into() });
    let paths = |v: &[Event]| v.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&s.topic_reads), [format!("{MEM}feedback_a.md")]);
    assert_eq!(
        s.topic_reads[0].time.as_deref(),
        Some("2026-11-02T09:00:01.000Z")
    );
    assert_eq!(
        paths(&s.lazy),
        ["/p/src/CLAUDE.md", "/p/.claude/rules/rs.md"]
    );
    let writes: Vec<(String, &str)> = s
        .memory_writes
        .iter()
        .map(|w| (w.path.clone(), w.tool.as_str()))
        .collect();
    assert_eq!(
        writes,
        [
            (format!("{MEM}feedback_b.md"), "Write"),
            (index.clone(), "Edit"),
            (index.clone(), "Bash")
        ]
    );
    assert_eq!(s.compactions, 1);
    assert!(
        s.resent.is_empty(),
        "the start block after a compaction is a re-injection"
    );
    assert_eq!(s.start_line.map(|(l, _)| l), Some(3));
}

#[test]
fn a_resumed_session_is_a_second_run_with_the_first_start_block() {
    let dir = tempfile::tempdir().unwrap();
    let index = format!("{MEM}MEMORY.md");
    let lines = vec![
        queue("2026-11-02T09:00:00Z"),
        instructions(
            "2026-11-02T09:00:00.1Z",
            &[("/p/CLAUDE.md", "Project", "r"), (&index, "AutoMem", "- a")],
        ),
        snapshot("2026-11-02T09:00:00.2Z", Some(MEM)),
        meta("cost-state", json!({})),
        meta("tools-used", json!({"tools": []})),
        queue("2026-11-03T10:00:00Z"),
        user("2026-11-03T10:00:00.1Z", "hi"),
        instructions("2026-11-03T10:00:00.2Z", &[(&index, "AutoMem", "- a\n- b")]),
        tool(
            "2026-11-03T10:00:01Z",
            "Read",
            json!({"file_path": format!("{MEM}b.md")}),
        ),
    ];
    let path = write(dir.path(), &format!("{ID}.jsonl"), &lines);
    let got = scan(&path, ctx(None));
    let runs: Vec<(u32, Option<&str>, bool, usize)> = got
        .sessions
        .iter()
        .map(|s| (s.run, s.started.as_deref(), s.ended, s.topic_reads.len()))
        .collect();
    assert_eq!(
        runs,
        [
            (1, Some("2026-11-02T09:00:00Z"), true, 0),
            (2, Some("2026-11-03T10:00:00Z"), false, 1)
        ]
    );
    let r2 = &got.sessions[1];
    assert_eq!(
        r2.start.len(),
        2,
        "the model of a resumed run has the first start block"
    );
    assert_eq!(r2.memory_index.as_ref().map(|i| i.lines), Some(1));
    assert_eq!(r2.resent.iter().map(|f| f.lines).collect::<Vec<_>>(), [2]);
}

/// A start block of many files followed by many tiny resumed runs: every run repeats the start
/// block, so the runs read are held to what the transcript's size allows (it was runs × files:
/// 800 KB of transcript took 4 GB), the rest counted in the last run and said.
#[test]
fn resumed_runs_repeat_the_start_block_only_in_proportion_to_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..2_000).map(|k| format!("/p/{k}.md")).collect();
    let files: Vec<(&str, &str, &str)> =
        names.iter().map(|n| (n.as_str(), "Project", "")).collect();
    let mut lines = vec![instructions("2026-11-02T09:00:00Z", &files)];
    for _ in 0..3_000 {
        lines.push(meta("cost-state", json!({})));
        lines.push(user("2026-11-03T10:00:00.1Z", "hi"));
    }
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let got = scan(
        &write(dir.path(), &format!("{ID}.jsonl"), &lines),
        ctx(None),
    );
    let copies: usize = got.sessions[1..].iter().map(|s| s.start.len()).sum();
    assert!(got.sessions.len() > 1, "a resumed run is still read");
    assert!(
        copies as u64 <= COPY_BUDGET_FOR_TEST + bytes as u64 / 64,
        "{copies} records copied for {bytes} bytes"
    );
    let said = got
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect::<Vec<_>>();
    let folded = 3_000 - (got.sessions.len() - 1);
    assert!(
        said.contains(
            &format!(
                "{folded} more runs were counted in run {}: a transcript yields at most 1000 runs, \
             and no more copies of its start block than its size allows",
                got.sessions.len()
            )
            .as_str()
        ),
        "{said:?}"
    );
}

/// At most a thousand runs are read from a transcript, however small they are.
#[test]
fn a_transcript_s_runs_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = vec![instructions(
        "2026-11-02T09:00:00Z",
        &[("/p/CLAUDE.md", "Project", "r")],
    )];
    for _ in 0..1_500 {
        lines.push(meta("cost-state", json!({})));
        lines.push(user("2026-11-03T10:00:00.1Z", "hi"));
    }
    let got = scan(
        &write(dir.path(), &format!("{ID}.jsonl"), &lines),
        ctx(None),
    );
    assert_eq!(got.sessions.len(), 1_000);
    assert_eq!(got.sessions[999].start.len(), 1);
}

const COPY_BUDGET_FOR_TEST: u64 = 10_000;

#[test]
fn sidechain_records_of_the_main_transcript_are_the_subagent_s() {
    let dir = tempfile::tempdir().unwrap();
    let side = instructions("2026-11-02T09:00:01Z", &[("/p/OTHER.md", "Project", "r")])
        .replace("\"isSidechain\":false", "\"isSidechain\":true");
    let lines = vec![
        instructions("2026-11-02T09:00:00Z", &[("/p/CLAUDE.md", "Project", "r")]),
        side,
    ];
    let got = scan(&write(dir.path(), "s.jsonl", &lines), ctx(None));
    assert_eq!(got.sessions[0].start.len(), 1);
    assert!(got.sessions[0].resent.is_empty());
}

#[test]
fn a_subagent_with_its_memory_loaded_cut_empty_refused_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "# Reviewer memory\n- [Style](s.md) — tabs",
            Some(("loaded", 2, false)),
        ),
        (
            "- a\n- b\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: x. Keep index entries to one line under ~200 chars; move detail into topic files.",
            Some(("loaded", 2, true)),
        ),
        (
            "Your MEMORY.md is currently empty. When you save new memories, they will appear here.",
            Some(("empty", 0, false)),
        ),
        (
            "Your MEMORY.md was not loaded: it is a symlink.",
            Some(("refused", 0, false)),
        ),
    ];
    for (k, (section, want)) in cases.iter().enumerate() {
        let prompt = format!(
            "You review.\n\n# Persistent Agent Memory\n\nYou have a persistent, file-based memory system at `/p/.claude/agent-memory/r/`.\n\n## MEMORY.md\n\n{section}"
        );
        let lines = vec![
            instructions("2026-11-02T09:00:00Z", &[("/p/CLAUDE.md", "Project", "r")])
                .replace("\"isSidechain\":false", "\"isSidechain\":true"),
            attachment(
                "2026-11-02T09:00:00.1Z",
                json!({"type": "prompt_snapshot", "systemPrompt": [prompt, "more"]}),
            ),
        ];
        let path = write(dir.path(), &format!("agent-a{k}.jsonl"), &lines);
        std::fs::write(
            dir.path().join(format!("agent-a{k}.meta.json")),
            r#"{"agentType":"reviewer","spawnDepth":1}"#,
        )
        .unwrap();
        let (sub, diags) = scan_subagent(&path, ctx(None));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            (sub.id.as_str(), sub.kind.as_deref()),
            (format!("a{k}").as_str(), Some("reviewer"))
        );
        assert_eq!(sub.start.len(), 1);
        let got = sub.memory.as_ref().map(|m| (m.state, m.lines, m.warned));
        assert_eq!(got, *want, "{section}");
        assert_eq!(
            sub.memory.unwrap().folder.as_deref(),
            Some("/p/.claude/agent-memory/r/")
        );
    }
    let lines = vec![attachment(
        "2026-11-02T09:00:00Z",
        json!({"type": "prompt_snapshot", "systemPrompt": ["You look around."]}),
    )];
    let (sub, _) = scan_subagent(&write(dir.path(), "agent-b.jsonl", &lines), ctx(None));
    assert!(
        sub.memory.is_none() && sub.kind.is_none(),
        "no memory section, no meta"
    );
}

#[test]
fn auto_memory_off_shows_as_a_system_prompt_without_its_section() {
    let dir = tempfile::tempdir().unwrap();
    let lines = vec![
        snapshot("2026-11-02T09:00:00Z", None),
        snapshot("2026-11-02T09:00:01Z", Some(MEM)),
    ];
    let got = scan(&write(dir.path(), "s.jsonl", &lines), ctx(None));
    assert_eq!(
        got.sessions[0].auto_memory,
        AutoMemory::Off,
        "the first system prompt of a run decides"
    );
}

#[test]
fn the_start_block_is_read_again_at_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    let lines = vec![
        queue("2026-11-02T09:00:00Z"),
        instructions(
            "2026-11-02T09:00:00.1Z",
            &[("/p/CLAUDE.md", "Project", "# Rules\nUse pnpm.")],
        ),
    ];
    let path = write(dir.path(), "s.jsonl", &lines);
    let s = &scan(&path, ctx(None)).sessions[0];
    let (_, offset) = s.start_line.unwrap();
    let files = start_files_at(&path, offset).unwrap();
    assert_eq!(
        files,
        [("/p/CLAUDE.md".to_owned(), "# Rules\nUse pnpm.".to_owned())]
    );
}
