//! `settings-ignored` (hard).

use super::ByPlace;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a settings file of the repository (`.claude/settings.json`,
    /// `.claude/settings.local.json`) that the client drops whole: invalid JSON (comments and
    /// trailing commas included: the client's parser takes neither), not an object, over its
    /// 2 MiB limit, or unreadable.
    ///
    /// ## Why it matters
    /// Every key in it is ignored, with no word to the operator: `claudeMdExcludes`, the
    /// permissions that withhold files, the hooks. A session loads what the file meant to
    /// exclude, and its hooks never run.
    ///
    /// ## Example
    /// `{"claudeMdExcludes": ["vendor/**"],}` — a trailing comma.
    ///
    /// ## Fix
    /// Make it valid JSON (`python3 -m json.tool FILE` names the first error).
    pub const RULE = ("settings-ignored", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        for p in &s.session.settings.problems {
            let Some(rel) = ctx.repo.rel(&p.origin) else {
                continue;
            };
            by.add(
                (rel.to_string(), 1, p.message.clone()),
                &s.start.dir,
                || {
                    ctx.finding(
                    &RULE,
                    &rel,
                    1,
                    format!("the client ignores {rel} whole: {}", p.message),
                    format!(
                        "make it valid JSON (`python3 -m json.tool {rel}` names the first error)"
                    ),
                )
                },
            );
        }
    }
    by.finish_plain(out);
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn a_settings_file_the_client_drops() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "x\n"),
            (
                ".claude/settings.json",
                "{\"claudeMdExcludes\": [\"vendor/**\"],}\n",
            ),
        ]);
        assert_eq!(
            f.found("settings-ignored"),
            [(".claude/settings.json".to_owned(), 1)]
        );
        let m = &f.messages("settings-ignored")[0];
        assert!(m.contains("invalid JSON"), "{m}");
    }

    #[test]
    fn valid_settings_are_not_reported() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "x\n"),
            (
                ".claude/settings.json",
                "{\"claudeMdExcludes\": [\"vendor/**\"]}\n",
            ),
        ]);
        assert!(f.found("settings-ignored").is_empty());
    }
}
