//! Line-level suppression with an HTML comment, which costs no context tokens because the
//! client strips block comments before loading a file:
//!
//! ```markdown
//! <!-- ccmem-ignore: long-index-line, broken-link -->
//! - [a very long line](feedback_x.md) — …
//! ```
//!
//! A comment suppresses the named rules on its own line and on the next line. Placed on the
//! first line after the frontmatter, it applies to the whole file (for findings about the
//! file as a whole, such as `unreachable-file` or `stale-entry`, which cannot point anywhere
//! else).

use memchr::memmem::Finder;
use rayon::prelude::*;

use super::Diagnostic;
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

/// Removes the diagnostics a comment suppresses.
pub fn apply(lib: &Library, diags: &mut Vec<Diagnostic>) {
    // Only a file with a finding can hold a comment that matters, and most have no comment
    // at all: those files are searched (in parallel) for `<!--` (rare bytes, so a fast search),
    // then for the mark. Per file holding one: the rule names listed on each line, and the
    // first body line.
    let mut with: Vec<usize> = diags.iter().filter_map(|d| lib.find(&d.path)).collect();
    with.sort_unstable();
    with.dedup();
    let (open, mark) = (Finder::new("<!--"), Finder::new(MARK));
    let marked: foldhash::HashMap<&str, (Vec<Vec<&str>>, usize)> = with
        .into_par_iter()
        .filter_map(|i| {
            let file = &lib.files[i];
            let text = file.text()?;
            let at = open.find(text.as_bytes())?;
            mark.find(&text.as_bytes()[at..])?;
            let lines = text.lines().map(codes).collect();
            Some((file.rel.as_str(), (lines, file.body_line())))
        })
        .collect();
    if marked.is_empty() {
        return;
    }
    diags.retain(|d| {
        let Some((lines, body_line)) = marked.get(d.path.as_str()) else {
            return true;
        };
        let listed =
            |line: usize| line >= 1 && lines.get(line - 1).is_some_and(|c| c.contains(&d.rule));
        !(listed(d.line) || listed(d.line.saturating_sub(1)) || listed(*body_line))
    });
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
