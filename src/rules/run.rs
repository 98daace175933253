//! Running the audit: load the library, measure MEMORY.md with the loader, run the enabled
//! rules (file rules in parallel over files), apply suppressions, sort, and score.

use std::path::Path;

use jiff::Timestamp;
use rayon::prelude::*;
use serde::Serialize;

use super::config::Config;
use super::{Check, Ctx, Diagnostic, RULES, Severity, suppress};
use crate::load::automem;
use crate::memory::library::Library;

/// What the audit needs besides the folder.
#[derive(Debug, Clone)]
pub struct Options {
    /// Thresholds and disabled rules.
    pub config: Config,
    /// "Now" (staleness is measured against it).
    pub now: Timestamp,
}

/// The compliance band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Band {
    /// ≥ 95 %.
    Healthy,
    /// 85–95 %.
    Marginal,
    /// < 85 %.
    OutOfControl,
}

impl Band {
    /// The band of a compliance percentage.
    pub fn of(percent: f64) -> Band {
        if percent >= 95.0 {
            Band::Healthy
        } else if percent >= 85.0 {
            Band::Marginal
        } else {
            Band::OutOfControl
        }
    }

    /// `healthy`, `marginal` or `out of control`.
    pub fn label(self) -> &'static str {
        match self {
            Band::Healthy => "healthy",
            Band::Marginal => "marginal",
            Band::OutOfControl => "out of control",
        }
    }
}

/// Counts and the compliance score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// `.md` files audited (MEMORY.md included).
    pub files: usize,
    /// Files with no hard violation.
    pub compliant: usize,
    /// `compliant / files` in percent (100 for an empty library).
    pub compliance: f64,
    /// The band of that score.
    pub band: Band,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
}

impl Summary {
    /// Scores a list of findings over `files` files.
    pub fn of(files: usize, diags: &[Diagnostic]) -> Summary {
        let mut bad: Vec<&str> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.path.as_str())
            .collect();
        bad.sort_unstable();
        bad.dedup();
        let compliant = files.saturating_sub(bad.len());
        let compliance = if files == 0 {
            100.0
        } else {
            (compliant as f64 * 1000.0 / files as f64).round() / 10.0
        };
        let errors = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        Summary {
            files,
            compliant,
            compliance,
            band: Band::of(compliance),
            errors,
            warnings: diags.len() - errors,
        }
    }
}

/// An audited library.
#[derive(Debug)]
pub struct Audit {
    /// The library (the renderers show its source lines).
    pub lib: Library,
    /// Findings, sorted by path, line, rule.
    pub diagnostics: Vec<Diagnostic>,
    /// Score.
    pub summary: Summary,
}

/// Audits the library in `root`. Fails only when the folder itself cannot be read.
pub fn audit(root: &Path, opts: &Options) -> std::io::Result<Audit> {
    let lib = Library::load(root, opts.config.max_file_bytes)?;
    let index_state = automem::measure_index(&root.join("MEMORY.md"));
    let ctx = Ctx {
        lib: &lib,
        cfg: &opts.config,
        now: opts.now,
        reach: lib.reach(),
        index_state: &index_state,
    };
    let enabled: Vec<_> = RULES
        .iter()
        .filter(|r| opts.config.enabled(r.name))
        .collect();
    let mut diags: Vec<Diagnostic> = (0..lib.files.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let mut out = Vec::new();
            for r in &enabled {
                if let Check::File(check) = r.check {
                    check(&ctx, i, &mut out);
                }
            }
            out
        })
        .collect();
    for r in &enabled {
        if let Check::Library(check) = r.check {
            check(&ctx, &mut diags);
        }
    }
    suppress::apply(&lib, &mut diags);
    diags.sort_by(|a, b| {
        (a.path.as_str(), a.line, a.column, a.rule).cmp(&(
            b.path.as_str(),
            b.line,
            b.column,
            b.rule,
        ))
    });
    let summary = Summary::of(lib.files.len(), &diags);
    Ok(Audit {
        lib,
        diagnostics: diags,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::Fixture;

    #[test]
    fn bands() {
        assert_eq!(Band::of(95.0), Band::Healthy);
        assert_eq!(Band::of(94.9), Band::Marginal);
        assert_eq!(Band::of(85.0), Band::Marginal);
        assert_eq!(Band::of(84.9), Band::OutOfControl);
    }

    #[test]
    fn score_counts_files_not_findings() {
        let f = Fixture::new(&[
            (
                "MEMORY.md",
                "- [a](user_a.md)\n- [b](user_b.md)\n- [x](gone.md)\n- [y](gone2.md)\n",
            ),
            (
                "user_a.md",
                "---\nname: a\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n",
            ),
            (
                "user_b.md",
                "---\nname: b\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n",
            ),
        ]);
        let a = f.audit();
        assert_eq!(a.summary.errors, 2);
        assert_eq!((a.summary.files, a.summary.compliant), (3, 2));
        assert_eq!(a.summary.compliance, 66.7);
        assert_eq!(a.summary.band, Band::OutOfControl);
    }

    #[test]
    fn suppression_on_line_before_and_file_wide() {
        let f = Fixture::new(&[
            (
                "MEMORY.md",
                "# I\n<!-- ccmem-ignore: broken-link -->\n- [x](gone.md)\n- [y](gone2.md)\n- [a](user_a.md)\n",
            ),
            (
                "user_a.md",
                "---\nname: a\ndescription: d\ntype: user\n---\n<!-- ccmem-ignore: missing-modified -->\nx\n",
            ),
        ]);
        let a = f.audit();
        let rules: Vec<(&str, usize)> = a.diagnostics.iter().map(|d| (d.rule, d.line)).collect();
        assert_eq!(rules, [("broken-link", 4)]);
    }
}
