//! `ccmem.toml` for a command: found from the folder it works on (or `--config`), read whole,
//! and every rule it names checked against the rule registry ([`crate::rules::check_config`]),
//! so that a file is valid or not whatever command reads it.

use std::path::Path;

use crate::config::{Config, ConfigError};

/// The settings for `folder` (see [`Config::find`]; [`Config::path`] is the file they came
/// from).
pub(super) fn load(folder: &Path, explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let config = Config::find(folder, explicit)?;
    crate::rules::check_config(&config)?;
    Ok(config)
}

/// `--select` and `--ignore`: which rules run, for this run only (on top of `ccmem.toml`'s
/// `disable`).
#[derive(Debug, Default, clap::Args)]
pub(super) struct RuleFilter {
    /// Run only these rules (comma-separated or repeated; `ccmem explain` lists them).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    select: Vec<String>,
    /// Do not run these rules (comma-separated or repeated).
    #[arg(long, value_name = "RULE", value_delimiter = ',')]
    ignore: Vec<String>,
}

impl RuleFilter {
    /// The rules of `command` to disable: every one not selected, and every one ignored. A
    /// name that is not a rule of `command` is an error that lists them: a typo must never
    /// leave a rule running, or silently run none.
    pub(super) fn disabled(
        &self,
        command: crate::rules::Command,
    ) -> anyhow::Result<Vec<crate::config::RuleName>> {
        let known: Vec<&str> = crate::rules::of(command).map(|r| r.name).collect();
        for (flag, names) in [("--select", &self.select), ("--ignore", &self.ignore)] {
            if let Some(bad) = names.iter().find(|n| !known.contains(&n.as_str())) {
                anyhow::bail!(
                    "{flag}: `{}` is not a rule of `ccmem {}`; its rules: {}",
                    crate::text::escape::escape(bad),
                    command.as_str(),
                    known.join(", ")
                );
            }
        }
        let off = known.iter().filter(|name| {
            (!self.select.is_empty() && !self.select.iter().any(|s| s == *name))
                || self.ignore.iter().any(|i| i == *name)
        });
        Ok(off
            .map(|name| crate::config::RuleName {
                name: (*name).to_owned(),
                span: 0..0,
            })
            .collect())
    }
}
