//! `stale-entry` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Role;

declare_rule! {
    /// ## What it does
    /// Flags a memory untouched for `stale-days` (120) days or more, by its frontmatter
    /// `modified` (or `metadata.modified`; a date, a date and time, or an RFC 3339 timestamp,
    /// UTC when no offset is given), falling back to the file's modification time when there is
    /// no usable `modified`. The message says which one was used.
    ///
    /// ## Why it matters
    /// Memories describe a codebase that moves. A lesson nobody has confirmed in four months
    /// may now be wrong, and the model will follow it with the same confidence.
    ///
    /// ## Example
    /// `modified: 2026-03-01` on a library audited in November.
    ///
    /// ## Fix
    /// Re-check the memory: update it (and `modified`), retire it with a tombstone, or delete it.
    pub const RULE = ("stale-entry", Soft, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if file.role == Role::Index || file.text().is_none() {
        return;
    }
    let written = file.meta().and_then(|m| m.modified.as_deref());
    let (when, source) = match written.and_then(crate::memory::meta::parse_modified) {
        Some(t) => (t, "by `modified`".to_owned()),
        None => {
            let Some(t) = file.mtime() else { return };
            let why = match written {
                Some(w) => format!("by file time; `modified: {w}` is not a date"),
                None => "by file time; no `modified` field".to_owned(),
            };
            (t, why)
        }
    };
    let days = ctx.now.duration_since(when).as_secs() / 86_400;
    if days >= ctx.cfg.stale_days {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            format!(
                "untouched for {days} days ({source}, {})",
                when.strftime("%Y-%m-%d")
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::memory::meta::parse_modified;
    use crate::rules::testing::Fixture;

    #[test]
    fn dates() {
        let t = |s: &str| parse_modified(s).map(|t| t.to_string());
        assert_eq!(
            t("2026-10-05T09:00:00Z").as_deref(),
            Some("2026-10-05T09:00:00Z")
        );
        assert_eq!(t("2026-10-05").as_deref(), Some("2026-10-05T00:00:00Z"));
        assert_eq!(
            t("2026-10-05T09:00:00").as_deref(),
            Some("2026-10-05T09:00:00Z")
        );
        assert_eq!(
            t("2026-10-05T09:00:00+02:00").as_deref(),
            Some("2026-10-05T07:00:00Z")
        );
        assert_eq!(t("last week"), None);
    }

    #[test]
    fn vectors() {
        let e =
            |m: &str| format!("---\nname: a\ndescription: d\ntype: user\nmodified: {m}\n---\nx\n");
        let f = Fixture::new(&[
            ("user_fresh.md", &e("2026-11-01")),
            ("user_119.md", &e("2026-08-02")),
            ("user_120.md", &e("2026-08-01")),
            ("user_junk.md", &e("soon")),
            ("user_nofield.md", "---\nname: a\n---\nx\n"),
        ]);
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        for name in ["user_junk.md", "user_nofield.md", "user_fresh.md"] {
            let file = std::fs::File::options()
                .append(true)
                .open(f.dir.path().join(name))
                .unwrap();
            file.set_modified(old).unwrap();
        }
        assert_eq!(
            f.paths("stale-entry"),
            ["user_120.md", "user_junk.md", "user_nofield.md"]
        );
        let msgs = f.messages("stale-entry").join("\n");
        assert!(msgs.contains("120 days (by `modified`"), "{msgs}");
        assert!(msgs.contains("`modified: soon` is not a date"), "{msgs}");
        assert!(msgs.contains("no `modified` field"), "{msgs}");
    }
}
