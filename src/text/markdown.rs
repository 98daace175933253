//! The client's Markdown scan for `@path` imports (text tokens only).

/// One `@path` candidate as written, after fragment cut and `\ ` unescaping, with the byte
/// offset of its `@` in the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRef {
    /// The path string (not yet resolved).
    pub path: String,
    /// Byte offset of the `@` in the scanned text.
    pub offset: usize,
}

/// Every accepted `@path` in client order (first appearance; duplicates kept for the caller).
pub fn imports(_text: &str) -> Vec<ImportRef> {
    Vec::new()
}
