//! The client's own size warnings for instruction files (`Wvt`, `RQr`, `cyr` in 2.1.332):
//! a file is "large" past `max(40,000, round(context tokens × 0.05 × chars per token))`
//! characters, and the files under that limit are "large in total" past
//! `max(120,000, per-file limit)`. Both depend on the model: its context window and whether
//! it is counted at 4 characters per token (models up to Claude 4.6) or 3 (newer ones).
//! Characters are UTF-16 units of the content (JavaScript `length`).

use serde::Serialize;

use crate::constants::{
    DEFAULT_CONTEXT_TOKENS, INSTRUCTION_TOTAL_WARN_UTF16 as TOTAL_WARN_FLOOR,
    INSTRUCTION_WARN_CONTEXT_SHARE as FILE_WARN_SHARE, INSTRUCTION_WARN_UTF16 as FILE_WARN_FLOOR,
};

/// The model the size warnings assume.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SizeModel {
    /// Its context window, in tokens.
    pub context_tokens: u64,
    /// Characters per token the client assumes for it (`Hw`: 4 or 3).
    pub chars_per_token: u32,
}

impl Default for SizeModel {
    fn default() -> Self {
        SizeModel {
            context_tokens: DEFAULT_CONTEXT_TOKENS,
            chars_per_token: 4,
        }
    }
}

impl SizeModel {
    /// The per-file warning limit (`Wvt`).
    pub fn file_limit(&self) -> usize {
        let share = self.context_tokens as f64 * FILE_WARN_SHARE * f64::from(self.chars_per_token);
        FILE_WARN_FLOOR.max(share.round() as usize)
    }

    /// The total warning limit (`RQr`).
    pub fn total_limit(&self) -> usize {
        TOTAL_WARN_FLOOR.max(self.file_limit())
    }

    /// The assumption in words, for every report that uses it.
    pub fn describe(&self) -> String {
        format!(
            "a {}-token context window at {} characters per token: files over {} characters and totals over {} trigger the client's warnings",
            crate::receipt::group(self.context_tokens as usize),
            self.chars_per_token,
            crate::receipt::group(self.file_limit()),
            crate::receipt::group(self.total_limit()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_follow_the_client_formula() {
        let m = SizeModel::default();
        assert_eq!((m.file_limit(), m.total_limit()), (40_000, 120_000));
        let big = SizeModel {
            context_tokens: 1_000_000,
            chars_per_token: 3,
        };
        assert_eq!((big.file_limit(), big.total_limit()), (150_000, 150_000));
        let small = SizeModel {
            context_tokens: 100_000,
            chars_per_token: 4,
        };
        assert_eq!(small.file_limit(), 40_000);
    }
}
