//! The client's sanitizer for auto-memory text (`BQ` = tag neutralizing ∘ `c`):
//! line-separator normalization, control and format character removal, reserved-tag
//! neutralizing.
//!
//! Character classes come from `icu_properties` (ICU4X compiled data, Unicode 18.0). The client
//! uses the tables of its embedded JavaScriptCore for `\p{Cn}` and `\p{DI}`; code points assigned
//! between the two Unicode versions may be judged differently (spec OPEN-4).

use std::borrow::Cow;

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
    sanitize_cow(text).into_owned()
}

/// [`sanitize`] applied `passes` times (the client sanitizes the main index twice). A pass that
/// changes nothing is a fixed point: the passes after it would change nothing either, so they
/// are not run (the common case: an index without controls or reserved tags).
pub fn sanitize_times(text: &str, passes: usize) -> String {
    let mut cur: Cow<'_, str> = Cow::Borrowed(text);
    for _ in 0..passes {
        match sanitize_cow(&cur) {
            Cow::Borrowed(_) => break,
            Cow::Owned(next) => cur = Cow::Owned(next),
        }
    }
    cur.into_owned()
}

fn sanitize_cow(text: &str) -> Cow<'_, str> {
    match strip_controls_cow(text) {
        Cow::Borrowed(t) => neutralize_tags_cow(t),
        Cow::Owned(t) => Cow::Owned(neutralize_tags_cow(&t).into_owned()),
    }
}

/// The client's `c()`: `\r\n`, lone `\r`, U+2028, U+2029 → `\n`, then every C0/C1 control but
/// tab and `\n`, and every Cf, Co, Cn, Cs or Default_Ignorable code point except ZWNJ, ZWJ,
/// VS15 and VS16, removed.
pub fn strip_controls(text: &str) -> String {
    strip_controls_cow(text).into_owned()
}

/// Bytes [`strip_controls`] must look at: ASCII controls but tab and `\n`, DEL, and the lead
/// byte of every multi-byte character (continuation bytes are never looked at).
static STRIP_LOOKS_AT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b < 0x20 && b != 0x09 && b != 0x0A) || b == 0x7f || b >= 0xC0;
        b += 1;
    }
    t
};

/// [`strip_controls`] without a copy when nothing changes. Scans the bytes with a table and
/// decodes only what the table flags; the verdict on the last non-ASCII character is kept (an
/// index repeats the same few, an em dash per line, and the Unicode lookups are the costly part).
fn strip_controls_cow(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    let mut last: Option<(char, bool)> = None;
    while i < bytes.len() {
        i = skip_words(bytes, i, all_printable_ascii);
        if i >= bytes.len() {
            break;
        }
        if !STRIP_LOOKS_AT[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or('\0');
        let len = c.len_utf8();
        // What replaces `c` (None: it stays) and how many bytes that covers.
        let (replacement, span): (Option<&str>, usize) = match c {
            '\r' if bytes.get(i + 1) == Some(&b'\n') => (Some("\n"), 2),
            '\r' | '\u{2028}' | '\u{2029}' => (Some("\n"), len),
            c => {
                let drop = match last {
                    Some((p, verdict)) if p == c => verdict,
                    _ => removed(c),
                };
                last = Some((c, drop));
                (drop.then_some(""), len)
            }
        };
        if let Some(r) = replacement {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..i]);
            o.push_str(r);
            copied = i + span;
        }
        i += span;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
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
    neutralize_tags_cow(text).into_owned()
}

fn neutralize_tags_cow(text: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut last = 0;
    for (i, c) in openers(text) {
        if reserved_at(&text[i..]) {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
            o.push_str(&text[last..i]);
            o.push_str("<\\");
            last = i + c.len_utf8();
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[last..]);
            Cow::Owned(o)
        }
    }
}

/// Bytes that may start an opener: `<` and the lead bytes of the non-ASCII openers.
static OPENER_LEADS: [bool; 256] = {
    let mut t = [false; 256];
    t[b'<' as usize] = true;
    let leads = tags::OPENER_LEAD_BYTES;
    let mut k = 0;
    while k < leads.len() {
        t[leads[k] as usize] = true;
        k += 1;
    }
    t
};

/// The openers of `text` with their byte offsets, found on the bytes with [`OPENER_LEADS`]:
/// only a flagged byte is decoded and checked with [`tags::is_opener`].
fn openers(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            i = skip_words(bytes, i, |w| ascii_without(w, b'<'));
            let at = i;
            i += 1;
            if at < bytes.len() && OPENER_LEADS[usize::from(bytes[at])] {
                let c = text[at..].chars().next()?;
                if tags::is_opener(c) {
                    return Some((at, c));
                }
            }
        }
        None
    })
}

/// 0x0101…01: one in the low bit of every byte of a word.
const LOW_BITS: u64 = u64::from_ne_bytes([1; 8]);
/// 0x8080…80: the high bit of every byte.
const HIGH_BITS: u64 = LOW_BITS * 0x80;

/// The first index from `i` on where the word-at-a-time test `clean` fails (whole words of
/// eight bytes that it accepts are skipped; the caller looks at the rest byte by byte). The
/// sanitizer's scans are of the whole index on every start; a byte at a time, they were its
/// hottest loops.
fn skip_words(bytes: &[u8], mut i: usize, clean: impl Fn(u64) -> bool) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = u64::from_ne_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        if !clean(w) {
            break;
        }
        i += 8;
    }
    i
}

/// Whether some byte of `w` is zero (exact).
fn has_zero_byte(w: u64) -> bool {
    w.wrapping_sub(LOW_BITS) & !w & HIGH_BITS != 0
}

/// Every byte of `w` is ASCII and none is `b`.
fn ascii_without(w: u64, b: u8) -> bool {
    w & HIGH_BITS == 0 && !has_zero_byte(w ^ (LOW_BITS * u64::from(b)))
}

/// Every byte of `w` is printable ASCII (0x20..=0x7E): nothing for [`strip_controls`] to do.
/// (A word with a tab or `\n` goes byte by byte, where both are kept.)
fn all_printable_ascii(w: u64) -> bool {
    // No high bit, no byte below 0x20 (0x20 subtracted borrows into the high bit), no DEL.
    w & HIGH_BITS == 0
        && w.wrapping_sub(LOW_BITS * 0x20) & !w & HIGH_BITS == 0
        && !has_zero_byte(w ^ (LOW_BITS * 0x7F))
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
