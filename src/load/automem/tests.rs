use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::env::ClientFlags;

/// A project at `root/p` with a git root, HOME at `root/h`; returns the env and memory folder.
fn project(root: &Path, vars: &[(&str, &str)]) -> (ClientEnv, PathBuf) {
    let cwd = root.join("p");
    std::fs::create_dir_all(cwd.join(".git")).unwrap();
    let home = root.join("h");
    let mut map: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    map.insert("HOME".into(), home.to_string_lossy().into_owned());
    let env = ClientEnv::new(cwd.clone(), map, ClientFlags::default());
    let mem = home
        .join(".claude")
        .join("projects")
        .join(slug::slug(cwd.to_str().unwrap()))
        .join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    (env, mem)
}

fn run(env: &ClientEnv) -> Report {
    load(env, &Settings::load(env), &HashSet::default())
}

#[test]
fn loads_the_index_as_the_last_kind_with_its_label() {
    let t = tempfile::tempdir().unwrap();
    let (env, mem) = project(t.path(), &[]);
    std::fs::write(mem.join("MEMORY.md"), "- [A](a.md)\n").unwrap();
    std::fs::write(mem.join("a.md"), "x").unwrap();
    std::fs::write(mem.join("b.md"), "x").unwrap();
    let r = run(&env);
    let e = r.entry.unwrap();
    assert_eq!(e.kind, Kind::AutoMem);
    assert_eq!(e.why, Why::AutoMemIndex);
    assert_eq!(e.path, mem.join("MEMORY.md").to_string_lossy());
    assert_eq!(e.content, "- [A](a.md)");
    assert!(matches!(r.index, IndexState::Loaded(_)));
    // Topic files are the memory library's (`crate::memory::session`), not the loader's.
    assert!(r.lazy.is_empty());
}

#[test]
fn missing_index_is_generated_not_written() {
    let t = tempfile::tempdir().unwrap();
    let (env, mem) = project(t.path(), &[]);
    std::fs::write(mem.join("topic.md"), "---\ndescription: d\n---\n").unwrap();
    let r = run(&env);
    assert!(
        matches!(&r.index, IndexState::WouldGenerate { lines } if lines == &["- [topic](topic.md) — d"])
    );
    let e = r.entry.unwrap();
    assert_eq!(
        (e.why, e.content.as_str()),
        (Why::AutoMemBackfill, "- [topic](topic.md) — d")
    );
    assert!(!mem.join("MEMORY.md").exists(), "ccmem never writes");
}

#[test]
fn memory_stores_and_empty_env_content_drop_the_entry() {
    let t = tempfile::tempdir().unwrap();
    let (env, mem) = project(t.path(), &[("CLAUDE_MEMORY_STORES", "[]")]);
    std::fs::write(mem.join("MEMORY.md"), "- x\n").unwrap();
    let r = run(&env);
    assert!(r.entry.is_none() && r.off.is_none());
    let (env, _) = project(t.path(), &[("CLAUDE_COWORK_MEMORY_INDEX_CONTENT", "")]);
    assert!(run(&env).entry.is_none());
    let (env, _) = project(
        t.path(),
        &[("CLAUDE_COWORK_MEMORY_INDEX_CONTENT", "<!-- c -->env")],
    );
    let r = run(&env);
    assert_eq!(r.entry.unwrap().content, "<!-- c -->env");
    assert!(matches!(r.index, IndexState::FromEnv(_)));
}

#[test]
fn dedup_against_processed_paths_and_off_switch() {
    let t = tempfile::tempdir().unwrap();
    let (env, mem) = project(t.path(), &[]);
    std::fs::write(mem.join("MEMORY.md"), "- x\n").unwrap();
    // The session's processed set holds dedup keys (case-folded on Windows).
    let path = mem.join("MEMORY.md").to_string_lossy().into_owned();
    let key = crate::load::instructions::paths::dedup_key(env.platform, &path);
    let seen: HashSet<String> = [key].into_iter().collect();
    assert!(load(&env, &Settings::load(&env), &seen).entry.is_none());
    let (env, _) = project(t.path(), &[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "true")]);
    let r = run(&env);
    assert!(r.off.is_some() && r.entry.is_none());
    assert!(resolve_folder(&env, &Settings::load(&env)).is_none());
}

#[test]
fn oversized_and_non_regular_indexes_are_skipped() {
    let t = tempfile::tempdir().unwrap();
    let (env, mem) = project(t.path(), &[]);
    std::fs::create_dir(mem.join("MEMORY.md")).unwrap();
    std::fs::write(mem.join("a.md"), "x").unwrap();
    let r = run(&env);
    assert!(matches!(r.index, IndexState::NotRegular { .. }) && r.entry.is_none());
    std::fs::remove_dir(mem.join("MEMORY.md")).unwrap();
    let f = std::fs::File::create(mem.join("MEMORY.md")).unwrap();
    f.set_len(crate::constants::MAX_FILE_BYTES + 1).unwrap();
    assert!(matches!(run(&env).index, IndexState::TooLarge { .. }));
}
