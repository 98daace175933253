//! The human view: findings grouped by file, each with its source line annotated
//! (annotate-snippets), and a closing summary with the compliance score. Lines holding a
//! secret are never shown. Colour is decided by the caller's stream (anstream).

use std::io::{self, Write};

use annotate_snippets::Renderer;

use super::{Audited, shown_root, total};
use crate::render::findings::json::Joined;
use crate::render::findings::snippet;
use crate::rules::Severity;
use crate::rules::run::Summary;
use crate::text::escape::escape;

pub(super) fn render(out: &mut dyn Write, audits: &[Audited], sweep: bool) -> io::Result<()> {
    let renderer = Renderer::styled();
    by_rule(out, audits)?;
    for a in audits {
        let root = shown_root(a.root);
        let mut current: Option<&str> = None;
        for d in &a.audit.diagnostics {
            let path = Joined {
                root: &root,
                rel: &d.path,
            }
            .to_string();
            if current != Some(d.path.as_str()) {
                current = Some(d.path.as_str());
                writeln!(out, "{}", bold(&escape(&path)))?;
            }
            let text = a
                .audit
                .lib
                .find(&d.path)
                .and_then(|i| a.audit.lib.files[i].text());
            let prepared = snippet::Prepared::of(d, &path, text);
            writeln!(out, "{}\n", renderer.render(&[prepared.group()]))?;
        }
        if sweep {
            writeln!(
                out,
                "{}: {}",
                escape(&a.root.to_string_lossy()),
                line(&a.audit.summary)
            )?;
        } else {
            writeln!(
                out,
                "{}",
                dim(&format!("write spec: {}", a.audit.lib.spec.describe()))
            )?;
        }
    }
    let sum = total(audits);
    writeln!(out, "{}", line(&sum))
}

/// The findings counted per rule, errors first, before the findings themselves: what a long
/// report is made of, at a glance (nothing when there is no finding).
fn by_rule(out: &mut dyn Write, audits: &[Audited]) -> io::Result<()> {
    let mut counts: Vec<(Severity, &str, usize)> = Vec::new();
    for d in audits.iter().flat_map(|a| &a.audit.diagnostics) {
        match counts
            .iter_mut()
            .find(|(s, r, _)| *s == d.severity && *r == d.rule)
        {
            Some((_, _, n)) => *n += 1,
            None => counts.push((d.severity, d.rule, 1)),
        }
    }
    if counts.is_empty() {
        return Ok(());
    }
    // Errors first, then the most frequent, then by name.
    counts.sort_by(|a, b| {
        (b.0 == Severity::Error)
            .cmp(&(a.0 == Severity::Error))
            .then(b.2.cmp(&a.2))
            .then(a.1.cmp(b.1))
    });
    writeln!(
        out,
        "{}",
        dim("findings by rule (`ccmem explain RULE` says what each means):")
    )?;
    for (severity, rule, n) in &counts {
        writeln!(out, "  {n:>5}  {:<7}  {rule}", severity.as_str())?;
    }
    writeln!(out)
}

fn line(s: &Summary) -> String {
    let dark = if s.dark > 0 {
        format!(" · {} the model cannot reach", s.dark)
    } else {
        String::new()
    };
    format!(
        "{} · {} error(s) · {} warning(s){dark} · compliance {:.1}% ({})",
        crate::constants::counted(s.files, "file", "files"),
        s.errors,
        s.warnings,
        s.compliance,
        s.band.label()
    )
}

fn dim(s: &str) -> String {
    let style = anstyle::Style::new().dimmed();
    format!("{style}{s}{style:#}")
}

fn bold(s: &str) -> String {
    let style = anstyle::Style::new().bold().underline();
    format!("{style}{s}{style:#}")
}
