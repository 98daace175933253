//! Annotated source lines (annotate-snippets): the finding's title with its rule, the line it
//! points at with the span underlined (the whole trimmed line when there is no span), and its
//! fix as a `help:` line. A line that must not be shown (a secret) gives only `path:line`.

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Snippet};

use super::Finding;
use crate::severity::Severity;
use crate::text::line_at;

/// The report group of one finding; `text` is the file's text, when it could be read.
pub fn group<'a>(f: &'a Finding, path: &'a str, text: Option<&'a str>) -> Group<'a> {
    let level = match f.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let title = level.primary_title(f.message).id(f.rule);
    let group = match text.filter(|_| !f.redact).and_then(|t| line_at(t, f.line)) {
        Some((start, src)) => {
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
            title.element(
                Snippet::source(src)
                    .line_start(f.line)
                    .path(path)
                    .annotation(AnnotationKind::Primary.span(span)),
            )
        }
        None => {
            let mut origin = Origin::path(path).line(f.line);
            if let Some(c) = f.column {
                origin = origin.char_column(c);
            }
            title.element(origin)
        }
    };
    match f.fix {
        Some(fix) => group.element(Level::HELP.message(fix)),
        None => group,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fix_is_printed_beside_the_finding() {
        let f = Finding {
            rule: "some-rule",
            severity: Severity::Warning,
            base: None,
            path: "x.md",
            line: 2,
            column: None,
            message: "bad",
            fix: Some("do this"),
            span: None,
            redact: false,
        };
        let out = annotate_snippets::Renderer::plain()
            .render(&[group(&f, "x.md", Some("a\n  b c\n"))])
            .to_string();
        assert!(out.contains("warning[some-rule]: bad"), "{out}");
        assert!(out.contains("2 |   b c"), "{out}");
        assert!(out.contains("help: do this"), "{out}");
    }
}
