//! `broken-link` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::library::Target;

declare_rule! {
    /// ## What it does
    /// Flags each link in MEMORY.md or a hub (`reference_<group>_hub.md`) that leads nowhere,
    /// in every syntax indexes use: `[text](file.md)`, `[[name]]` (matched against file names,
    /// topics and frontmatter names, case-insensitively, `_` and `-` alike) and
    /// `` `file.md` ``. Names with hyphens and digits are links like any other.
    ///
    /// ## Why it matters
    /// The index is the map the model reads at every session start; a dead entry sends it to
    /// a file that is gone, and hides that the memory it described was lost or renamed.
    ///
    /// ## Example
    /// ```markdown
    /// - [webhook replays](feedback_stripe_webhook.md)   <!-- the file was renamed -->
    /// ```
    ///
    /// ## Fix
    /// Point the link at the file's current name, or remove the line if the memory was
    /// retired on purpose.
    pub const RULE = ("broken-link", Hard, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for i in 0..ctx.lib.files.len() {
        for l in ctx.lib.links(i) {
            if l.target == Target::Missing {
                let text = ctx.lib.files[i].text().unwrap_or("");
                let span = text[l.offset..]
                    .find(l.link.target.as_str())
                    .map(|k| l.offset + k..l.offset + k + l.link.target.len())
                    .unwrap_or(l.offset..l.offset + 1);
                out.push(ctx.diag_at(
                    &RULE,
                    i,
                    span,
                    format!("link to `{}`, which does not exist", l.link.target),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let e = fm("user", "") + "x\n";
        let f = Fixture::new(&[
            (
                "MEMORY.md",
                "# I\n- [a](user_a-2.md) [[user_a-2]] `user_gone.md`\n- [g](reference_g_hub.md)\n- [x](user_x9.md)\n",
            ),
            ("user_a-2.md", &e),
            (
                "reference_g_hub.md",
                &(fm("reference", "") + "- [[missing-topic]]\n- [a](user_a-2.md)\n"),
            ),
            (
                "user_t.md",
                &(fm("user", "") + "[dead](user_dead.md) is not checked in entries\n"),
            ),
        ]);
        assert_eq!(
            f.found("broken-link"),
            [
                ("MEMORY.md".to_owned(), 2),
                ("MEMORY.md".to_owned(), 4),
                ("reference_g_hub.md".to_owned(), 7)
            ]
        );
        let cols: Vec<Option<usize>> = f
            .audit()
            .diagnostics
            .iter()
            .filter(|d| d.rule == "broken-link")
            .map(|d| d.column)
            .collect();
        assert_eq!(cols[0], Some(34));
    }
}
