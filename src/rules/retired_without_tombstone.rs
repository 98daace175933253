//! `retired-without-tombstone` (soft).

use std::sync::LazyLock;

use regex::Regex;

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a memory marked retired in its frontmatter (`status: retired`, `superseded`,
    /// `deprecated`, `obsolete` or `archived`; `retired: true`; or a `superseded_by` key) whose
    /// body does not open with a tombstone: within its first three non-blank lines, a line
    /// such as `⚠️ Superseded by [[new-entry]]`, `Retired: …`, `Deprecated …` or `已废弃`.
    ///
    /// ## Why it matters
    /// A retired memory that still reads like a live one gets followed. The tombstone is the
    /// first thing the model reads when it opens the file, and it points to what replaced it.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// status: superseded
    /// ---
    /// Use the v1 webhook endpoint.
    /// ```
    ///
    /// ## Fix
    /// Open the body with a tombstone line that says what replaced it and why:
    ///
    /// ```markdown
    /// ⚠️ Superseded by [[stripe-webhook-v2]]: the v1 endpoint was removed in March.
    ///
    /// Use the v1 webhook endpoint.
    /// ```
    pub const RULE = ("retired-without-tombstone", Soft, Both, Check::File(check));
}

static TOMBSTONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)superseded|replaced by|retired|deprecated|obsolete|archived|已废弃|已被?取代|已过时|已归档")
        .expect("valid regex")
});

const RETIRED: [&str; 5] = [
    "retired",
    "superseded",
    "deprecated",
    "obsolete",
    "archived",
];

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let (Some(meta), Some((text, parsed))) = (file.meta(), file.parsed()) else {
        return;
    };
    let status = meta.status.as_deref().map(|s| s.trim().to_lowercase());
    let retired = meta.retired
        || meta.superseded_by.is_some()
        || status.as_deref().is_some_and(|s| RETIRED.contains(&s));
    if !retired {
        return;
    }
    let has_tombstone = text[parsed.body_start..]
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .any(|l| TOMBSTONE.is_match(l));
    if !has_tombstone {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            "retired memory has no tombstone line (e.g. `⚠️ Superseded by [[new-entry]]`) at the top of its body".into(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            ("user_live.md", &(fm("user", "") + "live\n")),
            (
                "user_dead.md",
                &(fm("user", "status: superseded\n") + "# T\nstill reads live\n"),
            ),
            ("user_flag.md", &(fm("user", "retired: true\n") + "x\n")),
            (
                "user_ok.md",
                &(fm("user", "superseded_by: user_new\n")
                    + "# T\n\n⚠️ Superseded by [[user_new]]\n"),
            ),
            (
                "user_zh.md",
                &(fm("user", "status: Retired\n") + "已废弃,见 [[x]]\n"),
            ),
        ]);
        assert_eq!(
            f.found("retired-without-tombstone"),
            [
                ("user_dead.md".to_owned(), 8),
                ("user_flag.md".to_owned(), 8)
            ]
        );
    }
}
