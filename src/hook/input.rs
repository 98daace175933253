//! The JSON Claude Code writes on a hook's stdin (and on a statusLine command's stdin), as
//! 2.1.332 defines it. Only the fields ccmem reads are typed; every other field is ignored, so
//! newer clients that add fields keep working. Missing fields default to empty.

use std::io::Read;

use serde::Deserialize;

/// Largest hook input read from stdin. A Write's input carries the whole file content twice
/// (`tool_input.content` and `tool_response`), so this is generous; anything bigger is refused.
pub(crate) const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Fields every hook event carries.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Common {
    /// The session's id.
    pub session_id: String,
    /// The session transcript (JSONL).
    pub transcript_path: String,
    /// The session's working directory.
    pub cwd: String,
    /// `SessionStart`, `PostToolUse`, …
    pub hook_event_name: String,
}

/// Input of a `SessionStart` hook.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "SessionStartWire")]
pub(crate) struct SessionStart {
    /// Shared fields.
    pub common: Common,
    /// `startup`, `resume`, `clear`, `compact` or `fork`.
    pub source: String,
}

// The inputs are read through flat "wire" structs, not `#[serde(flatten)]`: flatten buffers
// every field it does not know (a Write's whole content, a Bash command's whole output) into
// serde's generic `Content` tree before looking at it, several times the input's size in
// memory and seconds of work for a 40 MB tool response. A flat struct skips such fields as it
// parses them.

#[derive(Deserialize, Default)]
#[serde(default)]
struct SessionStartWire {
    session_id: String,
    transcript_path: String,
    cwd: String,
    hook_event_name: String,
    source: String,
}

impl From<SessionStartWire> for SessionStart {
    fn from(w: SessionStartWire) -> Self {
        SessionStart {
            common: Common {
                session_id: w.session_id,
                transcript_path: w.transcript_path,
                cwd: w.cwd,
                hook_event_name: w.hook_event_name,
            },
            source: w.source,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PostToolUseWire {
    session_id: String,
    transcript_path: String,
    cwd: String,
    hook_event_name: String,
    tool_name: String,
    tool_input: ToolInput,
    tool_response: ToolResponse,
}

impl From<PostToolUseWire> for PostToolUse {
    fn from(w: PostToolUseWire) -> Self {
        PostToolUse {
            common: Common {
                session_id: w.session_id,
                transcript_path: w.transcript_path,
                cwd: w.cwd,
                hook_event_name: w.hook_event_name,
            },
            tool_name: w.tool_name,
            tool_input: w.tool_input,
            tool_response: w.tool_response,
        }
    }
}

/// Input of a `PostToolUse` hook. `tool_input` is typed only as far as the path: the content of
/// a Write is skipped by the parser, never copied.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(from = "PostToolUseWire")]
pub(crate) struct PostToolUse {
    /// Shared fields.
    pub common: Common,
    /// `Write`, `Edit`, `MultiEdit`, …
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: ToolInput,
    /// What the tool returned (for Bash: its output).
    pub tool_response: ToolResponse,
}

/// The part of a tool's response ccmem reads (Bash: `stdout`, and an exit code when the client
/// sends one). Any other shape (a string, a Write's echo of the file) reads as empty.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolResponse {
    /// Bash: the command's standard output.
    pub stdout: Option<String>,
    /// Bash: its exit code, when given.
    pub code: Option<i32>,
}

impl ToolResponse {
    /// The exit code, when known.
    pub(crate) fn exit_code(&self) -> Option<i32> {
        self.code
    }
}

/// Read in one pass, without `#[serde(untagged)]` (which, like flatten, buffers the whole value
/// into serde's `Content` first): an object's `stdout` and exit code are taken when they have
/// the types Bash gives them; any other shape, or a field of another type, reads as empty (as
/// the untagged form did), and everything else is skipped as it is parsed.
impl<'de> Deserialize<'de> for ToolResponse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ResponseVisitor)
    }
}

struct ResponseVisitor;

impl<'de> serde::de::Visitor<'de> for ResponseVisitor {
    type Value = ToolResponse;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a tool response")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::IgnoredAny;
        let (mut out, mut bad) = (ToolResponse::default(), false);
        let (mut seen_stdout, mut seen_code) = (false, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "stdout" => {
                    bad |= seen_stdout;
                    seen_stdout = true;
                    match map.next_value::<Typed<Option<String>>>()?.0 {
                        Some(v) => out.stdout = v,
                        None => bad = true,
                    }
                }
                "code" | "exitCode" | "exit_code" | "returnCode" => {
                    bad |= seen_code;
                    seen_code = true;
                    match map.next_value::<Typed<Option<i32>>>()?.0 {
                        Some(v) => out.code = v,
                        None => bad = true,
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(if bad { ToolResponse::default() } else { out })
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(ToolResponse::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(ToolResponse::default())
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(ToolResponse::default())
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(ToolResponse::default())
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(ToolResponse::default())
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(ToolResponse::default())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(ToolResponse::default())
    }
}

/// A value of type `T`, or `None` when it has another type (skipped, never an error).
struct Typed<T>(Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Typed<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Parsed into a borrowed raw value first (no copy of its text), then typed.
        let raw = <&serde_json::value::RawValue>::deserialize(d)?;
        Ok(Typed(serde_json::from_str(raw.get()).ok()))
    }
}

/// The part of a file tool's input ccmem reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ToolInput {
    /// The written file (absolute in practice; resolved against `cwd` otherwise).
    pub file_path: Option<String>,
    /// Bash: the command line.
    pub command: Option<String>,
}

/// Input of a `statusLine` command.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct StatusLine {
    /// The session's working directory.
    pub cwd: String,
    /// Workspace folders.
    pub workspace: Workspace,
}

/// `workspace` of the statusLine input.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct Workspace {
    /// The current directory (follows `cd` inside the session).
    pub current_dir: String,
    /// The directory the session started in.
    pub project_dir: String,
}

impl StatusLine {
    /// The directory to load for: `workspace.project_dir` (where the session loaded its memory),
    /// else `workspace.current_dir`, else `cwd`.
    pub(crate) fn dir(&self) -> &str {
        [
            self.workspace.project_dir.as_str(),
            self.workspace.current_dir.as_str(),
            self.cwd.as_str(),
        ]
        .into_iter()
        .find(|d| !d.is_empty())
        .unwrap_or("")
    }
}

/// Reads all of `reader` (at most [`MAX_INPUT_BYTES`]) and parses it as `T`.
pub(crate) fn read<T: for<'de> Deserialize<'de>>(reader: impl Read) -> anyhow::Result<T> {
    let mut buf = Vec::new();
    reader.take(MAX_INPUT_BYTES + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > MAX_INPUT_BYTES {
        anyhow::bail!("hook input on stdin is larger than {MAX_INPUT_BYTES} bytes");
    }
    parse(&buf)
}

/// Parses hook input bytes as `T` (empty input is an error: the client always sends JSON).
pub(crate) fn parse<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> anyhow::Result<T> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        anyhow::bail!("no hook input on stdin (expected the client's JSON)");
    }
    serde_json::from_slice(bytes)
        .map_err(|e| anyhow::anyhow!("hook input on stdin is not valid JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_tool_use_keeps_path_and_ignores_content() {
        let json = br#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PostToolUse",
            "tool_name":"Write","tool_input":{"file_path":"/w/a.md","content":"x"},"tool_response":{"x":[1,2]},
            "tool_use_id":"t1","extra":true}"#;
        let input: PostToolUse = parse(json).unwrap();
        assert_eq!(input.tool_name, "Write");
        assert_eq!(input.tool_input.file_path.as_deref(), Some("/w/a.md"));
        assert_eq!(input.common.cwd, "/w");
    }

    #[test]
    fn missing_fields_default_and_bad_input_errors() {
        let input: SessionStart = parse(b"{}").unwrap();
        assert_eq!(input.source, "");
        assert!(parse::<SessionStart>(b"  \n").is_err());
        assert!(parse::<SessionStart>(b"\xff\xfe").is_err());
        assert!(parse::<SessionStart>(b"[1]").is_err());
        let bash: PostToolUse =
            parse(br#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#).unwrap();
        assert!(bash.tool_input.file_path.is_none());
    }

    #[test]
    fn statusline_prefers_project_dir() {
        let s: StatusLine =
            parse(br#"{"cwd":"/a/b","workspace":{"current_dir":"/a/b","project_dir":"/a"}}"#)
                .unwrap();
        assert_eq!(s.dir(), "/a");
        let s: StatusLine = parse(br#"{"cwd":"/a/b"}"#).unwrap();
        assert_eq!(s.dir(), "/a/b");
    }
}
