//! The project's tree as the rule looks at it: each distinct path looked up once, part by part
//! without following a link out of the project; the project listed only when a path is not
//! found from its root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Distinct paths checked at most per library (a few file-system calls each).
const MAX_PATHS: usize = 1_000;

/// Entries of the project listed at most, to find a path written from a module (past it, such
/// a path cannot be verified and is not reported).
const MAX_WALK: usize = 50_000;

/// Bytes of the root `.gitignore` read at most.
const MAX_GITIGNORE: u64 = 1 << 20;

/// Folders the listing does not enter: tools' caches and dependencies, not the project's own
/// code (and the largest folders of a checkout).
const SKIPPED: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "Library",
];

/// The project's tree, as far as the rule looked: each distinct path checked once.
pub(super) struct Tree<'a> {
    /// The project root, canonical.
    root: PathBuf,
    /// Path -> missing.
    seen: HashMap<&'a str, bool>,
    /// The project listed (made the first time a path is not found from the root).
    listing: Option<Listing>,
    /// The root `.gitignore` (read the first time a path is not found from the root).
    ignored: Option<Option<ignore::gitignore::Gitignore>>,
}

impl<'a> Tree<'a> {
    /// The tree of the project at `root` (a canonical path), nothing looked at yet.
    pub(super) fn new(root: PathBuf) -> Self {
        Tree {
            root,
            seen: HashMap::new(),
            listing: None,
            ignored: None,
        }
    }

    /// Whether `rel` is missing from the project (false also when it cannot be verified, and
    /// once [`MAX_PATHS`] paths were checked).
    pub(super) fn missing(&mut self, rel: &'a str) -> bool {
        if let Some(&m) = self.seen.get(rel) {
            return m;
        }
        if self.seen.len() >= MAX_PATHS {
            return false;
        }
        let m = self.look(rel) == Some(false) && !self.ignored(rel) && {
            let listing = self.listing.get_or_insert_with(|| Listing::of(&self.root));
            listing.complete && !listing.ends_with(rel)
        };
        self.seen.insert(rel, m);
        m
    }

    /// Whether the root `.gitignore` ignores `rel` or a folder above it.
    fn ignored(&mut self, rel: &str) -> bool {
        let root = &self.root;
        let gitignore = self.ignored.get_or_insert_with(|| {
            let file = root.join(".gitignore");
            // Read only a regular file of a sensible size (the builder reads it whole).
            let meta = std::fs::symlink_metadata(&file).ok()?;
            if !meta.is_file() || meta.len() > MAX_GITIGNORE {
                return None;
            }
            let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
            builder.add(&file);
            builder.build().ok()
        });
        gitignore.as_ref().is_some_and(|g| {
            let dir = rel.ends_with('/');
            g.matched_path_or_any_parents(rel.trim_end_matches('/'), dir)
                .is_ignore()
        })
    }

    /// `Some(exists)`, or `None` when a link on the way leaves the project (or cannot be
    /// read): each part is looked at without following it, and a link only where it stays
    /// inside the root.
    fn look(&self, rel: &str) -> Option<bool> {
        let parts: Vec<&str> = rel.trim_end_matches('/').split('/').collect();
        let mut at = self.root.clone();
        for (k, part) in parts.iter().enumerate() {
            at.push(part);
            let meta = match std::fs::symlink_metadata(&at) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(false),
                Err(_) => return None,
            };
            let is_dir = if meta.file_type().is_symlink() {
                let real = std::fs::canonicalize(&at).ok()?;
                if !real.starts_with(&self.root) {
                    return None;
                }
                let is_dir = real.is_dir();
                at = real;
                is_dir
            } else {
                meta.is_dir()
            };
            if k + 1 < parts.len() && !is_dir {
                return Some(false);
            }
        }
        Some(true)
    }
}

/// Every path of the project (files and folders, relative, `/`-separated) by its last part,
/// listed breadth first without following links, at most [`MAX_WALK`] entries.
struct Listing {
    by_name: HashMap<String, Vec<String>>,
    /// Whether every entry was listed.
    complete: bool,
}

impl Listing {
    fn of(root: &Path) -> Listing {
        let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([String::new()]);
        let mut listed = 0;
        while let Some(dir) = queue.pop_front() {
            let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                listed += 1;
                if listed > MAX_WALK {
                    return Listing {
                        by_name,
                        complete: false,
                    };
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                let rel = if dir.is_empty() {
                    name.clone()
                } else {
                    format!("{dir}/{name}")
                };
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && !SKIPPED.contains(&name.as_str()) {
                    queue.push_back(rel.clone());
                }
                by_name.entry(name).or_default().push(rel);
            }
        }
        Listing {
            by_name,
            complete: true,
        }
    }

    /// Whether some path of the project ends with the parts of `rel`.
    fn ends_with(&self, rel: &str) -> bool {
        let rel = rel.trim_end_matches('/');
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let tail = format!("/{rel}");
        self.by_name
            .get(name)
            .is_some_and(|paths| paths.iter().any(|p| p.ends_with(&tail)))
    }
}
