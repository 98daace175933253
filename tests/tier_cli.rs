//! Whole-process tests of `ccmem tier`, `add` and `undo`: undo round trips, the lock, refusals
//! (fault injection is in `faults.rs`). Each runs in a sandbox whose memory folder is `mem/`.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use common::cli::{Run, Test, snapshot};

type Snapshot = BTreeMap<String, Vec<u8>>;

/// Every user file of the folder (ccmem's own `.ccmem*` state excluded).
fn snapshot(dir: &Path) -> Snapshot {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with(".ccmem"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).unwrap())
        })
        .collect()
}

/// `ccmem add`'s arguments for one small user memory.
const ADD_TZ: [&str; 6] = [
    "--type",
    "user",
    "--topic",
    "tz",
    "--description",
    "Lives in UTC+9",
];

fn put(dir: &Path, name: &str, text: &str) {
    fs::write(dir.join(name), text).unwrap();
}

/// `mem/` holding an index of 3 groups × 5 entries, a crown, CRLF lines and CJK text; over an
/// 8-line target.
fn library() -> (Test, std::path::PathBuf) {
    let t = Test::new().dir("mem");
    let dir = t.path("mem");
    let mut index = String::from("# 記憶\r\n\r\n- ⭐ [Crown](feedback_crown.md) — 必読\r\n");
    put(&dir, "feedback_crown.md", "---\nname: crown\n---\nbody\n");
    for g in ["Build", "ツール", "Deploy"] {
        index.push_str(&format!("\r\n## {g}\r\n"));
        for i in 0..5 {
            let file = format!("project_{}{i}.md", g.to_lowercase());
            index.push_str(&format!("- [{g} {i}]({file}) — fact {i} 日本語\r\n"));
            put(&dir, &file, &format!("fact {i}\n"));
        }
    }
    put(&dir, "MEMORY.md", &index);
    put(
        &dir,
        "reference_deploy_hub.md",
        "# Deploy hub\n- [Deploy 0](project_deploy0.md)",
    );
    (t, dir)
}

/// An empty `mem/`.
fn folder() -> (Test, std::path::PathBuf) {
    let t = Test::new().dir("mem");
    let dir = t.path("mem");
    (t, dir)
}

/// `ccmem tier mem` with the default target.
fn tier_default(t: &Test) -> Test {
    t.ccmem(["tier", "mem"])
}

/// `ccmem tier mem` with an 8-line target (what [`library`] is over).
fn tier(t: &Test) -> Test {
    tier_default(t).args(["--target-lines", "8"])
}

/// `ccmem undo mem`.
fn undo(t: &Test) -> Run {
    t.ccmem(["undo", "mem"]).run()
}

#[test]
fn write_then_undo_round_trips_byte_for_byte() {
    let (t, dir) = library();
    let old = snapshot(&dir);
    snapshot!("write", tier(&t).arg("--write").run().code(0));
    let new = snapshot(&dir);
    assert_ne!(old, new);
    assert!(new.contains_key("reference_build_hub.md"));
    // The existing hub is appended to, never rewritten.
    assert!(new["reference_deploy_hub.md"].starts_with(&old["reference_deploy_hub.md"]));
    undo(&t).code(0);
    assert_eq!(snapshot(&dir), old);
    snapshot!("undo_twice", undo(&t).code(0));
    assert_eq!(snapshot(&dir), old, "undo twice is one undo");
    t.ccmem(["undo", "--redo", "mem"]).run().code(0);
    assert_eq!(snapshot(&dir), new, "--redo applies it again");
}

#[test]
fn a_held_lock_is_a_clear_error_and_nothing_is_written() {
    let (t, dir) = library();
    let old = snapshot(&dir);
    let mut holder = Command::new("flock")
        .arg(&dir)
        .args(["sleep", "30"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = tier(&t).arg("--write").run();
    holder.kill().unwrap();
    holder.wait().unwrap();
    snapshot!("held_lock", out.code(2));
    assert_eq!(snapshot(&dir), old);
}

/// Every name in the folder, ccmem's own state included.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn broken_links_long_lines_and_home_pointers_never_block() {
    let (t, dir) = library();
    let index = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    let long = "x".repeat(230);
    let index = index.replacen(
        "\r\n## Build\r\n",
        &format!(
            "\r\n- Runbook: [deploy](~/notes/deploy.md)\r\n- [a](a.md\r\n## Build\r\n- [Gone](project_gone.md) — {long}\r\n- [Lost](project_lost.md) — renamed\r\n"
        ),
        1,
    );
    put(&dir, "MEMORY.md", &index);
    snapshot!(
        "broken_links_never_block",
        tier(&t).arg("--write").run().code(0)
    );
    let hub = fs::read_to_string(dir.join("reference_build_hub.md")).unwrap();
    assert!(
        hub.contains(&format!("- [Gone](project_gone.md) — {long}\r\n")),
        "{hub}"
    );
    let index = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert!(
        index.contains("- Runbook: [deploy](~/notes/deploy.md)\r\n- [a](a.md\r\n"),
        "{index}"
    );
}

#[test]
fn impossible_targets_are_refused_and_create_nothing() {
    let (t, dir) = library();
    let names = listing(&dir);
    let old = snapshot(&dir);
    // Names the target that would work.
    let out = tier_default(&t)
        .args(["--write", "--target-lines", "2"])
        .run();
    snapshot!("impossible_target", out.code(2));
    assert_eq!(snapshot(&dir), old);
    assert_eq!(
        listing(&dir),
        names,
        "a refusal creates nothing, not even state"
    );
}

/// An index linked to a file of the same folder is written through (the link kept), and the dry
/// run names the file really written; one linked out of the folder is refused alike in the dry
/// run, naming where it leads, and nothing is written through it.
// Unix only: symbolic links (see src/sys/mod.rs for Windows).
#[cfg(unix)]
#[test]
fn a_symlinked_index_is_written_through_only_inside_the_folder() {
    let (t, dir) = library();
    let real = dir.join("MEMORY.txt");
    fs::rename(dir.join("MEMORY.md"), &real).unwrap();
    std::os::unix::fs::symlink("MEMORY.txt", dir.join("MEMORY.md")).unwrap();
    let old = fs::read(&real).unwrap();
    snapshot!("symlinked_index_dry_run", tier(&t).run().code(0));
    let out = tier(&t).arg("--write").run().code(0);
    assert!(!out.stdout().contains('✗'), "{}", out.stdout());
    let link = dir.join("MEMORY.md");
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("MEMORY.txt"));
    let new = fs::read_to_string(&real).unwrap();
    assert!(new.contains("reference_build_hub.md"), "{new}");
    undo(&t).code(0);
    assert_eq!(fs::read(&real).unwrap(), old);
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());

    // Out of the folder: refused, dry run included, and the file it leads to is untouched.
    let outside = t.path("elsewhere/MEMORY.md");
    fs::create_dir_all(outside.parent().unwrap()).unwrap();
    fs::rename(&real, &outside).unwrap();
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let names = listing(&dir);
    snapshot!("symlinked_index_outside", refused_alike(&tier(&t)));
    assert_eq!(fs::read(&outside).unwrap(), old);
    assert_eq!(listing(&dir), names);
}

// Unix only: permission bits (see src/sys/mod.rs for Windows).
#[cfg(unix)]
#[test]
fn new_hubs_take_the_librarys_mode_and_a_modified_stamp() {
    use std::os::unix::fs::PermissionsExt;
    let (t, dir) = library();
    for name in listing(&dir) {
        fs::set_permissions(dir.join(name), fs::Permissions::from_mode(0o600)).unwrap();
    }
    let write = tier(&t)
        .arg("--write")
        .env("CCMEM_NOW", "2026-12-01T09:00:00Z");
    write.run().code(0);
    let hub = dir.join("reference_build_hub.md");
    let mode = fs::metadata(&hub).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the library's mode, not the umask's");
    // No file says which spec the library follows: the client's own, which it writes.
    snapshot!("new_hub", fs::read_to_string(&hub).unwrap());
    let v = t.ccmem(["audit", "--json", "mem"]).run().json();
    let on_hubs: Vec<&serde_json::Value> = (v["diagnostics"].as_array().unwrap().iter())
        .filter(|d| {
            let path = d["path"].as_str().unwrap();
            path.ends_with("_hub.md") && !path.ends_with("reference_deploy_hub.md")
        })
        .collect();
    assert!(
        on_hubs.is_empty(),
        "the hubs tier wrote are clean: {on_hubs:?}"
    );
}

#[test]
fn add_past_the_cap_writes_nothing_exits_one_and_says_what_makes_room() {
    let (t, dir) = folder();
    put(&dir, "MEMORY.md", &"- a rule that loads\n".repeat(210));
    let add = |extra: &[&str]| t.ccmem(["add", "mem"]).args(ADD_TZ).args(extra).run();
    let names = listing(&dir);
    // Rule lines fill it, and tier keeps rule lines: tier cannot make room, CLAUDE.md can.
    snapshot!("add_past_the_cap_rules", add(&[]).code(1));
    assert_eq!(listing(&dir), names, "nothing written, no state either");
    // Entry lines fill it: tier moves them into hubs, so tier is the way.
    let entries: String = (0..210)
        .map(|i| format!("- [Entry {i}](project_e{i}.md) — about {i}\n"))
        .collect();
    fs::write(dir.join("MEMORY.md"), &entries).unwrap();
    snapshot!("add_past_the_cap_entries", add(&["--json"]).code(1));
    let names = listing(&dir);
    add(&["--dry-run"]).code(1);
    assert_eq!(listing(&dir), names);
    fs::write(dir.join("MEMORY.md"), "# M\n").unwrap();
    let names = listing(&dir);
    add(&["--dry-run"]).code(0);
    assert_eq!(listing(&dir), names, "a dry run creates nothing");
}

// Unix only: symbolic links and FIFOs (see src/sys/mod.rs for Windows).
#[cfg(unix)]
#[test]
fn unreadable_topics_never_block_and_are_reported_and_left_untouched() {
    let (t, dir) = library();
    let latin1 = b"---\nname: cafe\n---\nLikes caf\xe9 au lait\n".to_vec();
    fs::write(dir.join("user_latin1.md"), &latin1).unwrap();
    let t = t.fifo("mem/project_pipe.md");
    std::os::unix::fs::symlink("nowhere.md", dir.join("project_gone.md")).unwrap();
    snapshot!("unreadable_topics_dry_run", tier(&t).run().code(0));
    snapshot!(
        "unreadable_topics_write",
        tier(&t).arg("--write").run().code(0)
    );
    assert!(
        fs::read_to_string(dir.join("MEMORY.md"))
            .unwrap()
            .contains("reference_build_hub.md")
    );
    assert_eq!(fs::read(dir.join("user_latin1.md")).unwrap(), latin1);
    let pipe = fs::symlink_metadata(dir.join("project_pipe.md")).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&pipe.file_type()));
    let gone = dir.join("project_gone.md");
    assert_eq!(fs::read_link(&gone).unwrap(), Path::new("nowhere.md"));
}

/// Runs `cmd` as a dry run and with `--write`: both must refuse (exit 2) with the same words.
/// Returns the `--write` run.
fn refused_alike(cmd: &Test) -> Run {
    let dry = cmd.run().code(2);
    let write = cmd.clone().arg("--write").run().code(2);
    assert_eq!(
        dry.stderr(),
        write.stderr(),
        "the dry run refuses as --write does"
    );
    write
}

#[test]
fn a_hub_tier_would_write_but_cannot_read_is_refused_alike_in_the_dry_run() {
    let (t, dir) = library();
    let t = t.fifo("mem/reference_build_hub.md");
    let old = listing(&dir);
    snapshot!("hub_fifo", refused_alike(&tier(&t)));
    assert_eq!(listing(&dir), old);
}

/// A hub that is a link to another file of the folder (one file under two names) is refused;
/// so is one linked out of the folder (e.g. to `~/.claude/CLAUDE.md`): never written through.
// Unix only: symbolic links (see src/sys/mod.rs for Windows).
#[cfg(unix)]
#[test]
fn a_symlinked_hub_is_never_written_through_to_a_library_file_or_out_of_the_folder() {
    let (t, dir) = library();
    put(&dir, "elsewhere.md", "# hub kept elsewhere\n");
    let hub = dir.join("reference_build_hub.md");
    std::os::unix::fs::symlink("elsewhere.md", &hub).unwrap();
    let old = snapshot(&dir);
    snapshot!("hub_linked_inside", refused_alike(&tier(&t)));
    assert_eq!(snapshot(&dir), old);
    let global = t.path("home/.claude/CLAUDE.md");
    fs::create_dir_all(global.parent().unwrap()).unwrap();
    fs::write(&global, "# my global instructions\n").unwrap();
    fs::remove_file(&hub).unwrap();
    fs::remove_file(dir.join("elsewhere.md")).unwrap();
    std::os::unix::fs::symlink(&global, &hub).unwrap();
    let old = snapshot(&dir);
    snapshot!("hub_linked_outside", refused_alike(&tier(&t)));
    assert_eq!(fs::read(&global).unwrap(), b"# my global instructions\n");
    assert_eq!(snapshot(&dir), old);
}

#[test]
fn an_index_tier_cannot_read_says_what_to_do() {
    let (t, dir) = folder();
    put(&dir, "ccmem.toml", "[audit]\nmax-file-bytes = 1000\n");
    put(&dir, "MEMORY.md", &"- a rule that loads\n".repeat(100));
    snapshot!("index_too_large", tier(&t).run().code(2));
    fs::write(dir.join("MEMORY.md"), b"- caf\xe9\n").unwrap();
    snapshot!("index_not_utf8", tier(&t).run().code(2));
}

/// 150 plain rule lines (they stay) and 80 entries (they can move): the default target of 120
/// lines cannot be reached, the client's cap can.
fn rules_and_entries() -> (Test, std::path::PathBuf) {
    let (t, dir) = folder();
    let mut index = String::from("# Memory\n\n");
    for i in 0..150 {
        index.push_str(&format!("- Always run check {i} before committing\n"));
    }
    index.push_str("\n## Project\n");
    for i in 0..80 {
        let file = format!("project_fact{i:02}.md");
        index.push_str(&format!("- [Fact {i}]({file}) — fact {i}\n"));
        put(&dir, &file, &format!("fact {i}\n"));
    }
    put(&dir, "MEMORY.md", &index);
    (t, dir)
}

#[test]
fn an_unreachable_default_target_does_the_most_and_the_dry_run_says_what_write_does() {
    let (t, dir) = rules_and_entries();
    let old = snapshot(&dir);
    snapshot!("default_target_unreachable", tier_default(&t).run().code(0));
    assert_eq!(snapshot(&dir), old);
    // Asked for explicitly, the same target is refused, by the dry run as by --write; one hub
    // is never aggregated.
    let explicit = tier_default(&t).args(["--target-lines", "120"]);
    snapshot!("explicit_target_unreachable", refused_alike(&explicit));
    assert_eq!(snapshot(&dir), old);
    let out = tier_default(&t).arg("--write").run().code(0);
    snapshot!("default_target_unreachable_write", out);
    let index = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert!(index.lines().count() <= 200, "{index}");
    assert!(!index.contains("More hubs"), "{index}");
}

#[test]
fn dry_run_writes_nothing_and_check_exits_one_when_over() {
    let (t, dir) = library();
    let before = listing(&dir);
    snapshot!("dry_run", tier(&t).run().code(0));
    assert_eq!(listing(&dir), before, "no lock file either");
    tier(&t).arg("--check").run().code(1);
    let relaxed = tier_default(&t).args(["--check", "--target-lines", "100"]);
    relaxed.run().code(0);
    let v = tier(&t).arg("--json").run().code(0).json();
    assert_eq!(v["proof"]["checks"].as_array().unwrap().len(), 5);
}

#[test]
fn add_writes_entry_and_index_line_then_undo_removes_them() {
    let (t, dir) = folder();
    put(&dir, "MEMORY.md", "- [a](user_a.md) — lives in Tokyo\n");
    put(
        &dir,
        "user_a.md",
        "---\nname: a\ndescription: lives in Tokyo\n---\n",
    );
    let old = snapshot(&dir);
    let add = |topic: &str, desc: &str| {
        let args = [
            "--type",
            "feedback",
            "--topic",
            topic,
            "--description",
            desc,
        ];
        let t = t.ccmem(["add", "mem"]).args(args);
        t.args(["--why", "it broke", "--json"]).run()
    };
    let v = add("globs", "use ** for deep globs").code(0).json();
    assert_eq!(v["placed_in"], "MEMORY.md");
    // The client's own format in a library that follows no other.
    let entry = fs::read_to_string(dir.join("feedback_globs.md")).unwrap();
    snapshot!("add_topic", entry);
    let index = fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert!(index.ends_with("- [Globs](feedback_globs.md) — use ** for deep globs\n"));
    // A near-duplicate is a finding (exit 1), not a usage error.
    snapshot!(
        "add_near_duplicate_json",
        add("globs2", "use ** for deep globs").code(1)
    );
    undo(&t).code(0);
    assert_eq!(snapshot(&dir), old);
}

#[test]
fn add_creates_the_projects_first_memory_folder_and_a_dry_run_only_says_so() {
    let t = Test::new().dir("proj/.git").current_dir("proj");
    let home = t.home();
    let add = |extra: &[&str]| t.ccmem(["add"]).args(ADD_TZ).args(extra).run();
    // A refusal creates nothing, not even the folder.
    let bad = [
        "add",
        "--type",
        "user",
        "--topic",
        "MyTopic",
        "--description",
        "d",
    ];
    t.ccmem(bad).run().code(2);
    assert!(!home.join(".claude").exists());
    snapshot!("first_memory_dry_run", add(&["--dry-run"]).code(0));
    assert!(!home.join(".claude").exists(), "a dry run creates nothing");
    snapshot!("first_memory", add(&[]).code(0));
    let projects: Vec<_> = fs::read_dir(home.join(".claude/projects"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(projects.len(), 1);
    let memory = projects[0].path().join("memory");
    let index = fs::read_to_string(memory.join("MEMORY.md")).unwrap();
    assert!(index.contains("(user_tz.md)"), "{index}");
    assert!(memory.join("user_tz.md").is_file());
    // The client's own mkdir: the default mode under the umask, as a plain create_dir gets
    // (Unix only: permission bits).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let plain = home.join("plain");
        fs::create_dir(&plain).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&memory), mode(&plain));
    }
}

#[test]
fn add_near_duplicate_is_a_finding_with_a_typed_similar() {
    let (t, dir) = folder();
    put(
        &dir,
        "MEMORY.md",
        "- [Deploy](project_deploy.md) — staging first\n",
    );
    put(
        &dir,
        "project_deploy.md",
        "---\nname: deploy\ndescription: deploys go through the staging cluster first\nmetadata:\n  type: project\n---\nAlways deploy to staging before production on Fridays.\n\n**Why:** x\n",
    );
    put(
        &dir,
        "body.txt",
        "Always deploy to staging before production on Fridays.\n",
    );
    let add = |extra: &[&str]| {
        let t = t.ccmem(["add", "mem"]);
        let t = t.args(["--type", "project", "--topic", "deploy2", "--why", "x"]);
        let t = t.args([
            "--description",
            "deploys go through the staging cluster first",
        ]);
        t.args(["--body-file", "mem/body.txt"]).args(extra).run()
    };
    let old = snapshot(&dir);
    snapshot!("near_duplicate", add(&[]).code(1));
    let doc = add(&["--json"]).code(1).json();
    assert_eq!(doc["refused"], "near-duplicate");
    assert_eq!(doc["similar"]["file"], "project_deploy.md");
    assert!(
        doc["similar"]["similarity"].as_f64().unwrap() >= 0.8,
        "{doc}"
    );
    assert_eq!(snapshot(&dir), old, "nothing written");
    // Nothing alike: no "closest" at all, never a 0.00 one.
    let out = t
        .ccmem(["add", "mem"])
        .args(ADD_TZ)
        .args(["--dry-run", "--json"]);
    let doc = out.run().code(0).json();
    assert!(doc["similar"].is_null(), "{doc}");
}

#[test]
fn tier_without_a_memory_folder_names_it_once() {
    let t = Test::new().dir("proj/.git").current_dir("proj");
    snapshot!("no_memory_folder", t.ccmem(["tier"]).run().code(2));
}

/// A project (`proj/`) whose auto-memory folder holds two sections of project status, the same
/// size: over an 8-line target one of them moves. Returns the test (run in `proj/`) and the
/// memory folder.
fn project_with_memory() -> (Test, std::path::PathBuf) {
    let t = Test::new().dir("proj");
    let mem = transcripts(&t).join("memory");
    fs::create_dir_all(&mem).unwrap();
    let mut index = String::from("# Memory\n");
    for (section, entries) in [
        (
            "Deploy",
            [
                (
                    "deploy-staging",
                    "Staging deploy",
                    "blue/green on Fly, 2 regions",
                ),
                (
                    "deploy-prod",
                    "Prod deploy",
                    "Friday freeze, manual approval",
                ),
                (
                    "deploy-rollback",
                    "Rollback",
                    "`fly releases rollback`, DB first",
                ),
            ],
        ),
        (
            "Billing",
            [
                (
                    "billing-webhooks",
                    "Stripe webhooks",
                    "retries 3 days, idempotency key",
                ),
                (
                    "billing-invoices",
                    "Invoices",
                    "PDF via Typst, EU VAT on every line",
                ),
                (
                    "billing-dunning",
                    "Dunning",
                    "three emails, then the plan pauses",
                ),
            ],
        ),
    ] {
        index.push_str(&format!("\n## {section}\n"));
        for (stem, title, desc) in entries {
            let file = format!("project_{stem}.md");
            index.push_str(&format!("- [{title}]({file}) — {desc}\n"));
            let text =
                format!("---\nname: {stem}\ndescription: {desc}\ntype: project\n---\n{desc}.\n");
            put(&mem, &file, &text);
        }
    }
    put(&mem, "MEMORY.md", &index);
    (t.current_dir("proj"), mem)
}

/// The folder of `proj/`'s transcripts (its memory folder is `memory/` in it).
fn transcripts(t: &Test) -> std::path::PathBuf {
    let proj = t.path("proj");
    (t.home().join(".claude/projects")).join(common::slug(&proj.to_string_lossy()))
}

/// A session of `proj/` that read each of `files` of `mem` (a transcript as the client writes
/// it, in the project's folder of transcripts).
fn session_reading(t: &Test, mem: &Path, id: &str, files: &[&str]) {
    let proj = t.path("proj");
    let line = |time: &str, file: &str| {
        serde_json::json!({
            "parentUuid": null, "isSidechain": false,
            "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t",
                "name": "Read", "input": {"file_path": mem.join(file)}}]},
            "type": "assistant", "timestamp": time, "cwd": proj, "sessionId": id,
            "version": "2.1.332", "gitBranch": "main"
        })
        .to_string()
            + "\n"
    };
    let text: String = (files.iter().enumerate())
        .map(|(i, f)| line(&format!("2026-11-2{}T09:0{i}:00Z", files.len()), f))
        .collect();
    put(&transcripts(t), &format!("{id}.jsonl"), &text);
}

/// Where each entry went, by title (`None`: it stayed in MEMORY.md).
fn moved(run: &Run) -> BTreeMap<String, Option<String>> {
    let v = run.json();
    (v["decisions"].as_array().unwrap().iter())
        .map(|d| {
            let hub = d["hub"].as_str().map(str::to_owned);
            (d["entry"].as_str().unwrap().to_owned(), hub)
        })
        .collect()
}

#[test]
fn recorded_reads_keep_the_section_the_model_reads_and_the_plan_says_so() {
    let (t, mem) = project_with_memory();
    let tier = |t: &Test| t.ccmem(["tier", "--target-lines", "8"]);
    // No transcripts: the plan made without evidence (the first of two equal sections moves).
    let plain = tier(&t).arg("--json").run().code(0);
    assert_eq!(plain.json()["usage"], 0);
    let without = moved(&plain);
    assert!(without["Staging deploy"].is_some() && without["Invoices"].is_none());
    // Two sessions read the deploy notes: the billing section moves instead.
    session_reading(
        &t,
        &mem,
        "11111111-aaaa-4000-8000-000000000001",
        &["project_deploy-prod.md", "project_deploy-rollback.md"],
    );
    session_reading(
        &t,
        &mem,
        "22222222-bbbb-4000-8000-000000000002",
        &["project_deploy-staging.md"],
    );
    let read = tier(&t).arg("--json").run().code(0);
    assert_eq!(read.json()["usage"], 2);
    let with = moved(&read);
    assert!(
        with["Staging deploy"].is_none() && with["Invoices"].is_some(),
        "{with:?}"
    );
    assert_eq!(
        read.json()["after"]["lines"],
        plain.json()["after"]["lines"]
    );
    snapshot!("dry_run_ordered_by_reads", tier(&t).run().code(0));
}

#[test]
fn reads_of_another_folder_order_nothing() {
    let (t, _) = project_with_memory();
    let tier = |t: &Test| t.ccmem(["tier", "--target-lines", "8", "--json"]);
    let plain = tier(&t).run().code(0).json();
    // A session of this project that read files with the same names in another folder.
    let other = t.path("elsewhere");
    session_reading(
        &t,
        &other,
        "33333333-cccc-4000-8000-000000000003",
        &["project_deploy-prod.md"],
    );
    assert_eq!(tier(&t).run().code(0).json(), plain);
}
