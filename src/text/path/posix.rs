//! node's `path.posix` on strings: what the Linux and macOS builds import as `path`.

use super::win32::normalize_string;

fn is_sep(b: u8) -> bool {
    b == b'/'
}

/// `path.posix.isAbsolute`.
pub fn is_absolute(p: &str) -> bool {
    p.starts_with('/')
}

/// `path.posix.normalize`.
pub fn normalize(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    if is_normal(p) {
        return p.to_owned();
    }
    let absolute = p.starts_with('/');
    let trailing = p.ends_with('/');
    let mut s = normalize_string(p, !absolute, '/', is_sep);
    if s.is_empty() {
        return match (absolute, trailing) {
            (true, _) => "/".into(),
            (false, true) => "./".into(),
            (false, false) => ".".into(),
        };
    }
    if trailing {
        s.push('/');
    }
    if absolute { format!("/{s}") } else { s }
}

/// An absolute path `normalize` leaves as it is: no empty, `.` or `..` segment (a trailing
/// `/` is kept by `normalize` too).
fn is_normal(p: &str) -> bool {
    let b = p.as_bytes();
    if b.first() != Some(&b'/') {
        return false;
    }
    let body = b[1..].strip_suffix(b"/").unwrap_or(&b[1..]);
    body.is_empty() && b.len() == 1
        || !body.is_empty()
            && body
                .split(|&c| c == b'/')
                .all(|seg| !matches!(seg, b"" | b"." | b".."))
}

/// `path.posix.join`.
pub fn join(parts: &[&str]) -> String {
    let parts: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return ".".into();
    }
    normalize(&parts.join("/"))
}

/// `path.posix.dirname`.
pub fn dirname(p: &str) -> String {
    let b = p.as_bytes();
    if b.is_empty() {
        return ".".into();
    }
    let absolute = b[0] == b'/';
    let mut end = None;
    let mut matched_slash = true;
    for i in (1..b.len()).rev() {
        if b[i] == b'/' {
            if !matched_slash {
                end = Some(i);
                break;
            }
        } else {
            matched_slash = false;
        }
    }
    match end {
        None if absolute => "/".into(),
        None => ".".into(),
        Some(1) if absolute => "//".into(),
        Some(e) => p[..e].to_owned(),
    }
}
