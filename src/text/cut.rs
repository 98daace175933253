//! Measuring and cutting MEMORY.md: 200 lines / 25,000 UTF-16 units, and the warning text.

/// Lines the client loads from MEMORY.md.
pub const MAX_LINES: usize = 200;
/// UTF-16 units the client loads from MEMORY.md.
pub const MAX_UTF16: usize = 25_000;
