//! Auto memory: the folder, the MEMORY.md index, its cut, and the topic files.

use std::collections::HashSet;

use serde::Serialize;

use super::model::{Lazy, Loaded};
use crate::env::ClientEnv;
use crate::settings::Settings;

/// What the client does with auto memory in this session.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Why auto memory is off, if it is.
    pub off: Option<String>,
    /// The resolved memory folder (with trailing `/`), as the client prints it.
    pub folder: Option<String>,
    /// The MEMORY.md entry, if it would be in the reminder.
    #[serde(skip)]
    pub entry: Option<Loaded>,
    /// Topic files (lazy).
    pub lazy: Vec<Lazy>,
}

impl Report {
    /// Auto memory is off for the whole session.
    pub fn off(why: &str) -> Self {
        Report {
            off: Some(why.to_owned()),
            ..Report::default()
        }
    }
}

/// Resolves and loads the auto-memory index.
pub fn load(_env: &ClientEnv, _settings: &Settings, _processed: &HashSet<String>) -> Report {
    Report::default()
}
