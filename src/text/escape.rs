//! The one escaper for people: what a terminal would act on instead of showing, made visible.
//!
//! Memory files, their names and everything else ccmem reads can hold characters a terminal
//! obeys: C0 controls (`ESC` starts sequences that set the clipboard (OSC 52), the window title
//! (OSC 0) or clear the screen (CSI 2J); `CR` overwrites a line; `BEL` rings), `DEL`, C1 controls
//! (U+009B is a one-character CSI in terminals that read 8-bit controls), bidirectional
//! overrides and isolates (U+202E shows text in an order other than its bytes'), and invisible
//! characters that make two names look the same (U+200B, U+2060, U+FEFF, tag characters). Every
//! one of them is shown as an escape (`\x1b`, `\u{202e}`) wherever ccmem prints for a person.
//! Zero-width joiners and non-joiners (U+200D, U+200C) are kept: Persian, the Indic scripts and
//! emoji need them, and they move or hide nothing.
//!
//! Two ways in, one rule ([`is_hidden`]):
//! - [`Shown`] wraps a text from a file or a file name where a renderer puts it; it escapes line
//!   breaks too, so a name cannot start a line of its own;
//! - [`Guard`] is the writer every command prints through (`cli::output`): it escapes whatever
//!   a renderer left, keeping only ccmem's own line breaks, tabs and styles (the few SGR
//!   colours and weights ccmem uses). In JSON it writes the `\uXXXX` escape instead, which
//!   reads back as the same character: a JSON document keeps its exact strings.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};

/// Whether a terminal would act on `c` rather than show it, or it hides itself (see the module
/// docs). Tab and line feed are not: ccmem's own output is made of lines.
pub fn is_hidden(c: char) -> bool {
    match c {
        '\t' | '\n' => false,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional marks, embeddings, overrides and isolates.
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        // Invisible: zero-width space, word joiner and invisible operators, BOM, Mongolian vowel
        // separator, interlinear annotations, tag characters; line and paragraph separators.
        '\u{200b}'
        | '\u{2060}'..='\u{2064}'
        | '\u{feff}'
        | '\u{180e}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}'
        | '\u{2028}'
        | '\u{2029}' => true,
        _ => false,
    }
}

/// The escape a person sees for `c`: `\x1b` up to U+00FF, `\u{202e}` above.
fn write_escape(out: &mut impl fmt::Write, c: char) -> fmt::Result {
    match c as u32 {
        n @ 0..=0xff => write!(out, "\\x{n:02x}"),
        n => write!(out, "\\u{{{n:x}}}"),
    }
}

/// `text` with every [`is_hidden`] character and every line break escaped (borrowed when
/// there is none, as nearly always).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\n' || is_hidden(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c == '\n' || is_hidden(c) {
            let _ = write_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text from a file or a file name, as a person sees it: its `Display` is [`escape`]'s.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape(self.0))
    }
}

/// What a [`Guard`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Text for a terminal; `styles`: ccmem's own SGR sequences (colours and weights) pass.
    Text {
        /// Let ccmem's styles through.
        styles: bool,
    },
    /// A JSON document: a hidden character (only ever inside a string) is written as its
    /// `\uXXXX` escape, which reads back as itself.
    Json,
}

/// A writer that escapes, on its way out, every [`is_hidden`] character a renderer left (see
/// the module docs). Bytes are held back only while a character or an escape sequence is
/// incomplete; the rest is written at once, and everything by `flush` or when it is dropped.
pub struct Guard<W: Write> {
    inner: W,
    mode: Mode,
    pending: Vec<u8>,
}

impl<W: Write> Guard<W> {
    /// Guards `inner`.
    pub fn new(inner: W, mode: Mode) -> Self {
        Guard {
            inner,
            mode,
            pending: Vec::new(),
        }
    }

    /// Escapes and writes `pending` up to `end` (a character boundary). Only the bytes
    /// [`LOOK_AT`] flags are decoded; the runs between them are copied as they are.
    fn emit(&mut self, end: usize) -> io::Result<()> {
        let chunk = String::from_utf8_lossy(&self.pending[..end]);
        let bytes = chunk.as_bytes();
        let mut out: Option<String> = None;
        let (mut copied, mut i) = (0, 0);
        while i < bytes.len() {
            if !LOOK_AT[usize::from(bytes[i])] {
                i += 1;
                continue;
            }
            let rest = &chunk[i..];
            let c = rest.chars().next().unwrap_or('\0');
            let style = match (c, self.mode) {
                ('\u{1b}', Mode::Text { styles: true }) => style_len(rest),
                _ => 0,
            };
            if style > 0 || !is_hidden(c) {
                i += style.max(c.len_utf8());
                continue;
            }
            let o = out.get_or_insert_with(|| String::with_capacity(chunk.len() + 16));
            o.push_str(&chunk[copied..i]);
            match self.mode {
                Mode::Text { .. } => {
                    let _ = write_escape(o, c);
                }
                Mode::Json => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = fmt::Write::write_fmt(o, format_args!("\\u{u:04x}"));
                    }
                }
            }
            i += c.len_utf8();
            copied = i;
        }
        match out {
            None => self.inner.write_all(bytes)?,
            Some(mut o) => {
                o.push_str(&chunk[copied..]);
                self.inner.write_all(o.as_bytes())?;
            }
        }
        self.pending.drain(..end);
        Ok(())
    }

    /// Where the complete part of `pending` ends: before a character cut short, and before an
    /// `ESC` whose sequence may still be arriving.
    fn complete(&self) -> usize {
        let p = &self.pending;
        let mut end = p.len();
        // A UTF-8 sequence cut short: its lead byte is among the last three.
        for back in 1..=3.min(p.len()) {
            let b = p[p.len() - back];
            if b & 0xc0 == 0xc0 {
                let need = if b >= 0xf0 {
                    4
                } else if b >= 0xe0 {
                    3
                } else {
                    2
                };
                if need > back {
                    end = p.len() - back;
                }
                break;
            }
            if b < 0x80 {
                break;
            }
        }
        if let Some(esc) = p[..end].iter().rposition(|&b| b == 0x1b)
            && end - esc <= MAX_STYLE_LEN
            && !p[esc..end].contains(&b'm')
        {
            end = esc;
        }
        end
    }
}

/// Bytes after which the fast path looks closer: C0 controls but tab and line feed, `DEL`, and
/// the lead bytes of every character [`is_hidden`] holds (C2: C1; D8: U+061C; E1: U+180E; E2:
/// U+2000–U+2FFF; EF: U+F000–U+FFFF; F3: planes 14–15).
static LOOK_AT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b < 0x20 && b != 0x09 && b != 0x0a)
            || b == 0x7f
            || matches!(b, 0xc2 | 0xd8 | 0xe1 | 0xe2 | 0xef | 0xf3);
        b += 1;
    }
    t
};

/// The longest style sequence [`style_len`] lets through.
const MAX_STYLE_LEN: usize = 32;

/// The length of the style sequence `text` starts with, or 0: `ESC [ P m` with each of the `;`
/// separated parameters P one of the SGR codes ccmem's styles use (reset, bold, dim, italic,
/// underline and their ends, the 16 colours and the default colour). Anything else a terminal
/// would act on (cursor moves, OSC, other SGR codes) is not a style of ccmem's.
fn style_len(text: &str) -> usize {
    let Some(rest) = text.strip_prefix("\u{1b}[") else {
        return 0;
    };
    let Some(end) = rest.find('m').filter(|&e| e + 3 <= MAX_STYLE_LEN) else {
        return 0;
    };
    let ours = rest[..end].split(';').all(|p| {
        matches!(
            p.parse::<u8>(),
            Ok(0..=4 | 22..=24 | 30..=37 | 39 | 90..=97)
        ) || p.is_empty()
    });
    if ours { end + 3 } else { 0 }
}

impl<W: Write> Write for Guard<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let end = self.complete();
        self.emit(end)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let end = self.pending.len();
        self.emit(end)?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Guard<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a\u{1b}]52;c;Y3VybA==\u{7}b\u{1b}]0;t\u{7}\u{1b}[2J\r\u{9b}31m\u{202e}\u{2066}\u{200b}\u{e0041}z";

    #[test]
    fn names_and_lines_show_every_control_as_an_escape() {
        assert_eq!(
            escape(HOSTILE),
            "a\\x1b]52;c;Y3VybA==\\x07b\\x1b]0;t\\x07\\x1b[2J\\x0d\\x9b31m\\u{202e}\\u{2066}\\u{200b}\\u{e0041}z"
        );
        assert_eq!(Shown("two\nlines").to_string(), "two\\x0alines");
        // Nothing to escape: borrowed; joiners and tabs stay.
        let kept = "می\u{200c}خواهم 👨\u{200d}👩\tx";
        assert!(matches!(escape(kept), Cow::Borrowed(k) if k == kept));
    }

    fn guarded(mode: Mode, writes: &[&[u8]]) -> String {
        let mut out = Vec::new();
        {
            let mut g = Guard::new(&mut out, mode);
            for w in writes {
                g.write_all(w).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_guard_keeps_lines_tabs_and_only_our_styles() {
        let text = format!("\u{1b}[1m\u{1b}[91mbold red\u{1b}[0m\t{HOSTILE}\n\u{1b}[38;5;201mx\n");
        let with = guarded(Mode::Text { styles: true }, &[text.as_bytes()]);
        assert!(
            with.starts_with("\u{1b}[1m\u{1b}[91mbold red\u{1b}[0m\ta\\x1b]52"),
            "{with}"
        );
        assert!(with.ends_with("z\n\\x1b[38;5;201mx\n"), "{with}");
        let without = guarded(Mode::Text { styles: false }, &[text.as_bytes()]);
        assert!(
            !without.contains('\u{1b}') && without.contains("\\x1b[1m"),
            "{without}"
        );
        assert!(!with.chars().any(|c| is_hidden(c) && c != '\u{1b}'));
    }

    #[test]
    fn a_character_or_style_split_between_writes_is_held_back() {
        let bidi = "\u{202e}".as_bytes();
        let out = guarded(
            Mode::Text { styles: true },
            &[b"x", &bidi[..1], &bidi[1..], b"\x1b[", b"1", b"mB\x1b[0m"],
        );
        assert_eq!(out, "x\\u{202e}\u{1b}[1mB\u{1b}[0m");
    }

    #[test]
    fn json_keeps_its_strings_exact() {
        let doc = serde_json::json!({ "name": HOSTILE, "n": "\u{7f}\u{e0041}" }).to_string();
        let out = guarded(Mode::Json, &[doc.as_bytes()]);
        assert!(!out.chars().any(is_hidden), "{out}");
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["name"], HOSTILE);
        assert_eq!(back["n"], "\u{7f}\u{e0041}");
    }
}
