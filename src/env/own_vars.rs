//! ccmem's own variables (`CCMEM_*`) come from the process environment only, never from a
//! settings file's `env`.
//!
//! The client exports every settings layer's `env` into the processes it starts: hooks, the
//! status line, the model's Bash tool. A repository's `.claude/settings.json` (or a
//! `settings.local.json` it ships) is thereby able to set `CCMEM_PLATFORM=windows` (ccmem then
//! writes `./\tmp\…` files) or `CCMEM_MANAGED_DIR=~/.ssh` (ccmem then reads and reports another
//! folder as managed policy) in every ccmem run of every session. So a `CCMEM_*` variable whose
//! value is the one a settings file the client reads would give it is dropped, and said so: the
//! client put it there, not the user. One the user exported with another value is kept (the
//! client would have replaced it, so ccmem was not started by it).
//!
//! Only done when a `CCMEM_*` variable is set at all (ordinary runs read no file here). The
//! files looked at: `.claude/settings.json` and `.claude/settings.local.json` in the working
//! directory and each of its ancestors (the project a session may run in), and the user's
//! `settings.json` in the config folder; each read as a regular file of at most
//! [`MAX_SETTINGS_BYTES`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::constants::{CLAUDE_DIR, MAX_SETTINGS_BYTES};

/// The prefix of ccmem's own variables.
pub(super) const OWN_PREFIX: &str = "CCMEM_";

/// A variable dropped because a settings file's `env` set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The variable.
    pub name: String,
    /// The settings file whose `env` gives it that value.
    pub file: PathBuf,
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ignoring {}: its value comes from the `env` of {} (only the process environment \
             may set ccmem's own variables)",
            self.name,
            self.file.display()
        )
    }
}

/// Removes from `vars` every `CCMEM_*` variable a settings file's `env` gives its value.
pub(super) fn drop_settings_set(
    vars: &mut BTreeMap<String, String>,
    cwd: Option<&Path>,
) -> Vec<Dropped> {
    if !vars.keys().any(|k| k.starts_with(OWN_PREFIX)) {
        return Vec::new();
    }
    let mut files = Vec::new();
    if let Some(cwd) = cwd {
        for dir in cwd.ancestors() {
            let claude = dir.join(CLAUDE_DIR);
            files.push(claude.join("settings.json"));
            files.push(claude.join("settings.local.json"));
        }
    }
    let config = match vars.get("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => vars.get("HOME").map(|h| Path::new(h).join(CLAUDE_DIR)),
    };
    files.extend(config.map(|c| c.join("settings.json")));
    let mut dropped = Vec::new();
    for file in files {
        let Some(bytes) = read_small(&file) else {
            continue;
        };
        for (name, value) in own_env_of(&bytes) {
            if vars
                .get(&name)
                .is_some_and(|v| value.as_deref().is_none_or(|s| s == v))
            {
                vars.remove(&name);
                dropped.push(Dropped {
                    name,
                    file: file.clone(),
                });
            }
        }
    }
    dropped
}

/// A regular file of at most [`MAX_SETTINGS_BYTES`] (`env` is below `fsread` in the layering,
/// so the few lines are here).
fn read_small(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SETTINGS_BYTES {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_SETTINGS_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The `CCMEM_*` entries of a settings file's `env`, each with the string the client exports
/// (`None`: unknown, the file is not JSON the way serde reads it but names the variable).
fn own_env_of(bytes: &[u8]) -> Vec<(String, Option<String>)> {
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(default)]
        env: Option<serde_json::Map<String, serde_json::Value>>,
    }
    match serde_json::from_slice::<Doc>(bytes) {
        Ok(doc) => (doc.env.into_iter().flatten())
            .filter(|(k, _)| k.starts_with(OWN_PREFIX))
            .map(|(k, v)| {
                let s = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, Some(s))
            })
            .collect(),
        // Not plain JSON (the client reads some such files leniently): any `"CCMEM_…"` it
        // names counts, whatever value.
        Err(_) => {
            let text = String::from_utf8_lossy(bytes);
            let mut out = Vec::new();
            for (at, _) in text.match_indices(&format!("\"{OWN_PREFIX}")) {
                let name: String = text[at + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.push((name, None));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_settings_env_sets_no_own_variable() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let sub = repo.join("pkg/api");
        std::fs::create_dir_all(repo.join(".claude")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            repo.join(".claude/settings.json"),
            r#"{"env": {"CCMEM_PLATFORM": "windows", "CCMEM_MANAGED_DIR": "/root/.ssh",
                "NODE_ENV": "development"}, "permissions": {"allow": ["Bash(npm test)"]}}"#,
        )
        .unwrap();
        let mut vars: BTreeMap<String, String> = [
            ("CCMEM_PLATFORM", "windows"),
            ("CCMEM_MANAGED_DIR", "/etc/claude-code"),
            ("CCMEM_NOW", "2026-01-01T00:00:00Z"),
            ("NODE_ENV", "development"),
            ("HOME", "/nonexistent"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let dropped = drop_settings_set(&mut vars, Some(&sub));
        // The platform came from the file (same value): dropped. The managed folder the user
        // exported differs from the file's: kept. Others untouched.
        assert_eq!(dropped.len(), 1, "{dropped:?}");
        assert_eq!(dropped[0].name, "CCMEM_PLATFORM");
        assert_eq!(dropped[0].file, repo.join(".claude/settings.json"));
        assert!(!vars.contains_key("CCMEM_PLATFORM"));
        assert_eq!(vars["CCMEM_MANAGED_DIR"], "/etc/claude-code");
        assert!(vars.contains_key("CCMEM_NOW") && vars.contains_key("NODE_ENV"));
        // A local settings file that is not plain JSON still names the variable.
        std::fs::write(
            repo.join(".claude/settings.local.json"),
            "{\"env\": {\"CCMEM_MANAGED_DIR\": \"/etc/claude-code\",}}",
        )
        .unwrap();
        let dropped = drop_settings_set(&mut vars, Some(&sub));
        assert_eq!(dropped.len(), 1, "{dropped:?}");
        assert!(!vars.contains_key("CCMEM_MANAGED_DIR"));
        assert!(dropped[0].to_string().contains("settings.local.json"));
    }
}
