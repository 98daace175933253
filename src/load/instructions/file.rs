//! The per-file procedure (`cce`): every walked file, rule file and import goes through
//! [`Loader::load_tree`], which emits the file and then its import subtree, pre-order.
//!
//! Checks, in the client's order (each failing check records a [`Skipped`] with its reason):
//! 1. already in the session's processed set, or import depth ≥ 5;
//! 2. excluded by `claudeMdExcludes` (User/Project/Local);
//! 3. a network, protected (`connector-downloads`, `.artifact-work`, scratchpad) or device
//!    path, for the path or its symlink target; a dangling link;
//! 4. an import whose resolved target is outside the start directory without approval;
//! 5. `local-agent` entrypoint: a symlinked or hard-linked User file;
//! 6. its symlink target already processed;
//! 7. (the path is now processed) withheld by a Read deny rule (Project/Local);
//! 8. (its target is now processed) not a regular file, over 4 MiB, unreadable, a non-text
//!    extension, or empty after frontmatter/comment removal and trim.
//!
//! Then the entry is emitted and each distinct import (in order of first appearance) is loaded
//! with depth + 1 and the same kind.

use foldhash::HashSet;
use std::path::Path;
use std::rc::Rc;

pub use super::access::{Resolved, blocked, blocked_either, decode, is_text_extension, read_text};
use super::deny::Deny;
use super::excludes::Excludes;
use super::imports::{self, Approval};
use super::paths;
use crate::constants::{MAX_FILE_BYTES, MAX_IMPORT_DEPTH};
use crate::env::ClientEnv;
use crate::fsread::{self, Unread};
use crate::load::{Kind, Loaded, Size, SkipWhy, Skipped, Why, rule_paths};
use crate::platform::Platform;
use crate::settings::Settings;
use crate::text::{comments, frontmatter, js, markdown};

/// One emitted file with what the caller needs beyond the [`Loaded`] entry.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// The entry.
    pub loaded: Loaded,
    /// The rule globs of its frontmatter (`paths:`), when it has a conditional one.
    pub globs: Option<Vec<String>>,
    /// The path of the file that started its import chain (itself for depth 0).
    pub root: String,
}

/// The session-wide state of the per-file procedure.
pub struct Loader<'e> {
    env: &'e ClientEnv,
    /// The platform whose path rules apply (the environment's).
    pub platform: Platform,
    /// The start directory (real path), as a string.
    pub cwd: String,
    home: String,
    /// Every path the session has processed (first occurrence wins), by its
    /// [`paths::dedup_key`].
    pub processed: HashSet<String>,
    /// The external-import approval.
    pub approval: Approval,
    /// `claudeMdExcludes`.
    pub excludes: Rc<Excludes>,
    /// Read deny rules.
    pub deny: Rc<Deny>,
    local_agent: bool,
    unverified_host: bool,
}

impl<'e> Loader<'e> {
    /// A loader with an empty processed set.
    pub fn new(env: &'e ClientEnv, settings: &Settings) -> Self {
        Loader {
            env,
            platform: env.platform,
            cwd: paths::to_string(&env.cwd),
            home: paths::to_string(&env.home),
            // Room for a deep project's paths (growing the set rehashed them all, repeatedly).
            processed: HashSet::with_capacity_and_hasher(128, Default::default()),
            approval: Approval::read(env),
            excludes: Rc::new(Excludes::from_settings(env.platform, settings)),
            deny: Rc::new(Deny::from_settings(env, settings)),
            local_agent: env.var("CLAUDE_CODE_ENTRYPOINT") == Some("local-agent"),
            unverified_host: unverified_host(env),
        }
    }

    /// A loader sharing this one's settings (approval, excludes, deny rules) with its own,
    /// empty processed set (the AGENTS.md plugin and lazy loads keep separate sets).
    pub fn fork(&self) -> Self {
        Loader {
            env: self.env,
            platform: self.platform,
            cwd: self.cwd.clone(),
            home: self.home.clone(),
            processed: HashSet::default(),
            approval: self.approval.clone(),
            excludes: Rc::clone(&self.excludes),
            deny: Rc::clone(&self.deny),
            local_agent: self.local_agent,
            unverified_host: self.unverified_host,
        }
    }

    /// The environment.
    pub fn env(&self) -> &'e ClientEnv {
        self.env
    }

    /// The client's `includeExternal` for a startup load of this kind: always for User files,
    /// else the approval flag.
    pub fn include_external(&self, kind: Kind) -> bool {
        kind == Kind::User || self.approval.approved
    }

    /// The second half of the client's external test (`n !== "User" || NLn()`): User chains
    /// are confined under the `local-agent` entrypoint.
    pub fn may_leave(&self, kind: Kind) -> bool {
        kind != Kind::User || !self.local_agent
    }

    /// Whether files of this kind (and their chains) may reach outside the start directory.
    pub fn allow_external(&self, kind: Kind) -> bool {
        self.include_external(kind) && self.may_leave(kind)
    }

    /// Whether `path` is the start directory or below it (`od`: case-insensitive, `/private`
    /// folded, Windows forms compared as the client does; [`paths::inside`], on the normalized
    /// paths a load builds).
    pub fn inside_cwd(&self, path: &str) -> bool {
        paths::inside_normalized(self.platform, path, &self.cwd)
    }

    /// The processed-set key of `path` ([`paths::dedup_key`], `sg`).
    pub fn key(&self, path: &str) -> String {
        paths::dedup_key(self.platform, path)
    }

    /// Loads `path` and its import subtree, pushing every entry (conditional ones included, as
    /// the client does for walked files) in pre-order.
    pub fn load_file(
        &mut self,
        path: &str,
        kind: Kind,
        why: Why,
        depth: usize,
        out: &mut Vec<Loaded>,
        skipped: &mut Vec<Skipped>,
    ) {
        let tree = self.load_tree(path, kind, why, depth, skipped);
        out.extend(tree.into_iter().map(|e| e.loaded));
    }

    /// Loads `path` and its import subtree, returning the entries with their globs and chain root.
    pub fn load_tree(
        &mut self,
        path: &str,
        kind: Kind,
        why: Why,
        depth: usize,
        skipped: &mut Vec<Skipped>,
    ) -> Vec<Emitted> {
        let mut out = Vec::new();
        self.visit(path, kind, why, depth, path, &mut out, skipped);
        out
    }

    /// Whether `path` would load as a non-empty depth-0 file, without changing any state
    /// (the AGENTS.md fallback test).
    pub fn would_load(&self, path: &str, kind: Kind) -> bool {
        if self.excludes.hit(path, kind).is_some() || self.deny.hit(path, kind).is_some() {
            return false;
        }
        let resolved = Resolved::of(self.platform, path);
        if resolved.dangling() || blocked_either(self.platform, path, &resolved.path).is_some() {
            return false;
        }
        if resolved.absent {
            return false;
        }
        match read_text(path) {
            Ok(text) => !js::trim(&process(&text).content).is_empty(),
            Err(_) => false,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn visit(
        &mut self,
        path: &str,
        kind: Kind,
        why: Why,
        depth: usize,
        root: &str,
        out: &mut Vec<Emitted>,
        skipped: &mut Vec<Skipped>,
    ) {
        let skip = |skipped: &mut Vec<Skipped>, reason: SkipWhy| {
            skipped.push(Skipped {
                path: path.to_owned(),
                kind: Some(kind),
                from: match &why {
                    Why::Import { from, line, .. } => Some((from.clone(), *line)),
                    _ => None,
                },
                why: reason,
            });
        };
        let key = self.key(path);
        if self.processed.contains(&key) {
            if crate::load::memo::lstat(Path::new(path)).is_ok() {
                skip(skipped, SkipWhy::Duplicate);
            }
            return;
        }
        if depth >= MAX_IMPORT_DEPTH {
            return skip(skipped, SkipWhy::DepthLimit);
        }
        if let Some(hit) = self.excludes.hit(path, kind) {
            if crate::load::memo::lstat(Path::new(path)).is_ok() {
                skip(
                    skipped,
                    SkipWhy::Excluded {
                        pattern: hit.pattern,
                        settings: hit.origin,
                    },
                );
            }
            return;
        }
        let resolved = Resolved::of(self.platform, path);
        if let Some(reason) = blocked_either(self.platform, path, &resolved.path) {
            return skip(skipped, reason);
        }
        if resolved.dangling() {
            return skip(
                skipped,
                SkipWhy::Unreadable {
                    error: link_error(path).into(),
                },
            );
        }
        let allow = self.allow_external(kind);
        if depth > 0 && !allow && !self.inside_cwd(&resolved.path) {
            return skip(
                skipped,
                SkipWhy::ExternalNotApproved {
                    key: self.approval.key.clone(),
                },
            );
        }
        if kind == Kind::User && self.local_agent && is_linked(path, depth) {
            return skip(skipped, SkipWhy::LocalAgentLink);
        }
        let resolved_key = resolved.is_symlink.then(|| self.key(&resolved.path));
        if resolved_key
            .as_ref()
            .is_some_and(|k| self.processed.contains(k))
        {
            return skip(skipped, SkipWhy::Duplicate);
        }
        self.processed.insert(key);
        if let Some(rule) = self.deny.hit(path, kind) {
            return skip(
                skipped,
                SkipWhy::DeniedRead {
                    rule: rule.to_owned(),
                },
            );
        }
        if let Some(k) = resolved_key {
            self.processed.insert(k);
        }
        let read = if resolved.absent {
            Err(Unread::Missing)
        } else {
            // Where the `lstat` saw a regular file, no second `stat` before opening.
            let seen_regular = resolved.regular.is_some();
            fsread::read_with_meta(Path::new(path), MAX_FILE_BYTES, seen_regular).map(|(b, _)| b)
        };
        let (text, bytes) = match read {
            Ok(raw) => (decode(&raw), raw.len() as u64),
            Err(Unread::Missing) => return skip(skipped, SkipWhy::Missing),
            Err(Unread::NotRegular(what)) => {
                return skip(skipped, SkipWhy::NotRegular { what: what.into() });
            }
            Err(Unread::TooLarge(bytes)) => return skip(skipped, SkipWhy::TooLarge { bytes }),
            Err(Unread::Unreadable(e)) => {
                return skip(
                    skipped,
                    SkipWhy::Unreadable {
                        error: e.to_string(),
                    },
                );
            }
        };
        let ext = paths::extname(self.platform, path).to_lowercase();
        if !ext.is_empty() && !is_text_extension(&ext) {
            return skip(skipped, SkipWhy::NonTextExtension { ext });
        }
        let processed = process(&text);
        let trimmed = js::trim(&processed.content);
        if trimmed.is_empty() {
            return skip(skipped, SkipWhy::Empty);
        }
        let size = Size {
            bytes,
            lines: js::newlines(trimmed) + 1,
            utf16: js::utf16_len(trimmed),
        };
        let mut targets: Vec<(String, usize)> = Vec::new();
        if !processed.imports.is_empty() {
            // Once per file, however many imports it holds (a hostile one: 100,000).
            let lines = crate::text::LineIndex::new(&text);
            let mut seen = std::collections::HashSet::new();
            for r in &processed.imports {
                let target = imports::resolve(self.platform, &r.path, &resolved.path, &self.home);
                if seen.insert(target.clone()) {
                    targets.push((target, lines.line_of(processed.body_start + r.offset)));
                }
            }
        }
        out.push(Emitted {
            loaded: Loaded {
                path: path.to_owned(),
                kind,
                content: processed.content,
                why,
                unverified: kind == Kind::Managed && self.unverified_host,
                size,
            },
            globs: processed.globs,
            root: root.to_owned(),
        });
        for (target, line) in targets {
            let child = Why::Import {
                from: path.to_owned(),
                line,
                depth: depth + 1,
            };
            if !allow && !self.inside_cwd(&target) {
                skipped.push(Skipped {
                    path: target,
                    kind: Some(kind),
                    from: Some((path.to_owned(), line)),
                    why: SkipWhy::ExternalNotApproved {
                        key: self.approval.key.clone(),
                    },
                });
                continue;
            }
            self.visit(&target, kind, child, depth + 1, root, out, skipped);
        }
    }
}

/// A file's text after the client's processing.
pub struct Processed {
    /// Frontmatter and top-level comments removed (not trimmed).
    pub content: String,
    /// Conditional rule globs from the frontmatter.
    pub globs: Option<Vec<String>>,
    /// Byte offset of the body (after frontmatter) in the text.
    pub body_start: usize,
    /// Accepted `@imports` of the body, offsets relative to the body.
    pub imports: Vec<markdown::ImportRef>,
}

/// Frontmatter removal, comment stripping and the import scan of one file's text.
pub fn process(text: &str) -> Processed {
    let split = frontmatter::split(text);
    let globs = rule_paths::is_conditional(split.yaml);
    let imports = if split.body.contains('@') {
        markdown::imports(split.body)
    } else {
        Vec::new()
    };
    Processed {
        content: comments::strip(split.body).into_owned(),
        globs,
        body_start: split.body_start,
        imports,
    }
}

/// Why a symlink cannot be resolved, in words.
fn link_error(path: &str) -> &'static str {
    match std::fs::metadata(path) {
        Err(e) if crate::sys::os_error(&e) == Some(crate::sys::OsError::Loop) => "symlink loop",
        _ => "dangling symlink",
    }
}

/// `local-agent`: a User file that is a symlink (depth 0) or a hard link.
fn is_linked(path: &str, depth: usize) -> bool {
    crate::load::memo::lstat(Path::new(path)).is_ok_and(|m| {
        (depth == 0 && m.file_type().is_symlink()) || (crate::sys::nlink(&m) > 1 && m.is_file())
    })
}

/// Cowork hosts with a writable managed folder mark managed files unverified.
fn unverified_host(env: &ClientEnv) -> bool {
    if env.var("CLAUDE_CODE_ENTRYPOINT") != Some("remote_cowork") {
        return false;
    }
    crate::sys::is_root() || crate::sys::writable(&env.managed_dir)
}
