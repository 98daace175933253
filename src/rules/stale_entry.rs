//! `stale-entry` (soft).

use std::sync::LazyLock;

use jiff::Timestamp;
use regex::Regex;

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Role;

declare_rule! {
    /// ## What it does
    /// Flags a memory untouched for `stale-days` (120) days or more. When it was last true is
    /// read from what the file says, in this order:
    ///
    /// 1. its frontmatter `modified` (or `metadata.modified`, which the client's writer stamps;
    ///    a date, a date and time, or an RFC 3339 timestamp, UTC when no offset is given);
    /// 2. without a usable `modified`: the more recent of the file's modification time and the
    ///    latest date written in its body (`2026-03-05`, not after today). File times change on
    ///    every checkout, copy or sync, and a body date may be a plan or a deadline, so the
    ///    newer of the two is taken: a file is stale only when both say it is old.
    ///
    /// The message says which one was used.
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
    pub const RULE = ("stale-entry", Soft, Both, Check::File(check));
}

/// How the time a file was last true was found.
enum Source<'a> {
    /// Its frontmatter `modified`.
    Modified,
    /// The latest date in its body, or its file time, without a usable `modified`: the
    /// value that is not a date, if there is one.
    Body(Option<&'a str>),
    /// Its file time.
    FileTime(Option<&'a str>),
}

impl std::fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let not = match self {
            Source::Modified => return f.write_str("by `modified`"),
            Source::Body(not) => {
                f.write_str("by the latest date in the text; ")?;
                not
            }
            Source::FileTime(not) => {
                f.write_str("by file time; ")?;
                not
            }
        };
        match not {
            Some(w) => write!(f, "`modified: {w}` is not a date"),
            None => f.write_str("no `modified` field"),
        }
    }
}

/// When file `i` was last true, and how that was found.
fn last_true<'a>(ctx: &Ctx<'a>, i: usize) -> Option<(Timestamp, Source<'a>)> {
    let file = &ctx.lib.files[i];
    let written = file.meta().and_then(|m| m.modified.as_deref());
    if let Some(t) = written.and_then(crate::memory::meta::parse_modified) {
        return Some((t, Source::Modified));
    }
    let body = file.parsed().map_or("", |(text, p)| &text[p.body_start..]);
    let in_body = latest_date(body, ctx.now);
    match (file.mtime, in_body) {
        (Some(m), Some(b)) if b > m => Some((b, Source::Body(written))),
        (Some(m), _) => Some((m, Source::FileTime(written))),
        (None, Some(b)) => Some((b, Source::Body(written))),
        (None, None) => None,
    }
}

/// The latest `YYYY-MM-DD` date in `text` that is not after `now`.
fn latest_date(text: &str, now: Timestamp) -> Option<Timestamp> {
    static DATE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?-u:\b)(20[0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?-u:\b)")
            .expect("valid regex")
    });
    if !text.contains("20") {
        return None;
    }
    DATE.find_iter(text)
        .filter_map(|m| crate::memory::meta::parse_modified(m.as_str()))
        .filter(|t| *t <= now)
        .max()
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if file.role == Role::Index || file.text().is_none() {
        return;
    }
    let Some((when, source)) = last_true(ctx, i) else {
        return;
    };
    let days = ctx.now.duration_since(when).as_secs() / 86_400;
    if days >= ctx.cfg.stale_days {
        out.push(ctx.diag(&RULE, i, file.body_line(), message(days, &source, when)));
    }
}

/// `untouched for N days (how it was found, day)`, written into room for all of it at once
/// (`format!` guesses too little room for it and grows the string twice).
fn message(days: i64, source: &Source, when: Timestamp) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(128);
    let _ = write!(out, "untouched for {days} days ({source}, {})", Day(when));
    out
}

/// A time's UTC day as `%Y-%m-%d` writes it, without going through strftime's parser.
struct Day(Timestamp);

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = jiff::tz::Offset::UTC.to_datetime(self.0).date();
        if (0..=9999).contains(&d.year()) {
            write!(f, "{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
        } else {
            write!(f, "{}", self.0.strftime("%Y-%m-%d"))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::memory::meta::parse_modified;
    use crate::rules::testing::Fixture;

    #[test]
    fn days_are_written_as_strftime_writes_them() {
        let some = [
            "2026-10-05T09:00:00Z",
            "2026-12-31T23:59:59.999Z",
            "0001-01-01T00:00:00Z",
            "0999-07-04T12:00:00Z",
            "1970-01-01T00:00:00Z",
        ];
        let edges = [jiff::Timestamp::MIN, jiff::Timestamp::MAX];
        for t in some
            .map(|t| t.parse::<jiff::Timestamp>().unwrap())
            .into_iter()
            .chain(edges)
        {
            assert_eq!(
                super::Day(t).to_string(),
                t.strftime("%Y-%m-%d").to_string(),
                "{t}"
            );
        }
    }

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

    #[test]
    fn without_modified_the_newer_of_file_time_and_body_dates_decides() {
        let f = Fixture::new(&[
            (
                "user_dated.md",
                "---\nname: a\n---\nSince 2026-10-20 we deploy on Mondays.\n",
            ),
            ("user_old.md", "---\nname: a\n---\nDecided 2025-01-02.\n"),
            (
                "user_future.md",
                "---\nname: a\n---\nFreeze until 2027-01-01.\n",
            ),
        ]);
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        for name in ["user_dated.md", "user_old.md", "user_future.md"] {
            let file = std::fs::File::options()
                .append(true)
                .open(f.dir.path().join(name))
                .unwrap();
            file.set_modified(old).unwrap();
        }
        assert_eq!(f.paths("stale-entry"), ["user_future.md", "user_old.md"]);
        let msgs = f.messages("stale-entry").join("\n");
        assert!(msgs.contains("by the latest date in the text"), "{msgs}");
        assert!(msgs.contains("by file time"), "{msgs}");
    }
}
