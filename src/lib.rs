//! ccmem: makes Claude Code's memory observable and keeps it healthy.
//!
//! # Layers
//!
//! Modules in dependency order, lowest first. A module uses only modules of earlier layers,
//! never one of its own layer or a later one (`tests/layering.rs` reads every `crate::` path and
//! holds this order; visibility and lints hold the rest, see below):
//!
//! 1. `constants` (every client limit, once, with its SPEC reference), `exit` (the exit status),
//!    `platform` (linux, macos, windows, wsl: the client's platform, a value chosen at run
//!    time), `severity`: values every layer may use; `sys`, the operating system (every call
//!    that is not plain `std`, with what it means on Unix and on Windows).
//! 2. `text`: text as the client reads it (JavaScript string semantics, frontmatter, comments,
//!    the Markdown import scan, links, the MEMORY.md cut, sanitizing).
//! 3. `env` (the environment snapshot: read once in `cli::main`, passed down), `fsread` (every
//!    read of a user's file: size caps, FIFOs, the folder walk).
//! 4. `config` (`ccmem.toml`: the one reader, for audit, tier, add and check), `settings` (the
//!    client's settings layers).
//! 5. `write`: the only writer of a user's files (lock, temp file, rename, journal, undo).
//! 6. `load`: the simulated client: start-up list with provenance, auto memory, lazy reads,
//!    the client's size warnings, and the exact reminder text it sends. A pure function of the
//!    file system and an [`env::ClientEnv`]: it never writes.
//! 7. `memory`: the one model of a memory folder ([`memory::Library`]: files read once,
//!    frontmatter, links, reach, `ccmem.toml`, the write spec, a pending journal).
//! 8. `history`: what past sessions loaded, from the client's transcripts and ccmem's own log
//!    (read as untrusted input), checked against `load`'s prediction; the usage evidence the
//!    commands below show and order by.
//! 9. `budget`, `hook`, `receipt`: the commands' logic.
//! 10. `repo`: the one model of a repository (the walk, the start directories, one loader
//!     session each), what `memory` is to a memory folder.
//! 11. `rules`: every rule in one registry, whichever command runs it (`ccmem audit` over a
//!     memory library, `ccmem check` over a repository), reporting one finding type
//!     ([`rules::Diagnostic`]); the two runners.
//! 12. `tier` (planning, proof, and `add`), `verify` (runs the real client and compares its
//!     reminder with `load`'s).
//! 13. `render`: every view of those results (human, JSON, SARIF, hook output); no logic of its
//!     own.
//! 14. `cli`: argument parsing, one file per subcommand; the only place that reads the process
//!     (arguments, environment, working directory) and prints. A command parses, calls the
//!     library, and prints what `render` made of the result.
//!
//! # What the compiler holds
//!
//! - Modules that are not the library's API (what `tests/`, `benches/`, `fuzz/` and `main.rs`
//!   use) are `pub(crate)`, and `unreachable_pub` (Cargo.toml's `[lints]`) keeps their items
//!   from claiming more.
//! - `clippy.toml`'s `disallowed-methods`, each with its reason: files are written only in
//!   `write`, the environment is read only in `env`. The few legitimate exceptions carry an
//!   `allow` with the reason beside them. Tests build fixtures freely.
//! - `unsafe` only in `sys` (`unsafe_code` is denied everywhere else; the binary's `main.rs`
//!   holds the one other exception, its `no_mangle` entry point).
//! - Printing (`print_stdout`, `print_stderr`) only in `cli`: everything else returns its
//!   result or writes to the `Write` it is given.
#![deny(unsafe_code)]
#![cfg_attr(
    not(test),
    warn(clippy::disallowed_methods, clippy::print_stdout, clippy::print_stderr)
)]

pub(crate) mod budget;
pub mod cli;
pub mod config;
pub mod constants;
pub mod env;
pub(crate) mod exit;
pub(crate) mod fsread;
pub mod history;
pub(crate) mod hook;
pub mod load;
pub mod memory;
pub mod platform;
pub mod receipt;
pub mod render;
pub mod repo;
pub mod rules;
pub(crate) mod settings;
pub(crate) mod severity;
#[allow(
    unsafe_code,
    reason = "the one module that calls the OS beyond std (see its header)"
)]
pub(crate) mod sys;
pub mod text;
pub mod tier;
pub mod verify;
pub mod write;
