//! Running the audit on a loaded library: the enabled rules of the library's write spec (file
//! rules in parallel over files), suppressions, sorting, and the score.

use jiff::Timestamp;
use rayon::prelude::*;
use serde::Serialize;

use super::{Check, Ctx, Diagnostic, RULES, Severity, suppress};
use crate::memory::library::Library;

/// The compliance band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Band {
    /// ≥ 95 % and no error at all.
    Healthy,
    /// 85–95 %, or ≥ 95 % with errors (on MEMORY.md or the library as a whole, which the
    /// score over memory files does not count: an index cut or skipped whole).
    Marginal,
    /// < 85 %.
    OutOfControl,
}

impl Band {
    /// The band of a compliance percentage, given the number of errors: never healthy
    /// beside an error.
    pub fn of(percent: f64, errors: usize) -> Band {
        if percent >= 95.0 && errors == 0 {
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
    /// Memory files audited: every `.md` file but MEMORY.md.
    pub files: usize,
    /// Memory files with no hard violation.
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
    /// Scores a list of findings over the memory files of `lib` (findings on MEMORY.md and on
    /// the library as a whole count as errors and warnings, not against a file's compliance).
    pub fn of(lib: &Library, diags: &[Diagnostic]) -> Summary {
        let index = lib.index();
        let memory = |path: &str| lib.find(path).is_some_and(|i| Some(i) != index);
        // Only MEMORY.md at the root is the index (no other file need be read to count).
        let files = lib.files.len() - usize::from(index.is_some());
        let mut bad: Vec<&str> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error && memory(&d.path))
            .map(|d| d.path.as_str())
            .collect();
        bad.sort_unstable();
        bad.dedup();
        let errors = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        Summary::from_counts(
            files,
            files.saturating_sub(bad.len()),
            errors,
            diags.len() - errors,
        )
    }

    /// The summary of several audits together.
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a Summary>) -> Summary {
        let (mut files, mut compliant, mut errors, mut warnings) = (0, 0, 0, 0);
        for p in parts {
            files += p.files;
            compliant += p.compliant;
            errors += p.errors;
            warnings += p.warnings;
        }
        Summary::from_counts(files, compliant, errors, warnings)
    }

    fn from_counts(files: usize, compliant: usize, errors: usize, warnings: usize) -> Summary {
        let compliance = if files == 0 {
            100.0
        } else {
            (compliant as f64 * 1000.0 / files as f64).round() / 10.0
        };
        Summary {
            files,
            compliant,
            compliance,
            band: Band::of(compliance, errors),
            errors,
            warnings,
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

/// Audits `lib` at `now`, against the write spec it follows. Fails when `[audit] disable`
/// names no rule.
pub fn audit(lib: Library, now: Timestamp) -> Result<Audit, String> {
    super::check_config(&lib.config).map_err(|e| e.to_string())?;
    let ctx = Ctx::new(&lib, now);
    let spec = lib.spec();
    let enabled: Vec<_> = RULES
        .iter()
        .filter(|r| lib.config.audit.enabled(r.name) && r.applies.to(spec))
        .collect();
    // File rules in parallel over files, and beside them the library rules, each on its own
    // (no rule reads another's findings): the serial ones no longer hold a core idle.
    let (mut diags, library): (Vec<Diagnostic>, Vec<Vec<Diagnostic>>) = rayon::join(
        || {
            (0..lib.files.len())
                .into_par_iter()
                .flat_map_iter(|i| {
                    let mut out = Vec::new();
                    for r in &enabled {
                        if let Check::File(check) = r.check {
                            check(&ctx, i, &mut out);
                        }
                    }
                    // While the file's text is in cache (searched again later, it is read
                    // from memory once more).
                    suppress::apply_to_file(&lib.files[i], &mut out);
                    out
                })
                .collect()
        },
        || {
            enabled
                .par_iter()
                .filter_map(|r| match r.check {
                    Check::Library(check) => {
                        let mut out = Vec::new();
                        check(&ctx, &mut out);
                        suppress::apply(&lib, &mut out);
                        Some(out)
                    }
                    Check::File(_) => None,
                })
                .collect()
        },
    );
    // In rule order after the file findings, as when they ran one after another.
    diags.extend(library.into_iter().flatten());
    diags.sort_by(|a, b| {
        (a.path.as_str(), a.line, a.column, a.rule).cmp(&(
            b.path.as_str(),
            b.line,
            b.column,
            b.rule,
        ))
    });
    let summary = Summary::of(&lib, &diags);
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
        assert_eq!(Band::of(95.0, 0), Band::Healthy);
        assert_eq!(Band::of(94.9, 0), Band::Marginal);
        assert_eq!(Band::of(85.0, 0), Band::Marginal);
        assert_eq!(Band::of(84.9, 0), Band::OutOfControl);
        assert_eq!(
            Band::of(100.0, 1),
            Band::Marginal,
            "an error is never healthy"
        );
        assert_eq!(Band::of(84.9, 1), Band::OutOfControl);
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
        assert_eq!(
            (a.summary.files, a.summary.compliant),
            (2, 2),
            "MEMORY.md is not a memory file"
        );
        assert_eq!(a.summary.compliance, 100.0);
        assert_eq!(
            a.summary.band,
            Band::Marginal,
            "MEMORY.md's errors keep a library of compliant files from being healthy"
        );
        let f = Fixture::new(&[
            (
                "MEMORY.md",
                "- [a](user_a.md)\n- [b](user_b.md)\n- [c](user_c.md)\n",
            ),
            (
                "user_a.md",
                "---\nname: a\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n",
            ),
            ("user_b.md", "no frontmatter\n"),
            ("user_c.md", "no frontmatter either\n"),
        ]);
        let a = f.audit();
        assert_eq!((a.summary.files, a.summary.compliant), (3, 1));
        assert_eq!(a.summary.compliance, 33.3);
        assert_eq!(a.summary.band, Band::OutOfControl);
    }

    #[test]
    fn suppression_on_line_before_and_file_wide() {
        let f = Fixture::new(&[
            (
                "MEMORY.md",
                "# I\n<!-- ccmem-ignore: broken-link -->\n- [x](gone.md)\n- [y](gone2.md)\n- [a](user_a.md)\n- [b](user_b.md)\n",
            ),
            (
                "user_a.md",
                "---\nname: a\ndescription: d\ntype: user\n---\n<!-- ccmem-ignore: missing-modified -->\nx\n",
            ),
            (
                "user_b.md",
                "---\nname: b\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n",
            ),
        ]);
        let a = f.audit();
        let rules: Vec<(&str, usize)> = a.diagnostics.iter().map(|d| (d.rule, d.line)).collect();
        assert_eq!(rules, [("broken-link", 4)]);
    }
}
