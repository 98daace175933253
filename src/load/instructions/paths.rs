//! Path helpers with node's `path` semantics on strings (the client prints paths as strings,
//! byte for byte; nothing here normalizes Unicode).

use std::path::Path;

/// node `path.dirname`.
pub fn dirname(p: &str) -> String {
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return if p.starts_with('/') { "/" } else { "." }.into();
    }
    match trimmed.rfind('/') {
        None => ".".into(),
        Some(i) => {
            let d = trimmed[..i].trim_end_matches('/');
            if d.is_empty() { "/".into() } else { d.into() }
        }
    }
}

/// node `path.join(a, b)` for an absolute `a` (then normalized).
pub fn join(a: &str, b: &str) -> String {
    let mut joined = String::with_capacity(a.len() + 1 + b.len());
    joined.push_str(a);
    joined.push('/');
    joined.push_str(b);
    if is_normal(&joined) {
        joined
    } else {
        normalize(&joined)
    }
}

/// node `path.normalize` of an absolute path (`.`/`..` collapsed, `//` and trailing `/` gone).
pub fn normalize(p: &str) -> String {
    if is_normal(p) {
        return p.to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Already absolute and normalized: nothing for [`normalize`] to do.
fn is_normal(p: &str) -> bool {
    // One pass over the bytes (this runs for every path a load builds): every component
    // between slashes is non-empty and neither `.` nor `..`.
    let b = p.as_bytes();
    if b.first() != Some(&b'/') {
        return false;
    }
    if b.len() == 1 {
        return true;
    }
    let mut start = 1;
    for i in 1..=b.len() {
        if i == b.len() || b[i] == b'/' {
            if matches!(&b[start..i], b"" | b"." | b"..") {
                return false;
            }
            start = i + 1;
        }
    }
    true
}

/// node `path.extname`: `.hidden` → "", `a.md,` → `.md,`, `b.md.` → `.`.
pub fn extname(p: &str) -> &str {
    let base = p.rsplit('/').next().unwrap_or(p);
    let stripped = base.trim_start_matches('.');
    let lead = base.len() - stripped.len();
    match stripped.rfind('.') {
        Some(i) if lead + i > 0 => &base[lead + i..],
        _ => "",
    }
}

/// Whether `target` is `dir` or below it, compared case-insensitively (`od`).
pub fn is_inside_casefold(target: &str, dir: &str) -> bool {
    if target.is_ascii() && dir.is_ascii() {
        // ASCII lower-cases byte by byte: the same test without two lower-cased copies.
        let (t, d) = (target.as_bytes(), dir.trim_end_matches('/').as_bytes());
        return d.is_empty()
            || (t.len() >= d.len()
                && t[..d.len()].eq_ignore_ascii_case(d)
                && (t.len() == d.len() || t[d.len()] == b'/'));
    }
    let t = target.to_lowercase();
    let d = dir.trim_end_matches('/').to_lowercase();
    t == d || d.is_empty() || t.strip_prefix(&d).is_some_and(|r| r.starts_with('/'))
}

/// Whether `target` is strictly below `dir` (case-sensitive).
pub fn is_strictly_below(target: &str, dir: &str) -> bool {
    let d = dir.trim_end_matches('/');
    target
        .strip_prefix(d)
        .is_some_and(|r| r.starts_with('/') && r.len() > 1)
}

/// A path as the client's string (lossy only for non-UTF-8 bytes, which the client cannot print
/// either).
pub fn to_string(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirname_follows_node() {
        assert_eq!(dirname("/a/b/c.md"), "/a/b");
        assert_eq!(dirname("/a"), "/");
        assert_eq!(dirname("/a/b/"), "/a");
        assert_eq!(dirname("/"), "/");
    }

    #[test]
    fn extname_follows_node() {
        assert_eq!(extname("/p/.hidden"), "");
        assert_eq!(extname("/p/a.md,"), ".md,");
        assert_eq!(extname("/p/b.md."), ".");
        assert_eq!(extname("/p/x.TXT"), ".TXT");
        assert_eq!(extname("/p.d/noext"), "");
        assert_eq!(extname("/p/.hidden.md"), ".md");
    }

    #[test]
    fn normalize_collapses() {
        assert_eq!(normalize("/a/./b/../c//d/"), "/a/c/d");
        assert_eq!(join("/a/b", "../x.md"), "/a/x.md");
    }

    #[test]
    fn inside_is_casefolded_and_bounded() {
        assert!(is_inside_casefold("/r/P/x.md", "/r/p"));
        assert!(is_inside_casefold("/r/p", "/r/p"));
        assert!(!is_inside_casefold("/r/pq/x.md", "/r/p"));
        assert!(is_inside_casefold("/R/P/", "/r/p/") && is_inside_casefold("/x", "/"));
        assert!(!is_inside_casefold("/r", "/r/p"));
        // Non-ASCII goes through Unicode lower-casing.
        assert!(is_inside_casefold("/Ä/b", "/ä"));
        assert!(is_strictly_below("/r/p/q", "/r/p"));
        assert!(!is_strictly_below("/r/p", "/r/p"));
    }
}
