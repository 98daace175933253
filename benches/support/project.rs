//! A realistic project for loader benchmarks: 10 ancestor directories each with a CLAUDE.md,
//! rules (some conditional), 20 imports, a user CLAUDE.md, and a 190-line MEMORY.md.

use std::fs;
use std::path::{Path, PathBuf};

/// Builds the project under `root`; returns (cwd, HOME).
pub(crate) fn build(root: &Path) -> (PathBuf, PathBuf) {
    let home = root.join("home");
    fs::create_dir_all(home.join(".claude/rules")).unwrap();
    fs::write(home.join(".claude/CLAUDE.md"), "Answer briefly.\n").unwrap();
    fs::write(
        home.join(".claude/rules/global.md"),
        "Never push to main.\n",
    )
    .unwrap();
    // Imports must stay inside the start directory (external ones need approval), so every
    // level imports documents that live in the cwd's docs/ folder.
    let levels: Vec<String> = (0..10).map(|l| format!("d{l}")).collect();
    let docs = root.join("w").join(levels.join("/")).join("docs");
    fs::create_dir_all(&docs).unwrap();
    let mut dir = root.join("w");
    for level in 0..10 {
        dir = dir.join(&levels[level]);
        fs::create_dir_all(dir.join(".claude/rules")).unwrap();
        let down = levels[level + 1..].join("/");
        let mut claude = format!("# Level {level}\n\nSome guidance for level {level}.\n");
        for i in 0..2 {
            let name = format!("imp{level}_{i}.md");
            let rel = if down.is_empty() {
                format!("docs/{name}")
            } else {
                format!("{down}/docs/{name}")
            };
            claude.push_str(&format!("See @{rel} for details.\n"));
            fs::write(
                docs.join(&name),
                format!("Imported guidance {level}.{i}\n").repeat(5),
            )
            .unwrap();
        }
        fs::write(dir.join("CLAUDE.md"), claude).unwrap();
        fs::write(
            dir.join(".claude/rules/always.md"),
            "A rule that always applies.\n",
        )
        .unwrap();
        fs::write(
            dir.join(".claude/rules/ts.md"),
            "---\npaths: src/**/*.ts\n---\nTS rule.\n",
        )
        .unwrap();
    }
    fs::create_dir_all(dir.join(".git")).unwrap();
    let cwd = dir.canonicalize().unwrap();
    let slug: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mem = home.join(".claude/projects").join(slug).join("memory");
    fs::create_dir_all(&mem).unwrap();
    let index: String = (0..190)
        .map(|i| {
            format!("- [Entry {i}](feedback_topic-{i}.md) — a one-line hook for entry number {i}\n")
        })
        .collect();
    fs::write(mem.join("MEMORY.md"), index).unwrap();
    (cwd, home)
}
