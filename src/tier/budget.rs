//! Measuring MEMORY.md the way the client does: frontmatter and HTML comments stripped, JS
//! `trim`, then `\n` count + 1 lines and UTF-16 units (SPEC-automemory rules 5–7).

use std::path::Path;

use serde::Serialize;

use crate::text::js::trim;

/// Lines and UTF-16 units the client counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Size {
    /// Lines counted.
    pub lines: usize,
    /// UTF-16 units counted.
    pub utf16: usize,
}

/// A line/size budget for MEMORY.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Target {
    /// Most lines.
    pub lines: usize,
    /// Most UTF-16 units.
    pub utf16: usize,
}

/// Default target: well under the client's cap, so new entries have room.
pub const DEFAULT_TARGET: Target = Target {
    lines: crate::constants::TARGET_LINES,
    utf16: crate::constants::TARGET_UTF16,
};

/// The client's cap (lines / UTF-16 units loaded from MEMORY.md).
pub const CAP: Target = Target {
    lines: crate::constants::INDEX_MAX_LINES,
    utf16: crate::constants::INDEX_MAX_UTF16,
};

impl Target {
    /// Whether `size` is within this budget (the limits themselves pass, as in the client).
    pub fn fits(&self, size: Size) -> bool {
        size.lines <= self.lines && size.utf16 <= self.utf16
    }
}

/// Measures index text as the client counts it at load (rules 5–7: frontmatter and comments
/// stripped, then `text::cut::truncate`'s counts). An empty result counts as 0 lines.
pub fn measure(text: &str) -> Size {
    let body = crate::text::frontmatter::split(text).body;
    let stripped = crate::text::comments::strip(body);
    if trim(&stripped).is_empty() {
        return Size::default();
    }
    let t = crate::text::cut::truncate(&stripped);
    Size {
        lines: t.lines,
        utf16: t.utf16,
    }
}

/// Measures the index file on disk with the loader itself (`load::automem::measure_index`), so
/// the proof after writing uses exactly what the client would count.
pub fn on_disk(path: &Path) -> std::io::Result<Size> {
    use crate::load::automem::{IndexState, measure_index};
    match measure_index(path) {
        IndexState::Loaded(m) | IndexState::FromEnv(m) if m.utf16 > 0 => Ok(Size {
            lines: m.lines,
            utf16: m.utf16,
        }),
        IndexState::Loaded(_) | IndexState::FromEnv(_) | IndexState::Missing => Ok(Size::default()),
        other => Err(std::io::Error::other(format!(
            "the loader cannot measure it: {}",
            serde_json::to_string(&other).unwrap_or_default()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_time_measure_equals_the_loader_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        let texts = [
            "- a\n- b\n",
            "\u{feff}---\r\nname: x\r\n---\r\n- 日本\r\n- 😀\r\n",
            "<!-- c -->\n\n- a\r\n\n  \n- b\u{3000}\n",
            "# T\n\n<!--\nmulti\n-->\n- [x](x.md) — y\n",
            "---\nonly: fm\n---\n",
            "",
        ];
        for text in texts {
            #[allow(clippy::disallowed_methods, reason = "test fixture")]
            std::fs::write(&path, text).unwrap();
            assert_eq!(measure(text), on_disk(&path).unwrap(), "{text:?}");
        }
    }

    #[test]
    fn counts_utf16_and_lines_after_frontmatter_and_trim() {
        let s = measure("---\nname: x\n---\n\n- 日本😀\r\n- b\n\n");
        assert_eq!(
            s,
            Size {
                lines: 2,
                utf16: 11
            }
        );
        assert_eq!(measure(" \n\t"), Size::default());
        assert_eq!(
            measure("<!-- note -->\n- a\r\n- b"),
            Size { lines: 2, utf16: 7 },
            "a removed comment LF-normalizes the text (rule 6.3)"
        );
        assert!(DEFAULT_TARGET.fits(Size {
            lines: 120,
            utf16: 16_000
        }));
        assert!(!CAP.fits(Size {
            lines: 201,
            utf16: 0
        }));
    }
}
