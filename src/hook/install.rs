//! Adding and removing ccmem's hook entries in a Claude Code settings file, changing nothing
//! else: every other byte stays as written (numbers, spacing, key order, a BOM).
//!
//! Ownership is an exact marker, not a name: every command ccmem installs ends with
//! [`MARKER`] (a shell comment, so it changes nothing when the hook runs). Only such commands
//! are ccmem's: install updates them in place (the binary; arguments a user added after the
//! sub-command are kept), uninstall removes them. A command the user wrote, even one that runs
//! ccmem, is never rewritten or removed; when it already runs one of ccmem's hooks, install adds
//! no second one and says so.
//!
//! The planning functions are pure (text in, [`Plan`] out); the write goes through
//! [`crate::write`] (lock, journal, backup, temp file + swap, links written through). The text
//! is parsed with the loader's parse ([`Doc`], `JSON.parse` as the client runs it: strict JSON,
//! any nesting depth; see [`crate::settings`] for the whole read): a file the client would not
//! load is refused, never edited. A UTF-8 BOM is kept, bytes that are not UTF-8 inside strings
//! are kept as they were, a UTF-16 file (which the client reads) is refused with the command that
//! converts it, and so is a file over [`crate::constants::MAX_SETTINGS_BYTES`].

mod bin;
mod edits;
pub(crate) mod setup;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::env::ClientEnv;
use crate::settings::Source;
use crate::settings::json::{Doc, Span};
pub(crate) use bin::{Resolved, command, is_ours, resolve_bin};
use bin::{parse_ours, runs_our_hook};
use edits::{Edits, Style, insert_elems, insert_props, remove_elems, remove_props};

/// The marker that ends every command ccmem installs.
pub(crate) const MARKER: &str = "# ccmem-managed";

/// The matcher of ccmem's PostToolUse entry: memory writes (the guard) and Bash (reads the client
/// does not track, see `hook::bash_read`).
pub(crate) const POST_TOOL_USE_MATCHER: &str = "Write|Edit|MultiEdit|Bash";

/// Matchers earlier versions of ccmem installed for its PostToolUse entry: a group of ours still
/// carrying one is brought up to date (not duplicated beside the new one).
const OLD_POST_TOOL_USE_MATCHERS: &[&str] = &["Write|Edit|MultiEdit"];

const BOM: &str = "\u{feff}";

/// Which settings file to edit (the client's names in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Scope {
    /// `$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json` (userSettings).
    User,
    /// `.claude/settings.json` of the current directory, checked in (projectSettings).
    Project,
    /// `.claude/settings.local.json` of the current directory, not checked in (localSettings).
    Local,
}

impl Scope {
    /// The settings file of this scope.
    pub(crate) fn path(self, env: &ClientEnv) -> PathBuf {
        let source = match self {
            Scope::User => Source::User,
            Scope::Project => Source::Project,
            Scope::Local => Source::Local,
        };
        source
            .file(env)
            .expect("the user, project and local layers are files")
    }

    /// The settings file of this scope as ccmem may write it: `(path, target)`, the absolute path
    /// and the file a write really changes (a link's final target). The one rule for which
    /// links are written through, held by `hook install`, `uninstall` and `undo --hook` alike: a
    /// project's or local settings file that is a link out of the repository (to
    /// `~/.claude/settings.json`, or anywhere a cloned repository chose) is refused, since the
    /// repository ships the link and the file it leads to is not the project's. The user's own
    /// file is written through its links (they are the user's).
    pub(crate) fn writable_file(self, env: &ClientEnv) -> anyhow::Result<(PathBuf, PathBuf)> {
        let path = std::path::absolute(self.path(env))?;
        let target = crate::write::resolve(&path)?;
        if self != Scope::User {
            refuse_link_out_of_repository(&path, &target, &env.cwd)?;
        }
        Ok((path, target))
    }

    /// The mode a new settings file of this scope gets: private, except the project's shared
    /// file (settings can hold `env` keys).
    pub(crate) fn create_mode(self) -> u32 {
        match self {
            Scope::Project => 0o644,
            Scope::User | Scope::Local => 0o600,
        }
    }
}

/// A settings file that is a link out of the repository of `cwd` is refused (see
/// [`Scope::writable_file`]).
fn refuse_link_out_of_repository(path: &Path, target: &Path, cwd: &Path) -> anyhow::Result<()> {
    if path == target {
        return Ok(());
    }
    let root = crate::load::git::git_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
    let root = root.canonicalize().unwrap_or(root);
    let real = target
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .map(|p| p.join(target.file_name().unwrap_or_default()));
    if real.as_ref().is_some_and(|r| r.starts_with(&root)) {
        return Ok(());
    }
    anyhow::bail!(
        "{}: is a symbolic link to {}, outside the repository {}: a repository can ship such a \
         link, so ccmem does not write through it; nothing written. Replace the link by a file \
         of the repository, or use --local or --user",
        path.display(),
        target.display(),
        root.display()
    )
}

/// One hook ccmem installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The client's hook event.
    pub event: &'static str,
    /// The group's matcher (`None`: no matcher key).
    pub matcher: Option<&'static str>,
    /// The `ccmem hook` sub-command it runs.
    pub sub: &'static str,
}

/// The hooks ccmem installs, in order.
pub(crate) const ENTRIES: &[Entry] = &[
    Entry {
        event: "SessionStart",
        matcher: None,
        sub: "session-start",
    },
    Entry {
        event: "PostToolUse",
        matcher: Some(POST_TOOL_USE_MATCHER),
        sub: "post-tool-use",
    },
    Entry {
        event: "InstructionsLoaded",
        matcher: None,
        sub: "instructions-loaded",
    },
];

/// What an install or uninstall does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The new bytes (`None`: unchanged).
    pub after: Option<Vec<u8>>,
    /// Things the user should know (a hook of theirs left alone, …).
    pub notes: Vec<String>,
}

/// Why a settings file cannot be edited.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unusable {
    /// Not JSON the client reads.
    #[error(
        "not valid JSON at line {line} column {column} ({message}); the client does not load it \
         either: fix it, then run again"
    )]
    Invalid {
        /// 1-based line (after a BOM).
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A shape ccmem cannot add to without changing the user's values.
    #[error("{0}")]
    Shape(String),
    /// UTF-16 text with a little-endian BOM (the client reads it).
    #[error(
        "is UTF-16 text; the client reads it, but ccmem edits UTF-8 only: convert it (iconv -f \
         UTF-16 -t UTF-8), then run again"
    )]
    Utf16,
    /// UTF-16 text with a big-endian BOM (the client reads it as UTF-8: not JSON).
    #[error(
        "is UTF-16 big-endian text, which the client does not load (it reads UTF-8, and UTF-16 \
         only little-endian): convert it (iconv -f UTF-16 -t UTF-8), then run again"
    )]
    Utf16BigEndian,
}

/// The text ccmem parses: the file's bytes without a UTF-8 BOM, each byte that is not UTF-8
/// replaced by `?` (one byte for one byte, so every offset still points into the file; the
/// client reads such bytes as U+FFFD, and ccmem never edits inside them).
fn decode(bytes: &[u8]) -> Result<(bool, String), Unusable> {
    if bytes.starts_with(&[0xff, 0xfe]) {
        return Err(Unusable::Utf16);
    }
    if bytes.starts_with(&[0xfe, 0xff]) {
        return Err(Unusable::Utf16BigEndian);
    }
    let bom = bytes.starts_with(BOM.as_bytes());
    let body = if bom { &bytes[3..] } else { bytes };
    let mut text = String::with_capacity(body.len());
    for chunk in body.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    Ok((bom, text))
}

/// The file's bytes after `edits` of its decoded text: unchanged spans are copied from the
/// original bytes (so bytes that are not UTF-8 survive as they were).
fn encode(original: &[u8], bom: bool, edits: &Edits) -> Vec<u8> {
    let body = if bom { &original[3..] } else { original };
    let mut out = Vec::with_capacity(original.len() + 512);
    if bom {
        out.extend_from_slice(BOM.as_bytes());
    }
    out.extend_from_slice(&edits.apply_bytes(body));
    out
}

/// Plans an install into a file of `bytes` (`None`: no file), for the hooks in `entries`
/// running `bin`.
pub(crate) fn plan_install(
    bytes: Option<&[u8]>,
    bin: &str,
    entries: &[Entry],
) -> Result<Plan, Unusable> {
    let original = bytes.unwrap_or_default();
    let (bom, text) = decode(original)?;
    let mut notes = Vec::new();
    if text.trim().is_empty() {
        let style = Style::of("{\n  \"x\": 1\n}");
        let body = style.render(&json!({ "hooks": hooks_value(bin, entries) }), "");
        let out = format!("{}{body}\n", if bom { BOM } else { "" });
        return Ok(Plan {
            after: Some(out.into_bytes()),
            notes,
        });
    }
    let doc = parse(&text)?;
    let style = Style::of(&text);
    let root = doc
        .object(doc.root)
        .ok_or_else(|| Unusable::Shape("the file is not a JSON object".into()))?;
    let mut edits = Edits::default();
    let Some(hooks_prop) = doc.get(&root, "hooks") else {
        let value = hooks_value(bin, entries);
        insert_props(
            &doc,
            &style,
            doc.root,
            &root,
            &[("hooks", value)],
            &mut edits,
        );
        return Ok(Plan {
            after: Some(encode(original, bom, &edits)),
            notes,
        });
    };
    let hooks = doc
        .object(hooks_prop.value)
        .ok_or_else(|| Unusable::Shape("`hooks` is not a JSON object".into()))?;
    let mut new_events: Vec<(&str, Vec<Value>)> = Vec::new();
    for e in entries {
        let Some(event) = doc.get(&hooks, e.event) else {
            match new_events.iter_mut().find(|(n, _)| *n == e.event) {
                Some((_, groups)) => groups.push(group_value(bin, e)),
                None => new_events.push((e.event, vec![group_value(bin, e)])),
            }
            continue;
        };
        let groups = doc
            .array(event.value)
            .ok_or_else(|| Unusable::Shape(format!("`hooks.{}` is not a JSON array", e.event)))?;
        let mut found = false;
        for (gi, group) in groups.iter().enumerate() {
            let Some(gprops) = doc.object(group) else {
                continue;
            };
            let matcher = doc
                .get(&gprops, "matcher")
                .and_then(|p| serde_json::from_str::<String>(p.value.get()).ok());
            let Some(list) = doc.get(&gprops, "hooks").and_then(|p| doc.array(p.value)) else {
                continue;
            };
            let alone = list.len() == 1;
            for h in list {
                let Some(cmd) = command_of(&doc, h) else {
                    continue;
                };
                if let Some((sub, args)) = parse_ours(&cmd.1) {
                    let outdated = e.event == "PostToolUse"
                        && alone
                        && matcher
                            .as_deref()
                            .is_some_and(|m| OLD_POST_TOOL_USE_MATCHERS.contains(&m));
                    if sub == e.sub && (matcher.as_deref() == e.matcher || outdated) {
                        found = true;
                        let want = command(bin, sub, args);
                        if want != cmd.1 {
                            edits.replace(cmd.0, Value::String(want).to_string());
                        }
                        if let (true, Some(m), Some(p)) =
                            (outdated, e.matcher, doc.get(&gprops, "matcher"))
                        {
                            edits.replace(doc.span(p.value), Value::String(m.into()).to_string());
                        }
                    }
                } else if runs_our_hook(&cmd.1, e.sub, bin) && matcher.as_deref() == e.matcher {
                    found = true;
                    notes.push(format!(
                        "hooks.{}[{gi}]: your own `{}` already runs this hook; left as it is",
                        e.event, cmd.1
                    ));
                }
            }
        }
        if !found {
            let pending: Vec<Value> = vec![group_value(bin, e)];
            insert_elems(&doc, &style, event.value, &groups, &pending, &mut edits);
        }
    }
    if !new_events.is_empty() {
        let props: Vec<(&str, Value)> = new_events
            .into_iter()
            .map(|(n, g)| (n, Value::Array(g)))
            .collect();
        insert_props(&doc, &style, hooks_prop.value, &hooks, &props, &mut edits);
    }
    let after = (!edits.is_empty()).then(|| encode(original, bom, &edits));
    Ok(Plan { after, notes })
}

/// Plans an uninstall: removes every command ending with [`MARKER`], and the groups, event lists
/// and `hooks` object that removal empties (ones already empty stay). `None` after: nothing of
/// ccmem's is there.
pub(crate) fn plan_uninstall(bytes: Option<&[u8]>) -> Result<Plan, Unusable> {
    let Some(original) = bytes else {
        return Ok(Plan {
            after: None,
            notes: Vec::new(),
        });
    };
    let (bom, text) = decode(original)?;
    if text.trim().is_empty() {
        return Ok(Plan {
            after: None,
            notes: Vec::new(),
        });
    }
    let doc = parse(&text)?;
    let mut notes = Vec::new();
    let mut edits = Edits::default();
    let root = doc
        .object(doc.root)
        .ok_or_else(|| Unusable::Shape("the file is not a JSON object".into()))?;
    let Some(hooks_prop) = doc.get(&root, "hooks") else {
        return Ok(Plan { after: None, notes });
    };
    let Some(hooks) = doc.object(hooks_prop.value) else {
        return Ok(Plan { after: None, notes });
    };
    let mut events_gone = Vec::new();
    for (ei, event) in hooks.iter().enumerate() {
        let Some(groups) = doc.array(event.value) else {
            continue;
        };
        let mut groups_gone = Vec::new();
        for (gi, group) in groups.iter().enumerate() {
            let Some(gprops) = doc.object(group) else {
                continue;
            };
            let Some(list_prop) = doc.get(&gprops, "hooks") else {
                continue;
            };
            let Some(list) = doc.array(list_prop.value) else {
                continue;
            };
            let mut gone = Vec::new();
            for (hi, h) in list.iter().enumerate() {
                if let Some((_, cmd)) = command_of(&doc, h) {
                    if is_ours(&cmd) {
                        gone.push(hi);
                    } else if ENTRIES.iter().any(|e| runs_our_hook(&cmd, e.sub, "")) {
                        notes.push(format!(
                            "hooks.{}[{gi}]: left your own `{cmd}` in place (ccmem did not \
                             install it; remove it by hand if you want it gone)",
                            event.key
                        ));
                    }
                }
            }
            if gone.is_empty() {
                continue;
            }
            if gone.len() == list.len() {
                groups_gone.push(gi);
            } else {
                remove_elems(&doc, list_prop.value, &list, &gone, &mut edits);
            }
        }
        if groups_gone.is_empty() {
            continue;
        }
        if groups_gone.len() == groups.len() {
            events_gone.push(ei);
        } else {
            remove_elems(&doc, event.value, &groups, &groups_gone, &mut edits);
        }
    }
    if !events_gone.is_empty() {
        if events_gone.len() == hooks.len() {
            let i = root
                .iter()
                .rposition(|p| p.key == "hooks")
                .unwrap_or_default();
            remove_props(&doc, doc.root, &root, &[i], &mut edits);
        } else {
            remove_props(&doc, hooks_prop.value, &hooks, &events_gone, &mut edits);
        }
    }
    let after = (!edits.is_empty()).then(|| encode(original, bom, &edits));
    Ok(Plan { after, notes })
}

/// True when `bytes` is a JSON object with nothing in it.
pub(crate) fn is_empty_object(bytes: &[u8]) -> bool {
    decode(bytes).is_ok_and(|(_, t)| {
        Doc::parse(&t).is_ok_and(|d| d.object(d.root).is_some_and(|p| p.is_empty()))
    })
}

fn parse(text: &str) -> Result<Doc<'_>, Unusable> {
    Doc::parse(text).map_err(|e| Unusable::Invalid {
        line: e.line,
        column: e.column,
        message: e.message,
    })
}

/// A hook object's `command` string: its span and value.
fn command_of(doc: &Doc<'_>, hook: &RawValueRef) -> Option<(Span, String)> {
    let props = doc.object(hook)?;
    let p = doc.get(&props, "command")?;
    let s: String = serde_json::from_str(p.value.get()).ok()?;
    Some((doc.span(p.value), s))
}

type RawValueRef = serde_json::value::RawValue;

fn group_value(bin: &str, e: &Entry) -> Value {
    let mut g = serde_json::Map::new();
    if let Some(m) = e.matcher {
        g.insert("matcher".into(), Value::String(m.into()));
    }
    g.insert(
        "hooks".into(),
        json!([{ "type": "command", "command": command(bin, e.sub, "") }]),
    );
    Value::Object(g)
}

fn hooks_value(bin: &str, entries: &[Entry]) -> Value {
    let mut h = serde_json::Map::new();
    for e in entries {
        match h.get_mut(e.event) {
            Some(Value::Array(groups)) => groups.push(group_value(bin, e)),
            _ => {
                h.insert(e.event.into(), Value::Array(vec![group_value(bin, e)]));
            }
        }
    }
    Value::Object(h)
}

/// A unified diff from `before` to `after` with file headers naming `shown` (the settings
/// file, and the file it links to when it is a link: `path -> target`).
pub(crate) fn diff(shown: &str, before: &str, after: &str) -> String {
    let p = shown;
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{p} (before)"), &format!("{p} (after)"))
        .to_string()
}

#[cfg(test)]
mod tests;
