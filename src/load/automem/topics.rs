//! Topic files: the `.md` files of the memory folder other than MEMORY.md (recursive). The
//! client never loads them at start; the model reads them on demand, usually through a link in
//! the loaded part of the index.

use std::collections::HashSet;
use std::path::Path;

use crate::load::model::{Lazy, LazyWhy};
use crate::text::links::links;

/// Every topic file under `folder` (printed as `folder_str` + relative path), with whether
/// `visible` (the loaded part of the index) links it. The folder is walked the way the memory
/// library walks it (`crate::fsread::md_files`: hidden entries skipped, linked folders entered
/// once).
pub fn lazy(folder: &Path, folder_str: &str, visible: &str) -> Vec<Lazy> {
    let Ok((entries, _)) = crate::fsread::md_files(folder) else {
        return Vec::new();
    };
    let targets: HashSet<String> = visible.lines().flat_map(links).map(|l| l.target).collect();
    entries
        .into_iter()
        .filter(|e| e.rel != crate::constants::INDEX_FILE)
        .map(|e| Lazy {
            path: format!("{folder_str}{}", e.rel),
            why: LazyWhy::TopicFile {
                linked: is_linked(&e.rel, &targets),
            },
        })
        .collect()
}

/// A link names the file by relative path, or (wiki and code-span style) by its file name
/// with or without `.md`.
fn is_linked(rel: &str, targets: &HashSet<String>) -> bool {
    let base = rel.rsplit('/').next().unwrap_or(rel);
    let stem = base.strip_suffix(".md").unwrap_or(base);
    let rel_stem = rel.strip_suffix(".md").unwrap_or(rel);
    [rel, rel_stem, base, stem]
        .iter()
        .any(|c| targets.contains(*c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_topics_and_links() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::create_dir_all(d.join("sub")).unwrap();
        for f in [
            "MEMORY.md",
            "a.md",
            "b.md",
            "sub/c.md",
            "notes.txt",
            "wiki_x.md",
        ] {
            std::fs::write(d.join(f), "x").unwrap();
        }
        let got = lazy(d, "/m/", "- [A](a.md)\n- see [[wiki_x]] and [C](sub/c.md)");
        let summary: Vec<(String, bool)> = got
            .iter()
            .map(|l| match l.why {
                LazyWhy::TopicFile { linked } => (l.path.clone(), linked),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("/m/a.md".to_owned(), true),
                ("/m/b.md".to_owned(), false),
                ("/m/sub/c.md".to_owned(), true),
                ("/m/wiki_x.md".to_owned(), true),
            ]
        );
    }
}
