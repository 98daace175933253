//! Which program the installed hooks run: always an absolute path unless `--bin` names another.
//! When `ccmem` on PATH is this very binary, the PATH entry's own path (`~/.cargo/bin/ccmem`, an
//! npm bin link: it survives a reinstall); else the running binary's. Never the bare name: the
//! client may run hooks with another PATH than the shell that installed them (an IDE, a desktop
//! launcher), and a hook the shell cannot find fails every session with exit 127 while the
//! operator never sees why. A warning when the command would not resolve.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The program the hooks will run, and what the user should know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// As written into the command.
    pub bin: String,
    /// Why this one (for the summary).
    pub why: String,
    /// Set when the hooks would fail to start.
    pub warning: Option<String>,
}

/// Decides the hooks' program. `given`: `--bin`; `exe`: the running binary; `path`: `$PATH`.
pub(crate) fn resolve_bin(given: Option<&str>, exe: Option<&Path>, path: Option<&str>) -> Resolved {
    let on_path = |name: &str| -> Option<PathBuf> {
        std::env::split_paths(path.unwrap_or(""))
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| d.join(name))
            .find(|p| is_executable(p))
    };
    if let Some(bin) = given {
        let warning = if bin.contains('/') {
            let p = Path::new(bin);
            if !p.is_absolute() {
                Some(format!(
                    "`{bin}` is a relative path: the client runs hooks from the session's \
                     directory, where it will not resolve; pass an absolute path"
                ))
            } else if !is_executable(p) {
                Some(format!(
                    "{bin} is not an executable file: every hook would fail (exit 127)"
                ))
            } else {
                None
            }
        } else if on_path(bin).is_none() {
            Some(format!(
                "`{bin}` is not on PATH: every hook would fail with `{bin}: not found` (exit \
                 127); pass --bin with an absolute path, or put {bin} on PATH"
            ))
        } else {
            None
        };
        return Resolved {
            bin: bin.to_owned(),
            why: "--bin".into(),
            warning,
        };
    }
    let Some(exe) = exe else {
        return Resolved {
            bin: "ccmem".into(),
            why: "the running binary's path is unknown".into(),
            warning: on_path("ccmem").is_none().then(|| {
                "`ccmem` is not on PATH and the running binary's path is unknown: pass --bin"
                    .to_owned()
            }),
        };
    };
    if let Some(found) = on_path("ccmem")
        && same_file(&found, exe)
    {
        return Resolved {
            bin: found.to_string_lossy().into_owned(),
            why: "`ccmem` on PATH is this binary; its absolute path, since the client may run \
                  hooks with another PATH"
                .into(),
            warning: None,
        };
    }
    Resolved {
        bin: exe.to_string_lossy().into_owned(),
        why: match on_path("ccmem") {
            Some(other) => format!(
                "the running binary; `ccmem` on PATH is another one: {}",
                other.display()
            ),
            None => "the running binary; `ccmem` is not on PATH".into(),
        },
        warning: None,
    }
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe_in(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn every_path_situation() {
        let d = tempfile::tempdir().unwrap();
        let (bin, other) = (d.path().join("bin"), d.path().join("other"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let exe = exe_in(&d.path().join(""), "ccmem-build");
        // Not on PATH: the absolute path of the running binary.
        let r = resolve_bin(None, Some(&exe), Some(other.to_str().unwrap()));
        assert_eq!(r.bin, exe.to_string_lossy());
        assert!(r.warning.is_none());
        // On PATH as a link to this very binary: the link's absolute path, never the bare name
        // (the client may run hooks with another PATH).
        std::os::unix::fs::symlink(&exe, bin.join("ccmem")).unwrap();
        let path = format!("{}:{}", other.display(), bin.display());
        let r = resolve_bin(None, Some(&exe), Some(&path));
        assert_eq!(r.bin, bin.join("ccmem").to_string_lossy(), "{r:?}");
        // Another ccmem on PATH: still this binary, by path, and the summary says why.
        let elsewhere = exe_in(&other, "ccmem");
        let r = resolve_bin(None, Some(&exe), Some(&path));
        assert_eq!(r.bin, exe.to_string_lossy());
        assert!(r.why.contains(&elsewhere.display().to_string()), "{r:?}");
        // --bin: as given, with a warning when it would not resolve.
        assert!(
            resolve_bin(Some("ccmem"), Some(&exe), Some(&path))
                .warning
                .is_none()
        );
        let w = resolve_bin(Some("ccmem"), Some(&exe), Some("/nonexistent"))
            .warning
            .unwrap();
        assert!(w.contains("not on PATH") && w.contains("127"), "{w}");
        let w = resolve_bin(Some("/no/such/ccmem"), Some(&exe), None)
            .warning
            .unwrap();
        assert!(w.contains("not an executable file"), "{w}");
        let w = resolve_bin(Some("target/debug/ccmem"), Some(&exe), None)
            .warning
            .unwrap();
        assert!(w.contains("relative path"), "{w}");
    }
}
