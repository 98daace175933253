//! Suppressing a finding, in the file or in `ccmem.toml`:
//!
//! - A comment `<!-- ccmem-ignore: RULE[, RULE…] -->` in an instruction file (the client strips
//!   block comments, so it costs no tokens) silences the named rules on its own line and the
//!   next; on the first line after the frontmatter it silences them for the whole file.
//! - `[check.per-file-ignores]` in `ccmem.toml` maps globs (relative to the root) to rule
//!   names (`"*"` for all), for files that cannot hold a comment (settings, symlinks) or that
//!   are not yours to edit.

use super::{Ctx, Finding};
use crate::config::CheckConfig;
use crate::rules::suppress::codes;

/// Removes suppressed findings; returns how many.
pub fn apply(ctx: &Ctx, config: &CheckConfig, findings: &mut Vec<Finding>) -> usize {
    let before = findings.len();
    findings.retain(|f| !config.ignored(&f.path, f.rule) && !by_comment(ctx, f));
    before - findings.len()
}

fn by_comment(ctx: &Ctx, f: &Finding) -> bool {
    if !f.path.ends_with(".md") {
        return false;
    }
    let Some(text) = ctx.text(&f.path) else {
        return false;
    };
    if !text.contains("ccmem-ignore:") {
        return false;
    }
    let text: &str = &text;
    let lines: Vec<&str> = text.lines().collect();
    let listed = |line: usize| {
        line >= 1
            && lines
                .get(line - 1)
                .is_some_and(|l| codes(l).contains(&f.rule))
    };
    let body_line = crate::text::line_of(text, crate::text::frontmatter::split(text).body_start);
    listed(f.line) || listed(f.line.saturating_sub(1)) || listed(body_line)
}
