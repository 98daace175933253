//! The client's sanitizer for auto-memory text (`BQ` = tag neutralizing ∘ `c`):
//! line-separator normalization, control and format character removal, reserved-tag
//! neutralizing.
//!
//! Character classes come from `icu_properties` (ICU4X compiled data, Unicode 18.0). The client
//! uses the tables of its embedded JavaScriptCore for `\p{Cn}` and `\p{DI}`; code points assigned
//! between the two Unicode versions may be judged differently (spec OPEN-4).

use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory};
use icu_properties::{CodePointMapData, CodePointSetData};

mod confusables;
mod tags;

/// Reserved tag names whose openers and closers get a backslash after `<` (`oCe` without
/// `channel`, which has its own rule).
pub const RESERVED_TAGS: &[&str] = &[
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "bash-exit-code",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "command-name",
    "command-message",
    "command-args",
    "task-notification",
    "agent-message",
    "teammate-message",
    "cross-session-message",
    "remote-review",
    "slack-ping",
    "slack-tag-message",
    "tick",
    "fetched-web-content",
    "untrusted-widget-state",
    "coordinator-relay",
    "artifact-type-instructions",
    "cowritten-artifact-html",
    "artifact-file-content",
    "artifact-origin-notes",
    "artifact-stored-declaration",
    "system-reminder",
    "system_reminder",
    "function_results",
    "tool_use_error",
    "sandbox_violations",
    "persisted-output",
    "total_tokens",
    "user-prompt-submit-hook",
];

/// Sanitizes text the way the client does for MEMORY.md content (`BQ`).
pub fn sanitize(text: &str) -> String {
    neutralize_tags(&strip_controls(text))
}

/// The client's `c()`: `\r\n`, lone `\r`, U+2028, U+2029 → `\n`, then every C0/C1 control but
/// tab and `\n`, and every Cf, Co, Cn, Cs or Default_Ignorable code point except ZWNJ, ZWJ,
/// VS15 and VS16, removed.
pub fn strip_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        // Copy the run of printable ASCII, tabs and newlines in one go; decide the rest per char.
        let run = rest
            .bytes()
            .position(|b| !((0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t'))
            .unwrap_or(rest.len());
        out.push_str(&rest[..run]);
        rest = &rest[run..];
        let Some(c) = rest.chars().next() else { break };
        rest = &rest[c.len_utf8()..];
        match c {
            '\r' => {
                if let Some(after) = rest.strip_prefix('\n') {
                    rest = after;
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

/// Whether the sanitizer deletes `c` (after line-separator normalization).
pub fn removed(c: char) -> bool {
    if matches!(
        c,
        '\u{200C}' | '\u{200D}' | '\u{FE0E}' | '\u{FE0F}' | '\t' | '\n'
    ) {
        return false;
    }
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    if ('\u{80}'..='\u{9F}').contains(&c) {
        return true;
    }
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    matches!(
        gc,
        GeneralCategory::Format
            | GeneralCategory::PrivateUse
            | GeneralCategory::Unassigned
            | GeneralCategory::Surrogate
    ) || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// Name characters: a tag name followed by one of these is a different name.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Combining marks the client allows between the letters of a tag name (`v` in its scrubber).
fn is_letter_gap(c: char) -> bool {
    matches!(c as u32,
        0x300..=0x344 | 0x346..=0x36F | 0x483..=0x489 | 0x591..=0x5BD | 0x5BF | 0x5C1 | 0x5C2
        | 0x5C4 | 0x5C5 | 0x5C7 | 0x610..=0x61A | 0x64B..=0x65F | 0x670 | 0x6D6..=0x6DC
        | 0x6DF..=0x6E4 | 0x6E7 | 0x6E8 | 0x6EA..=0x6ED | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF
        | 0x20D0..=0x20FF | 0x3099 | 0x309A | 0xFE20..=0xFE2F)
        || (c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// Matches `name` at the start of `s` (case-insensitive, `-` and `_` interchangeable, combining
/// marks allowed between letters); returns the rest.
fn match_name<'a>(s: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = s;
    for (i, want) in name.chars().enumerate() {
        if i > 0 {
            rest = rest.trim_start_matches(is_letter_gap);
        }
        let mut it = rest.chars();
        let got = it.next()?;
        let same = match want {
            '-' | '_' => got == '-' || got == '_',
            's' => got.eq_ignore_ascii_case(&'s') || got == '\u{17F}',
            'k' => got.eq_ignore_ascii_case(&'k') || got == '\u{212A}',
            w => got.eq_ignore_ascii_case(&w),
        };
        if !same {
            return None;
        }
        rest = it.as_str();
    }
    Some(rest)
}

/// The `channel` tail: a `source=` attribute within 120 characters before any `>`.
fn channel_tail(rest: &str) -> bool {
    if rest.chars().next().is_some_and(is_name_char) {
        return false;
    }
    let span: String = rest.chars().take_while(|&c| c != '>').take(126).collect();
    let chars: Vec<char> = span.chars().collect();
    (0..chars.len().min(121)).any(|i| {
        let before_ok =
            i == 0 || !(chars[i - 1].is_alphanumeric() || matches!(chars[i - 1], '_' | '-'));
        let tail: String = chars[i..].iter().collect();
        before_ok
            && tail.starts_with("source")
            && tail["source".len()..]
                .trim_start_matches(crate::text::js::is_js_space)
                .starts_with('=')
    })
}

/// Whether the opener at the start of `s` opens or closes a reserved tag.
fn reserved_at(s: &str) -> bool {
    let opener_len = s.chars().next().map_or(0, char::len_utf8);
    let after = &s[opener_len..];
    if after.starts_with('\\') {
        return false;
    }
    if tags::reserved_after(after, RESERVED_TAGS) {
        return true;
    }
    let filler_end = after
        .find(|c: char| is_name_char(c) || c == '<' || c == '>')
        .unwrap_or(after.len());
    let candidate = &after[filler_end..];
    match_name(candidate, "channel").is_some_and(channel_tail)
        || match_name(candidate, "antml").is_some_and(|rest| rest.starts_with(':'))
}

/// Replaces the opener of every reserved tag opener or closer with `<\`.
pub fn neutralize_tags(text: &str) -> String {
    if !text.chars().any(tags::is_opener) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for (i, c) in text.char_indices() {
        if tags::is_opener(c) && reserved_at(&text[i..]) {
            out.push_str(&text[last..i]);
            out.push_str("<\\");
            last = i + c.len_utf8();
        }
    }
    out.push_str(&text[last..]);
    out
}

/// General category M (combining marks).
fn is_mark(c: char) -> bool {
    matches!(
        CodePointMapData::<GeneralCategory>::new().get(c),
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

/// General category Pd.
fn is_dash_punctuation(c: char) -> bool {
    CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::DashPunctuation
}

/// General category Pc.
fn is_connector_punctuation(c: char) -> bool {
    CodePointMapData::<GeneralCategory>::new().get(c) == GeneralCategory::ConnectorPunctuation
}

#[cfg(test)]
mod tests;
