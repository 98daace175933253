//! `qQo` (chunk-bqhgd24a): which of the reads [`super::client_reads`] finds the client confirms
//! and records, and where the Bash tool's shell stands afterwards.
//!
//! For each read: the path (at most 4,096 units, `xk`) is resolved against the shell's current
//! directory, `~` against HOME (`Pt`); a path the session already holds (readFileState) only
//! triggers nested memory; otherwise it must be a regular file of at most 10,485,760 bytes
//! whose selected lines (`G8i`) exist and are not blank in a non-blank file, and, when the
//! output is known, occur in it (`z8i`; never for grep, whose output is not compared). A
//! grep/rg read needs exit code 0. Each confirmed path is recorded and triggers nested memory.
//!
//! The shell's directory persists across calls in the main session: a `cd` at the top level of
//! a command moves it (a `cd` in a subshell does not), and a directory outside the working
//! directories is reset to the start directory, as the client does after each command.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::forms::{self, ClientRead};
use super::syntax::Command;
use crate::constants::{BASH_READ_MAX_BYTES, PATH_MAX_UTF16};
use crate::env::ClientEnv;
use crate::load::git;

/// What the client knows of one Bash call's outcome.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Its exit code, when known (`None`: predicted).
    pub exit_code: Option<i32>,
    /// Its output (stdout), when known.
    pub output: Option<String>,
}

/// The Bash tool's side of a session: the shell's directory and the files it has seen.
#[derive(Debug, Clone)]
pub struct Shell {
    /// The shell's current directory.
    pub cwd: PathBuf,
}

impl Shell {
    /// A fresh shell in the start directory.
    pub fn new(env: &ClientEnv) -> Self {
        Shell {
            cwd: env.cwd.clone(),
        }
    }

    /// Resolves a path operand as `Pt` does: `~` and `~/…` against HOME, else against the
    /// shell's directory; normalized.
    pub fn resolve(&self, env: &ClientEnv, path: &str) -> PathBuf {
        let p = if path == "~" {
            env.home.clone()
        } else if let Some(rest) = path.strip_prefix("~/") {
            env.home.join(rest)
        } else {
            self.cwd.join(path)
        };
        git::normalize(&p)
    }

    /// The files the client confirms for `command` (absolute paths), given the files the
    /// session already holds (`held`, updated). `qQo` handles the reads in parallel
    /// (`Promise.all`): a held file triggers at once, before any `await`, so held files come
    /// first, in command order; the others trigger as their `stat` and read complete, an order
    /// that varies from run to run (captured: bash-reads-in-one-command, three orders in six
    /// runs), given here as the command order, the most frequent.
    pub fn confirmed(
        &self,
        env: &ClientEnv,
        command: &str,
        outcome: &Outcome,
        held: &mut HashSet<PathBuf>,
    ) -> Vec<PathBuf> {
        let mut first = Vec::new();
        let mut then = Vec::new();
        for read in super::client_reads(command) {
            if crate::text::js::utf16_len(&read.file) > PATH_MAX_UTF16 {
                continue;
            }
            if read.grep && !grep_succeeds(self, env, &read, outcome) {
                continue;
            }
            let path = self.resolve(env, &read.file);
            if held.contains(&path) {
                first.push(path);
            } else if confirm(&path, &read, outcome) {
                then.push(path);
            }
        }
        first.extend(then);
        let mut out: Vec<PathBuf> = Vec::with_capacity(first.len());
        for p in first {
            if !out.contains(&p) {
                held.insert(p.clone());
                out.push(p);
            }
        }
        out
    }

    /// Moves the shell as `command`'s top-level `cd`s would.
    pub fn run(&mut self, env: &ClientEnv, command: &str) {
        let Some(statements) = super::statements(command) else {
            return;
        };
        for st in &statements {
            let [Command::Simple { words, .. }] = st.pipeline.as_slice() else {
                continue;
            };
            let argv = super::command_argv(words);
            if argv.first().map(String::as_str) != Some("cd") {
                continue;
            }
            let target = match argv.get(1).map(String::as_str) {
                None | Some("~") => env.home.clone(),
                Some("-") => continue,
                Some(dir) => self.resolve(env, dir),
            };
            if target.is_dir() {
                self.cwd = target;
            }
        }
        if !crate::load::reading::dirs::within_working_dirs(env, &self.cwd) {
            self.cwd = env.cwd.clone();
        }
    }
}

/// The stat, read, slice and output checks for a path the session does not hold yet.
fn confirm(path: &Path, read: &ClientRead, outcome: &Outcome) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > BASH_READ_MAX_BYTES {
        return false;
    }
    let Ok(bytes) = crate::fsread::read_capped(path, BASH_READ_MAX_BYTES) else {
        return false;
    };
    // `fA`: one leading BOM removed, CRLF → LF.
    let text = String::from_utf8_lossy(&bytes);
    let text = text
        .strip_prefix('\u{FEFF}')
        .unwrap_or(&text)
        .replace("\r\n", "\n");
    let Some((slice, _, _)) = forms::select(&text, read.lines) else {
        return false;
    };
    if crate::text::js::trim(&slice).is_empty() && !crate::text::js::trim(&text).is_empty() {
        return false;
    }
    match (&outcome.output, read.grep) {
        (Some(output), false) => forms::output_holds(output, &slice, read.numbered),
        _ => true,
    }
}

/// A grep/rg read counts only when the command exits 0: the known exit code, else a
/// prediction (some line matches the pattern).
fn grep_succeeds(shell: &Shell, env: &ClientEnv, read: &ClientRead, outcome: &Outcome) -> bool {
    if let Some(code) = outcome.exit_code {
        return code == 0;
    }
    // grep exits 0 when it prints a match (no -q, -c or -v is tracked).
    if let Some(output) = &outcome.output {
        return !output.trim().is_empty();
    }
    let path = shell.resolve(env, &read.file);
    let Ok(bytes) = crate::fsread::read_capped(&path, BASH_READ_MAX_BYTES) else {
        return false;
    };
    super::grep::matches(&read.argv, &String::from_utf8_lossy(&bytes))
}
