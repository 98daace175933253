//! `large-group` (soft).

use std::collections::HashSet;

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::{Role, role_of};
use crate::memory::library::Target;
use crate::memory::names;

declare_rule! {
    /// ## What it does
    /// Flags a group of MEMORY.md (a `## ` section) that lists more than `max-group-entries`
    /// (15) entries: list items that link to a memory file other than a hub.
    ///
    /// ## Why it matters
    /// The model scans the index by description; past about 15 lines in one group it starts
    /// to miss the one it needs, and every line costs context in every session.
    ///
    /// ## Example
    /// ```markdown
    /// ## Database
    /// - [rls-uid](feedback_rls_uid.md) — …
    /// - … 18 more lines …
    /// ```
    ///
    /// ## Fix
    /// Move the group's entries to a hub named after its heading, and leave one pointer line
    /// in MEMORY.md: `## Database` → `reference_database_hub.md` and
    /// `- [Database](reference_database_hub.md) — 18 entries: …`.
    ///
    /// Each finding names its own group's hub, as `ccmem tier` and `ccmem add` name hubs:
    /// `## 客服工单 support/ops` → `reference_ke-fu-gong-dan-support-ops_hub.md`.
    ///
    /// A crowned section (`## ⚠️ Read first`, `## ⭐ …`) stays at the top of MEMORY.md, where
    /// `ccmem tier` keeps crowns: its fix is to keep there only the entries every session must
    /// see and move the rest under a heading of their own.
    pub const RULE = ("large-group", Soft, Manager, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let Some(index) = ctx.lib.index() else { return };
    let Some((text, parsed)) = ctx.lib.files[index].parsed() else {
        return;
    };
    let entry_lines: HashSet<usize> = ctx
        .lib
        .links(index)
        .iter()
        .filter(|l| {
            let role = match l.target {
                Target::File(t) | Target::Named(t) => ctx.lib.files[t].role.clone(),
                Target::Missing | Target::Outside => {
                    role_of(l.link.target.rsplit('/').next().unwrap_or(""))
                }
            };
            !matches!(role, Role::Hub { .. } | Role::Index)
        })
        .map(|l| l.line)
        .collect();
    let first = crate::memory::file::line_of(text, parsed.body_start);
    let mut groups: Vec<(usize, String, usize)> = Vec::new();
    for (k, line) in text[parsed.body_start..].lines().enumerate() {
        let n = first + k;
        if let Some(title) = line.strip_prefix("## ") {
            groups.push((n, title.trim().to_owned(), 0));
        } else if let Some(g) = groups.last_mut() {
            let t = line.trim_start();
            let item = t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ");
            if item && entry_lines.contains(&n) {
                g.2 += 1;
            }
        }
    }
    let max = ctx.cfg.max_group_entries;
    for (line, title, count) in groups {
        if count > max {
            let crowned = names::has_crown_mark(&title);
            let fix = if crowned {
                // `tier` keeps a crowned section on top and never makes a hub of it.
                format!(
                    "A crowned section stays at the top of MEMORY.md, and `ccmem tier` never moves \
                     it to a hub: keep in it at most {max} entries every session must see, and move \
                     the rest under a heading of their own, which `ccmem tier` can then move to a \
                     hub."
                )
            } else {
                let hub = names::hub_file(&names::key(&title));
                format!(
                    "Move the group's {count} entries to a hub named after it, `{hub}`, and leave \
                     one pointer line in MEMORY.md: `- [{title}]({hub}) — {count} entries: …`."
                )
            };
            out.push(Diagnostic {
                fix: Some(fix),
                ..ctx.diag(
                    &RULE,
                    index,
                    line,
                    format!(
                        "group `{title}` lists {count} entries (more than {max}); {}",
                        if crowned {
                            "keep only what every session must see"
                        } else {
                            "move them to a hub"
                        }
                    ),
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Diagnostic;
    use crate::rules::testing::Fixture;

    /// The large-group findings of a library holding only `index`, held to claude-memory-manager's
    /// spec (the one the rule belongs to).
    fn large_groups(index: &str) -> Vec<Diagnostic> {
        let mut f = Fixture::new(&[("MEMORY.md", index)]);
        f.config().spec = crate::config::SpecChoice::Manager;
        let mut found = f.audit().diagnostics;
        found.retain(|d| d.rule == "large-group");
        found
    }

    #[test]
    fn vectors() {
        let mut index = String::from("# I\n## Small\n");
        index += &"- [a](user_a.md)\n".repeat(15);
        index += "## Big\n";
        index += &"- [a](user_a.md) · [b](user_a.md)\n".repeat(16);
        index += "## Hubs\n";
        index += &"- [h](reference_g_hub.md)\n".repeat(20);
        let mut f = Fixture::new(&[("MEMORY.md", &index)]);
        assert!(
            f.found("large-group").is_empty(),
            "groups of entries behind hubs are claude-memory-manager's layout"
        );
        f.config().spec = crate::config::SpecChoice::Manager;
        assert_eq!(f.found("large-group"), [("MEMORY.md".to_owned(), 18)]);
        assert!(f.messages("large-group")[0].contains("16 entries"));
    }

    #[test]
    fn a_crowned_section_is_not_sent_to_a_hub() {
        // tier keeps a crowned section on top (`tier::groups::crown_sections`): no hub to name.
        let mut index = String::from("# I\n## ⚠️ Read first\n");
        index += &"- [a](user_a.md)\n".repeat(18);
        let found = large_groups(&index);
        assert_eq!(found.len(), 1, "a crowned section of 18 is still large");
        assert!(!found[0].message.contains("hub"), "{}", found[0].message);
        let fix = found[0].fix();
        assert!(
            fix.contains("never moves it to a hub")
                && fix.contains("at most 15")
                && !fix.contains("_hub.md"),
            "{fix}"
        );
    }

    #[test]
    fn the_fix_names_the_hub_of_its_own_group() {
        let mut index = String::from("# I\n## Big Things\n");
        index += &"- [a](user_a.md)\n".repeat(16);
        index += "## 客服工单 support/ops\n";
        index += &"- [a](user_a.md)\n".repeat(17);
        let found = large_groups(&index);
        let fixes: Vec<&str> = found.iter().map(|d| d.fix()).collect();
        assert_eq!(fixes.len(), 2, "{fixes:?}");
        assert!(
            fixes[0].contains("`reference_big-things_hub.md`")
                && fixes[0].contains("- [Big Things](reference_big-things_hub.md) — 16 entries"),
            "{}",
            fixes[0]
        );
        assert!(
            fixes[1].contains("`reference_ke-fu-gong-dan-support-ops_hub.md`")
                && fixes[1].contains("17 entries"),
            "{}",
            fixes[1]
        );
        assert!(
            fixes.iter().all(|f| !f.contains("database")),
            "not the documentation's example: {fixes:?}"
        );
    }
}
