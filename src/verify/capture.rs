//! `ccmem verify --capture CASE_DIR`: write a conformance case from the real client, in the
//! layout of the oracle's `cases/` (see [`super::case`]).
//!
//! - When `CASE_DIR/tree/` or `CASE_DIR/case.json` exists, the case is **re-captured**: its `tree/` and `case.json` are
//!   kept, it is materialized and run through the client, and `expected.txt` is rewritten. This
//!   is how the project regenerates its corpus for a new client version.
//! - Otherwise a **new case** is made from the current directory. ROOT is the git root of the
//!   current directory (the directory itself outside git). What is copied into `tree/`, paths
//!   kept relative to ROOT ([`select`]):
//!   1. every `CLAUDE.md`, `CLAUDE.local.md` and `AGENTS.md` below ROOT;
//!   2. every `.claude/CLAUDE.md` and every file below a `.claude/rules/` folder;
//!   3. every `.claude/settings.json` and `.claude/settings.local.json`, with the keys that can
//!      hold secrets or run commands removed (`env`, `apiKeyHelper`, `awsAuthRefresh`,
//!      `awsCredentialExport`, `otelHeadersHelper`, `hooks`, `statusLine`); one that is not a
//!      JSON object is not copied;
//!   4. every file under ROOT that a copied file names as `@path` (any whitespace-separated
//!      token starting with `@`, relative to the naming file, or absolute under ROOT): a
//!      deliberate superset of the client's import rule, followed 5 levels deep.
//!
//!   The walk does not enter `.git`, `node_modules`, `target`, hidden folders other than
//!   `.claude`, or symlinked folders; a symlinked file is copied as its content; files over
//!   1 MiB are left out. Nothing from the user's home is copied: `tree/home/` is created empty,
//!   so the case is the project's memory alone. `case.json` records `cwd` (relative to ROOT),
//!   the client flags, the memory switches set in the environment ([`MEMORY_VARS`]), and a
//!   `setup` that makes the folders git would not keep empty: the cwd, and `.git/` when ROOT is
//!   a git root (so the case keeps the git-root semantics of auto memory).
#![allow(
    clippy::disallowed_methods,
    reason = "capture writes the case folders a developer records (case.json, expected.txt, tree/), never a user's memory"
)]

use crate::constants::{
    AGENTS_MD, CLAUDE_DIR, CLAUDE_LOCAL_MD, CLAUDE_MD, LOCAL_SETTINGS_FILE, RULES_DIR,
    SETTINGS_FILE,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::case::Spec;
use super::replay;

/// Environment switches that change what loads and are recorded in a new case.
pub const MEMORY_VARS: [&str; 5] = [
    "CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY",
    "CLAUDE_CODE_DISABLE_CLAUDE_MDS",
    "CLAUDE_CODE_SAFE_MODE",
    "CLAUDE_CODE_SIMPLE",
];

const SECRET_KEYS: [&str; 7] = [
    "env",
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "otelHeadersHelper",
    "hooks",
    "statusLine",
];
const MAX_FILE_BYTES: u64 = 1024 * 1024;
const IMPORT_DEPTH: usize = 5;

/// What a capture did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Written {
    /// The case folder.
    pub case: PathBuf,
    /// Files copied into a new `tree/` (0 when re-capturing).
    pub copied: usize,
    /// True when the case already existed (tree/ or case.json).
    pub recaptured: bool,
    /// The text written to `expected.txt`.
    pub expected: String,
    /// What ccmem predicts for the case (normalized), for comparison.
    pub predicted: String,
}

/// Writes (or re-captures) the case at `case_dir`.
pub fn capture(
    case_dir: &Path,
    cwd: &Path,
    args: &[String],
    vars: &BTreeMap<String, String>,
    bin: Option<&str>,
    timeout: Duration,
) -> anyhow::Result<Written> {
    let recaptured = case_dir.join("tree").is_dir() || case_dir.join("case.json").is_file();
    let mut copied = 0;
    if !recaptured {
        let root = crate::load::git::git_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
        let files = select(&root);
        let tree = case_dir.join("tree");
        std::fs::create_dir_all(tree.join("home"))?;
        for rel in &files {
            copy_one(&root.join(rel), &tree.join(rel))
                .map_err(|e| anyhow::anyhow!("{}: {e}", root.join(rel).display()))?;
        }
        copied = files.len();
        let rel_cwd = cwd.strip_prefix(&root).unwrap_or(Path::new(""));
        let spec = Spec {
            setup: setup_script(&root, rel_cwd),
            // `/`-separated as every case is, whichever host recorded it.
            cwd: (!rel_cwd.as_os_str().is_empty()).then(|| slash(rel_cwd)),
            env: MEMORY_VARS
                .iter()
                .filter_map(|k| Some((k.to_string(), vars.get(*k)?.clone())))
                .collect(),
            args: args.to_vec(),
            ..Spec::default()
        };
        std::fs::write(
            case_dir.join("case.json"),
            serde_json::to_string_pretty(&spec)? + "\n",
        )?;
    }
    let spec = Spec::load(case_dir)?;
    let run = replay::run_case(case_dir, &spec, bin, timeout, vars)?;
    std::fs::write(case_dir.join("expected.txt"), &run.client)?;
    Ok(Written {
        case: case_dir.to_path_buf(),
        copied,
        recaptured,
        expected: run.client,
        predicted: run.predicted,
    })
}

/// Folders a case needs that git would not keep when empty: the cwd, and `.git/` when ROOT is
/// a git root (an empty `.git/` makes the client treat ROOT as one). Made by `case.json`'s
/// `setup`, as the oracle's cases do.
fn setup_script(root: &Path, rel_cwd: &Path) -> Option<String> {
    let mut dirs = Vec::new();
    if root.join(".git").exists() {
        dirs.push(".git".to_owned());
    }
    if !rel_cwd.as_os_str().is_empty() {
        dirs.push(rel_cwd.to_string_lossy().into_owned());
    }
    let quoted: Vec<String> = dirs
        .iter()
        .map(|d| format!("'{}'", d.replace('\'', r"'\''")))
        .collect();
    (!dirs.is_empty()).then(|| format!("mkdir -p {}", quoted.join(" ")))
}

/// The files of a new case's `tree/`, relative to `root`, per the module rules.
pub fn select(root: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    walk(root, root, &mut found, 0);
    let mut frontier: Vec<PathBuf> = found.iter().cloned().collect();
    for _ in 0..IMPORT_DEPTH {
        let mut next = Vec::new();
        for rel in &frontier {
            for target in at_tokens(root, rel) {
                if found.insert(target.clone()) {
                    next.push(target);
                }
            }
        }
        frontier = next;
    }
    found
}

fn walk(root: &Path, dir: &Path, found: &mut BTreeSet<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            let skip = matches!(name.as_str(), ".git" | "node_modules" | "target")
                || (name.starts_with('.') && name != CLAUDE_DIR);
            if !skip && depth < 40 {
                walk(root, &path, found, depth + 1);
            }
        } else if wanted(root, &path, &name)
            && small_file(&path)
            && let Ok(rel) = path.strip_prefix(root)
        {
            found.insert(rel.to_path_buf());
        }
    }
}

fn wanted(root: &Path, path: &Path, name: &str) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let parent = parts.len().checked_sub(2).map(|i| parts[i].as_str());
    matches!(name, CLAUDE_MD | CLAUDE_LOCAL_MD | AGENTS_MD)
        || (parent == Some(CLAUDE_DIR) && matches!(name, SETTINGS_FILE | LOCAL_SETTINGS_FILE))
        || parts
            .windows(2)
            .any(|w| w[0] == CLAUDE_DIR && w[1] == RULES_DIR)
}

fn small_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_FILE_BYTES)
}

/// Files under `root` named by `@token`s in `rel`.
fn at_tokens(root: &Path, rel: &Path) -> Vec<PathBuf> {
    let Ok(bytes) = crate::fsread::read_capped(&root.join(rel), MAX_FILE_BYTES) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let base = root
        .join(rel)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    text.split_whitespace()
        .filter_map(|t| t.strip_prefix('@'))
        .filter(|t| !t.is_empty() && !t.starts_with('~'))
        .filter_map(|t| {
            let p = crate::load::git::normalize(&base.join(t));
            let rel = p.strip_prefix(root).ok()?.to_path_buf();
            small_file(&p).then_some(rel)
        })
        .collect()
}

fn copy_one(src: &Path, dst: &Path) -> std::io::Result<()> {
    if let Some(parent) = dst.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let name = src.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let bytes = crate::fsread::read_regular(src, MAX_FILE_BYTES)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    if name.starts_with("settings") && name.ends_with(".json") {
        if let Ok(serde_json::Value::Object(mut map)) = serde_json::from_slice(&bytes) {
            for k in SECRET_KEYS {
                map.remove(k);
            }
            return std::fs::write(dst, serde_json::to_string_pretty(&map)? + "\n");
        }
        return Ok(());
    }
    std::fs::write(dst, bytes)
}

/// A relative path with its parts joined by `/` (Windows gives `a\b`).
fn slash(rel: &Path) -> String {
    rel.iter()
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn selects_memory_files_imports_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        put(r, "CLAUDE.md", "see @docs/a.md and @~/x and @/etc/passwd");
        put(r, "docs/a.md", "then @b.md");
        put(r, "docs/b.md", "leaf");
        put(r, "docs/unrelated.md", "no");
        put(r, "sub/AGENTS.md", "a");
        put(r, ".claude/rules/x/r.md", "r");
        put(r, ".claude/settings.json", "{}");
        put(r, ".claude/agents/z.md", "no");
        put(r, ".git/CLAUDE.md", "no");
        put(r, "node_modules/p/CLAUDE.md", "no");
        put(r, ".hidden/CLAUDE.md", "no");
        let got: Vec<String> = select(r).iter().map(|p| slash(p)).collect();
        assert_eq!(
            got,
            [
                ".claude/rules/x/r.md",
                ".claude/settings.json",
                "CLAUDE.md",
                "docs/a.md",
                "docs/b.md",
                "sub/AGENTS.md"
            ]
        );
    }

    #[test]
    fn setup_makes_cwd_and_git_marker() {
        let t = tempfile::tempdir().unwrap();
        assert_eq!(setup_script(t.path(), Path::new("")), None);
        assert_eq!(
            setup_script(t.path(), Path::new("it's/sub")).as_deref(),
            Some(r"mkdir -p 'it'\''s/sub'")
        );
        std::fs::create_dir(t.path().join(".git")).unwrap();
        assert_eq!(
            setup_script(t.path(), Path::new("")).as_deref(),
            Some("mkdir -p '.git'")
        );
    }

    #[test]
    fn settings_lose_secret_keys_and_invalid_ones_are_dropped() {
        let t = tempfile::tempdir().unwrap();
        put(
            t.path(),
            "s/settings.json",
            r#"{"apiKeyHelper": "x", "env": {"ANTHROPIC_API_KEY": "sk"}, "claudeMdExcludes": ["a"]}"#,
        );
        put(t.path(), "s/settings.local.json", "not json sk-secret");
        copy_one(
            &t.path().join("s/settings.json"),
            &t.path().join("o/settings.json"),
        )
        .unwrap();
        copy_one(
            &t.path().join("s/settings.local.json"),
            &t.path().join("o/settings.local.json"),
        )
        .unwrap();
        let out = std::fs::read_to_string(t.path().join("o/settings.json")).unwrap();
        assert!(
            out.contains("claudeMdExcludes")
                && !out.contains("sk")
                && !out.contains("apiKeyHelper")
        );
        assert!(!t.path().join("o/settings.local.json").exists());
    }
}
