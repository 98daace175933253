//! Which transcripts belong to a project.
//!
//! The client files a session's transcript under `<config>/projects/<slug of its cwd>/`, but its
//! memory under the slug of the canonical git root of that cwd: a session started in `web/` or
//! in a linked worktree of the repository writes its transcript elsewhere than the memory. A
//! project's sessions are so found in the folders named after its root, after each folder inside
//! it (the root's slug and a `-`: slugs are lossy, so `/a/proj-old` shares the prefix of
//! `/a/proj/old`) and after each of its linked worktrees (listed in `<root>/.git/worktrees/*/
//! gitdir`, each held to the loader's own canonical root); then each session's recorded `cwd` must
//! lie inside the root or a worktree, which settles what the lossy slug cannot.
//!
//! The root, the slugs and the canonical root are the loader's own (`load::automem::folder::
//! project_key`, `load::automem::slug::slug`, `load::git::canonical_root`). Nothing here follows a
//! link: a folder or file under `projects/` that is a symbolic link is reported and left alone.

use std::path::{Path, PathBuf};

use super::model::Diagnostic;
use crate::constants::SLUG_MAX_UTF16;
use crate::env::ClientEnv;
use crate::load::automem::{folder, slug::slug};

/// Transcripts read at most per project (newest first when there are more).
pub const MAX_TRANSCRIPTS: usize = 100_000;
/// Linked worktrees looked at at most.
const MAX_WORKTREES: usize = 1_000;

/// The project the client would use in a directory.
#[derive(Debug, Clone)]
pub struct Project {
    /// Its root: the canonical git root of the directory, else the directory itself.
    pub root: PathBuf,
    /// Its linked worktrees.
    pub worktrees: Vec<PathBuf>,
    /// Its memory folder (trailing `/`), as the client resolves it there.
    pub memory_folder: Option<String>,
    /// `<config>/projects`.
    pub projects_dir: PathBuf,
    /// The start directory (a relative memory folder is relative to it).
    pub cwd: PathBuf,
}

impl Project {
    /// The project of `env`'s start directory.
    pub fn of(env: &ClientEnv, settings: &crate::settings::Settings) -> Project {
        crate::load::memo::reset();
        let root = PathBuf::from(folder::project_key(env));
        let memory_folder = folder::resolve(env, settings).map(|f| f.path);
        Project {
            worktrees: worktrees(&root),
            root,
            memory_folder,
            projects_dir: env
                .cwd
                .join(env.config_dir())
                .join(crate::constants::PROJECTS_DIR),
            cwd: env.cwd.clone(),
        }
    }

    /// The MEMORY.md path as the client prints it.
    pub fn index_path(&self) -> Option<String> {
        self.memory_folder
            .as_ref()
            .map(|f| format!("{f}{}", crate::constants::INDEX_FILE))
    }

    /// A path as the client prints it, on disk (relative to the start directory).
    pub fn on_disk(&self, path: &str) -> PathBuf {
        self.cwd.join(path)
    }

    /// Whether a session started in `cwd` belongs to this project: inside its root or one of
    /// its worktrees.
    pub fn holds(&self, cwd: &str) -> bool {
        let cwd = Path::new(cwd);
        std::iter::once(&self.root)
            .chain(&self.worktrees)
            .any(|r| cwd.starts_with(r))
    }

    /// The transcript folder names that can hold this project's sessions: each root's slug,
    /// and the prefix of the slugs of the folders inside it (past 200 units a slug is cut and
    /// hashed, so the prefix is the cut part).
    fn folder_names(&self) -> Vec<(String, String)> {
        std::iter::once(&self.root)
            .chain(&self.worktrees)
            .map(|r| {
                let s = slug(&r.to_string_lossy());
                let prefix = format!("{}-", &s[..s.len().min(SLUG_MAX_UTF16)]);
                (s, prefix)
            })
            .collect()
    }
}

/// The linked worktrees of the repository at `root` that the loader maps back to `root`.
fn worktrees(root: &Path) -> Vec<PathBuf> {
    let admin = root.join(".git/worktrees");
    let Ok(entries) = std::fs::read_dir(&admin) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten().take(MAX_WORKTREES) {
        let Ok(bytes) = crate::fsread::read_capped(&e.path().join("gitdir"), 4096) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let Some(dot_git) = text.lines().next().map(str::trim).filter(|l| !l.is_empty()) else {
            continue;
        };
        let Some(wt) = Path::new(dot_git).parent() else {
            continue;
        };
        if crate::load::git::canonical_root(wt) == root {
            out.push(wt.to_path_buf());
        }
    }
    out.sort();
    out
}

/// A main transcript and the subagent transcripts beside it.
#[derive(Debug, Clone)]
pub struct Found {
    /// `<folder>/<session-id>.jsonl`.
    pub path: PathBuf,
    /// `<folder>/<session-id>/subagents/agent-*.jsonl`.
    pub subagents: Vec<PathBuf>,
}

/// Every transcript of `project`'s folders, with diagnostics for what was left alone.
pub fn transcripts(project: &Project, diags: &mut Vec<Diagnostic>) -> Vec<Found> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&project.projects_dir) else {
        return out;
    };
    let names = project.folder_names();
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            names
                .iter()
                .any(|(s, prefix)| *n == **s || n.starts_with(prefix.as_str()))
        })
        .map(|e| e.path())
        .collect();
    folders.sort();
    for dir in folders {
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                link_left(diags, &dir);
                continue;
            }
            Ok(m) if m.is_dir() => {}
            _ => continue,
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".jsonl") {
                continue;
            }
            let path = e.path();
            match e.file_type() {
                Ok(t) if t.is_symlink() => {
                    link_left(diags, &path);
                    continue;
                }
                Ok(t) if t.is_file() => {}
                _ => continue,
            }
            let own = path.with_extension("");
            let subagents = match std::fs::symlink_metadata(&own) {
                Ok(m) if m.file_type().is_symlink() => {
                    link_left(diags, &own);
                    Vec::new()
                }
                Ok(m) if m.is_dir() => subagents(&own.join("subagents"), diags),
                _ => Vec::new(),
            };
            out.push(Found { path, subagents });
        }
    }
    if out.len() > MAX_TRANSCRIPTS {
        diags.push(Diagnostic {
            path: project.projects_dir.to_string_lossy().into_owned(),
            line: None,
            message: format!(
                "{} transcripts: only the newest {MAX_TRANSCRIPTS} are read",
                out.len()
            ),
        });
        out.sort_by_key(|f| {
            std::cmp::Reverse(
                std::fs::symlink_metadata(&f.path)
                    .and_then(|m| m.modified())
                    .ok(),
            )
        });
        out.truncate(MAX_TRANSCRIPTS);
    }
    out
}

fn subagents(dir: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => {
            link_left(diags, dir);
            return Vec::new();
        }
        Ok(m) if m.is_dir() => {}
        _ => return Vec::new(),
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("agent-") && n.ends_with(".jsonl")
        })
        .filter(|e| match e.file_type() {
            Ok(t) if t.is_symlink() => {
                link_left(diags, &e.path());
                false
            }
            Ok(t) => t.is_file(),
            Err(_) => false,
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

fn link_left(diags: &mut Vec<Diagnostic>, path: &Path) {
    diags.push(Diagnostic {
        path: path.to_string_lossy().into_owned(),
        line: None,
        message:
            "a symbolic link: not followed (history reads only what is inside the projects folder)"
                .into(),
    });
}
