//! Property test: the four invariants hold on the plan of every generated library (random
//! groups, crowns, pins, CJK and emoji text, CRLF, link syntaxes, frontmatter variants, and
//! sections that already point to a hub, with or without a heading and a `modified` date).

use proptest::prelude::*;

use super::super::groups::{Resolver, classify};
use super::super::parse::parse;
use super::super::*;
use crate::memory::Config;

const TYPES: [&str; 5] = ["feedback", "project", "user", "reference", "note"];
const WORDS: [&str; 8] = [
    "build",
    "日本語のメモ",
    "wildcard",
    "テスト",
    "😀 emoji",
    "x",
    "deploy-flow",
    "数据",
];
const HEADINGS: [&str; 6] = ["Build & Test", "ツール", "Team", "日本", "🔧", "Misc notes"];

#[derive(Debug, Clone)]
struct Entry {
    kind: usize,
    word: usize,
    crown: u8,
    syntax: u8,
    fm: u8,
    heading: Option<usize>,
    group: Option<usize>,
    pinned: bool,
    desc_len: usize,
}

fn entry() -> impl Strategy<Value = Entry> {
    (
        0..TYPES.len(),
        0..WORDS.len(),
        0u8..12,
        0u8..3,
        0u8..6,
        proptest::option::of(0..HEADINGS.len()),
        proptest::option::weighted(0.3, 0..HEADINGS.len()),
        proptest::bool::weighted(0.05),
        0usize..60,
    )
        .prop_map(
            |(kind, word, crown, syntax, fm, heading, group, pinned, desc_len)| Entry {
                kind,
                word,
                crown,
                syntax,
                fm,
                heading,
                group,
                pinned,
                desc_len,
            },
        )
}

/// A section already in hub-first shape: `(heading?, modified day (0: none), links an entry?)`.
type HubSection = (bool, u8, bool);

fn build(
    entries: &[Entry],
    hubs: &[HubSection],
    crlf: bool,
    index_fm: bool,
    prose: bool,
) -> Library {
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut config = Config::default();
    let mut files: Vec<(String, String)> = Vec::new();
    let mut index: Vec<String> = Vec::new();
    if index_fm {
        index.extend(["---".into(), "title: index".into(), "---".into()]);
    }
    if prose {
        index.push("Index of what I remember 日本語.".into());
        index.push(String::new());
    }
    let mut sorted: Vec<(usize, &Entry)> = entries.iter().enumerate().collect();
    sorted.sort_by_key(|(_, e)| e.heading.map(|h| h + 1).unwrap_or(0));
    let mut current = None;
    for (i, e) in sorted {
        if e.heading != current {
            if let Some(h) = e.heading {
                index.push(String::new());
                index.push(format!("## {}", HEADINGS[h]));
            }
            current = e.heading;
        }
        let stem = format!(
            "{}_{}{}",
            TYPES[e.kind],
            i,
            if e.word == 1 { "メモ" } else { "" }
        );
        let file = format!("{stem}.md");
        let link = match e.syntax {
            0 => format!("[{}]({file})", WORDS[e.word]),
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
        let group = e
            .group
            .map(|g| format!("group: {}\n", HEADINGS[g]))
            .unwrap_or_default();
        let text = match e.fm {
            0 => format!("fact {i}\n"),
            1 => format!("---\nname: {stem}\n{group}---\nfact\n"),
            2 => format!(
                "\u{feff}---\r\nname: {stem}\r\nmetadata:\r\n  type: {}\r\n---\r\nbody",
                TYPES[e.kind]
            ),
            3 => format!("---\nname: [unclosed\n{group}---\nbody\n"),
            4 => format!("---\ntype: {}\n{group}---\n", TYPES[(e.kind + 1) % 5]),
            _ => format!("no frontmatter but a link [[{stem}]]"),
        };
        files.push((file, text));
    }
    for (k, &(heading, day, links_entry)) in hubs.iter().enumerate() {
        if heading {
            index.push(format!("## Hub {k} 日本"));
        }
        let hub = format!("reference_h{k}_hub.md");
        index.push(format!("- [hub {k}]({hub}) — map of area {k}"));
        let modified = match day {
            0 => String::new(),
            d => format!("modified: 2026-09-{d:02}\n"),
        };
        let first = files.iter().map(|(n, _)| n).min();
        let link = match first {
            Some(f) if links_entry => format!("- [first]({f})\n"),
            _ => String::new(),
        };
        files.push((hub, format!("---\n{modified}---\n{link}")));
    }
    let mut text = index.join(eol);
    text.push_str(eol);
    files.push(("MEMORY.md".to_owned(), text));
    Library::from_texts(std::path::Path::new("/m"), config, files)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_on_every_plan(
        entries in proptest::collection::vec(entry(), 0..40),
        hubs in proptest::collection::vec((any::<bool>(), 0u8..29, any::<bool>()), 0..8),
        crlf in any::<bool>(),
        index_fm in any::<bool>(),
        prose in any::<bool>(),
        target_lines in 2usize..40,
        target_utf16 in 200usize..4000,
    ) {
        let lib = build(&entries, &hubs, crlf, index_fm, prose);
        let opts = Options { target: Target { lines: target_lines, utf16: target_utf16 }, compress: true };
        let p = plan::plan(&lib, &opts).map_err(|r| TestCaseError::fail(r.to_string()))?;
        let after = applied(&lib, &p);
        let proof = proof::prove(&lib, &after, &p, p.after);
        for c in &proof.checks[1..] {
            prop_assert!(c.ok, "invariant {} failed: {}\n{}", c.id, c.detail, after.index_text());
        }
        if !proof.checks[0].ok {
            // Only when the planner had nothing left to move.
            let idx = parse(lib.index_text()).unwrap();
            let layout = classify(&lib, &idx, &Resolver::new(&lib).unwrap()).unwrap();
            let movable = layout.groups.iter().filter(|g| g.entries > 0).count();
            let pushed = p.steps.iter().filter(|s| matches!(s, Step::Pushed { .. })).count();
            prop_assert_eq!(pushed, movable, "stopped early: {:?}", p.steps);
        }
        if crlf && !p.is_noop() {
            prop_assert!(!p.files[0].new.replace("\r\n", "").contains('\n'));
        }
    }
}
