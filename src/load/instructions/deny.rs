//! Read permission deny rules (`permissions.deny: ["Read(…)"]`): the client withholds a
//! Project or Local instruction file (and their imports) that such a rule covers; it is only
//! logged at debug level, nothing shows in the prompt. User and Managed files are never
//! withheld.
//!
//! Rule paths follow the client's permission syntax: `//abs` is absolute, `~/x` is below the
//! home directory, `/x` and `./x` and `x` are relative to the start directory (project and
//! local settings live there; for user settings `/x` is relative to the config dir). The
//! pattern is a gitignore line (node-ignore, which ignores case on every platform): without a
//! `/` inside it matches that name at any depth; a match on a directory covers everything
//! below it; `x/` covers what is below `x`, not a file `x`. `Read` alone and `Read()` cover
//! every path; a rule is taken as written (` Read(./x) ` is no Read rule). Observed:
//! `Read(./x)` and `Read(//abs)` withhold; `Read(../x)` does not (SPEC OPEN-6), which this
//! model reproduces since `..` never appears in a normalized path.
//!
//! On Windows the matcher compares paths in MSYS form, lower-cased (`$6t`: `r1`, `as`): so a
//! drive letter or a name in either case, `\` or `/` (mixed too), and `C:\x`, `C:/x`, `//c/x`
//! as a rule all match `C:\x`; `~\x` is below the home folder; a rooted `\x` has no drive (it
//! is `/x`). Held by `fuzz/vectors-platform/deny.json`: the loader's test (`Bko`) of the
//! Windows, macOS and Linux builds, run on rules from each settings source. Patterns run on
//! [`super::glob`] (linear time; a match over the step budget covers nothing).

use picomatch_rs::CompileOptions;

use std::sync::Arc;

use super::glob::{Budget, Glob, MAX_PATTERNS};

use crate::env::ClientEnv;
use crate::load::Kind;
use crate::platform::Platform;
use crate::settings::{Settings, Source};
use crate::text::path as node_path;

/// One deny rule, compiled.
struct Rule {
    text: String,
    /// The folder its pattern is relative to, in [`Deny::key`]'s form; `None` for a rule that
    /// covers every path (`Read`, `Read()`).
    base: Option<String>,
    /// Globs on the path relative to `base`, lower-cased (node-ignore's `ignorecase`).
    matchers: Vec<Arc<Glob>>,
}

/// The Read deny rules of a session.
#[derive(Default)]
pub struct Deny {
    rules: Vec<Rule>,
    platform: Platform,
    /// The start directory, against which a relative path resolves.
    cwd: String,
    /// Backtracked matches left (see [`super::glob`]).
    budget: Budget,
}

impl std::fmt::Debug for Deny {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.rules.iter().map(|r| &r.text))
            .finish()
    }
}

impl Deny {
    /// Collects `permissions.deny` `Read(…)` rules from every settings layer.
    pub fn from_settings(env: &ClientEnv, settings: &Settings) -> Self {
        let cwd = env.cwd.to_string_lossy();
        let home = env.home.to_string_lossy();
        let cfg = env.config_dir().to_string_lossy().into_owned();
        let layers = settings.concat("/permissions/deny");
        let rules: Vec<(&str, bool)> = layers
            .iter()
            .filter_map(|(v, layer)| Some((v.as_str()?, layer.source == Source::User)))
            .collect();
        Self::of_rules(env.platform, &rules, &cwd, &home, &cfg)
    }

    /// The `Read` rules among `rules` (each with whether it came from the user's settings, whose
    /// `/x` is below `config`) for a session in `cwd` with home `home` on `platform`: what
    /// [`Deny::from_settings`] builds, without settings files (the platform vectors use it).
    pub fn of_rules(
        platform: Platform,
        rules: &[(&str, bool)],
        cwd: &str,
        home: &str,
        config: &str,
    ) -> Self {
        let rules = rules
            .iter()
            .filter(|(v, _)| read_pattern(v).is_some())
            .enumerate()
            .filter_map(|(k, (v, user))| {
                let base = if *user { config } else { cwd };
                compile(platform, v, base, home, cwd, k < MAX_PATTERNS)
            })
            .collect();
        Deny {
            rules,
            platform,
            cwd: cwd.to_owned(),
            budget: Budget::default(),
        }
    }

    /// Whether any rule covers `path`, for the model's own reads (the Read tool, Bash reads).
    pub fn covers(&self, path: &str) -> bool {
        self.first(path).is_some()
    }

    /// The first rule covering `path`. The path is put in the matcher's form once, not once per
    /// rule, and not at all when there are no rules (most projects).
    fn first(&self, path: &str) -> Option<&Rule> {
        if self.rules.is_empty() {
            return None;
        }
        let key = key(self.platform, &self.cwd, path);
        self.rules.iter().find(|r| self.matches(r, &key))
    }

    /// Whether `rule` covers the path whose matcher form is `key` (see [`key`]).
    fn matches(&self, rule: &Rule, key: &str) -> bool {
        let Some(base) = &rule.base else {
            return true;
        };
        let Some(rel) = below(base, key) else {
            return false;
        };
        let rel = rel.to_lowercase();
        rule.matchers.iter().any(|m| m.is_match(&rel, &self.budget))
    }

    /// The rule withholding `path` for a file of this kind, if any.
    pub fn hit(&self, path: &str, kind: Kind) -> Option<&str> {
        if !matches!(kind, Kind::Project | Kind::Local) {
            return None;
        }
        self.first(path).map(|r| r.text.as_str())
    }
}

/// `path` as the matcher compares it (`Pt`, node's `path.resolve` from `cwd`; on Windows then
/// the MSYS form `r1`, lower-cased `as`).
fn key(p: Platform, cwd: &str, path: &str) -> String {
    // A rooted `\x` keeps no drive: it is `/x` in MSYS form, below the `//` rules' root.
    let resolved = if node_path::is_absolute(p, path) {
        node_path::normalize(p, path)
    } else {
        node_path::join(p, &[cwd, path])
    };
    if p.is_windows() {
        node_path::to_msys(&resolved).to_lowercase()
    } else {
        resolved
    }
}

/// `path` relative to `base` when it lies strictly below it (both in [`key`]'s form).
fn below<'a>(base: &str, path: &'a str) -> Option<&'a str> {
    let rest = path.strip_prefix(base.trim_end_matches('/'))?;
    rest.strip_prefix('/').filter(|r| !r.is_empty())
}

/// The pattern of a `Read` deny rule (`""` for `Read` alone and `Read()`, which cover
/// everything), or `None` for another tool's rule. The rule is taken as written: the client
/// trims nothing (` Read(./x.md) ` is no Read rule).
fn read_pattern(rule: &str) -> Option<&str> {
    if rule == "Read" {
        Some("")
    } else {
        rule.strip_prefix("Read(")?.strip_suffix(')')
    }
}

/// `rule` compiled; with `compiled` false (past a list's [`MAX_PATTERNS`]) its globs are left
/// uncompiled. Its pattern is a gitignore line (node-ignore, case ignored) on the path
/// relative to its base: `//abs` from `/`, `~/x` from the home folder, `/x` from the settings'
/// base (the start directory; the config folder for user settings), these three anchored;
/// `./x` and `x` from the start directory, at any depth unless a `/` inside anchors them.
fn compile(
    platform: Platform,
    rule: &str,
    settings_base: &str,
    home: &str,
    cwd: &str,
    compiled: bool,
) -> Option<Rule> {
    let inner = read_pattern(rule)?;
    if inner.is_empty() {
        return Some(Rule {
            text: rule.to_owned(),
            base: None,
            matchers: Vec::new(),
        });
    }
    let windows = platform.is_windows();
    // On Windows a drive path (`C:/x`, `C:\x`) is absolute like `//c/x` (its MSYS form).
    let drive = (windows && drive_path(inner)).then(|| node_path::to_msys(inner));
    let (base, pattern, anchored) = if let Some(msys) = &drive {
        ("/", &msys[1..], true)
    } else if let Some(rest) = inner.strip_prefix("//") {
        ("/", rest, true)
    } else if let Some(rest) = inner
        .strip_prefix("~/")
        .or_else(|| inner.strip_prefix("~\\").filter(|_| windows))
    {
        (home, rest, true)
    } else if let Some(rest) = inner.strip_prefix("./") {
        (cwd, rest, false)
    } else if let Some(rest) = inner.strip_prefix('/') {
        (settings_base, rest, true)
    } else {
        (cwd, inner, false)
    };
    // `x/` names a folder: what is below it, not a file of that name.
    let folder_only = pattern.ends_with('/');
    let pattern = pattern.trim_end_matches('/').to_lowercase();
    if pattern.is_empty() || pattern.split('/').any(|s| s == "..") {
        return None;
    }
    let anchored = anchored || pattern.contains('/');
    let glob = if anchored || pattern == "**" {
        pattern
    } else {
        format!("**/{pattern}")
    };
    let options = CompileOptions {
        dot: true,
        ..CompileOptions::default()
    };
    // (picomatch's `x/**` matches `x` itself; `x/*` does not.)
    let globs = if folder_only {
        vec![format!("{glob}/*"), format!("{glob}/*/**")]
    } else {
        vec![format!("{glob}/**"), glob]
    };
    let matchers = globs
        .iter()
        .filter_map(|p| {
            if compiled {
                Glob::new(p, &options)
            } else {
                Some(Glob::uncompiled(p))
            }
        })
        .collect();
    // The root `/` is the MSYS root on Windows too, not the start directory's drive.
    let base = if base == "/" {
        "/".to_owned()
    } else {
        key(platform, cwd, base)
    };
    Some(Rule {
        text: rule.to_owned(),
        base: Some(base),
        matchers,
    })
}

/// Whether `p` starts with a drive and a separator (`C:/`, `c:\`).
fn drive_path(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deny(rules: &[&str]) -> Deny {
        let rules: Vec<(&str, bool)> = rules.iter().map(|r| (*r, false)).collect();
        Deny::of_rules(Platform::Linux, &rules, "/r/p", "/h", "/h/.claude")
    }

    #[test]
    fn relative_absolute_and_home_rules() {
        let d = deny(&[
            "Read(./CLAUDE.local.md)",
            "Read(//r/CLAUDE.md)",
            "Read(~/x.md)",
        ]);
        assert!(d.hit("/r/p/CLAUDE.local.md", Kind::Local).is_some());
        assert!(d.hit("/r/CLAUDE.md", Kind::Project).is_some());
        assert!(d.hit("/r/p/CLAUDE.md", Kind::Project).is_none());
        assert!(d.hit("/h/x.md", Kind::Project).is_some());
    }

    #[test]
    fn user_and_managed_files_are_never_withheld() {
        let d = deny(&["Read"]);
        assert!(d.hit("/h/.claude/CLAUDE.md", Kind::User).is_none());
        assert!(d.hit("/etc/claude-code/CLAUDE.md", Kind::Managed).is_none());
        assert!(d.hit("/r/p/CLAUDE.md", Kind::Project).is_some());
    }

    #[test]
    fn bare_names_match_at_any_depth_and_dirs_cover_contents() {
        let d = deny(&["Read(secret.md)", "Read(./docs/)"]);
        assert!(d.hit("/r/p/a/b/secret.md", Kind::Project).is_some());
        assert!(d.hit("/r/p/docs/x.md", Kind::Project).is_some());
        assert!(d.hit("/r/p/doc.md", Kind::Project).is_none());
        assert!(deny(&["Read(../CLAUDE.md)", "Edit(./x)"]).rules.is_empty());
    }

    /// The Windows matcher compares MSYS forms lower-cased (`fuzz/vectors-platform/deny.json`
    /// holds it against the Windows build): a drive letter or name in either case, `\` or `/`,
    /// a `C:/` rule, `~\`; the same rules on Linux read `C:\…` as a name in the start folder.
    #[test]
    fn windows_rules_fold_case_separators_and_drive_forms() {
        let rules = [
            ("Read(./日本語/メモ.md)", false),
            ("Read(C:/Users/me/p/Папка/**)", false),
            (r"Read(~\n.md)", false),
            ("Read(./docs/)", false),
        ];
        let at = |p| {
            Deny::of_rules(
                p,
                &rules,
                r"C:\Users\me\p",
                r"C:\Users\me",
                r"C:\Users\me\.claude",
            )
        };
        let win = at(Platform::Windows);
        for hit in [
            r"c:\users\ME\p\日本語\メモ.md",
            r"C:/Users/me/p\ПАПКА\x.md",
            r"C:\Users\me\n.md",
            r"C:\Users\me\p\docs\a.md",
        ] {
            assert!(win.hit(hit, Kind::Project).is_some(), "{hit}");
        }
        for miss in [
            r"D:\Users\me\p\日本語\メモ.md",
            r"C:\Users\me\p\docs",
            r"\Users\me\n.md",
        ] {
            assert!(win.hit(miss, Kind::Project).is_none(), "{miss}");
        }
        let linux = at(Platform::Linux);
        assert!(
            linux
                .hit(r"c:\users\ME\p\日本語\メモ.md", Kind::Project)
                .is_none()
        );
        assert!(linux.hit(r"C:\Users\me\n.md", Kind::Project).is_none());
    }
}
