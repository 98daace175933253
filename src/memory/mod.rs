//! A memory library: MEMORY.md (the index), hub files, and one-fact topic files.

pub mod links;
