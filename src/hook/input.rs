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
#[serde(default)]
pub(crate) struct SessionStart {
    /// Shared fields.
    #[serde(flatten)]
    pub common: Common,
    /// `startup`, `resume`, `clear`, `compact` or `fork`.
    pub source: String,
}

/// Input of a `PostToolUse` hook. `tool_input` is typed only as far as the path: the content of
/// a Write is skipped by the parser, never copied.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct PostToolUse {
    /// Shared fields.
    #[serde(flatten)]
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

impl<'de> Deserialize<'de> for ToolResponse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Bash {
            #[serde(default)]
            stdout: Option<String>,
            #[serde(default, alias = "exitCode", alias = "exit_code", alias = "returnCode")]
            code: Option<i32>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Any {
            Bash(Bash),
            Other(serde::de::IgnoredAny),
        }
        Ok(match Any::deserialize(d)? {
            Any::Bash(b) => ToolResponse {
                stdout: b.stdout,
                code: b.code,
            },
            Any::Other(_) => ToolResponse::default(),
        })
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
