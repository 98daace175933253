//! The rules `ccmem check` runs over a repository ([`crate::repo`]), one file per rule, in the
//! one registry ([`super::RULES`]); what they read ([`Ctx`]), the runner ([`run::check`]), and
//! the helpers they share: findings gathered over start directories, the `@path` token behind
//! a loader skip, import chains, and frontmatter key lines.

use std::collections::BTreeMap;

use super::{Diagnostic, Rule};
use crate::load::{Kind, SkipWhy, Skipped, Why};

mod ctx;
pub mod run;
mod start;
#[cfg(test)]
mod testing;

pub use crate::repo::{DirSession, Environment, SizeModel};
pub use ctx::Ctx;
pub use run::{DEFAULT_MAX_DIRS, Options, Report, SCHEMA, Summary, WalkSummary, check, list_dirs};
pub use start::{start_rel, traps};

pub mod agents_md_hidden_by_local;
pub mod agents_md_lost_below;
pub mod agents_md_never_loads;
pub mod exclude_matches_nothing;
pub mod exclude_pattern_relative;
pub mod file_over_size_warning;
pub mod foreign_scope_key;
pub mod import_cut_at_space;
pub mod import_cycle;
pub mod import_depth_exceeded;
pub mod import_in_code;
pub mod import_outside_start_dir;
pub mod import_target_missing;
pub mod instruction_file_encoding;
pub mod instruction_file_unreadable;
pub mod invalid_paths_pattern;
pub mod linked_rule_outside_start_dir;
pub mod misplaced_instruction_file;
pub mod nested_agents_md;
pub mod paths_brace_over_budget;
pub mod paths_match_nothing;
pub mod rules_folder_linked_outside;
pub mod settings_ignored;
pub mod total_over_size_warning;
pub mod wrong_case_name;

/// Findings keyed by where they point, each with the start directories where it bites.
#[derive(Default)]
pub struct ByPlace {
    map: BTreeMap<(String, usize, String), (Diagnostic, Vec<String>)>,
}

impl ByPlace {
    /// Adds start directory `dir` to the finding at this place, building it on first sight.
    pub fn add(
        &mut self,
        key: (String, usize, String),
        dir: &str,
        build: impl FnOnce() -> Diagnostic,
    ) {
        let entry = self.map.entry(key).or_insert_with(|| (build(), Vec::new()));
        if !entry.1.iter().any(|d| d == dir) {
            entry.1.push(dir.to_owned());
        }
    }

    /// The findings as built (for findings that do not depend on the start directory).
    pub fn finish_plain(self, out: &mut Vec<Diagnostic>) {
        out.extend(self.map.into_values().map(|(f, _)| f));
    }

    /// The findings; `message(finding, dirs)` words each one once its directories are known
    /// (`dirs`: their list as [`list_dirs`] shows it).
    pub fn finish(self, out: &mut Vec<Diagnostic>, message: impl Fn(&Diagnostic, &str) -> String) {
        for (_, (mut f, dirs)) in self.map {
            let dirs: Vec<String> = dirs
                .into_iter()
                .map(|d| if d.is_empty() { ".".to_owned() } else { d })
                .collect();
            f.message = message(&f, &list_dirs(&dirs));
            f.start_dirs = dirs;
            out.push(f);
        }
    }
}

/// Every skip of every session, with its session, for skips of imports written in a file of
/// the repository.
pub fn import_skips<'c>(
    ctx: &'c Ctx,
) -> impl Iterator<Item = (&'c DirSession, &'c Skipped, &'c str, usize)> {
    ctx.sessions.iter().flat_map(move |s| {
        s.session.skipped.iter().filter_map(move |k| {
            let (from, line) = k.from.as_ref()?;
            ctx.repo.rel(from)?;
            Some((s, k, from.as_str(), *line))
        })
    })
}

/// A finding of `rule` at the `@path` token of `importer:line` that names `target`, or at the
/// whole line when the token cannot be found again.
pub fn at_import(
    ctx: &Ctx,
    rule: &Rule,
    (importer, line, target): (&str, usize, &str),
    message: String,
    fix: String,
) -> Diagnostic {
    match token(ctx, importer, line, target) {
        Some(t) => ctx.finding_at(rule, importer, t.span, message, fix),
        None => ctx.finding(rule, importer, line, message, fix),
    }
}

/// Missing import targets with the token that names each.
pub fn missing_imports<'c>(
    ctx: &'c Ctx,
) -> impl Iterator<Item = (&'c DirSession, &'c Skipped, &'c str, usize, Token)> + 'c {
    import_skips(ctx)
        .filter(|(_, k, ..)| k.why == SkipWhy::Missing)
        .filter_map(move |(s, k, from, line)| {
            Some((s, k, from, line, token(ctx, from, line, &k.path)?))
        })
}

/// An `@path` token on a line of a file.
#[derive(Debug, Clone)]
pub struct Token {
    /// Byte range of `@…` in the file.
    pub span: std::ops::Range<usize>,
    /// The path as written (after the `@`, before any `#`).
    pub raw: String,
    /// The rest of the line after the token.
    pub rest: String,
}

/// The `@path` token on `line` of `importer` whose resolved target is `target`.
pub fn token(ctx: &Ctx, importer: &str, line: usize, target: &str) -> Option<Token> {
    let text = ctx.text(importer)?;
    let (start, src) = ctx.lines(importer, &text).line(&text, line)?;
    let real = std::fs::canonicalize(importer).ok()?;
    // The loader's form of the real path (Windows: no `\\?\`), which its targets are built on.
    let real = crate::text::path::strip_verbatim(&real.to_string_lossy()).into_owned();
    let home = ctx.home();
    crate::text::markdown::candidates(src)
        .into_iter()
        .find_map(|c| {
            let resolved =
                crate::load::instructions::imports::resolve(ctx.platform(), &c.path, &real, &home);
            (resolved == target).then(|| {
                let end = token_end(src, c.offset);
                Token {
                    span: start + c.offset..start + end,
                    raw: src[c.offset + 1..end].to_owned(),
                    rest: src[end..].to_owned(),
                }
            })
        })
}

/// The end of the `@…` token starting at `at` (the client's regex: up to whitespace or a
/// backslash not followed by a space).
fn token_end(src: &str, at: usize) -> usize {
    let mut end = at + 1;
    let rest = &src[end..];
    let mut chars = rest.char_indices();
    while let Some((k, ch)) = chars.next() {
        if ch == '\\' && rest[k + 1..].starts_with(' ') {
            chars.next();
            end = at + 1 + k + 2;
        } else if ch == '\\' || crate::text::js::is_js_space(ch) {
            break;
        } else {
            end = at + 1 + k + ch.len_utf8();
        }
    }
    end
}

/// The import chain that brought `path` into `s`, from the file that started it to `path`.
pub fn chain(s: &DirSession, path: &str) -> Vec<String> {
    let mut out = vec![path.to_owned()];
    let mut cur = path.to_owned();
    while let Some(Why::Import { from, .. }) = s.entry(&cur).map(|e| &e.why) {
        if out.contains(from) {
            break;
        }
        out.push(from.clone());
        cur = from.clone();
    }
    out.reverse();
    out
}

/// The 1-based line and byte range of top-level frontmatter key `key` in `text`.
pub fn key_line(text: &str, key: &str) -> Option<(usize, std::ops::Range<usize>)> {
    let split = crate::text::frontmatter::split(text);
    let yaml = split.yaml?;
    let base = yaml.as_ptr() as usize - text.as_ptr() as usize;
    let mut offset = 0;
    for l in yaml.split_inclusive('\n') {
        let name = l.split(':').next().unwrap_or("");
        if l.contains(':') && name.trim_end() == key && !l.starts_with([' ', '\t']) {
            let start = base + offset;
            let len = l.trim_end().len();
            return Some((crate::text::line_of(text, start), start..start + len));
        }
        offset += l.len();
    }
    None
}

/// Every rule file of the repository with its text and the patterns of its `paths:` (`None`
/// when it has none, or they are falsy).
pub fn rule_files<'c>(
    ctx: &'c Ctx,
) -> impl Iterator<
    Item = (
        &'c crate::repo::walk::InstrFile,
        std::rc::Rc<str>,
        Option<Vec<String>>,
    ),
> + 'c {
    ctx.repo
        .instructions
        .iter()
        .filter(|f| f.kind == crate::repo::walk::InstrKind::Rule)
        .filter_map(move |f| {
            let text = ctx.text(&f.rel)?;
            let patterns = crate::text::frontmatter::split(&text)
                .yaml
                .and_then(crate::load::rule_paths::patterns);
            Some((f, text, patterns))
        })
}

/// Whether two loader paths name the same file (one may be a link to the other).
pub fn same_file(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Whether a session loads any CLAUDE.md or .claude/CLAUDE.md of the ancestor walk.
pub fn loads_a_claude_md(s: &DirSession) -> bool {
    s.session.entries.iter().any(|e| {
        e.kind == Kind::Project
            && matches!(e.why, Why::Ancestor { .. })
            && is_named(&e.path, crate::constants::CLAUDE_MD)
    })
}

/// Whether the loader path `path` names a file called `name`: `name` after a `/` or, under the
/// Windows model, a `\`. Taking either separator on every platform is exact for the files
/// this is asked about (ancestor-walk files, whose names the loader chose: a posix name ending
/// in `\CLAUDE.md` is no ancestor file).
pub fn is_named(path: &str, name: &str) -> bool {
    path.strip_suffix(name)
        .is_some_and(|head| head.ends_with(['/', '\\']))
}

/// The suppressor of an `AgentsSuppressed` skip.
pub fn suppressed_by(k: &Skipped) -> Option<&str> {
    match &k.why {
        SkipWhy::AgentsSuppressed { by } => Some(by),
        _ => None,
    }
}

/// `dir/name` (`name` alone at the root).
/// A command for a fix line, in backticks, each word quoted for a POSIX shell: paths come from the
/// repository, and a folder named `a;touch x` must not become a second command when the line is
/// pasted into a terminal.
pub fn command(words: &[&str]) -> String {
    format!("`{}`", shell_words::join(words))
}

pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}
