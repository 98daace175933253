//! Suppressing a finding, the same way for every rule:
//!
//! - An HTML comment in the file, which costs no context tokens because the client strips
//!   block comments before loading a file:
//!
//!   ```markdown
//!   <!-- ccmem-ignore: long-index-line, broken-link -->
//!   - [a very long line](feedback_x.md) — …
//!   ```
//!
//!   A comment suppresses the named rules on its own line and on the next line. Placed on the
//!   first line after the frontmatter, it applies to the whole file (for findings about the
//!   file as a whole, such as `unreachable-file` or `stale-entry`, which cannot point anywhere
//!   else).
//! - For repository rules, `[check.per-file-ignores]` in `ccmem.toml` maps globs (relative to
//!   the root) to rule names (`"*"` for all), for files that cannot hold a comment (settings,
//!   symlinks) or that are not yours to edit.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use rayon::prelude::*;

use super::Diagnostic;
use super::repo::Ctx as RepoCtx;
use crate::config::CheckConfig;
use crate::memory::file::MemFile;
use crate::memory::library::Library;

const MARK: &str = "ccmem-ignore:";

/// The rule names a line's `<!-- ccmem-ignore: … -->` comments list.
pub fn codes(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find("<!--") {
        let after = &rest[open + 4..];
        let Some(close) = after.find("-->") else {
            break;
        };
        let inner = after[..close].trim();
        if let Some(list) = inner.strip_prefix(MARK) {
            out.extend(
                list.split([',', ' '])
                    .map(str::trim)
                    .filter(|c| !c.is_empty()),
            );
        }
        rest = &after[close + 3..];
    }
    out
}

/// The suppression comments of one file: the rules each of its lines lists, and its first
/// body line.
struct Marks<'a> {
    lines: Vec<Vec<&'a str>>,
    body_line: usize,
}

impl<'a> Marks<'a> {
    /// The comments of `text`, `None` when it holds none; `body_line` gives its first line
    /// after the frontmatter. Most files hold no comment at all: they are searched for `<!--`
    /// (rare bytes, so a fast search), then for the mark, and only a file holding both is read
    /// line by line.
    fn of(text: &'a str, body_line: impl FnOnce() -> usize) -> Option<Marks<'a>> {
        static OPEN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("<!--"));
        static MARKED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(MARK));
        let at = OPEN.find(text.as_bytes())?;
        MARKED.find(&text.as_bytes()[at..])?;
        Some(Marks {
            lines: text.lines().map(codes).collect(),
            body_line: body_line(),
        })
    }

    /// The comments of a file of a memory library.
    fn of_file(file: &'a MemFile) -> Option<Marks<'a>> {
        Marks::of(file.text()?, || file.body_line())
    }

    /// Whether a comment suppresses `d`: on its line, the line before, or the first body line.
    fn hide(&self, d: &Diagnostic) -> bool {
        let listed = |line: usize| {
            line >= 1
                && self
                    .lines
                    .get(line - 1)
                    .is_some_and(|c| c.contains(&d.rule))
        };
        listed(d.line) || listed(d.line.saturating_sub(1)) || listed(self.body_line)
    }
}

/// Removes from `diags[from..]` (findings about `file`) those a comment of the file
/// suppresses: the file rules' findings, filtered file by file as they are made. The others
/// keep their order.
pub fn apply_to_file(file: &MemFile, diags: &mut Vec<Diagnostic>, from: usize) {
    if diags.len() == from {
        return;
    }
    if let Some(marks) = Marks::of_file(file) {
        let mut kept = from;
        for k in from..diags.len() {
            if !marks.hide(&diags[k]) {
                diags.swap(kept, k);
                kept += 1;
            }
        }
        diags.truncate(kept);
    }
}

/// Removes the diagnostics a comment of a library's file suppresses.
pub fn apply(lib: &Library, diags: &mut Vec<Diagnostic>) {
    // Only a file with a finding can hold a comment that matters.
    let mut with: Vec<usize> = diags.iter().filter_map(|d| lib.find(&d.path)).collect();
    with.sort_unstable();
    with.dedup();
    let marked: foldhash::HashMap<&str, Marks> = with
        .into_par_iter()
        .filter_map(|i| Some((lib.files[i].rel.as_str(), Marks::of_file(&lib.files[i])?)))
        .collect();
    if marked.is_empty() {
        return;
    }
    diags.retain(|d| marked.get(d.path.as_str()).is_none_or(|m| !m.hide(d)));
}

/// Removes the findings of repository rules that `per-file-ignores` or a comment in their
/// Markdown file suppresses; returns how many.
pub fn apply_to_repo(ctx: &RepoCtx, config: &CheckConfig, diags: &mut Vec<Diagnostic>) -> usize {
    let before = diags.len();
    diags.retain(|d| !config.ignored(&d.path, d.rule));
    let mut paths: Vec<&str> = diags
        .iter()
        .map(|d| d.path.as_str())
        .filter(|p| p.ends_with(".md"))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let texts: Vec<(String, Rc<str>)> = paths
        .into_iter()
        .filter_map(|p| Some((p.to_owned(), ctx.text(p)?)))
        .collect();
    let marked: HashMap<&str, Marks> = texts
        .iter()
        .filter_map(|(path, text)| {
            let body_line = || {
                let body_start = crate::text::frontmatter::split(text).body_start;
                crate::text::line_of(text, body_start)
            };
            Some((path.as_str(), Marks::of(text, body_line)?))
        })
        .collect();
    if !marked.is_empty() {
        diags.retain(|d| marked.get(d.path.as_str()).is_none_or(|m| !m.hide(d)));
    }
    before - diags.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists() {
        assert_eq!(
            codes("x <!-- ccmem-ignore: a-b, c --> y <!-- ccmem-ignore: d -->"),
            ["a-b", "c", "d"]
        );
        assert!(codes("<!-- just a note -->").is_empty());
        assert!(codes("<!-- ccmem-ignore: a").is_empty());
    }
}
