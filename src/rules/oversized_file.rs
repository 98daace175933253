//! `oversized-file` (soft).

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Role;

declare_rule! {
    /// ## What it does
    /// Flags a memory file with more than `max-file-lines` lines (100) or at least
    /// `max-h2-sections` `## ` sections (5), outside code blocks for the sections. A hub's
    /// sections are not counted: they are the index's own headings, kept when `tier` moved
    /// their entries there.
    ///
    /// ## Why it matters
    /// One file, one fact: a file that grew several topics is read whole for any one of them,
    /// and its single description can no longer say when each applies.
    ///
    /// ## Example
    /// `reference_database.md` with sections on RLS, indexes, vacuum, backups and migrations.
    ///
    /// ## Fix
    /// Split it into one file per topic, and list them in the group's hub.
    pub const RULE = ("oversized-file", Soft, Both, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    // MEMORY.md has rules of its own; a file too large to read whole gets that finding alone.
    if file.role == Role::Index || super::too_large_to_read::flags(file) {
        return;
    }
    let Some(text) = file.text() else { return };
    let (max_lines, max_h2) = (ctx.cfg.max_file_lines, ctx.cfg.max_h2_sections);
    let lines = line_count(text);
    // A hub's sections are the index's own headings (not counted).
    let hub = matches!(file.role, Role::Hub { .. });
    let h2 = (!hub && may_have_sections(text, max_h2))
        .then(|| sections(text))
        .filter(|&h2| h2 >= max_h2);
    if lines > max_lines || h2.is_some() {
        let mut why = Vec::new();
        if lines > max_lines {
            why.push(format!("{lines} lines (more than {max_lines})"));
        }
        if let Some(h2) = h2 {
            why.push(format!("{h2} `##` sections (at least {max_h2})"));
        }
        let msg = format!(
            "oversized: {}; split it into one file per topic",
            why.join(", ")
        );
        out.push(ctx.diag(&RULE, i, file.body_line(), msg));
    }
}

/// The lines of `text`, as `str::lines` counts them.
fn line_count(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Whether `text` may hold `n` or more `##` sections: it holds `n` `##`s (each section's line
/// holds one). Most files hold a few, found many bytes at a time, and are not counted line by
/// line at all.
fn may_have_sections(text: &str, n: usize) -> bool {
    static H2: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("##"));
    H2.find_iter(text.as_bytes()).take(n).count() >= n
}

/// The `##` sections of `text` (lines that open with `## ` outside a code fence).
fn sections(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut h2, mut fence, mut pos) = (0, false, 0);
    while let Some(k) = memchr::memchr3(b'#', b'`', b'~', &bytes[pos..]) {
        let hit = pos + k;
        let c = bytes[hit];
        if c != b'#' && bytes.get(hit + 1..hit + 3) != Some(&[c, c][..]) {
            // A single backtick (a code span) or tilde starts no fence.
            pos = hit + 1;
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |j| j + 1);
        let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |j| hit + j);
        // `str::lines` drops the `\r` of a `\r\n` only.
        let line = &text[start..end];
        let line = match line.strip_suffix('\r') {
            Some(l) if end < bytes.len() => l,
            _ => line,
        };
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        } else if !fence && (t.starts_with("## ") || t.starts_with("##\t") || t == "##") {
            h2 += 1;
        }
        pos = end;
    }
    h2
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn counting_only_marked_lines_is_counting_every_line(
            text in "(## |##\t|##|```|~~~|`|``|~|#|x| |\t|\n|\r\n|\r|\u{3000})*",
        ) {
            let (mut lines, mut h2, mut fence) = (0, 0, false);
            for l in text.lines() {
                lines += 1;
                let t = l.trim_start();
                if t.starts_with("```") || t.starts_with("~~~") {
                    fence = !fence;
                } else if !fence && (t.starts_with("## ") || t.starts_with("##\t") || t == "##") {
                    h2 += 1;
                }
            }
            proptest::prop_assert_eq!((super::line_count(&text), super::sections(&text)), (lines, h2));
            for n in 0..8 {
                proptest::prop_assert!(super::may_have_sections(&text, n) || h2 < n, "{n}");
            }
        }
    }

    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let long = fm("user", "") + &"line\n".repeat(94);
        let longer = fm("user", "") + &"line\n".repeat(95);
        let four = fm("user", "") + "## a\n## b\n## c\n## d\n```\n## code\n```\n### e\n";
        let five = fm("user", "") + "## a\n## b\n## c\n## d\n## e\n";
        let f = Fixture::new(&[
            ("MEMORY.md", &"- x\n".repeat(150)),
            ("user_100.md", &long),
            ("user_101.md", &longer),
            ("user_h4.md", &four),
            ("user_h5.md", &five),
            ("reference_h5_hub.md", &five),
        ]);
        assert_eq!(f.paths("oversized-file"), ["user_101.md", "user_h5.md"]);
    }
}
