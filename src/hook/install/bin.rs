//! Which program the installed hooks run: always an absolute path. When `ccmem` on PATH is this
//! very binary, the PATH entry's own path (`~/.cargo/bin/ccmem`, an npm bin link: it survives a
//! reinstall); else the running binary's real path. Never the bare name and never a relative
//! path: the client runs hooks from the session's directory, often a repository just cloned, and
//! with whatever PATH it has (an IDE, a desktop launcher), so `bin/ccmem` or a bare `ccmem` found
//! through a relative PATH entry would run the repository's own program at every session start.
//! PATH is searched in its absolute entries only ([`crate::env::find_on_path`]); a relative
//! entry that holds a `ccmem` is named in the summary. `--bin` must be an absolute path or a name
//! found that way (written as the absolute path found).
//!
//! Also the command line a hook runs (`BIN hook SUB # ccmem-managed`) and how ccmem knows one
//! of its own.

use std::path::Path;

use super::MARKER;
use crate::env::{PathHit, find_on_path, is_executable};

/// The program the hooks will run, and what the user should know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// As written into the command: an absolute path.
    pub bin: String,
    /// Why this one (for the summary).
    pub why: String,
    /// Set when the hooks would fail to start, or a relative PATH entry was passed over.
    pub warning: Option<String>,
}

/// Decides the hooks' program. `given`: `--bin`; `exe`: the running binary (a real path);
/// `path`: `$PATH`. An error when no absolute path can be written (a relative `--bin`, a name
/// not found in an absolute PATH entry, an unknown running binary): the install is refused.
pub(crate) fn resolve_bin(
    given: Option<&str>,
    exe: Option<&Path>,
    path: Option<&str>,
) -> Result<Resolved, String> {
    resolve(given, exe, path).and_then(canonical)
}

/// The command's path made canonical: absolute, and with no `.`, `..` or empty component
/// (`/repo/bin/../../usr/bin/ccmem`, `/opt//ccmem`), whose meaning would hang on folders the
/// user never named; the folder part is resolved to its real path (the file name is kept, so
/// a link such as `~/.cargo/bin/ccmem` survives a reinstall). Refused when that cannot be done.
fn canonical(mut r: Resolved) -> Result<Resolved, String> {
    let p = Path::new(&r.bin);
    if !p.is_absolute() {
        return Err(format!(
            "`{}` is not an absolute path: the client runs hooks from the session's directory; \
             pass --bin with the absolute path of ccmem",
            r.bin
        ));
    }
    let clean = r.bin[1..].split('/').all(|c| !matches!(c, "" | "." | ".."));
    if clean {
        return Ok(r);
    }
    let resolved = match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) if !matches!(name.to_str(), Some("." | "..")) => {
            std::fs::canonicalize(dir).ok().map(|d| d.join(name))
        }
        _ => None,
    };
    match resolved.and_then(|p| p.to_str().map(str::to_owned)) {
        Some(bin) => {
            r.why = format!("{} (`{}` resolved to its real path)", r.why, r.bin);
            r.bin = bin;
            Ok(r)
        }
        None => Err(format!(
            "`{}` is not a canonical absolute path (it has `.`, `..` or empty components) and \
             its folder cannot be resolved: pass --bin with the real absolute path of ccmem",
            r.bin
        )),
    }
}

fn resolve(
    given: Option<&str>,
    exe: Option<&Path>,
    path: Option<&str>,
) -> Result<Resolved, String> {
    if let Some(bin) = given {
        return resolve_given(bin, path);
    }
    let hit = find_on_path(path, "ccmem");
    let warning = skipped_warning(&hit, "ccmem");
    let Some(exe) = exe.filter(|e| e.is_absolute()) else {
        return match hit.found {
            Some(found) => Ok(Resolved {
                bin: found.to_string_lossy().into_owned(),
                why: "`ccmem` on PATH (the running binary's path is unknown)".into(),
                warning,
            }),
            None => Err(format!(
                "the running binary's path is unknown and `ccmem` is not in an absolute PATH                  entry: pass --bin with the absolute path of ccmem{}",
                warning.map(|w| format!(" ({w})")).unwrap_or_default()
            )),
        };
    };
    if let Some(found) = &hit.found
        && crate::sys::same_file(found, exe)
    {
        return Ok(Resolved {
            bin: found.to_string_lossy().into_owned(),
            why: "`ccmem` on PATH is this binary; its absolute path, since the client may run \
                  hooks with another PATH"
                .into(),
            warning,
        });
    }
    Ok(Resolved {
        bin: exe.to_string_lossy().into_owned(),
        why: match &hit.found {
            Some(other) => format!(
                "the running binary; `ccmem` on PATH is another one: {}",
                other.display()
            ),
            None => "the running binary; `ccmem` is not on PATH".into(),
        },
        warning,
    })
}

/// `--bin`: an absolute path as given, or a name found in an absolute PATH entry.
fn resolve_given(bin: &str, path: Option<&str>) -> Result<Resolved, String> {
    let p = Path::new(bin);
    if p.is_absolute() {
        let warning = (!is_executable(p))
            .then(|| format!("{bin} is not an executable file: every hook would fail (exit 127)"));
        return Ok(Resolved {
            bin: bin.to_owned(),
            why: "--bin".into(),
            warning,
        });
    }
    if bin.contains('/') {
        return Err(format!(
            "--bin `{bin}` is a relative path: the client runs hooks from the session's \
             directory, where it names another file in every repository (one a repository could \
             ship); pass an absolute path"
        ));
    }
    let hit = find_on_path(path, bin);
    let warning = skipped_warning(&hit, bin);
    match hit.found {
        Some(found) => Ok(Resolved {
            bin: found.to_string_lossy().into_owned(),
            why: format!("--bin `{bin}`, found on PATH; its absolute path"),
            warning,
        }),
        None => Err(format!(
            "--bin `{bin}` is not in an absolute PATH entry: pass its absolute path{}",
            warning.map(|w| format!(" ({w})")).unwrap_or_default()
        )),
    }
}

/// Says which relative PATH entries holding `name` were passed over, and why.
fn skipped_warning(hit: &PathHit, name: &str) -> Option<String> {
    if hit.skipped.is_empty() {
        return None;
    }
    let dirs: Vec<String> = (hit.skipped.iter())
        .map(|d| format!("`{}`", d.display()))
        .collect();
    Some(format!(
        "PATH entry {} is relative and holds a `{name}`: skipped, since it names a folder of \
         whatever directory a session runs in (a cloned repository could ship its own `{name}` \
         there)",
        dirs.join(", ")
    ))
}

// Unix only: an executable is a file with an exec bit and a `#!` line, PATH is `:`-separated.
#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

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
        let r = resolve_bin(None, Some(&exe), Some(other.to_str().unwrap())).unwrap();
        assert_eq!(r.bin, exe.to_string_lossy());
        assert!(r.warning.is_none());
        // On PATH as a link to this very binary: the link's absolute path, never the bare name
        // (the client may run hooks with another PATH).
        std::os::unix::fs::symlink(&exe, bin.join("ccmem")).unwrap();
        let path = format!("{}:{}", other.display(), bin.display());
        let r = resolve_bin(None, Some(&exe), Some(&path)).unwrap();
        assert_eq!(r.bin, bin.join("ccmem").to_string_lossy(), "{r:?}");
        // Another ccmem on PATH: still this binary, by path, and the summary says why.
        let elsewhere = exe_in(&other, "ccmem");
        let r = resolve_bin(None, Some(&exe), Some(&path)).unwrap();
        assert_eq!(r.bin, exe.to_string_lossy());
        assert!(r.why.contains(&elsewhere.display().to_string()), "{r:?}");
        // --bin NAME: the absolute path PATH gives; refused when no absolute entry has it.
        let r = resolve_bin(Some("ccmem"), Some(&exe), Some(&path)).unwrap();
        assert_eq!(r.bin, elsewhere.to_string_lossy());
        let e = resolve_bin(Some("ccmem"), Some(&exe), Some("/nonexistent")).unwrap_err();
        assert!(e.contains("not in an absolute PATH entry"), "{e}");
        // --bin /abs: as given, with a warning when it would not start.
        let w = resolve_bin(Some("/no/such/ccmem"), Some(&exe), None)
            .unwrap()
            .warning
            .unwrap();
        assert!(w.contains("not an executable file"), "{w}");
        // --bin rel/path: refused.
        let e = resolve_bin(Some("target/debug/ccmem"), Some(&exe), None).unwrap_err();
        assert!(e.contains("relative path"), "{e}");
        // The running binary's path unknown: PATH's absolute hit, else refused.
        let r = resolve_bin(None, None, Some(&path)).unwrap();
        assert_eq!(r.bin, elsewhere.to_string_lossy());
        assert!(resolve_bin(None, None, Some("/nonexistent")).is_err());
    }

    #[test]
    fn the_command_path_is_canonical() {
        // `--bin /home/u/repo/../../usr/local/bin/ccmem` and a PATH entry `/opt/./tools//bin`:
        // the folder resolved to its real path, the name kept (a link survives a reinstall).
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let tools = root.join("tools/bin");
        std::fs::create_dir_all(&tools).unwrap();
        std::fs::create_dir_all(root.join("repo")).unwrap();
        let exe = exe_in(&tools, "ccmem");
        let given = format!("{}/repo/../tools/bin/ccmem", root.display());
        let r = resolve_bin(Some(&given), Some(&exe), None).unwrap();
        assert_eq!(r.bin, exe.to_string_lossy(), "{r:?}");
        assert!(r.why.contains("resolved to its real path"), "{r:?}");
        let path = format!("{}/./tools//bin", root.display());
        let r = resolve_bin(None, None, Some(&path)).unwrap();
        assert_eq!(r.bin, exe.to_string_lossy(), "{r:?}");
        // A folder that does not exist cannot be made canonical: refused, with the reason.
        let e = resolve_bin(Some("/no/such/../ccmem"), Some(&exe), None).unwrap_err();
        assert!(e.contains("not a canonical absolute path"), "{e}");
        // Every path written is absolute and clean.
        let r = resolve_bin(None, Some(&exe), Some(&path)).unwrap();
        assert!(!r.bin.contains("/./") && !r.bin.contains("//") && !r.bin.contains(".."));
    }

    #[test]
    fn a_relative_path_entry_is_never_written() {
        // `PATH=bin:$PATH ccmem hook install`, run from a repository whose bin/ccmem is this
        // very binary: the hook command is the binary's absolute path, and the summary names
        // the skipped entry.
        let d = tempfile::tempdir().unwrap();
        let rel = Path::new("target/ccmem-install-rel-bin");
        std::fs::create_dir_all(rel).unwrap();
        let exe = exe_in(d.path(), "ccmem").canonicalize().unwrap();
        let _ = std::fs::remove_file(rel.join("ccmem"));
        std::os::unix::fs::symlink(&exe, rel.join("ccmem")).unwrap();
        let path = format!("{}:/nonexistent", rel.display());
        let r = resolve_bin(None, Some(&exe), Some(&path)).unwrap();
        assert_eq!(r.bin, exe.to_string_lossy());
        assert!(Path::new(&r.bin).is_absolute());
        let w = r.warning.unwrap();
        assert!(
            w.contains("`target/ccmem-install-rel-bin` is relative"),
            "{w}"
        );
        assert!(resolve_bin(Some("ccmem"), Some(&exe), Some(&path)).is_err());
        std::fs::remove_dir_all(rel).unwrap();
    }
}

/// The shell command of one hook: `BIN hook SUBCOMMAND[ ARGS] # ccmem-managed`, `BIN` quoted
/// when it needs it.
pub(crate) fn command(bin: &str, sub: &str, args: &str) -> String {
    let args = args.trim();
    let sep = if args.is_empty() { "" } else { " " };
    format!("{} hook {sub}{sep}{args} {MARKER}", quote(bin))
}

fn quote(bin: &str) -> String {
    let safe = !bin.is_empty()
        && bin
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%=,".contains(&b));
    if safe {
        bin.to_owned()
    } else {
        format!("'{}'", bin.replace('\'', r"'\''"))
    }
}

/// True when a hook command is one ccmem installed (it ends with [`MARKER`]).
pub(crate) fn is_ours(command: &str) -> bool {
    command.trim_end().ends_with(MARKER)
}

/// For one of ccmem's commands: its sub-command and the arguments after it.
pub(super) fn parse_ours(command: &str) -> Option<(&str, &str)> {
    let body = command.trim_end().strip_suffix(MARKER)?.trim_end();
    let at = body.rfind(" hook ")?;
    let rest = &body[at + 6..];
    let (sub, args) = rest.split_once(' ').unwrap_or((rest, ""));
    Some((sub, args.trim()))
}

/// Whether a command the user wrote already runs `ccmem hook SUB` (the program is named exactly
/// `ccmem`, or is the binary ccmem would install).
pub(super) fn runs_our_hook(command: &str, sub: &str, bin: &str) -> bool {
    let mut words = command.split_whitespace();
    let Some(prog) = words.next() else {
        return false;
    };
    let prog = prog.trim_matches(['\'', '"']);
    let name = prog.rsplit('/').next().unwrap_or(prog);
    (name == "ccmem" || prog == bin) && words.next() == Some("hook") && words.next() == Some(sub)
}
