//! `ccmem receipt` as a newcomer first sees it: every figure says whether it is on disk or
//! loaded, long lists stop after ten lines, and a receipt with findings ends with what fixes
//! each one — a command that really runs.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// A project with a CLAUDE.md whose import has a trailing `.`, and a memory folder (its name
/// has a space) whose MEMORY.md has `entries` entries, each with its topic file.
struct Project {
    _root: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
    mem: PathBuf,
}

fn project(entries: usize, bad_import: bool) -> Project {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let (home, proj, mem) = (base.join("home"), base.join("proj"), base.join("my mem"));
    for d in [&home, &proj, &mem, &proj.join("docs")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(proj.join("docs/style.md"), "Use tabs.\n").unwrap();
    let import = if bad_import {
        "@docs/style.md."
    } else {
        "@docs/style.md"
    };
    let claude_md = format!("<!-- a note the client strips -->\n# rules\nsee {import}\n");
    std::fs::write(proj.join("CLAUDE.md"), claude_md).unwrap();
    let mut index = String::new();
    for i in 1..=entries {
        let name = format!("project_topic-{i:03}.md");
        index.push_str(&format!("- [topic {i}]({name}) — fact {i}, kept short\n"));
        let topic = format!(
            "---\nname: topic {i}\ndescription: fact {i}\ntype: project\n---\n\nfact {i}\n"
        );
        std::fs::write(mem.join(name), topic).unwrap();
    }
    std::fs::write(mem.join("MEMORY.md"), index).unwrap();
    Project {
        _root: root,
        home,
        proj,
        mem,
    }
}

fn ccmem(p: &Project) -> Command {
    let mut cmd = Command::cargo_bin("ccmem").unwrap();
    cmd.env_clear()
        .env("HOME", &p.home)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("CCMEM_MANAGED_DIR", p.home.join("no-managed"))
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", &p.mem)
        .current_dir(&p.proj);
    cmd
}

fn receipt(p: &Project, args: &[&str]) -> (i32, String) {
    let out = ccmem(p).arg("receipt").args(args).output().unwrap();
    let code = out.status.code().unwrap();
    (code, String::from_utf8(out.stdout).unwrap())
}

fn section<'a>(text: &'a str, title: &str) -> Option<&'a str> {
    let start = text.find(&format!("\n{title}\n"))? + 1;
    let rest = &text[start..];
    let end = rest[1..].find("\n\n").map_or(rest.len(), |e| e + 1);
    Some(&rest[..end])
}

fn file_len(p: &Path) -> String {
    ccmem::receipt::group(std::fs::metadata(p).unwrap().len() as usize)
}

#[test]
fn each_loaded_row_shows_loaded_figures_and_names_the_size_on_disk() {
    let p = project(215, false);
    let (code, text) = receipt(&p, &[]);
    assert_eq!(code, 1, "{text}");
    let row = text
        .lines()
        .skip_while(|l| !l.ends_with("(user's auto-memory, persists across conversations)"))
        .nth(1)
        .unwrap();
    // 200 kept lines, a blank line and the client's warning: what the model receives.
    assert!(row.contains("· loaded: 202 lines · "), "{row}");
    let on_disk = format!("· on disk: {} bytes", file_len(&p.mem.join("MEMORY.md")));
    assert!(row.ends_with(&on_disk), "{row}");

    let json: Value = serde_json::from_str(&receipt(&p, &["--json"]).1).unwrap();
    let loaded_files = json["loaded"].as_array().unwrap();
    let index = loaded_files
        .iter()
        .find(|l| l["path"].as_str().unwrap().ends_with("/MEMORY.md"))
        .unwrap();
    let loaded = index["loaded_bytes"].as_u64().unwrap();
    let disk = index["size"]["bytes"].as_u64().unwrap();
    assert!(loaded < disk, "loaded {loaded} ≥ on disk {disk}");
    // The CLAUDE.md's comment is stripped: fewer bytes loaded than on disk there too.
    let claude = &json["loaded"][0];
    assert!(claude["loaded_bytes"].as_u64() < claude["size"]["bytes"].as_u64());
    let totals = &json["totals"];
    let sum: u64 = loaded_files
        .iter()
        .map(|l| l["loaded_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(totals["loaded_bytes"].as_u64(), Some(sum));
}

#[test]
fn a_receipt_with_findings_ends_with_the_command_that_fixes_each() {
    let p = project(215, true);
    let (code, text) = receipt(&p, &[]);
    assert_eq!(code, 1);
    let fix = section(&text, "To fix").unwrap_or_else(|| panic!("no To fix section:\n{text}"));
    assert!(
        text.trim_end().ends_with(fix.trim_end()),
        "not last:\n{text}"
    );
    let mem = p.mem.display().to_string();
    assert!(
        fix.contains("MEMORY.md: 15 lines never reach the model"),
        "{fix}"
    );
    assert!(
        fix.contains(&format!("→ ccmem tier '{mem}' (a dry run")),
        "{fix}"
    );
    assert!(
        fix.contains("→ remove the trailing \".\" in the @import at "),
        "{fix}"
    );
    // The skip's fix is beside the skip too.
    let skipped = section(&text, "Skipped").unwrap();
    assert!(skipped.contains("→ remove the trailing \".\""), "{skipped}");

    // The fix runs as printed: a dry run that plans the restructure and writes nothing.
    let json: Value = serde_json::from_str(&receipt(&p, &["--json"]).1).unwrap();
    let dark = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "dark")
        .unwrap();
    let command = dark["fix"].as_str().unwrap();
    let command = &command[..command.find(" (").unwrap()];
    let words = shell_words::split(command).unwrap();
    assert_eq!(words[..2], ["ccmem", "tier"]);
    let before = std::fs::read(p.mem.join("MEMORY.md")).unwrap();
    let out = ccmem(&p).args(&words[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Dry run: nothing written."));
    assert_eq!(std::fs::read(p.mem.join("MEMORY.md")).unwrap(), before);
}

#[test]
fn a_clean_receipt_has_nothing_to_fix() {
    let p = project(20, false);
    let (code, text) = receipt(&p, &[]);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("To fix"), "{text}");
    assert!(text.contains("everything loads"), "{text}");
}

#[test]
fn long_lists_stop_at_ten_and_all_lists_every_line() {
    let p = project(215, false);
    let (_, text) = receipt(&p, &[]);
    let dark = |t: &str| {
        t.lines()
            .filter(|l| l.trim_start().starts_with("L2"))
            .count()
    };
    assert_eq!(dark(&text), 10, "{text}");
    assert!(
        text.contains("… and 5 more dark lines (--all lists them, --json has them all)"),
        "{text}"
    );
    let unlinked = |t: &str| {
        t.lines()
            .filter(|l| {
                l.starts_with("    ") && l.ends_with(".md") && l.contains("project_topic-2")
            })
            .count()
    };
    assert_eq!(unlinked(&text), 10, "{text}");
    assert!(text.contains("… and 5 more topic files"), "{text}");

    let (_, all) = receipt(&p, &["--all"]);
    assert_eq!(dark(&all), 15, "{all}");
    assert_eq!(unlinked(&all), 15, "{all}");
    assert!(!all.contains("more dark lines"), "{all}");
}

/// The receipt counts the topic files MEMORY.md reaches as `audit` and `tier` count them (the
/// memory library's reach): a topic listed in a hub that the loaded part links is reached; one
/// linked only from past the cut, or from nowhere, is not.
#[test]
fn topics_reached_through_a_hub_count_as_reached() {
    let p = project(2, false);
    let fm = |name: &str| {
        format!("---\nname: {name}\ndescription: {name} fact\ntype: project\n---\n\nfact\n")
    };
    let mut index = std::fs::read_to_string(p.mem.join("MEMORY.md")).unwrap();
    index.push_str("- [infra hub](reference_infra_hub.md) — deploys, cron, queues\n");
    std::fs::write(p.mem.join("MEMORY.md"), &index).unwrap();
    std::fs::write(
        p.mem.join("reference_infra_hub.md"),
        fm("infra-hub") + "- [deploys](project_deploys.md)\n- [[project_cron]]\n",
    )
    .unwrap();
    for name in ["project_deploys", "project_cron", "project_orphan"] {
        std::fs::write(p.mem.join(format!("{name}.md")), fm(name)).unwrap();
    }
    let (_, text) = receipt(&p, &[]);
    assert!(
        text.contains(
            "6 auto-memory topic files, read on demand: 5 reached from the loaded part of MEMORY.md or a hub it links"
        ),
        "{text}"
    );
    assert!(
        text.contains("1 not reached from the loaded part of MEMORY.md or a hub it links"),
        "{text}"
    );
    let listed = |name: &str| {
        text.lines()
            .any(|l| l.starts_with("    ") && l.ends_with(&format!("/{name}")))
    };
    assert!(listed("project_orphan.md"), "{text}");
    assert!(
        !listed("project_cron.md") && !listed("project_deploys.md"),
        "{text}"
    );

    let (_, json) = receipt(&p, &["--json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let linked = |list: &Value, name: &str| {
        let entry = (list.as_array().unwrap().iter())
            .find(|l| l["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not in {list}"));
        entry["why"]["linked"].as_bool().unwrap()
    };
    for list in [&v["lazy"], &v["auto_memory"]["lazy"]] {
        assert!(linked(list, "/project_cron.md"));
        assert!(linked(list, "/project_deploys.md"));
        assert!(linked(list, "/reference_infra_hub.md"));
        assert!(!linked(list, "/project_orphan.md"));
    }
}
