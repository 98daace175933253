//! ccmem: makes Claude Code's memory observable and keeps it healthy.
//!
//! # Layers
//!
//! Modules in dependency order, lowest first. A module uses only modules of earlier layers,
//! never one of its own layer or a later one (`tests/layering.rs` reads every `crate::` path and
//! holds this order; visibility and lints hold the rest, see below):
//!
//! 1. `constants` (every client limit, once, with its SPEC reference), `exit` (the exit status),
//!    `severity`: values every layer may use.
//! 2. `text`: text as the client reads it (JavaScript string semantics, frontmatter, comments,
//!    the Markdown import scan, links, the MEMORY.md cut, sanitizing).
//! 3. `env` (the environment snapshot: read once in `cli::main`, passed down), `fsread` (every
//!    read of a user's file: size caps, FIFOs, the folder walk).
//! 4. `config` (`ccmem.toml`: the one reader, for audit, tier, add and check), `settings` (the
//!    client's settings layers).
//! 5. `write`: the only writer of a user's files (lock, temp file, rename, journal, undo).
//! 6. `load`: the simulated client: start-up list with provenance, auto memory, lazy reads,
//!    the client's size warnings. A pure function of the file system and an [`env::ClientEnv`]:
//!    it never writes.
//! 7. `memory`: the one model of a memory folder ([`memory::Library`]: files read once,
//!    frontmatter, links, reach, `ccmem.toml`, the write spec, a pending journal).
//! 8. `rules`: the audit's checks over that model.
//! 9. `budget`, `hook`, `receipt`, `tier` (planning, proof, and `add`): the commands' logic.
//! 10. `check`: `ccmem check` (uses `receipt` and `rules`).
//! 11. `render`: every view of those results (human, JSON, SARIF, hook output, the client's
//!     exact reminder text); no logic of its own.
//! 12. `verify`: runs the real client and compares its reminder with `render`'s.
//! 13. `cli`: argument parsing, one file per subcommand; the only place that reads the process
//!     (arguments, environment, working directory) and prints.
//!
//! # What the compiler holds
//!
//! - Modules that are not the library's API (what `tests/`, `benches/`, `fuzz/` and `main.rs`
//!   use) are `pub(crate)`, and `unreachable_pub` (Cargo.toml's `[lints]`) keeps their items
//!   from claiming more.
//! - `clippy.toml`'s `disallowed-methods`, each with its reason: files are written only in
//!   `write`, the environment is read only in `env`. The few legitimate exceptions carry an
//!   `allow` with the reason beside them. Tests build fixtures freely.
//! - Printing (`print_stdout`, `print_stderr`) only in `cli`: everything else returns its
//!   result or writes to the `Write` it is given.
#![cfg_attr(
    not(test),
    warn(clippy::disallowed_methods, clippy::print_stdout, clippy::print_stderr)
)]

pub(crate) mod budget;
pub mod check;
pub mod cli;
pub mod config;
pub mod constants;
pub mod env;
pub(crate) mod exit;
pub(crate) mod fsread;
pub(crate) mod hook;
pub mod load;
pub mod memory;
pub mod receipt;
pub mod render;
pub mod rules;
pub(crate) mod settings;
pub(crate) mod severity;
pub mod text;
pub mod tier;
pub mod verify;
pub mod write;
