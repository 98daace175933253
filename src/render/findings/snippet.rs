//! Annotated source lines (annotate-snippets): the finding's title with its rule, the line it
//! points at with the span underlined (the whole trimmed line when there is no span), and its
//! fix as a `help:` line. A line that must not be shown (a secret) gives only `path:line`.

use std::borrow::Cow;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Snippet};

use crate::rules::{Diagnostic, Severity};
use crate::text::escape::escape;
use crate::text::line_at;

/// A finding's texts as a person sees them, escaped once ([`crate::text::escape`]): the
/// message, the path, the fix and the source line (its span moved to match), ready for
/// [`Prepared::group`]. Nothing of a file reaches annotate-snippets unescaped.
pub struct Prepared<'a> {
    f: &'a Diagnostic,
    message: Cow<'a, str>,
    path: Cow<'a, str>,
    fix: Option<Cow<'a, str>>,
    /// The escaped line and the span to underline in it.
    line: Option<(Cow<'a, str>, std::ops::Range<usize>)>,
}

impl<'a> Prepared<'a> {
    /// `text` is the file's text, when it could be read.
    pub fn of(f: &'a Diagnostic, path: &'a str, text: Option<&'a str>) -> Self {
        let line = text
            .filter(|_| !f.redact)
            .and_then(|t| line_at(t, f.line))
            .map(|(start, src)| {
                let span = match &f.span {
                    Some(s) if s.start >= start && s.end <= start + src.len() => {
                        s.start - start..s.end - start
                    }
                    Some(s) if s.start >= start && s.start <= start + src.len() => {
                        s.start - start..src.len()
                    }
                    _ => {
                        let lead = src.len() - src.trim_start().len();
                        lead..src.trim_end().len().max(lead)
                    }
                };
                // Spans are byte offsets: the escaped prefix's length is where they move to.
                let at = |k: usize| escape(&src[..k]).len();
                (escape(src), at(span.start)..at(span.end))
            });
        Prepared {
            f,
            message: escape(&f.message),
            path: escape(path),
            fix: Some(f.fix()).filter(|fix| !fix.is_empty()).map(escape),
            line,
        }
    }

    /// The report group of the finding: its title with its rule, the line it points at with the
    /// span underlined (the whole trimmed line when there is no span), and its fix as a `help:`
    /// line. A line that must not be shown (a secret) gives only `path:line`.
    pub fn group(&self) -> Group<'_> {
        let f = self.f;
        let level = match f.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level.primary_title(&*self.message).id(f.rule);
        let group = match &self.line {
            Some((src, span)) => title.element(
                Snippet::source(&**src)
                    .line_start(f.line)
                    .path(&*self.path)
                    .annotation(AnnotationKind::Primary.span(span.clone())),
            ),
            None => {
                let mut origin = Origin::path(&*self.path).line(f.line);
                if let Some(c) = f.column {
                    origin = origin.char_column(c);
                }
                title.element(origin)
            }
        };
        match &self.fix {
            Some(fix) => group.element(Level::HELP.message(&**fix)),
            None => group,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fix_is_printed_beside_the_finding() {
        let f = Diagnostic {
            rule: "some-rule",
            severity: Severity::Warning,
            path: "x.md".into(),
            line: 2,
            column: None,
            message: "bad".into(),
            fix: Some("do this".into()),
            span: None,
            redact: false,
            start_dirs: Vec::new(),
        };
        let out = annotate_snippets::Renderer::plain()
            .render(&[Prepared::of(&f, "x.md", Some("a\n  b c\n")).group()])
            .to_string();
        assert!(out.contains("warning[some-rule]: bad"), "{out}");
        assert!(out.contains("2 |   b c"), "{out}");
        assert!(out.contains("help: do this"), "{out}");
    }

    #[test]
    fn the_line_the_path_and_the_message_are_escaped_and_the_span_follows() {
        let text = "x\n\u{1b}]0;t\u{7}bad\u{202e} word\n";
        let f = Diagnostic {
            rule: "r",
            severity: Severity::Error,
            path: "p".into(),
            line: 2,
            column: None,
            message: "in `a\nb\u{1b}[2J`".into(),
            fix: Some("\u{9b}31m".into()),
            span: Some(text.find("word").unwrap()..text.find("word").unwrap() + 4),
            redact: false,
            start_dirs: Vec::new(),
        };
        let out = annotate_snippets::Renderer::plain()
            .render(&[Prepared::of(&f, "dir/\u{7}.md", Some(text)).group()])
            .to_string();
        assert!(!out.chars().any(crate::text::escape::is_hidden), "{out}");
        assert!(out.contains("error[r]: in `a\\x0ab\\x1b[2J`"), "{out}");
        assert!(out.contains("dir/\\x07.md:2"), "{out}");
        assert!(out.contains("\\x1b]0;t\\x07bad\\u{202e} word"), "{out}");
        assert!(out.contains("help: \\x9b31m"), "{out}");
        // The underline sits under `word`, not under the escapes before it.
        let src = out.lines().find(|l| l.contains("bad")).unwrap();
        let mark = out
            .lines()
            .skip_while(|l| !l.contains("bad"))
            .nth(1)
            .unwrap();
        assert_eq!(mark.find('^'), src.find("word"), "{out}");
    }
}
