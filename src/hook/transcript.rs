//! What a session's transcript (the client's JSONL) says it holds: the files its tool calls
//! touched, in order, and every instruction file shown to the model (`Contents of PATH`).

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use crate::load::compact::Call;

/// Largest transcript read.
pub(crate) const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// A transcript read once.
#[derive(Debug, Default)]
pub(crate) struct Transcript {
    /// Read, Bash and Write calls, in order.
    pub calls: Vec<Call>,
    /// Paths shown after `Contents of ` (startup block, nested attachments, hook context) and
    /// every `file_path` a tool was given.
    pub shown: HashSet<String>,
}

impl Transcript {
    /// Reads the transcript at `path` (missing or unreadable: empty).
    pub(crate) fn read(path: &Path) -> Self {
        let mut out = Transcript::default();
        let Ok(bytes) = crate::fsread::read_capped(path, MAX_BYTES) else {
            return out;
        };
        for line in String::from_utf8_lossy(&bytes).lines() {
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                out.visit(&value);
            }
        }
        out
    }

    fn visit(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.contents(s),
            Value::Array(a) => a.iter().for_each(|x| self.visit(x)),
            Value::Object(m) => {
                if m.get("type").and_then(Value::as_str) == Some("tool_use") {
                    self.tool_use(m.get("name").and_then(Value::as_str), m.get("input"));
                }
                m.values().for_each(|x| self.visit(x));
            }
            _ => {}
        }
    }

    fn tool_use(&mut self, name: Option<&str>, input: Option<&Value>) {
        let field = |k: &str| {
            input
                .and_then(|i| i.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let call = match name {
            Some("Read") => field("file_path").map(|read| Call::Read {
                read,
                offset: None,
                limit: None,
            }),
            Some("Bash") => field("command").map(|bash| Call::Bash { bash }),
            Some("Write" | "Edit" | "MultiEdit") => field("file_path").map(|write| Call::Write {
                write,
                content: String::new(),
            }),
            _ => None,
        };
        if let Some(p) = field("file_path") {
            self.shown.insert(p);
        }
        self.calls.extend(call);
    }

    /// `Contents of PATH (label):` / `Contents of PATH:` inside a text.
    fn contents(&mut self, s: &str) {
        for part in s.split("Contents of ").skip(1) {
            let Some(end) = part.find(['\n', ':']).filter(|&e| e > 0) else {
                continue;
            };
            let p = part[..end].split(" (").next().unwrap_or("");
            if p.starts_with('/') {
                self.shown.insert(p.to_owned());
            }
        }
    }
}
