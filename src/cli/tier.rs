//! `ccmem tier`: plan (and with `--write` apply) a hub-first restructure of MEMORY.md, with
//! its proof. Dry run by default.
//!
//! The dry run refuses what `--write` refuses, with the same words and exit status. A target
//! given with `--target-lines`/`--target-utf16` that cannot be reached is refused (exit 2,
//! naming the target that can); the default or `ccmem.toml` target gives way to the most tier
//! can do when that is within the client's cap (every entry then loads), and says so. Files
//! tier cannot read never block it unless it would write them ([`crate::tier::check_writes`]);
//! they are reported in `skipped`.
//!
//! JSON (`--json`): `{folder, mode, recovered, pending, before, after, target,
//! requested_target, cap, steps, notes, skipped: [{file, why}], files: [{name, created,
//! diff}], suggestions, proof: {checks}, written, proof_on_disk, changed_since, failure}`. A
//! run that refuses (exit 2) prints this report with `failure` set, and the reason on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::ClientArgs;
use crate::config::Config;
use crate::constants::INDEX_FILE as INDEX;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::memory::Library;
use crate::tier::budget::{self, CAP, Size, Target};
use crate::tier::plan::{FilePlan, Note, Plan, Suggestion};
use crate::tier::proof::{Proof, prove};
use crate::tier::{Options, Skipped, applied, check_readable, check_writes, plan, text_of, topic};
use crate::write::{self, Applied, Change, Hash, Recovered, WriteError};

/// How many times `tier --write` plans again when a file changed under a plan.
const STALE_RETRIES: usize = 3;

/// Restructure an over-budget MEMORY.md into hubs, proving nothing is lost.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The memory folder (default: the auto-memory folder of the current project).
    #[arg(value_name = "MEMORY_DIR")]
    dir: Option<PathBuf>,
    /// Apply the plan (default: dry run).
    #[arg(long, conflicts_with = "check")]
    write: bool,
    /// Exit 1 when MEMORY.md is over the target (writes nothing).
    #[arg(long)]
    check: bool,
    /// Also propose shorter descriptions for long index lines (shown, never applied).
    #[arg(long)]
    compress: bool,
    /// Target line count (default: `ccmem.toml` `[tier] target-lines`, else `[audit]
    /// target-lines`, else 120).
    #[arg(long, value_name = "N")]
    target_lines: Option<usize>,
    /// Target size in UTF-16 units (default: `ccmem.toml` `[tier] target-utf16`, else
    /// `[audit] target-utf16`, else 16000).
    #[arg(long, value_name = "N")]
    target_utf16: Option<usize>,
    /// Restructure subagent NAME's memory folder (as `ccmem receipt --agent NAME` shows it).
    #[arg(long, value_name = "NAME", conflicts_with = "dir")]
    agent: Option<String>,
    #[command(flatten)]
    client: ClientArgs,
}

/// The memory folder: the argument, else the auto-memory folder the client would use here.
pub(super) fn memory_dir(
    arg: Option<PathBuf>,
    client: &ClientArgs,
    process: &ProcessEnv,
) -> anyhow::Result<PathBuf> {
    if let Some(dir) = arg {
        if let Some(problem) = crate::fsread::memory_folder_problem(&dir) {
            anyhow::bail!("{problem}");
        }
        return Ok(dir);
    }
    let env = client.client_env(process)?;
    let settings = crate::settings::Settings::load(&env);
    crate::load::automem::resolve_folder(&env, &settings)
        .context("auto memory is off or has no folder here; pass MEMORY_DIR")
}

/// The memory library in `folder` with settings already found, `~/` links resolved against
/// HOME from the environment snapshot.
pub(super) fn load_library(
    folder: &Path,
    config: &Config,
    process: &ProcessEnv,
) -> anyhow::Result<Library> {
    let home = process.var("HOME").map(Path::new);
    Ok(Library::load_configured(folder, config.clone(), home)?)
}

/// `--agent NAME` resolved to the agent's memory folder, which then stands as MEMORY_DIR.
fn with_agent_dir(mut args: Args, process: &ProcessEnv) -> anyhow::Result<Args> {
    if let Some(name) = args.agent.take() {
        args.dir = Some(super::agent_memory::folder(&name, &args.client, process)?);
    }
    Ok(args)
}

/// "Now": `CCMEM_NOW` when set (so runs compare byte for byte, as for `audit`), else the clock.
pub(super) fn now(process: &ProcessEnv) -> anyhow::Result<jiff::Timestamp> {
    match process.var("CCMEM_NOW") {
        Some(t) => t
            .parse::<jiff::Timestamp>()
            .map_err(|e| anyhow::anyhow!("CCMEM_NOW: {e}")),
        None => Ok(jiff::Timestamp::now()),
    }
}

/// The write-module changes for planned files.
pub(super) fn changes_of(files: &[FilePlan]) -> Vec<Change> {
    files
        .iter()
        .map(|f| Change {
            name: f.name.clone(),
            expect: f.old.as_deref().map(|t| Hash::of(t.as_bytes())),
            new: Some(f.new.clone().into_bytes()),
        })
        .collect()
}

#[derive(Serialize)]
struct FileView {
    name: String,
    created: bool,
    diff: String,
}

#[derive(Serialize)]
struct Report<'a> {
    folder: String,
    mode: &'static str,
    recovered: Option<Recovered>,
    before: Size,
    after: Size,
    target: Target,
    cap: Target,
    steps: &'a [crate::tier::Step],
    notes: &'a [Note],
    files: Vec<FileView>,
    suggestions: &'a [Suggestion],
    proof: &'a Proof,
    written: Option<Applied>,
    proof_on_disk: Option<Proof>,
    /// A dry run found an interrupted operation it did not finish.
    pending: bool,
    /// Files another writer added lines to after tier wrote them (kept; not a proof failure).
    changed_since: Vec<String>,
    /// Why `--write` wrote nothing (or would write nothing, in a dry run) or left files that
    /// do not prove (exit 2).
    failure: Option<String>,
    /// The target asked for (`target` is what was planned for: the most tier can do, when the
    /// default target cannot be reached but the client's cap can).
    requested_target: Target,
    /// Files tier could not read, left as they are.
    skipped: &'a [Skipped],
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let args = with_agent_dir(args, process)?;
    let folder = memory_dir(args.dir.clone(), &args.client, process)?;
    if args.dir.is_none()
        && let Some(problem) = crate::fsread::memory_folder_problem(&folder)
    {
        anyhow::bail!(
            "{problem} (this is the auto-memory folder of the current project: the client \
             creates it when it first runs here, `ccmem add` too; or pass MEMORY_DIR)"
        );
    }
    let config = super::config::load(&folder, None)?;
    let (lines, utf16) = config.target();
    let target = Target {
        lines: args.target_lines.unwrap_or(lines),
        utf16: args.target_utf16.unwrap_or(utf16),
    };
    if args.check {
        return check(&folder, target, super::output::json());
    }
    // A dry run writes nothing, not even to finish an interrupted run (it says so instead).
    let lock = if args.write {
        Some(write::lock(&folder)?)
    } else {
        None
    };
    let recovered = match &lock {
        Some(l) => l.recover()?,
        None => None,
    };
    let pending = lock.is_none() && write::needs_recovery(&folder);
    // A target given on the command line is a demand (unreachable: refused); the default or
    // `ccmem.toml`'s is a goal (unreachable: tier does the most it can, see `plan_within_reach`).
    let explicit = args.target_lines.is_some() || args.target_utf16.is_some();
    let opts = Options {
        target,
        compress: args.compress,
        now: now(process)?,
    };
    // A file that changes between the read and the write (the client adding an entry) makes
    // the plan stale: nothing is written, and tier plans again from the new content.
    let mut attempts = 0;
    let (lib, planned, plan, proof, applied, readable) = loop {
        let lib = load_library(&folder, &config, process)?;
        let readable = check_readable(&lib, false)?;
        let plan = plan_within_reach(&lib, &opts, explicit)?;
        check_writes(&lib, &plan.files)?;
        let planned = applied(&lib, &plan);
        let proof = prove(&lib, &planned, &plan, plan.after);
        let Some(lock) = lock.as_ref().filter(|_| !plan.is_noop() && proof.ok()) else {
            break (lib, planned, plan, proof, None, readable);
        };
        match lock.apply("tier", &changes_of(&plan.files)) {
            Ok(a) => break (lib, planned, plan, proof, Some(a), readable),
            Err(WriteError::Conflict { kept: None, .. }) if attempts < STALE_RETRIES => {
                attempts += 1;
            }
            Err(e) => return Err(e.into()),
        }
    };
    let mut report = Report {
        folder: folder.display().to_string(),
        mode: if args.write { "write" } else { "dry-run" },
        recovered,
        pending,
        changed_since: Vec::new(),
        failure: None,
        before: plan.before,
        after: plan.after,
        target: plan.target,
        cap: CAP,
        steps: &plan.steps,
        notes: &plan.notes,
        files: plan.files.iter().map(view).collect(),
        suggestions: &plan.suggestions,
        proof: &proof,
        written: None,
        proof_on_disk: None,
        requested_target: target,
        skipped: &readable.skipped,
    };
    // The dry run refuses exactly what `--write` refuses, with the same words and exit status.
    let mut failure = (!proof.ok()).then(|| refusal(&plan, &proof));
    if failure.is_none()
        && let Some(applied) = applied
    {
        let (disk, changed) = verify_on_disk(&folder, &lib, &plan, &config, process)?;
        if !disk.ok() {
            failure = Some(
                "the files on disk do not prove (see above); run `ccmem undo` to restore"
                    .to_owned(),
            );
        }
        report.changed_since = changed
            .into_iter()
            .filter(|f| !applied.merged.iter().any(|m| &m.file == f))
            .collect();
        report.written = Some(applied);
        report.proof_on_disk = Some(disk);
    }
    drop(lock);
    let failure = failure.map(|why| format!("{}: {why}", folder.join(INDEX).display()));
    report.failure = failure.clone();
    let mut out = super::output::stdout_plain();
    if super::output::json() {
        let v = super::output::with_schema("ccmem.tier/1", serde_json::to_value(&report)?);
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
    } else {
        render(&mut out, &report)?;
    }
    out.flush()?;
    // The process ends next: the two snapshots (every file of the library, read and planned)
    // are left to the exit instead of being freed one allocation at a time.
    std::mem::forget((lib, planned));
    // The report says why (one JSON document on stdout, with `failure`); stderr too.
    if let Some(why) = failure {
        eprintln!("ccmem: error: {why}");
        return Ok(ExitStatus::Error);
    }
    Ok(ExitStatus::Clean)
}

/// The plan for `opts.target`; when that target cannot be reached but the client's cap can and
/// the target was not given on the command line (`explicit`), the plan for the most tier can
/// do: every entry then loads, which is what the target is for.
fn plan_within_reach(
    lib: &Library,
    opts: &Options,
    explicit: bool,
) -> Result<Plan, crate::tier::Refusal> {
    let plan = plan::plan(lib, opts)?;
    if explicit || opts.target.fits(plan.after) || !CAP.fits(plan.after) {
        return Ok(plan);
    }
    let reachable = Target {
        lines: opts.target.lines.max(plan.after.lines),
        utf16: opts.target.utf16.max(plan.after.utf16),
    };
    plan::plan(
        lib,
        &Options {
            target: reachable,
            ..*opts
        },
    )
}

/// Why a plan that does not prove is not written.
fn refusal(plan: &Plan, proof: &Proof) -> String {
    let (after, target) = (plan.after, plan.target);
    // Over the cap, files reached only past the cut stay there (3): a consequence of the size.
    let only_size =
        (proof.checks.iter()).all(|c| c.ok || c.id == 1 || (c.id == 3 && !CAP.fits(after)));
    if !only_size {
        return "the plan does not prove (see above); nothing was written".to_owned();
    }
    if !CAP.fits(after) {
        return format!(
            "cannot get within the client's cap ({} lines / {} UTF-16 units): the most tier can \
             do is {} lines / {} units (prose, rule lines, crowns and pointers stay in \
             MEMORY.md); nothing was written. Move some rule lines or prose into topic files \
             by hand, then run `ccmem tier` again",
            CAP.lines, CAP.utf16, after.lines, after.utf16
        );
    }
    format!(
        "cannot get within the target ({} lines / {} UTF-16 units): the most tier can do is {} \
         lines / {} units (prose, rule lines, crowns and pointers stay in MEMORY.md); nothing \
         was written. To accept that, run again with `--target-lines {} --target-utf16 {}` (or \
         without either: the default target gives way to what can be reached)",
        target.lines,
        target.utf16,
        after.lines,
        after.utf16,
        after.lines.max(target.lines),
        after.utf16.max(target.utf16)
    )
}

/// Re-reads the library and proves the invariants against what is on disk now. Lines another
/// writer only added to a file (merged in during the write, or written just after it) are kept
/// and left out of the proof; the files they are in are returned.
fn verify_on_disk(
    folder: &Path,
    before: &Library,
    plan: &Plan,
    config: &Config,
    process: &ProcessEnv,
) -> anyhow::Result<(Proof, Vec<String>)> {
    let after = load_library(folder, config, process)?;
    check_readable(&after, false)?;
    check_writes(&after, &plan.files)?;
    let now_text = |lib: &Library, name: &str| -> Option<String> {
        if name == INDEX {
            Some(lib.index_text().to_owned())
        } else {
            topic(lib, name).map(|f| text_of(f).to_owned())
        }
    };
    let mut changed = Vec::new();
    for f in &plan.files {
        if let Some(now) = now_text(&after, &f.name)
            && now != f.new
            && write::merge::added(f.new.as_bytes(), now.as_bytes()).is_some()
        {
            changed.push(f.name.clone());
        }
    }
    // The lines another writer only added are theirs: the proof looks at tier's version.
    let after = after.with(
        plan.files
            .iter()
            .filter(|f| changed.contains(&f.name))
            .map(|f| (f.name.as_str(), Some(f.new.as_str()))),
    );
    let size = if changed.iter().any(|f| f == INDEX) {
        // The lines another writer added are theirs, not tier's: the proof measures tier's.
        budget::measure(after.index_text())
    } else {
        budget::on_disk(&folder.join(INDEX))
            .with_context(|| format!("{}: cannot re-read", folder.join(INDEX).display()))?
    };
    let mut proof = prove(before, &after, plan, size);
    let expected = applied(before, plan);
    let differs: Vec<&str> = plan
        .files
        .iter()
        .filter(|f| now_text(&after, &f.name).as_deref() != Some(f.new.as_str()))
        .map(|f| f.name.as_str())
        .collect();
    if !differs.is_empty() || expected.top_level().count() != after.top_level().count() {
        proof.checks[3].ok = false;
        proof.checks[3]
            .detail
            .push_str(&format!("; differ from the plan on disk: {differs:?}"));
    }
    Ok((proof, changed))
}

/// One sentence for what recovery did before a command ran.
pub(crate) fn recovered_line(r: &Recovered) -> String {
    match r {
        Recovered::RolledForward { op } => {
            format!("finished an interrupted `{op}` first (all its files were ready)")
        }
        Recovered::RolledBack { op, foreign } if foreign.is_empty() => {
            format!("restored the files of an interrupted `{op}` first")
        }
        Recovered::RolledBack { op, foreign } => format!(
            "restored the files of an interrupted `{op}` first ({} changed by another writer \
             since, left as they are)",
            foreign.join(", ")
        ),
        Recovered::TempsRemoved { files } => format!(
            "removed {} temp file(s) an interrupted ccmem left: {}",
            files.len(),
            files.join(", ")
        ),
    }
}

fn check(folder: &Path, target: Target, json: bool) -> anyhow::Result<ExitStatus> {
    let path = folder.join(INDEX);
    let size = budget::on_disk(&path).with_context(|| format!("{}", path.display()))?;
    let over = !target.fits(size);
    let mut out = super::output::stdout_plain();
    if json {
        let v = serde_json::json!({"schema": "ccmem.tier-check/1", "file": path.display().to_string(), "size": size, "target": target, "cap": CAP, "over_target": over, "over_cap": !CAP.fits(size)});
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(
            out,
            "{}: {} lines, {} UTF-16 units; target {} / {}: {}",
            path.display(),
            size.lines,
            size.utf16,
            target.lines,
            target.utf16,
            if over { "OVER" } else { "ok" }
        )?;
    }
    Ok(ExitStatus::findings_if(over))
}

fn view(f: &FilePlan) -> FileView {
    let old = f.old.as_deref().unwrap_or("");
    let (a, b) = match &f.old {
        Some(_) => (format!("a/{}", f.name), format!("b/{}", f.name)),
        None => ("/dev/null".to_owned(), format!("b/{}", f.name)),
    };
    let diff = similar::TextDiff::from_lines(old, f.new.as_str())
        .unified_diff()
        .context_radius(2)
        .header(&a, &b)
        .to_string();
    FileView {
        name: f.name.clone(),
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
        s.lines, s.utf16, CAP.lines, CAP.utf16, target.lines, target.utf16
    )
}

fn render(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    writeln!(out, "ccmem tier {} ({})", r.folder, r.mode)?;
    if let Some(rec) = &r.recovered {
        writeln!(out, "{}", recovered_line(rec))?;
    }
    if r.pending {
        writeln!(
            out,
            "note: an interrupted ccmem write is pending here; this dry run left it as it is \
             (`ccmem tier --write` or `ccmem undo` finishes it first)"
        )?;
    }
    writeln!(out, "{}", size_line("MEMORY.md before", r.before, r.target))?;
    writeln!(out, "{}", size_line("MEMORY.md after ", r.after, r.target))?;
    if r.steps.is_empty() {
        writeln!(out, "Nothing to do: MEMORY.md is within the target.")?;
    }
    for s in r.steps {
        let text = match s {
            crate::tier::Step::CrownsToTop { count } => format!("crowns to the top ({count})"),
            crate::tier::Step::Pushed { group, hub, lines } => {
                format!("moved group `{group}` ({lines} lines) verbatim into {hub}")
            }
            crate::tier::Step::BlankLinesDropped => "blank lines dropped from MEMORY.md".to_owned(),
            crate::tier::Step::Aggregated { hubs, folded } => {
                let mut text = format!(
                    "aggregated the pointers of the {} least recently needed hubs onto one line",
                    hubs.len()
                );
                if *folded > 0 {
                    text.push_str(&format!(
                        " ({folded} pointer lines and headings moved verbatim into reference_more-hubs_hub.md)"
                    ));
                }
                text
            }
        };
        writeln!(out, "  step: {text}")?;
    }
    if r.target != r.requested_target {
        writeln!(
            out,
            "  note: the target ({} lines / {} UTF-16 units) cannot be reached (prose, rule \
             lines, crowns and pointers stay in MEMORY.md); planned the most tier can do, {} \
             lines / {} units, within the client's cap ({} / {}), so every entry loads",
            r.requested_target.lines,
            r.requested_target.utf16,
            r.after.lines,
            r.after.utf16,
            CAP.lines,
            CAP.utf16
        )?;
    }
    for n in r.notes {
        writeln!(out, "  note: {}", note_line(n))?;
    }
    for s in r.skipped {
        writeln!(
            out,
            "  note: {} {}: left as it is (tier neither moves nor rewrites it; `ccmem audit` \
             reports it)",
            s.file, s.why
        )?;
    }
    for f in &r.files {
        writeln!(out)?;
        out.write_all(f.diff.as_bytes())?;
    }
    for s in r.suggestions {
        writeln!(
            out,
            "\n--compress proposal for MEMORY.md line {} (not applied):\n- {}\n+ {}",
            s.line, s.old, s.new
        )?;
    }
    writeln!(out, "\nProof (planned files):")?;
    render_proof(out, r.proof)?;
    if let Some(p) = &r.proof_on_disk {
        writeln!(out, "Proof (re-read from disk after writing):")?;
        render_proof(out, p)?;
    }
    if let Some(w) = &r.written {
        for m in &w.merged {
            writeln!(
                out,
                "Another writer added {} line(s) to {} while tier wrote it: kept, merged in.",
                m.lines, m.file
            )?;
        }
    }
    for f in &r.changed_since {
        writeln!(
            out,
            "{f} changed after tier wrote it (another writer added lines): kept; `ccmem undo` \
             keeps them too."
        )?;
    }
    match (&r.written, r.mode) {
        (Some(w), _) => writeln!(
            out,
            "Wrote {} files. Undo with `ccmem undo`.",
            w.files.len()
        ),
        (None, "dry-run") if !r.files.is_empty() && r.failure.is_none() => {
            writeln!(
                out,
                "Dry run: nothing written. Apply with --write (undo with `ccmem undo`)."
            )
        }
        _ => Ok(()),
    }
}

fn note_line(n: &Note) -> String {
    match n {
        Note::BrokenLink {
            line,
            targets,
            moved_to,
        } => {
            let targets: Vec<String> = targets.iter().map(|t| format!("`{t}`")).collect();
            let place = match moved_to {
                Some(hub) => format!("moved verbatim into {hub}"),
                None => "kept in MEMORY.md".to_owned(),
            };
            format!(
                "MEMORY.md:{line} links to {}, which leads to no file: {place} (`ccmem audit` \
                 reports it as broken-link)",
                targets.join(", ")
            )
        }
        Note::LongLine { line, utf16 } => format!(
            "MEMORY.md:{line} is {utf16} UTF-16 units long (the client calls over {} too long): \
             kept as written; `--compress` proposes a shorter line",
            crate::constants::INDEX_LINE_LONG_UTF16
        ),
    }
}

fn render_proof(out: &mut impl Write, p: &Proof) -> std::io::Result<()> {
    for c in &p.checks {
        let mark = if c.ok { "✓" } else { "✗" };
        writeln!(out, "  {mark} ({}) {}: {}", c.id, c.name, c.detail)?;
    }
    Ok(())
}
