//! `ccmem history` as a user sees it, whole: the timeline, the dark entries, `--check`, the
//! session-start hook's log standing in for a transcript the client deleted, and the log's
//! refusal of a planted link.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::cli::{Run, Test, snapshot};
use serde_json::{Value, json};

struct World {
    t: Test,
    root: PathBuf,
    home: PathBuf,
    proj: PathBuf,
    mem: PathBuf,
    transcripts: PathBuf,
}

fn slug(p: &Path) -> String {
    p.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

impl World {
    fn new() -> World {
        let t = Test::new();
        let root = t.root().to_path_buf();
        let t = t.env("XDG_STATE_HOME", root.join("state"));
        let (home, proj) = (root.join("home"), root.join("proj"));
        let transcripts = home.join(".claude/projects").join(slug(&proj));
        let mem = transcripts.join("memory");
        fs::create_dir_all(&mem).unwrap();
        fs::create_dir_all(proj.join("web")).unwrap();
        fs::write(proj.join("CLAUDE.md"), "# Rules\nUse pnpm.\n").unwrap();
        fs::write(proj.join("web/CLAUDE.md"), "web: React only.\n").unwrap();
        fs::write(
            mem.join("MEMORY.md"),
            "# Memory\n- [Deploy](feedback_deploy.md) — ask first\n- [Tabs](feedback_tabs.md) — tabs\n- [DB](project_db.md) — Postgres 16\n",
        )
        .unwrap();
        World {
            t,
            root,
            home,
            proj,
            mem,
            transcripts,
        }
    }

    fn ccmem(&self, args: &[&str], cwd: &Path, stdin: Option<&str>) -> Run {
        let t = self.t.ccmem(args).current_dir(cwd);
        stdin.map_or(t.clone(), |input| t.stdin(input)).run()
    }

    fn index(&self) -> String {
        format!("{}/MEMORY.md", self.mem.display())
    }

    /// A transcript in the folder of `cwd` (the project's when `None`).
    fn transcript(&self, id: &str, lines: &[String]) -> PathBuf {
        fs::create_dir_all(&self.transcripts).unwrap();
        let path = self.transcripts.join(format!("{id}.jsonl"));
        fs::write(
            &path,
            lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
        )
        .unwrap();
        path
    }
}

fn conv(id: &str, cwd: &Path, kind: &str, t: &str, body: Value) -> String {
    let mut m = serde_json::Map::new();
    m.insert("parentUuid".into(), json!(null));
    m.insert("isSidechain".into(), json!(false));
    if let Value::Object(b) = body {
        m.extend(b);
    }
    m.insert("type".into(), json!(kind));
    m.insert("timestamp".into(), json!(t));
    m.insert("cwd".into(), json!(cwd));
    m.insert("sessionId".into(), json!(id));
    m.insert("version".into(), json!("2.1.332"));
    m.insert("gitBranch".into(), json!("main"));
    Value::Object(m).to_string()
}

fn instructions(id: &str, cwd: &Path, t: &str, files: &[(&str, &str, &str)]) -> String {
    let files: Vec<Value> = files
        .iter()
        .map(|(p, k, c)| json!({"path": p, "type": k, "content": c}))
        .collect();
    conv(
        id,
        cwd,
        "attachment",
        t,
        json!({"attachment": {"type": "instructions", "files": files}}),
    )
}

fn tool(id: &str, cwd: &Path, t: &str, name: &str, input: Value) -> String {
    conv(
        id,
        cwd,
        "assistant",
        t,
        json!({"message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": name, "input": input}]}}),
    )
}

const CUT: &str = "\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: 2 of 201 lines were cut off, starting at line 3 (\"- [Tabs](feedback_tabs.md) — tabs\"). Keep index entries to one line under ~200 chars; move detail into topic files.";

/// Two sessions in the project and one in web/, with every record kind the timeline shows.
fn recorded(w: &World) {
    let (p, index) = (&w.proj, w.index());
    let claude = p.join("CLAUDE.md");
    let claude = claude.to_str().unwrap();
    let web = p.join("web");
    let web_claude = web.join("CLAUDE.md");
    let topic = format!("{}/feedback_deploy.md", w.mem.display());
    let first = format!("# Memory\n- [Deploy](feedback_deploy.md) — ask first{CUT}");
    w.transcript(
        "11111111-aaaa-4000-8000-000000000001",
        &[
            instructions("11111111-aaaa-4000-8000-000000000001", p, "2026-11-02T09:30:00Z", &[(claude, "Project", "# Rules\nUse pnpm."), (&index, "AutoMem", &first)]),
            tool("11111111-aaaa-4000-8000-000000000001", p, "2026-11-02T09:31:00Z", "Read", json!({"file_path": topic})),
            tool("11111111-aaaa-4000-8000-000000000001", p, "2026-11-02T09:32:00Z", "Read", json!({"file_path": web.join("app.ts")})),
            conv("11111111-aaaa-4000-8000-000000000001", p, "attachment", "2026-11-02T09:32:01Z", json!({"attachment": {"type": "nested_memory", "path": web_claude, "content": {"path": web_claude, "type": "Project", "content": "web: React only."}}})),
            tool("11111111-aaaa-4000-8000-000000000001", p, "2026-11-02T09:33:00Z", "Write", json!({"file_path": format!("{}/project_db.md", w.mem.display()), "content": "Postgres 16"})),
            conv("11111111-aaaa-4000-8000-000000000001", p, "system", "2026-11-02T09:40:00Z", json!({"subtype": "compact_boundary"})),
            json!({"type": "cost-state", "sessionId": "11111111-aaaa-4000-8000-000000000001"}).to_string(),
        ],
    );
    let sub_dir = w
        .transcripts
        .join("11111111-aaaa-4000-8000-000000000001/subagents");
    fs::create_dir_all(&sub_dir).unwrap();
    let prompt = "You review.\n\n# Persistent Agent Memory\n\nYou have a persistent, file-based memory system at `/x/`.\n\n## MEMORY.md\n\n- [Style](style.md) — tabs\n- [Names](names.md) — short";
    fs::write(
        sub_dir.join("agent-a1.jsonl"),
        format!(
            "{}\n",
            conv(
                "11111111-aaaa-4000-8000-000000000001",
                p,
                "attachment",
                "2026-11-02T09:35:00Z",
                json!({"attachment": {"type": "prompt_snapshot", "systemPrompt": [prompt]}})
            )
            .replace("\"isSidechain\":false", "\"isSidechain\":true")
        ),
    )
    .unwrap();
    fs::write(
        sub_dir.join("agent-a1.meta.json"),
        r#"{"agentType":"reviewer"}"#,
    )
    .unwrap();
    let second = format!(
        "# Memory\n- [Deploy](feedback_deploy.md) — ask first\n- [Tabs](feedback_tabs.md) — tabs{}",
        CUT.replace("2 of 201", "1 of 201")
            .replace("line 3", "line 4")
            .replace(
                "[Tabs](feedback_tabs.md) — tabs",
                "[DB](project_db.md) — Postgres 16"
            )
    );
    let web_dir = w.home.join(".claude/projects").join(slug(&web));
    fs::create_dir_all(&web_dir).unwrap();
    fs::write(
        web_dir.join("22222222-bbbb-4000-8000-000000000002.jsonl"),
        format!(
            "{}\n",
            instructions(
                "22222222-bbbb-4000-8000-000000000002",
                &web,
                "2026-11-12T14:00:00Z",
                &[
                    (claude, "Project", "# Rules\nUse pnpm."),
                    (web_claude.to_str().unwrap(), "Project", "web: React only."),
                    (&index, "AutoMem", &second)
                ]
            )
        ),
    )
    .unwrap();
}

#[test]
fn the_timeline_and_the_dark_entries_whole() {
    let w = World::new();
    recorded(&w);
    snapshot!("timeline", w.ccmem(&["history"], &w.proj, None).code(0));
    let json = w.ccmem(&["history", "--json"], &w.proj, None);
    snapshot!("timeline_json", json.code(0));
}

#[test]
fn check_names_the_session_and_the_file_that_differ() {
    let w = World::new();
    let claude = w.proj.join("CLAUDE.md");
    let index = w.index();
    // Dated after today's files: what differs is not "changed since".
    let loaded = "# Memory\n- [Deploy](feedback_deploy.md) — ask first\n- [Tabs](feedback_tabs.md) — tabs\n- [DB](project_db.md) — Postgres 16";
    w.transcript(
        "33333333-cccc-4000-8000-000000000003",
        &[instructions(
            "33333333-cccc-4000-8000-000000000003",
            &w.proj,
            "2099-01-01T00:00:00Z",
            &[
                (claude.to_str().unwrap(), "Project", "# Rules\nUse npm."),
                (&index, "AutoMem", loaded),
            ],
        )],
    );
    w.transcript(
        "44444444-dddd-4000-8000-000000000004",
        &[instructions(
            "44444444-dddd-4000-8000-000000000004",
            &w.proj,
            "2099-01-02T00:00:00Z",
            &[(&index, "AutoMem", loaded)],
        )],
    );
    snapshot!(
        "check",
        w.ccmem(&["history", "--check"], &w.proj, None).code(1)
    );
    let json = w.ccmem(&["history", "--check", "--json"], &w.proj, None);
    snapshot!("check_json", json.code(1));
    let quiet = w.ccmem(&["history", "--check", "--session", "4444"], &w.proj, None);
    quiet.code(1);
    fs::write(&claude, "# Rules\nUse npm.\n").unwrap();
    let out = w.ccmem(&["history", "--check", "--session", "3333"], &w.proj, None);
    out.code(0);
}

#[test]
fn the_hook_s_log_keeps_a_session_whose_transcript_is_gone() {
    let w = World::new();
    let input = json!({"session_id": "55555555-eeee-4000-8000-000000000005", "transcript_path": "/gone.jsonl",
        "cwd": w.proj, "hook_event_name": "SessionStart", "source": "startup"})
    .to_string();
    let out = w.ccmem(&["hook", "session-start"], &w.proj, Some(&input));
    out.code(0).stderr_is("");
    let log = w.root.join("state/ccmem/history.jsonl");
    let text = fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 1);
    let record: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(record["session"], "55555555-eeee-4000-8000-000000000005");
    assert_eq!(record["time"], "2026-11-29T00:00:00Z");
    assert_eq!(record["index"]["lines"], 4);
    assert!(!text.contains("Postgres"), "no content is kept");
    let compact = input.replace("startup", "compact");
    w.ccmem(&["hook", "session-start"], &w.proj, Some(&compact));
    assert_eq!(
        fs::read_to_string(&log).unwrap().lines().count(),
        1,
        "a compaction is no start"
    );

    let doc = w.ccmem(&["history", "--json"], &w.proj, None).json();
    assert_eq!(doc["sessions"][0]["source"], "log");
    assert_eq!(
        doc["entries"][3]["last_loaded"],
        "55555555-eeee-4000-8000-000000000005"
    );
    snapshot!("from_the_log", w.ccmem(&["history"], &w.proj, None).code(0));
    let doc = w
        .ccmem(&["history", "--json", "--no-log"], &w.proj, None)
        .json();
    assert_eq!(doc["sessions"], json!([]));
}

// Unix only: symbolic links, permission bits.
#[cfg(unix)]
#[test]
fn a_planted_link_at_the_log_is_refused_and_the_session_goes_on() {
    let w = World::new();
    let state = w.root.join("state/ccmem");
    fs::create_dir_all(&state).unwrap();
    fs::set_permissions(&state, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let victim = w.home.join(".bashrc");
    fs::write(&victim, "export KEEP=1\n").unwrap();
    std::os::unix::fs::symlink(&victim, state.join("history.jsonl")).unwrap();
    let input = json!({"session_id": "s", "transcript_path": "", "cwd": w.proj, "hook_event_name": "SessionStart", "source": "startup"}).to_string();
    let out = w.ccmem(
        &["hook", "session-start", "--always"],
        &w.proj,
        Some(&input),
    );
    snapshot!("planted_link", out.code(0));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "export KEEP=1\n");
}

#[test]
fn what_a_transcript_says_cannot_drive_the_terminal() {
    let w = World::new();
    let evil = format!(
        "{}/\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}gpj.md",
        w.proj.display()
    );
    w.transcript(
        "66666666-ffff-4000-8000-000000000006",
        &[instructions(
            "66666666-ffff-4000-8000-000000000006",
            &w.proj,
            "2026-11-02T09:30:00Z",
            &[(&evil, "Project", "x")],
        )],
    );
    let out = w.ccmem(&["history", "--color", "always"], &w.proj, None);
    let text = out.stdout();
    let line = text.lines().find(|l| l.contains("start")).unwrap();
    assert!(
        line.contains(r"\x1b]0;owned\x07\x1b[2J\u{202e}gpj.md"),
        "{line:?}"
    );
    assert!(!text.contains('\u{7}') && !text.contains('\u{202e}') && !text.contains("\u{1b}]"));
}

#[test]
fn a_session_id_that_matches_nothing_is_an_error() {
    let w = World::new();
    recorded(&w);
    let out = w.ccmem(&["history", "--session", "9999"], &w.proj, None);
    snapshot!("unknown_session", out.code(2));
    let out = w.ccmem(&["history", "--since", "next tuesday"], &w.proj, None);
    snapshot!("bad_since", out.code(2));
    let out = w.ccmem(
        &["history", "--since", "2026-11-10", "--json"],
        &w.proj,
        None,
    );
    let doc = out.json();
    assert_eq!(doc["sessions"].as_array().map(Vec::len), Some(1));
}
