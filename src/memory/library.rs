//! A loaded memory library: every `.md` file read in parallel, the links of the index and the
//! hubs resolved, and which files MEMORY.md reaches (directly, or through a hub it links).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;

use super::file::{MemFile, Role};
use super::links::{self, Link, Syntax};
use super::scan::{self, WalkError};

/// Where a link leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A file of the library (its index in [`Library::files`]), named by its path.
    File(usize),
    /// A file of the library matched by name only: a wiki link `[[topic]]` that equals a
    /// file's topic or frontmatter `name` but not its file name. Not broken, but it does not
    /// make the file reachable: the model gets a name to search for, not a file to open.
    Named(usize),
    /// An existing path that is not a scanned library file (outside the folder, hidden…).
    Outside,
    /// Nothing there.
    Missing,
}

/// A link found in a file, with its position and where it leads.
#[derive(Debug, Clone)]
pub struct FileLink {
    /// 1-based line.
    pub line: usize,
    /// Byte offset of the link in the file.
    pub offset: usize,
    /// The link.
    pub link: Link,
    /// Where it leads.
    pub target: Target,
}

/// How MEMORY.md reaches a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The index itself.
    Index,
    /// Linked from MEMORY.md.
    Direct,
    /// Linked from a hub (this file index) that MEMORY.md links.
    ViaHub(usize),
    /// Not reached.
    Unreachable,
}

/// A memory library.
#[derive(Debug)]
pub struct Library {
    /// The folder as given.
    pub root: PathBuf,
    /// Every `.md` file, sorted by relative path.
    pub files: Vec<MemFile>,
    /// Subfolders that could not be listed.
    pub walk_errors: Vec<WalkError>,
    links: Vec<Vec<FileLink>>,
    by_rel: HashMap<String, usize>,
}

impl Library {
    /// Scans and reads `root` (files larger than `cap` bytes are reported, not read).
    pub fn load(root: &Path, cap: u64) -> std::io::Result<Library> {
        let (rels, walk_errors) = scan::md_files(root)?;
        let files: Vec<MemFile> = rels
            .into_par_iter()
            .map(|rel| MemFile::read(root, rel, cap))
            .collect();
        let by_rel = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.rel.clone(), i))
            .collect();
        let mut lib = Library {
            root: root.to_path_buf(),
            files,
            walk_errors,
            links: Vec::new(),
            by_rel,
        };
        let keys = lib.wiki_keys();
        lib.links = (0..lib.files.len())
            .into_par_iter()
            .map(|i| lib.scan_links(i, &keys))
            .collect();
        Ok(lib)
    }

    /// The index (`MEMORY.md` at the root), if there is one.
    pub fn index(&self) -> Option<usize> {
        self.by_rel.get(crate::constants::INDEX_FILE).copied()
    }

    /// The file with this relative path.
    pub fn find(&self, rel: &str) -> Option<usize> {
        self.by_rel.get(rel).copied()
    }

    /// The links of file `i` (only the index and hubs are scanned; others have none).
    pub fn links(&self, i: usize) -> &[FileLink] {
        &self.links[i]
    }

    /// How MEMORY.md reaches each file, by file index.
    pub fn reach(&self) -> Vec<Reach> {
        let mut reach = vec![Reach::Unreachable; self.files.len()];
        // `Named` links do not count (see `Target::Named`).
        let Some(index) = self.index() else {
            return reach;
        };
        reach[index] = Reach::Index;
        let direct: Vec<usize> = self.links[index]
            .iter()
            .filter_map(|l| match l.target {
                Target::File(t) if t != index => Some(t),
                _ => None,
            })
            .collect();
        for &t in &direct {
            reach[t] = Reach::Direct;
        }
        for &hub in &direct {
            if !matches!(self.files[hub].role, Role::Hub { .. }) {
                continue;
            }
            for l in &self.links[hub] {
                if let Target::File(t) = l.target
                    && reach[t] == Reach::Unreachable
                {
                    reach[t] = Reach::ViaHub(hub);
                }
            }
        }
        reach
    }

    fn scan_links(&self, i: usize, keys: &HashMap<String, usize>) -> Vec<FileLink> {
        let file = &self.files[i];
        if !matches!(file.role, Role::Index | Role::Hub { .. }) {
            return Vec::new();
        }
        let Some((text, parsed)) = file.parsed() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut offset = parsed.body_start;
        let first = super::file::line_of(text, offset);
        let mut fence: Option<&str> = None;
        for (line, raw) in (first..).zip(text[parsed.body_start..].split_inclusive('\n')) {
            let trimmed = raw.trim_start();
            if let Some(open) = fence {
                if trimmed.starts_with(open) {
                    fence = None;
                }
            } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(&trimmed[..3]);
            } else {
                for link in links::links(raw.trim_end_matches(['\n', '\r'])) {
                    let target = self.resolve(i, &link, keys);
                    out.push(FileLink {
                        line,
                        offset: offset + link.offset,
                        link,
                        target,
                    });
                }
            }
            offset += raw.len();
        }
        out
    }

    fn resolve(&self, from: usize, link: &Link, keys: &HashMap<String, usize>) -> Target {
        let dir = match self.files[from].rel.rfind('/') {
            Some(k) => &self.files[from].rel[..k + 1],
            None => "",
        };
        let as_path = |target: &str| -> Target {
            let joined = normalize(&format!("{dir}{target}"));
            if let Some(&t) = joined.as_ref().and_then(|j| self.by_rel.get(j)) {
                return Target::File(t);
            }
            let on_disk = self.root.join(dir).join(target);
            if std::fs::metadata(on_disk).is_ok() {
                Target::Outside
            } else {
                Target::Missing
            }
        };
        match link.syntax {
            Syntax::Markdown | Syntax::CodeSpan => as_path(&link.target),
            Syntax::Wiki if link.target.ends_with(".md") => as_path(&link.target),
            Syntax::Wiki => match as_path(&format!("{}.md", link.target)) {
                Target::Missing => keys
                    .get(&wiki_key(&link.target))
                    .map_or(Target::Missing, |&t| Target::Named(t)),
                found => found,
            },
        }
    }

    /// Names a wiki link may use for each file: its stem, its stem without the type prefix,
    /// and its frontmatter `name`, compared case-insensitively with `_` and `-` alike.
    fn wiki_keys(&self) -> HashMap<String, usize> {
        let mut keys = HashMap::new();
        for (i, f) in self.files.iter().enumerate() {
            let stem = f.name().strip_suffix(".md").unwrap_or(f.name());
            let mut names = vec![stem.to_owned()];
            if let Some(k) = stem.find(['_', '-']) {
                names.push(stem[k + 1..].to_owned());
            }
            if let Some(name) = f.meta().and_then(|m| m.name.clone()) {
                names.push(name);
            }
            for n in names {
                keys.entry(wiki_key(&n)).or_insert(i);
            }
        }
        keys
    }
}

/// The comparison form of a wiki name: lower case, `_` as `-`, outer `-` trimmed.
fn wiki_key(name: &str) -> String {
    name.trim()
        .to_lowercase()
        .replace('_', "-")
        .trim_matches('-')
        .to_owned()
}

/// Resolves `.` and `..` in a relative path; `None` when it leaves the root.
fn normalize(rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lib(files: &[(&str, &str)]) -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let lib = Library::load(dir.path(), 1 << 20).unwrap();
        (dir, lib)
    }

    #[test]
    fn reach_through_hubs_only_one_level() {
        let (_d, lib) = lib(&[
            (
                "MEMORY.md",
                "# Index\n- [a](user_a.md)\n- [hub](reference_g_hub.md)\n",
            ),
            ("user_a.md", "- [b](user_b.md)\n"),
            ("user_b.md", "x\n"),
            (
                "reference_g_hub.md",
                "- [c](user_c.md)\n- [[reference_sub_hub]]\n- [[user-e]]\n",
            ),
            ("user_e.md", "x\n"),
            ("user_c.md", "x\n"),
            ("reference_sub_hub.md", "- [d](user_d.md)\n"),
            ("user_d.md", "x\n"),
        ]);
        let r = lib.reach();
        let of = |n: &str| r[lib.find(n).unwrap()];
        let hub = lib.find("reference_g_hub.md").unwrap();
        assert_eq!(of("MEMORY.md"), Reach::Index);
        assert_eq!(of("user_a.md"), Reach::Direct);
        assert_eq!(of("user_b.md"), Reach::Unreachable);
        assert_eq!(of("user_c.md"), Reach::ViaHub(hub));
        assert_eq!(of("reference_sub_hub.md"), Reach::ViaHub(hub));
        assert_eq!(of("user_d.md"), Reach::Unreachable);
        assert_eq!(
            of("user_e.md"),
            Reach::Unreachable,
            "a fuzzy name match does not reach"
        );
    }

    #[test]
    fn wiki_links_resolve_by_stem_topic_or_name() {
        let (_d, lib) = lib(&[
            (
                "MEMORY.md",
                "[[user_a]] [[A-Topic]] [[named-thing]] [[ghost]]\n```\n[x](nope.md)\n```\n",
            ),
            ("user_a.md", "x\n"),
            ("project_a_topic.md", "x\n"),
            ("user_z.md", "---\nname: named_thing\n---\nx\n"),
        ]);
        let targets: Vec<Target> = lib
            .links(lib.index().unwrap())
            .iter()
            .map(|l| l.target)
            .collect();
        assert_eq!(
            targets,
            [
                Target::File(lib.find("user_a.md").unwrap()),
                Target::Named(lib.find("project_a_topic.md").unwrap()),
                Target::Named(lib.find("user_z.md").unwrap()),
                Target::Missing
            ]
        );
    }

    #[test]
    fn relative_paths_and_outside_files() {
        let (_d, lib) = lib(&[
            (
                "MEMORY.md",
                "[a](./sub/user_a.md) [h](.hidden/user_h.md) [m](sub/../user_m.md)\n",
            ),
            ("sub/user_a.md", "x\n"),
            (".hidden/user_h.md", "x\n"),
        ]);
        let links = lib.links(lib.index().unwrap());
        assert_eq!(
            links[0].target,
            Target::File(lib.find("sub/user_a.md").unwrap())
        );
        assert_eq!(links[1].target, Target::Outside);
        assert_eq!(links[2].target, Target::Missing);
        assert_eq!(normalize("a/../../b"), None);
    }
}
