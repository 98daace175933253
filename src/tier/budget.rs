//! Measuring MEMORY.md the way the client does: frontmatter and HTML comments stripped, JS
//! `trim`, then `\n` count + 1 lines and UTF-16 units (SPEC-automemory rules 5–7).

use std::path::Path;

use serde::Serialize;

use crate::text::js::{trim, utf16_len};

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
    lines: 120,
    utf16: 16_000,
};

/// The client's cap (lines / UTF-16 units loaded from MEMORY.md).
pub const CAP: Target = Target {
    lines: crate::text::cut::MAX_LINES,
    utf16: crate::text::cut::MAX_UTF16,
};

impl Target {
    /// Whether `size` is within this budget (the limits themselves pass, as in the client).
    pub fn fits(&self, size: Size) -> bool {
        size.lines <= self.lines && size.utf16 <= self.utf16
    }
}

/// Measures index text as the client counts it at load.
pub fn measure(text: &str) -> Size {
    let body = crate::text::frontmatter::split(text).body;
    let stripped = crate::text::comments::strip(body);
    let counted = trim(&stripped);
    if counted.is_empty() {
        return Size::default();
    }
    Size {
        lines: counted.matches('\n').count() + 1,
        utf16: utf16_len(counted),
    }
}

/// Measures the index file on disk (lossy UTF-8, as the client decodes it).
///
/// When `load::automem::measure_index` lands this should delegate to it so that the proof uses
/// the loader's own measurement.
pub fn on_disk(path: &Path) -> std::io::Result<Size> {
    let bytes = crate::fsread::read_regular(path, 4 << 20)?.unwrap_or_default();
    Ok(measure(&String::from_utf8_lossy(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
