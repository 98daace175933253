//! Path helpers with node's `path` semantics on strings, in the platform's flavour (the client
//! prints paths as strings, byte for byte; nothing here normalizes Unicode). The posix forms
//! below are fast paths for the normalized absolute paths a load builds; Windows goes through
//! [`crate::text::path::win32`]. Also the two platform rules on loaded paths: the processed-set
//! key ([`dedup_key`], `sg`) and the inside-a-folder test ([`inside`], `od`).

use std::path::Path;

use crate::platform::Platform;
use crate::text::path::{self as node_path, win32};

/// node `path.dirname`.
pub fn dirname(platform: Platform, p: &str) -> String {
    if platform.is_windows() {
        return win32::dirname(p);
    }
    posix_dirname(p)
}

fn posix_dirname(p: &str) -> String {
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
pub fn join(platform: Platform, a: &str, b: &str) -> String {
    if platform.is_windows() {
        return win32::join(&[a, b]);
    }
    let mut joined = String::with_capacity(a.len() + 1 + b.len());
    joined.push_str(a);
    joined.push('/');
    joined.push_str(b);
    if is_normal(&joined) {
        joined
    } else {
        posix_normalize(&joined)
    }
}

/// node `path.normalize` of an absolute path (`.`/`..` collapsed, `//` gone; on posix the
/// trailing `/` goes too, as every caller wants the folder without it).
pub fn normalize(platform: Platform, p: &str) -> String {
    if platform.is_windows() {
        return win32::normalize(p);
    }
    posix_normalize(p)
}

fn posix_normalize(p: &str) -> String {
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

/// node `path.extname`: `.hidden` → "", `a.md,` → `.md,`, `b.md.` → `.` (on Windows the
/// name also ends at a `\`).
pub fn extname(platform: Platform, p: &str) -> &str {
    let base = if platform.is_windows() {
        p.rsplit(['/', '\\']).next().unwrap_or(p)
    } else {
        p.rsplit('/').next().unwrap_or(p)
    };
    let stripped = base.trim_start_matches('.');
    let lead = base.len() - stripped.len();
    match stripped.rfind('.') {
        Some(i) if lead + i > 0 => &base[lead + i..],
        _ => "",
    }
}

/// The key of a path in the session's processed set (`sg`, chunk-xygbzv11): the normalized
/// path without trailing separators (unless it is its root); on Windows also with `/` made `\`
/// and lower-cased, so `@X.md` and `@x.md` (or `C:/p` and `c:\p`) are one file there, and two
/// on Linux and macOS even where the file system folds case.
pub fn dedup_key(platform: Platform, p: &str) -> String {
    if !platform.is_windows() && is_normal(p) {
        return p.to_owned(); // a load's paths: already normalized and absolute
    }
    let n = node_path::normalize(platform, p);
    let root = node_path::root(platform, &n).len();
    let seps: &[char] = if platform.is_windows() {
        &['\\', '/']
    } else {
        &['/']
    };
    let kept = if n.len() > root {
        n.trim_end_matches(seps)
    } else {
        &n
    };
    if platform.is_windows() {
        kept.replace('/', "\\").to_lowercase()
    } else {
        kept.to_owned()
    }
}

/// Whether `target` is `dir` or below it as the client's `od` decides with its default
/// `caseFold` (chunk-757mw3zq): both paths lower-cased (`as`: `toLowerCase`, then `ı` → `i`,
/// `ſ` → `s`) after `/private/var/` → `/var/` and `/private/tmp` → `/tmp` (`YZi`/`pea`, so a
/// macOS `/private/tmp/p` start directory holds `/tmp/p/x.md`, and on Linux alike). On Windows
/// both are first normalized (`Pt`, so `pea`'s forward-slash patterns never match there) and
/// put in MSYS form (`jO`: `C:\x` → `/c/x`). Inside when the relative path from `dir` is
/// empty or neither climbs (`..`) nor is absolute: a prefix test at a separator.
pub fn inside(platform: Platform, target: &str, dir: &str) -> bool {
    if platform.is_windows() {
        let msys = |p: &str| node_path::to_msys(&win32::normalize(p));
        return is_inside_casefold(&msys(target), &msys(dir));
    }
    // `Pt` normalizes both first.
    inside_normalized(platform, &resolved(target), &resolved(dir))
}

/// [`inside`] for paths already normalized, as every path a load builds is (joined, resolved
/// or a real path): the test the loader runs for every import and rule.
pub fn inside_normalized(platform: Platform, target: &str, dir: &str) -> bool {
    if platform.is_windows() {
        return inside(platform, target, dir);
    }
    if !under_private(target) && !under_private(dir) {
        return is_inside_casefold(target, dir);
    }
    is_inside_casefold(&fold_private(target), &fold_private(dir))
}

fn resolved(p: &str) -> std::borrow::Cow<'_, str> {
    // A `.` or `..` segment or a doubled `/` is what normalizing changes in an absolute path.
    let changes = p.contains("//")
        || p.contains("/./")
        || p.contains("/../")
        || p.ends_with("/.")
        || p.ends_with("/..");
    if !p.starts_with('/') || !changes {
        p.into()
    } else {
        node_path::posix::normalize(p).into()
    }
}

fn under_private(p: &str) -> bool {
    p.len() >= 8 && p.as_bytes()[..8].eq_ignore_ascii_case(b"/private")
}

/// `YZi(p, true)`: `/private/var/` → `/var/`, `/private/tmp` (alone or before `/`) → `/tmp`,
/// ASCII case ignored.
fn fold_private(p: &str) -> std::borrow::Cow<'_, str> {
    fold_private_as(p, true)
}

/// `YZi(p, caseFold)` (chunk-wt8f0tgm): [`fold_private`], with the ASCII case of `/private/…`
/// ignored only when `case_fold` is set (`od` with `caseFold: false`, as `g_` asks, folds
/// only the exact spelling).
pub fn fold_private_as(p: &str, case_fold: bool) -> std::borrow::Cow<'_, str> {
    let b = p.as_bytes();
    let starts = |prefix: &[u8]| {
        b.len() >= prefix.len()
            && if case_fold {
                b[..prefix.len()].eq_ignore_ascii_case(prefix)
            } else {
                &b[..prefix.len()] == prefix
            }
    };
    if starts(b"/private/var/") {
        return format!("/var/{}", &p[13..]).into();
    }
    if starts(b"/private/tmp") && (b.len() == 12 || b[12] == b'/') {
        return format!("/tmp{}", &p[12..]).into();
    }
    p.into()
}

/// Whether `target` is `dir` or below it, compared case-insensitively (the prefix test of
/// `od`, on normalized posix-form paths).
pub fn is_inside_casefold(target: &str, dir: &str) -> bool {
    if target.is_ascii() && dir.is_ascii() {
        // ASCII lower-cases byte by byte: the same test without two lower-cased copies.
        let (t, d) = (target.as_bytes(), dir.trim_end_matches('/').as_bytes());
        return d.is_empty()
            || (t.len() >= d.len()
                && t[..d.len()].eq_ignore_ascii_case(d)
                && (t.len() == d.len() || t[d.len()] == b'/'));
    }
    let t = js_lower(target);
    let d = js_lower(dir.trim_end_matches('/'));
    t == d || d.is_empty() || t.strip_prefix(&d).is_some_and(|r| r.starts_with('/'))
}

/// The client's `as`: `toLowerCase()`, then dotless `ı` → `i` and long `ſ` → `s`.
fn js_lower(s: &str) -> String {
    s.to_lowercase()
        .replace(['\u{131}'], "i")
        .replace('\u{17f}', "s")
}

/// Whether `target` is strictly below `dir` (case-sensitive, at the platform's separator).
pub fn is_strictly_below(platform: Platform, target: &str, dir: &str) -> bool {
    let sep = platform.sep();
    let d = dir.trim_end_matches(sep);
    target
        .strip_prefix(d)
        .is_some_and(|r| r.starts_with(sep) && r.len() > 1)
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
        let l = Platform::Linux;
        assert_eq!(dirname(l, "/a/b/c.md"), "/a/b");
        assert_eq!(dirname(l, "/a"), "/");
        assert_eq!(dirname(l, "/a/b/"), "/a");
        assert_eq!(dirname(l, "/"), "/");
        let w = Platform::Windows;
        assert_eq!(dirname(w, r"C:\Users\me"), r"C:\Users");
        assert_eq!(dirname(w, r"C:\Users"), r"C:\");
    }

    #[test]
    fn extname_follows_node() {
        let l = Platform::Linux;
        assert_eq!(extname(l, "/p/.hidden"), "");
        assert_eq!(extname(l, "/p/a.md,"), ".md,");
        assert_eq!(extname(l, "/p/b.md."), ".");
        assert_eq!(extname(l, "/p/x.TXT"), ".TXT");
        assert_eq!(extname(l, "/p.d/noext"), "");
        assert_eq!(extname(l, "/p/.hidden.md"), ".md");
        assert_eq!(extname(l, r"/p/x.d\y"), r".d\y");
        assert_eq!(extname(Platform::Windows, r"C:\p\x.d\y"), "");
    }

    #[test]
    fn normalize_collapses() {
        let l = Platform::Linux;
        assert_eq!(normalize(l, "/a/./b/../c//d/"), "/a/c/d");
        assert_eq!(join(l, "/a/b", "../x.md"), "/a/x.md");
        let w = Platform::Windows;
        assert_eq!(normalize(w, "C:/a/./b/../c//d/"), r"C:\a\c\d\");
        assert_eq!(
            join(w, r"C:\Users\me\p", ".claude/rules"),
            r"C:\Users\me\p\.claude\rules"
        );
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
        assert!(is_strictly_below(Platform::Linux, "/r/p/q", "/r/p"));
        assert!(!is_strictly_below(Platform::Linux, "/r/p", "/r/p"));
        assert!(is_strictly_below(Platform::Windows, r"C:\p\q", r"C:\p"));
        // The client's `as` after lower-casing.
        assert!(is_inside_casefold("/ı/x", "/i"));
    }

    #[test]
    fn dedup_keys_fold_only_on_windows() {
        for p in [Platform::Linux, Platform::Macos, Platform::Wsl] {
            assert_eq!(dedup_key(p, "/r/P/X.md/"), "/r/P/X.md");
            assert_ne!(dedup_key(p, "/r/X.md"), dedup_key(p, "/r/x.md"));
        }
        let w = Platform::Windows;
        assert_eq!(dedup_key(w, r"C:\Users\Me\P\"), r"c:\users\me\p");
        assert_eq!(
            dedup_key(w, "C:/Users/me/p/CLAUDE.md"),
            r"c:\users\me\p\claude.md"
        );
        assert_eq!(dedup_key(w, r"C:\"), r"c:\");
        assert_eq!(dedup_key(w, r"\\srv\share\x\"), r"\\srv\share\x");
    }

    #[test]
    fn inside_folds_private_and_windows_forms() {
        for p in [Platform::Linux, Platform::Macos, Platform::Wsl] {
            assert!(inside(p, "/private/tmp/p/x.md", "/tmp/p"));
            assert!(inside(p, "/tmp/p/x.md", "/private/tmp/p"));
            assert!(inside(p, "/private/var/f/p/x.md", "/var/f/p"));
            assert!(!inside(p, "/private/varx/p", "/var"));
            assert!(inside(p, "/R/P/x.md", "/r/p"));
            assert!(!inside(p, "/r/pq", "/r/p"));
        }
        let w = Platform::Windows;
        assert!(inside(w, r"c:\users\ME\p\x.md", r"C:\Users\me\p"));
        assert!(inside(w, "C:/Users/me/p", r"C:\Users\me\p"));
        assert!(!inside(w, r"D:\Users\me\p\x.md", r"C:\Users\me\p"));
        assert!(!inside(w, r"C:\Users\me\pq", r"C:\Users\me\p"));
    }
}
