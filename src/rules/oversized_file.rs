//! `oversized-file` (soft).

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
    if file.role == Role::Index {
        return;
    }
    let Some(text) = file.text() else { return };
    let (lines, mut h2) = count(text);
    if matches!(file.role, Role::Hub { .. }) {
        h2 = 0;
    }
    let (max_lines, max_h2) = (ctx.cfg.max_file_lines, ctx.cfg.max_h2_sections);
    if lines > max_lines || h2 >= max_h2 {
        let mut why = Vec::new();
        if lines > max_lines {
            why.push(format!("{lines} lines (more than {max_lines})"));
        }
        if h2 >= max_h2 {
            why.push(format!("{h2} `##` sections (at least {max_h2})"));
        }
        let msg = format!(
            "oversized: {}; split it into one file per topic",
            why.join(", ")
        );
        out.push(ctx.diag(&RULE, i, file.body_line(), msg));
    }
}

/// Lines (as `str::lines` counts them) and `## ` headings outside fences. Only the lines where
/// a `#`, a ```` ``` ```` or a `~~~` can start the trimmed line are looked at: a backtick or
/// tilde that is not the first of three is skipped where it is found.
fn count(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    let lines = newlines + usize::from(!bytes.is_empty() && !text.ends_with('\n'));
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
    (lines, h2)
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
            proptest::prop_assert_eq!(super::count(&text), (lines, h2));
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
