//! Links between memory files: what a reader of MEMORY.md, a hub or a topic file follows to
//! another memory. Syntax only; resolving a target against a library is `memory::library`'s job.
//!
//! - Markdown links `[Title](feedback_x-2.md)`, `(./dir/x.md#sec)`, `(<y z.md>)`,
//!   `(~/notes/x.md)`, `(../x.md)`: the target must name a `.md` file. Images (`![…](…)`),
//!   URLs (anything with a scheme), `mailto:` and anchors alone are not links to a memory.
//! - Reference definitions `[label]: x.md` (the line a reference link `[text][label]` or
//!   `[label]` leads to): the definition is the link, as a reader follows it.
//! - Wiki links `[[name]]`, `[[name|label]]`, `[[x.md]]`: the client's own link between
//!   memories, where `name` is the other memory's frontmatter `name:` slug (system prompt,
//!   2.1.332: "a `[[name]]` that doesn't match an existing memory yet is fine").
//! - A code span is a link only where it names a file path: `` `project_y.md` ``,
//!   `` `~/notes/x.md` ``. A bare extension (`` `.md` ``), a pattern (`` `*.md` ``,
//!   `` `<type>_<topic>.md` ``) or prose with spaces is not.
//!
//! HTML comments are skipped by [`LineScanner`] (the client strips them before the model
//! sees the index), and so are fenced code blocks.

/// A reference from one line to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The target as written, fragment and a leading `./` removed (`dir/x.md`, `~/x.md`, or
    /// `x` for `[[x]]`).
    pub target: String,
    /// Which syntax.
    pub syntax: Syntax,
    /// Byte offset of the link in the line.
    pub offset: usize,
}

/// The syntax a link was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `[text](target)`.
    Markdown,
    /// `[label]: target`, a reference definition.
    Reference,
    /// `[[target]]`: a frontmatter `name`, or a file name with or without `.md`.
    Wiki,
    /// `` `target.md` ``.
    CodeSpan,
}

/// Every file link in `line`, in order (no comment or fence tracking: see [`LineScanner`]).
pub fn links(line: &str) -> Vec<Link> {
    let mut out = Vec::new();
    each_link(line, |l| out.push(l));
    out
}

/// [`links`], handed over one at a time.
///
/// Linear in the line: a search for a closer (`]]`, `)`, a run of backticks) that fails once
/// fails at every later place too, so it is not repeated (400 KB of `[[[[` took 11 s when each
/// `[[` searched the rest of the line again), and the `[` that opens a `](` is tracked as the
/// line is walked instead of searched backwards each time.
fn each_link(line: &str, mut found: impl FnMut(Link)) {
    if let Some(def) = reference_definition(line) {
        found(def);
        return;
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    // The last `[` before `i`, and the closers known to be absent from `i` on.
    let mut last_open: Option<usize> = None;
    let (mut no_wiki_close, mut no_paren_close) = (false, false);
    let mut no_tick_close: Vec<usize> = Vec::new();
    // Moves `i` to `to`, keeping `last_open` up to date over the bytes passed.
    let skip = |from: usize, to: usize, last_open: &mut Option<usize>| {
        let to = to.min(bytes.len());
        if let Some(k) = memchr::memrchr(b'[', &bytes[from..to]) {
            *last_open = Some(from + k);
        }
        to
    };
    // Only `[[`, `](` and a backtick start a link: jump from one of `[`, `]`, `` ` `` to the next.
    while let Some(k) = memchr::memchr3(b'[', b']', b'`', &bytes[i..]) {
        i += k;
        match bytes[i] {
            b'[' if !no_wiki_close && bytes.get(i + 1) == Some(&b'[') => {
                match memchr::memmem::find(&bytes[i + 2..], b"]]") {
                    Some(end) => {
                        let inner = &line[i + 2..i + 2 + end];
                        let target = inner.split('|').next().unwrap_or("").trim();
                        if !target.is_empty() && !target.contains('[') {
                            push(&mut found, target, Syntax::Wiki, i);
                        }
                        i = skip(i, i + end + 4, &mut last_open);
                        continue;
                    }
                    None => no_wiki_close = true,
                }
            }
            b']' if !no_paren_close && bytes.get(i + 1) == Some(&b'(') => {
                match memchr::memchr(b')', &bytes[i + 2..]) {
                    Some(end) => {
                        let raw = line[i + 2..i + 2 + end].trim();
                        let raw = match raw.strip_prefix('<') {
                            Some(rest) => rest.split('>').next().unwrap_or(""),
                            None => raw.split_whitespace().next().unwrap_or(""),
                        };
                        let start = last_open.unwrap_or(i);
                        let image = start > 0 && bytes[start - 1] == b'!';
                        if !image {
                            push(&mut found, raw, Syntax::Markdown, start);
                        }
                        i = skip(i, i + end + 3, &mut last_open);
                        continue;
                    }
                    None => no_paren_close = true,
                }
            }
            b'`' => {
                let ticks = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                let after = &bytes[i + ticks..];
                // The span closes at the next run of as many backticks (the first of a longer run).
                let close = if no_tick_close.contains(&ticks) {
                    None
                } else {
                    match ticks {
                        1 => memchr::memchr(b'`', after),
                        _ => memchr::memmem::find(after, &bytes[i..i + ticks]),
                    }
                };
                if let Some(end) = close {
                    let inner = line[i + ticks..i + ticks + end].trim();
                    if names_a_file(inner) {
                        push(&mut found, inner, Syntax::CodeSpan, i);
                    }
                    i = skip(i, i + ticks + end + ticks, &mut last_open);
                    continue;
                }
                if !no_tick_close.contains(&ticks) {
                    no_tick_close.push(ticks);
                }
                i += ticks;
                continue;
            }
            _ => {}
        }
        if bytes[i] == b'[' {
            last_open = Some(i);
        }
        i += 1;
    }
}

/// `[label]: target` at the start of a line (up to three spaces of indent), the target a
/// `.md` path.
fn reference_definition(line: &str) -> Option<Link> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line[indent..].strip_prefix('[')?;
    let close = rest.find("]:")?;
    let label = &rest[..close];
    if label.trim().is_empty() || label.contains(['[', ']']) {
        return None;
    }
    let after = rest[close + 2..].trim_start();
    let raw = match after.strip_prefix('<') {
        Some(r) => r.split('>').next().unwrap_or(""),
        None => after.split_whitespace().next().unwrap_or(""),
    };
    let mut out = None;
    push(&mut |l| out = Some(l), raw, Syntax::Reference, indent);
    out
}

/// Whether a code span's text names a file: one `.md` path with a real stem, no spaces and no
/// pattern or placeholder characters.
fn names_a_file(inner: &str) -> bool {
    let Some(stem_path) = inner
        .strip_suffix(".md")
        .or_else(|| inner.strip_suffix(".MD"))
    else {
        return false;
    };
    let stem = stem_path.rsplit('/').next().unwrap_or(stem_path);
    !stem.is_empty()
        && !stem.chars().all(|c| c == '.')
        && !inner.contains(is_placeholder_char)
        && !inner.contains("://")
}

/// Characters that make a code span a pattern or placeholder (`<type>_<topic>.md`, `*.md`)
/// rather than a file name.
fn is_placeholder_char(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '<' | '>' | '*' | '?' | '{' | '}' | '|' | '[' | ']' | '$' | '%' | '(' | ')'
        )
}

fn push(found: &mut impl FnMut(Link), raw: &str, syntax: Syntax, offset: usize) {
    if raw.contains("://") || raw.starts_with("mailto:") || raw.starts_with('#') {
        return;
    }
    let target = raw.split('#').next().unwrap_or("");
    let target = target.strip_prefix("./").unwrap_or(target);
    if target.is_empty() {
        return;
    }
    let needs_md = matches!(syntax, Syntax::Markdown | Syntax::Reference);
    if needs_md && !ends_with_md(target) {
        return;
    }
    found(Link {
        target: target.to_owned(),
        syntax,
        offset,
    });
}

/// Whether `path` ends in `.md`, in any case.
pub(crate) fn ends_with_md(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 3 && b[b.len() - 3..].eq_ignore_ascii_case(b".md")
}

/// Scans a file line by line, skipping fenced code blocks and HTML comments (which the
/// client strips before the model sees the index), and yields each link with its 1-based
/// line and its byte offset in the text.
#[derive(Debug)]
pub struct LineScanner<'a> {
    text: &'a str,
    /// Start of the line being scanned.
    pos: usize,
    /// Lines are counted only up to a line that holds a link: `line` is the line of byte
    /// `counted`, a line start (most lines of most files hold none).
    counted: usize,
    line: usize,
    fence: Option<&'static str>,
    in_comment: bool,
}

impl<'a> LineScanner<'a> {
    /// Scans `text` from byte `start` (the body after the frontmatter), numbering lines from
    /// the line holding `start`.
    pub fn new(text: &'a str, start: usize) -> Self {
        LineScanner {
            text,
            pos: start,
            counted: 0,
            line: 1,
            fence: None,
            in_comment: false,
        }
    }

    /// Every link: `(line, offset in the text, link)`.
    pub fn collect_all(mut self) -> Vec<(usize, usize, Link)> {
        let mut out = Vec::new();
        let rest = &self.text.as_bytes()[self.pos..];
        let opener = |k: usize| rest[k..].starts_with(b"<!--") || rest[k..].starts_with(b"~~~");
        if memchr::memchr2_iter(b'<', b'~', rest).any(opener) {
            self.every_line(&mut out);
        } else {
            // Only lines holding `[` or `` ` `` can hold a link or open a fence: visit those.
            self.candidate_lines(&mut out);
        }
        out
    }

    /// Visits every line (what comments and `~~~` fences need).
    fn every_line(&mut self, out: &mut Vec<(usize, usize, Link)>) {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() {
            let end =
                memchr::memchr(b'\n', &bytes[self.pos..]).map_or(bytes.len(), |k| self.pos + k + 1);
            self.scan_line(without_eol(&self.text[self.pos..end]), out);
            self.pos = end;
        }
    }

    /// [`LineScanner::collect_all`] for a text without comments or `~~~` fences: jumps from
    /// one line holding `[` or `` ` `` to the next.
    fn candidate_lines(&mut self, out: &mut Vec<(usize, usize, Link)>) {
        let bytes = self.text.as_bytes();
        while let Some(k) = memchr::memchr2(b'[', b'`', &bytes[self.pos..]) {
            let hit = self.pos + k;
            let start = memchr::memrchr(b'\n', &bytes[self.pos..hit])
                .map_or(self.pos, |j| self.pos + j + 1);
            let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |j| hit + j + 1);
            self.pos = start;
            let content = without_eol(&self.text[start..end]);
            if !self.fence_line(content) {
                self.emit(content, 0, out);
            }
            self.pos = end;
        }
    }

    fn scan_line(&mut self, content: &str, out: &mut Vec<(usize, usize, Link)>) {
        if !self.in_comment && self.fence_line(content) {
            return;
        }
        if !self.in_comment && !content.bytes().any(|b| matches!(b, b'[' | b'`' | b'<')) {
            return;
        }
        // Split the line into the parts outside HTML comments.
        let bytes = content.as_bytes();
        let mut at = 0;
        while at < content.len() {
            if self.in_comment {
                match memchr::memmem::find(&bytes[at..], b"-->") {
                    Some(k) => {
                        at += k + 3;
                        self.in_comment = false;
                    }
                    None => return,
                }
                continue;
            }
            let end = memchr::memmem::find(&bytes[at..], b"<!--").map_or(content.len(), |k| at + k);
            self.emit(&content[at..end], at, out);
            if end == content.len() {
                return;
            }
            self.in_comment = true;
            at = end + 4;
        }
    }

    /// Whether the line opens, closes or lies in a fenced code block (outside a comment).
    fn fence_line(&mut self, content: &str) -> bool {
        let trimmed = content.trim_start();
        if let Some(open) = self.fence {
            if trimmed.starts_with(open) {
                self.fence = None;
            }
            return true;
        }
        for open in ["```", "~~~"] {
            if trimmed.starts_with(open) {
                self.fence = Some(open);
                return true;
            }
        }
        false
    }

    /// The links of `part`, the text at byte `at` of the current line.
    fn emit(&mut self, part: &str, at: usize, out: &mut Vec<(usize, usize, Link)>) {
        let mut line = None;
        each_link(part, |link| {
            let line = *line.get_or_insert_with(|| self.line_of_pos());
            let offset = at + link.offset;
            out.push((line, self.pos + offset, Link { offset, ..link }));
        });
    }

    /// The 1-based line of the current line, counted on from the last line counted.
    fn line_of_pos(&mut self) -> usize {
        let skipped = &self.text.as_bytes()[self.counted..self.pos];
        self.line += memchr::memchr_iter(b'\n', skipped).count();
        self.counted = self.pos;
        self.line
    }
}

/// `line` without its line break (and any `\r` before it).
fn without_eol(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut n = bytes.len();
    while n > 0 && matches!(bytes[n - 1], b'\n' | b'\r') {
        n -= 1;
    }
    &line[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(line: &str) -> Vec<String> {
        links(line).into_iter().map(|l| l.target).collect()
    }

    #[test]
    fn finds_every_syntax_with_hyphens_and_digits() {
        assert_eq!(
            targets(
                "- ⭐ [Wild](feedback_wild-card2.md) — see [[project_x]] and `reference_a_hub.md`"
            ),
            ["feedback_wild-card2.md", "project_x", "reference_a_hub.md"]
        );
        assert_eq!(
            targets("[a](./sub/x.md#top) [b](<y z.md>) [h](~/notes/x.md) [u](../up.md)"),
            ["sub/x.md", "y z.md", "~/notes/x.md", "../up.md"]
        );
        assert_eq!(
            targets("[[name-slug|Shown]] [[x.md]]"),
            ["name-slug", "x.md"]
        );
    }

    #[test]
    fn reference_definitions_are_links() {
        assert_eq!(
            targets("[deploy]: project_deploy.md \"Deploy\""),
            ["project_deploy.md"]
        );
        assert_eq!(targets("   [d]: <./a b.md>"), ["a b.md"]);
        assert!(targets("    [d]: indented-code.md").is_empty());
        assert!(targets("[d]: https://example.com/x.md").is_empty());
        assert_eq!(links("[d]: x.md")[0].syntax, Syntax::Reference);
    }

    #[test]
    fn skips_urls_anchors_images_and_non_markdown() {
        assert!(
            targets("[u](https://x.md) [a](#sec) [img](pic.png) ![i](shot.md) `not md`").is_empty()
        );
        assert!(targets("name: `<type>_<topic>.md`, `*.md`, `{a,b}.md`").is_empty());
    }

    #[test]
    fn a_code_span_is_a_link_only_where_it_names_a_file() {
        assert!(targets("files end in `.md`, or `..md`, or `/.md`").is_empty());
        assert!(targets("run `cat notes.md | wc`, see `$HOME/x.md`").is_empty());
        assert_eq!(
            targets("see `feedback_x.md` and ``~/notes/y.md``"),
            ["feedback_x.md", "~/notes/y.md"]
        );
    }

    proptest::proptest! {
        #[test]
        fn visiting_candidate_lines_only_finds_what_visiting_every_line_finds(
            text in "(\\[|\\]|\\(|\\)|`|x|\\.md|\n|\r\n| |#|a_b)*",
        ) {
            let mut fast = Vec::new();
            LineScanner::new(&text, 0).candidate_lines(&mut fast);
            let mut slow = Vec::new();
            LineScanner::new(&text, 0).every_line(&mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn scanner_skips_fences_and_comments_and_numbers_lines() {
        let text = "---\nname: x\n---\n[a](a.md)\n```\n[b](b.md)\n```\n<!-- [c](c.md)\n[d](d.md) -->[e](e.md)\n[f](f.md) <!-- [g](g.md) --> [h](h.md)\n";
        let body = text.find("[a]").unwrap();
        let got: Vec<(usize, String)> = LineScanner::new(text, body)
            .collect_all()
            .into_iter()
            .map(|(line, off, l)| {
                assert!(text[off..].starts_with('['), "{off}");
                (line, l.target)
            })
            .collect();
        let want = [(4, "a.md"), (9, "e.md"), (10, "f.md"), (10, "h.md")];
        assert_eq!(got, want.map(|(n, t)| (n, t.to_owned())).to_vec(), "{text}");
    }
}
