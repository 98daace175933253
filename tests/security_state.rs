//! Issue 23, the state half: ccmem's own state (journal, undo history, backups, the `.ccmem`
//! folder) is input, never authority, and every write lands only where the client reads. Each
//! attack of the issue runs here as a user (or a cloned repository) would meet it, through the
//! binary; plus a property test over journal and undo record bytes whose oracle is "nothing
//! outside the memory folder changed" (the cargo-fuzz target `records` has the same oracle).

mod common;

#[path = "common/records.rs"]
mod records;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use ccmem::write::Hash;
use common::cli::{Run, Test, snapshot};
use proptest::prelude::*;

/// A root with `home/` (HOME, with `~/.claude/CLAUDE.md`), `outside/`, a git repository
/// `proj/` with a subagent `reviewer` (project memory) and a plain memory folder `mem/` (not in
/// a repository).
struct World {
    _t: tempfile::TempDir,
    root: PathBuf,
}

fn world() -> World {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    put(&root.join("home/.claude/CLAUDE.md"), "# my global rules\n");
    put(&root.join("outside/victim.txt"), "precious\n");
    fs::create_dir_all(root.join("proj/.git/hooks")).unwrap();
    put(
        &root.join("proj/.claude/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: reviews\nmemory: project\n---\nReview.\n",
    );
    let agent = root.join("proj/.claude/agent-memory/reviewer");
    library(&agent);
    library(&root.join("mem"));
    World { _t: t, root }
}

impl World {
    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn agent(&self) -> PathBuf {
        self.path("proj/.claude/agent-memory/reviewer")
    }

    /// `ccmem ARGS` in `proj/`, with this world's HOME and state home.
    fn run(&self, args: &[&str]) -> Run {
        self.cmd(args).run()
    }

    /// Runs each of `runs`: each must exit 2 saying all of `says`, and change nothing.
    #[track_caller]
    fn refuse_all(&self, runs: &[&[&str]], says: &[&str]) {
        let before = everything(self);
        for args in runs {
            let said = text(&self.run(args).code(2));
            assert!(says.iter().all(|s| said.contains(s)), "{args:?}: {said}");
        }
        assert_eq!(everything(self), before);
    }

    fn cmd(&self, args: &[&str]) -> Test {
        Test::at(&self.root)
            .env("XDG_STATE_HOME", self.path("state"))
            .env("CCMEM_NOW", "2026-11-29T12:00:00Z")
            .current_dir("proj")
            .args(args)
    }
}

fn put(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// An index of 12 entries of three types (over an 8-line target) and their files.
fn library(dir: &Path) {
    let mut index = String::from("# Memory\n");
    for (kind, n) in [("user", 4), ("feedback", 4), ("project", 4)] {
        for i in 0..n {
            let file = format!("{kind}_{i}.md");
            index.push_str(&format!("- [{kind} {i}]({file}) — {kind} fact {i}\n"));
            put(
                &dir.join(&file),
                &format!("---\nname: {kind}-{i}\ndescription: d\ntype: {kind}\n---\nfact {i}\n"),
            );
        }
    }
    put(&dir.join("MEMORY.md"), &index);
}

/// `ccmem add` of a user memory `topic` to `dir`.
fn add<'a>(dir: &'a str, topic: &'a str) -> [&'a str; 8] {
    [
        "add",
        dir,
        "--type",
        "user",
        "--topic",
        topic,
        "--description",
        "d",
    ]
}

/// `tier` on the subagent's memory over an 8-line target: the dry run, then the write (for
/// the tests with symbolic links, Unix only).
#[cfg(unix)]
const AGENT_TIER: [&[&str]; 2] = [
    &["tier", "--agent", "reviewer", "--target-lines", "8"],
    &[
        "tier",
        "--agent",
        "reviewer",
        "--target-lines",
        "8",
        "--write",
    ],
];

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn everything(w: &World) -> records::Snapshot {
    records::snapshot(&w.root, Path::new("/nonexistent"))
}

fn chmod(p: &Path, mode: u32) {
    records::set_mode(p, mode);
}

/// A pending journal as JSON text.
fn journal(entries: serde_json::Value) -> String {
    serde_json::json!({"version": 2, "op": "add", "started": "2026-01-01T00:00:00Z",
        "outcome": "pending", "entries": entries})
    .to_string()
}

/// The attack of the issue: a repository ships, in a subagent's project memory, a pending
/// journal that renames its executable `x` onto `.git/hooks/pre-commit`. Neither an ordinary
/// `add`, `tier --write` (even one with nothing to do), `undo`, nor `undo --recover` ever
/// applies it; `audit` and `budget` point at `undo --status`, never at a command that applies
/// it silently. Whatever mode git gave `.ccmem/`.
#[test]
fn a_cloned_repositorys_journal_never_renames_onto_git_hooks() {
    for mode in [0o755, 0o700] {
        let w = world();
        let agent = w.agent();
        put(&agent.join("x"), "#!/bin/sh\necho pwned\n");
        chmod(&agent.join("x"), 0o755);
        let hash = Hash::of(b"#!/bin/sh\necho pwned\n");
        let j = journal(serde_json::json!([{"name": "pre-commit",
            "path": ".git/hooks/pre-commit", "old": null, "new": hash, "temp": "x",
            "mode": 493}]));
        put(&agent.join(".ccmem/journal.json"), &j);
        chmod(&agent.join(".ccmem"), mode);
        let before = everything(&w);
        let dir = ".claude/agent-memory/reviewer";
        for args in [
            &add(dir, "y")[..],
            &["tier", "--agent", "reviewer", "--write"],
            &[
                "tier",
                "--agent",
                "reviewer",
                "--write",
                "--target-lines",
                "100",
            ],
            &["undo", dir],
            &["undo", dir, "--recover"],
        ] {
            let said = text(&w.run(args).code(2));
            let why = if mode == 0o755 {
                "has mode 0755; ccmem makes its state folder 0700"
            } else if args.contains(&"--recover") {
                "entry 1 (\"pre-commit\"): its file: \".git/hooks/pre-commit\" is a path"
            } else {
                "ccmem never applies one here by itself"
            };
            assert!(said.contains(why), "{args:?} (mode {mode:o}): {said}");
        }
        for args in [&["audit", dir][..], &["budget", dir]] {
            let said = text(&w.run(args));
            assert!(said.contains("ccmem undo --status"), "{args:?}: {said}");
            assert!(
                !said.contains("does it first") && !said.contains("ccmem tier --write"),
                "{args:?} steers to a command that applies it: {said}"
            );
        }
        let status = w.run(&["undo", dir, "--status"]);
        assert_eq!(status.status.code(), Some(1), "{}", text(&status));
        assert_eq!(everything(&w), before, "mode {mode:o}: something changed");
        assert!(!w.path("proj/.git/hooks/pre-commit").exists());
        if mode == 0o700 {
            // Dropping it is explicit, and leaves `x` (not a name ccmem makes) alone.
            w.run(&["undo", dir, "--discard"]).code(0);
            assert!(!agent.join(".ccmem/journal.json").exists());
            assert!(agent.join("x").exists());
        }
    }
}

/// A journal planted in a memory folder of the user's own (which ccmem does recover by itself)
/// naming a file outside the folder to create and another to delete, with right hashes and
/// backups: reported (file, entry, why), nothing done, by every command.
#[test]
fn a_planted_journal_creates_and_deletes_nothing_outside_the_folder() {
    let w = world();
    let mem = w.path("mem");
    let victim = w.path("outside/victim.txt");
    put(&w.path("outside/.created.txt.ccmem-tmp.abc123"), "evil\n");
    let state = mem.join(".ccmem");
    put(
        &state.join("backup").join(Hash::of(b"precious\n").as_str()),
        "precious\n",
    );
    chmod(&state, 0o700);
    chmod(&state.join("backup"), 0o700);
    let j = journal(serde_json::json!([
        {"name": "created.md", "path": w.path("outside/created.txt"), "old": null,
         "new": Hash::of(b"evil\n"), "temp": w.path("outside/.created.txt.ccmem-tmp.abc123"),
         "mode": 420},
        {"name": "victim.md", "path": victim, "old": Hash::of(b"precious\n"), "new": null,
         "temp": null, "mode": 420}]));
    put(&state.join("journal.json"), &j);
    let before = everything(&w);
    w.refuse_all(
        &[
            &["tier", "../mem", "--write", "--target-lines", "8"],
            &["undo", "../mem"],
            &["undo", "../mem", "--recover"],
            &add("../mem", "z"),
        ],
        &[
            ".ccmem/journal.json: entry 1 (\"created.md\"): its file:",
            "is outside the folder",
            "ccmem did nothing with it",
        ],
    );
    let audit = text(&w.run(&["audit", "../mem"]));
    assert!(audit.contains("ccmem will not act on"), "{audit}");
    assert_eq!(everything(&w), before);
    assert_eq!(fs::read(&victim).unwrap(), b"precious\n");
    assert!(!w.path("outside/created.txt").exists());
}

/// A journal (and an older ccmem's `last.json`) naming a private file outside the folder as one
/// of its files: `audit` must never show its content as a memory.
#[test]
fn a_planted_record_never_makes_audit_print_a_file_outside_the_folder() {
    let w = world();
    let mem = w.path("mem");
    let secret = w.path("outside/secret.md");
    put(&secret, "SECRET-TOKEN-4242 the first line\n");
    chmod(&secret, 0o600);
    let entry = serde_json::json!([{"name": "leak.md", "path": secret,
        "old": Hash::of(b"x"), "new": Hash::of(b"SECRET-TOKEN-4242 the first line\n"),
        "temp": null, "mode": 384}]);
    put(&mem.join(".ccmem/journal.json"), &journal(entry.clone()));
    let last = serde_json::json!({"version": 2, "op": "tier", "started": "s",
        "outcome": "committed", "entries": entry});
    put(&mem.join(".ccmem/last.json"), &last.to_string());
    chmod(&mem.join(".ccmem"), 0o700);
    for args in [
        &["audit", "../mem"][..],
        &["audit", "../mem", "--json"],
        &["budget", "../mem"],
        &["undo", "../mem", "--status"],
        &["undo", "../mem", "--list"],
    ] {
        let said = text(&w.run(args));
        assert!(!said.contains("SECRET-TOKEN-4242"), "{args:?}: {said}");
    }
}

/// A topic file that is a link out of the memory folder (dropped in by a sync tool or a
/// repository): no command reads it, every one says why; a link inside the folder is read.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn a_topic_linked_out_of_the_folder_is_never_read() {
    let w = world();
    let mem = w.path("mem");
    let secret = w.path("outside/id_notes.md");
    put(
        &secret,
        "SECRET-TOKEN-4242 notes: the prod bastion is 10.0.4.7\n\
         aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    );
    chmod(&secret, 0o600);
    std::os::unix::fs::symlink(&secret, mem.join("reference_aws.md")).unwrap();
    std::os::unix::fs::symlink("user_0.md", mem.join("user_alias.md")).unwrap();
    let mut index = fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    index.push_str("- [AWS](reference_aws.md) — credentials notes\n");
    index.push_str("- [Alias](user_alias.md) — same as user 0\n");
    put(&mem.join("MEMORY.md"), &index);
    for args in [
        &["audit", "../mem"][..],
        &["audit", "../mem", "--json"],
        &["audit", "../mem", "--format", "sarif"],
        &["budget", "../mem"],
        &["tier", "../mem"],
    ] {
        let said = text(&w.run(args));
        assert!(!said.contains("SECRET-TOKEN-4242"), "{args:?}: {said}");
        assert!(!said.contains("wJalrXUtnFEMI"), "{args:?}: {said}");
    }
    let run = w.run(&["audit", "../mem"]);
    assert!(
        !text(&run).contains("user_alias.md: a link"),
        "{}",
        text(&run)
    );
    snapshot!("audit_names_a_link_out_of_the_folder", run);
}

/// An undo record listing a folder outside the memory folder among those its operation
/// created: `undo` removes no folder, and says why.
#[test]
fn undo_never_removes_a_folder_a_record_names() {
    for file in ["history.json", "last.json"] {
        let w = world();
        let mem = w.path("mem");
        let empty = w.path("outside/empty");
        fs::create_dir_all(&empty).unwrap();
        let a = fs::read(mem.join("user_0.md")).unwrap();
        let op = serde_json::json!({"version": 2, "id": "1", "op": "add user_0.md",
            "started": "s", "outcome": "committed", "created_dirs": [empty],
            "entries": [{"name": "user_0.md", "old": null, "new": Hash::of(&a), "temp": null,
                "mode": 420}]});
        let record = if file == "history.json" {
            serde_json::json!({"version": 3, "done": [op]}).to_string()
        } else {
            op.to_string()
        };
        put(&mem.join(".ccmem").join(file), &record);
        chmod(&mem.join(".ccmem"), 0o700);
        let before = everything(&w);
        let name = format!("undo_refuses_a_folder_listed_in_{}", file.replace('.', "_"));
        snapshot!(name, w.run(&["undo", "../mem"]).code(2));
        assert!(empty.is_dir());
        assert_eq!(everything(&w), before);
    }
}

/// Max RSS (KiB) and wall time of `ccmem ARGS` run with `stdin`.
fn measured(w: &World, args: &[&str], stdin: &str, mem: &Path) -> (u64, f64, String) {
    let mut c = std::process::Command::new("/usr/bin/time");
    c.args(["-f", "%M %e", "-o"])
        .arg(w.path("time.txt"))
        .arg(env!("CARGO_BIN_EXE_ccmem"))
        .args(args)
        .env_clear()
        .env("HOME", w.path("home"))
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("CCMEM_MANAGED_DIR", w.path("no-managed"))
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", mem)
        .current_dir(w.path("proj"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let t = fs::read_to_string(w.path("time.txt")).unwrap();
    let mut it = t.split_whitespace();
    let rss = it.next().unwrap().parse().unwrap();
    let secs = it.next().unwrap().parse().unwrap();
    (rss, secs, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The resource attack: a journal and an undo record of 30 entries naming 45 MB files
/// (inside the folder and out) made `statusline` and `hook session-start` take 1.3 GB and 2 s.
/// They read the journal alone now: no more memory or time than without it.
#[test]
fn hooks_stay_small_and_fast_whatever_the_state_holds() {
    if !Path::new("/usr/bin/time").exists() {
        eprintln!("skipped: /usr/bin/time is needed to measure the hooks");
        return;
    }
    let w = world();
    let mem = w.path("mem");
    let big = |p: &Path| {
        let f = fs::File::create(p).unwrap();
        f.set_len(45 << 20).unwrap();
    };
    big(&w.path("outside/big.md"));
    let mut entries = Vec::new();
    for i in 0..30 {
        let name = format!("blob{i:02}");
        big(&mem.join(&name));
        big(&mem.join(format!(".{name}.ccmem-tmp.abc{i:03}")));
        entries.push(serde_json::json!({"name": name, "old": Hash::of(b"a"),
            "new": Hash::of(b"b"), "temp": format!(".{name}.ccmem-tmp.abc{i:03}"), "mode": 420}));
    }
    let outside: Vec<_> = (0..30)
        .map(|i| {
            serde_json::json!({"name": format!("o{i}.md"), "path": w.path("outside/big.md"),
            "old": Hash::of(b"a"), "new": Hash::of(b"b"), "temp": null, "mode": 420})
        })
        .collect();
    let session = serde_json::json!({"session_id": "s", "transcript_path": "/t",
        "cwd": w.path("proj"), "hook_event_name": "SessionStart", "source": "startup"})
    .to_string();
    let status = serde_json::json!({"session_id": "s", "cwd": w.path("proj"),
        "workspace": {"current_dir": w.path("proj")}})
    .to_string();
    let hooks: [(&[&str], &str); 2] = [
        (&["hook", "session-start"], &session),
        (&["statusline"], &status),
    ];
    let mut baseline = Vec::new();
    for (args, stdin) in hooks {
        baseline.push(measured(&w, args, stdin, &mem));
    }
    put(
        &mem.join(".ccmem/journal.json"),
        &serde_json::json!({"version": 3, "op": "tier", "started": "s", "entries": entries})
            .to_string(),
    );
    put(
        &mem.join(".ccmem/last.json"),
        &serde_json::json!({"version": 2, "op": "tier", "started": "s",
            "outcome": "committed", "entries": outside})
        .to_string(),
    );
    chmod(&mem.join(".ccmem"), 0o700);
    for ((args, stdin), (rss0, _, _)) in hooks.into_iter().zip(&baseline) {
        let (rss, secs, out) = measured(&w, args, stdin, &mem);
        assert!(
            out.contains("interrupted `tier`") || out.contains("interrupted ccmem write"),
            "{args:?} says nothing of the journal: {out}"
        );
        assert!(
            rss < rss0 + 16 * 1024,
            "{args:?}: {rss} KiB with the planted state, {rss0} KiB without"
        );
        assert!(secs < 1.5, "{args:?}: {secs} s");
    }
}

/// A `.ccmem` that is a link (to a folder holding backups), a file, or a folder of another
/// user: every write command refuses with the reason, and nothing is written or deleted
/// through it (backup pruning included).
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn a_state_folder_that_is_not_ccmems_own_is_refused() {
    for kind in ["link", "file", "owner"] {
        let w = world();
        let mem = w.path("mem");
        let elsewhere = w.path("outside/state");
        put(&elsewhere.join("backup/keep-me"), "someone's file\n");
        put(&elsewhere.join("backup").join(Hash::of(b"z").as_str()), "z");
        chmod(&elsewhere, 0o700);
        let why = match kind {
            "link" => {
                std::os::unix::fs::symlink(&elsewhere, mem.join(".ccmem")).unwrap();
                ".ccmem: is a symbolic link"
            }
            "file" => {
                put(&mem.join(".ccmem"), "");
                ".ccmem: is not a folder"
            }
            _ => {
                fs::create_dir(mem.join(".ccmem")).unwrap();
                chmod(&mem.join(".ccmem"), 0o700);
                std::os::unix::fs::chown(mem.join(".ccmem"), Some(4242), Some(4242)).unwrap();
                ".ccmem: is owned by user 4242"
            }
        };
        w.refuse_all(
            &[
                &add("../mem", "z"),
                &["tier", "../mem", "--write", "--target-lines", "8"],
                &["undo", "../mem"],
                &["undo", "../mem", "--discard"],
            ],
            &[why],
        );
    }
}

/// In a checked-in subagent memory, a hub linked to the user's `~/.claude/CLAUDE.md` (loaded by
/// every session) is never written through: `tier` refuses, dry run included, naming the link's
/// target.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn a_hub_linked_to_the_global_claude_md_is_never_written_through() {
    let w = world();
    let agent = w.agent();
    let global = w.path("home/.claude/CLAUDE.md");
    for hub in [
        "reference_0_hub.md",
        "reference_1_hub.md",
        "reference_2_hub.md",
    ] {
        std::os::unix::fs::symlink(&global, agent.join(hub)).unwrap();
    }
    let why = format!(
        "_hub.md: is a symbolic link to {}, outside the memory folder",
        global.display()
    );
    w.refuse_all(&AGENT_TIER, &[&why]);
    assert_eq!(fs::read(&global).unwrap(), b"# my global rules\n");
}

/// A subagent's MEMORY.md that is a link: the client does not read it (`lstat` must find a
/// regular file in a working copy), so ccmem does not write it either, not even through a link
/// to a file of the same folder; `receipt` and `tier` agree.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn a_symlinked_agent_index_is_not_written() {
    let w = world();
    let agent = w.agent();
    fs::rename(agent.join("MEMORY.md"), agent.join("INDEX.txt")).unwrap();
    std::os::unix::fs::symlink("INDEX.txt", agent.join("MEMORY.md")).unwrap();
    w.refuse_all(
        &[
            AGENT_TIER[0],
            AGENT_TIER[1],
            &add(".claude/agent-memory/reviewer", "new"),
        ],
        &["MEMORY.md: is a symbolic link, and the client does not read MEMORY.md through one here"],
    );
}

/// A repository's `.claude/settings.json` linked out of the repository is not written through
/// by `hook install --project`; one linked to a file inside it is, and the diff names the file
/// really written.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn hook_install_never_writes_through_a_settings_link_out_of_the_repository() {
    let w = world();
    let outside = w.path("outside/settings.json");
    put(&outside, "{\n  \"model\": \"opus\"\n}\n");
    let link = w.path("proj/.claude/settings.json");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let why = format!(
        "settings.json: is a symbolic link to {}, outside the repository",
        outside.display()
    );
    w.refuse_all(
        &[
            &["hook", "install", "--project", "--yes"],
            &["hook", "install", "--project", "--dry-run"],
        ],
        &[&why],
    );
    // Inside the repository: written through, the diff names both.
    let inside = w.path("proj/config/settings.json");
    put(&inside, "{}\n");
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("../config/settings.json", &link).unwrap();
    let out = w.run(&[
        "hook",
        "install",
        "--project",
        "--yes",
        "--bin",
        "/opt/ccmem",
    ]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "{} -> {} (before)",
            link.display(),
            inside.display()
        )),
        "{said}"
    );
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(fs::read_to_string(&inside).unwrap().contains("/opt/ccmem"));
}

/// `undo --hook project` (and `--local`) holds the same rule as install and uninstall: a
/// repository's `.claude/settings.json` linked to the user's own `~/.claude/settings.json` is not
/// the project's file, and the user's install is never undone through it.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn undo_never_follows_a_settings_link_out_of_the_repository() {
    let w = world();
    let user = w.path("home/.claude/settings.json");
    put(&user, "{\n  \"model\": \"opus\"\n}\n");
    w.run(&["hook", "install", "--user", "--yes", "--bin", "/opt/ccmem"])
        .code(0);
    let installed = fs::read_to_string(&user).unwrap();
    assert!(installed.contains("/opt/ccmem"));
    for (scope, name) in [
        ("project", "settings.json"),
        ("local", "settings.local.json"),
    ] {
        let link = w.path(&format!("proj/.claude/{name}"));
        std::os::unix::fs::symlink(&user, &link).unwrap();
        let why = format!(
            "{name}: is a symbolic link to {}, outside the repository",
            user.display()
        );
        w.refuse_all(
            &[
                &["undo", "--hook", scope],
                &["undo", "--hook", scope, "--redo"],
                &["undo", "--hook", scope, "--recover"],
                &["undo", "--hook", scope, "--discard"],
            ],
            &[&why],
        );
        fs::remove_file(&link).unwrap();
    }
    assert_eq!(fs::read_to_string(&user).unwrap(), installed);
    // The user's own scope still undoes the install.
    w.run(&["undo", "--hook", "user"]).code(0);
    assert!(!fs::read_to_string(&user).unwrap().contains("/opt/ccmem"));
}

/// ccmem's own logs and caches are written like everything else: never through a link planted
/// in their folder. `hook instructions-loaded` appends to `~/.cache/ccmem/sessions/ID.jsonl`; a
/// link there to a file of the user's is refused, and the file is unchanged.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn the_session_log_is_never_appended_through_a_link() {
    let w = world();
    let victim = w.path("outside/victim.txt");
    let sessions = w.path("home/.cache/ccmem/sessions");
    fs::create_dir_all(&sessions).unwrap();
    chmod(&sessions, 0o700);
    std::os::unix::fs::symlink(&victim, sessions.join("s-1.jsonl")).unwrap();
    let loaded = serde_json::json!({"session_id": "s-1", "cwd": w.path("proj"),
        "hook_event_name": "InstructionsLoaded", "file_path": w.path("proj/CLAUDE.md"),
        "memory_type": "Project", "load_reason": "session_start"});
    let before = everything(&w);
    let out = w
        .cmd(&["hook", "instructions-loaded"])
        .stdin(loaded.to_string())
        .run();
    assert!(out.status.code().is_some(), "{}", text(&out));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(everything(&w), before, "{}", text(&out));
}

/// A read-only MEMORY.md, hub or settings file is refused with its name (the dry run too),
/// never replaced.
#[test]
fn read_only_targets_are_refused_naming_the_file() {
    for target in ["MEMORY.md", "reference_0_hub.md"] {
        let w = world();
        let mem = w.path("mem");
        if target != "MEMORY.md" {
            put(&mem.join(target), "# User hub\n");
        }
        chmod(&mem.join(target), 0o444);
        w.refuse_all(
            &[
                &["tier", "../mem", "--target-lines", "8"],
                &["tier", "../mem", "--target-lines", "8", "--write"],
            ],
            &[&format!("{target}: is read-only (mode 0444)")],
        );
    }
    let w = world();
    let settings = w.path("home/.claude/settings.json");
    put(&settings, "{}\n");
    chmod(&settings, 0o444);
    let run = w
        .run(&["hook", "install", "--user", "--yes", "--bin", "/opt/ccmem"])
        .code(2);
    snapshot!("hook_install_into_read_only_settings", run);
    assert_eq!(fs::read(&settings).unwrap(), b"{}\n");
}

/// `tier --write`, then `add`, then `hook install`: each is undone in reverse order, byte for
/// byte (`ccmem undo --hook project`, then `ccmem undo` twice), `--list` shows the stack, and
/// redo walks it back up. An undo whose file changed since is refused, naming it.
#[test]
fn undo_is_a_stack_over_tier_add_and_hook_install() {
    let w = world();
    let mem = w.path("mem");
    let settings = w.path("proj/.claude/settings.json");
    put(
        &settings,
        "{\n    \"model\" :  \"opus\",\t\"n\": 1e400\n}\n",
    );
    let snap = || records::snapshot(&mem, &mem.join(".ccmem"));
    let s0 = snap();
    let p0 = fs::read(&settings).unwrap();
    let ok = |args: &[&str]| {
        let out = w.run(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        text(&out)
    };
    ok(&["tier", "../mem", "--write", "--target-lines", "8"]);
    let s1 = snap();
    ok(&[
        "add",
        "../mem",
        "--type",
        "user",
        "--topic",
        "late",
        "--description",
        "d",
        "--force",
    ]);
    let s2 = snap();
    ok(&[
        "hook",
        "install",
        "--project",
        "--yes",
        "--bin",
        "/opt/ccmem",
    ]);
    assert_ne!(fs::read(&settings).unwrap(), p0);
    assert!(s0 != s1 && s1 != s2);
    let list = ok(&["undo", "../mem", "--list"]);
    let add = list.find("1. `add user_late.md`").expect(&list);
    let tier = list.find("2. `tier`").expect(&list);
    assert!(add < tier, "{list}");
    ok(&["undo", "--hook", "project"]);
    assert_eq!(fs::read(&settings).unwrap(), p0);
    assert!(ok(&["undo", "../mem"]).contains("undid `add user_late.md`"));
    assert_eq!(snap(), s1);
    assert!(ok(&["undo", "../mem"]).contains("undid `tier`"));
    assert_eq!(snap(), s0);
    assert!(ok(&["undo", "../mem"]).contains("nothing to undo"));
    assert_eq!(snap(), s0);
    ok(&["undo", "../mem", "--redo"]);
    assert_eq!(snap(), s1);
    ok(&["undo", "../mem", "--redo"]);
    assert_eq!(snap(), s2);
    // A hub rewritten since: the undo of the add is fine (it did not touch it), the tier's not.
    ok(&["undo", "../mem"]);
    let hub = fs::read_dir(&mem)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("_hub.md"))
        .unwrap();
    let rewritten = fs::read_to_string(&hub).unwrap().replace("fact", "FACT");
    fs::write(&hub, &rewritten).unwrap();
    snapshot!(
        "undo_of_a_hub_changed_since",
        w.run(&["undo", "../mem"]).code(2)
    );
    assert_eq!(fs::read_to_string(&hub).unwrap(), rewritten);
}

/// The false "nothing was written": MEMORY.md swapped for a link while `tier --write`
/// swaps its files in. The link is put back, every file tier had written is restored, no
/// journal is left, and the error says exactly that.
// Unix only: symbolic links.
#[cfg(unix)]
#[test]
fn memory_md_swapped_for_a_link_mid_write_is_reported_exactly() {
    let w = world();
    let mem = w.path("mem");
    let journal = mem.join(".ccmem/journal.json");
    let before = records::snapshot(&mem, &mem.join(".ccmem"));
    let child =
        (w.cmd(&["tier", "--write", "--target-lines", "8"]).arg(&mem)).spawn_until(400, &journal);
    let index = mem.join("MEMORY.md");
    let kept = w.path("outside/MEMORY.md");
    fs::rename(&index, &kept).unwrap();
    std::os::unix::fs::symlink(&kept, &index).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("MEMORY.md: became a symbolic link while ccmem was replacing it")
            && said.contains("was restored: nothing is changed")
            && !said.contains("nothing was written"),
        "{said}"
    );
    assert!(!journal.exists(), "no journal is left pending");
    assert!(fs::symlink_metadata(&index).unwrap().is_symlink());
    let mut after = records::snapshot(&mem, &mem.join(".ccmem"));
    after.remove(Path::new("MEMORY.md"));
    let mut expected = before.clone();
    expected.remove(Path::new("MEMORY.md"));
    assert_eq!(after, expected, "every other file as before");
    assert_eq!(
        fs::read(&kept).unwrap(),
        before[Path::new("MEMORY.md")].2,
        "the other writer's file untouched"
    );
}

/// A hostile path, as records carry them.
fn path_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a.md".to_owned()),
        Just("MEMORY.md".to_owned()),
        Just("x".to_owned()),
        Just("new.md".to_owned()),
        Just(String::new()),
        Just(".".to_owned()),
        Just("..".to_owned()),
        Just(".ccmem".to_owned()),
        Just(".ccmem/backup".to_owned()),
        Just("a\\b".to_owned()),
        Just("a\u{0}b".to_owned()),
        Just("../../outside/victim.txt".to_owned()),
        Just(".git/hooks/pre-commit".to_owned()),
        Just("../.git/hooks/pre-commit".to_owned()),
        Just("{ROOT}/outside/victim.txt".to_owned()),
        Just("{ROOT}/outside/secret.md".to_owned()),
        Just("{ROOT}/outside/run.sh".to_owned()),
        Just("{ROOT}/outside/empty".to_owned()),
        Just("{ROOT}/repo/.git/hooks/pre-commit".to_owned()),
        Just("{ROOT}/repo/mem/a.md".to_owned()),
        Just("{ROOT}/repo/mem/../../outside/victim.txt".to_owned()),
        Just("/etc/hostname".to_owned()),
        "[a-z./\\\\]{0,12}",
    ]
}

fn temp_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(".a.md.ccmem-tmp.abc123".to_owned()),
        Just(".victim.txt.ccmem-tmp.abc123".to_owned()),
        Just("{ROOT}/outside/run.sh".to_owned()),
        Just("../../outside/run.sh".to_owned()),
        path_text(),
    ]
}

fn hash_value() -> impl Strategy<Value = serde_json::Value> {
    let known: Vec<serde_json::Value> = records::CONTENTS
        .iter()
        .map(|(_, b)| Hash::of(b).as_str().into())
        .collect();
    prop_oneof![
        4 => proptest::sample::select(known),
        1 => Just(serde_json::Value::Null),
        1 => Just("../../../outside/victim.txt".into()),
        1 => "[0-9a-f]{64}".prop_map(serde_json::Value::from),
        1 => "[A-Za-z0-9./]{0,70}".prop_map(serde_json::Value::from),
    ]
}

fn entry() -> impl Strategy<Value = serde_json::Value> {
    (
        path_text(),
        prop::option::of(path_text()),
        hash_value(),
        hash_value(),
        prop::option::of(temp_text()),
        prop_oneof![Just(0o644u32), Just(0o755), Just(0o4755), any::<u32>()],
        hash_value(),
    )
        .prop_map(|(name, path, old, new, temp, mode, interim)| {
            let mut e = serde_json::json!({"name": name, "old": old, "new": new,
                "temp": temp, "mode": mode, "interim": interim});
            if let Some(p) = path {
                e["path"] = p.into();
            }
            e
        })
}

fn record() -> impl Strategy<Value = serde_json::Value> {
    (
        prop_oneof![Just(1u32), Just(2), Just(3), any::<u32>()],
        prop_oneof![Just("1"), Just("2"), Just("")],
        prop_oneof![Just("pending"), Just("committed"), Just("rolled-back")],
        prop::option::of(prop_oneof![Just("1"), Just("2")]),
        prop::option::of(prop_oneof![Just("1"), Just("2")]),
        prop::collection::vec(
            prop_oneof![
                Just("{ROOT}/outside/empty".to_owned()),
                Just("{ROOT}/repo/mem".to_owned()),
                Just("{ROOT}/repo".to_owned()),
                Just("/".to_owned()),
                path_text(),
            ],
            0..3,
        ),
        prop::collection::vec(entry(), 0..5),
    )
        .prop_map(|(version, id, outcome, reverses, redoes, dirs, entries)| {
            serde_json::json!({"version": version, "id": id, "op": "tier", "started": "s",
                "outcome": outcome, "undo_of": reverses.map(|_| "tier"),
                "reverses": reverses, "redoes": redoes, "created_dirs": dirs,
                "entries": entries})
        })
}

/// Record bytes: structured (valid JSON, hostile values) or raw.
fn bytes_of(r: impl Strategy<Value = serde_json::Value>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => r.prop_map(|v| v.to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..200),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// For any journal and undo record bytes, recovery, undo, redo, discard and the readers
    /// change nothing outside the memory folder.
    #[test]
    fn records_never_change_anything_outside_the_folder(
        journal in prop::option::of(bytes_of(record())),
        history in prop::option::of(bytes_of(
            (prop::collection::vec(record(), 0..3), prop::collection::vec(record(), 0..2))
                .prop_map(|(done, undone)| serde_json::json!({"version": 3, "done": done,
                    "undone": undone})),
        )),
        last in prop::option::of(bytes_of(record())),
    ) {
        let mut files: Vec<(&str, &[u8])> = Vec::new();
        for (name, b) in [("journal.json", &journal), ("history.json", &history),
            ("last.json", &last)] {
            if let Some(b) = b {
                files.push((name, b));
            }
        }
        records::check(&files);
    }
}
