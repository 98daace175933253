//! What a session's transcript (the client's JSONL) says it holds: the files its tool calls
//! touched, in order, and every instruction file shown to the model (`Contents of PATH`).

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::history::lines::{Item, Lines};
use crate::load::compact::Call;

/// Whether a transcript line can name a tool call or a shown file: the client writes JSON with
/// `JSON.stringify`, which escapes no ASCII letter, so both markers stand in the line as written.
fn may_hold_calls(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\"tool_use\"").is_some()
        || memchr::memmem::find(line, b"Contents of ").is_some()
}

/// Most of a transcript read, from its start (1 GiB, about a second of the hook's time): a
/// longer one (or a sparse file claiming terabytes) is read up to here, where the start block
/// and the session's first reads are.
pub(crate) const MAX_BYTES: u64 = 1 << 30;

/// A session's transcript (the client's JSONL) as the hooks need it.
///
/// It is streamed line by line ([`crate::history::lines`]), never held whole: a long session's
/// transcript runs to hundreds of MB (it used to be read whole up to 64 MiB, and a longer one
/// read as empty, so the Bash hook added files the model already held and the compaction hook
/// forgot every read). Memory is bounded by the longest line parsed (`lines::MAX_LINE`; a
/// longer one is passed over), time by [`MAX_BYTES`], and only lines that can hold what is
/// read here are parsed: one naming a `"tool_use"` or holding `Contents of ` (tool results, the
/// bulk of a transcript, hold neither unless they quote one, and then they are parsed as
/// before).
#[derive(Debug, Default)]
pub(crate) struct Transcript {
    /// Read, Bash and Write calls, in order.
    pub calls: Vec<Call>,
    /// Paths shown after `Contents of ` (startup block, nested attachments, hook context) and
    /// every `file_path` a tool was given.
    pub shown: HashSet<String>,
}

impl Transcript {
    /// Reads the transcript at `path` (missing, unreadable or not a regular file: empty; an
    /// unreadable stretch ends the read with what came before).
    pub(crate) fn read(path: &Path) -> Self {
        let mut out = Transcript::default();
        let Ok((file, len)) = crate::history::transcript::open(path) else {
            return out;
        };
        let mut lines = Lines::new(std::io::Read::take(file, MAX_BYTES), len.min(MAX_BYTES));
        // Whether a line may matter needs all of it, so every line up to `MAX_LINE` is held
        // (a `memmem` pass over it), and only the few that may matter are parsed.
        while let Ok(Some(item)) = lines.next(|_, _| true) {
            if let Item::Line { bytes, .. } = item
                && may_hold_calls(bytes)
            {
                out.line(&String::from_utf8_lossy(bytes));
            }
        }
        out
    }

    /// One line of the transcript, walked as it is parsed: nothing of it is built but the few
    /// strings a tool call is read from. (A `serde_json::Value` of the line took 32 bytes per
    /// number or empty array: a 60 MB line of `[0,0,…]` held 2 GB, on every Bash call.) A line
    /// that is not JSON gives nothing, as before: it is walked once, into its own record, which
    /// is kept only when the whole line parsed.
    fn line(&mut self, line: &str) {
        let mut part = Transcript::default();
        let mut de = serde_json::Deserializer::from_str(line);
        let parsed = Walk(&mut part).deserialize(&mut de).and_then(|_| de.end());
        if parsed.is_ok() {
            self.calls.extend(part.calls);
            self.shown.extend(part.shown);
        }
    }

    fn tool_use(&mut self, name: Option<&str>, input: Fields) {
        let call = match name {
            Some("Read") => input.file_path.clone().map(|read| Call::Read {
                read,
                offset: None,
                limit: None,
            }),
            Some("Bash") => input.command.map(|bash| Call::Bash { bash }),
            Some("Write" | "Edit" | "MultiEdit") => {
                input.file_path.clone().map(|write| Call::Write {
                    write,
                    content: String::new(),
                })
            }
            _ => None,
        };
        if let Some(p) = input.file_path {
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

/// What a value gave its parent: a string's text, or an object's `file_path` and `command`
/// strings (the fields a tool call's `input` is read from).
enum Node<'de> {
    Str(Cow<'de, str>),
    Object(Fields),
    Other,
}

/// An object's `file_path` and `command`, when they are strings (the last one, as a duplicate
/// key is read).
#[derive(Default)]
struct Fields {
    file_path: Option<String>,
    command: Option<String>,
}

/// Walks a value: every string is looked at for `Contents of PATH`, and every object whose
/// `type` is `tool_use` is a tool call (its `name`, and its `input`'s fields).
struct Walk<'t>(&'t mut Transcript);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = Node<'de>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Node<'de>, E> {
        self.0.contents(s);
        Ok(Node::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node<'de>, E> {
        self.0.contents(s);
        Ok(Node::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let out = self.0;
        while seq.next_element_seed(Walk(&mut *out))?.is_some() {}
        Ok(Node::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let out = self.0;
        let (mut kind, mut name, mut input) = (None, None, Fields::default());
        let mut own = Fields::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let node = map.next_value_seed(Walk(&mut *out))?;
            let text = match &node {
                Node::Str(s) => Some(s.as_ref()),
                _ => None,
            };
            match key.as_ref() {
                "type" => kind = text.map(|t| t == "tool_use"),
                "name" => name = text.map(str::to_owned),
                "file_path" => own.file_path = text.map(str::to_owned),
                "command" => own.command = text.map(str::to_owned),
                "input" => {
                    input = match node {
                        Node::Object(fields) => fields,
                        _ => Fields::default(),
                    }
                }
                _ => {}
            }
        }
        if kind == Some(true) {
            out.tool_use(name.as_deref(), input);
        }
        Ok(Node::Object(own))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_and_shown_paths_are_read_from_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let lines = [
            r#"{"type":"user","message":{"content":"Contents of /p/CLAUDE.md (project):\n\nx"}}"#,
            r#"{"message":{"content":[{"input":{"file_path":"/p/a.md"},"name":"Read","type":"tool_use"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"cat b"}}]}}"#,
            r#"{"type":"tool_use","name":"Edit","input":{"file_path":"/p/c.md","file_path":"/p/d.md"}}"#,
            r#"{"type":"tool_use","name":"Read","input":{"file_path":"/p/e.md"}"#,
            "not json",
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let t = Transcript::read(&path);
        let calls: Vec<String> = t.calls.iter().map(|c| format!("{c:?}")).collect();
        assert_eq!(calls.len(), 3, "{calls:?}");
        assert!(calls[0].contains("/p/a.md") && calls[1].contains("cat b"));
        assert!(calls[2].contains("/p/d.md"), "{calls:?}");
        let mut shown: Vec<&str> = t.shown.iter().map(String::as_str).collect();
        shown.sort_unstable();
        assert_eq!(shown, ["/p/CLAUDE.md", "/p/a.md", "/p/d.md"]);
    }

    /// A long session: 70 MB of tool results (past the 64 MiB the transcript was once read
    /// whole up to, when a longer one read as empty), one result line longer than a line is
    /// ever held, then the calls that matter. Each is still found.
    #[test]
    fn a_transcript_of_a_long_session_is_read_to_its_end() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(
            f,
            r#"{{"type":"user","message":{{"content":"Contents of /p/CLAUDE.md (project):\n\nx"}}}}"#
        )
        .unwrap();
        let output = "0123456789abcdef".repeat(64 << 10); // 1 MiB
        for _ in 0..70 {
            writeln!(
                f,
                r#"{{"type":"user","message":{{"content":[{{"tool_use_id":"t","type":"tool_result","content":"{output}"}}]}}}}"#
            )
            .unwrap();
        }
        let huge = "y".repeat(crate::history::lines::MAX_LINE + (1 << 20));
        writeln!(f, r#"{{"type":"tool_use","name":"Read","input":{{"file_path":"/p/lost.md"}},"x":"{huge}"}}"#).unwrap();
        writeln!(
            f,
            r#"{{"message":{{"content":[{{"type":"tool_use","name":"Read","input":{{"file_path":"/p/late.md"}}}}]}}}}"#
        )
        .unwrap();
        drop(f);
        assert!(std::fs::metadata(&path).unwrap().len() > 64 << 20);
        let t = Transcript::read(&path);
        let calls: Vec<String> = t.calls.iter().map(|c| format!("{c:?}")).collect();
        assert_eq!(
            calls,
            [r#"Read { read: "/p/late.md", offset: None, limit: None }"#]
        );
        let mut shown: Vec<&str> = t.shown.iter().map(String::as_str).collect();
        shown.sort_unstable();
        assert_eq!(shown, ["/p/CLAUDE.md", "/p/late.md"]);
    }
}
