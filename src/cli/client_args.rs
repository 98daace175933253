//! The client flags every loader-based command accepts, with the client's own names.

use clap::Args;

use crate::env::{ClientEnv, ClientFlags, ProcessEnv};

/// Client flags that change what loads.
#[derive(Debug, Clone, Default, Args)]
pub struct ClientArgs {
    /// An additional working directory (as the client's `--add-dir`; repeatable).
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dirs: Vec<String>,
    /// Extra settings: a JSON file or a JSON string (as the client's `--settings`).
    #[arg(long, value_name = "FILE|JSON")]
    pub settings: Option<String>,
    /// Which settings sources count: comma-separated `user`, `project`, `local`.
    #[arg(long = "setting-sources", value_name = "LIST")]
    pub setting_sources: Option<String>,
    /// As the client's `--bare` (no CLAUDE.md, no auto memory).
    #[arg(long)]
    pub bare: bool,
    /// As the client's `--safe-mode`.
    #[arg(long = "safe-mode")]
    pub safe_mode: bool,
    /// Extra agent definitions as JSON (as the client's `--agents`). `ccmem receipt --agents`
    /// without JSON lists every agent defined here.
    #[arg(long, value_name = "JSON", num_args = 0..=1, default_missing_value = "")]
    pub agents: Option<String>,
}

impl ClientArgs {
    /// The client environment of this process with these flags.
    pub fn client_env(&self, env: &ProcessEnv) -> anyhow::Result<ClientEnv> {
        let flags = ClientFlags {
            add_dirs: self.add_dirs.clone(),
            settings: self.settings.clone(),
            setting_sources: self.setting_sources.clone(),
            bare: self.bare,
            safe_mode: self.safe_mode,
            agents: self.agents.clone(),
        };
        env.client_env(flags)
    }
}
