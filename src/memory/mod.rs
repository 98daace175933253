//! A memory library: MEMORY.md (the index), hub files, and one-fact topic files.
//!
//! [`scan`] finds the `.md` files, [`file`] reads each one (bounded, never blocking) and
//! classifies it by name, [`meta`] parses its frontmatter, [`links`] finds links in a line,
//! [`library`] ties them together (link targets, reachability from the index), and [`similar`]
//! gives MinHash signatures for near-duplicate detection.

pub mod file;
pub mod library;
pub mod links;
pub mod meta;
pub mod scan;
pub mod similar;
