//! The repository walk: one pass over the tree with the `ignore` crate (`.gitignore`,
//! `.ignore` and `.git/info/exclude` respected, hidden entries included so `.claude/` is seen,
//! symlinks listed but never followed), collecting what `check` needs: every file (for rule
//! `paths:` matching), the instruction files and the names that look like them, the package
//! roots, the project settings files and the `.claude` links.
//!
//! Two kinds of path meet here. The walk's own are relative to the root and always
//! `/`-separated, whatever the host (`a/.claude/rules/x.md`: what rules match, compare and
//! print). The loader's are absolute strings in the platform model's flavour (node's
//! `path.posix` or `path.win32`, `text::path`): `C:\Users\me\p\CLAUDE.md` under the Windows
//! model, NFC under macOS's. [`Repo::rel`] and [`Repo::abs`] map one to the other in that
//! flavour.

use crate::constants::{CLAUDE_DIR, LOCAL_SETTINGS_FILE, RULES_DIR, SETTINGS_FILE};
use crate::platform::Platform;
use std::path::{Path, PathBuf};

mod classify;
mod paths;

use classify::{classify, near_miss};
use paths::{model_root, slash_rel};

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
    /// The platform model whose paths the loader gives ([`Repo::rel`], [`Repo::abs`]).
    pub platform: Platform,
    /// The root as the loader writes it under that model (`None`: not UTF-8, so no loader
    /// path lies inside).
    model_root: Option<String>,
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
    /// Walks `root` (a real path), for sessions of the `platform` model.
    pub fn walk(root: &Path, platform: Platform) -> Repo {
        let mut repo = Repo {
            root: root.to_path_buf(),
            platform,
            model_root: root.to_str().map(|r| model_root(platform, r)),
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
            let Some(rel) = slash_rel(rel) else {
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
}

/// `(parent, name)` of a relative path (`""` parent at the root).
pub fn split(rel: &str) -> (&str, &str) {
    match rel.rfind('/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => ("", rel),
    }
}
