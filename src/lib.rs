//! ccmem: makes Claude Code's memory observable and keeps it healthy.
//!
//! Modules, in dependency order (each uses only those before it):
//!
//! `text` (JavaScript string semantics, frontmatter, comments, Markdown import scan, the
//! MEMORY.md cut, sanitizing; it uses only `constants`) → `env`, `settings`, `fsread` (what the
//! client sees) → `load` (the simulated client: startup list with provenance, auto memory, lazy
//! reads, the client's size warnings) → `render` (the client's exact reminder text; human and
//! JSON views) → `cli` (argument parsing, one file per subcommand).
//!
//! The loader is a pure function of the file system and a [`env::ClientEnv`]: it never writes.

pub mod budget;
pub mod check;
pub mod cli;
pub mod config;
pub mod constants;
pub mod env;
pub mod exit;
pub mod fsread;
pub mod hook;
pub mod load;
pub mod memory;
pub mod receipt;
pub mod render;
pub mod rules;
pub mod settings;
pub mod severity;
pub mod text;
pub mod tier;
pub mod verify;
pub mod write;
