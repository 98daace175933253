//! One simulated session start per directory that matters, through the loader itself
//! ([`crate::load::load_session_with`], [`Detail::Startup`]): what each loads, and what each
//! loses against the root, with the reason the loader gives there.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use serde::Serialize;

use super::walk::Repo;
use crate::env::{ClientEnv, ClientFlags, PLATFORM_VAR};
use crate::load::{self, Detail, Kind, Loaded, Session, SkipWhy, Skipped, Why};
use crate::platform::Platform;
use crate::text::js;

/// Why a directory is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartWhy {
    /// The repository root.
    Root,
    /// It holds instruction files (its own, or in its `.claude`).
    Instructions,
    /// A package root (`package.json`, `Cargo.toml`, …).
    Package,
    /// The caller asked for it (`receipt` checks the directory it was started in).
    Given,
}

/// A directory to start a session in.
#[derive(Debug, Clone)]
pub struct Start {
    /// Relative to the root (`""` is the root).
    pub dir: String,
    /// Why it is checked.
    pub why: Vec<StartWhy>,
    /// The package marker, when it is a package root.
    pub marker: Option<&'static str>,
}

/// The directories to check: the root, then every directory holding instruction files or a
/// package marker, sorted, at most `max` in all, and `given` (relative to the root) whatever
/// `max` is. Returns them and how many were left out.
pub fn starts(repo: &Repo, max: usize, given: Option<&str>) -> (Vec<Start>, usize) {
    let mut map: BTreeMap<String, Start> = BTreeMap::new();
    let mut add = |dir: &str, why: StartWhy, marker: Option<&'static str>| {
        let s = map.entry(dir.to_owned()).or_insert_with(|| Start {
            dir: dir.to_owned(),
            why: Vec::new(),
            marker: None,
        });
        if !s.why.contains(&why) {
            s.why.push(why);
            s.why.sort();
        }
        s.marker = s.marker.or(marker);
    };
    add("", StartWhy::Root, None);
    for f in &repo.instructions {
        add(&f.dir, StartWhy::Instructions, None);
    }
    for (dir, marker) in &repo.packages {
        add(dir, StartWhy::Package, Some(marker));
    }
    if let Some(dir) = given {
        add(dir, StartWhy::Given, None);
    }
    let total = map.len();
    let mut list: Vec<Start> = Vec::new();
    let mut rest: Option<Start> = None;
    for (k, start) in map.into_values().enumerate() {
        if k < max.max(1) {
            list.push(start);
        } else if Some(start.dir.as_str()) == given {
            rest = Some(start);
        }
    }
    list.extend(rest);
    let left = total - list.len();
    (list, left)
}

/// The environment sessions start with.
#[derive(Debug, Clone)]
pub enum Environment {
    /// A fresh clone as a new teammate sees it: no user files, settings or approvals, no
    /// managed policy, no client environment switches. Holds the (absent) home to point at, and
    /// the platform model the caller runs (`CCMEM_PLATFORM`'s, else the host's), which the
    /// sessions keep.
    Clean(PathBuf, Platform),
    /// This process's environment: the user's own `~/.claude`, approvals, managed policy.
    User(BTreeMap<String, String>),
}

impl Environment {
    /// The client environment of a session started in `cwd`.
    pub fn client_env(&self, cwd: PathBuf, flags: &ClientFlags) -> ClientEnv {
        let vars = match self {
            Environment::Clean(home, platform) => [
                (
                    "HOME".to_owned(),
                    home.join("home").to_string_lossy().into_owned(),
                ),
                (
                    "CCMEM_MANAGED_DIR".to_owned(),
                    home.join("managed").to_string_lossy().into_owned(),
                ),
                (PLATFORM_VAR.to_owned(), platform.to_string()),
            ]
            .into(),
            Environment::User(vars) => vars.clone(),
        };
        ClientEnv::new(cwd, vars, flags.clone())
    }

    /// The platform model sessions run (the clean one's, else `CCMEM_PLATFORM`'s or the
    /// host's).
    pub fn platform(&self) -> Platform {
        match self {
            Environment::Clean(_, platform) => *platform,
            Environment::User(_) => {
                self.client_env(PathBuf::new(), &ClientFlags::default())
                    .platform
            }
        }
    }

    /// `clean` or `user`.
    pub fn name(&self) -> &'static str {
        match self {
            Environment::Clean(..) => "clean",
            Environment::User(_) => "user",
        }
    }
}

/// One file a session loads.
#[derive(Debug, Clone, Serialize)]
pub struct LoadedFile {
    /// Relative to the root when inside it, else absolute.
    pub path: String,
    /// Its kind.
    pub kind: Kind,
    /// UTF-16 units the model receives (trimmed content; what the client calls characters).
    pub chars: usize,
    /// Rough token estimate (chars ÷ 4, rounded up).
    pub tokens_estimate: usize,
}

/// A file the root session loads and this one does not.
#[derive(Debug, Clone, Serialize)]
pub struct Loss {
    /// The file (as in [`LoadedFile::path`]).
    pub path: String,
    /// Its size at the root.
    pub chars: usize,
    /// The loader's reason here, when it gives one.
    pub reason: Option<SkipWhy>,
    /// The reason in words.
    pub reason_text: String,
    /// The import line that brings it in at the root, when it is an import.
    pub from: Option<(String, usize)>,
    /// The path the loader skipped here, when it is not the file itself (a linked folder or
    /// file of `.claude/rules`, shown as the link).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_as: Option<String>,
}

/// The session started in one directory.
#[derive(Debug)]
pub struct DirSession {
    /// The directory and why it is checked.
    pub start: Start,
    /// The loader's answer.
    pub session: Session,
    /// Files in the startup block, in order (MEMORY.md excluded).
    pub loaded: Vec<LoadedFile>,
    /// What it loses against the root.
    pub lost: Vec<Loss>,
}

impl DirSession {
    /// Total characters loaded.
    pub fn chars(&self) -> usize {
        self.loaded.iter().map(|f| f.chars).sum()
    }

    /// The directory as shown (`.` for the root).
    pub fn shown(&self) -> &str {
        if self.start.dir.is_empty() {
            "."
        } else {
            &self.start.dir
        }
    }

    /// The skip the loader recorded for `path` here, directly or for a linked folder that
    /// holds it.
    pub fn skip_for(&self, path: &str) -> Option<&Skipped> {
        Skips::of(self, &mut RealPaths::default()).find(path)
    }

    /// The entry of `path`, when it loads here.
    pub fn entry(&self, path: &str) -> Option<&Loaded> {
        self.session.entries.iter().find(|e| e.path == path)
    }
}

/// Loads a session in every start directory; the first is the root.
pub fn load_all(
    repo: &Repo,
    starts: Vec<Start>,
    env: &Environment,
    flags: &ClientFlags,
) -> Vec<DirSession> {
    let mut out: Vec<DirSession> = starts
        .into_iter()
        .map(|start| {
            let cwd = repo.host_path(&start.dir);
            let session = load::load_session_with(&env.client_env(cwd, flags), Detail::Startup);
            let loaded = session
                .entries
                .iter()
                .filter(|e| e.kind != Kind::AutoMem)
                .map(|e| {
                    let chars = js::utf16_len(js::trim(&e.content));
                    LoadedFile {
                        path: repo.show(&e.path).into_owned(),
                        kind: e.kind,
                        chars,
                        tokens_estimate: crate::receipt::tokens_estimate(chars),
                    }
                })
                .collect();
            DirSession {
                start,
                session,
                loaded,
                lost: Vec::new(),
            }
        })
        .collect();
    if let Some((root, rest)) = out.split_first_mut() {
        let mut real = RealPaths::default();
        for s in rest {
            s.lost = losses(repo, root, s, &mut real);
        }
    }
    out
}

/// Files the root loads that `here` does not, each with the loader's reason here.
fn losses(repo: &Repo, root: &DirSession, here: &DirSession, real: &mut RealPaths) -> Vec<Loss> {
    let skips = Skips::of(here, real);
    let present: HashSet<&str> = here
        .session
        .entries
        .iter()
        .map(|e| e.path.as_str())
        .collect();
    let lost_paths: HashSet<&str> = root
        .session
        .entries
        .iter()
        .filter(|e| e.kind != Kind::AutoMem && !present.contains(e.path.as_str()))
        .map(|e| e.path.as_str())
        .collect();
    root.session
        .entries
        .iter()
        .filter(|e| lost_paths.contains(e.path.as_str()))
        .map(|e| {
            let from = match &e.why {
                Why::Import { from, line, .. } => Some((repo.show(from).into_owned(), *line)),
                _ => None,
            };
            let skip = skips.find(&e.path);
            let reason_text = match skip {
                Some(s) => crate::receipt::skip_words(&s.why),
                None => match &e.why {
                    Why::Import { from, .. } if lost_paths.contains(from.as_str()) => {
                        format!("imported by {}, which does not load here", repo.show(from))
                    }
                    _ => "not reached from here".to_owned(),
                },
            };
            Loss {
                path: repo.show(&e.path).into_owned(),
                chars: js::utf16_len(js::trim(&e.content)),
                reason: skip.map(|s| s.why.clone()),
                reason_text,
                from,
                skipped_as: skip
                    .filter(|s| s.path != e.path)
                    .map(|s| repo.show(&s.path).into_owned()),
            }
        })
        .collect()
}

/// `realpath` of the skipped paths, each asked once for all sessions (a monorepo's sessions
/// skip the same files).
#[derive(Default)]
struct RealPaths(HashMap<String, Option<String>>);

impl RealPaths {
    fn of(&mut self, path: &str) -> Option<&str> {
        self.0
            .entry(path.to_owned())
            .or_insert_with(|| {
                let real = std::fs::canonicalize(path).ok()?;
                Some(crate::text::path::strip_verbatim(&real.to_string_lossy()).into_owned())
            })
            .as_deref()
    }
}

/// A session's skips, found by path in a lookup per folder of the path rather than a
/// `realpath` per skip per question: a repository whose root imports 200 packages' files
/// asked 200 sessions × 200 losses × 200 skips (a minute, most of it `readlink`).
struct Skips<'a> {
    skipped: &'a [Skipped],
    /// The first skip of each path.
    by_path: HashMap<&'a str, usize>,
    /// The first skip of each real path.
    by_real: HashMap<String, usize>,
}

impl<'a> Skips<'a> {
    fn of(here: &'a DirSession, real: &mut RealPaths) -> Self {
        let skipped = here.session.skipped.as_slice();
        let (mut by_path, mut by_real) = (HashMap::new(), HashMap::new());
        for (i, s) in skipped.iter().enumerate() {
            by_path.entry(s.path.as_str()).or_insert(i);
            if let Some(r) = real.of(&s.path) {
                by_real.entry(r.to_owned()).or_insert(i);
            }
        }
        Skips {
            skipped,
            by_path,
            by_real,
        }
    }

    /// The first skip whose path is `path`, or whose real path is `path` or a folder holding
    /// it (the loader skipped a linked folder).
    fn find(&self, path: &str) -> Option<&'a Skipped> {
        let folders = path
            .char_indices()
            .filter(|&(_, c)| std::path::is_separator(c))
            .map(|(at, _)| &path[..at])
            .chain([path]);
        let by_real = folders.filter_map(|f| self.by_real.get(f));
        let first = by_real.chain(self.by_path.get(path)).min()?;
        Some(&self.skipped[*first])
    }
}

/// Whether `path` lies inside the repository.
pub fn inside(repo: &Repo, path: &str) -> bool {
    repo.rel(path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directory a receipt was started in is checked even when it holds nothing and
    /// `max-dirs` left the others out: its findings are the receipt's.
    #[test]
    fn the_given_start_is_checked_whatever_max_dirs_is() {
        let mut repo = Repo::default();
        repo.packages = ["apps/a", "apps/b", "apps/c"]
            .map(|d| (d.to_owned(), "package.json"))
            .to_vec();
        let dirs = |max, given| {
            let (list, left) = starts(&repo, max, given);
            (list.into_iter().map(|s| s.dir).collect::<Vec<_>>(), left)
        };
        assert_eq!(dirs(2, None), (vec!["".into(), "apps/a".into()], 2));
        assert_eq!(
            dirs(2, Some("apps/c")),
            (vec!["".into(), "apps/a".into(), "apps/c".into()], 1)
        );
        assert_eq!(
            dirs(2, Some("docs")),
            (vec!["".into(), "apps/a".into(), "docs".into()], 2)
        );
        let (list, _) = starts(&repo, 10, Some("apps/b"));
        let b = list.iter().find(|s| s.dir == "apps/b").unwrap();
        assert_eq!(b.why, [StartWhy::Package, StartWhy::Given]);
    }
}
