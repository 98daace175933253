//! Paths as the client's strings, in the flavour of its platform: node's `path.posix` (Linux,
//! macOS, WSL) or `path.win32` (Windows), which each build imports as `path`. The client never
//! turns a path into an OS object: it joins, normalizes and compares strings, and prints them.
//! ccmem does the same, so one platform's paths can be modelled on another's machine.
//!
//! Also the string forms the Windows build uses besides `path.win32`: the MSYS form `/c/x`
//! (`jO` and `F6` of chunk-2zq88577) and the verbatim prefix `\\?\` that Rust's
//! `canonicalize` adds on Windows and the client's paths never carry.

pub mod posix;
pub mod win32;

use crate::platform::Platform;

/// `path.normalize`.
pub fn normalize(platform: Platform, p: &str) -> String {
    if platform.is_windows() {
        win32::normalize(p)
    } else {
        posix::normalize(p)
    }
}

/// `path.join`.
pub fn join(platform: Platform, parts: &[&str]) -> String {
    if platform.is_windows() {
        win32::join(parts)
    } else {
        posix::join(parts)
    }
}

/// `path.dirname`.
pub fn dirname(platform: Platform, p: &str) -> String {
    if platform.is_windows() {
        win32::dirname(p)
    } else {
        posix::dirname(p)
    }
}

/// `path.isAbsolute`.
pub fn is_absolute(platform: Platform, p: &str) -> bool {
    if platform.is_windows() {
        win32::is_absolute(p)
    } else {
        posix::is_absolute(p)
    }
}

/// `path.parse(p).root`.
pub fn root(platform: Platform, p: &str) -> &str {
    if platform.is_windows() {
        &p[..win32::root_len(p)]
    } else if p.starts_with('/') {
        "/"
    } else {
        ""
    }
}

/// The Windows build's `jO`: a Windows path in the MSYS form its relative tests compare
/// (`C:\Users\x` → `/c/Users/x`, `\\server\share` → `//server/share`, other `\` → `/`).
pub fn to_msys(p: &str) -> String {
    let b = p.as_bytes();
    if p.starts_with("\\\\") {
        return p.replace('\\', "/");
    }
    if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\') {
        return format!(
            "/{}{}",
            char::from(b[0].to_ascii_lowercase()),
            p[2..].replace('\\', "/")
        );
    }
    p.replace('\\', "/")
}

/// The Windows build's `F6`: an MSYS or Cygwin path back to Windows form (`/c/x` → `C:\x`,
/// `/cygdrive/d` → `D:\`, `//server/share` → `\\server\share`, other `/` → `\`).
pub fn from_msys(p: &str) -> String {
    if p.starts_with("//") {
        return p.replace('/', "\\");
    }
    let drive = |rest: &str| -> Option<(char, usize)> {
        let b = rest.as_bytes();
        (b.len() >= 2
            && b[0] == b'/'
            && b[1].is_ascii_alphabetic()
            && (b.len() == 2 || b[2] == b'/'))
            .then(|| (char::from(b[1].to_ascii_uppercase()), 2))
    };
    let (letter, skip) = if let Some(rest) = p.strip_prefix("/cygdrive") {
        match drive(rest) {
            Some((d, n)) => (d, "/cygdrive".len() + n),
            None => return p.replace('/', "\\"),
        }
    } else {
        match drive(p) {
            Some(found) => found,
            None => return p.replace('/', "\\"),
        }
    };
    let rest = &p[skip..];
    let rest = if rest.is_empty() { "\\" } else { rest };
    format!("{letter}:{}", rest.replace('/', "\\"))
}

/// A path without the verbatim prefix Windows APIs return (`\\?\C:\x` → `C:\x`,
/// `\\?\UNC\server\share` → `\\server\share`; `\\.\` alike), as the client's own paths are
/// written: its `XNr` (chunk-qpb4hqv2) drops the same prefix,
/// `/^[\\/]{2}[?.][\\/](UNC[\\/])?/i`, before it compares two paths.
pub fn strip_verbatim(p: &str) -> std::borrow::Cow<'_, str> {
    let b = p.as_bytes();
    let sep = |c: u8| c == b'\\' || c == b'/';
    if !(b.len() >= 4 && sep(b[0]) && sep(b[1]) && matches!(b[2], b'?' | b'.') && sep(b[3])) {
        return p.into();
    }
    let rest = &p[4..];
    if rest.len() >= 4 && rest[..3].eq_ignore_ascii_case("UNC") && sep(rest.as_bytes()[3]) {
        return format!("\\\\{}", &rest[4..]).into();
    }
    rest.into()
}

#[cfg(test)]
mod tests;
