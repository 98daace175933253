use std::fs;
use std::path::Path;

use super::*;

fn put(dir: &Path, rel: &str, text: &str, mtime: i64) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, text).unwrap();
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime as u64);
    fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

#[test]
fn newest_first_with_descriptions() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    put(
        d,
        "topic.md",
        "---\nname: t\ndescription: topic one desc\n---\nbody\n",
        300,
    );
    put(d, "two.md", "# Heading two\n", 100);
    put(d, "sub/deep.md", "x\n", 200);
    put(d, "notes.txt", "x\n", 400);
    assert_eq!(
        generate(d).unwrap(),
        [
            "- [topic](topic.md) — topic one desc",
            "- [deep](sub/deep.md)",
            "- [two](two.md)"
        ]
    );
}

#[test]
fn any_memory_md_entry_blocks_and_txt_only_is_no_candidate() {
    let t = tempfile::tempdir().unwrap();
    put(t.path(), "notes.txt", "x", 1);
    assert!(generate(t.path()).is_none());
    put(t.path(), "a.md", "x", 1);
    assert!(generate(t.path()).is_some());
    fs::create_dir(t.path().join("MEMORY.md")).unwrap();
    assert!(generate(t.path()).is_none());
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn scan_rules() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    put(d, "keep.md", "", 10);
    put(d, "Sessions.md", "", 9);
    put(d, "logs/x.md", "", 8);
    put(d, "deep/Team/x.md", "", 7);
    put(d, ".hidden/x.md", "", 6);
    put(d, "deep/.h.md", "", 5);
    put(d, "deep/MEMORY.md", "", 4);
    put(d, "br[ack]et.md", "", 3);
    put(d, "hard.md", "", 2);
    fs::hard_link(d.join("hard.md"), d.join("hard2.txt")).unwrap();
    std::os::unix::fs::symlink(d.join("keep.md"), d.join("link.md")).unwrap();
    assert_eq!(
        generate(d).unwrap(),
        ["- [keep](keep.md)", "- [Sessions](Sessions.md)"]
    );
}

#[test]
fn nothing_linkable_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    put(t.path(), "pa(ren).md", "", 1);
    assert!(generate(t.path()).is_none());
}

#[test]
fn long_description_is_previewed_to_the_budget() {
    let t = tempfile::tempdir().unwrap();
    let long = "word ".repeat(60);
    put(
        t.path(),
        "a.md",
        &format!("---\ndescription: {long}\n---\n"),
        1,
    );
    let lines = generate(t.path()).unwrap();
    assert_eq!(
        js::utf16_len(&lines[0]),
        11 + 3 + 134 + 1,
        "cut at the last space before 135 units"
    );
    assert!(lines[0].ends_with('\u{2026}'));
}

#[test]
fn cap_at_140_lines() {
    let lines = cap((0..150).map(|i| format!("- [t{i}](t{i}.md)")));
    assert_eq!(lines.len(), BACKFILL_MAX_LINES);
    let wide = cap((0..200).map(|_| "x".repeat(149)));
    assert_eq!(wide.len(), BACKFILL_MAX_UTF16 / BACKFILL_LINE_BUDGET_UTF16);
}

#[test]
fn description_types_and_the_yaml_fallback() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    put(d, "a.md", "---\ndescription: 123\n---\n", 6);
    put(d, "c.md", "---\ndescription: [x, y]\n---\n", 4);
    put(
        d,
        "d.md",
        "---\nname: d\ndescription: >\n  folded\n  text\n---\n",
        3,
    );
    put(d, "e.md", "---\ndescription: 'bad: yaml: [\n---\n", 2);
    assert_eq!(
        generate(d).unwrap(),
        [
            "- [a](a.md)",
            "- [c](c.md)",
            "- [d](d.md) — folded text",
            "- [e](e.md) — 'bad: yaml: [",
        ]
    );
}
