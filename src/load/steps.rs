//! A session's tool calls in order — Reads and Bash commands — and what the client attaches
//! after each (SPEC-reading; SPEC-compaction B4: one dedup shared by Read and Bash).

use std::collections::HashSet;
use std::path::PathBuf;

use super::Session;
use super::bash::track::{Outcome, Shell};
use super::model::Loaded;
use super::reading::Attacher;
use crate::env::ClientEnv;

/// One tool call of the main loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The Read tool on a path (relative to the start directory, or absolute).
    Read(String),
    /// The Bash tool running a command (its outcome predicted).
    Bash(String),
}

/// What one step did.
#[derive(Debug, Clone, Default)]
pub struct StepResult {
    /// The files the step put into the session's read state (for a Bash step, the reads the
    /// client tracks).
    pub recorded: Vec<PathBuf>,
    /// What the client attaches after it, in order (each is one block).
    pub attached: Vec<Loaded>,
}

/// Replays `steps` on top of a session.
pub fn load(env: &ClientEnv, session: &Session, steps: &[Step]) -> Vec<StepResult> {
    super::memo::reset();
    let mut loader = super::instructions::Loader::new(env, &session.settings);
    let mut timeline = Timeline::new(env, session, &mut loader);
    steps
        .iter()
        .map(|s| match s {
            Step::Read(p) => timeline.read(p),
            Step::Bash(c) => timeline.bash(c, &Outcome::default()),
        })
        .collect()
}

/// The main loop's state across tool calls.
pub struct Timeline<'a> {
    env: &'a ClientEnv,
    attacher: Attacher<'a>,
    /// The Bash tool's shell.
    pub shell: Shell,
    /// Files in the session's read state (readFileState).
    pub held: HashSet<PathBuf>,
}

impl<'a> Timeline<'a> {
    /// A session right after start.
    pub fn new(
        env: &'a ClientEnv,
        session: &'a Session,
        procedure: &'a mut dyn super::reading::Procedure,
    ) -> Self {
        Timeline {
            env,
            attacher: Attacher::new(env, session, procedure),
            shell: Shell::new(env),
            held: HashSet::new(),
        }
    }

    /// A Read of `path`.
    pub fn read(&mut self, path: &str) -> StepResult {
        let file = super::git::normalize(&self.env.cwd.join(path));
        self.held.insert(file.clone());
        StepResult {
            attached: self.attacher.read(&file),
            recorded: vec![file],
        }
    }

    /// A Bash call of `command` with its outcome: the reads the client tracks trigger nested
    /// memory; then the shell moves.
    pub fn bash(&mut self, command: &str, outcome: &Outcome) -> StepResult {
        if self.refused(command) {
            return StepResult::default();
        }
        let recorded = self
            .shell
            .confirmed(self.env, command, outcome, &mut self.held);
        let mut attached = Vec::new();
        for file in &recorded {
            attached.extend(self.attacher.read(file));
        }
        self.shell.run(self.env, command);
        StepResult { recorded, attached }
    }

    /// The client's permission check refuses a Bash command that reads a file a Read deny rule
    /// covers ("Permission to use Bash with command … has been denied"): it never runs, so it
    /// records nothing, attaches nothing and moves no shell (captured: bash-read-denied).
    fn refused(&self, command: &str) -> bool {
        let tracked = super::bash::client_reads(command)
            .into_iter()
            .map(|r| self.shell.resolve(self.env, &r.file));
        tracked
            .chain(super::bash::untracked::reads(
                self.env,
                &self.shell,
                command,
                None,
            ))
            .any(|p| self.attacher.denies(&p))
    }

    /// What a Read of `file` (absolute) would attach now, without recording anything when it
    /// attaches nothing new (for ccmem's own hook).
    pub fn attach_as_read(&mut self, file: &std::path::Path) -> Vec<Loaded> {
        self.held.insert(file.to_path_buf());
        self.attacher.read(file)
    }

    /// Records that the session already holds `path` (seen in a transcript).
    pub fn hold(&mut self, path: &std::path::Path) {
        self.attacher.hold(path);
    }
}
