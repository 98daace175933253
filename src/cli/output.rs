//! How every command reports, from the global flags, decided once in `cli::main`:
//!
//! - `--json`: one JSON document on stdout whose first key is `schema` (`ccmem.<command>/<n>`,
//!   a JSON Schema for each in `docs/schemas/`); a command that fails prints a
//!   `ccmem.error/1` document there instead (and its usual line on stderr).
//! - `--color auto|always|never`: colours on stdout (`auto`: a terminal, and `NO_COLOR` unset);
//!   hook output for the client is never coloured.
//! - `-q`: no text report and no progress; the exit status tells the result. JSON, when asked
//!   for, is still printed; errors still go to stderr.
//!
//! The choice is set once, before the command runs, and read where output is written.

use std::io::{self, Write};
use std::sync::OnceLock;

use crate::render::findings::Format;
use crate::text::escape::{Guard, Mode};

/// When to colour stdout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// When stdout is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always (also through a pipe).
    Always,
    /// Never.
    Never,
}

/// The output choices of this run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Output {
    /// `--json`.
    pub json: bool,
    /// `-q`.
    pub quiet: bool,
    /// `--color`.
    pub color: ColorWhen,
}

static OUTPUT: OnceLock<Output> = OnceLock::new();

impl Output {
    /// Makes this the run's choice (once, in `cli::main`; later calls change nothing).
    pub fn install(self) {
        anstream::ColorChoice::write_global(match self.color {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        });
        let _ = OUTPUT.set(self);
    }
}

/// This run's choices (the defaults before `install`, e.g. in unit tests).
pub fn get() -> Output {
    OUTPUT.get().copied().unwrap_or_default()
}

/// `--json` was given.
pub fn json() -> bool {
    get().json
}

/// `-q` was given.
pub fn quiet() -> bool {
    get().quiet
}

/// Where a command's report goes: stdout for the JSON document (`--json`), stdout with styles
/// kept or stripped as `--color` says for text, nowhere for text under `-q`. Through the one
/// escaper ([`Guard`]), always.
pub fn stdout() -> Box<dyn Write> {
    report(|| {
        Box::new(Guard::new(
            anstream::stdout().lock(),
            Mode::Text { styles: true },
        ))
    })
}

/// Like [`stdout`], for output with no styles of ccmem's own (diffs, documentation, JSON):
/// nothing is scanned for styles, and any control character is escaped.
pub fn stdout_plain() -> Box<dyn Write> {
    report(|| Box::new(plain()))
}

/// Writes a whole report to [`stdout_plain`].
pub fn print_plain(text: &str) -> io::Result<()> {
    let mut out = stdout_plain();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// The JSON document under `--json`, nothing under `-q`, else `text`.
fn report(text: impl FnOnce() -> Box<dyn Write>) -> Box<dyn Write> {
    let o = get();
    if o.json {
        Box::new(Guard::new(io::stdout().lock(), Mode::Json))
    } else if o.quiet {
        Box::new(io::sink())
    } else {
        text()
    }
}

/// Text on stdout, any control character escaped.
fn plain() -> Guard<io::StdoutLock<'static>> {
    Guard::new(io::stdout().lock(), Mode::Text { styles: false })
}

/// For a JSON document a `--format` chose (SARIF, the findings JSON) even without `--json`.
pub fn stdout_json() -> Box<dyn Write> {
    if get().quiet && !get().json {
        Box::new(io::sink())
    } else {
        Box::new(Guard::new(io::stdout().lock(), Mode::Json))
    }
}

/// Where a findings report (`audit`, `check`) in `format` goes, buffered (the JSON of a large
/// library is tens of thousands of lines, and a line-buffered stdout would write each one
/// separately): the human view as [`stdout`] (styles kept or stripped as `--color` says), a
/// JSON document or SARIF as [`stdout_json`], GitHub commands as [`stdout_plain`].
pub fn findings(format: Format) -> io::BufWriter<Box<dyn Write>> {
    io::BufWriter::new(match format {
        Format::Human => stdout(),
        Format::Json | Format::Sarif => stdout_json(),
        Format::Github => stdout_plain(),
    })
}

/// For the exact text the client would send the model (`ccmem context`): redirected (to a file,
/// a pipe, `verify`, a script), its bytes go out as they are, the file's own control characters
/// included, as the client sends them; on a terminal, where those would act, escaped as every
/// other output is.
pub fn stdout_exact() -> Box<dyn Write> {
    use std::io::IsTerminal;
    report(|| {
        if io::stdout().is_terminal() {
            Box::new(plain())
        } else {
            Box::new(io::stdout().lock())
        }
    })
}

/// Where ccmem's errors, warnings and notes go: stderr, escaped (they name files).
pub fn stderr() -> Guard<io::StderrLock<'static>> {
    Guard::new(io::stderr().lock(), Mode::Text { styles: false })
}

/// One line on [`stderr`]: a line break inside it (a file name can hold one) is escaped too.
pub fn eprint_line(line: std::fmt::Arguments<'_>) {
    let line = line.to_string();
    let mut err = stderr();
    let _ = err.write_all(crate::text::escape::escape(&line).as_bytes());
    let _ = err.write_all(b"\n");
}
