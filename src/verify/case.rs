//! A conformance case on disk, and materializing it the way the oracle's `capture.py` does.
//!
//! A case folder holds `tree/` (copied to a fresh root folder ROOT, symlinks kept), an optional
//! `case.json` (`cwd`, `env` with `{ROOT}`, a `setup` shell script run with `bash -ec` in ROOT,
//! client `args`, and for reading cases `read`), and `expected.txt` (the client's reminder with
//! ROOT written `{ROOT}` and its slug `{ROOT_SLUG}`).
//!
//! The environment of a materialized case is this process's environment without any
//! `CLAUDE*`/`ANTHROPIC*` variable, with `HOME=ROOT/home`, `ROOT=ROOT`,
//! `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_AUTOUPDATER=1`, then the case's `env`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::env::ClientFlags;

/// `case.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Spec {
    /// The start directory, relative to ROOT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Extra environment (`{ROOT}` is replaced).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// A shell script run in ROOT before the client starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<String>,
    /// Client flags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Reading cases: the path(s) the client reads during the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<serde_json::Value>,
}

impl Spec {
    /// Reads `CASE/case.json` (absent means the default spec).
    pub fn load(case: &Path) -> anyhow::Result<Spec> {
        let path = case.join("case.json");
        match crate::fsread::read_capped(&path, 1 << 20) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display())),
            Err(crate::fsread::Unread::Missing) => Ok(Spec::default()),
            Err(e) => Err(anyhow::anyhow!("{}: {e}", path.display())),
        }
    }
}

/// A case copied to a fresh root; the root is deleted when this is dropped.
#[derive(Debug)]
pub struct Materialized {
    /// ROOT, as a real path.
    pub root: PathBuf,
    /// ROOT joined with the case's `cwd`, as a real path.
    pub cwd: PathBuf,
    /// The environment the client starts with (before isolation).
    pub vars: BTreeMap<String, String>,
    /// The case's client flags.
    pub args: Vec<String>,
    _dir: tempfile::TempDir,
}

/// Copies `CASE/tree` to a fresh ROOT, builds its environment (`host`, ccmem's own, without the
/// client's and the API's variables, plus the case's) and runs its setup.
#[allow(
    clippy::disallowed_methods,
    reason = "makes the home folder of the scratch folder ccmem just created, not a user's folder"
)]
pub fn materialize(
    case: &Path,
    spec: &Spec,
    host: &BTreeMap<String, String>,
) -> anyhow::Result<Materialized> {
    let base = host
        .get("TMPDIR")
        .map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = tempfile::Builder::new()
        .prefix("ccverify")
        .tempdir_in(base)?;
    let root = dir.path().canonicalize()?;
    let tree = case.join("tree");
    if tree.is_dir() {
        copy_tree(&tree, &root)?;
    }
    std::fs::create_dir_all(root.join("home"))?;
    let root_s = root.to_string_lossy().into_owned();
    let mut vars: BTreeMap<String, String> = host
        .iter()
        .filter(|(k, _)| !k.starts_with("CLAUDE") && !k.starts_with("ANTHROPIC"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in [
        ("HOME", format!("{root_s}/home")),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
        ("ROOT", root_s.clone()),
    ] {
        vars.insert(k.to_owned(), v);
    }
    for (k, v) in &spec.env {
        vars.insert(k.clone(), v.replace("{ROOT}", &root_s));
    }
    if let Some(script) = &spec.setup {
        let status = Command::new("bash")
            .args(["-ec", script])
            .current_dir(&root)
            .env_clear()
            .envs(&vars)
            .status()?;
        anyhow::ensure!(
            status.success(),
            "{}: setup failed ({status})",
            case.display()
        );
    }
    let cwd = root.join(spec.cwd.as_deref().unwrap_or("."));
    let cwd = cwd
        .canonicalize()
        .map_err(|e| anyhow::anyhow!("{}: cwd {}: {e}", case.display(), cwd.display()))?;
    Ok(Materialized {
        root,
        cwd,
        vars,
        args: spec.args.clone(),
        _dir: dir,
    })
}

/// Copies a folder recursively, keeping symlinks as symlinks.
#[allow(
    clippy::disallowed_methods,
    reason = "copies a recorded case into a scratch folder to run the client in, not a user's file"
)]
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            symlink(&std::fs::read_link(&src)?, &dst)?;
        } else if kind.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// A symbolic link at `link` to `target`, as the recorded case has it (Windows: a file link;
/// recorded cases link files, and making one there needs developer mode or the privilege).
#[allow(
    clippy::disallowed_methods,
    reason = "copies a recorded case into a scratch folder to run the client in, not a user's file"
)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(windows)]
    return std::os::windows::fs::symlink_file(target, link);
}

/// The client flags ccmem models, parsed from client arguments (`--flag V` or `--flag=V`);
/// an argument it does not model is an error, since the prediction could not follow it.
pub fn parse_flags(args: &[String]) -> anyhow::Result<ClientFlags> {
    let mut flags = ClientFlags::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| anyhow::anyhow!("{name} needs a value"))
        };
        match name {
            "--add-dir" => flags.add_dirs.push(value()?),
            "--settings" => flags.settings = Some(value()?),
            "--setting-sources" => flags.setting_sources = Some(value()?),
            "--bare" => flags.bare = true,
            "--safe-mode" => flags.safe_mode = true,
            other => anyhow::bail!("client flag {other} is not modelled by ccmem"),
        }
    }
    Ok(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_modelled_flags() {
        let f = parse_flags(&strings(&[
            "--bare",
            "--add-dir",
            "../x",
            "--add-dir=y",
            "--settings",
            "{}",
            "--setting-sources=user",
        ]))
        .unwrap();
        assert!(f.bare && !f.safe_mode);
        assert_eq!(f.add_dirs, ["../x", "y"]);
        assert_eq!(f.settings.as_deref(), Some("{}"));
        assert_eq!(f.setting_sources.as_deref(), Some("user"));
        assert!(parse_flags(&strings(&["--model", "x"])).is_err());
        assert!(parse_flags(&strings(&["--add-dir"])).is_err());
    }

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn materializes_tree_env_and_setup() {
        let case = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(case.path().join("tree/p")).unwrap();
        std::fs::write(case.path().join("tree/p/CLAUDE.md"), "x").unwrap();
        std::os::unix::fs::symlink("p/CLAUDE.md", case.path().join("tree/link")).unwrap();
        let spec = Spec {
            cwd: Some("p".into()),
            env: [("K".to_owned(), "{ROOT}/k".to_owned())].into(),
            setup: Some("echo made > made.txt".into()),
            ..Spec::default()
        };
        let host = crate::env::ProcessEnv::read().vars().clone();
        let m = materialize(case.path(), &spec, &host).unwrap();
        let root = m.root.to_string_lossy().into_owned();
        assert_eq!(m.cwd, m.root.join("p"));
        assert_eq!(m.vars["HOME"], format!("{root}/home"));
        assert_eq!(m.vars["K"], format!("{root}/k"));
        assert!(!m.vars.keys().any(|k| k.starts_with("ANTHROPIC")));
        assert_eq!(
            std::fs::read_to_string(m.root.join("made.txt")).unwrap(),
            "made\n"
        );
        assert!(
            std::fs::symlink_metadata(m.root.join("link"))
                .unwrap()
                .is_symlink()
        );
        let kept = m.root.clone();
        drop(m);
        assert!(!kept.exists(), "root is removed on drop");
    }
}
