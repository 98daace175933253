//! `broken-link` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::Spec;
use crate::memory::file::Role;
use crate::memory::library::Target;
use crate::text::links::{Link, Syntax};

declare_rule! {
    /// ## What it does
    /// Flags a link that leads nowhere. Links are what a reader follows: `[text](file.md)`,
    /// reference links (`[label]: file.md`), `[[name]]`, and a code span that names a memory
    /// file (`` `feedback_x.md` ``); paths are resolved relative to the linking file, `~/`
    /// against HOME.
    ///
    /// - Every `[text](x.md)` and reference definition counts, in every memory file, except a
    ///   relative link that climbs out of the memory folder (`../infra-terraform/…`): it leads
    ///   into a sibling repository this machine may not have, so a missing target there is
    ///   unverifiable, not broken. `~/` and absolute links name this machine's files and count.
    /// - A code span counts only where it names a memory file (`feedback_x.md`); one naming
    ///   another file (`` `CLAUDE.md` ``) is prose about it.
    /// - `[[name]]` is matched against frontmatter `name:` (then file names and topics,
    ///   case-insensitively, `_` and `-` alike). In the client's spec a `[[name]]` that
    ///   matches no memory yet is fine, as the client tells the model ("it marks something
    ///   worth writing later, not an error"); in claude-memory-manager's spec an index or hub
    ///   entry written as `[[name]]` must lead to a file.
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
    pub const RULE = ("broken-link", Hard, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (i, file) in ctx.lib.files.iter().enumerate() {
        let map = matches!(file.role, Role::Index | Role::Hub { .. });
        for l in ctx.lib.links(i) {
            if l.target != Target::Missing
                || !counts(ctx, map, &l.link)
                || leaves_folder(&file.rel, &l.link.target)
            {
                continue;
            }
            let text = file.text().unwrap_or("");
            let span = text[l.offset..]
                .find(l.link.target.as_str())
                .map(|k| l.offset + k..l.offset + k + l.link.target.len())
                .unwrap_or(l.offset..l.offset + 1);
            out.push(ctx.diag_after(
                &RULE,
                i,
                (l.line, l.offset),
                span,
                format!("link to `{}`, which does not exist", l.link.target),
            ));
        }
    }
}

/// Whether `target`, linked from the file at `rel` (relative to the memory folder), climbs out
/// of the memory folder by a relative path (`../infra-terraform/…`): what is there (a sibling
/// repository) may not be on this machine, so a missing target is unverifiable, not broken.
/// `~/` and absolute paths name this machine's files and are checked.
fn leaves_folder(rel: &str, target: &str) -> bool {
    let target = target.split(['#', '?']).next().unwrap_or(target);
    if target.starts_with(['/', '\\', '~']) || target.get(1..2) == Some(":") {
        return false;
    }
    let mut depth = rel.split('/').count().saturating_sub(1) as isize;
    for part in target.split(['/', '\\']) {
        match part {
            ".." => depth -= 1,
            "" | "." => {}
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// Whether a missing link target is a broken link (see the rule's documentation).
fn counts(ctx: &Ctx, map: bool, link: &Link) -> bool {
    match link.syntax {
        Syntax::Wiki => map && ctx.spec() == Spec::Manager,
        _ => true,
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
                &(fm("user", "")
                    + "[dead](user_dead.md) is checked in entries, `docs/x.md` is prose\n"),
            ),
        ]);
        assert_eq!(
            f.found("broken-link"),
            [
                ("MEMORY.md".to_owned(), 2),
                ("MEMORY.md".to_owned(), 4),
                ("reference_g_hub.md".to_owned(), 7),
                ("user_t.md".to_owned(), 7)
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

    #[test]
    fn links_into_a_sibling_folder_are_unverifiable_not_broken() {
        let f = Fixture::new(&[
            ("MEMORY.md", "- [m](reference_m.md)\n"),
            (
                "reference_m.md",
                &(fm("reference", "")
                    + "- [vpc](../infra-terraform/modules/vpc/README.md)\n\
                       - [notes](~/notes/x.md)\n- [abs](/srv/doc.md)\n\
                       - [gone](./sub/../user_gone.md)\n"),
            ),
        ]);
        assert_eq!(
            f.found("broken-link"),
            [
                ("reference_m.md".to_owned(), 9),
                ("reference_m.md".to_owned(), 10)
            ]
        );
        assert!(super::leaves_folder("sub/a.md", "../../x.md"));
        assert!(!super::leaves_folder("sub/a.md", "../x.md"));
    }

    #[test]
    fn the_clients_spec_allows_names_not_written_yet() {
        let client = |name: &str, body: &str| {
            format!("---\nname: {name}\ndescription: d\nmetadata:\n  type: user\n---\n{body}\n")
        };
        let f = Fixture::new(&[
            (
                "MEMORY.md",
                "- [Role](user_role.md) — who\n- [Gone](user_gone.md) — renamed\n",
            ),
            (
                "user_role.md",
                &client(
                    "user-role",
                    "See [[testing-policy]] and [[not-written-yet]].",
                ),
            ),
            ("feedback_testing.md", &client("testing-policy", "x")),
        ]);
        assert_eq!(f.found("broken-link"), [("MEMORY.md".to_owned(), 2)]);
    }
}
