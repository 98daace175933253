//! The receipt for a person (plain text, coloured on a terminal) and as JSON. The section on
//! auto memory (MEMORY.md against its limits, what the client cuts) is `auto_memory`'s.

use std::fmt::Write as _;

use crate::constants::counted as count;
use crate::load::automem::{IndexState, Measure};
use crate::load::{LazyWhy, SkipWhy, Why};
use crate::receipt::{Finding, Receipt, fix, group, skip_words};
use crate::render::style::{BOLD, DIM, GREEN, RED, YELLOW};
use crate::text::escape::Shown;

mod auto_memory;

pub use auto_memory::dark_story;

/// How many dark lines, unlinked topic files and traps of one rule a receipt lists before it
/// says how many more there are (`--all` lists every one; the JSON always has them all).
pub const LIST_LIMIT: usize = 10;

/// Choices for the text receipt.
#[derive(Debug, Clone, Copy, Default)]
pub struct HumanOptions {
    /// List every dark line, unlinked topic file and trap, not the first [`LIST_LIMIT`].
    pub all: bool,
}

/// The receipt as JSON (pretty, with a trailing newline).
pub fn json(receipt: &Receipt) -> String {
    let mut s = serde_json::to_string_pretty(receipt).expect("receipt serializes");
    s.push('\n');
    s
}

/// The receipt as text for a person. Styles are ANSI; `anstream` strips them when the output
/// is not a terminal or `NO_COLOR` is set.
pub fn human(r: &Receipt, opts: HumanOptions) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{BOLD}ccmem receipt{BOLD:#} {DIM}· models Claude Code {} · {}{DIM:#}",
        r.client_version,
        Shown(&r.cwd)
    );
    if let Some(note) = &r.client_note {
        let _ = writeln!(o, "{YELLOW}note: {}{YELLOW:#}", Shown(note));
    }
    platform(&mut o, r);
    if let Some(p) = &r.memory_pending {
        let _ = writeln!(o, "{YELLOW}auto memory: {}{YELLOW:#}", Shown(&p.message()));
    }
    if let Some(why) = r.disabled {
        let _ = writeln!(
            o,
            "\n{YELLOW}Nothing loads: {why} turns off CLAUDE.md files and auto memory.{YELLOW:#}"
        );
        return o;
    }
    loaded(&mut o, r);
    auto_memory::section(&mut o, r, opts);
    lazy(&mut o, r, opts);
    skipped(&mut o, r);
    reads(&mut o, r);
    traps(&mut o, r, opts);
    if !r.warnings.is_empty() || !r.problems.is_empty() {
        let _ = writeln!(o, "\n{BOLD}Client warnings{BOLD:#}");
        for w in &r.warnings {
            let _ = writeln!(o, "  {YELLOW}!{YELLOW:#} {}", Shown(&w.to_string()));
        }
        if !r.warnings.is_empty() {
            let m = &r.size_model;
            let _ = writeln!(
                o,
                "    {DIM}the size warnings assume a {}-token context window at {} characters per \
                 token (set with --context-window and --chars-per-token){DIM:#}",
                group(m.context_tokens as usize),
                m.chars_per_token
            );
        }
        for p in &r.problems {
            let _ = writeln!(
                o,
                "  {YELLOW}!{YELLOW:#} settings {} ignored: {}",
                Shown(&p.origin.to_string()),
                Shown(&p.message)
            );
        }
    }
    to_fix(&mut o, r);
    o
}

/// The platform model, when there is something to say about it: another model than Linux's,
/// predictions nothing here verifies, policy the client reads and ccmem cannot.
fn platform(o: &mut String, r: &Receipt) {
    let p = &r.platform;
    if !p.worth_saying() {
        return;
    }
    let _ = writeln!(
        o,
        "{DIM}platform model: {} · verified by {}{DIM:#}",
        p.model, p.verified
    );
    for u in &p.unverified {
        let _ = writeln!(o, "{YELLOW}unverified: {u}{YELLOW:#}");
    }
    for r in &p.read_policy {
        let _ = writeln!(
            o,
            "{DIM}policy read: {}: {}{DIM:#}",
            Shown(&r.source),
            r.note
        );
    }
    for u in &p.unread_policy {
        let _ = writeln!(
            o,
            "{YELLOW}policy not read: {}: {}{YELLOW:#}",
            u.source, u.note
        );
    }
}

/// The last section: each finding that sets the exit status, with what fixes it.
fn to_fix(o: &mut String, r: &Receipt) {
    if r.findings.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "
{BOLD}To fix{BOLD:#}"
    );
    for f in &r.findings {
        let what = if f.path.is_empty() || f.message.contains(&f.path) {
            f.message.clone()
        } else {
            format!("{}: {}", f.path, f.message)
        };
        let _ = writeln!(o, "  {RED}•{RED:#} {}", Shown(&what));
        if let Some(fix) = &f.fix {
            let _ = writeln!(o, "    {GREEN}→{GREEN:#} {BOLD}{}{BOLD:#}", Shown(fix));
        }
    }
}

fn loaded(o: &mut String, r: &Receipt) {
    let t = &r.totals;
    let _ = writeln!(
        o,
        "\n{BOLD}Loaded at session start{BOLD:#}: {} · loaded: {} bytes, {} UTF-16 units, ≈{} tokens {DIM}(estimate: units ÷ 4){DIM:#} · on disk: {} bytes",
        count(t.files, "file", "files"),
        group(t.loaded_bytes),
        group(t.utf16),
        group(t.tokens_estimate),
        group(t.bytes as usize),
    );
    if r.loaded.is_empty() {
        let _ = writeln!(o, "  (nothing: the client sends no memory reminder)");
    }
    for (i, l) in r.loaded.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {:>2}. {BOLD}{}{BOLD:#} {DIM}({}){DIM:#}",
            i + 1,
            Shown(&l.path),
            l.label
        );
        let _ = writeln!(
            o,
            "      {} · loaded: {} · {} bytes · {} UTF-16 units · ≈{} tokens {DIM}· on disk: {} bytes{DIM:#}",
            Shown(&why_words(&l.why)),
            loaded_lines(l, r),
            group(l.loaded_bytes),
            group(l.size.utf16),
            group(l.tokens_estimate),
            group(l.size.bytes as usize),
        );
    }
}

/// The lines of a loaded file: for a MEMORY.md the client cut, the lines of it that reached
/// the model, as `history` counts them, and the warning the client put after them.
fn loaded_lines(l: &crate::receipt::LoadedView, r: &Receipt) -> String {
    match &r.auto_memory.index {
        IndexState::Loaded(Measure { cut: Some(cut), .. }) if l.why == Why::AutoMemIndex => {
            format!(
                "{} + the client's cut warning",
                count(cut.kept_lines, "line", "lines")
            )
        }
        _ => count(l.size.lines, "line", "lines"),
    }
}

/// Why a file loaded, in words.
pub fn why_words(why: &Why) -> String {
    match why {
        Why::ManagedFile => "managed policy file".into(),
        Why::ManagedSettings => "claudeMd of the managed policy settings".into(),
        Why::UserFile => "user file".into(),
        Why::Rule { dir } => format!("rule without paths: in {dir}"),
        Why::Ancestor { dir } => format!("ancestor {dir}"),
        Why::AddDir { dir } => format!("--add-dir {dir}"),
        Why::Import { from, line, depth } => format!("import from {from}:{line} (depth {depth})"),
        Why::AgentsMd { mode } => format!("AGENTS.md ({mode})"),
        Why::LazyNested { dir } => format!("in {dir}, between the start directory and the file read"),
        Why::LazyRule { dir, pattern } => format!("conditional rule in {dir}: paths pattern \"{pattern}\" matched"),
        Why::AutoMemIndex => "auto-memory index".into(),
        Why::AutoMemBackfill => "auto-memory index the client would GENERATE and write (MEMORY.md is missing; ccmem wrote nothing)".into(),
    }
}

/// `… and N more` after a list cut at [`LIST_LIMIT`].
fn more(o: &mut String, n: usize, what: &str) {
    if n > 0 {
        let _ = writeln!(
            o,
            "    {DIM}… and {} more {what} (--all lists them, --json has them all){DIM:#}",
            group(n)
        );
    }
}

fn lazy(o: &mut String, r: &Receipt, opts: HumanOptions) {
    if r.lazy.is_empty() {
        return;
    }
    let _ = writeln!(o, "\n{BOLD}Reachable only later{BOLD:#}");
    let linked = r
        .lazy
        .iter()
        .filter(|l| matches!(l.why, LazyWhy::TopicFile { linked: true }))
        .count();
    let unlinked: Vec<&str> = r
        .lazy
        .iter()
        .filter(|l| matches!(l.why, LazyWhy::TopicFile { linked: false }))
        .map(|l| l.path.as_str())
        .collect();
    for l in &r.lazy {
        let how = match &l.why {
            LazyWhy::Subdirectory => "when a file in or below its folder is read".to_owned(),
            LazyWhy::ConditionalRule { globs } => {
                format!("when a file matching {} is read", globs.join(", "))
            }
            LazyWhy::TopicFile { .. } => continue,
        };
        let _ = writeln!(o, "  {} {DIM}—{DIM:#} {}", Shown(&l.path), Shown(&how));
    }
    if linked + unlinked.len() > 0 {
        let _ = writeln!(
            o,
            "  {}, read on demand: {linked} reached from the loaded part of MEMORY.md or a hub it links",
            count(
                linked + unlinked.len(),
                "auto-memory topic file",
                "auto-memory topic files"
            )
        );
    }
    if !unlinked.is_empty() {
        let _ = writeln!(
            o,
            "  {YELLOW}{} not reached from the loaded part of MEMORY.md or a hub it links (never read unless found by search):{YELLOW:#}",
            unlinked.len()
        );
        let limit = if opts.all { unlinked.len() } else { LIST_LIMIT };
        for path in unlinked.iter().take(limit) {
            let _ = writeln!(o, "    {}", Shown(path));
        }
        more(o, unlinked.len().saturating_sub(limit), "topic files");
    }
}

fn reads(o: &mut String, r: &Receipt) {
    for read in &r.reads {
        let _ = writeln!(o, "\n{BOLD}When {} is read{BOLD:#}", Shown(&read.path));
        if read.attached.is_empty() {
            let _ = writeln!(o, "  nothing new is attached");
        }
        for l in &read.attached {
            let _ = writeln!(
                o,
                "  + {} {DIM}— {}{DIM:#}",
                Shown(&l.path),
                Shown(&why_words(&l.why))
            );
        }
    }
}

/// What `ccmem check` reports for this start directory, and the command that shows the rest.
fn traps(o: &mut String, r: &Receipt, opts: HumanOptions) {
    let Some(t) = &r.traps else { return };
    if t.findings.is_empty() && t.elsewhere == 0 {
        return;
    }
    if !t.findings.is_empty() {
        let _ = writeln!(
            o,
            "\n{BOLD}Traps{BOLD:#} {DIM}· what `ccmem check` reports for this start directory, paths \
             relative to {}{DIM:#}",
            Shown(&t.root)
        );
    }
    // Each rule's first LIST_LIMIT findings: a settings file of a thousand patterns that
    // exclude nothing is one line to read, not a thousand, and another rule's still show.
    let limit = if opts.all { usize::MAX } else { LIST_LIMIT };
    let mut per_rule: Vec<(&str, usize)> = Vec::new();
    for f in &t.findings {
        let k = match per_rule.iter().position(|(rule, _)| *rule == f.rule) {
            Some(k) => k,
            None => {
                per_rule.push((f.rule, 0));
                per_rule.len() - 1
            }
        };
        per_rule[k].1 += 1;
        if per_rule[k].1 > limit {
            continue;
        }
        let (style, word) = match f.severity {
            crate::severity::Severity::Error => (RED, "error"),
            crate::severity::Severity::Warning => (YELLOW, "warning"),
        };
        let _ = writeln!(
            o,
            "  {style}{word}{style:#}[{}] {}:{} {DIM}—{DIM:#} {}",
            f.rule,
            Shown(&f.path),
            f.line,
            Shown(&f.message)
        );
        let _ = writeln!(o, "    {GREEN}→{GREEN:#} {}", Shown(&f.fix));
    }
    for (rule, n) in per_rule {
        more(o, n.saturating_sub(limit), &format!("{rule} findings"));
    }
    if t.elsewhere > 0 || t.left_out > 0 {
        let mut more = Vec::new();
        if t.elsewhere > 0 {
            more.push(format!(
                "{} elsewhere in this repository",
                count(t.elsewhere, "more finding", "more findings")
            ));
        }
        if t.left_out > 0 {
            more.push(format!(
                "{} not checked",
                count(t.left_out, "start directory", "start directories")
            ));
        }
        let _ = writeln!(
            o,
            "\n{}: {BOLD}{}{BOLD:#}",
            more.join(", "),
            Shown(&t.command)
        );
    }
}

fn skipped(o: &mut String, r: &Receipt) {
    if r.skipped
        .iter()
        .all(|s| matches!(s.why, SkipWhy::Conditional { .. }))
    {
        return;
    }
    let _ = writeln!(o, "\n{BOLD}Skipped{BOLD:#}");
    // Conditional rules are listed under "Reachable only later".
    for s in r
        .skipped
        .iter()
        .filter(|s| !matches!(s.why, SkipWhy::Conditional { .. }))
    {
        let from = s
            .from
            .as_ref()
            .map(|(f, l)| format!(" (from {f}:{l})"))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  {}{} {DIM}—{DIM:#} {}",
            Shown(&s.path),
            Shown(&from),
            Shown(&skip_words(&s.why))
        );
        if Finding::of_skip(&s.why).is_some()
            && let Some(fix) = fix::skip(s)
        {
            let _ = writeln!(o, "    {GREEN}→{GREEN:#} {}", Shown(&fix));
        }
    }
}
