//! `ccmem history`: what past sessions loaded, from the client's own record.

use std::io::Write;

use crate::env::{ClientFlags, ProcessEnv};
use crate::exit::ExitStatus;
use crate::history;
use crate::render;

/// Show, session by session, what the model really had: the files loaded at start, how much of
/// MEMORY.md reached it, files attached later, memory files read and written, compactions and
/// subagents; then every line of today's MEMORY.md with the last session that loaded it.
///
/// Reads the client's transcripts of this project (sessions started anywhere inside it or in a
/// linked worktree) and ccmem's own log (written by `ccmem hook session-start`), which keeps a
/// record after the client deletes a transcript.
///
/// Exit status: 0; with --check, 1 when a recorded start differs from ccmem's prediction; 2 on
/// usage or I/O errors.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// Only this session (its id, or the start of it).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only sessions that started on or after DATE (YYYY-MM-DD, UTC, or an RFC 3339 time).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Compare each recorded start with ccmem's prediction for its directory; exit 1 when one
    /// differs (files changed since a session are left out).
    #[arg(long)]
    check: bool,
    /// List every session (the text view shows the last 20).
    #[arg(long)]
    all: bool,
    /// Do not read ccmem's own log, only the client's transcripts.
    #[arg(long)]
    no_log: bool,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let since = args.since.as_deref().map(parse_since).transpose()?;
    let env = process.client_env(ClientFlags::default())?;
    let settings = crate::settings::Settings::load(&env);
    let bar = super::progress::spinner("reading transcripts");
    let tick = || bar.inc(1);
    let opts = history::Options {
        log: if args.no_log {
            None
        } else {
            history::log::path(process.vars())
        },
        tick: Some(&tick),
        index: None,
    };
    let mut h = history::read(&env, &settings, &opts);
    bar.finish_and_clear();
    let all = h.sessions.clone();
    h.select(args.session.as_deref(), since)
        .map_err(anyhow::Error::msg)?;
    let json = super::output::json();
    let (text, status) = if args.check {
        let report = history::check::check(&h.sessions, &all, process.vars());
        let text = if json {
            render::history::check_json(&report)
        } else {
            render::history::check_human(&report, &h)
        };
        (text, ExitStatus::findings_if(report.differs()))
    } else if json {
        (render::history::json(&h), ExitStatus::Clean)
    } else {
        let opts = render::history::HumanOptions { all: args.all };
        (render::history::human(&h, opts), ExitStatus::Clean)
    };
    let mut out = super::output::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(status)
}

/// `YYYY-MM-DD` (the start of that day, UTC) or an RFC 3339 time.
fn parse_since(s: &str) -> anyhow::Result<jiff::Timestamp> {
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Ok(t);
    }
    let d: jiff::civil::Date = s
        .parse()
        .map_err(|e| anyhow::anyhow!("--since {s:?}: not a date (YYYY-MM-DD) or time: {e}"))?;
    Ok(d.to_zoned_datetime(jiff::tz::TimeZone::UTC)?.timestamp())
}
