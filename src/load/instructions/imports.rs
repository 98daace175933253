//! `@import` resolution (`Pt`) and the external-import approval (`hasClaudeMdExternalIncludesApproved`).
//!
//! An accepted `@path` (see [`crate::text::markdown::imports`]) is resolved by `Pt(path,
//! dirname(importer))` (`c2o`, chunk-2zq88577): trimmed; `~` is the home directory, `~/x` is
//! home-relative (never `~\x`), an absolute path is normalized, anything else is resolved
//! against the directory of the importer's RESOLVED (symlink target) path; the result goes
//! through `fn` (NFC on macOS). On Windows `path` is `path.win32`, and an MSYS path `/c/x`
//! becomes `C:\x` first (`F6`); the token itself ends at a `\` not followed by a space on
//! every platform, so `@C:\p\x.md` imports `C:` (nothing), while `@C:/p/x.md` loads
//! `C:\p\x.md`.
//!
//! An import is external when its path or its resolved target is not inside the start directory
//! (case-insensitive). User files and their chains may always import outside (unless the
//! entrypoint is `local-agent`); Managed, Project and Local chains only when the global config's
//! project entry has `hasClaudeMdExternalIncludesApproved: true`. The entry's key is the main git
//! repository root of the start directory when it is in a repository, else the start directory,
//! normalized (`hle`: on Windows with `/` for `\`, `C:/Users/me/p`).

use unicode_normalization::UnicodeNormalization;

use super::paths::{dirname, normalize};
use crate::env::ClientEnv;
use crate::platform::Platform;
use crate::text::{js, path};

/// Resolves an accepted import string against its importer's resolved path.
pub fn resolve(plat: Platform, raw: &str, importer_resolved: &str, home: &str) -> String {
    let resolved = resolve_raw(plat, js::trim(raw), importer_resolved, home);
    if plat.nfc_paths() && !resolved.is_ascii() {
        return resolved.nfc().collect();
    }
    resolved
}

fn resolve_raw(plat: Platform, p: &str, importer_resolved: &str, home: &str) -> String {
    if p == "~" {
        return home.to_owned();
    }
    if let Some(rest) = p.strip_prefix("~/") {
        return path::join(plat, &[home, rest]);
    }
    let msys = plat.is_windows() && {
        let b = p.as_bytes();
        b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b'/'
    };
    let p = if msys {
        path::from_msys(p)
    } else {
        p.to_owned()
    };
    if path::is_absolute(plat, &p) {
        return normalize(plat, &p);
    }
    let base = dirname(plat, importer_resolved);
    if !plat.is_windows() {
        return normalize(plat, &format!("{base}/{p}"));
    }
    // `path.win32.resolve(base, p)`: a drive-relative `D:x` is taken on its own drive (the
    // base's folder when it is the same drive, else that drive's root: a process has no other
    // folder there), and the result has no trailing separator but its root's.
    let b = p.as_bytes();
    let joined = if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        if base.len() >= 2 && base.as_bytes()[..2].eq_ignore_ascii_case(&b[..2]) {
            path::join(plat, &[&base, &p[2..]])
        } else {
            path::join(plat, &[&format!("{}\\", &p[..2]), &p[2..]])
        }
    } else {
        path::join(plat, &[&base, &p])
    };
    let root = path::win32::root_len(&joined);
    let trimmed = joined.trim_end_matches(['\\', '/']);
    if trimmed.len() < root {
        joined[..root].to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// The `projects` key of the global config (`hle`): the normalized path, with `/` on Windows.
pub fn approval_key(plat: Platform, root: &str) -> String {
    let key = path::normalize(plat, root);
    if plat.is_windows() {
        key.replace('\\', "/")
    } else {
        key
    }
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
        let key = approval_key(env.platform, &key.to_string_lossy());
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
        for plat in [Platform::Linux, Platform::Macos, Platform::Wsl] {
            let r = |raw| resolve(plat, raw, "/p/CLAUDE.md", "/h");
            assert_eq!(r("docs/a.md"), "/p/docs/a.md");
            assert_eq!(resolve(plat, "../x.md", "/p/q/CLAUDE.md", "/h"), "/p/x.md");
            assert_eq!(r("~/x.md"), "/h/x.md");
            assert_eq!(r("~"), "/h");
            assert_eq!(r("/a/./b.md"), "/a/b.md");
            assert_eq!(r("trail "), "/p/trail");
            assert_eq!(r("~\\x.md"), "/p/~\\x.md", "{plat}: `~\\` is a name");
        }
        // NFC on macOS only.
        let nfd = "cafe\u{301}.md";
        assert_eq!(
            resolve(Platform::Macos, nfd, "/p/CLAUDE.md", "/h"),
            "/p/caf\u{e9}.md"
        );
        assert_eq!(
            resolve(Platform::Linux, nfd, "/p/CLAUDE.md", "/h"),
            format!("/p/{nfd}")
        );
    }

    #[test]
    fn windows_resolution_follows_the_client() {
        let w = Platform::Windows;
        let r = |raw| resolve(w, raw, r"C:\Users\me\p\CLAUDE.md", r"C:\Users\me");
        assert_eq!(r("docs/a.md"), r"C:\Users\me\p\docs\a.md");
        assert_eq!(r("C:/Users/me/y.md"), r"C:\Users\me\y.md");
        assert_eq!(r("/c/Users/me/w.md"), r"C:\Users\me\w.md");
        assert_eq!(r("~/h.md"), r"C:\Users\me\h.md");
        assert_eq!(r("~"), r"C:\Users\me");
        assert_eq!(r("/tmp/x.md"), r"\tmp\x.md");
        assert_eq!(r("~\\h.md"), r"C:\Users\me\p\~\h.md");
    }

    #[test]
    fn approval_keys_by_platform() {
        assert_eq!(approval_key(Platform::Linux, "/r/./p"), "/r/p");
        assert_eq!(
            approval_key(Platform::Windows, r"C:\Users\me\p"),
            "C:/Users/me/p"
        );
    }

    #[test]
    fn line_is_one_based() {
        assert_eq!(line_of("a\nb @x", 4), 2);
        assert_eq!(line_of("@x", 0), 1);
    }

    #[test]
    fn approval_key_is_the_git_root_and_false_is_not_approved() {
        let t = tempfile::tempdir().unwrap();
        // The real path as the client has it (Windows: without the `\\?\` canonicalize adds).
        let real = t.path().canonicalize().unwrap();
        let root =
            PathBuf::from(crate::text::path::strip_verbatim(&real.to_string_lossy()).as_ref());
        let sub = root.join("r").join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(root.join("r").join(".git")).unwrap();
        let vars: BTreeMap<String, String> =
            [("HOME".to_string(), root.to_string_lossy().into_owned())].into();
        let env = ClientEnv::new(sub.clone(), vars.clone(), Default::default());
        // The keys as the client writes them (Windows: `C:/…`).
        let key = |p: &std::path::Path| approval_key(env.platform, &p.to_string_lossy());
        let r = key(&root.join("r"));
        let cfg = serde_json::json!({"projects": {
            r.clone(): {"hasClaudeMdExternalIncludesApproved": true},
            key(&sub): {"hasClaudeMdExternalIncludesApproved": false}}});
        std::fs::write(root.join(".claude.json"), cfg.to_string()).unwrap();
        crate::load::memo::reset();
        let a = Approval::read(&env);
        assert_eq!(a.key, r);
        assert!(a.approved);
        std::fs::remove_dir(root.join("r").join(".git")).unwrap();
        crate::load::memo::reset(); // a new load
        let env = ClientEnv::new(PathBuf::from(&sub), vars, Default::default());
        assert!(!Approval::read(&env).approved);
    }
}
