//! The memory library: the one model of a memory folder (MEMORY.md, hubs, topic files) that
//! every command reads.
//!
//! [`library`] is the snapshot: the folder walked once (`crate::fsread::md_files_batched`), every file
//! read once ([`file`]) and its frontmatter parsed as the client parses it ([`meta`]), the links
//! of every file resolved (syntax in `crate::text::links`), which files MEMORY.md reaches from
//! the part the client loads, and the library's settings (`crate::config`, `ccmem.toml`) and write
//! spec ([`spec`]). [`session`] is the library of a session's auto-memory folder (what the receipt
//! and the hooks read). [`similar`] gives MinHash signatures for near-duplicate detection.

pub mod file;
pub mod library;
pub mod meta;
pub mod names;
pub mod pending;
pub mod session;
pub mod similar;
pub mod spec;

pub use library::{Library, LoadOptions, Reach, Target};
pub use pending::Pending;
pub use spec::Spec;
