use proptest::prelude::*;

use super::*;

fn lines(n: usize, width: usize) -> String {
    (1..=n)
        .map(|i| format!("- {i:0>w$}", w = width))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A literal port of the client's `HMo` over UTF-16 units (the reference for property tests).
fn reference(body: &str) -> (Vec<u16>, usize, usize) {
    let n: Vec<u16> = js::trim(body).encode_utf16().collect();
    let nl = 10u16;
    let o = n.iter().filter(|&&u| u == nl).count() + 1;
    let g = n.len();
    if o <= 200 && g <= 25000 {
        return (n, o, g);
    }
    let mut k: Vec<u16> = if o > 200 {
        let parts: Vec<&[u16]> = n.split(|&u| u == nl).take(200).collect();
        parts.join(&nl)
    } else {
        n.clone()
    };
    if k.len() > 25000 {
        let mut h = -1i64;
        for i in (0..=25000).rev() {
            if k[i] == nl {
                h = i as i64;
                break;
            }
        }
        let end = if h > 0 { h as usize } else { 25000 };
        k.truncate(end);
    }
    (k, o, g)
}

fn without_lone_surrogates(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .filter_map(Result::ok)
        .collect()
}

#[test]
fn under_both_limits_is_the_trimmed_text() {
    let t = truncate("\n\n  x\n");
    assert_eq!(t.content, "x");
    assert_eq!((t.lines, t.utf16, t.start_bytes), (1, 1, 4));
    let t = truncate(&lines(200, 3));
    assert!(t.cut.is_none(), "exactly 200 lines pass");
    let t = truncate(&"a".repeat(25_000));
    assert!(t.cut.is_none(), "exactly 25000 units pass");
}

#[test]
fn line_cut_with_preview_and_plural() {
    let t = truncate(&lines(201, 1));
    let cut = t.cut.unwrap();
    assert_eq!(cut.kept_lines, 200);
    assert_eq!(
        cut.warning,
        "MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: 1 of 201 lines were cut off, starting at line 201 (\"- 201\"). Keep index entries to one line under ~200 chars; move detail into topic files."
    );
    assert!(t.content.ends_with("- 200\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded: 1 of 201 lines were cut off, starting at line 201 (\"- 201\"). Keep index entries to one line under ~200 chars; move detail into topic files."));
}

#[test]
fn blank_first_dropped_line_has_no_preview() {
    let text = format!("{}\n   \nlast", lines(200, 1));
    let cut = truncate(&text).cut.unwrap();
    assert!(
        cut.warning
            .contains("2 of 202 lines were cut off, starting at line 201. Keep"),
        "{}",
        cut.warning
    );
}

#[test]
fn size_cut_at_last_newline_and_both_limits() {
    let text = format!("{}\n{}", "a".repeat(24_000), "b".repeat(2_000));
    let t = truncate(&text);
    let cut = t.cut.unwrap();
    assert_eq!((cut.kept_lines, cut.kept_utf16), (1, 24_000));
    assert!(cut.warning.starts_with(
        "MEMORY.md is 25.4KB (limit: 24.4KB) \u{2014} index entries are too long. Only part of it was loaded: 1 of 2 lines were cut off, starting at line 2 (\"bbbbb"
    ));
    let both = truncate(&lines(210, 250));
    let cut = both.cut.unwrap();
    assert!(cut.line_over && cut.size_over);
    assert!(
        cut.warning.starts_with("MEMORY.md is 210 lines and "),
        "{}",
        cut.warning
    );
}

#[test]
fn newline_exactly_at_25000_counts() {
    let text = format!("{}\n{}", "a".repeat(25_000), "b");
    let cut = truncate(&text).cut.unwrap();
    assert_eq!((cut.kept_lines, cut.kept_utf16), (1, 25_000));
}

#[test]
fn hard_cut_inside_line_one_and_inside_a_surrogate_pair() {
    let text = format!("{}\u{1F600}tail\nnext", "a".repeat(24_999));
    let t = truncate(&text);
    let cut = t.cut.unwrap();
    assert_eq!((cut.kept_lines, cut.kept_utf16), (0, 25_000));
    assert!(
        cut.warning
            .contains("everything after the first 25000 characters of line 1 was cut off")
    );
    assert!(
        t.content
            .starts_with(&format!("{}\n\n> WARNING", "a".repeat(24_999)))
    );
}

#[test]
fn pn_matches_js_to_fixed() {
    assert_eq!(pn(1023), "1023 bytes");
    assert_eq!(pn(25_000), "24.4KB");
    assert_eq!(pn(25_098), "24.5KB");
    assert_eq!(pn(30_000), "29.3KB");
    assert_eq!(pn(17_500), "17.1KB");
    assert_eq!(pn(1280), "1.3KB", "1.25 rounds half up as toFixed does");
    assert_eq!(pn(2048), "2KB");
    assert_eq!(pn(4_194_303), "4MB");
    assert_eq!(pn(3 << 30), "3GB");
}

#[test]
fn preview_word_cut_and_hard_cut() {
    let s = "- the quick brown fox jumps over the lazy dog and keeps running far beyond the hills and more";
    assert_eq!(
        preview(s, 80),
        "- the quick brown fox jumps over the lazy dog and keeps running far beyond the\u{2026}"
    );
    let long = "x".repeat(100);
    assert_eq!(preview(&long, 80), format!("{}\u{2026}", "x".repeat(79)));
    assert_eq!(preview("short", 80), "short");
    let emoji = format!("{}\u{1F600}zz", "x".repeat(78));
    assert_eq!(preview(&emoji, 80), format!("{}\u{2026}", "x".repeat(78)));
    let early_space = format!("ab {}", "y".repeat(100));
    assert_eq!(
        preview(&early_space, 80),
        format!("ab {}\u{2026}", "y".repeat(76)),
        "a word cut keeping ≤ n/2 units is not taken"
    );
}

#[test]
fn write_check_thresholds() {
    assert!(write_check("").is_none());
    assert!(write_check(&lines(159, 1)).is_none());
    let w = write_check(&lines(160, 1)).unwrap();
    assert_eq!(
        w.text,
        "The memory index at MEMORY.md is 160 lines, approaching the 200-line read limit. Compact it to under 140 lines now: keep one line per entry, move detail into topic files, and merge or drop stale entries."
    );
    assert!(!write_check(&lines(200, 1)).unwrap().over);
    let over = write_check(&lines(201, 1)).unwrap();
    assert!(over.over);
    assert!(over.text.starts_with("Error: this write left the memory index at MEMORY.md at 201 lines, over its 200-line read limit. The write succeeded, but everything past the limit is silently dropped each time the index is loaded \u{2014} entries at the end are already invisible to readers. Rewrite it to under 140 lines now"));
    assert!(write_check(&"a".repeat(19_999)).is_none());
    let size = write_check(&"a".repeat(20_000)).unwrap();
    assert_eq!(size.dimension, "bytes");
    assert!(
        size.text
            .starts_with("The memory index at MEMORY.md is 19.5KB, approaching the 24.4KB read limit. Compact it to under 17.1KB now")
    );
    let cjk = "中".repeat(20_002);
    assert!(write_check(&cjk).unwrap().text.contains("is 19.5KB,"));
}

#[test]
fn write_check_reads_only_100000_bytes() {
    let w = write_check(&"a".repeat(120_002)).unwrap();
    assert!(w.text.contains("at 97.7KB, over its 24.4KB"), "{}", w.text);
}

#[test]
fn write_check_tie_goes_to_bytes() {
    assert_eq!(check_measured(20_000, 160).unwrap().dimension, "bytes");
    assert_eq!(check_measured(19_999, 160).unwrap().dimension, "lines");
}

fn memory_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => Just("a".to_owned()),
        2 => Just("\n".to_owned()),
        1 => Just("中".to_owned()),
        1 => Just("\u{1F600}".to_owned()),
        1 => Just(" ".to_owned()),
        1 => Just("\r\n".to_owned()),
        1 => Just("\u{A0}".to_owned()),
        1 => "[a-z ]{0,30}".prop_map(|s| s.repeat(10)),
        1 => (0usize..3000).prop_map(|n| "b".repeat(12_000 + n)),
    ];
    prop::collection::vec(piece, 0..300).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn agrees_with_the_reference(body in memory_text()) {
        let t = truncate(&body);
        let (kept, lines, units) = reference(&body);
        prop_assert_eq!(t.lines, lines);
        prop_assert_eq!(t.utf16, units);
        let trimmed = js::trim(&body);
        prop_assert_eq!(trimmed.chars().filter(|&c| c == '\n').count() + 1, t.lines);
        prop_assert_eq!(trimmed.chars().map(char::len_utf16).sum::<usize>(), t.utf16);
        let kept_text = without_lone_surrogates(&kept);
        match &t.cut {
            None => prop_assert_eq!(&t.content, &kept_text),
            Some(cut) => {
                prop_assert_eq!(cut.kept_utf16, kept.len());
                let head = format!("{}\n\n> WARNING: ", kept_text);
                prop_assert!(t.content.starts_with(&head));
                prop_assert_eq!(&trimmed[..cut.kept_bytes], kept_text.as_str());
                let split_pair = kept.last().is_some_and(|u| (0xD800..0xDC00).contains(u));
                if split_pair {
                    prop_assert_eq!(cut.kept_lines, 0, "only a hard cut in line 1 splits a pair");
                    prop_assert_eq!(cut.kept_utf16, INDEX_MAX_UTF16);
                }
                prop_assert!(cut.kept_utf16 <= INDEX_MAX_UTF16);
            }
        }
    }
}

#[test]
fn write_check_strips_frontmatter_and_comments_when_whole() {
    let comment: String = (0..100).map(|i| format!("hidden {i}\n")).collect();
    let text = format!(
        "---\nname: index\n---\n<!--\n{comment}-->\n{}",
        lines(150, 1)
    );
    assert!(write_check(&text).is_none(), "stripped: 150 lines");
    assert!(
        check_measured(js::utf16_len(&text), text.lines().count()).is_some(),
        "the same file unstripped (255 lines) would warn"
    );
}

#[test]
fn other_indexes_are_measured_raw() {
    let text = format!("<!--\n{}-->\n{}", "c\n".repeat(100), lines(100, 1));
    assert!(write_check(&text).is_none());
    let raw = write_check_other_index(text.as_bytes()).unwrap();
    assert!(
        raw.text.contains("202 lines, over its 200-line"),
        "{}",
        raw.text
    );
}
