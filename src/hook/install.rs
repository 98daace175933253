//! Adding and removing ccmem's hook entries in a Claude Code settings file, keeping every other
//! key, hook and their order (`serde_json` with `preserve_order`).
//!
//! The planning functions are pure (bytes in, [`Change`] out) so every settings shape can be
//! tested; [`apply`] is the only writer: temp file in the same folder + rename (through the
//! settings file's symlink, if it is one), with the previous bytes kept in `<file>.ccmem-backup`.
//!
//! Round trip: when removing ccmem's entries leaves the same JSON value as the backup (empty
//! `hooks` containers aside), the backup's bytes are written back, so uninstall after install
//! restores the original file byte for byte, formatting included; a file that install created is
//! deleted again.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::env::ClientEnv;

/// Suffix of the backup kept next to the settings file.
pub const BACKUP_SUFFIX: &str = ".ccmem-backup";

/// The matcher of ccmem's PostToolUse entry.
pub const POST_TOOL_USE_MATCHER: &str = "Write|Edit|MultiEdit|Bash";

/// Which settings file to edit (the client's names in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json` (userSettings).
    User,
    /// `.claude/settings.json` of the current directory, checked in (projectSettings).
    Project,
    /// `.claude/settings.local.json` of the current directory, not checked in (localSettings).
    Local,
}

impl Scope {
    /// The settings file of this scope.
    pub fn path(self, env: &ClientEnv) -> PathBuf {
        match self {
            Scope::User => env.config_dir().join("settings.json"),
            Scope::Project => env.cwd.join(".claude").join("settings.json"),
            Scope::Local => env.cwd.join(".claude").join("settings.local.json"),
        }
    }
}

/// The hook entries ccmem installs: (event, matcher, sub-command).
pub const ENTRIES: [(&str, Option<&str>, &str); 3] = [
    ("SessionStart", None, "session-start"),
    ("PostToolUse", Some(POST_TOOL_USE_MATCHER), "post-tool-use"),
    ("InstructionsLoaded", None, "instructions-loaded"),
];

/// What an install or uninstall does to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Nothing to do.
    Unchanged,
    /// Write these bytes (and, for an install over an existing file, keep a backup).
    Write(String),
    /// Write the backup's bytes back and remove the backup.
    RestoreBackup(Vec<u8>),
    /// Remove the file (install created it; nothing else is in it).
    Delete,
}

/// The shell command of one hook: `BIN hook SUBCOMMAND`, `BIN` quoted when it needs it.
pub fn command(bin: &str, sub: &str) -> String {
    let safe = !bin.is_empty()
        && bin
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%=,".contains(&b));
    if safe {
        format!("{bin} hook {sub}")
    } else {
        format!("'{}' hook {sub}", bin.replace('\'', r"'\''"))
    }
}

/// True when a hook command is one of ccmem's (`…ccmem hook session-start|post-tool-use …`,
/// whatever path or quoting the binary has).
pub fn is_ours(command: &str) -> bool {
    let Some(at) = command.find(" hook ") else {
        return false;
    };
    let bin = command[..at].trim().trim_matches(['\'', '"']);
    let name = bin.rsplit('/').next().unwrap_or(bin);
    let sub = command[at + 6..].split_whitespace().next().unwrap_or("");
    name.starts_with("ccmem") && ENTRIES.iter().any(|(_, _, s)| *s == sub)
}

/// Plans an install: `before` is the file's text (`None` when it does not exist).
pub fn plan_install(before: Option<&str>, bin: &str) -> anyhow::Result<Change> {
    let mut root = parse(before.unwrap_or(""))?;
    let obj = root
        .as_object_mut()
        .context("settings file is not a JSON object")?;
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .context("`hooks` is not a JSON object")?;
    let mut changed = false;
    for (event, matcher, sub) in ENTRIES {
        let want = command(bin, sub);
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .with_context(|| format!("`hooks.{event}` is not a JSON array"))?;
        let mut found = false;
        for hook in groups.iter_mut().flat_map(group_hooks_mut) {
            if hook_command(hook).is_some_and(|c| is_ours(c) && c.contains(sub)) {
                found = true;
                if hook_command(hook) != Some(want.as_str()) {
                    hook["command"] = Value::String(want.clone());
                    changed = true;
                }
            }
        }
        if !found {
            let mut group = Map::new();
            if let Some(m) = matcher {
                group.insert("matcher".into(), Value::String(m.into()));
            }
            group.insert(
                "hooks".into(),
                json!([{ "type": "command", "command": want }]),
            );
            groups.push(Value::Object(group));
            changed = true;
        }
    }
    if !changed {
        return Ok(Change::Unchanged);
    }
    let had_hooks = parse(before.unwrap_or(""))?.get("hooks").is_some();
    if let Some(text) = before.filter(|_| !had_hooks)
        && let Some(spliced) = splice_hooks(text, &root)
    {
        return Ok(Change::Write(spliced));
    }
    Ok(Change::Write(render(&root, before)))
}

/// Plans an uninstall of `current` (`None`: no file), given the backup's bytes if there is one.
pub fn plan_uninstall(current: Option<&str>, backup: Option<&[u8]>) -> anyhow::Result<Change> {
    let Some(current) = current else {
        return Ok(Change::Unchanged);
    };
    let mut root = parse(current)?;
    if !remove_ours(&mut root) {
        return Ok(Change::Unchanged);
    }
    if let Some(bytes) = backup
        && let Ok(text) = std::str::from_utf8(bytes)
        && let Ok(mut original) = parse(text)
        && !remove_ours(&mut original)
        && without_empty_hooks(&original) == without_empty_hooks(&root)
    {
        return Ok(Change::RestoreBackup(bytes.to_vec()));
    }
    if backup.is_none() && without_empty_hooks(&root) == json!({}) {
        return Ok(Change::Delete);
    }
    Ok(Change::Write(render(&root, Some(current))))
}

/// True when the settings text holds any of ccmem's hooks.
pub fn has_ours(text: &str) -> bool {
    parse(text).is_ok_and(|mut v| remove_ours(&mut v))
}

/// Parses settings text; empty or blank text is an empty object.
fn parse(text: &str) -> anyhow::Result<Value> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "not valid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    if !v.is_object() {
        bail!("settings file is not a JSON object");
    }
    Ok(v)
}

fn group_hooks_mut(group: &mut Value) -> impl Iterator<Item = &mut Value> {
    group
        .get_mut("hooks")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

fn hook_command(hook: &Value) -> Option<&str> {
    hook.get("command").and_then(Value::as_str)
}

/// Removes ccmem's hooks; a group, event list or `hooks` object emptied by the removal goes too
/// (one that was already empty stays). Returns whether anything was removed.
fn remove_ours(root: &mut Value) -> bool {
    let Some(obj) = root.as_object_mut() else {
        return false;
    };
    let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut removed = false;
    hooks.retain(|_, groups| {
        let Some(list) = groups.as_array_mut() else {
            return true;
        };
        let mut removed_here = false;
        list.retain_mut(|group| {
            let Some(hs) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let n = hs.len();
            hs.retain(|h| !hook_command(h).is_some_and(is_ours));
            if hs.len() == n {
                return true;
            }
            removed_here = true;
            !hs.is_empty()
        });
        removed |= removed_here;
        !(removed_here && list.is_empty())
    });
    if removed && hooks.is_empty() {
        obj.shift_remove("hooks");
    }
    removed
}

/// The value with empty `hooks` event lists and an empty `hooks` object dropped (these carry no
/// meaning for the client), for comparing with a backup.
fn without_empty_hooks(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(obj) = v.as_object_mut()
        && let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut)
    {
        hooks.retain(|_, g| !g.as_array().is_some_and(Vec::is_empty));
        if hooks.is_empty() {
            obj.shift_remove("hooks");
        }
    }
    v
}

/// Serializes with the original's indentation (default two spaces) and final newline.
fn render(v: &Value, original: Option<&str>) -> String {
    let indent = original
        .and_then(detect_indent)
        .unwrap_or_else(|| "  ".to_owned());
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    // Serializing a Value into a Vec cannot fail.
    let _ = v.serialize(&mut ser);
    let mut text = String::from_utf8(out).unwrap_or_default();
    if original.is_none_or(|o| o.ends_with('\n') || o.trim().is_empty()) {
        text.push('\n');
    }
    text
}

/// For a file without `hooks`: the original text with `"hooks": …` inserted before its closing
/// brace, so the diff is only the added lines. `None` (re-serialize instead) when the result would
/// not parse back to exactly `want`.
fn splice_hooks(original: &str, want: &Value) -> Option<String> {
    let end = original.rfind('}')?;
    let head = original[..end].trim_end();
    let indent = detect_indent(original).unwrap_or_else(|| "  ".to_owned());
    let mut hooks = render(want.get("hooks")?, Some(original));
    hooks.truncate(hooks.trim_end().len());
    let hooks = hooks.replace('\n', &format!("\n{indent}"));
    let sep = if head.ends_with('{') { "" } else { "," };
    let text = format!(
        "{head}{sep}\n{indent}\"hooks\": {hooks}\n{}",
        &original[end..]
    );
    let back: Value = serde_json::from_str(&text).ok()?;
    (back == *want && back.as_object()?.keys().eq(want.as_object()?.keys())).then_some(text)
}

/// The indentation of the first indented line.
fn detect_indent(text: &str) -> Option<String> {
    text.lines().skip(1).find_map(|l| {
        let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        (!ws.is_empty() && ws.len() < l.len()).then_some(ws)
    })
}

/// A unified diff from `before` to `after` with file headers.
pub fn diff(path: &Path, before: &str, after: &str) -> String {
    let p = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{p} (before)"), &format!("{p} (after)"))
        .to_string()
}

/// The file a change is written to: the symlink's target when `path` is a symlink, so a linked
/// settings file stays linked.
pub fn write_target(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// The backup file of a settings file.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(BACKUP_SUFFIX);
    PathBuf::from(s)
}

/// Applies a change to `path`. `before` is the file's current bytes (kept as the backup when an
/// install rewrites an existing file that has none of ccmem's hooks).
pub fn apply(path: &Path, before: Option<&[u8]>, change: &Change) -> anyhow::Result<()> {
    let target = write_target(path);
    let backup = backup_path(&target);
    match change {
        Change::Unchanged => {}
        Change::Write(text) => {
            if let Some(old) = before
                && !std::str::from_utf8(old).is_ok_and(has_ours)
            {
                write_atomic(&backup, old)?;
            }
            write_atomic(&target, text.as_bytes())?;
        }
        Change::RestoreBackup(bytes) => {
            write_atomic(&target, bytes)?;
            std::fs::remove_file(&backup)
                .with_context(|| format!("cannot remove {}", backup.display()))?;
        }
        Change::Delete => {
            std::fs::remove_file(&target)
                .with_context(|| format!("cannot remove {}", target.display()))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder, then renames it.
fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut file = atomic_write_file::AtomicWriteFile::open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.commit())
        .with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests;
