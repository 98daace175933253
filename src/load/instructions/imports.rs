//! `@import` resolution (`Pt`) and the external-import approval (`hasClaudeMdExternalIncludesApproved`).
//!
//! An accepted `@path` (see [`crate::text::markdown::imports`]) is trimmed; `~` is the home
//! directory, `~/x` is home-relative, an absolute path is normalized, anything else is resolved
//! against the directory of the importer's RESOLVED (symlink target) path.
//!
//! An import is external when its path or its resolved target is not inside the start directory
//! (case-insensitive). User files and their chains may always import outside (unless the
//! entrypoint is `local-agent`); Managed, Project and Local chains only when the global config's
//! project entry has `hasClaudeMdExternalIncludesApproved: true`. The entry's key is the main git
//! repository root of the start directory when it is in a repository, else the start directory.

use super::paths::{dirname, normalize};
use crate::env::ClientEnv;
use crate::text::js;

/// Resolves an accepted import string against its importer's resolved path.
pub fn resolve(raw: &str, importer_resolved: &str, home: &str) -> String {
    let p = js::trim(raw);
    if p == "~" {
        return normalize(home);
    }
    if let Some(rest) = p.strip_prefix("~/") {
        return normalize(&format!("{home}/{rest}"));
    }
    if p.starts_with('/') {
        return normalize(p);
    }
    normalize(&format!("{}/{p}", dirname(importer_resolved)))
}

/// The external-import approval state of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// The `projects` key looked up in the global config.
    pub key: String,
    /// The global config file read.
    pub config: String,
    /// Whether `hasClaudeMdExternalIncludesApproved` is `true` there.
    pub approved: bool,
}

impl Approval {
    /// Reads the flag for this environment.
    pub fn read(env: &ClientEnv) -> Self {
        let key = match crate::load::memo::git_roots(&env.cwd) {
            Some((_, main)) => main,
            None => env.cwd.clone(),
        };
        let key = normalize(&key.to_string_lossy());
        let config = env.global_config_path();
        let approved = crate::fsread::read_regular(&config, 64 * 1024 * 1024)
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|v| {
                v.get("projects")?
                    .get(&key)?
                    .get("hasClaudeMdExternalIncludesApproved")?
                    .as_bool()
            })
            .unwrap_or(false);
        Approval {
            key,
            config: config.to_string_lossy().into_owned(),
            approved,
        }
    }
}

pub use crate::text::line_of;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    #[test]
    fn resolution_follows_the_client() {
        assert_eq!(resolve("docs/a.md", "/p/CLAUDE.md", "/h"), "/p/docs/a.md");
        assert_eq!(resolve("../x.md", "/p/q/CLAUDE.md", "/h"), "/p/x.md");
        assert_eq!(resolve("~/x.md", "/p/CLAUDE.md", "/h"), "/h/x.md");
        assert_eq!(resolve("~", "/p/CLAUDE.md", "/h"), "/h");
        assert_eq!(resolve("/a/./b.md", "/p/CLAUDE.md", "/h"), "/a/b.md");
        assert_eq!(resolve("trail ", "/p/CLAUDE.md", "/h"), "/p/trail");
    }

    #[test]
    fn line_is_one_based() {
        assert_eq!(line_of("a\nb @x", 4), 2);
        assert_eq!(line_of("@x", 0), 1);
    }

    #[test]
    fn approval_key_is_the_git_root_and_false_is_not_approved() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let sub = root.join("r/sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(root.join("r/.git")).unwrap();
        let r = root.join("r").to_string_lossy().into_owned();
        let cfg = serde_json::json!({"projects": {
            r.clone(): {"hasClaudeMdExternalIncludesApproved": true},
            sub.to_string_lossy(): {"hasClaudeMdExternalIncludesApproved": false}}});
        std::fs::write(root.join(".claude.json"), cfg.to_string()).unwrap();
        let vars: BTreeMap<String, String> =
            [("HOME".to_string(), root.to_string_lossy().into_owned())].into();
        let env = ClientEnv::new(sub.clone(), vars.clone(), Default::default());
        crate::load::memo::reset();
        let a = Approval::read(&env);
        assert_eq!(a.key, r);
        assert!(a.approved);
        std::fs::remove_dir(root.join("r/.git")).unwrap();
        crate::load::memo::reset(); // a new load
        let env = ClientEnv::new(PathBuf::from(&sub), vars, Default::default());
        assert!(!Approval::read(&env).approved);
    }
}
