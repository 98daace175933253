//! `long-index-line` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a line of MEMORY.md longer than `max-index-line-utf16` (200) UTF-16 units, the
    /// length at which the client itself calls an index line too long ("Keep index entries to
    /// one line under ~200 chars", in its cut warning). It counts as the client's `length`
    /// does: a CJK character is one unit, most emoji two. The client asks the model to keep each
    /// line under ~150; `tier --compress` proposes shorter descriptions from there.
    ///
    /// ## Why it matters
    /// An index line is a pointer: a name, a link and the few keywords that make the model
    /// open the file. A long one is detail that belongs in the topic file, paid for in every
    /// session.
    ///
    /// ## Example
    /// `- [rls](feedback_rls.md) — RLS policies must wrap auth.uid() … (three more sentences)`
    ///
    /// ## Fix
    /// Keep the scenario keywords and the conclusion; move the rest into the topic file.
    pub const RULE = ("long-index-line", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let Some(index) = ctx.lib.index() else { return };
    let Some(text) = ctx.lib.files[index].text() else {
        return;
    };
    let max = ctx.cfg.max_index_line_utf16;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        if content.len() > max {
            let units = crate::text::js::utf16_len(content);
            if units > max {
                let cut = utf16_offset(content, max);
                out.push(ctx.diag_at(
                    &RULE,
                    index,
                    offset + cut..offset + content.len(),
                    format!("index line is {units} UTF-16 units (more than {max})"),
                ));
            }
        }
        offset += line.len();
    }
}

/// Byte offset of the character in which UTF-16 unit `n` of `s` falls.
fn utf16_offset(s: &str, n: usize) -> usize {
    let mut units = 0;
    for (k, c) in s.char_indices() {
        units += c.len_utf16();
        if units > n {
            return k;
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

    #[test]
    fn vectors() {
        let ok = "界".repeat(200);
        let long = format!("- {}", "x".repeat(199));
        let f = Fixture::new(&[("MEMORY.md", &format!("# I\n{ok}\n{long}\n"))]);
        let d = f.audit().diagnostics;
        let d: Vec<_> = d.iter().filter(|d| d.rule == "long-index-line").collect();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].line, d[0].column), (3, Some(201)));
        let emoji = format!("- {}", "🔧".repeat(100));
        let f = Fixture::new(&[("MEMORY.md", &format!("# I\n{emoji}\n"))]);
        let d = f.audit().diagnostics;
        let d: Vec<_> = d.iter().filter(|d| d.rule == "long-index-line").collect();
        assert_eq!(d.len(), 1, "202 UTF-16 units in 102 characters");
        assert_eq!(d[0].column, Some(102));
    }
}
