//! `.claude/rules` folders (`Gze`): every `*.md` file (case-sensitive suffix, dot-files
//! included) at any depth, in raw `readdir` order (never sorted: the client reads the OS order),
//! a subdirectory's files at the position of its entry.
//!
//! Symlinks are followed and a rule is emitted under its RESOLVED path (two links to one file
//! give one entry). For Managed/Project/Local folders, a rules folder that is itself a link to
//! outside the start directory, or an entry resolving outside it, is skipped unless external
//! imports are approved; user rules may point anywhere. Loops and dangling links are skipped.
//!
//! Each rule goes through the per-file procedure; entries (the rule or any of its imports) with
//! a conditional `paths:` frontmatter are dropped from the startup list and listed as lazy.

use foldhash::HashSet;
use std::path::Path;

use super::file::{Emitted, Loader, Resolved, blocked, blocked_either};
use super::paths;
use crate::load::{Kind, Lazy, LazyWhy, SkipWhy, Skipped, Why};

/// Where the rules of one folder go.
pub struct RulesOut<'o> {
    /// Unconditional entries, in order.
    pub entries: &'o mut Vec<Emitted>,
    /// What did not load.
    pub skipped: &'o mut Vec<Skipped>,
    /// Conditional rules (reachable when a matching file is read).
    pub lazy: &'o mut Vec<Lazy>,
}

/// Loads one rules folder of this kind for the startup block: unconditional entries go to
/// `out.entries`, conditional ones (a rule or an import with a conditional `paths:`) to
/// `out.lazy` and `out.skipped`.
pub fn load(loader: &mut Loader<'_>, rules_dir: &str, kind: Kind, out: &mut RulesOut<'_>) {
    let include_external = loader.include_external(kind);
    for e in collect(
        loader,
        rules_dir,
        kind,
        include_external,
        false,
        out.skipped,
    ) {
        match e.globs {
            Some(globs) => {
                out.skipped.push(Skipped {
                    path: e.loaded.path.clone(),
                    kind: Some(kind),
                    from: None,
                    why: SkipWhy::Conditional {
                        globs: globs.clone(),
                    },
                });
                out.lazy.push(Lazy {
                    path: e.loaded.path,
                    why: LazyWhy::ConditionalRule { globs },
                });
            }
            None => out.entries.push(e),
        }
    }
}

/// Every rule under `rules_dir` in raw directory order, each followed by its imports, BEFORE
/// the conditional filter (`Gze`). `include_external` is the client's `includeExternal`
/// (startup: [`Loader::include_external`]); `conditional` is its `conditionalRule` flag (a
/// rules folder reached through a symlinked `.claude` outside the start directory is then
/// skipped even with approval).
pub fn collect(
    loader: &mut Loader<'_>,
    rules_dir: &str,
    kind: Kind,
    include_external: bool,
    conditional: bool,
    skipped: &mut Vec<Skipped>,
) -> Vec<Emitted> {
    let mut walk = Walk {
        loader,
        kind,
        top: rules_dir.to_owned(),
        visited: HashSet::default(),
        include_external,
        conditional,
    };
    let mut found = Vec::new();
    walk.dir(rules_dir, None, None, &mut found, skipped);
    found
}

struct Walk<'l, 'e> {
    loader: &'l mut Loader<'e>,
    kind: Kind,
    top: String,
    visited: HashSet<String>,
    include_external: bool,
    conditional: bool,
}

impl Walk<'_, '_> {
    fn dir(
        &mut self,
        dir: &str,
        discovered: Option<&str>,
        linked_from: Option<String>,
        found: &mut Vec<Emitted>,
        skipped: &mut Vec<Skipped>,
    ) {
        if self.visited.contains(dir) {
            return;
        }
        let plat = self.loader.platform;
        let join = |a: &str, b: &str| paths::join(plat, a, b);
        let real = Resolved::of(plat, dir);
        if real.absent {
            // Nothing is there (the common case for an ancestor's `.claude/rules`): no
            // directory to open.
            return;
        }
        if blocked_either(plat, dir, &real.path).is_some() || real.dangling() {
            return;
        }
        self.visited.insert(dir.to_owned());
        if real.is_symlink {
            self.visited.insert(real.path.clone());
        }
        let kind = self.kind;
        let may_leave = self.include_external && self.loader.may_leave(kind);
        let user_rules = paths::to_string(&self.loader.env().config_dir().join("rules"));
        let not_user =
            kind != Kind::User && !paths::inside(plat, discovered.unwrap_or(dir), &user_rules);
        let check =
            !may_leave || (linked_from.is_none() && not_user && real.canonical && real.is_symlink);
        let outside = !self.loader.inside_cwd(&real.path);
        let dir_is_link = check && is_link(dir) && outside;
        let parent = paths::dirname(plat, dir);
        let parent_is_link = check
            && !dir_is_link
            && kind == Kind::Project
            && not_user
            && real.is_symlink
            && outside
            && self.covers_cwd(&paths::dirname(plat, &parent))
            && is_link(&parent);
        if !may_leave
            && (dir_is_link
                || (parent_is_link && (self.conditional || !self.loader.approval.approved)))
        {
            skipped.push(self.skip(
                dir,
                None,
                SkipWhy::ExternalNotApproved {
                    key: self.loader.approval.key.clone(),
                },
            ));
            return;
        }
        let linked = linked_from.or_else(|| {
            if dir_is_link {
                Some(dir.to_owned())
            } else if parent_is_link {
                Some(parent.clone())
            } else {
                None
            }
        });
        let real_dir = real.canonical.then(|| real.path.clone());
        let Ok(entries) = std::fs::read_dir(&real.path) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let at = join(dir, &name);
            let target = Resolved::of(plat, &at);
            let shown = join(discovered.unwrap_or(dir), &name);
            if shown != target.path
                && let Some(hit) = self.loader.excludes.hit(&shown, kind)
            {
                skipped.push(self.skip(
                    &shown,
                    None,
                    SkipWhy::Excluded {
                        pattern: hit.pattern,
                        settings: hit.origin,
                    },
                ));
                continue;
            }
            if blocked(plat, &target.path).is_some() || target.dangling() {
                continue;
            }
            let (is_dir, is_file) = if target.is_symlink {
                match std::fs::metadata(&target.path) {
                    Ok(m) => (m.is_dir(), m.is_file()),
                    Err(_) => continue,
                }
            } else {
                match entry.file_type() {
                    Ok(t) => (t.is_dir(), t.is_file()),
                    Err(_) => continue,
                }
            };
            let escapes = real_dir
                .as_ref()
                .is_some_and(|d| target.path != join(d, &name))
                && !self.loader.inside_cwd(&target.path);
            let link_of = linked
                .clone()
                .or_else(|| (escapes && not_user).then(|| shown.clone()));
            if (is_dir || (is_file && name.ends_with(".md"))) && escapes && !may_leave {
                skipped.push(self.skip(
                    &shown,
                    None,
                    SkipWhy::ExternalNotApproved {
                        key: self.loader.approval.key.clone(),
                    },
                ));
                continue;
            }
            if is_dir {
                let disc = (shown != target.path).then_some(shown.as_str());
                self.dir(&target.path, disc, link_of, found, skipped);
            } else if is_file && name.ends_with(".md") {
                if shown != target.path
                    && !self
                        .loader
                        .processed
                        .contains(&self.loader.key(&target.path))
                    && let Some(rule) = self.loader.deny.hit(&shown, kind)
                {
                    skipped.push(self.skip(
                        &shown,
                        None,
                        SkipWhy::DeniedRead {
                            rule: rule.to_owned(),
                        },
                    ));
                    continue;
                }
                let why = Why::Rule {
                    dir: self.top.clone(),
                };
                found.extend(self.loader.load_tree(&target.path, kind, why, 0, skipped));
            }
        }
    }

    /// `NQr`: the start directory is inside `dir`, or `dir` is an additional directory.
    fn covers_cwd(&self, dir: &str) -> bool {
        let plat = self.loader.platform;
        let cwd = self.loader.cwd.clone();
        paths::inside(plat, &cwd, dir)
            || self.loader.env().flags.add_dirs.iter().any(|a| {
                paths::normalize(plat, &paths::join(plat, &cwd, a)) == paths::normalize(plat, dir)
            })
    }

    fn skip(&self, path: &str, from: Option<(String, usize)>, why: SkipWhy) -> Skipped {
        Skipped {
            path: path.to_owned(),
            kind: Some(self.kind),
            from,
            why,
        }
    }
}

fn is_link(path: &str) -> bool {
    crate::load::memo::lstat(Path::new(path)).is_ok_and(|m| m.file_type().is_symlink())
}
