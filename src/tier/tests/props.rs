//! Property test over generated libraries shaped like the corpus (tests/fixtures/libraries/):
//! both write specs and none, CJK / Korean / Vietnamese / emoji headings and titles, CRLF,
//! a title or none, nested headings, prose paragraphs with links, plain rule lines and rules
//! that cite a file, `~/` pointers, `[[name]]` links by name and by file, code-span links,
//! broken links, long lines, `group:` frontmatter, crowns and pins, sections that already
//! point to a hub, and sections of entries that point to a hub at or near `max-file-lines`
//! (the proof's invariant 5 then checks no hub is taken past it).
//!
//! On every plan: it never refuses; invariants 2–5 hold (1 too unless nothing is left to move);
//! the audit run afterwards reports no new finding of the kinds tier must never add; it never
//! overshoots (each group moved is needed); no hub it creates holds a single entry; rule lines
//! stay in MEMORY.md; line endings are kept; a second run has nothing to do.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::super::groups::{Rank, classify};
use super::super::parse::{Kind, parse};
use super::super::plan::fits_without;
use super::super::*;
use crate::config::Config;
use crate::config::SpecChoice;
use crate::memory::file::{Role as FileRole, role_of};

const TYPES: [&str; 5] = ["feedback", "project", "user", "reference", "note"];
const WORDS: [&str; 9] = [
    "build",
    "日本語のメモ",
    "wildcard",
    "배포 전에 마이그레이션",
    "😀 emoji",
    "x",
    "deploy-flow",
    "数据管道",
    "Tiếng Việt",
];
const HEADINGS: [&str; 8] = [
    "Build & Test",
    "ツール",
    "피드백",
    "日本",
    "🔧",
    "2026-06-16 세션",
    "移动端 (mobile)",
    "Hubs",
];

#[derive(Debug, Clone)]
struct Entry {
    kind: usize,
    word: usize,
    crown: u8,
    syntax: u8,
    fm: u8,
    heading: Option<usize>,
    sub: bool,
    group: Option<usize>,
    pinned: bool,
    broken: bool,
    desc_len: usize,
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        (0..TYPES.len(), 0..WORDS.len(), 0u8..14, 0u8..4, 0u8..6),
        (
            proptest::option::of(0..HEADINGS.len()),
            proptest::bool::weighted(0.15),
            proptest::option::weighted(0.2, 0..HEADINGS.len()),
            proptest::bool::weighted(0.04),
            proptest::bool::weighted(0.06),
            prop_oneof![8 => 0usize..60, 1 => 180usize..260],
        ),
    )
        .prop_map(
            |((kind, word, crown, syntax, fm), (heading, sub, group, pinned, broken, desc_len))| {
                Entry {
                    kind,
                    word,
                    crown,
                    syntax,
                    fm,
                    heading,
                    sub,
                    group,
                    pinned,
                    broken,
                    desc_len,
                }
            },
        )
}

/// A section already in hub-first shape: `(heading?, modified day (0: none), entries it
/// lists, section of entries its pointer is in (its entries then go to that hub), lines it is
/// short of `max-file-lines` plus one (0: not padded))`.
type HubSection = (bool, u8, u8, Option<usize>, u8);

/// Extra lines: `(kind, section)`: 0 a plain rule, 1 a rule citing a file, 2 a prose line
/// with links, 3 a `~/` pointer, 4 a crown rule.
type Extra = (u8, Option<usize>);

#[derive(Debug, Clone)]
struct Shape {
    spec: u8,
    crlf: bool,
    index_fm: bool,
    title: bool,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        0u8..4,
        any::<bool>(),
        proptest::bool::weighted(0.1),
        any::<bool>(),
    )
        .prop_map(|(spec, crlf, index_fm, title)| Shape {
            spec,
            crlf,
            index_fm,
            title,
        })
}

fn frontmatter(spec: u8, e: &Entry, stem: &str) -> String {
    let group = e
        .group
        .map(|g| format!("group: {}\n", HEADINGS[g]))
        .unwrap_or_default();
    let kind = TYPES[e.kind];
    let name = stem.replace('_', "-");
    match (spec, e.fm) {
        (_, 0) => "fact\n".to_owned(),
        (_, 1) => format!("---\nname: [unclosed\n{group}---\nbody\n"),
        (0, _) => format!(
            "---\nname: {name}\ndescription: d {stem}\nmetadata:\n  type: {kind}\n---\nfact about {stem}\n\n**Why:** w\n"
        ),
        (1, _) => format!(
            "---\nname: {stem}\ndescription: d {stem}\ntype: {kind}\n{group}modified: 2026-09-01\n---\nfact\n\n## Why\nw\n"
        ),
        (2, 2) => format!(
            "\u{feff}---\r\nname: {name}\r\nmetadata: \r\n  type: {kind}\r\n---\r\nbody\r\n"
        ),
        (_, _) => format!("---\ntype: {}\n{group}---\n", TYPES[(e.kind + 1) % 5]),
    }
}

fn build(shape: &Shape, entries: &[Entry], hubs: &[HubSection], extras: &[Extra]) -> Library {
    let eol = if shape.crlf { "\r\n" } else { "\n" };
    let mut config = Config {
        spec: match shape.spec {
            0 => SpecChoice::Client,
            1 => SpecChoice::Manager,
            _ => SpecChoice::Auto,
        },
        ..Config::default()
    };
    let mut files: Vec<(String, String)> = Vec::new();
    let mut index: Vec<String> = Vec::new();
    if shape.index_fm {
        index.extend(["---".into(), "title: index".into(), "---".into()]);
    }
    if shape.title {
        index.push("# 記憶 Memory".into());
        index.push("Index of what I remember 日本語.".into());
        index.push(String::new());
    }
    let extra_line = |kind: u8, k: usize| -> String {
        match kind {
            0 => format!("- Always answer in Korean, rule {k}."),
            1 => format!("{k}. Ask before deleting ([why](feedback_{k}.md))."),
            2 => format!("See [the notes](user_{k}.md) and [[feedback_{k}]] for more."),
            3 => format!("- Runbook: [deploy](~/notes/deploy-{k}.md)"),
            _ => format!("- ⚠️ Never push to main ({k})"),
        }
    };
    for (k, &(kind, section)) in extras.iter().enumerate() {
        if section.is_none() {
            index.push(extra_line(kind, k));
        }
    }
    let mut sorted: Vec<(usize, &Entry)> = entries.iter().enumerate().collect();
    sorted.sort_by_key(|(_, e)| (e.heading.map(|h| h + 1).unwrap_or(0), e.sub));
    let mut current = (None, false);
    let mut placed: Vec<usize> = Vec::new();
    for (i, e) in sorted {
        if (e.heading, e.sub) != current {
            if let Some(h) = e.heading {
                if e.heading != current.0 {
                    index.push(String::new());
                    index.push(format!("## {}", HEADINGS[h]));
                    for (k, hub) in hubs.iter().enumerate() {
                        if hub.3 == Some(h) {
                            index.push(format!("- [hub {k}](reference_h{k}_hub.md) — map of {k}"));
                            placed.push(k);
                        }
                    }
                    for (k, &(kind, section)) in extras.iter().enumerate() {
                        if section == Some(h) {
                            index.push(extra_line(kind, k));
                        }
                    }
                }
                if e.sub {
                    index.push(format!("### {} sub", HEADINGS[h]));
                }
            }
            current = (e.heading, e.sub);
        }
        let stem = format!(
            "{}_{}{}",
            TYPES[e.kind],
            i,
            if e.word == 1 { "-memo" } else { "" }
        );
        let file = format!("{stem}.md");
        let link = match e.syntax {
            0 | 3 => format!("[{}]({file})", WORDS[e.word]),
            1 => format!("[[{stem}]]"),
            _ => format!("`{file}`"),
        };
        let mark = match e.crown {
            0 => "⭐ ",
            1 => "⚠️ ",
            _ => "",
        };
        let desc: String = WORDS[e.word].chars().cycle().take(e.desc_len).collect();
        index.push(format!("- {mark}{link} — {desc}"));
        if e.pinned {
            config.tier.pins.push(file.clone());
        }
        if !e.broken {
            files.push((file, frontmatter(shape.spec, e, &stem)));
        }
    }
    let max_lines = config.audit.max_file_lines;
    for (k, &(heading, day, listed, _, short)) in hubs.iter().enumerate() {
        let hub = format!("reference_h{k}_hub.md");
        if !placed.contains(&k) {
            if heading {
                index.push(format!("## Hub {k} 日本"));
            }
            index.push(format!("- [hub {k}]({hub}) — map of area {k}"));
        }
        let modified = match day {
            0 => String::new(),
            d => format!("modified: 2026-09-{d:02}\n"),
        };
        let mut text = format!(
            "---\nname: reference-h{k}-hub\ndescription: hub {k}\ntype: reference\n{modified}---\n"
        );
        for (n, _) in files
            .iter()
            .filter(|(n, _)| !n.contains("hub"))
            .take(listed as usize)
        {
            text.push_str(&format!("- [e]({n})\n"));
        }
        // Near the audit's `max-file-lines`: tier must not append past it.
        while short > 0 && text.lines().count() < max_lines + 1 - short as usize {
            text.push_str("Notes on this area.\n");
        }
        files.push((hub, text));
    }
    let mut text = index.join(eol);
    text.push_str(eol);
    files.push(("MEMORY.md".to_owned(), text));
    Library::from_texts(std::path::Path::new("/m"), config, files)
}

/// The audit's findings of the kinds tier must never add, keyed so that a moved finding is
/// the same one.
fn findings(lib: &Library) -> BTreeMap<(&'static str, String), usize> {
    let now = "2026-12-01T00:00:00Z".parse().unwrap();
    let audit = crate::rules::run::audit(lib.clone(), now).unwrap();
    let mut out = BTreeMap::new();
    for d in audit.diagnostics {
        if !proof::AGREE.contains(&d.rule) {
            continue;
        }
        let key = if d.rule == "broken-link" {
            d.message
        } else {
            format!("{}: {}", d.path, d.message)
        };
        *out.entry((d.rule, key)).or_default() += 1;
    }
    out
}

fn run(lib: &Library, opts: &Options) -> Result<(), TestCaseError> {
    let p = plan::plan(lib, opts).map_err(|r| TestCaseError::fail(r.to_string()))?;
    let after = applied(lib, &p);
    let proof = proof::prove(lib, &after, &p, p.after);
    // The proof reuses what the plan cannot change; the findings are those of every rule run.
    let (_, reused) = proof::Baseline::with_audit(lib, &after);
    reused
        .check_against_full(lib, &after)
        .map_err(TestCaseError::fail)?;
    for c in (proof.checks.iter()).filter(|c| c.id != proof::Invariant::Size) {
        prop_assert!(
            c.ok,
            "invariant {} failed: {}\n{}",
            c.id.number(),
            c.detail,
            after.index_text()
        );
    }
    let idx = parse(lib.index_text());
    let layout = classify(lib, &idx, &Default::default());
    let pushed: Vec<(&str, Rank)> = (p.steps.iter())
        .filter_map(|s| match s {
            Step::Pushed { hub, rank, .. } => Some((hub.as_str(), *rank)),
            _ => None,
        })
        .collect();
    // Crowns never move (rule 2); every crown tier found is still in MEMORY.md.
    for c in &layout.crowns {
        let line = idx.lines[c.line].text;
        prop_assert!(
            after.index_text().lines().any(|l| l == line),
            "crown moved: {line}"
        );
    }
    // Uses the budget (rule 6): every piece moved was needed.
    let slimmer =
        (p.steps.iter()).any(|s| matches!(s, Step::BlankLinesDropped | Step::Aggregated { .. }));
    if proof.check(proof::Invariant::Size).ok && !slimmer {
        for (hub, rank) in &pushed {
            prop_assert!(
                !fits_without(lib, opts, &p, hub, *rank),
                "{hub} ({rank:?}) was not needed: {:?}\ngroups: {:?}\npieces: {:?}\n{}",
                p.steps,
                (layout.groups.iter())
                    .map(|g| (&g.key, g.hub(), &g.lines, g.hub_exists, g.linked))
                    .collect::<Vec<_>>(),
                (layout.pieces.iter())
                    .map(|x| (x.group, x.rank, &x.lines))
                    .collect::<Vec<_>>(),
                lib.index_text()
            );
        }
    }
    // The audit afterwards agrees.
    let (was, now) = (findings(lib), findings(&after));
    let new: Vec<_> = (now.iter())
        .filter(|(k, n)| was.get(*k).is_none_or(|w| w < *n))
        .collect();
    prop_assert!(
        new.is_empty(),
        "new findings: {new:?}\n{}",
        after.index_text()
    );
    // Hubs tier creates have ASCII hub names and never a single entry.
    for f in p.files.iter().filter(|f| f.old.is_none()) {
        prop_assert!(
            matches!(role_of(&f.name), FileRole::Hub { .. }),
            "{}",
            f.name
        );
        let hub = parse(&f.new);
        let entries = (0..hub.lines.len())
            .filter(|&i| hub.lines[i].kind == Kind::Entry || groups::is_note(&hub, i))
            .count();
        prop_assert!(
            entries >= 2 || f.name.contains("more-hubs"),
            "{}:\n{}",
            f.name,
            f.new
        );
    }
    // Plain rule lines stay in MEMORY.md.
    for line in idx
        .lines
        .iter()
        .enumerate()
        .filter(|(i, l)| {
            l.kind == Kind::Text && !l.text.contains("](") && !groups::is_note(&idx, *i)
        })
        .map(|(_, l)| l)
    {
        prop_assert!(
            after.index_text().contains(line.text),
            "rule line left MEMORY.md: {}",
            line.text
        );
    }
    if !p.is_noop() {
        let crlf = lib.index_text().contains("\r\n");
        let lone_lf = p.files[0].new.replace("\r\n", "").contains('\n');
        prop_assert!(!crlf || !lone_lf, "CRLF kept");
        if proof.ok() {
            let again = plan::plan(&after, opts).map_err(|r| TestCaseError::fail(r.to_string()))?;
            prop_assert!(
                again.is_noop(),
                "a second run does nothing: {:?}",
                again.steps
            );
        }
    }
    Ok(())
}

/// A library on which one pass of giving back left a piece that a later give-back made
/// unneeded: a move kept for the UTF-16 units it saved cost a line (found with
/// `PROPTEST_RNG_SEED=43`; the input is the one proptest shrank it to). Entries are
/// `(kind, word, crown, syntax, fm, heading, sub, desc_len)`, in no group, not pinned, unbroken.
/// `(kind, word, crown, syntax, fm, heading, sub, desc_len)` of an [`Entry`].
type Row = (usize, usize, u8, u8, u8, Option<usize>, bool, usize);

#[test]
fn giving_back_repeats_until_no_piece_can_be_given_back() {
    #[rustfmt::skip]
    let rows: [Row; 31] = [
        (0, 0, 0, 0, 0, None, false, 27),
        (3, 0, 2, 1, 2, Some(1), false, 20),
        (1, 3, 2, 1, 2, None, false, 34),
        (0, 0, 0, 0, 0, None, false, 46),
        (0, 0, 2, 1, 0, Some(5), false, 19),
        (2, 0, 0, 0, 0, None, false, 41),
        (3, 3, 0, 0, 0, Some(1), true, 51),
        (0, 0, 0, 0, 0, Some(3), false, 42),
        (0, 0, 2, 1, 1, None, false, 14),
        (3, 3, 2, 1, 2, None, false, 17),
        (2, 3, 0, 0, 0, None, false, 16),
        (0, 3, 2, 0, 1, None, false, 0),
        (4, 0, 2, 1, 0, None, false, 28),
        (0, 0, 2, 1, 0, Some(5), false, 17),
        (2, 0, 0, 0, 0, None, false, 239),
        (0, 5, 2, 1, 0, Some(5), false, 23),
        (3, 0, 0, 3, 0, None, false, 39),
        (0, 1, 2, 0, 1, None, false, 0),
        (0, 0, 0, 0, 0, Some(2), false, 187),
        (0, 0, 0, 0, 0, None, false, 29),
        (0, 4, 1, 0, 0, None, false, 47),
        (4, 0, 2, 1, 0, None, false, 38),
        (3, 6, 2, 3, 0, None, false, 13),
        (3, 6, 2, 3, 0, None, false, 0),
        (0, 0, 0, 2, 0, None, false, 182),
        (0, 1, 0, 0, 0, None, false, 193),
        (3, 4, 2, 1, 0, Some(1), false, 11),
        (1, 0, 2, 1, 2, None, false, 50),
        (0, 0, 2, 1, 0, Some(1), false, 17),
        (0, 0, 0, 0, 0, Some(0), true, 45),
        (3, 0, 2, 1, 0, None, false, 41),
    ];
    let entries: Vec<Entry> = (rows.iter())
        .map(
            |&(kind, word, crown, syntax, fm, heading, sub, desc_len)| Entry {
                kind,
                word,
                crown,
                syntax,
                fm,
                heading,
                sub,
                group: None,
                pinned: false,
                broken: false,
                desc_len,
            },
        )
        .collect();
    let shape = Shape {
        spec: 0,
        crlf: true,
        index_fm: false,
        title: false,
    };
    let lib = build(
        &shape,
        &entries,
        &[(true, 0, 0, None, 0), (false, 0, 0, None, 0)],
        &[],
    );
    let opts = Options {
        target: Target {
            lines: 37,
            utf16: 2513,
        },
        compress: true,
        ..Options::default()
    };
    run(&lib, &opts).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn tier_plans_what_the_audit_and_a_curator_accept(
        shape in shape(),
        entries in proptest::collection::vec(entry(), 0..40),
        hubs in proptest::collection::vec((any::<bool>(), 0u8..29, 0u8..3, proptest::option::of(0..HEADINGS.len()), 0u8..6), 0..6),
        extras in proptest::collection::vec((0u8..5, proptest::option::of(0..HEADINGS.len())), 0..6),
        target_lines in 2usize..40,
        target_utf16 in 200usize..4000,
    ) {
        let lib = build(&shape, &entries, &hubs, &extras);
        let opts = Options {
            target: Target { lines: target_lines, utf16: target_utf16 },
            compress: true,
            ..Options::default()
        };
        run(&lib, &opts)?;
    }
}
