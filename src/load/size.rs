//! The client's own size warnings about the instruction files a session loads, one model for
//! every report that shows them (`ccmem receipt`, `ccmem check`). Copied from 2.1.332:
//!
//! - Limits (`Wvt`, `RQr`): a file is large past `max(40,000, round(context tokens × 0.05 ×
//!   chars per token))` characters, the files together past `max(120,000, per-file limit)`.
//!   Both depend on the model ([`SizeModel`]): its context window and whether the client counts
//!   it at 4 characters per token (models up to Claude 4.6) or 3 (newer ones). Characters are
//!   UTF-16 units of the loaded content (JavaScript `length`).
//! - Files counted (`K_t`): entries of kind User, Project, Local and Managed (`BHe`), except the
//!   managed entries that are not files (`rln`: `<policyHelper>`, `<managed-settings>`, the
//!   personal cloud configuration); MEMORY.md never counts.
//! - Per-file (`dyr`): every counted file over the per-file limit, in load order.
//! - Total (`cyr`): the sum of the counted files that are NOT over the per-file limit is compared
//!   with the total limit; the warning then reports every counted file and all their
//!   characters (`BLn`'s summary), large ones included.
//!
//! The client shows them in `/status` (`OHa`, pinned by `tests/oracle/size-warnings/`).

use std::path::Path;

use serde::Serialize;

use super::{Kind, Loaded};
use crate::constants::{
    DEFAULT_CONTEXT_TOKENS, INSTRUCTION_TOTAL_WARN_UTF16 as TOTAL_WARN_FLOOR,
    INSTRUCTION_WARN_CONTEXT_SHARE as FILE_WARN_SHARE, INSTRUCTION_WARN_UTF16 as FILE_WARN_FLOOR,
};
use crate::text::js;

/// The model the size warnings assume.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SizeModel {
    /// Its context window, in tokens.
    pub context_tokens: u64,
    /// Characters per token the client assumes for it (`Hw`: 4 or 3).
    pub chars_per_token: u32,
}

impl Default for SizeModel {
    /// The client's fallback when it knows no context window (`nDt`), at 4 characters per token.
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
}

/// The size warnings of one session's startup list.
#[derive(Debug, Clone)]
pub struct SizeWarnings<'a> {
    /// Counted files over the per-file limit, in load order, with their size (`dyr`).
    pub large: Vec<(&'a Loaded, usize)>,
    /// The total warning, when the files under the per-file limit pass the total limit (`cyr`).
    pub total: Option<Total<'a>>,
}

/// The total warning's figures (`BLn`'s summary).
#[derive(Debug, Clone)]
pub struct Total<'a> {
    /// Every counted file, in load order, with its size.
    pub files: Vec<(&'a Loaded, usize)>,
    /// Characters of all of them (the figure the client prints).
    pub chars: usize,
    /// Characters of those under the per-file limit (the figure the client compares).
    pub under_limit_chars: usize,
}

/// The client's size warnings for `entries` under `model`.
pub fn warnings<'a>(entries: &'a [Loaded], model: &SizeModel) -> SizeWarnings<'a> {
    let limit = model.file_limit();
    let counted: Vec<(&Loaded, usize)> = entries
        .iter()
        .filter(|e| counted(e))
        .map(|e| (e, js::utf16_len(&e.content)))
        .collect();
    let large = counted
        .iter()
        .copied()
        .filter(|(_, n)| *n > limit)
        .collect();
    let under_limit_chars = counted
        .iter()
        .filter(|(_, n)| *n <= limit)
        .map(|(_, n)| n)
        .sum();
    let total = (under_limit_chars > model.total_limit()).then(|| Total {
        chars: counted.iter().map(|(_, n)| n).sum(),
        files: counted,
        under_limit_chars,
    });
    SizeWarnings { large, total }
}

/// Whether the client's size warnings count this entry (`K_t`: `BHe` and not `rln`).
pub fn counted(e: &Loaded) -> bool {
    match e.kind {
        Kind::User | Kind::Project | Kind::Local => true,
        Kind::Managed => !e.path.starts_with('<'),
        Kind::AutoMem => false,
    }
}

/// A path as the client's warnings show it (`Ho`): relative to the start directory when it is
/// inside it, else `~/…` under the home folder, else as it is.
pub fn shown(path: &str, cwd: &Path, home: &Path) -> String {
    let p = Path::new(path);
    if let Ok(rel) = p.strip_prefix(cwd) {
        let rel = rel.to_string_lossy();
        if !rel.is_empty() && !rel.starts_with("..") {
            return rel.into_owned();
        }
    }
    let home = home.to_string_lossy();
    match path.strip_prefix(&*home) {
        Some(rest) if rest.starts_with('/') && !home.is_empty() => format!("~{rest}"),
        _ => path.to_owned(),
    }
}

/// A loaded file of `n` characters, for the tests of the size warnings here and in the receipt.
#[cfg(test)]
pub(crate) fn test_loaded(kind: Kind, path: &str, n: usize) -> Loaded {
    Loaded {
        path: path.into(),
        kind,
        content: "x".repeat(n),
        why: crate::load::Why::UserFile,
        unverified: false,
        size: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::test_loaded as mk;
    use super::*;

    #[test]
    fn limits_follow_the_client_formula() {
        let m = SizeModel::default();
        assert_eq!((m.file_limit(), m.total_limit()), (40_000, 120_000));
        // The default model of 2.1.332 with an API key (Opus 5.5: 1M tokens at 3), whose
        // per-file limit is also where a lazily attached file is cut.
        let big = SizeModel {
            context_tokens: 1_000_000,
            chars_per_token: 3,
        };
        assert_eq!((big.file_limit(), big.total_limit()), (150_000, 150_000));
        assert_eq!(big.file_limit(), crate::constants::LAZY_FILE_LIMIT_UTF16);
        let small = SizeModel {
            context_tokens: 100_000,
            chars_per_token: 4,
        };
        assert_eq!(small.file_limit(), 40_000);
    }

    /// `cyr` leaves the files over the per-file limit out of the sum it compares, and reports
    /// them in the figures it prints.
    #[test]
    fn the_total_compares_the_files_under_the_limit_and_prints_them_all() {
        let m = SizeModel::default();
        let mut entries = vec![
            mk(Kind::Project, "/r/CLAUDE.md", 50_000),
            mk(Kind::Project, "/r/a.md", 39_000),
            mk(Kind::Project, "/r/b.md", 39_000),
            mk(Kind::Local, "/r/c.md", 39_000),
        ];
        let w = warnings(&entries, &m);
        assert_eq!(w.large.len(), 1);
        assert_eq!(w.large[0].0.path, "/r/CLAUDE.md");
        assert!(w.total.is_none(), "117,000 under the limit, 167,000 in all");
        entries.push(mk(Kind::User, "/h/CLAUDE.md", 3_001));
        let total = warnings(&entries, &m).total.unwrap();
        assert_eq!(
            (total.files.len(), total.chars, total.under_limit_chars),
            (5, 170_001, 120_001)
        );
    }

    #[test]
    fn managed_files_count_and_memory_and_pseudo_paths_do_not() {
        let m = SizeModel::default();
        let entries = [
            mk(Kind::Managed, "/etc/claude-code/CLAUDE.md", 40_000),
            mk(Kind::Managed, "<managed-settings>", 40_000),
            mk(Kind::AutoMem, "/h/MEMORY.md", 45_000),
            mk(Kind::Project, "/r/CLAUDE.md", 40_000),
            mk(Kind::Project, "/r/x.md", 40_000),
            mk(Kind::Local, "/r/CLAUDE.local.md", 1),
        ];
        let w = warnings(&entries, &m);
        assert!(w.large.is_empty());
        let total = w.total.expect("120,001 with the managed file");
        assert_eq!((total.files.len(), total.chars), (4, 120_001));
    }

    #[test]
    fn paths_shown_as_ho_shows_them() {
        let (cwd, home) = (Path::new("/r/p"), Path::new("/h"));
        assert_eq!(shown("/r/p/CLAUDE.md", cwd, home), "CLAUDE.md");
        assert_eq!(shown("/r/p/..x/CLAUDE.md", cwd, home), "/r/p/..x/CLAUDE.md");
        assert_eq!(shown("/r/CLAUDE.md", cwd, home), "/r/CLAUDE.md");
        assert_eq!(
            shown("/h/.claude/CLAUDE.md", cwd, home),
            "~/.claude/CLAUDE.md"
        );
        assert_eq!(shown("/hx/CLAUDE.md", cwd, home), "/hx/CLAUDE.md");
    }
}
