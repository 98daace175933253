//! Running the audit on a loaded library: the enabled rules of the library's write spec (file
//! rules in parallel over files), suppressions, sorting, and the score.

use jiff::Timestamp;
use rayon::prelude::*;
use serde::Serialize;

use super::{Check, Ctx, Diagnostic, RULES, Severity, suppress};
use crate::memory::library::{Library, Reach};

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

/// How the compliance score is made, for `ccmem explain compliance`: next to the code that
/// makes it, so the two change together.
pub const COMPLIANCE_DOC: &str = "\
## Compliance

The share of a library's memory files that are both sound and seen:

    compliance = compliant / files, in percent, one decimal (100 for a library with no file)

- `files`: every memory file of the folder, every `.md` but MEMORY.md.
- `compliant`: the files with no error (a hard rule's finding: the write spec broken, a broken
  link, a secret, ...) that the model can reach: linked from the part of MEMORY.md the client
  loads, or from a hub that part links.
- `dark`: the files the model cannot reach, linked only from lines of MEMORY.md past the
  client's cut (200 lines / 25,000 UTF-16 units) or from nowhere. They are on disk and never
  seen, so they count against the score whatever the rules say (`--ignore` or `[audit]
  disable` do not hide them). An index ccmem cannot read as text but the client reads anyway
  (UTF-16) leaves what it reaches unknown, and no file counts as dark.

Warnings never lower the score; findings on MEMORY.md itself or on the library as a whole
count in `errors` and `warnings`, not against a file.

## Bands

- healthy: 95% or more, and no error anywhere (MEMORY.md's included);
- marginal: 85% to 95%, or 95% or more beside an error;
- out of control: under 85%.

`ccmem audit --json` gives each number (`summary`, per library and in total); `ccmem tier`
brings dark entries back into reach.
";

/// Counts and the compliance score ([`COMPLIANCE_DOC`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Memory files audited: every `.md` file but MEMORY.md.
    pub files: usize,
    /// Memory files with no hard violation that the model can reach.
    pub compliant: usize,
    /// Memory files the model cannot reach (only past the client's cut, or not at all).
    pub dark: usize,
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
    /// Scores a list of findings over the memory files of `lib` ([`COMPLIANCE_DOC`]): findings
    /// on MEMORY.md and on the library as a whole count as errors and warnings, not against a
    /// file; a file the model cannot reach counts against the score whatever the rules found.
    pub fn of(lib: &Library, diags: &[Diagnostic]) -> Summary {
        let index = lib.index();
        // Only MEMORY.md at the root is the index (no other file need be read to count).
        let files = lib.files.len() - usize::from(index.is_some());
        // An index that is not text to ccmem (UTF-16) reaches what its links reach as the
        // client decodes it, as for any index.
        let mut bad = vec![false; lib.files.len()];
        let mut dark = 0;
        for (i, reach) in lib.reach().iter().enumerate() {
            if Some(i) != index && matches!(reach, Reach::PastCut | Reach::Unreachable) {
                bad[i] = true;
                dark += 1;
            }
        }
        for d in diags.iter().filter(|d| d.severity == Severity::Error) {
            if let Some(i) = lib.find(&d.path).filter(|&i| Some(i) != index) {
                bad[i] = true;
            }
        }
        let errors = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let compliant = files.saturating_sub(bad.iter().filter(|&&b| b).count());
        Summary::from_counts(files, compliant, dark, errors, diags.len() - errors)
    }

    /// The summary of several audits together.
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a Summary>) -> Summary {
        let (mut files, mut compliant, mut dark, mut errors, mut warnings) = (0, 0, 0, 0, 0);
        for p in parts {
            files += p.files;
            compliant += p.compliant;
            dark += p.dark;
            errors += p.errors;
            warnings += p.warnings;
        }
        Summary::from_counts(files, compliant, dark, errors, warnings)
    }

    fn from_counts(
        files: usize,
        compliant: usize,
        dark: usize,
        errors: usize,
        warnings: usize,
    ) -> Summary {
        let compliance = if files == 0 {
            100.0
        } else {
            (compliant as f64 * 1000.0 / files as f64).round() / 10.0
        };
        Summary {
            files,
            compliant,
            dark,
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
    let enabled: Vec<Check> = RULES
        .iter()
        .filter(|r| lib.config.audit.enabled(r.name))
        .filter_map(|r| r.library_check(spec))
        .collect();
    let file_checks: Vec<_> = enabled
        .iter()
        .filter_map(|c| match *c {
            Check::File(check) => Some(check),
            Check::Library(_) => None,
        })
        .collect();
    // File rules in parallel over files, and beside them the library rules, each on its own
    // (no rule reads another's findings).
    let (files, library): (Vec<Vec<Diagnostic>>, Vec<Vec<Diagnostic>>) = rayon::join(
        || {
            // One list of findings per chunk of files, each file's suppressed and sorted as
            // they are made: the lists come out in path order, ready for `merge`. No pass at
            // all when no file rule is enabled.
            let files = if file_checks.is_empty() {
                0
            } else {
                lib.files.len()
            };
            (0..files)
                .into_par_iter()
                .fold_chunks(CHUNK, Vec::new, |mut out, i| {
                    let start = out.len();
                    for check in &file_checks {
                        check(&ctx, i, &mut out);
                    }
                    suppress::apply_to_file(&lib.files[i], &mut out, start);
                    out[start..].sort_by(order);
                    out
                })
                .collect()
        },
        || {
            enabled
                .par_iter()
                .filter_map(|c| match *c {
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
    let diags = merge(files, library);
    let summary = Summary::of(&lib, &diags);
    Ok(Audit {
        lib,
        diagnostics: diags,
        summary,
    })
}

/// Files audited by one job of the file pass (a list of findings each).
const CHUNK: usize = 256;

/// The order of findings: by path, line, column, rule.
fn order(a: &Diagnostic, b: &Diagnostic) -> std::cmp::Ordering {
    a.order(b)
}

/// Every finding in [`order`], and where two are equal in it, the file rules' first, then
/// the library rules' in rule order: as one stable sort of them all would leave them, without
/// its scratch copy of the whole list. The files' findings come sorted file by file, and the
/// files in path order, so they are merged with the library rules' (sorted on their own).
fn merge(files: Vec<Vec<Diagnostic>>, library: Vec<Vec<Diagnostic>>) -> Vec<Diagnostic> {
    let mut library: Vec<Diagnostic> = library.into_iter().flatten().collect();
    library.sort_by(order);
    let total = files.iter().map(Vec::len).sum::<usize>() + library.len();
    let mut out = Vec::with_capacity(total);
    let mut library = library.into_iter().peekable();
    for d in files.into_iter().flatten() {
        while let Some(l) = library.next_if(|l| order(l, &d).is_lt()) {
            out.push(l);
        }
        out.push(d);
    }
    out.extend(library);
    // A library whose files are not in path order (none that `Library` builds) sorts here:
    // stably, on a list that kept every tie in the order above.
    if !out.is_sorted_by(|a, b| order(a, b).is_le()) {
        out.sort_by(order);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::Fixture;

    #[test]
    fn merging_is_one_stable_sort() {
        let d = |path: &str, line: usize, rule: &'static str, message: &str| Diagnostic {
            rule,
            severity: Severity::Warning,
            path: path.to_owned(),
            line,
            column: None,
            message: message.to_owned(),
            span: None,
            redact: false,
            fix: None,
            start_dirs: Vec::new(),
        };
        let files = vec![
            vec![
                d("a.md", 1, "x", "1"),
                d("a.md", 1, "x", "2"),
                d("a.md", 3, "w", "3"),
            ],
            vec![],
            vec![d("b.md", 2, "x", "4"), d("c.md", 1, "x", "5")],
        ];
        let library = vec![
            vec![
                d("c.md", 1, "y", "6"),
                d("", 1, "y", "7"),
                d("a.md", 2, "y", "8"),
            ],
            vec![d("a.md", 2, "y", "9"), d("b.md", 9, "z", "10")],
        ];
        let mut all: Vec<Diagnostic> = files.iter().chain(&library).flatten().cloned().collect();
        all.sort_by(order);
        assert_eq!(merge(files.clone(), library.clone()), all);
        let unsorted = vec![files[2].clone(), files[0].clone()];
        let mut all: Vec<Diagnostic> = unsorted.iter().chain(&library).flatten().cloned().collect();
        all.sort_by(order);
        assert_eq!(merge(unsorted, library), all, "files out of path order");
    }

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
    fn score_counts_what_the_model_cannot_reach() {
        let entry = |name: &str| {
            format!("---\nname: {name}\ndescription: d\ntype: user\nmodified: 2026-11-01\n---\nx\n")
        };
        // 200 filler lines, then the link to user_late.md: past the client's cut.
        let mut index = String::from("- [a](user_a.md)\n");
        index.push_str(&"- rule\n".repeat(199));
        index.push_str("- [late](user_late.md)\n");
        let (a, late, lost) = (entry("a"), entry("late"), entry("lost"));
        let mut f = Fixture::new(&[
            ("MEMORY.md", index.as_str()),
            ("user_a.md", a.as_str()),
            ("user_late.md", late.as_str()),
            ("user_lost.md", lost.as_str()),
        ]);
        let audit = f.audit();
        let s = &audit.summary;
        assert_eq!((s.files, s.dark, s.compliant), (3, 2, 1), "{s:?}");
        assert_eq!(s.compliance, 33.3);
        assert_eq!(s.band, Band::OutOfControl);
        // Turning the rules off does not make the dark files seen.
        f.config().audit.disable = ["unreachable-file", "index-over-cap"]
            .map(|name| crate::config::RuleName {
                name: name.into(),
                span: 0..0,
            })
            .to_vec();
        let quiet = f.audit();
        assert!(
            quiet
                .diagnostics
                .iter()
                .all(|d| d.rule != "unreachable-file")
        );
        assert_eq!((quiet.summary.dark, quiet.summary.compliant), (2, 1));
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
