//! Read permission deny rules (`permissions.deny: ["Read(…)"]`): the client withholds a
//! Project or Local instruction file (and their imports) that such a rule covers; it is only
//! logged at debug level, nothing shows in the prompt. User and Managed files are never
//! withheld.
//!
//! Rule paths follow the client's permission syntax: `//abs` is absolute, `~/x` is below the
//! home directory, `/x` and `./x` and `x` are relative to the start directory (project and
//! local settings live there; for user settings `/x` is relative to the config dir). A pattern
//! without a `/` matches that name at any depth (gitignore style); a match on a directory
//! covers everything below it. `Read` alone covers everything. Observed: `Read(./x)` and
//! `Read(//abs)` withhold; `Read(../x)` does not (SPEC OPEN-6), which this model reproduces
//! since `..` never appears in a normalized path. Patterns run on [`super::glob`] (linear
//! time; a match over the step budget covers nothing).

use picomatch_rs::CompileOptions;

use std::sync::Arc;

use super::glob::{Budget, Glob, MAX_PATTERNS};

use crate::env::ClientEnv;
use crate::load::Kind;
use crate::settings::{Settings, Source};

/// One deny rule, compiled.
struct Rule {
    text: String,
    matchers: Vec<Arc<Glob>>,
}

/// The Read deny rules of a session.
#[derive(Default)]
pub struct Deny {
    rules: Vec<Rule>,
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
        let cwd = env.cwd.to_string_lossy().into_owned();
        let home = env.home.to_string_lossy().into_owned();
        let cfg = env.config_dir().to_string_lossy().into_owned();
        let rules = settings
            .concat("/permissions/deny")
            .into_iter()
            .filter(|(v, _)| v.as_str().and_then(read_pattern).is_some())
            .enumerate()
            .filter_map(|(k, (v, layer))| {
                let base = if layer.source == Source::User {
                    &cfg
                } else {
                    &cwd
                };
                compile(v.as_str()?, base, &home, &cwd, k < MAX_PATTERNS)
            })
            .collect();
        Deny {
            rules,
            budget: Budget::default(),
        }
    }

    /// Whether any rule covers `path`, for the model's own reads (the Read tool, Bash reads).
    pub fn covers(&self, path: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.matchers.iter().any(|m| m.is_match(path, &self.budget)))
    }

    /// The rule withholding `path` for a file of this kind, if any.
    pub fn hit(&self, path: &str, kind: Kind) -> Option<&str> {
        if !matches!(kind, Kind::Project | Kind::Local) {
            return None;
        }
        self.rules
            .iter()
            .find(|r| r.matchers.iter().any(|m| m.is_match(path, &self.budget)))
            .map(|r| r.text.as_str())
    }
}

/// The pattern of a `Read` deny rule (`Read` alone covers everything), or `None` for another
/// tool's rule.
fn read_pattern(rule: &str) -> Option<&str> {
    let rule = rule.trim();
    if rule == "Read" {
        Some("**")
    } else {
        rule.strip_prefix("Read(")?.strip_suffix(')')
    }
}

/// How many of the settings' `permissions.deny` rules are `Read` rules, without compiling them
/// (the receipt names them where their matching is unverified).
pub fn read_rules(settings: &Settings) -> usize {
    settings
        .concat("/permissions/deny")
        .into_iter()
        .filter(|(v, _)| v.as_str().and_then(read_pattern).is_some())
        .count()
}

/// `rule` compiled; with `compiled` false (past a list's [`MAX_PATTERNS`]) its globs are left
/// uncompiled.
fn compile(rule: &str, settings_base: &str, home: &str, cwd: &str, compiled: bool) -> Option<Rule> {
    let inner = read_pattern(rule)?;
    let (base, pattern) = if let Some(rest) = inner.strip_prefix("//") {
        ("", rest)
    } else if let Some(rest) = inner.strip_prefix("~/") {
        (home, rest)
    } else if let Some(rest) = inner.strip_prefix("./") {
        (cwd, rest)
    } else if let Some(rest) = inner.strip_prefix('/') {
        (settings_base, rest)
    } else {
        (cwd, inner)
    };
    let pattern = pattern.trim_end_matches('/');
    if pattern.is_empty() || pattern.split('/').any(|s| s == "..") {
        return None;
    }
    let base = base.trim_end_matches('/');
    let anchored = if pattern.contains('/') || pattern == "**" {
        format!("{base}/{pattern}")
    } else {
        format!("{base}/**/{pattern}")
    };
    let options = CompileOptions {
        dot: true,
        ..CompileOptions::default()
    };
    let matchers = [anchored.clone(), format!("{anchored}/**")]
        .iter()
        .filter_map(|p| {
            if compiled {
                Glob::new(p, &options)
            } else {
                Some(Glob::uncompiled(p))
            }
        })
        .collect();
    Some(Rule {
        text: rule.to_owned(),
        matchers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deny(rules: &[&str]) -> Deny {
        Deny {
            rules: rules
                .iter()
                .filter_map(|r| compile(r, "/r/p", "/h", "/r/p", true))
                .collect(),
            budget: Budget::default(),
        }
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

    /// The receipt's count: every `Read` rule of every layer, other tools' rules left out.
    #[test]
    fn read_rules_are_counted_across_layers() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let base = std::path::PathBuf::from(
            crate::text::path::strip_verbatim(base.to_str().unwrap()).as_ref(),
        );
        let (home, proj) = (base.join("home"), base.join("proj"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(proj.join(".claude")).unwrap();
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"permissions":{"deny":["Read(~/.ssh/**)","WebFetch(domain:example.com)"]}}"#,
        )
        .unwrap();
        std::fs::write(
            proj.join(".claude/settings.json"),
            r#"{"permissions":{"deny":["Read(./secrets/)"," Read ","Bash(rm -rf:*)",42]}}"#,
        )
        .unwrap();
        let vars = [
            ("HOME", home.to_str().unwrap()),
            ("USERPROFILE", home.to_str().unwrap()),
            ("CCMEM_MANAGED_DIR", base.join("none").to_str().unwrap()),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .into();
        let env = ClientEnv::new(proj, vars, Default::default());
        assert_eq!(read_rules(&Settings::load(&env)), 3);
    }
}
