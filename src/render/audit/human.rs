//! The human view: findings grouped by file, each with its source line annotated
//! (annotate-snippets), and a closing summary with the compliance score. Lines holding a
//! secret are never shown. Colour is decided by the caller's stream (anstream).

use std::io::{self, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use super::{Audited, shown_path, total};
use crate::rules::run::Summary;
use crate::rules::{Diagnostic, Severity};

pub(super) fn render(out: &mut dyn Write, audits: &[Audited], sweep: bool) -> io::Result<()> {
    let renderer = Renderer::styled();
    for a in audits {
        let mut current: Option<&str> = None;
        for d in &a.audit.diagnostics {
            if current != Some(d.path.as_str()) {
                current = Some(d.path.as_str());
                writeln!(out, "{}", bold(&shown_path(a.root, d)))?;
            }
            let text = a
                .audit
                .lib
                .find(&d.path)
                .and_then(|i| a.audit.lib.files[i].text());
            let path = shown_path(a.root, d);
            let report = [group(d, &path, text)];
            writeln!(out, "{}\n", renderer.render(&report))?;
        }
        if sweep {
            writeln!(out, "{}: {}", a.root.display(), line(&a.audit.summary))?;
        }
    }
    let sum = total(audits);
    writeln!(out, "{}", line(&sum))
}

fn group<'a>(d: &'a Diagnostic, path: &'a str, text: Option<&'a str>) -> Group<'a> {
    let level = match d.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let title = level.primary_title(d.message.as_str()).id(d.rule);
    match text.filter(|_| !d.redact).and_then(|t| line_at(t, d.line)) {
        Some((start, src)) => {
            let span = match &d.span {
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
                    .line_start(d.line)
                    .path(path)
                    .annotation(AnnotationKind::Primary.span(span)),
            )
        }
        None => {
            let mut origin = Origin::path(path).line(d.line);
            if let Some(c) = d.column {
                origin = origin.char_column(c);
            }
            title.element(origin)
        }
    }
}

/// Byte offset and text (without the newline) of 1-based line `n`.
fn line_at(text: &str, n: usize) -> Option<(usize, &str)> {
    let mut start = 0;
    for (k, l) in text.split_inclusive('\n').enumerate() {
        if k + 1 == n {
            return Some((start, l.trim_end_matches(['\n', '\r'])));
        }
        start += l.len();
    }
    None
}

fn line(s: &Summary) -> String {
    format!(
        "{} files · {} error(s) · {} warning(s) · compliance {:.1}% ({})",
        s.files,
        s.errors,
        s.warnings,
        s.compliance,
        s.band.label()
    )
}

fn bold(s: &str) -> String {
    let style = anstyle::Style::new().bold().underline();
    format!("{style}{s}{style:#}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_found_by_number() {
        assert_eq!(line_at("a\nbc\r\nd", 2), Some((2, "bc")));
        assert_eq!(line_at("a\n", 2), None);
    }
}
