//! The size model of `ccmem check`: the client's own size warnings ([`crate::load::size`], the
//! one model `ccmem receipt` uses too), and the assumption in words for every report.

pub use crate::load::size::SizeModel;

impl SizeModel {
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
