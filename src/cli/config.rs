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
