//! `ccmem tier`: the plan, its diff and its proof, for a person or as JSON; and `tier --check`.
//!
//! JSON (`ccmem.tier/1`): `{folder, mode, recovered, before, after, target, cap, steps, notes,
//! decisions: [{line, entry, action, why, hub?}], usage (the recorded sessions whose reads
//! ordered the moves within a rank; 0: none), files: [{name, link_to?, created,
//! diff}], suggestions, unshortened: [{line, why}], proof: {checks}, written,
//! proof_on_disk, pending, changed_since, failure, requested_target, skipped: [{file, why}]}`.
//! A run that refuses (exit 2) prints this report with `failure` set. `tier --check`
//! (`ccmem.tier-check/1`): `{file, size, target, cap, over_target, over_cap}`.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::constants::{Count, INDEX_FILE, INDEX_LINE_LONG_UTF16, counted};
use crate::memory::pending::Pending;
use crate::text::escape::Shown;
use crate::tier::budget::{CAP, Size, Target};
use crate::tier::plan::{Decision, FilePlan, Note, Suggestion, Unshortened};
use crate::tier::run::Outcome;
use crate::tier::{Proof, Skipped, Step};
use crate::write::{Applied, Recovered};

/// What the command knows beside the outcome.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The memory folder, as given.
    pub folder: &'a Path,
    /// The folder was named on the command line (or by `--agent`): `ccmem undo` must name it.
    pub named: bool,
    /// `--write` (else a dry run).
    pub write: bool,
    /// What recovery did before the run.
    pub recovered: Option<&'a Recovered>,
    /// A dry run found an interrupted write it left as it is (`Some`), and its journal's
    /// operation when it has one.
    pub pending: Option<Option<&'a Pending>>,
    /// The target asked for (the plan's is the most tier can do when that is within the
    /// client's cap and this one cannot be reached).
    pub requested_target: Target,
}

#[derive(Serialize)]
struct FileView<'a> {
    name: &'a str,
    /// The file of the folder the write really changes, when `name` is a symbolic link.
    #[serde(skip_serializing_if = "Option::is_none")]
    link_to: Option<&'a str>,
    created: bool,
    diff: String,
}

#[derive(Serialize)]
struct Report<'a> {
    folder: String,
    mode: &'static str,
    recovered: Option<&'a Recovered>,
    before: Size,
    after: Size,
    target: Target,
    cap: Target,
    steps: &'a [Step],
    notes: &'a [Note],
    decisions: &'a [Decision],
    /// Recorded sessions whose reads ordered the moves within a rank (0: none).
    usage: usize,
    files: Vec<FileView<'a>>,
    suggestions: &'a [Suggestion],
    unshortened: &'a [Unshortened],
    proof: &'a Proof,
    written: Option<&'a Applied>,
    proof_on_disk: Option<&'a Proof>,
    /// A dry run found an interrupted operation it did not finish.
    pending: bool,
    /// Files another writer added lines to after tier wrote them.
    changed_since: &'a [String],
    /// Why `--write` wrote nothing (or would write nothing) or left files that do not prove.
    failure: Option<String>,
    requested_target: Target,
    skipped: &'a [Skipped],
}

fn report<'a>(o: &'a Outcome, cx: &Context<'a>) -> Report<'a> {
    let plan = &o.plan;
    Report {
        folder: cx.folder.display().to_string(),
        mode: mode(cx),
        recovered: cx.recovered,
        before: plan.before,
        after: plan.after,
        target: plan.target,
        cap: CAP,
        steps: &plan.steps,
        notes: &plan.notes,
        decisions: &plan.decisions,
        usage: plan.usage,
        files: (plan.files.iter().zip(&o.link_to))
            .map(|(f, to)| file_view(f, to.as_deref()))
            .collect(),
        suggestions: &plan.suggestions,
        unshortened: &plan.unshortened,
        proof: &o.proof,
        written: o.written.as_ref().map(|w| &w.applied),
        proof_on_disk: o.written.as_ref().map(|w| &w.proof_on_disk),
        pending: cx.pending.is_some(),
        changed_since: o.written.as_ref().map_or(&[], |w| &w.changed_since),
        failure: failure(o, cx),
        requested_target: cx.requested_target,
        skipped: &o.skipped,
    }
}

fn mode(cx: &Context<'_>) -> &'static str {
    if cx.write { "write" } else { "dry-run" }
}

/// The failure as the report and stderr say it: MEMORY.md's path, then why.
pub fn failure(o: &Outcome, cx: &Context<'_>) -> Option<String> {
    let why = o.failure.as_ref()?;
    Some(format!("{}: {why}", cx.folder.join(INDEX_FILE).display()))
}

/// The report as JSON.
pub fn json(o: &Outcome, cx: &Context<'_>) -> String {
    super::json::document("ccmem.tier/1", &report(o, cx))
}

fn file_view<'a>(f: &'a FilePlan, link_to: Option<&'a str>) -> FileView<'a> {
    let old = f.old.as_deref().unwrap_or("");
    let (a, b) = match &f.old {
        Some(_) => (
            format!("a/{}", Shown(&f.name)),
            format!("b/{}", Shown(&f.name)),
        ),
        None => ("/dev/null".to_owned(), format!("b/{}", Shown(&f.name))),
    };
    let diff = similar::TextDiff::from_lines(old, f.new.as_str())
        .unified_diff()
        .context_radius(2)
        .header(&a, &b)
        .to_string();
    FileView {
        name: &f.name,
        link_to,
        created: f.old.is_none(),
        diff,
    }
}

fn size_line(label: &str, s: Size, target: Target) -> String {
    let state = if !CAP.fits(s) {
        "OVER THE CLIENT CAP (lines past it are never loaded)"
    } else if !target.fits(s) {
        "over target"
    } else {
        "within target"
    };
    format!(
        "{label}: {} lines, {} UTF-16 units — cap {} / {}, target {} / {}: {state}",
        Count(s.lines),
        Count(s.utf16),
        Count(CAP.lines),
        Count(CAP.utf16),
        Count(target.lines),
        Count(target.utf16)
    )
}

/// The report for a person: sizes, steps, notes, each file's diff, the proof, what was written.
pub fn human(o: &Outcome, cx: &Context<'_>) -> String {
    let r = report(o, cx);
    let mut out = String::new();
    let _ = write_human(&mut out, &r, cx);
    out
}

fn write_human(out: &mut String, r: &Report<'_>, cx: &Context<'_>) -> std::fmt::Result {
    writeln!(out, "ccmem tier {} ({})", Shown(&r.folder), r.mode)?;
    if let Some(rec) = r.recovered {
        writeln!(out, "{}", super::writes::recovered_line(rec))?;
    }
    if let Some(pending) = cx.pending {
        writeln!(out, "{}", super::writes::pending_note(pending))?;
    }
    writeln!(out, "{}", size_line("MEMORY.md before", r.before, r.target))?;
    writeln!(out, "{}", size_line("MEMORY.md after ", r.after, r.target))?;
    if r.steps.is_empty() {
        writeln!(out, "Nothing to do: MEMORY.md is within the target.")?;
    }
    for s in r.steps {
        writeln!(out, "  step: {}", step_line(s))?;
    }
    if r.target != r.requested_target {
        writeln!(
            out,
            "  note: the target ({} lines / {} UTF-16 units) cannot be reached (prose, rule \
             lines, crowns and pointers stay in MEMORY.md); planned the most tier can do, {} \
             lines / {} units, within the client's cap ({} / {}), so every entry loads",
            Count(r.requested_target.lines),
            Count(r.requested_target.utf16),
            Count(r.after.lines),
            Count(r.after.utf16),
            Count(CAP.lines),
            Count(CAP.utf16)
        )?;
    }
    for n in r.notes {
        writeln!(out, "  note: {}", note_line(n))?;
    }
    if !r.steps.is_empty() && !r.decisions.is_empty() {
        let order = if r.usage > 0 {
            format!(
                "by rank; within a rank ordered by reads in {}",
                counted(r.usage, "recent session", "recent sessions")
            )
        } else {
            "by rank; no recorded reads of these files".to_owned()
        };
        writeln!(out, "Entries ({order}):")?;
        for d in r.decisions {
            let place = match &d.hub {
                Some(h) => format!(" → {}", Shown(h)),
                None => String::new(),
            };
            writeln!(
                out,
                "  {:5} MEMORY.md:{} {} — {}{place}",
                d.action,
                d.line,
                Shown(&d.entry),
                Shown(&d.why)
            )?;
        }
    }
    for s in r.skipped {
        writeln!(
            out,
            "  note: {} {}: left as it is (tier neither moves nor rewrites it; `ccmem audit` \
             reports it)",
            Shown(&s.file),
            Shown(&s.why.to_string())
        )?;
    }
    for f in &r.files {
        writeln!(out)?;
        if let Some(to) = &f.link_to {
            writeln!(
                out,
                "{} -> {to} (a symbolic link: {to} is written, the link is kept)",
                f.name
            )?;
        }
        out.push_str(&f.diff);
    }
    for s in r.suggestions {
        writeln!(
            out,
            "\n--compress proposal for MEMORY.md line {} (not applied):\n- {}\n+ {}",
            s.line,
            Shown(&s.old),
            Shown(&s.new)
        )?;
    }
    for u in r.unshortened {
        writeln!(
            out,
            "\n--compress left MEMORY.md line {} as it is: {}",
            u.line,
            Shown(&u.why)
        )?;
    }
    writeln!(out, "\nProof (planned files):")?;
    proof_lines(out, r.proof)?;
    if let Some(p) = r.proof_on_disk {
        writeln!(out, "Proof (re-read from disk after writing):")?;
        proof_lines(out, p)?;
    }
    if let Some(w) = r.written {
        for m in &w.merged {
            writeln!(
                out,
                "Another writer added {} line(s) to {} while tier wrote it: kept, merged in.",
                m.lines,
                Shown(&m.file)
            )?;
        }
    }
    for f in r.changed_since {
        writeln!(
            out,
            "{} changed after tier wrote it (another writer added lines): kept; `ccmem undo` \
             keeps them too.",
            Shown(f)
        )?;
    }
    let undo = super::writes::undo_command(cx.folder, cx.named);
    match (r.written, r.mode) {
        (Some(w), _) => writeln!(
            out,
            "Wrote {}. Undo with `{undo}`.",
            counted(w.files.len(), "file", "files")
        ),
        (None, "dry-run") if !r.files.is_empty() && r.failure.is_none() => writeln!(
            out,
            "Dry run: nothing written. Apply with --write (undo with `{undo}`)."
        ),
        _ => Ok(()),
    }
}

fn step_line(s: &Step) -> String {
    match s {
        Step::CrownsKept { count } => format!("crowns kept where they are ({count})"),
        Step::Pushed {
            group,
            rank,
            hub,
            lines,
        } => format!(
            "moved {lines} {} lines of `{}` verbatim into {}",
            serde_json::to_value(rank)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            Shown(group),
            Shown(hub)
        ),
        Step::BlankLinesDropped => "blank lines dropped from MEMORY.md".to_owned(),
        Step::Aggregated { hubs, folded } => {
            let mut text = format!(
                "aggregated the pointers of the {} least recently needed hubs onto one line",
                hubs.len()
            );
            if *folded > 0 {
                text.push_str(&format!(
                    " ({folded} pointer lines and headings moved verbatim into reference_more-hubs_hub.md, \
                     then reference_more-hubs-2_hub.md… past max-file-lines)"
                ));
            }
            text
        }
    }
}

fn note_line(n: &Note) -> String {
    match n {
        Note::BrokenLink {
            line,
            targets,
            moved_to,
        } => {
            let targets: Vec<String> = targets.iter().map(|t| format!("`{}`", Shown(t))).collect();
            let place = match moved_to {
                Some(hub) => format!("moved verbatim into {}", Shown(hub)),
                None => "kept in MEMORY.md".to_owned(),
            };
            format!(
                "MEMORY.md:{line} links to {}, which leads to no file: {place} (`ccmem audit` \
                 reports it as broken-link)",
                targets.join(", ")
            )
        }
        Note::Unreadable { line, moved_to } => format!(
            "MEMORY.md:{line} links a file whose frontmatter the client cannot read: {} with \
             its unit (`ccmem audit` reports it)",
            match moved_to {
                Some(hub) => format!("moved verbatim into {}", Shown(hub)),
                None => "kept in MEMORY.md".to_owned(),
            }
        ),
        Note::LongLine { line, utf16 } => format!(
            "MEMORY.md:{line} is {utf16} UTF-16 units long (the client calls over \
             {INDEX_LINE_LONG_UTF16} too long): kept as written; `--compress` proposes a shorter \
             line"
        ),
    }
}

fn proof_lines(out: &mut String, p: &Proof) -> std::fmt::Result {
    for c in &p.checks {
        let mark = if c.ok { "✓" } else { "✗" };
        writeln!(
            out,
            "  {mark} ({}) {}: {}",
            c.id.number(),
            c.name,
            Shown(&c.detail)
        )?;
    }
    Ok(())
}

/// `tier --check`: MEMORY.md measured against the target.
#[derive(Debug, Clone, Copy)]
pub struct SizeCheck<'a> {
    /// The index.
    pub file: &'a Path,
    /// Its size, as the loader counts it.
    pub size: Size,
    /// The target.
    pub target: Target,
}

#[derive(Serialize)]
struct SizeCheckView {
    file: String,
    size: Size,
    target: Target,
    cap: Target,
    over_target: bool,
    over_cap: bool,
}

/// `tier --check` as JSON.
pub fn check_json(c: &SizeCheck<'_>) -> String {
    let view = SizeCheckView {
        file: c.file.display().to_string(),
        size: c.size,
        target: c.target,
        cap: CAP,
        over_target: !c.target.fits(c.size),
        over_cap: !CAP.fits(c.size),
    };
    super::json::document("ccmem.tier-check/1", &view)
}

/// `tier --check` for a person: one line.
pub fn check_human(c: &SizeCheck<'_>) -> String {
    format!(
        "{}: {} lines, {} UTF-16 units; target {} / {}: {}\n",
        c.file.display(),
        Count(c.size.lines),
        Count(c.size.utf16),
        Count(c.target.lines),
        Count(c.target.utf16),
        if c.target.fits(c.size) { "ok" } else { "OVER" }
    )
}
