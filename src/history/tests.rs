//! A project's history as a whole: which transcripts belong to it, ccmem's log beside them,
//! a folder of 10,000 transcripts, choosing sessions; `--check` in `tests/check.rs`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::env::ClientFlags;
use crate::load::automem::slug::slug;

mod check;

struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
    vars: BTreeMap<String, String>,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        // The real path as the client has it (Windows: without the `\\?\` canonicalize adds,
        // which would give the project another slug).
        let real = tmp.path().canonicalize().unwrap();
        let base =
            PathBuf::from(crate::text::path::strip_verbatim(real.to_str().unwrap()).as_ref());
        let (home, proj) = (base.join("home"), base.join("proj"));
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&proj).unwrap();
        let vars: BTreeMap<String, String> = [
            ("HOME", home.to_str().unwrap().to_owned()),
            (
                "CCMEM_MANAGED_DIR",
                base.join("no-managed").to_str().unwrap().to_owned(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        World {
            _tmp: tmp,
            home,
            proj,
            vars,
        }
    }

    fn env(&self, cwd: &Path) -> ClientEnv {
        ClientEnv::new(cwd.to_owned(), self.vars.clone(), ClientFlags::default())
    }

    fn folder(&self, cwd: &Path) -> PathBuf {
        self.home
            .join(".claude")
            .join("projects")
            .join(slug(cwd.to_str().unwrap()))
    }

    fn memory(&self) -> PathBuf {
        self.folder(&self.proj).join("memory")
    }

    fn index(&self) -> String {
        self.memory()
            .join("MEMORY.md")
            .to_string_lossy()
            .into_owned()
    }

    /// A transcript of session `id` started at `t` in `cwd`, whose start block holds `files`.
    fn transcript(&self, cwd: &Path, id: &str, t: &str, files: &[(&str, &str, &str)]) -> PathBuf {
        let dir = self.folder(cwd);
        fs::create_dir_all(&dir).unwrap();
        let files: Vec<Value> = files
            .iter()
            .map(|(p, k, c)| json!({"path": p, "type": k, "content": c}))
            .collect();
        let line = json!({"parentUuid": null, "isSidechain": false,
            "attachment": {"type": "instructions", "files": files},
            "type": "attachment", "timestamp": t, "cwd": cwd, "sessionId": id, "version": "2.1.332"});
        let path = dir.join(format!("{id}.jsonl"));
        fs::write(&path, format!("{line}\n")).unwrap();
        path
    }

    fn read(&self, cwd: &Path, log: Option<PathBuf>) -> History {
        let env = self.env(cwd);
        read(
            &env,
            &Settings::load(&env),
            &Options {
                log,
                tick: None,
                index: None,
            },
        )
    }
}

fn ids(h: &History) -> Vec<&str> {
    h.sessions.iter().map(|s| s.id.as_str()).collect()
}

fn set_mtime(path: &Path, t: &str) {
    let t: jiff::Timestamp = t.parse().unwrap();
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::try_from(t).unwrap())
        .unwrap();
}

#[test]
fn sessions_inside_the_project_and_its_worktrees_belong_to_it_and_a_lookalike_folder_does_not() {
    let w = World::new();
    let web = w.proj.join("web");
    let lookalike = w.proj.with_file_name("proj-web");
    fs::create_dir_all(&web).unwrap();
    fs::create_dir_all(&lookalike).unwrap();
    // A linked worktree of the repository at proj.
    let wt = w.proj.with_file_name("wt");
    crate::load::git::linked_worktree(&w.proj, &wt);

    w.transcript(&w.proj, "a-root", "2026-11-01T00:00:00Z", &[]);
    w.transcript(&web, "b-web", "2026-11-02T00:00:00Z", &[]);
    w.transcript(&wt, "c-worktree", "2026-11-03T00:00:00Z", &[]);
    // slug(/…/proj-web) == slug(/…/proj/web): the folder is shared, the cwd tells them apart.
    w.transcript(&lookalike, "d-lookalike", "2026-11-04T00:00:00Z", &[]);
    assert_eq!(w.folder(&lookalike), w.folder(&web));
    let h = w.read(&w.proj, None);
    assert_eq!(ids(&h), ["a-root", "b-web", "c-worktree"]);
    assert_eq!(h.project.worktrees, [wt.to_string_lossy()]);
    let from_worktree = w.read(&wt, None);
    assert_eq!(
        ids(&from_worktree),
        ["a-root", "b-web", "c-worktree"],
        "the same project from its worktree"
    );
    assert_eq!(
        ids(&w.read(&web, None)),
        ["a-root", "b-web", "c-worktree"],
        "a folder of a repository is the repository's project"
    );
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn a_linked_folder_or_transcript_under_projects_is_not_followed() {
    let w = World::new();
    let elsewhere = w.home.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let real = w.transcript(&w.proj, "s-real", "2026-11-01T00:00:00Z", &[]);
    fs::rename(&real, elsewhere.join("s-linked.jsonl")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("s-linked.jsonl"),
        w.folder(&w.proj).join("s-linked.jsonl"),
    )
    .unwrap();
    let sub = w.proj.join("sub");
    fs::create_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink(&elsewhere, w.folder(&sub)).unwrap();
    let h = w.read(&w.proj, None);
    assert!(h.sessions.is_empty());
    assert_eq!(h.diagnostics_total, 2, "{:?}", h.diagnostics);
    assert!(
        h.diagnostics
            .iter()
            .all(|d| d.message.contains("not followed"))
    );
}

#[test]
fn a_folder_of_10000_transcripts_is_read_whole() {
    let w = World::new();
    let dir = w.folder(&w.proj);
    fs::create_dir_all(&dir).unwrap();
    let index = w.index();
    for i in 0..10_000 {
        let t = "2026-01-01T00:00:00Z".parse::<jiff::Timestamp>().unwrap()
            + jiff::SignedDuration::from_secs(i * 60);
        let line = json!({"parentUuid": null, "isSidechain": false,
            "attachment": {"type": "instructions", "files": [{"path": index, "type": "AutoMem", "content": format!("- e{}", i % 3)}]},
            "type": "attachment", "timestamp": t.to_string(), "cwd": w.proj, "sessionId": format!("s{i:05}")});
        fs::write(
            dir.join(format!("s{i:05}.jsonl")),
            format!("{line}\n{{\"type\":\"cost-state\"}}\n"),
        )
        .unwrap();
    }
    fs::create_dir_all(w.memory()).unwrap();
    fs::write(w.memory().join("MEMORY.md"), "- e0\n- e1\n- e2\n- e3\n").unwrap();
    let h = w.read(&w.proj, None);
    assert_eq!(h.sessions.len(), 10_000);
    assert_eq!(h.sources.transcripts, 10_000);
    assert_eq!(h.sessions.first().map(|s| s.id.as_str()), Some("s00000"));
    let last: Vec<_> = h.entries.iter().map(|e| e.last_loaded.as_deref()).collect();
    assert_eq!(last, [Some("s09999"), Some("s09997"), Some("s09998"), None]);
    assert_eq!(h.entries[3].sessions_since, 10_000);
}

#[test]
fn the_log_keeps_sessions_whose_transcripts_are_gone_and_defers_to_a_transcript() {
    let w = World::new();
    fs::create_dir_all(w.memory()).unwrap();
    fs::write(w.memory().join("MEMORY.md"), "# M\n- old\n- new\n").unwrap();
    fs::write(w.proj.join("CLAUDE.md"), "rules\n").unwrap();
    let log = w.home.join("state/ccmem/history.jsonl");
    let env = w.env(&w.proj);
    let session = crate::load::load_session_with(&env, crate::load::Detail::Reminder);
    let cwd = w.proj.to_string_lossy().into_owned();
    for (id, t) in [
        ("gone", "2026-10-01T00:00:00Z"),
        ("kept", "2026-10-02T00:00:00Z"),
    ] {
        let start = log::Start {
            session: id,
            source: "startup",
            cwd: &cwd,
            transcript: "",
        };
        let rec = log::encode(&log::record(&session, start, t));
        crate::write::append::append_line(&log, &rec, log::LOG_CAP).unwrap();
    }
    w.transcript(&w.proj, "kept", "2026-10-02T00:00:01Z", &[]);
    fs::write(
        w.memory().join("MEMORY.md"),
        "# M\n- old\n- new\n- newest\n",
    )
    .unwrap();
    let h = w.read(&w.proj, Some(log.clone()));
    assert_eq!(ids(&h), ["gone", "kept"]);
    assert_eq!(h.sessions[0].source, Source::Log);
    assert_eq!(h.sessions[1].source, Source::Transcript);
    assert_eq!((h.sources.log_records, h.sources.from_log), (2, 1));
    let starts: Vec<_> = h.sessions[0]
        .start
        .iter()
        .map(|f| f.kind.as_str())
        .collect();
    assert_eq!(starts, ["Project", "AutoMem"]);
    let last: Vec<_> = h.entries.iter().map(|e| e.last_loaded.as_deref()).collect();
    assert_eq!(
        last,
        [Some("gone"), Some("gone"), Some("gone"), None],
        "log lines match by hash"
    );
    assert!(
        w.read(&w.proj, None)
            .sessions
            .iter()
            .all(|s| s.id != "gone")
    );
}

#[test]
fn a_log_record_is_bounded_and_reads_back() {
    let mut r = log::Record {
        v: 1,
        time: "2026-10-01T00:00:00Z".into(),
        session: "s".into(),
        source: "startup".into(),
        cwd: "/p".into(),
        transcript: None,
        client: None,
        auto_memory: None,
        files: Vec::new(),
        index: None,
        truncated: false,
    };
    for i in 0..5_000 {
        r.files.push(log::LogFile {
            path: format!("/p/.claude/rules/rule-{i}.md"),
            kind: "Project".into(),
            lines: 1,
            hash: "0".repeat(16),
        });
    }
    let line = log::encode(&r);
    assert!(line.len() <= log::MAX_RECORD, "{}", line.len());
    let back: log::Record = serde_json::from_slice(&line).unwrap();
    assert!(back.truncated && !back.files.is_empty());
}

#[test]
fn select_by_id_prefix_and_date() {
    let w = World::new();
    w.transcript(&w.proj, "aaaa-1", "2026-11-01T00:00:00Z", &[]);
    w.transcript(&w.proj, "aaab-2", "2026-11-02T00:00:00Z", &[]);
    w.transcript(&w.proj, "bbbb-3", "2026-11-03T00:00:00Z", &[]);
    let mut h = w.read(&w.proj, None);
    let err = h.clone().select(Some("aaa"), None).unwrap_err();
    assert!(err.contains("matches 2 sessions"), "{err}");
    assert!(
        h.clone()
            .select(Some("zz"), None)
            .unwrap_err()
            .contains("no recorded session")
    );
    let mut one = h.clone();
    one.select(Some("aaab"), None).unwrap();
    assert_eq!(ids(&one), ["aaab-2"]);
    h.select(None, Some("2026-11-02T00:00:00Z".parse().unwrap()))
        .unwrap();
    assert_eq!(ids(&h), ["aaab-2", "bbbb-3"]);
}
