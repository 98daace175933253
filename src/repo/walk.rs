//! The repository walk: one pass over the tree with the `ignore` crate (`.gitignore`,
//! `.ignore` and `.git/info/exclude` respected, hidden entries included so `.claude/` is seen,
//! symlinks listed but never followed), collecting what `check` needs: every file (for rule
//! `paths:` matching), the instruction files and the names that look like them, the package
//! roots, the project settings files and the `.claude` links.

use crate::constants::{
    AGENTS_MD, CLAUDE_DIR, CLAUDE_LOCAL_MD, CLAUDE_MD, LOCAL_SETTINGS_FILE, RULES_DIR,
    SETTINGS_FILE,
};
use std::path::{Path, PathBuf};

/// Files whose folder is a package root (a place a session is often started in).
pub const PACKAGE_MARKERS: &[&str] = &[
    "package.json",
    "Cargo.toml",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Gemfile",
    "composer.json",
    "mix.exs",
    "deno.json",
    "Package.swift",
    "pubspec.yaml",
    "CMakeLists.txt",
];

/// What an instruction file is, by its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstrKind {
    /// `D/CLAUDE.md` or `D/.claude/CLAUDE.md`.
    Claude,
    /// `D/CLAUDE.local.md`.
    Local,
    /// `D/AGENTS.md` or `D/.claude/AGENTS.md`.
    Agents,
    /// `D/.claude/rules/**/*.md`.
    Rule,
}

/// An instruction file of the repository.
#[derive(Debug, Clone)]
pub struct InstrFile {
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// The directory it belongs to (the one holding it, or holding its `.claude`), `""` for the
    /// root.
    pub dir: String,
    /// Its kind.
    pub kind: InstrKind,
}

/// A file named almost like an instruction file, which the client never loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMiss {
    /// Path relative to the root.
    pub rel: String,
    /// The path it would need to load (relative to the root).
    pub wanted: String,
    /// Only the letter case differs (it loads on case-insensitive file systems).
    pub case_only: bool,
}

/// A `.claude` or `.claude/rules` symbolic link.
#[derive(Debug, Clone)]
pub struct Link {
    /// The link, relative to the root.
    pub rel: String,
    /// The directory it belongs to.
    pub dir: String,
    /// Its real target, when it resolves.
    pub target: Option<PathBuf>,
}

/// The repository as the walk saw it.
#[derive(Debug, Default)]
pub struct Repo {
    /// The root (a real path).
    pub root: PathBuf,
    /// Every file (not directories), relative, in walk order.
    pub files: Vec<String>,
    /// Directories walked (the root included).
    pub dirs: usize,
    /// Instruction files.
    pub instructions: Vec<InstrFile>,
    /// Near-miss names.
    pub near_misses: Vec<NearMiss>,
    /// Package roots: (directory, marker file), one per directory.
    pub packages: Vec<(String, &'static str)>,
    /// `.claude/settings.json` and `.claude/settings.local.json` files.
    pub settings: Vec<String>,
    /// `.claude` and `.claude/rules` links.
    pub links: Vec<Link>,
    /// Entries the walk could not read, in words.
    pub errors: Vec<String>,
}

impl Repo {
    /// Walks `root` (a real path).
    pub fn walk(root: &Path) -> Repo {
        let mut repo = Repo {
            root: root.to_path_buf(),
            ..Repo::default()
        };
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .parents(true)
            .ignore(true)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .require_git(false)
            .follow_links(false)
            .filter_entry(|e| e.file_name() != ".git")
            .build();
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    repo.errors.push(e.to_string());
                    continue;
                }
            };
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let Some(rel) = rel.to_str().map(str::to_owned) else {
                repo.errors.push(format!(
                    "{}: not valid UTF-8, skipped",
                    entry.path().display()
                ));
                continue;
            };
            let Some(ft) = entry.file_type() else {
                continue;
            };
            if ft.is_dir() {
                repo.dirs += 1;
                continue;
            }
            if ft.is_symlink() {
                repo.link(entry.path(), &rel);
            }
            repo.file(rel, ft.is_symlink());
        }
        repo
    }

    fn link(&mut self, path: &Path, rel: &str) {
        let (parent, name) = split(rel);
        let dir = if name == CLAUDE_DIR {
            parent
        } else if name == RULES_DIR && split(parent).1 == CLAUDE_DIR {
            split(parent).0
        } else {
            return;
        };
        self.links.push(Link {
            rel: rel.to_owned(),
            dir: dir.to_owned(),
            target: std::fs::canonicalize(path).ok(),
        });
    }

    fn file(&mut self, rel: String, is_link: bool) {
        let (parent, name) = split(&rel);
        let (grand, parent_name) = split(parent);
        if !is_link
            && PACKAGE_MARKERS.contains(&name)
            && self.packages.last().is_none_or(|(d, _)| d != parent)
        {
            let marker = PACKAGE_MARKERS.iter().find(|m| **m == name).copied();
            self.packages
                .push((parent.to_owned(), marker.unwrap_or("")));
        }
        let in_dot_claude = parent_name == CLAUDE_DIR;
        if in_dot_claude && (name == SETTINGS_FILE || name == LOCAL_SETTINGS_FILE) {
            self.settings.push(rel.clone());
        }
        if let Some((dir, kind)) = classify(parent, name, in_dot_claude, grand) {
            self.instructions.push(InstrFile {
                rel: rel.clone(),
                dir: dir.to_owned(),
                kind,
            });
        } else if let Some(miss) = near_miss(&rel, parent, name, in_dot_claude, grand) {
            self.near_misses.push(miss);
        }
        self.files.push(rel);
    }

    /// The absolute path of a relative one.
    pub fn abs(&self, rel: &str) -> String {
        if rel.is_empty() {
            self.root.to_string_lossy().into_owned()
        } else {
            format!("{}/{rel}", self.root.to_string_lossy())
        }
    }

    /// A loader path relative to the root, or `None` when it lies outside.
    pub fn rel<'p>(&self, path: &'p str) -> Option<&'p str> {
        let root = self.root.to_str()?;
        let rest = path.strip_prefix(root)?;
        match rest.strip_prefix('/') {
            Some(r) => Some(r),
            None if rest.is_empty() => Some(""),
            None => None,
        }
    }

    /// A loader path as shown: relative to the root when inside, else as is.
    pub fn show<'p>(&self, path: &'p str) -> &'p str {
        self.rel(path).unwrap_or(path)
    }
}

/// `(parent, name)` of a relative path (`""` parent at the root).
pub fn split(rel: &str) -> (&str, &str) {
    match rel.rfind('/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => ("", rel),
    }
}

/// The directory and kind of an instruction file at `parent/name`, if it is one.
fn classify<'a>(
    parent: &'a str,
    name: &str,
    in_dot_claude: bool,
    grand: &'a str,
) -> Option<(&'a str, InstrKind)> {
    if let Some(dir) = rules_dir_of(parent) {
        return name.ends_with(".md").then_some((dir, InstrKind::Rule));
    }
    match (name, in_dot_claude) {
        (CLAUDE_MD, true) => Some((grand, InstrKind::Claude)),
        (AGENTS_MD, true) => Some((grand, InstrKind::Agents)),
        (CLAUDE_MD, false) => Some((parent, InstrKind::Claude)),
        (AGENTS_MD, false) => Some((parent, InstrKind::Agents)),
        (CLAUDE_LOCAL_MD, false) => Some((parent, InstrKind::Local)),
        _ => None,
    }
}

/// The directory holding `.claude/rules` when `parent` is that rules folder or below it
/// (`"a/.claude/rules/x"` → `"a"`).
fn rules_dir_of(parent: &str) -> Option<&str> {
    dot_claude_child(parent, RULES_DIR)
}

/// The directory holding `.claude` when `parent` is `D/.claude/CHILD` or below it.
fn dot_claude_child<'p>(parent: &'p str, child: &str) -> Option<&'p str> {
    let mut offset = 0;
    let parts: Vec<&str> = parent.split('/').collect();
    for (k, part) in parts.iter().enumerate() {
        if *part == CLAUDE_DIR && parts.get(k + 1) == Some(&child) {
            return Some(parent[..offset.max(1) - 1].trim_end_matches('/'));
        }
        offset += part.len() + 1;
    }
    None
}

/// A file the client never loads although its name says it is meant to.
fn near_miss(
    rel: &str,
    parent: &str,
    name: &str,
    in_dot_claude: bool,
    grand: &str,
) -> Option<NearMiss> {
    let join = |d: &str, n: &str| {
        if d.is_empty() {
            n.to_owned()
        } else {
            format!("{d}/{n}")
        }
    };
    let miss = |wanted: String, case_only: bool| {
        Some(NearMiss {
            rel: rel.to_owned(),
            wanted,
            case_only,
        })
    };
    if rules_dir_of(parent).is_some() {
        // A rule must end in `.md`, exact case.
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".md") {
            return miss(
                join(parent, &format!("{}.md", &name[..name.len() - 3])),
                true,
            );
        }
        return None;
    }
    if in_dot_claude {
        if name == CLAUDE_LOCAL_MD {
            return miss(join(grand, CLAUDE_LOCAL_MD), false);
        }
        if name == "rules.md" {
            return miss(join(parent, "rules/rules.md"), false);
        }
        for exact in [CLAUDE_MD, AGENTS_MD] {
            if name.eq_ignore_ascii_case(exact) {
                return miss(join(parent, exact), true);
            }
        }
    }
    if dot_claude_child(parent, "rule").is_some() {
        if name.ends_with(".md") {
            return miss(
                parent.replacen(".claude/rule", ".claude/rules", 1) + "/" + name,
                false,
            );
        }
        return None;
    }
    for exact in [CLAUDE_MD, AGENTS_MD, CLAUDE_LOCAL_MD] {
        if name != exact && name.eq_ignore_ascii_case(exact) && !in_dot_claude {
            return miss(join(parent, exact), true);
        }
    }
    None
}
