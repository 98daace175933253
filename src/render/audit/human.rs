//! The human view: findings grouped by file, each with its source line annotated
//! (annotate-snippets), and a closing summary with the compliance score. Lines holding a
//! secret are never shown. Colour is decided by the caller's stream (anstream).

use std::io::{self, Write};

use annotate_snippets::Renderer;

use super::{Audited, finding, shown_path, total};
use crate::render::findings::snippet;
use crate::rules::run::Summary;

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
            let f = finding(d, None);
            let report = [snippet::group(&f, &path, text)];
            writeln!(out, "{}\n", renderer.render(&report))?;
        }
        if sweep {
            writeln!(out, "{}: {}", a.root.display(), line(&a.audit.summary))?;
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

fn dim(s: &str) -> String {
    let style = anstyle::Style::new().dimmed();
    format!("{style}{s}{style:#}")
}

fn bold(s: &str) -> String {
    let style = anstyle::Style::new().bold().underline();
    format!("{style}{s}{style:#}")
}
