//! `invalid-type` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::constants::MEMORY_TYPES;
use crate::memory::file::line_of;
use crate::memory::meta::filled;

declare_rule! {
    /// ## What it does
    /// Flags a `type` (or `metadata.type`) that is not one of `user`, `feedback`, `project`,
    /// `reference`.
    ///
    /// ## Why it matters
    /// The type says how the memory is used (a preference, a lesson with its reason, the state
    /// of work, a reference); other checks depend on it (feedback needs a Why).
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// name: deploy-freeze
    /// description: no deploys on Friday
    /// type: rule
    /// ---
    /// ```
    ///
    /// ## Fix
    /// Use one of the four types (here `feedback`), and name the file to match
    /// (`feedback_deploy_freeze.md`).
    pub const RULE = ("invalid-type", Hard, Both, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let Some((meta, text, parsed)) = ctx.memory_front(i) else {
        return;
    };
    let Some(kind) = filled(meta.kind.as_deref()) else {
        return;
    };
    if MEMORY_TYPES.contains(&kind) {
        return;
    }
    let yaml = &text[parsed.yaml_start..parsed.yaml_start + parsed.yaml_len];
    let at = yaml
        .match_indices("type:")
        .find(|(k, _)| *k == 0 || yaml[..*k].ends_with(['\n', ' ']))
        .map_or(parsed.yaml_start, |(k, _)| parsed.yaml_start + k);
    out.push(ctx.diag(
        &RULE,
        i,
        line_of(text, at),
        format!("type `{kind}` is not one of user, feedback, project, reference"),
    ));
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            (
                "user_ok.md",
                "---\nname: a\ndescription: d\ntype: reference\n---\nx\n",
            ),
            (
                "user_bad.md",
                "---\nname: a\ndescription: d\ntype: rule\n---\nx\n",
            ),
            (
                "user_nested.md",
                "---\nname: a\ndescription: d\nmetadata:\n  node_type: memory\n  type: Feedback\n---\nx\n",
            ),
        ]);
        assert_eq!(
            f.found("invalid-type"),
            [
                ("user_bad.md".to_owned(), 4),
                ("user_nested.md".to_owned(), 6)
            ]
        );
    }
}
