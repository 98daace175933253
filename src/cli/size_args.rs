//! The model the client's size warnings assume, one set of flags for every command that shows
//! them (`check`, `receipt`).

use crate::config::CheckConfig;
use crate::load::size::SizeModel;

/// `--context-window` and `--chars-per-token`.
#[derive(Debug, clap::Args)]
pub struct SizeArgs {
    /// The model's context window in tokens, for the client's size warnings (default 200000,
    /// the client's fallback; Claude Opus 5.5, its default with an API key, has 1000000).
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
    /// Characters per token the client counts for the model: 4 up to Claude 4.6, 3 for newer
    /// models (default 4).
    #[arg(long, value_name = "N")]
    pub chars_per_token: Option<u32>,
}

impl SizeArgs {
    /// The model: these flags, else `configured` (ccmem.toml), else the client's fallback.
    pub fn model(&self, configured: (Option<u64>, Option<u32>)) -> anyhow::Result<SizeModel> {
        let fallback = SizeModel::default();
        let model = SizeModel {
            context_tokens: self
                .context_window
                .or(configured.0)
                .unwrap_or(fallback.context_tokens),
            chars_per_token: self
                .chars_per_token
                .or(configured.1)
                .unwrap_or(fallback.chars_per_token),
        };
        if model.context_tokens == 0
            || !CheckConfig::CHARS_PER_TOKEN.contains(&model.chars_per_token)
        {
            anyhow::bail!(
                "--context-window must be positive and --chars-per-token between 1 and 8"
            );
        }
        Ok(model)
    }
}
