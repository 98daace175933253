//! `ccmem.toml` for a command: found from the folder it works on (or `--config`), read whole,
//! and every rule it names checked against the audit's and the check's registries, so that a
//! file is valid or not whatever command reads it.

use std::path::Path;

use crate::config::{Config, ConfigError};

/// The settings for `folder` (see [`Config::find`]; [`Config::path`] is the file they came
/// from).
pub(super) fn load(folder: &Path, explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let config = Config::find(folder, explicit)?;
    rule_names(&config)?;
    Ok(config)
}

fn rule_names(config: &Config) -> Result<(), ConfigError> {
    crate::rules::check_config(config)?;
    crate::check::registry::check_config(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Result<(), String> {
        let config = Config::parse(text, Path::new("ccmem.toml")).map_err(|e| e.to_string())?;
        rule_names(&config).map_err(|e| e.to_string())
    }

    #[test]
    fn each_table_names_rules_of_its_own_command() {
        assert_eq!(
            check(
                "[audit]\ndisable = [\"near-duplicate\"]\n[check]\ndisable = [\"nested-agents-md\"]\n[check.per-file-ignores]\n\"vendor/**\" = [\"*\"]\n\"docs/*\" = [\"wrong-case-name\"]\n"
            ),
            Ok(())
        );
        let errors = [
            (
                "[audit]\ndisable = [\"nested-agents-md\"]\n",
                "ccmem.toml:2: `audit.disable` names an unknown rule `nested-agents-md`",
            ),
            (
                "[check]\n\ndisable = [\"near-duplicate\"]\n",
                "ccmem.toml:3: `check.disable` names an unknown rule `near-duplicate`",
            ),
            (
                "[check]\ndisable = [\"*\"]\n",
                "ccmem.toml:2: `check.disable` names an unknown rule `*`",
            ),
            (
                "[check.per-file-ignores]\n\"a\" = [\"*\"]\n\"b\" = [\"nope\"]\n",
                "ccmem.toml:3: `check.per-file-ignores` names an unknown rule `nope`",
            ),
        ];
        for (text, err) in errors {
            assert_eq!(check(text).unwrap_err(), err, "{text}");
        }
    }
}
