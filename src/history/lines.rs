//! Transcripts read line by line, never whole: a line the caller does not want is passed over
//! as it streams by (only its first [`PEEK`] bytes are looked at), and a wanted line is held
//! whole only up to [`MAX_LINE`] bytes; a longer one is passed over and reported. Memory is so
//! bounded by the largest wanted line, not by the file (the client writes request blobs and tool
//! results of hundreds of KB on one line, and transcripts of hundreds of MB).
//!
//! A last line without its `\n` (a session still writing, a crash mid-line) is handed over as
//! [`Item::Line`] with `terminated: false`: the caller decides whether it parses.

use std::io::{self, Read};

/// Bytes of a line shown to the caller to decide whether it wants the whole line.
pub const PEEK: usize = 4096;

/// Longest line held whole (16 MiB): a wanted line longer than this is skipped and reported
/// ([`Item::TooLong`]). The records ccmem reads (the start block, an attached file, a tool call)
/// hold at most a few files of the client's 4 MiB read cap each.
pub const MAX_LINE: usize = 16 << 20;

/// Size of one read, and of the buffer for small files.
const CHUNK: usize = 256 << 10;

/// One step through the file.
#[derive(Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// A whole line, without its `\n`.
    Line {
        /// 1-based line number.
        line: u64,
        /// Byte offset of its start in the file.
        offset: u64,
        /// Its bytes.
        bytes: &'a [u8],
        /// `false` for a last line the file ends inside (no `\n`).
        terminated: bool,
    },
    /// A line the caller did not want, passed over.
    Skipped {
        /// 1-based line number.
        line: u64,
    },
    /// A wanted line longer than [`MAX_LINE`], passed over.
    TooLong {
        /// 1-based line number.
        line: u64,
        /// Its length in bytes.
        len: u64,
    },
}

/// A line reader over `R` (see the module documentation).
#[derive(Debug)]
pub struct Lines<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    line: u64,
    offset: u64,
}

impl<R: Read> Lines<R> {
    /// A reader whose buffer starts at `size_hint` bytes (the file's size, for small files),
    /// at most one read's worth.
    pub fn new(inner: R, size_hint: u64) -> Self {
        let first = usize::try_from(size_hint.saturating_add(1))
            .unwrap_or(CHUNK)
            .clamp(PEEK, CHUNK);
        Lines {
            inner,
            buf: vec![0; first],
            start: 0,
            end: 0,
            eof: false,
            line: 0,
            offset: 0,
        }
    }

    /// The next line, or `None` at the end. `want(peek, whole)` sees the line's first bytes
    /// (`whole`: all of it) and says whether the whole line is needed.
    pub fn next(&mut self, want: impl FnOnce(&[u8], bool) -> bool) -> io::Result<Option<Item<'_>>> {
        let mut scanned = 0;
        let nl = loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start + scanned..self.end]) {
                break Some(scanned + i);
            }
            scanned = self.end - self.start;
            if scanned >= PEEK || self.eof {
                break None;
            }
            self.fill()?;
        };
        if self.start == self.end && self.eof {
            return Ok(None);
        }
        self.line += 1;
        let line = self.line;
        let offset = self.offset;
        let shown = nl.unwrap_or(self.end - self.start).min(PEEK);
        let whole = match nl {
            Some(n) => n <= PEEK,
            None => self.eof && self.end - self.start <= PEEK,
        };
        if !want(&self.buf[self.start..self.start + shown], whole) {
            match nl {
                Some(n) => self.consume(n + 1),
                None => {
                    self.pass_over()?;
                }
            }
            return Ok(Some(Item::Skipped { line }));
        }
        let mut nl = nl;
        loop {
            if let Some(n) = nl {
                let range = self.start..self.start + n;
                self.consume(n + 1);
                return Ok(Some(Item::Line {
                    line,
                    offset,
                    bytes: &self.buf[range],
                    terminated: true,
                }));
            }
            if self.end - self.start > MAX_LINE {
                let len = self.pass_over()?;
                return Ok(Some(Item::TooLong { line, len }));
            }
            if self.eof {
                let range = self.start..self.end;
                self.consume(self.end - self.start);
                return Ok(Some(Item::Line {
                    line,
                    offset,
                    bytes: &self.buf[range],
                    terminated: false,
                }));
            }
            let from = self.end - self.start;
            self.fill()?;
            nl = memchr::memchr(b'\n', &self.buf[self.start + from..self.end]).map(|i| from + i);
        }
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.offset += n as u64;
    }

    /// Drops the rest of the current line (through its `\n`) without keeping it; returns the
    /// line's length.
    fn pass_over(&mut self) -> io::Result<u64> {
        let mut len = 0u64;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                len += i as u64;
                self.consume(i + 1);
                return Ok(len);
            }
            len += (self.end - self.start) as u64;
            self.consume(self.end - self.start);
            if self.eof {
                return Ok(len);
            }
            // Nothing is kept: read the next stretch into the buffer's start.
            self.start = 0;
            self.end = 0;
            self.fill()?;
        }
    }

    /// Reads more bytes after `end`, moving the unread part to the front or growing the buffer
    /// (up to a wanted line's size) when it is full.
    fn fill(&mut self) -> io::Result<()> {
        if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                let grown = (self.buf.len() * 2).clamp(CHUNK, MAX_LINE + CHUNK);
                self.buf.resize(grown, 0);
            }
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item of `text` as (line, kept bytes or a marker).
    fn all(text: &[u8], want: impl Fn(&[u8], bool) -> bool) -> Vec<(u64, String)> {
        let mut r = Lines::new(text, text.len() as u64);
        let mut out = Vec::new();
        while let Some(item) = r.next(&want).unwrap() {
            out.push(match item {
                Item::Line {
                    line,
                    bytes,
                    terminated,
                    ..
                } => (
                    line,
                    format!(
                        "{}{}",
                        String::from_utf8_lossy(bytes),
                        if terminated { "" } else { "…" }
                    ),
                ),
                Item::Skipped { line } => (line, "-".into()),
                Item::TooLong { line, len } => (line, format!("long {len}")),
            });
        }
        out
    }

    #[test]
    fn whole_lines_skipped_lines_and_a_half_written_last_line() {
        let got = all(b"a\nskip me\n\nc\nhalf", |p, _| !p.starts_with(b"skip"));
        assert_eq!(
            got,
            vec![
                (1, "a".into()),
                (2, "-".into()),
                (3, "".into()),
                (4, "c".into()),
                (5, "half…".into())
            ]
        );
        assert!(all(b"", |_, _| true).is_empty());
    }

    #[test]
    fn a_line_over_the_cap_is_passed_over_in_bounded_memory_and_reading_goes_on() {
        let mut text = vec![b'x'; MAX_LINE + 3 * CHUNK + 17];
        text.extend_from_slice(b"\nnext\n");
        let mut r = Lines::new(&text[..], text.len() as u64);
        assert_eq!(
            r.next(|_, _| true).unwrap(),
            Some(Item::TooLong {
                line: 1,
                len: (MAX_LINE + 3 * CHUNK + 17) as u64
            })
        );
        assert!(r.buf.len() <= MAX_LINE + 2 * CHUNK, "{}", r.buf.len());
        assert!(matches!(
            r.next(|_, _| true).unwrap(),
            Some(Item::Line {
                bytes: b"next",
                line: 2,
                ..
            })
        ));
    }

    #[test]
    fn an_unwanted_big_line_never_grows_the_buffer() {
        let mut text = vec![b'y'; 5 * CHUNK];
        text.extend_from_slice(b"\nok\n");
        let mut r = Lines::new(&text[..], text.len() as u64);
        assert_eq!(
            r.next(|_, _| false).unwrap(),
            Some(Item::Skipped { line: 1 })
        );
        assert_eq!(r.buf.len(), CHUNK);
        let Some(Item::Line { bytes, offset, .. }) = r.next(|_, _| true).unwrap() else {
            panic!()
        };
        assert_eq!((bytes, offset), (&b"ok"[..], (5 * CHUNK + 1) as u64));
    }

    #[test]
    fn peek_says_whether_it_shows_the_whole_line() {
        let long = format!("{}\nshort\n{}", "z".repeat(PEEK * 2), "w".repeat(10));
        let mut seen = Vec::new();
        let mut r = Lines::new(long.as_bytes(), 7);
        while r
            .next(|p, whole| {
                seen.push((p.len(), whole));
                true
            })
            .unwrap()
            .is_some()
        {}
        assert_eq!(seen, vec![(PEEK, false), (5, true), (10, true)]);
    }

    /// A reader that hands out one byte at a time (and an interruption now and then).
    struct Trickle<'a>(&'a [u8], usize);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.1 += 1;
            if self.1.is_multiple_of(7) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }

    #[test]
    fn short_reads_and_interruptions_give_the_same_lines() {
        let text = b"first line\nsecond\n\nthird has more bytes\nlast";
        let mut r = Lines::new(Trickle(text, 0), 0);
        let mut got = Vec::new();
        while let Some(item) = r.next(|_, _| true).unwrap() {
            if let Item::Line { bytes, .. } = item {
                got.push(String::from_utf8_lossy(bytes).into_owned());
            }
        }
        assert_eq!(
            got,
            ["first line", "second", "", "third has more bytes", "last"]
        );
    }
}
