use std::collections::BTreeMap;
use std::path::PathBuf;

use super::memory;
#[cfg(unix)]
use super::memory::{Entrypoint, State};
use super::*;
use crate::env::{ClientEnv, ClientFlags};

fn env(cwd: &std::path::Path, vars: &[(&str, String)]) -> ClientEnv {
    let mut map: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    map.entry("HOME".into())
        .or_insert_with(|| cwd.join("home").to_string_lossy().into_owned());
    ClientEnv::new(cwd.to_path_buf(), map, ClientFlags::default())
}

#[test]
fn folder_names_replace_every_other_unit() {
    assert_eq!(memory::folder_name("code.review v2"), "code-review-v2");
    assert_eq!(memory::folder_name("a_b-C9"), "a_b-C9");
    assert_eq!(
        memory::folder_name("é😀"),
        "---",
        "one dash per UTF-16 unit"
    );
    assert_eq!(memory::folder_name(""), "unknown");
}

#[test]
fn folders_by_scope() {
    let e = env(
        &PathBuf::from("/p"),
        &[("CLAUDE_CONFIG_DIR", "/cfg".into())],
    );
    assert_eq!(
        memory::folder(&e, "x", Scope::Project),
        "/p/.claude/agent-memory/x/"
    );
    assert_eq!(
        memory::folder(&e, "x", Scope::Local),
        "/p/.claude/agent-memory-local/x/"
    );
    assert_eq!(memory::folder(&e, "x", Scope::User), "/cfg/agent-memory/x/");
    let r = env(
        &PathBuf::from("/p"),
        &[("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/r".into())],
    );
    assert_eq!(memory::folder(&r, "x", Scope::User), "/r/agent-memory/x/");
    assert_eq!(
        memory::folder(&r, "x", Scope::Local),
        "/r/projects/-p/agent-memory-local/x/"
    );
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn a_link_out_of_the_working_copy_is_refused_and_a_missing_folder_is_empty() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let proj = root.join("proj");
    std::fs::create_dir_all(proj.join(".claude/agent-memory")).unwrap();
    std::fs::create_dir_all(root.join("outside")).unwrap();
    std::fs::write(root.join("outside/MEMORY.md"), "- secret\n").unwrap();
    std::os::unix::fs::symlink(root.join("outside"), proj.join(".claude/agent-memory/out"))
        .unwrap();
    let e = env(&proj, &[]);
    let out = memory::load(&e, "out", Scope::Project);
    assert_eq!(out.entrypoint, Entrypoint::Refused);
    assert!(out.read_only());
    assert!(out.section.ends_with(memory::REFUSED));
    let missing = memory::load(&e, "new", Scope::Project);
    assert!(matches!(missing.state, State::Empty));
    assert!(missing.would_create);
    assert_eq!(
        missing.section,
        format!("## MEMORY.md\n\n{}", memory::EMPTY)
    );
}

#[test]
fn omit_claude_md_keeps_only_managed_entries_for_custom_agents() {
    use crate::load::model::{Kind, Loaded, Size, Why};
    let entry = |kind| Loaded {
        path: "/x".into(),
        kind,
        content: "c".into(),
        why: Why::UserFile,
        unverified: false,
        size: Size::default(),
    };
    let startup = vec![
        entry(Kind::Managed),
        entry(Kind::Project),
        entry(Kind::AutoMem),
    ];
    let mut def = Definition {
        name: "a".into(),
        origin: Origin::Project,
        path: None,
        memory: None,
        invalid_memory: None,
        omit_claude_md: false,
    };
    assert_eq!(reminder_entries(&def, &startup).len(), 3);
    def.omit_claude_md = true;
    assert_eq!(reminder_entries(&def, &startup).len(), 1);
    def.origin = Origin::BuiltIn;
    assert!(reminder_entries(&def, &startup).is_empty());
}
