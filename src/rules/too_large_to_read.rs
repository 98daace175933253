//! `too-large-to-read` (hard).
//!
//! The model reads a topic file or a hub with the client's Read tool, which has two limits
//! (2.1.332's `PB()`: `maxSizeBytes` `N7t`, `maxTokens` `esa`; captured in
//! `tests/fixtures/read-limits/`):
//!
//! - a file of more than [`READ_MAX_BYTES`] bytes on disk is refused whole (`FileTooLargeError`,
//!   "File content (…) exceeds maximum allowed size (256KB)"): the model sees none of it;
//! - otherwise, a file whose token count is over [`READ_MAX_TOKENS`] is shown as a first page
//!   only ("[Truncated: PARTIAL view — … showing lines 1-1119 of 1317 total (25001 tokens, cap
//!   25000)…]"). The client asks the API for the count (`jws`); offline it falls back on its own
//!   estimate, `round(length / 4)` in UTF-16 units (`Wl`), which is what ccmem uses: it is the
//!   client's count when the API gives none and, for most text not in English, lower than the
//!   API's, so a file flagged here is over the cap in the client too.
//!
//! No line limit applies (3,000 short lines are read whole).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::constants::{CHARS_PER_TOKEN, READ_MAX_BYTES, READ_MAX_TOKENS};
use crate::memory::file::{MemFile, Role};
use crate::text::js::utf16_len;

declare_rule! {
    /// ## What it does
    /// Flags a memory file the client's Read tool cannot show whole: more than 262,144 bytes
    /// (the read is refused), or more than 25,000 tokens by the client's estimate of one token
    /// per four characters (the model is shown a first page only). `MEMORY.md` is not read
    /// this way and is not checked here (`index-over-cap` covers its cut).
    ///
    /// ## Why it matters
    /// A memory is read whole when the model recalls it. Past these limits the read fails or
    /// stops part-way, so what the file says further down is never in force unless the model
    /// pages through it. Files this big are mostly logs and transcripts kept as memories: a
    /// record, not something to remember.
    ///
    /// ## Example
    /// `project_deploy_log.md`: 2,026 lines, 226 KB of dated deploy results appended by every
    /// session (about 56,000 tokens, over the 25,000-token cap).
    ///
    /// ## Fix
    /// Move the log out of the memory folder and keep what must be remembered as a short summary, or split the file into one file per topic.
    pub const RULE = ("too-large-to-read", Hard, Both, Check::File(check));
}

/// What the Read tool does with a file of this text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    /// Shown whole.
    Whole,
    /// Refused: more than [`READ_MAX_BYTES`] bytes.
    Refused { bytes: usize },
    /// A first page shown: about `tokens` tokens, more than [`READ_MAX_TOKENS`].
    FirstPage { tokens: usize },
}

/// How the Read tool shows `text` (the file's whole content).
pub(super) fn read(text: &str) -> Read {
    if text.len() > READ_MAX_BYTES {
        return Read::Refused { bytes: text.len() };
    }
    // `Math.round(length / 4)`: a half rounds up.
    let tokens = (utf16_len(text) * 2 + CHARS_PER_TOKEN) / (2 * CHARS_PER_TOKEN);
    if tokens > READ_MAX_TOKENS {
        Read::FirstPage { tokens }
    } else {
        Read::Whole
    }
}

/// Whether the rule flags `file` (other rules about size defer to it).
pub(super) fn flags(file: &MemFile) -> bool {
    file.role != Role::Index && file.text().is_some_and(|t| read(t) != Read::Whole)
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if file.role == Role::Index {
        return;
    }
    let Some(text) = file.text() else { return };
    let msg = match read(text) {
        Read::Whole => return,
        Read::Refused { bytes } => format!(
            "{bytes} bytes, over the Read tool's limit of {READ_MAX_BYTES}: reading it fails and \
             the model sees none of it; keep logs out of memory, or split it"
        ),
        Read::FirstPage { tokens } => format!(
            "about {tokens} tokens, over the Read tool's cap of {READ_MAX_TOKENS}: the model is \
             shown a first page only; keep logs out of memory, or split it"
        ),
    };
    out.push(ctx.diag(&RULE, i, file.body_line(), msg));
}

#[cfg(test)]
mod tests {
    use super::{Read, read};
    use crate::rules::testing::{Fixture, fm};

    /// The captured cases (`tests/fixtures/read-limits/cases.json`, the real client's Read on
    /// each file): every size at a boundary reads as the client read it.
    #[test]
    fn each_captured_file_reads_as_the_client_read_it() {
        let cases: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/read-limits/cases.json"))
                .unwrap();
        let cases = cases["cases"].as_array().unwrap();
        assert!(cases.len() >= 6);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let text = super::tests::generate(
                case["unit"].as_str().unwrap(),
                case["chars"].as_u64().unwrap() as usize,
            );
            assert_eq!(text.len() as u64, case["bytes"].as_u64().unwrap(), "{name}");
            let got = match read(&text) {
                Read::Whole => "whole".to_owned(),
                Read::Refused { .. } => "refused".to_owned(),
                Read::FirstPage { tokens } => format!("first-page {tokens}"),
            };
            assert_eq!(got, case["client"].as_str().unwrap(), "{name}");
        }
    }

    /// A file of `chars` characters: `unit` repeated, cut to length, ending in a newline when
    /// the unit holds one (as `tests/fixtures/read-limits/capture.py` writes them).
    pub(super) fn generate(unit: &str, chars: usize) -> String {
        let mut s: String = unit.chars().cycle().take(chars).collect();
        if unit.ends_with('\n') && !s.ends_with('\n') {
            s.pop();
            s.push('\n');
        }
        s
    }

    #[test]
    fn logs_are_flagged_and_other_size_findings_defer_to_this_one() {
        let line = "2026-03-01 deploy ok; queue depth 12, retries 0, worker-7 restarted\n";
        let log = fm("project", "") + &line.repeat(1_600);
        let kept = fm("project", "") + &line.repeat(1_400);
        let jp = fm("reference", "")
            + &"デプロイ手順：ステージングで確認してから本番へ。\n".repeat(4_000);
        let f = Fixture::new(&[
            ("MEMORY.md", &"- x\n".repeat(3)),
            ("project_deploy_log.md", &log),
            ("project_deploy_notes.md", &kept),
            ("reference_deploy_ja.md", &jp),
        ]);
        assert_eq!(
            f.paths("too-large-to-read"),
            ["project_deploy_log.md", "reference_deploy_ja.md"]
        );
        assert_eq!(
            f.messages("too-large-to-read"),
            [
                "about 27217 tokens, over the Read tool's cap of 25000: the model is shown a \
                 first page only; keep logs out of memory, or split it",
                "292068 bytes, over the Read tool's limit of 262144: reading it fails and the \
                 model sees none of it; keep logs out of memory, or split it",
            ]
        );
        // 1,400 lines is oversized (over 100 lines) but read whole; the log is flagged once.
        assert_eq!(f.paths("oversized-file"), ["project_deploy_notes.md"]);
    }
}
