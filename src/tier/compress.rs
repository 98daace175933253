//! `--compress`: shorter versions of long index lines, proposed for approval, never applied.
//!
//! A line longer than the client's guide (150 UTF-16 units) is shortened only at a clause
//! boundary of its hook (the text after its link): before `,` `;` ` — ` ` – ` `:` `，` `；`
//! `、` `：` `·` `（` `(`, or after a full stop (`. `, `。`), so what stays is a whole clause
//! and never ends inside a word or with `…`. The longest such prefix within 150 units is
//! proposed; when none keeps part of the hook, the line is left as it is and the plan says
//! why.

use super::parse::{Kind, parse};
use super::plan::{Suggestion, Unshortened};
use crate::constants::INDEX_LINE_GUIDE_UTF16;
use crate::text::js::utf16_len;

/// Boundaries a line may end before (the mark is dropped with the space before it).
const BEFORE: &[&str] = &[
    ", ", "; ", " — ", " – ", ": ", "，", "；", "、", "：", " · ", "·", "（", " (",
];

/// Boundaries a line may end after (the mark is kept).
const AFTER: &[&str] = &[". ", "。", "! ", "? ", "！", "？"];

/// The least of the hook a cut must keep, in UTF-16 units.
const MIN_HOOK: usize = 8;

/// Suggestions for the long entry lines of `index`, and the long lines left as they are.
pub fn suggestions(index: &str) -> (Vec<Suggestion>, Vec<Unshortened>) {
    let idx = parse(index);
    let (mut out, mut left) = (Vec::new(), Vec::new());
    for line in &idx.lines {
        if line.kind != Kind::Entry || utf16_len(line.text) <= INDEX_LINE_GUIDE_UTF16 {
            continue;
        }
        match shorten(line.text) {
            Ok(new) => out.push(Suggestion {
                line: line.no,
                old: line.text.to_owned(),
                new,
            }),
            Err(why) => left.push(Unshortened {
                line: line.no,
                why: why.to_owned(),
            }),
        }
    }
    (out, left)
}

/// Where the hook of an entry line starts (after its link and separator).
fn hook_start(text: &str) -> Option<usize> {
    let close = text
        .find("](")
        .and_then(|at| text[at..].find(')').map(|c| at + c + 1))?;
    let rest = &text[close..];
    let skip = rest.len() - rest.trim_start_matches(['*', '_', ' ']).len();
    let rest = &rest[skip..];
    for sep in ["— ", "– ", "- ", ": ", "："] {
        if rest.starts_with(sep) {
            return Some(close + skip + sep.len());
        }
    }
    Some(close + skip)
}

/// The longest prefix of `text` within the guide that ends at a clause boundary of its hook.
pub fn shorten(text: &str) -> Result<String, &'static str> {
    let Some(hook) = hook_start(text) else {
        return Err("no link: the line is a rule, left as written");
    };
    let min = hook + MIN_HOOK.min(text.len() - hook);
    let mut best: Option<&str> = None;
    for (at, _) in text.char_indices().filter(|&(at, _)| at >= min) {
        let rest = &text[at..];
        let end = if BEFORE.iter().any(|b| rest.starts_with(b)) {
            at
        } else if let Some(a) = AFTER.iter().find(|a| rest.starts_with(**a)) {
            at + a.trim_end().len()
        } else {
            continue;
        };
        let cut = text[..end].trim_end();
        if utf16_len(cut) > INDEX_LINE_GUIDE_UTF16 {
            break;
        }
        if utf16_len(&cut[hook.min(cut.len())..]) >= MIN_HOOK.min(utf16_len(&text[hook..])) {
            best = Some(cut);
        }
    }
    best.map(str::to_owned)
        .ok_or("no clause boundary within 150 UTF-16 units keeps part of the hook: left as written")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_the_last_clause_boundary_that_fits() {
        let l = "- [Ask before reboots](feedback_ask-before-reboot.md) — ask before rebooting or stopping anything the family uses (router, NAS, Home Assistant, Jellyfin)";
        assert_eq!(
            shorten(l).unwrap(),
            "- [Ask before reboots](feedback_ask-before-reboot.md) — ask before rebooting or stopping anything the family uses (router, NAS, Home Assistant"
        );
        let ja = "- [Chrome操作の無人タスク](feedback_chrome_unattended.md) — Chrome必須の無人タスクはPlaywrightとWindowsタスクスケジューラで直接起動し、Claude経由は使わない。API完結のタスクもWindows側を優先し、失敗時はChatworkの個人DMに通知、ログは logs/tasks/ に日付ごとに残す（2026-04-29改訂）";
        let cut = shorten(ja).unwrap();
        assert!(utf16_len(&cut) <= 150 && ja.starts_with(&cut), "{cut}");
        assert!(
            cut.ends_with('し') || cut.ends_with('。') || cut.ends_with('知'),
            "{cut}"
        );
    }

    #[test]
    fn a_line_without_a_boundary_is_left_with_the_reason() {
        let l = format!("- [x](x.md) — {}", "word ".repeat(40));
        assert!(shorten(&l).is_err());
        let (s, left) = suggestions(&format!("{l}\n"));
        assert!(s.is_empty());
        assert_eq!(left.len(), 1);
    }
}
