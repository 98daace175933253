//! `stale-entry` (soft).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use jiff::Timestamp;
use regex::Regex;

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Role;

declare_rule! {
    /// ## What it does
    /// Flags a memory that re-checking would find outdated. Age alone is not that: who the
    /// user is and a standing rule nothing has changed stay true for years. A memory untouched
    /// for `stale-days` (120) days or more is flagged when it is also one of these:
    ///
    /// - a work-in-progress note (its name or file name says `wip`, `session`, `todo`,
    ///   `handoff`, `progress`, `scratch`, `draft`): the work is done or abandoned;
    /// - a `project` plan whose dates have all passed (`2026-02-20`, none after today): the
    ///   plan is over;
    /// - superseded: a memory written at least `stale-days` / 2 days later names the same
    ///   project paths (`Assets/_Project/Art`), so one of the two describes an older state (a
    ///   hub, like MEMORY.md, lists memories: it supersedes none of them).
    ///
    /// When a memory was last true is read from what the file says, in this order:
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
    pub const RULE = ("stale-entry", Soft, Both, Check::Library(check));
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

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let files = &ctx.lib.files;
    let when: Vec<Option<(Timestamp, Source)>> = (0..files.len())
        .map(|i| {
            let f = &files[i];
            (f.role != Role::Index && f.text().is_some())
                .then(|| last_true(ctx, i))
                .flatten()
        })
        .collect();
    let age = |t: Timestamp| ctx.now.duration_since(t).as_secs() / 86_400;
    let old: Vec<usize> = (0..files.len())
        .filter(|&i| {
            when[i]
                .as_ref()
                .is_some_and(|(t, _)| age(*t) >= ctx.cfg.stale_days)
        })
        .collect();
    if old.is_empty() {
        return;
    }
    // The project paths each memory names, and for each path the memories naming it: a
    // memory written later that names a path of an old one is found by looking up the old
    // one's paths, not by comparing it with every other memory.
    // A hub is part of the index (its lines are entries pointing at memories, often moved
    // there verbatim by `tier`): like MEMORY.md, it supersedes nothing it lists.
    let paths: Vec<HashSet<String>> = (0..files.len())
        .map(|j| match (&when[j], files[j].text(), &files[j].role) {
            (_, _, Role::Hub { .. }) => HashSet::new(),
            (Some(_), Some(text), _) => path_keys(text),
            _ => HashSet::new(),
        })
        .collect();
    let namers = Namers::of(&paths, &when);
    let gap = jiff::SignedDuration::from_hours(ctx.cfg.stale_days * 12);
    for i in old {
        let file = &files[i];
        let Some((t, source)) = &when[i] else {
            continue;
        };
        let days = age(*t);
        let why = if super::labels::wip_note(file) {
            Some("a work-in-progress note: the work is done or abandoned".to_owned())
        } else if file.kind() == Some("project") && plan_is_over(file, ctx.now) {
            Some("a plan whose dates have all passed".to_owned())
        } else {
            t.checked_add(gap)
                .ok()
                .and_then(|later| namers.first_later(i, &paths[i], later, &when))
                .map(|j| {
                    format!(
                        "{} was written later and names the same paths",
                        files[j].rel
                    )
                })
        };
        if let Some(why) = why {
            let mut m = message(days, source, *t);
            m.push_str(": ");
            m.push_str(&why);
            out.push(ctx.diag(&RULE, i, file.body_line(), m));
        }
    }
}

/// For each project path, the memories naming it (ascending), each with the latest time any of
/// them up to it was last true: the first memory of a path last true at or after a time is
/// then found by a binary search.
struct Namers<'a>(HashMap<&'a str, (Vec<usize>, Vec<Timestamp>)>);

impl<'a> Namers<'a> {
    fn of(paths: &'a [HashSet<String>], when: &[Option<(Timestamp, Source<'_>)>]) -> Self {
        let mut by_path: HashMap<&str, (Vec<usize>, Vec<Timestamp>)> = HashMap::new();
        for (j, keys) in paths.iter().enumerate() {
            let Some((t, _)) = &when[j] else { continue };
            for key in keys {
                let (files, latest) = by_path.entry(key.as_str()).or_default();
                files.push(j);
                latest.push(latest.last().map_or(*t, |l| (*l).max(*t)));
            }
        }
        Namers(by_path)
    }

    /// The first memory other than `i` that names one of `keys` and was last true at or
    /// after `later`.
    fn first_later(
        &self,
        i: usize,
        keys: &HashSet<String>,
        later: Timestamp,
        when: &[Option<(Timestamp, Source<'_>)>],
    ) -> Option<usize> {
        let is_later = |j: usize| when[j].as_ref().is_some_and(|(tj, _)| *tj >= later);
        keys.iter()
            .filter_map(|key| {
                let (files, latest) = self.0.get(key.as_str())?;
                let k = latest.partition_point(|t| *t < later);
                // `i` itself is later only when `stale-days` is 0 or less; then the next is.
                (k..files.len())
                    .map(|k| files[k])
                    .find(|&j| j != i && is_later(j))
            })
            .min()
    }
}

/// Whether a project memory names dates and every one of them has passed.
fn plan_is_over(file: &crate::memory::file::MemFile, now: Timestamp) -> bool {
    let Some(text) = file.text() else {
        return false;
    };
    let mut any = false;
    for m in date_regex().find_iter(text) {
        match crate::memory::meta::parse_modified(m.as_str()) {
            Some(d) if d > now => return false,
            Some(_) => any = true,
            None => {}
        }
    }
    // The frontmatter's own `modified` is a date too, but not a plan's.
    any && {
        let body = file.parsed().map_or("", |(t, p)| &t[p.body_start..]);
        date_regex().is_match(body)
    }
}

/// `2026-03-05`.
fn date_regex() -> &'static Regex {
    static DATE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?-u:\b)(20[0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?-u:\b)")
            .expect("valid regex")
    });
    &DATE
}

/// The project paths a memory names, as pairs of consecutive path segments
/// (`assets/_project`, `_project/art`), lower case; URLs and home or absolute paths are not
/// the project's.
fn path_keys(text: &str) -> HashSet<String> {
    static PATH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:^|[\s`(\[「『（])([A-Za-z0-9_][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_][A-Za-z0-9_.-]*)+)",
        )
        .expect("valid regex")
    });
    let mut keys = HashSet::new();
    for m in PATH.find_iter(text) {
        // The match is the path after the character before it (if any): the leftmost-first
        // matches are those of `captures_iter`, found without the slower capturing engines.
        let p = m.as_str();
        let p = p.trim_start_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        let segs: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
        for w in segs.windows(2) {
            if w.iter().all(|s| s.len() >= 3) {
                keys.insert(format!("{}/{}", w[0], w[1]).to_lowercase());
            }
        }
    }
    keys
}

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
    use std::collections::HashSet;

    use jiff::Timestamp;

    use super::{Namers, Source};

    proptest::proptest! {
        #[test]
        fn looking_paths_up_finds_the_memory_comparing_every_pair_finds(
            files in proptest::collection::vec(
                (proptest::option::of(0i64..20), proptest::collection::hash_set("[abc]", 0..3)),
                0..12,
            ),
            gap in -3i64..6,
        ) {
            let day = |d: i64| Timestamp::from_second(d * 86_400).unwrap();
            let when: Vec<Option<(Timestamp, Source<'_>)>> = (files.iter())
                .map(|(d, _)| d.map(|d| (day(d), Source::Modified)))
                .collect();
            let paths: Vec<HashSet<String>> = (files.iter())
                .map(|(d, keys)| if d.is_some() { keys.clone() } else { HashSet::new() })
                .collect();
            let namers = Namers::of(&paths, &when);
            for (i, (d, _)) in files.iter().enumerate() {
                let Some(d) = d else { continue };
                let later = day(d + gap);
                let every_pair = (0..files.len())
                    .filter(|&j| j != i && !paths[i].is_disjoint(&paths[j]))
                    .find(|&j| when[j].as_ref().is_some_and(|(tj, _)| *tj >= later));
                proptest::prop_assert_eq!(namers.first_later(i, &paths[i], later, &when), every_pair);
            }
        }
    }
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
    fn vectors() {
        let e =
            |m: &str| format!("---\nname: a\ndescription: d\ntype: user\nmodified: {m}\n---\nx\n");
        let f = Fixture::new(&[
            ("session_fresh.md", &e("2026-11-01")),
            ("session_119.md", &e("2026-08-02")),
            ("session_120.md", &e("2026-08-01")),
            ("session_junk.md", &e("soon")),
            ("session_nofield.md", "---\nname: a\n---\nx\n"),
        ]);
        f.age(&["session_junk.md", "session_nofield.md", "session_fresh.md"]);
        assert_eq!(
            f.paths("stale-entry"),
            ["session_120.md", "session_junk.md", "session_nofield.md"]
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
                "session_dated.md",
                "---\nname: a\n---\nSince 2026-10-20 we deploy on Mondays.\n",
            ),
            ("session_old.md", "---\nname: a\n---\nDecided 2025-01-02.\n"),
            (
                "session_future.md",
                "---\nname: a\n---\nFreeze until 2027-01-01.\n",
            ),
        ]);
        f.age(&["session_dated.md", "session_old.md", "session_future.md"]);
        assert_eq!(
            f.paths("stale-entry"),
            ["session_future.md", "session_old.md"]
        );
        let msgs = f.messages("stale-entry").join("\n");
        assert!(msgs.contains("by the latest date in the text"), "{msgs}");
        assert!(msgs.contains("by file time"), "{msgs}");
    }

    #[test]
    fn age_alone_is_no_finding() {
        let e = |kind: &str, body: &str| {
            format!(
                "---\nname: a\ndescription: d\ntype: {kind}\nmodified: 2026-03-01\n---\n{body}\n"
            )
        };
        let f = Fixture::new(&[
            (
                "user_role.md",
                &e("user", "Backend engineer, ten years of Go."),
            ),
            (
                "feedback_tabs.md",
                &e("feedback", "Tabs in Go files.\n**Why:** gofmt."),
            ),
            (
                "project_launch.md",
                &e("project", "- Launch: 2026-02-20\n- Demo: 2026-01-10"),
            ),
            ("project_next.md", &e("project", "- Launch: 2027-02-20")),
            ("project_choice.md", &e("project", "Pix only in 2.0.")),
            (
                "feedback_art.md",
                &e("feedback", "Outsourced art goes to `Assets/_Project/Art/`."),
            ),
            (
                "reference_layout.md",
                "---\nname: b\ndescription: d\ntype: reference\nmodified: 2026-11-20\n---\n`Assets/_Project/Art/` is in-house art.\n",
            ),
        ]);
        assert_eq!(
            f.paths("stale-entry"),
            ["feedback_art.md", "project_launch.md"],
            "a plan whose dates passed and a memory a later one overrides; not who the user is, a standing rule, a plan ahead or a decision"
        );
        let msgs = f.messages("stale-entry").join("\n");
        assert!(
            msgs.contains("reference_layout.md was written later"),
            "{msgs}"
        );
        assert!(
            msgs.contains("a plan whose dates have all passed"),
            "{msgs}"
        );
    }

    #[test]
    fn a_hub_listing_a_memory_supersedes_it_not() {
        let e = |kind: &str, m: &str, body: &str| {
            format!("---\nname: a\ndescription: d\ntype: {kind}\nmodified: {m}\n---\n{body}\n")
        };
        let f = Fixture::new(&[
            (
                "reference_agent_rtl.md",
                &e(
                    "reference",
                    "2026-06-21",
                    "RTL agent: prompts in `agents/domain/`.",
                ),
            ),
            (
                "reference_agents_hub.md",
                &e(
                    "reference",
                    "2026-11-30",
                    "| [[agent-rtl]] | agents/domain/ — RTL 编码/TB/仿真 |",
                ),
            ),
            (
                "reference_layout.md",
                &e(
                    "reference",
                    "2026-11-20",
                    "`agents/domain/` holds one file per agent.",
                ),
            ),
        ]);
        let msgs = f.messages("stale-entry").join("\n");
        assert!(
            msgs.contains("reference_layout.md was written later") && !msgs.contains("_hub.md"),
            "a later memory supersedes; a hub that lists it does not: {msgs}"
        );
    }
}
