//! Instruction files: managed, user, the ancestor walk, rules, imports, AGENTS.md, add-dirs —
//! everything of the startup block except MEMORY.md, in the client's order (`BQr`):
//!
//! 1. managed `CLAUDE.md`, the `claudeMd` string of managed-settings.json, managed rules;
//! 2. `$CFG/CLAUDE.md`, `$CFG/rules/**` (when user settings count);
//! 3. for each ancestor D of the start directory, outermost first: `D/CLAUDE.md`,
//!    `D/.claude/CLAUDE.md`, `D/.claude/rules/**`, `D/CLAUDE.local.md`;
//! 4. `--add-dir` folders, only with `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD`;
//!
//! each entry followed by its import subtree ([`file::Loader`]); then the AGENTS.md plugin edits
//! the list ([`agents`]).
//!
//! Modules: [`file`](mod@file) (the per-file procedure, [`Loader`]), [`access`] (resolution, refused
//! paths, capped reads), [`imports`] (resolution, approval), [`rules`],
//! [`walk`] (ancestors and the lazy scan), [`agents`], [`excludes`], [`deny`], [`paths`].
//!
//! Lazy loading reuses the same procedures: [`Loader::load_tree`] (one file and its imports,
//! pre-order, with globs and chain root) and [`rules::collect`] (a rules folder before the
//! conditional filter); a lazy load keeps its own processed set ([`Loader::fork`], or swap
//! [`Loader::processed`]).

pub mod access;
pub mod agents;
pub mod deny;
pub mod excludes;
pub mod file;
pub mod glob;
pub mod imports;
pub mod paths;
pub mod rules;
pub mod walk;

use foldhash::HashSet;

pub use file::{Emitted, Loader};

use super::Detail;
use super::model::{Kind, Lazy, Loaded, Size, SkipWhy, Skipped, Why};
use crate::constants::{
    CLAUDE_DIR_CLAUDE_MD, CLAUDE_DIR_RULES, CLAUDE_LOCAL_MD, CLAUDE_MD, RULES_DIR,
};
use crate::env::ClientEnv;
use crate::settings::{Settings, Source};
use crate::text::js;

/// The instruction part of the startup list.
#[derive(Debug, Clone, Default)]
pub struct Instructions {
    /// Entries in client order (without MEMORY.md).
    pub entries: Vec<Loaded>,
    /// What did not load and why.
    pub skipped: Vec<Skipped>,
    /// What is reachable only lazily.
    pub lazy: Vec<Lazy>,
    /// The processed-path set after the startup load.
    pub processed: HashSet<String>,
}

/// Path literal of the managed-settings `claudeMd` entry.
pub const MANAGED_SETTINGS_PATH: &str = "<managed-settings>";

/// Loads every instruction file the client would load at start, with the lazy scan.
pub fn load(env: &ClientEnv, settings: &Settings) -> Instructions {
    load_with(env, settings, Detail::Full)
}

/// Loads every instruction file the client would load at start; [`Detail::lists_lazy`] also
/// lists the files below the start directory that load only later (a walk of the subtree,
/// which the reminder itself does not need), [`Detail::reports_skips`] every AGENTS.md that
/// does not load.
pub fn load_with(env: &ClientEnv, settings: &Settings, detail: Detail) -> Instructions {
    let scan_lazy = detail.lists_lazy();
    crate::load::memo::reset();
    let mut loader = Loader::new(env, settings);
    let mut list: Vec<Emitted> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    let mut lazy: Vec<Lazy> = Vec::new();
    let plat = env.platform;
    let managed = paths::to_string(&env.managed_dir);

    let managed_file = paths::join(plat, &managed, CLAUDE_MD);
    list.extend(loader.load_tree(
        &managed_file,
        Kind::Managed,
        Why::ManagedFile,
        0,
        &mut skipped,
    ));
    if let Some(text) = settings
        .get(Source::Policy, "/claudeMd")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
    {
        list.push(Emitted {
            loaded: Loaded {
                path: MANAGED_SETTINGS_PATH.into(),
                kind: Kind::Managed,
                content: text.to_owned(),
                why: Why::ManagedSettings,
                unverified: false,
                // Measured as a file's content is (`file.rs`): the string's UTF-8 bytes stand
                // for the bytes on disk, its lines and UTF-16 units once trimmed.
                size: Size {
                    bytes: text.len() as u64,
                    lines: js::newlines(js::trim(text)) + 1,
                    utf16: js::utf16_len(js::trim(text)),
                },
            },
            globs: None,
            root: MANAGED_SETTINGS_PATH.into(),
        });
    }
    let rules_out = |loader: &mut Loader<'_>,
                     dir: &str,
                     kind: Kind,
                     list: &mut Vec<Emitted>,
                     skipped: &mut Vec<Skipped>,
                     lazy: &mut Vec<Lazy>| {
        let mut out = rules::RulesOut {
            entries: list,
            skipped,
            lazy,
        };
        rules::load(loader, dir, kind, &mut out);
    };
    rules_out(
        &mut loader,
        &paths::join(plat, &managed, CLAUDE_DIR_RULES),
        Kind::Managed,
        &mut list,
        &mut skipped,
        &mut lazy,
    );

    let user_file = if settings.is_enabled(Source::User) {
        let cfg = paths::to_string(&env.config_dir());
        let user_file = paths::join(plat, &cfg, CLAUDE_MD);
        list.extend(loader.load_tree(&user_file, Kind::User, Why::UserFile, 0, &mut skipped));
        rules_out(
            &mut loader,
            &paths::join(plat, &cfg, RULES_DIR),
            Kind::User,
            &mut list,
            &mut skipped,
            &mut lazy,
        );
        Some(user_file)
    } else {
        let cfg = paths::to_string(&env.config_dir());
        source_off(
            &mut skipped,
            "userSettings",
            &[paths::join(plat, &cfg, CLAUDE_MD)],
        );
        None
    };

    let project_on = settings.is_enabled(Source::Project);
    let local_on = settings.is_enabled(Source::Local);
    let (dirs, walk_skipped) = if project_on || local_on {
        walk::ancestors(env)
    } else {
        (Vec::new(), Vec::new())
    };
    skipped.extend(walk_skipped);
    for d in &dirs {
        let why = Why::Ancestor { dir: d.dir.clone() };
        if project_on && d.project {
            for name in [CLAUDE_MD, CLAUDE_DIR_CLAUDE_MD] {
                let p = paths::join(plat, &d.dir, name);
                list.extend(loader.load_tree(&p, Kind::Project, why.clone(), 0, &mut skipped));
            }
            rules_out(
                &mut loader,
                &paths::join(plat, &d.dir, CLAUDE_DIR_RULES),
                Kind::Project,
                &mut list,
                &mut skipped,
                &mut lazy,
            );
        }
        if local_on {
            let p = paths::join(plat, &d.dir, CLAUDE_LOCAL_MD);
            list.extend(loader.load_tree(&p, Kind::Local, why, 0, &mut skipped));
        }
    }
    let cwd = loader.cwd.clone();
    if !project_on {
        let files = [
            paths::join(plat, &cwd, CLAUDE_MD),
            paths::join(plat, &cwd, CLAUDE_DIR_CLAUDE_MD),
        ];
        source_off(&mut skipped, "projectSettings", &files);
    }
    if !local_on {
        source_off(
            &mut skipped,
            "localSettings",
            &[paths::join(plat, &cwd, CLAUDE_LOCAL_MD)],
        );
    }

    add_dirs(
        &mut loader,
        env,
        settings,
        &mut list,
        &mut skipped,
        &mut lazy,
    );

    let seeds = [Some(managed_file), user_file]
        .into_iter()
        .flatten()
        .map(|p| loader.key(&p))
        .collect();
    let added = agents::apply(
        &loader,
        settings,
        &dirs,
        seeds,
        detail.reports_skips(),
        &mut list,
        &mut skipped,
    );
    let added: Vec<String> = added.iter().map(|p| loader.key(p)).collect();
    loader.processed.extend(added);

    if scan_lazy && walk::lazy_below(env.platform, &loader.cwd, &mut lazy) {
        skipped.push(Skipped {
            path: loader.cwd.clone(),
            kind: None,
            from: None,
            why: SkipWhy::Other {
                reason: format!(
                    "lazy scan stopped after {} directories: deeper subdirectory files not listed",
                    walk::MAX_SCAN_DIRS
                ),
            },
        });
    }
    Instructions {
        entries: list.into_iter().map(|e| e.loaded).collect(),
        skipped,
        lazy,
        processed: loader.processed,
    }
}

/// `--add-dir` folders: CLAUDE.md, .claude/CLAUDE.md, rules, CLAUDE.local.md of each (no
/// ancestor walk, no AGENTS.md), only when `CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD` is set.
fn add_dirs(
    loader: &mut Loader<'_>,
    env: &ClientEnv,
    settings: &Settings,
    list: &mut Vec<Emitted>,
    skipped: &mut Vec<Skipped>,
    lazy: &mut Vec<Lazy>,
) {
    if env.flags.add_dirs.is_empty() {
        return;
    }
    if !env.is_truthy("CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD") {
        for a in &env.flags.add_dirs {
            skipped.push(Skipped {
                path: a.clone(),
                kind: None,
                from: None,
                why: SkipWhy::AddDirNeedsEnv,
            });
        }
        return;
    }
    let cwd = loader.cwd.clone();
    let plat = env.platform;
    for a in &env.flags.add_dirs {
        let dir = if crate::text::path::is_absolute(plat, a) {
            paths::normalize(plat, a)
        } else {
            paths::join(plat, &cwd, a)
        };
        let why = Why::AddDir { dir: dir.clone() };
        for name in [CLAUDE_MD, CLAUDE_DIR_CLAUDE_MD] {
            list.extend(loader.load_tree(
                &paths::join(plat, &dir, name),
                Kind::Project,
                why.clone(),
                0,
                skipped,
            ));
        }
        let mut out = rules::RulesOut {
            entries: list,
            skipped,
            lazy,
        };
        rules::load(
            loader,
            &paths::join(plat, &dir, CLAUDE_DIR_RULES),
            Kind::Project,
            &mut out,
        );
        if settings.is_enabled(Source::Local) {
            list.extend(loader.load_tree(
                &paths::join(plat, &dir, CLAUDE_LOCAL_MD),
                Kind::Local,
                why,
                0,
                skipped,
            ));
        }
    }
}

fn source_off(skipped: &mut Vec<Skipped>, source: &str, files: &[String]) {
    for f in files.iter().filter(|f| std::path::Path::new(f).exists()) {
        skipped.push(Skipped {
            path: f.clone(),
            kind: None,
            from: None,
            why: SkipWhy::SourceDisabled {
                source: source.into(),
            },
        });
    }
}

#[cfg(test)]
mod tests;
