//! Measuring and cutting MEMORY.md the client's way (`HMo` + `_ht`): JS `trim`, lines counted as
//! `"\n"` + 1, size in UTF-16 code units; over 200 lines or 25,000 units the text is cut (lines
//! first, then size at the last newline at index ≤ 25,000, else a hard cut inside line 1) and a
//! warning is appended. Also the write-time check of the index (`wNn`/`w_t`/`IHe`) and the
//! client's number and preview formatters (`pn`, `PW`).
//!
//! Every index here is a UTF-16 unit index (`utf16_*`) unless named `*_bytes`.

use crate::text::js;

use crate::constants::{
    CUT_PREVIEW_UTF16, INDEX_FILE, INDEX_MAX_LINES, INDEX_MAX_UTF16, INDEX_TARGET_FRACTION,
    WRITE_CHECK_READ_BYTES, WRITE_CHECK_WARN_FRACTION,
};

/// MEMORY.md text measured and, when over a limit, cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// What the model gets before sanitizing: the trimmed text, or the kept part +
    /// `"\n\n> WARNING: "` + the warning. A lone high surrogate left by a hard cut inside a
    /// surrogate pair cannot live in a Rust string; it is dropped here (the sanitizer would remove
    /// it anyway).
    pub content: String,
    /// Lines the client counts (`"\n"` count + 1 of the trimmed text).
    pub lines: usize,
    /// UTF-16 units the client counts (`trimmed.length`).
    pub utf16: usize,
    /// Byte offset of the trimmed text in the input (what the leading trim removed).
    pub start_bytes: usize,
    /// Byte length of the trimmed text.
    pub trimmed_bytes: usize,
    /// The cut, when the text is over a limit.
    pub cut: Option<CutPoint>,
}

/// Where the text was cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutPoint {
    /// Over 200 lines.
    pub line_over: bool,
    /// Over 25,000 UTF-16 units.
    pub size_over: bool,
    /// Complete lines kept (0 = cut inside line 1).
    pub kept_lines: usize,
    /// UTF-16 units kept (`k.length`; may end inside a surrogate pair).
    pub kept_utf16: usize,
    /// Bytes of the trimmed text kept (a split surrogate pair's character is not kept).
    pub kept_bytes: usize,
    /// The warning text (after `> WARNING: `).
    pub warning: String,
}

/// Measures and cuts `body` (MEMORY.md after frontmatter and comment stripping) as the client does.
pub fn truncate(body: &str) -> Truncation {
    let n = js::trim(body);
    let start_bytes = n.as_ptr() as usize - body.as_ptr() as usize;
    // Measured on the bytes; the UTF-16 units are only spelled out for a cut.
    let lines = js::newlines(n) + 1;
    let utf16 = js::utf16_len(n);
    let line_over = lines > INDEX_MAX_LINES;
    let size_over = utf16 > INDEX_MAX_UTF16;
    let mut out = Truncation {
        content: n.to_owned(),
        lines,
        utf16,
        start_bytes,
        trimmed_bytes: n.len(),
        cut: None,
    };
    if !line_over && !size_over {
        return out;
    }
    let units: Vec<u16> = n.encode_utf16().collect();
    let nl = u16::from(b'\n');
    let mut k = if line_over {
        units
            .iter()
            .enumerate()
            .filter(|(_, u)| **u == nl)
            .nth(INDEX_MAX_LINES - 1)
            .map_or(utf16, |(i, _)| i)
    } else {
        utf16
    };
    if k > INDEX_MAX_UTF16 {
        let h = units[..=INDEX_MAX_UTF16].iter().rposition(|&u| u == nl);
        k = match h {
            Some(h) if h > 0 => h,
            _ => INDEX_MAX_UTF16,
        };
    }
    let kept_lines = if units.get(k) == Some(&nl) {
        units[..k].iter().filter(|&&u| u == nl).count() + 1
    } else {
        0
    };
    let x = k + 1;
    let first_dropped = if x >= utf16 {
        String::new()
    } else {
        let d = units[x..]
            .iter()
            .position(|&u| u == nl)
            .map_or(utf16, |p| x + p);
        js::trim(&String::from_utf16_lossy(&units[x..d])).to_owned()
    };
    let what = if kept_lines == 0 {
        format!("everything after the first {k} characters of line 1 was cut off")
    } else {
        let preview = if first_dropped.is_empty() {
            String::new()
        } else {
            format!(" (\"{}\")", preview(&first_dropped, CUT_PREVIEW_UTF16))
        };
        format!(
            "{} of {lines} lines were cut off, starting at line {}{preview}",
            lines - kept_lines,
            kept_lines + 1
        )
    };
    let size = if size_over && !line_over {
        format!(
            "{} (limit: {}) \u{2014} index entries are too long",
            pn(utf16 as u64),
            pn(INDEX_MAX_UTF16 as u64)
        )
    } else if line_over && !size_over {
        format!("{lines} lines (limit: {INDEX_MAX_LINES})")
    } else {
        format!("{lines} lines and {}", pn(utf16 as u64))
    };
    let warning = format!(
        "MEMORY.md is {size}. Only part of it was loaded: {what}. Keep index entries to one line under ~200 chars; move detail into topic files."
    );
    let kept_bytes = byte_prefix(n, k);
    out.content = format!("{}\n\n> WARNING: {warning}", &n[..kept_bytes]);
    out.cut = Some(CutPoint {
        line_over,
        size_over,
        kept_lines,
        kept_utf16: k,
        kept_bytes,
        warning,
    });
    out
}

/// Byte length of the longest prefix of `s` holding at most `utf16` units (a character split by
/// the limit is left out).
pub fn byte_prefix(s: &str, utf16: usize) -> usize {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > utf16 {
            return i;
        }
    }
    s.len()
}

/// The client's byte-size formatter `pn`: `"N bytes"` under 1 KiB, else `KB`/`MB`/`GB` with one
/// decimal (JS `toFixed(1)`, ties away from zero) and no trailing `.0`.
pub fn pn(n: u64) -> String {
    if n < 1024 {
        return format!("{n} bytes");
    }
    let (shift, unit) = if n < 1024 * 1024 {
        (10, "KB")
    } else if n < 1024 * 1024 * 1024 {
        (20, "MB")
    } else {
        (30, "GB")
    };
    // n / 2^shift is exact in binary, so toFixed(1) is round-half-up of n·10 / 2^shift.
    let tenths = ((u128::from(n) * 10) + (1u128 << (shift - 1))) >> shift;
    let (whole, frac) = (tenths / 10, tenths % 10);
    if frac == 0 {
        format!("{whole}{unit}")
    } else {
        format!("{whole}.{frac}{unit}")
    }
}

/// The client's preview `PW(s, n)`: `s` when it fits in `n` UTF-16 units, else cut to `n - 1`
/// units (never leaving a lone high surrogate), preferably at the last whitespace when that keeps
/// more than `n / 2` units, plus `…`.
pub fn preview(s: &str, n: usize) -> String {
    if js::utf16_len(s) <= n {
        return s.to_owned();
    }
    if n == 0 {
        return "\u{2026}".to_owned();
    }
    let e = &s[..byte_prefix(s, n - 1)];
    let at_space = e
        .char_indices()
        .rev()
        .find(|(_, c)| js::is_js_space(*c))
        .map(|(i, _)| js::trim_end(&e[..i]))
        .unwrap_or("");
    let kept = if js::utf16_len(at_space) * 2 > n {
        at_space
    } else {
        js::trim_end(e)
    };
    format!("{kept}\u{2026}")
}

/// The message of the write-time check of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteWarning {
    /// The text the model receives as hook additional context.
    pub text: String,
    /// Over a limit (not only approaching it).
    pub over: bool,
    /// Which dimension decided: `"bytes"` (UTF-16 units, despite the name) or `"lines"`.
    pub dimension: &'static str,
}

/// The client's check after a Write/Edit of the auto-memory MEMORY.md (§12), given the whole
/// file: reads at most the first 100,000 bytes; when the whole file fits, measures it after
/// frontmatter and comment stripping, else the raw prefix. `None` when under 80 % of both limits
/// or the file is empty.
pub fn write_check(file_text: &str) -> Option<WriteWarning> {
    write_check_bytes(file_text.as_bytes())
}

/// [`write_check`] on the file's bytes (an invalid UTF-8 sequence becomes U+FFFD, as in the client).
pub fn write_check_bytes(file: &[u8]) -> Option<WriteWarning> {
    write_check_with(file, true)
}

/// The check for another `MEMORY.md` inside a memory folder (not the auto-memory index): the
/// client measures the raw first 100,000 bytes, never stripped.
pub fn write_check_other_index(file: &[u8]) -> Option<WriteWarning> {
    write_check_with(file, false)
}

fn write_check_with(file: &[u8], strip: bool) -> Option<WriteWarning> {
    if file.is_empty() {
        return None;
    }
    let whole = strip && file.len() <= WRITE_CHECK_READ_BYTES;
    let text = String::from_utf8_lossy(&file[..file.len().min(WRITE_CHECK_READ_BYTES)]);
    let measured = if whole {
        let split = crate::text::frontmatter::split(&text);
        crate::text::comments::strip(split.body).into_owned()
    } else {
        text.into_owned()
    };
    let n = js::trim(&measured);
    check_measured(js::utf16_len(n), n.matches('\n').count() + 1)
}

/// `w_t` + `IHe` for the index: size (UTF-16 units) against 25,000, lines against 200.
pub fn check_measured(utf16: usize, lines: usize) -> Option<WriteWarning> {
    let size_frac = utf16 as f64 / INDEX_MAX_UTF16 as f64;
    let line_frac = lines as f64 / INDEX_MAX_LINES as f64;
    let (frac, over, dimension, size, cap, target) = if line_frac > size_frac {
        (
            line_frac,
            lines > INDEX_MAX_LINES,
            "lines",
            format!("{lines} lines"),
            format!("{INDEX_MAX_LINES}-line"),
            format!(
                "{} lines",
                (INDEX_MAX_LINES as f64 * INDEX_TARGET_FRACTION).floor() as u64
            ),
        )
    } else {
        (
            size_frac,
            utf16 > INDEX_MAX_UTF16,
            "bytes",
            pn(utf16 as u64),
            pn(INDEX_MAX_UTF16 as u64),
            pn((INDEX_MAX_UTF16 as f64 * INDEX_TARGET_FRACTION).floor() as u64),
        )
    };
    if frac < WRITE_CHECK_WARN_FRACTION {
        return None;
    }
    let (label, path) = ("memory index", INDEX_FILE);
    let head = if over {
        format!(
            "Error: this write left the {label} at {path} at {size}, over its {cap} read limit. The write succeeded, but everything past the limit is silently dropped each time the index is loaded \u{2014} entries at the end are already invisible to readers. Rewrite it"
        )
    } else {
        format!("The {label} at {path} is {size}, approaching the {cap} read limit. Compact it")
    };
    Some(WriteWarning {
        text: format!(
            "{head} to under {target} now: keep one line per entry, move detail into topic files, and merge or drop stale entries."
        ),
        over,
        dimension,
    })
}

#[cfg(test)]
mod tests;
