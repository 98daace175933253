//! The human view: one line per start directory (files, characters, estimated tokens, what it
//! loses against the root and why), then every finding with its source line annotated and its
//! fix, then the counts. Colour is decided by the caller's stream (anstream).

use std::io::{self, Write};

use annotate_snippets::Renderer;

use super::View;
use crate::receipt::group;
use crate::render::findings::{Base, snippet};
use crate::repo::sessions::{DirSession, StartWhy};
use crate::rules::repo::{Report, list_dirs};
use crate::text::escape::Shown;

pub(super) fn render(out: &mut dyn Write, report: &Report, view: View) -> io::Result<()> {
    let w = &report.walk;
    let shown_root = view.given.to_string_lossy();
    let shown_root = Shown(&shown_root);
    writeln!(
        out,
        "{}",
        bold(&format!(
            "ccmem check {shown_root}: {} start director{} ({} file(s), {} instruction file(s), {} package root(s)), {} environment",
            w.start_directories,
            if w.start_directories == 1 { "y" } else { "ies" },
            w.files,
            w.instruction_files,
            w.package_roots,
            report.environment
        ))
    )?;
    if w.start_directories_left_out > 0 {
        writeln!(
            out,
            "note: {} more start directories left out (max-dirs); raise it with --max-dirs",
            w.start_directories_left_out
        )?;
    }
    writeln!(out, "sizes assume {}\n", report.size.describe())?;
    let width = report
        .sessions
        .iter()
        .map(|s| label(s).chars().count())
        .max()
        .unwrap_or(1)
        .clamp(16, 48);
    writeln!(
        out,
        "{:<width$}  {:>5}  {:>9}  {:>8}  lost against the root",
        "start directory", "files", "chars", "~tokens"
    )?;
    let mut hidden = 0;
    for (i, s) in report.sessions.iter().enumerate() {
        if i > 0 && s.lost.is_empty() && !view.all_dirs {
            hidden += 1;
            continue;
        }
        let lost = if s.lost.is_empty() {
            String::new()
        } else {
            let chars: usize = s.lost.iter().map(|l| l.chars).sum();
            format!("{} file(s), {} chars", s.lost.len(), group(chars))
        };
        let chars = s.chars();
        // No padding after the last column: a row with nothing lost ends at its token count.
        let row = format!(
            "{:<width$}  {:>5}  {:>9}  {:>8}  {lost}",
            Shown(&label(s)).to_string(),
            s.loaded.len(),
            group(chars),
            group(crate::receipt::tokens_estimate(chars)),
        );
        writeln!(out, "{}", row.trim_end())?;
        for l in &s.lost {
            writeln!(
                out,
                "    - {} ({} chars): {}",
                Shown(&l.path),
                group(l.chars),
                Shown(&l.reason_text)
            )?;
        }
    }
    if hidden > 0 {
        writeln!(
            out,
            "({hidden} other start director{} load everything the root loads; --all-dirs lists them)",
            if hidden == 1 { "y" } else { "ies" }
        )?;
    }
    writeln!(out)?;
    let renderer = Renderer::styled();
    let base = Base::of(view.given, super::BASE_ID);
    for d in &report.findings {
        let shown = base.show(d);
        let text = report.text(&d.path);
        let mut extra = String::new();
        if d.start_dirs.len() > 1 {
            extra = format!(" [{}]", list_dirs(&d.start_dirs));
        }
        let prepared = snippet::Prepared::of(d, &shown, text.as_deref());
        writeln!(
            out,
            "{}{}\n",
            renderer.render(&[prepared.group()]),
            Shown(&extra)
        )?;
    }
    let s = &report.summary;
    writeln!(
        out,
        "{} error(s) · {} warning(s) · {} suppressed",
        s.errors, s.warnings, s.suppressed
    )
}

fn label(s: &DirSession) -> String {
    let mut l = s.shown().to_owned();
    if s.start.why.contains(&StartWhy::Package)
        && let Some(m) = s.start.marker
    {
        l += &format!(" ({m})");
    }
    l
}

fn bold(s: &str) -> String {
    let style = anstyle::Style::new().bold();
    format!("{style}{s}{style:#}")
}
