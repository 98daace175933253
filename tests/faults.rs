//! The fault-injection harness (issue 14): every write command is killed with SIGKILL before each
//! of its write system calls in turn (`CCMEM_FAULT_AT=k`, a fault point compiled into debug
//! builds), and after each kill the state must be exactly the old or the new one, as the next
//! command (and [`ccmem::write::preview`], which readers use) sees it, with no temp file left.
//! Plus the concurrent-writer tests: the check-to-swap window of `tier --write` held open
//! (`CCMEM_TEST_WINDOW_DIR`) while another process appends a line (no line is ever lost), or
//! widened (`CCMEM_TEST_DELAY_MS`) while it rewrites one (their version is kept and the tier
//! rolled back).

mod common;

use common::cli::{Run, Test, snapshot};

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

type Snapshot = BTreeMap<String, Vec<u8>>;

/// Every user file of the folder (ccmem's own `.ccmem/` state excluded; temp files included, so
/// a leftover one fails the comparison).
fn snapshot(dir: &Path) -> Snapshot {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != ".ccmem")
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).unwrap_or_default())
        })
        .collect()
}

/// What the folder will hold once the pending operation is recovered.
fn predicted(dir: &Path) -> Snapshot {
    let mut snap = snapshot(dir);
    snap.retain(|n, _| !n.contains(".ccmem-tmp"));
    if let Some(p) = ccmem::write::preview(dir).unwrap() {
        for f in p.files {
            match f.content {
                Some(b) => snap.insert(f.name, b),
                None => snap.remove(&f.name),
            };
        }
    }
    snap
}

fn put(dir: &Path, name: &str, text: &str) {
    fs::write(dir.join(name), text).unwrap();
}

/// 3 groups × 5 entries, a crown, CRLF lines and CJK text; over an 8-line target.
fn library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut index = String::from("# 記憶\r\n\r\n- ⭐ [Crown](feedback_crown.md) — 必読\r\n");
    put(
        dir.path(),
        "feedback_crown.md",
        "---\nname: crown\n---\nbody\n",
    );
    for g in ["Build", "ツール", "Deploy"] {
        index.push_str(&format!("\r\n## {g}\r\n"));
        for i in 0..5 {
            let file = format!("project_{}{i}.md", g.to_lowercase());
            index.push_str(&format!("- [{g} {i}]({file}) — fact {i} 日本語\r\n"));
            put(dir.path(), &file, &format!("fact {i}\n"));
        }
    }
    put(dir.path(), "MEMORY.md", &index);
    dir
}

fn ccmem(args: &[&str], dir: &Path) -> Test {
    Test::new()
        .args(args)
        .arg(dir)
        .env("CCMEM_NOW", "2026-11-29T12:00:00Z")
        .redact(dir.to_string_lossy(), "[DIR]")
}

const TIER: &[&str] = &["tier", "--write", "--target-lines", "8"];
const ADD: &[&str] = &[
    "add",
    "--type",
    "project",
    "--topic",
    "x",
    "--description",
    "a new fact",
    "--why",
    "it matters",
];

fn killed_at(args: &[&str], dir: &Path, k: usize) -> Run {
    ccmem(args, dir).env("CCMEM_FAULT_AT", k.to_string()).run()
}

/// Kills `args` before each write call in turn on a fresh `setup()` folder. After each kill the
/// state (as recovery will leave it) must be `old` or `new`; `finish` then runs the next command
/// and must leave `end`. Returns the number of trials.
fn kill_everywhere(
    args: &[&str],
    setup: &dyn Fn() -> tempfile::TempDir,
    finish: &[&str],
    end_is_old: bool,
) -> usize {
    let reference = setup();
    let old = snapshot(reference.path());
    ccmem(args, reference.path()).run().code(0);
    let new = snapshot(reference.path());
    assert_ne!(old, new);
    let mut seen = (0, 0);
    for k in 1.. {
        let dir = setup();
        let out = killed_at(args, dir.path(), k);
        if out.status.success() {
            assert_eq!(snapshot(dir.path()), new, "{args:?} k={k}: no fault left");
            assert!(k > 5, "the fault points never fired");
            eprintln!("{args:?}: {} kill trials ({seen:?} old/new)", k - 1);
            return k - 1;
        }
        assert_eq!(
            out.status.code(),
            None,
            "{args:?} k={k}: not killed: {out:?}"
        );
        let p = predicted(dir.path());
        assert!(p == old || p == new, "{args:?} k={k}: neither old nor new");
        if p == old {
            seen.0 += 1;
        } else {
            seen.1 += 1;
        }
        let fin = ccmem(finish, dir.path()).run();
        let after = snapshot(dir.path());
        let end = if end_is_old { &old } else { &new };
        assert!(
            &after == end,
            "{args:?} k={k}: `{finish:?}` left the wrong state: {}",
            String::from_utf8_lossy(&fin.stderr)
        );
        assert!(!dir.path().join(".ccmem/journal.json").exists());
    }
    unreachable!()
}

#[test]
fn tier_write_killed_at_every_write_call_recovers_old_or_new() {
    // `undo` recovers first: a rolled-forward tier is then undone, a rolled-back one was never
    // there ("nothing to undo"), so the folder ends as it began.
    let n = kill_everywhere(TIER, &library, &["undo"], true);
    assert!(n > 20, "{n}");
}

#[test]
fn add_killed_at_every_write_call_recovers_old_or_new() {
    let fresh = || {
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), "MEMORY.md", "- [a](user_a.md) — a\r\n");
        put(dir.path(), "user_a.md", "a\n");
        dir
    };
    kill_everywhere(ADD, &fresh, &["undo"], true);
}

#[test]
fn undo_killed_at_every_write_call_recovers_old_or_new() {
    let tiered = || {
        let dir = library();
        ccmem(TIER, dir.path()).run().code(0);
        dir
    };
    // A killed undo either finished (the next undo says so) or is rolled back and done again.
    kill_everywhere(&["undo"], &tiered, &["undo"], false);
}

/// Runs `tier --write` on [`library`] with each check-to-swap window held open
/// (`CCMEM_TEST_WINDOW_DIR`): in each window `append_in(n)` says, another writer appends a line
/// to MEMORY.md, then the window closes. Returns the run and the lines appended.
fn tier_with_appends(dir: &Path, append_in: impl Fn(usize) -> bool) -> (Run, Vec<String>) {
    use std::io::Write;
    let signals = tempfile::tempdir().unwrap();
    let tier = ccmem(TIER, dir).env("CCMEM_TEST_WINDOW_DIR", signals.path());
    let mut child = (tier.command())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    'windows: for n in 1.. {
        let open = signals.path().join(format!("open-{n}"));
        while !open.exists() {
            if child.try_wait().unwrap().is_some() {
                break 'windows;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if append_in(n) {
            let line =
                format!("- [appended in window {n}](feedback_crown.md) — by another writer\n");
            let memory = dir.join("MEMORY.md");
            let mut f = fs::OpenOptions::new().append(true).open(memory).unwrap();
            f.write_all(line.as_bytes()).unwrap();
            lines.push(line);
        }
        fs::write(signals.path().join(format!("closed-{n}")), "").unwrap();
    }
    (tier.outcome(child.wait_with_output().unwrap()), lines)
}

/// Every line of `lines` is in exactly one file of `dir`.
fn each_once(dir: &Path, lines: &[String], run: &Run) {
    let all: Vec<String> = snapshot(dir)
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    for l in lines {
        let n: usize = all.iter().map(|t| t.matches(l.trim_end()).count()).sum();
        assert_eq!(n, 1, "{l:?} found {n} times\n{run:?}\n{all:#?}");
    }
}

#[test]
fn a_line_appended_in_the_rename_window_is_never_lost() {
    // Each window of `tier --write` (between a target's last check and its swap) is held open
    // while another writer appends a line to MEMORY.md: no timing, so no round can miss the
    // window (and pass without testing anything) or land before tier reads the file.
    let dir = library();
    let (run, lines) = tier_with_appends(dir.path(), |_| true);
    let windows = lines.len();
    assert!(windows >= 2, "{windows} windows\n{run:?}");
    // A line tier did not read is merged in (or kept): in exactly one file.
    let run = run.code(0);
    snapshot!("appended_in_every_window", run);
    each_once(dir.path(), &lines, &run);
    // And one line in one window, for each window in turn.
    for k in 1..=windows {
        let dir = library();
        let (run, lines) = tier_with_appends(dir.path(), |n| n == k);
        assert_eq!(lines.len(), 1, "window {k}\n{run:?}");
        each_once(dir.path(), &lines, &run.code(0));
    }
}

/// Issue 14 case 9, the no-merge branch, as a user meets it: another writer rewrites a line of
/// MEMORY.md (not an addition) after `tier --write` checked it and before its swap (the window
/// widened by `CCMEM_TEST_DELAY_MS`). Their version must survive byte for byte, every file of
/// the tier must be restored, the error must say so and name a next step that works, and `undo`
/// must not reach past the rolled-back tier into the operation before it without saying so first
/// (the tier is not in the undo history: the add before it is next).
#[test]
fn a_line_rewritten_in_the_window_is_kept_and_tier_rolls_back() {
    let dir = library();
    let memory = dir.path().join("MEMORY.md");
    let journal = dir.path().join(".ccmem/journal.json");
    // An earlier operation, which `undo` must leave alone afterwards.
    ccmem(ADD, dir.path()).run().code(0);
    let before = snapshot(dir.path());
    // The pending journal is written after every target was checked and before the first swap,
    // each swap waiting 400 ms: rewrite a line in place as soon as it appears.
    let tier = ccmem(TIER, dir.path()).redact_regex("sha256 [0-9a-f]+…", "sha256 [HASH]…");
    let child = tier.spawn_until(400, &journal);
    let text = fs::read_to_string(&memory).unwrap();
    let theirs = text.replacen("fact 2 日本語", "fact 2, corrected by another writer", 1);
    assert_ne!(theirs, text);
    fs::write(&memory, &theirs).unwrap();
    let out = tier.outcome(child.wait_with_output().unwrap()).code(2);
    snapshot!("rewritten_in_the_window_tier", out);
    let stderr = out.stderr();
    // The hashes it names are the one tier read and the one it found.
    let hash_after = |word: &str| {
        let at = stderr.find(word).unwrap() + word.len();
        stderr[at..].split('…').next().unwrap().to_owned()
    };
    assert_ne!(
        hash_after("expected sha256 "),
        hash_after("found sha256 "),
        "{stderr}"
    );
    // Their content exactly; everything else as before the tier; nothing of ccmem's left over.
    assert_eq!(fs::read_to_string(&memory).unwrap(), theirs);
    let mut expected = before.clone();
    expected.insert("MEMORY.md".into(), theirs.clone().into_bytes());
    assert_eq!(snapshot(dir.path()), expected);
    assert!(!journal.exists());
    // `undo` does not undo past the rolled-back tier: the add before it stays, and is next.
    snapshot!(
        "rewritten_in_the_window_undo",
        ccmem(&["undo"], dir.path()).run()
    );
    snapshot!(
        "rewritten_in_the_window_undo_list",
        ccmem(&["undo", "--list"], dir.path()).run()
    );
    assert_eq!(snapshot(dir.path()), expected);
    // The next step it names works, and keeps the corrected line (moved or not, once).
    ccmem(TIER, dir.path()).run().code(0);
    let all: String = snapshot(dir.path())
        .values()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert_eq!(
        all.matches("fact 2, corrected by another writer").count(),
        1
    );
    assert!(!all.contains("[Build 2](project_build2.md) — fact 2 日本語"));
}

/// A home whose `~/.claude/settings.json` holds `text` (`None`: no `~/.claude` at all).
fn home_with(text: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("home")).unwrap();
    if let Some(t) = text {
        fs::create_dir_all(dir.path().join("home/.claude")).unwrap();
        fs::write(dir.path().join("home/.claude/settings.json"), t).unwrap();
    }
    dir
}

fn hook_cmd(root: &Path, args: &[&str]) -> Test {
    Test::at(root)
        .arg("hook")
        .args(args)
        .args(["--yes", "--bin", "/opt/ccmem/bin/ccmem"])
        .env("XDG_STATE_HOME", root.join("state"))
        .env_remove("NO_COLOR")
        .env_remove("CCMEM_NOW")
}

/// `~/.claude` as the user sees it (absent: `None`).
fn claude_dir(root: &Path) -> Option<Snapshot> {
    root.join("home/.claude")
        .is_dir()
        .then(|| snapshot(&root.join("home/.claude")))
}

/// Kills `hook ARGS` before each write call in turn; the settings file must always be the old or
/// the new one (it is replaced by one atomic swap), and `finish` must end at `end`.
fn kill_settings_everywhere(
    args: &[&str],
    setup: &dyn Fn() -> tempfile::TempDir,
    finish: &[&str],
    end_is_old: bool,
) -> usize {
    let reference = setup();
    let old = claude_dir(reference.path());
    hook_cmd(reference.path(), args).run().code(0);
    let new = claude_dir(reference.path());
    assert_ne!(old, new);
    for k in 1.. {
        let dir = setup();
        let out = hook_cmd(dir.path(), args)
            .env("CCMEM_FAULT_AT", k.to_string())
            .run();
        if out.status.success() {
            assert_eq!(claude_dir(dir.path()), new, "{args:?} k={k}: no fault left");
            eprintln!("hook {args:?}: {} kill trials", k - 1);
            return k - 1;
        }
        assert_eq!(
            out.status.code(),
            None,
            "{args:?} k={k}: not killed: {out:?}"
        );
        let file = |s: &Option<Snapshot>| s.as_ref().and_then(|m| m.get("settings.json").cloned());
        let now = file(&claude_dir(dir.path()));
        assert!(
            now == file(&old) || now == file(&new),
            "{args:?} k={k}: settings.json is neither old nor new"
        );
        hook_cmd(dir.path(), finish).run().code(0);
        let end = if end_is_old { &old } else { &new };
        assert_eq!(
            &claude_dir(dir.path()),
            end,
            "{args:?} k={k}: after {finish:?}"
        );
    }
    unreachable!()
}

const SETTINGS: &str = "{\n  \"model\": \"opus\",\n  \"n\": 1e400\n}\n";

#[test]
fn hook_install_killed_at_every_write_call_leaves_old_or_new_and_no_leftovers() {
    kill_settings_everywhere(
        &["install"],
        &|| home_with(Some(SETTINGS)),
        &["install"],
        false,
    );
    // Into a home without ~/.claude: the folder install creates is part of the operation.
    kill_settings_everywhere(&["install"], &|| home_with(None), &["install"], false);
}

#[test]
fn hook_uninstall_killed_at_every_write_call_leaves_old_or_new_and_no_leftovers() {
    let installed = || {
        let dir = home_with(Some(SETTINGS));
        hook_cmd(dir.path(), &["install"]).run().code(0);
        dir
    };
    kill_settings_everywhere(&["uninstall"], &installed, &["uninstall"], false);
}
