//! `long-index-line` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a line of MEMORY.md longer than `max-index-line-chars` (200) characters.
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
    pub const RULE = ("long-index-line", Soft, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let Some(index) = ctx.lib.index() else { return };
    let Some(text) = ctx.lib.files[index].text() else {
        return;
    };
    let max = ctx.cfg.max_index_line_chars;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        if content.len() > max {
            let chars = content.chars().count();
            if chars > max {
                let cut = content.char_indices().nth(max).map_or(0, |(k, _)| k);
                out.push(ctx.diag_at(
                    &RULE,
                    index,
                    offset + cut..offset + content.len(),
                    format!("index line is {chars} characters (more than {max})"),
                ));
            }
        }
        offset += line.len();
    }
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
    }
}
