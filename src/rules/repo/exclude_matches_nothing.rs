//! `exclude-matches-nothing` (soft).

use super::exclude_pattern_relative::{excludes, is_relative};
use crate::load::Kind;
use crate::load::instructions::excludes::Excludes;
use crate::load::instructions::glob::MAX_PATTERNS;
use crate::repo::walk::InstrKind;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an absolute `claudeMdExcludes` pattern in a project settings file that matches
    /// no instruction file of the repository (nor any file a session imports).
    ///
    /// ## Why it matters
    /// A stale or mistyped exclusion keeps nothing out: the file it was written for loads
    /// in every session. Absolute paths of one person's checkout (`/home/alice/…`) match on no
    /// one else's machine.
    ///
    /// ## Example
    /// `"claudeMdExcludes": ["**/packages/legacy/CLAUDE.md"]` after `legacy/` was renamed.
    ///
    /// ## Fix
    /// Correct the pattern (picomatch syntax, matched against absolute paths, `**/` for any
    /// prefix) or remove it.
    pub const RULE = ("exclude-matches-nothing", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut candidates: Vec<(String, Kind)> = ctx
        .repo
        .instructions
        .iter()
        .map(|f| {
            let kind = if f.kind == InstrKind::Local {
                Kind::Local
            } else {
                Kind::Project
            };
            (ctx.abs(&f.rel), kind)
        })
        .collect();
    for s in ctx.sessions {
        candidates.extend(s.session.entries.iter().map(|e| (e.path.clone(), e.kind)));
        candidates.extend(
            s.session
                .skipped
                .iter()
                .filter_map(|k| Some((k.path.clone(), k.kind?))),
        );
    }
    candidates.sort_by(|a, b| a.0.cmp(&b.0));
    candidates.dedup();
    // Each pattern is compiled alone and tried on every candidate: past a list's bound
    // (`glob::MAX_PATTERNS`, which the session's own matcher compiles too) the rest are not
    // checked, said once.
    let mut checked = 0;
    for (file, pattern, span) in excludes(ctx) {
        if is_relative(pattern.strip_prefix('!').unwrap_or(&pattern)) {
            continue; // exclude-pattern-relative
        }
        checked += 1;
        if checked > MAX_PATTERNS {
            out.push(ctx.finding_at(
                &RULE,
                &file,
                span,
                format!(
                    "`{pattern}` and the patterns after it were not checked: ccmem compiles the \
                     first {MAX_PATTERNS} patterns of a list and counts the rest as excluding nothing"
                ),
                "keep `claudeMdExcludes` to the patterns the repository needs".into(),
            ));
            break;
        }
        let one = Excludes::new(ctx.platform(), vec![(pattern.clone(), file.clone())]);
        let kinds = |k: Kind| {
            if k == Kind::Local {
                Kind::Local
            } else {
                Kind::Project
            }
        };
        if candidates
            .iter()
            .any(|(p, k)| one.hit(p, kinds(*k)).is_some())
        {
            continue;
        }
        if !one.refused().is_empty() {
            out.push(ctx.finding_at(
                &RULE,
                &file,
                span,
                format!(
                    "`{pattern}` backtracks too much to be matched (the client may hang on it): \
                     ccmem cannot tell what it excludes and counts it as excluding nothing"
                ),
                "write it with fewer `*` in one name (`**/*a*b` rather than `*a*a*a*a*b`)".into(),
            ));
            continue;
        }
        out.push(ctx.finding_at(
            &RULE,
            &file,
            span,
            format!(
                "`{pattern}` matches no instruction file of the repository: it excludes nothing"
            ),
            "correct the pattern (absolute paths; `**/` matches any prefix) or remove it".into(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn stale_and_live_patterns() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "x\n"),
            ("packages/legacy/CLAUDE.md", "old\n"),
            (
                ".claude/settings.json",
                "{\"claudeMdExcludes\": [\"**/packages/legacy/CLAUDE.md\", \"**/packages/gone/CLAUDE.md\", \"/home/alice/p/CLAUDE.md\"]}",
            ),
        ]);
        let msgs = f.messages("exclude-matches-nothing");
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(
            msgs[0].contains("gone") && msgs[1].contains("alice"),
            "{msgs:?}"
        );
    }

    #[test]
    fn a_pattern_over_the_step_budget_is_named_as_such() {
        let dir = format!("packages/{}/CLAUDE.md", "a".repeat(60));
        let pattern = format!("**/!(x){}b/CLAUDE.md", "*a".repeat(14));
        let settings = serde_json::json!({ "claudeMdExcludes": [pattern] }).to_string();
        let f = Fixture::new(&[
            ("CLAUDE.md", "x\n"),
            (dir.as_str(), "y\n"),
            (".claude/settings.json", settings.as_str()),
        ]);
        let msgs = f.messages("exclude-matches-nothing");
        assert_eq!(msgs.len(), 1, "{msgs:?}");
        assert!(msgs[0].contains("backtracks too much"), "{msgs:?}");
    }
}
