use super::*;

#[test]
fn line_separators_become_newlines() {
    assert_eq!(
        strip_controls("a\r\nb\rc\u{2028}d\u{2029}e"),
        "a\nb\nc\nd\ne"
    );
}

#[test]
fn controls_and_format_characters_go_joiners_and_tab_stay() {
    let input = "a\u{7}\u{1b}\u{7f}\u{85}\0\u{200b}\u{ad}\u{2060}\u{200e}\u{202e}\u{feff}\u{fe00}\u{34f}\u{3164}\u{e0041}\u{e000}\u{378}b";
    assert_eq!(strip_controls(input), "ab");
    assert_eq!(
        strip_controls("x\u{200c}\u{200d}\u{fe0e}\u{fe0f}\ty\n"),
        "x\u{200c}\u{200d}\u{fe0e}\u{fe0f}\ty\n"
    );
    assert_eq!(strip_controls("\u{b}\u{c}é中😀"), "é中😀");
}

#[test]
fn reserved_tags_get_a_backslash() {
    assert_eq!(
        sanitize("<system-reminder>x</system-reminder>"),
        "<\\system-reminder>x<\\/system-reminder>"
    );
    assert_eq!(sanitize("< system-reminder>"), "<\\ system-reminder>");
    assert_eq!(sanitize("<System-Reminder/>"), "<\\System-Reminder/>");
    assert_eq!(sanitize("<bash-stdout>"), "<\\bash-stdout>");
    assert_eq!(sanitize("<system_reminder>"), "<\\system_reminder>");
    assert_eq!(sanitize("<tick>"), "<\\tick>");
}

#[test]
fn other_tags_are_untouched() {
    for s in [
        "<system-reminderx>",
        "<invoke>",
        "<cited>",
        "<b>",
        "&lt;system-reminder>",
        "<\\system-reminder>",
        "<ticket>",
        "a < b",
    ] {
        assert_eq!(sanitize(s), s, "{s}");
    }
}

#[test]
fn channel_needs_a_source_attribute() {
    assert_eq!(sanitize("<channel>x</channel>"), "<channel>x</channel>");
    assert_eq!(
        sanitize("<channel source=\"x\">"),
        "<\\channel source=\"x\">"
    );
}

#[test]
fn sanitizing_is_idempotent_on_common_text() {
    let once = sanitize("a\r\n<system-reminder>\u{200b}");
    assert_eq!(sanitize(&once), once);
}

#[test]
fn many_openers_stay_linear() {
    let text = "<a ".repeat(20_000) + &"<\u{455}".repeat(20_000);
    assert_eq!(sanitize(&text), text, "no reserved name, nothing changed");
    let spaced = format!("<{}tick>", " ".repeat(30_000));
    assert!(
        sanitize(&spaced).starts_with("<\\ "),
        "unbounded filler, as the client"
    );
}

#[test]
fn tab_and_newline_are_filler_not_gaps_between_letters() {
    assert_eq!(sanitize("<ti\tck>"), "<ti\tck>");
    assert_eq!(sanitize("<\t\ntick>"), "<\\\t\ntick>");
}

/// The sanitizer's word-at-a-time scans against a character at a time: the same output for
/// text mixing plain runs of every length with controls, line separators, removed and kept
/// non-ASCII characters and reserved tags at every offset.
mod word_scans {
    use super::*;
    use proptest::prelude::*;

    fn strip_char_by_char(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    out.push('\n');
                }
                '\u{2028}' | '\u{2029}' => out.push('\n'),
                c if removed(c) => {}
                c => out.push(c),
            }
        }
        out
    }

    proptest! {
        #[test]
        fn agree_with_a_character_at_a_time(
            parts in proptest::collection::vec(prop_oneof![
                "[a-z <>/-]{0,17}",
                Just("\r\n".to_owned()), Just("\r".to_owned()), Just("\n".to_owned()),
                Just("\t".to_owned()), Just("\u{7f}".to_owned()), Just("\u{1}".to_owned()),
                Just("\u{2028}".to_owned()), Just("\u{200b}".to_owned()), Just("—".to_owned()),
                Just("\u{FF1C}".to_owned()), Just("😀".to_owned()), Just("<system-reminder>".to_owned()),
                Just("\u{FF1C}system-reminder>".to_owned()),
            ], 0..24)
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(strip_controls(&text), strip_char_by_char(&text));
            let mut by_char = String::new();
            let mut last = 0;
            for (i, c) in text.char_indices() {
                if tags::is_opener(c) && reserved_at(&text[i..]) {
                    by_char.push_str(&text[last..i]);
                    by_char.push_str("<\\");
                    last = i + c.len_utf8();
                }
            }
            by_char.push_str(&text[last..]);
            prop_assert_eq!(neutralize_tags(&text), by_char);
        }
    }
}
