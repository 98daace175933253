//! `[check]` in `ccmem.toml` at the repository root (or the file given with `--config`):
//!
//! ```toml
//! [check]
//! disable = ["nested-agents-md"]     # rules not to run
//! context-window = 200000            # tokens, for the size warnings (flag: --context-window)
//! chars-per-token = 4                # 4 (models up to Claude 4.6) or 3 (newer)
//! max-dirs = 2000                    # start directories checked at most
//!
//! [check.per-file-ignores]           # glob (relative to the root) → rules, "*" for all
//! "docs/agents.md" = ["wrong-case-name"]
//! "vendor/**" = ["*"]
//! ```
//!
//! Other tables (`[audit]`, …) are left to their commands. Unknown keys in `[check]` and
//! unknown rule names are errors: a typo must not silently keep a default.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use globset::{Glob, GlobMatcher};
use serde::Deserialize;

/// The name looked for at the root.
pub const FILE_NAME: &str = "ccmem.toml";

/// The check's settings.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// Rules not to run.
    pub disable: Vec<String>,
    /// Context window for the size warnings.
    pub context_window: Option<u64>,
    /// Characters per token for the size warnings.
    pub chars_per_token: Option<u32>,
    /// Start directories checked at most.
    pub max_dirs: Option<usize>,
    /// Glob → rule names.
    pub per_file_ignores: std::collections::BTreeMap<String, Vec<String>>,
    #[serde(skip)]
    compiled: Vec<(GlobMatcher, Vec<String>)>,
}

#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    check: Config,
}

impl Config {
    /// Parses the text of a `ccmem.toml`.
    pub fn parse(text: &str) -> anyhow::Result<Config> {
        let value: toml::Table = toml::from_str(text)?;
        let only_check: toml::Table = value.into_iter().filter(|(k, _)| k == "check").collect();
        let File { check: mut config } = only_check.try_into()?;
        let names = config
            .disable
            .iter()
            .chain(config.per_file_ignores.values().flatten())
            .filter(|n| *n != "*");
        for name in names {
            if super::registry::find(name).is_none() {
                anyhow::bail!("`[check]` names an unknown rule `{name}`");
            }
        }
        for (glob, rules) in &config.per_file_ignores {
            let g = Glob::new(glob).with_context(|| format!("per-file-ignores: `{glob}`"))?;
            config.compiled.push((g.compile_matcher(), rules.clone()));
        }
        if let Some(c) = config.chars_per_token
            && !(1..=8).contains(&c)
        {
            anyhow::bail!("`chars-per-token` must be between 1 and 8, not {c}");
        }
        Ok(config)
    }

    /// `explicit` when given, else `ccmem.toml` at `root` when it exists, else the defaults.
    /// Returns the file used, if any.
    pub fn find(root: &Path, explicit: Option<&Path>) -> anyhow::Result<(Config, Option<PathBuf>)> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let p = root.join(FILE_NAME);
                if !p.is_file() {
                    return Ok((Config::default(), None));
                }
                p
            }
        };
        let bytes = crate::fsread::read_capped(&path, 1 << 20)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("{}: not valid UTF-8", path.display()))?;
        let config = Config::parse(&text).with_context(|| format!("{}", path.display()))?;
        Ok((config, Some(path)))
    }

    /// Whether a rule runs.
    pub fn enabled(&self, rule: &str) -> bool {
        !self.disable.iter().any(|d| d == rule)
    }

    /// Whether `per-file-ignores` silences `rule` on `rel`.
    pub fn ignored(&self, rel: &str, rule: &str) -> bool {
        self.compiled
            .iter()
            .any(|(g, rules)| g.is_match(rel) && rules.iter().any(|r| r == rule || r == "*"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_check_and_leaves_other_tables() {
        let c = Config::parse(
            "[audit]\nstale-days = 3\n[check]\ndisable = [\"nested-agents-md\"]\ncontext-window = 1000000\n[check.per-file-ignores]\n\"docs/**\" = [\"wrong-case-name\"]\n\"vendor/**\" = [\"*\"]\n",
        )
        .unwrap();
        assert!(!c.enabled("nested-agents-md"));
        assert_eq!(c.context_window, Some(1_000_000));
        assert!(c.ignored("docs/agents.md", "wrong-case-name"));
        assert!(!c.ignored("docs/agents.md", "import-cycle"));
        assert!(c.ignored("vendor/x/CLAUDE.md", "import-cycle"));
        assert!(!c.ignored("agents.md", "wrong-case-name"));
    }

    #[test]
    fn typos_are_errors() {
        assert!(Config::parse("[check]\ndisabled = []\n").is_err());
        assert!(Config::parse("[check]\ndisable = [\"no-such-rule\"]\n").is_err());
        assert!(Config::parse("[check.per-file-ignores]\n\"a\" = [\"nope\"]\n").is_err());
        assert!(Config::parse("[check]\nchars-per-token = 0\n").is_err());
    }
}
