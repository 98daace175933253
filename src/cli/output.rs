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

use serde_json::{Map, Value};

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

/// The schema of the document `--json` prints for a failed command.
pub const ERROR_SCHEMA: &str = "ccmem.error/1";

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

/// Where a command's report goes: stdout as it is for JSON (which has no styles), stdout with
/// styles kept or stripped as `--color` says for text, nowhere for text under `-q`.
pub fn stdout() -> Box<dyn Write> {
    let o = get();
    if o.json {
        Box::new(io::stdout().lock())
    } else if o.quiet {
        Box::new(io::sink())
    } else {
        Box::new(anstream::stdout().lock())
    }
}

/// Like [`stdout`], for output with no styles of ccmem's own (the exact reminder, SARIF,
/// diffs, JSON): bytes go out as they are, never scanned for escapes, so a file's own control
/// characters are printed as the client would send them.
pub fn stdout_plain() -> Box<dyn Write> {
    let o = get();
    if o.quiet && !o.json {
        Box::new(io::sink())
    } else {
        Box::new(io::stdout().lock())
    }
}

/// `value` with `"schema": schema` as its first key (`value` must be an object).
pub fn with_schema(schema: &str, value: Value) -> Value {
    let mut out = Map::new();
    out.insert("schema".into(), Value::from(schema));
    if let Value::Object(map) = value {
        out.extend(map.into_iter().filter(|(k, _)| k != "schema"));
    }
    Value::Object(out)
}

/// The document `--json` prints on stdout when a command fails: its message and causes.
pub fn error_document(error: &str, causes: &[String]) -> Value {
    with_schema(
        ERROR_SCHEMA,
        serde_json::json!({"error": error, "causes": causes, "exit_code": 2}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_is_the_first_key_and_replaces_an_old_one() {
        let v = with_schema("ccmem.x/1", serde_json::json!({"a": 1, "schema": "old"}));
        assert_eq!(v.to_string(), r#"{"schema":"ccmem.x/1","a":1}"#);
    }

    #[test]
    fn an_error_document_has_the_error_schema() {
        let v = error_document("boom", &["cause".to_owned()]);
        assert_eq!(v["schema"], ERROR_SCHEMA);
        assert_eq!(v["causes"][0], "cause");
        assert_eq!(v["exit_code"], 2);
    }
}
