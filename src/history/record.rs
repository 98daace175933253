//! The records of a Claude Code 2.1.332 transcript that `history` reads, and the pre-filter that
//! decides from a line's first bytes whether to parse it at all.
//!
//! The client writes each record with `JSON.stringify`: no spaces, keys in the order its code
//! builds them. Two shapes: bookkeeping records open with their kind (`{"type":"api-request-blob"
//! ,…`, `{"type":"cost-state",…`, the biggest lines of a transcript); conversation records open
//! with `{"parentUuid":…,"isSidechain":…` and name their kind a few keys later (`"type":"user"`,
//! `"attachment":{"type":"instructions"`, an assistant `"message"` with `"role":"assistant"`).
//! [`shape`] reads only that much. A quote inside a JSON string is always escaped, so a needle
//! such as `"attachment":{"type":"` can only match the record's own structure; a shape it cannot
//! tell is parsed ([`Shape::Unknown`]), so a client that orders its keys otherwise is slower to
//! read, never misread: the parsed record's own `type` decides.
//!
//! Parsing borrows from the line (`Cow`, `RawValue`): only the strings ccmem keeps are copied, and
//! the content of a Write or a tool result is skipped by the parser, never allocated.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem::Finder;
use serde::Deserialize;
use serde_json::value::RawValue;

static META: &[u8] = br#"{"type":""#;
static ATTACHMENT: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""attachment":{"type":""#));
static USER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""type":"user""#));
static ASSISTANT: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""role":"assistant""#));
static SYSTEM: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""type":"system""#));
/// A tool call block anywhere in a line.
pub static TOOL_USE: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(br#""type":"tool_use""#));

/// What a line's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape<'a> {
    /// A bookkeeping record of this kind (`cost-state`, `api-request-blob`, …).
    Meta(&'a [u8]),
    /// An attachment record of this kind (`instructions`, `nested_memory`, …).
    Attachment(&'a [u8]),
    /// A user message (prompts and tool results).
    User,
    /// An assistant message.
    Assistant,
    /// A system record (`compact_boundary`, …).
    System,
    /// Anything else: parsed to find out.
    Unknown,
}

/// The shape of the line whose first bytes are `peek`.
pub fn shape(peek: &[u8]) -> Shape<'_> {
    if let Some(rest) = peek.strip_prefix(META) {
        return Shape::Meta(until_quote(rest));
    }
    if let Some(at) = ATTACHMENT.find(peek) {
        return Shape::Attachment(until_quote(&peek[at + ATTACHMENT.needle().len()..]));
    }
    // The message's role comes before the record's own `type` in an assistant record.
    let user = USER.find(peek);
    let assistant = ASSISTANT.find(peek);
    match (user, assistant) {
        (Some(u), Some(a)) if a < u => Shape::Assistant,
        (Some(_), _) => Shape::User,
        (None, Some(_)) => Shape::Assistant,
        (None, None) if SYSTEM.find(peek).is_some() => Shape::System,
        _ => Shape::Unknown,
    }
}

fn until_quote(s: &[u8]) -> &[u8] {
    &s[..memchr::memchr(b'"', s).unwrap_or(s.len())]
}

/// The fields every record may carry (bookkeeping records carry few of them).
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// The record's kind.
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    /// The session it belongs to.
    #[serde(rename = "sessionId", borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    /// The session's working directory.
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
    /// The client version that wrote it.
    #[serde(borrow, default)]
    pub version: Option<Cow<'a, str>>,
    /// When (RFC 3339, UTC).
    #[serde(borrow, default)]
    pub timestamp: Option<Cow<'a, str>>,
    /// The git branch (`HEAD` outside a repository or on a detached head).
    #[serde(rename = "gitBranch", borrow, default)]
    pub git_branch: Option<Cow<'a, str>>,
    /// A subagent's record in the main transcript (older clients).
    #[serde(rename = "isSidechain", default)]
    pub is_sidechain: Option<bool>,
    /// A system record's kind.
    #[serde(borrow, default)]
    pub subtype: Option<Cow<'a, str>>,
    /// An attachment record's payload.
    #[serde(borrow, default)]
    pub attachment: Option<&'a RawValue>,
    /// A message record's message.
    #[serde(borrow, default)]
    pub message: Option<&'a RawValue>,
}

/// An attachment's own kind.
#[derive(Debug, Deserialize)]
pub struct AttachmentHead<'a> {
    /// `instructions`, `nested_memory`, `prompt_snapshot`, …
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
}

/// The `instructions` attachment: every instruction file of the reminder, as loaded.
#[derive(Debug, Deserialize)]
pub struct Instructions<'a> {
    /// In the reminder's order.
    #[serde(borrow, default)]
    pub files: Vec<File<'a>>,
}

/// One file of the reminder, or of a `nested_memory` attachment.
#[derive(Debug, Deserialize)]
pub struct File<'a> {
    /// The path as the client prints it.
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    /// `Project`, `User`, `Local`, `Managed`, `AutoMem`, …
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    /// The content as the model got it (for MEMORY.md: cut, with the client's warning).
    #[serde(borrow, default)]
    pub content: Cow<'a, str>,
}

/// The `nested_memory` attachment: a file attached after a read.
#[derive(Debug, Deserialize)]
pub struct Nested<'a> {
    /// The file attached.
    #[serde(borrow, default)]
    pub path: Option<Cow<'a, str>>,
    /// Its record (path, type, content).
    #[serde(borrow, default)]
    pub content: Option<File<'a>>,
}

/// The `prompt_snapshot` attachment: the system prompt, as parts or one text.
#[derive(Debug, Deserialize)]
pub struct Snapshot<'a> {
    /// The parts of the system prompt.
    #[serde(rename = "systemPrompt", borrow, default)]
    pub system_prompt: Option<&'a RawValue>,
}

impl Snapshot<'_> {
    /// The system prompt's parts (one part when it is a single text).
    pub fn parts(&self) -> Vec<Cow<'_, str>> {
        let Some(raw) = self.system_prompt else {
            return Vec::new();
        };
        if let Ok(parts) = serde_json::from_str::<Vec<Cow<'_, str>>>(raw.get()) {
            return parts;
        }
        serde_json::from_str::<Cow<'_, str>>(raw.get())
            .map(|one| vec![one])
            .unwrap_or_default()
    }
}

/// An assistant message: its content blocks.
#[derive(Debug, Deserialize)]
pub struct Message<'a> {
    /// A list of blocks (or a string, which holds no tool call).
    #[serde(borrow, default)]
    pub content: Option<&'a RawValue>,
}

/// One content block.
#[derive(Debug, Deserialize)]
pub struct Block<'a> {
    /// `text`, `tool_use`, `thinking`, …
    #[serde(rename = "type", borrow, default)]
    pub kind: Option<Cow<'a, str>>,
    /// A tool call's id.
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    /// A tool call's tool.
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    /// A tool call's input.
    #[serde(borrow, default)]
    pub input: Option<ToolInput<'a>>,
}

/// The fields of a tool call's input ccmem reads; a Write's content is skipped, not copied.
#[derive(Debug, Default, Deserialize)]
pub struct ToolInput<'a> {
    /// Read, Write, Edit, MultiEdit.
    #[serde(borrow, default)]
    pub file_path: Option<Cow<'a, str>>,
    /// NotebookEdit.
    #[serde(borrow, default)]
    pub notebook_path: Option<Cow<'a, str>>,
    /// Bash.
    #[serde(borrow, default)]
    pub command: Option<Cow<'a, str>>,
    /// Agent (Task).
    #[serde(borrow, default)]
    pub subagent_type: Option<Cow<'a, str>>,
}

/// A subagent's `agent-*.meta.json`.
#[derive(Debug, Deserialize)]
pub struct AgentMeta {
    /// The subagent type (`general-purpose`, a definition's name, …).
    #[serde(rename = "agentType", default)]
    pub agent_type: Option<String>,
}

/// Parses `line` as `T`. A line the client wrote can still fail two ways that lose nothing when
/// repaired: bytes that are not UTF-8 (a file damaged on disk; decoded lossily, U+FFFD) and a
/// lone UTF-16 surrogate escape (`"\ud83d"`: JavaScript strings may hold one, e.g. MEMORY.md cut
/// inside an emoji pair, and `JSON.stringify` writes it; serde cannot decode it into a Rust string,
/// so it is dropped, as the loader drops it from the cut). `Err` when the line is not JSON even
/// so; `Ok((value, repaired))` says whether a repair was needed. The repaired text lives in
/// `scratch`.
pub fn parse<'a, T: Deserialize<'a>>(
    line: &'a [u8],
    scratch: &'a mut Vec<u8>,
) -> Result<(T, bool), serde_json::Error> {
    match serde_json::from_slice::<T>(line) {
        Ok(v) => Ok((v, false)),
        Err(first) => {
            *scratch = repair(line);
            let fixed: &'a Vec<u8> = scratch;
            if fixed.as_slice() == line {
                return Err(first);
            }
            serde_json::from_slice::<T>(fixed).map(|v| (v, true))
        }
    }
}

/// `line` as UTF-8 (lossily) with every lone surrogate escape removed.
fn repair(line: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(line);
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            if b[i + 1] == b'u'
                && let Some(u) = hex4(&b[i + 2..])
                && (0xD800..=0xDFFF).contains(&u)
            {
                let high = u < 0xDC00;
                let low_next = b.get(i + 6) == Some(&b'\\')
                    && b.get(i + 7) == Some(&b'u')
                    && hex4(&b[(i + 8).min(b.len())..])
                        .is_some_and(|l| (0xDC00..=0xDFFF).contains(&l));
                if high && low_next {
                    out.extend_from_slice(&b[i..i + 12]);
                    i += 12;
                } else {
                    i += 6;
                }
                continue;
            }
            out.extend_from_slice(&b[i..i + 2]);
            i += 2;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn hex4(s: &[u8]) -> Option<u32> {
    let h = std::str::from_utf8(s.get(..4)?).ok()?;
    u32::from_str_radix(h, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_the_client_records() {
        let cases: [(&[u8], Shape); 7] = [
            (br#"{"type":"api-request-blob","sessionId":"s","message":{"content":[{"type":"tool_use"}]}}"#, Shape::Meta(b"api-request-blob")),
            (br#"{"type":"cost-state","sessionId":"s"}"#, Shape::Meta(b"cost-state")),
            (br#"{"parentUuid":"p","isSidechain":false,"attachment":{"type":"instructions","files":[]}}"#, Shape::Attachment(b"instructions")),
            (br#"{"parentUuid":"p","isSidechain":false,"promptId":"x","type":"user","message":{"role":"user","content":"hi"}}"#, Shape::User),
            (br#"{"parentUuid":"p","isSidechain":false,"message":{"id":"m","type":"message","role":"assistant","content":[]},"type":"assistant"}"#, Shape::Assistant),
            (br#"{"parentUuid":"p","isSidechain":false,"type":"system","subtype":"compact_boundary"}"#, Shape::System),
            (br#"{"kind":"something new"}"#, Shape::Unknown),
        ];
        for (line, want) in cases {
            assert_eq!(shape(line), want, "{}", String::from_utf8_lossy(line));
        }
        // A quoted needle inside a string is escaped: a tool result quoting a transcript line
        // stays a user record.
        let quoting = br#"{"parentUuid":"p","type":"user","message":{"content":"{\"attachment\":{\"type\":\"instructions\"}"}}"#;
        assert_eq!(shape(quoting), Shape::User);
    }

    #[test]
    fn lone_surrogates_and_bad_bytes_are_repaired_and_pairs_kept() {
        let mut scratch = Vec::new();
        let line = br#"{"content":"cut \ud83d","pair":"\ud83d\ude00","esc":"\\ud800"}"#;
        let (v, repaired): (serde_json::Value, bool) = parse(line, &mut scratch).unwrap();
        assert!(repaired);
        assert_eq!(v["content"], "cut ");
        assert_eq!(v["pair"], "😀");
        assert_eq!(v["esc"], "\\ud800", "an escaped backslash is not an escape");
        let mut bad = br#"{"content":"caf"#.to_vec();
        bad.extend_from_slice(b"\xff\"}");
        let (v, repaired): (serde_json::Value, bool) = parse(&bad, &mut scratch).unwrap();
        assert!(repaired);
        assert_eq!(v["content"], "caf\u{fffd}");
        let (_, repaired): (serde_json::Value, bool) = parse(b"{\"ok\":1}", &mut scratch).unwrap();
        assert!(!repaired);
        assert!(parse::<serde_json::Value>(b"{\"half\":\"writ", &mut scratch).is_err());
    }
}
