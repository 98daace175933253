//! node's `path.win32` (as Bun ships it in the client), on strings: the Windows build imports
//! `path` and gets these. Both `\` and `/` separate; a root is `\`, `C:`, `C:\` or a UNC
//! `\\server\share\`. Every function is held to vectors of Bun's own `path.win32`
//! (`fuzz/vectors-platform/path-win32.json`).
//!
//! Indices are byte offsets: every character the functions look at is ASCII, so each slice
//! falls on a character boundary.

/// `\` or `/`.
fn is_sep(b: u8) -> bool {
    b == b'\\' || b == b'/'
}

/// A drive letter (`isWindowsDeviceRoot`).
fn is_drive(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

/// `\\server\share` at the start: `(end of the server part, end of the share part)` when both
/// parts are there (byte offsets: the share ends at the next separator or the end).
fn unc(p: &[u8]) -> Option<(usize, usize)> {
    if p.len() < 2 || !is_sep(p[0]) || !is_sep(p[1]) {
        return None;
    }
    let mut j = 2;
    while j < p.len() && !is_sep(p[j]) {
        j += 1;
    }
    if j >= p.len() || j == 2 {
        return None;
    }
    let server_end = j;
    while j < p.len() && is_sep(p[j]) {
        j += 1;
    }
    if j >= p.len() || j == server_end {
        return None;
    }
    let last = j;
    while j < p.len() && !is_sep(p[j]) {
        j += 1;
    }
    (j != last).then_some((server_end, j))
}

/// `path.win32.isAbsolute`: a leading separator, or `X:` followed by one.
pub fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    match b.first() {
        None => false,
        Some(&c) if is_sep(c) => true,
        Some(&c) => b.len() > 2 && is_drive(c) && b[1] == b':' && is_sep(b[2]),
    }
}

/// The length of the root `path.win32.parse(p).root` names (`""`, `\`, `C:`, `C:\`,
/// `\\server\share\`).
pub fn root_len(p: &str) -> usize {
    let b = p.as_bytes();
    let Some(&c) = b.first() else { return 0 };
    if b.len() == 1 {
        return usize::from(is_sep(c));
    }
    if is_sep(c) {
        return match unc(b) {
            Some((_, share_end)) if share_end == b.len() => share_end,
            Some((_, share_end)) => share_end + 1,
            None => 1,
        };
    }
    if is_drive(c) && b[1] == b':' {
        return if b.len() > 2 && is_sep(b[2]) { 3 } else { 2 };
    }
    0
}

/// `path.win32.normalize`: separators become `\`, `.` and `..` collapse, the root kept.
pub fn normalize(p: &str) -> String {
    let b = p.as_bytes();
    let len = b.len();
    if len == 0 {
        return ".".into();
    }
    if len == 1 {
        return if b[0] == b'/' { "\\".into() } else { p.into() };
    }
    let mut root_end = 0;
    let mut device: Option<String> = None;
    let mut absolute = false;
    if is_sep(b[0]) {
        absolute = true;
        if is_sep(b[1]) {
            // `\\server\share`: a UNC root (a root alone keeps a trailing `\`).
            let mut j = 2;
            while j < len && !is_sep(b[j]) {
                j += 1;
            }
            if j < len && j != 2 {
                let first = &p[2..j];
                let mut last = j;
                while j < len && is_sep(b[j]) {
                    j += 1;
                }
                if j < len && j != last {
                    last = j;
                    while j < len && !is_sep(b[j]) {
                        j += 1;
                    }
                    if j == len {
                        return format!("\\\\{first}\\{}\\", &p[last..]);
                    }
                    if j != last {
                        device = Some(format!("\\\\{first}\\{}", &p[last..j]));
                        root_end = j;
                    }
                }
            }
        } else {
            root_end = 1;
        }
    } else if is_drive(b[0]) && b[1] == b':' {
        device = Some(p[..2].to_owned());
        root_end = 2;
        if len > 2 && is_sep(b[2]) {
            absolute = true;
            root_end = 3;
        }
    }
    let mut tail = if root_end < len {
        normalize_string(&p[root_end..], !absolute, '\\', is_sep)
    } else {
        String::new()
    };
    if tail.is_empty() && !absolute {
        tail.push('.');
    }
    if !tail.is_empty() && is_sep(b[len - 1]) {
        tail.push('\\');
    }
    match device {
        None if absolute => format!("\\{tail}"),
        None => tail,
        Some(d) if absolute => format!("{d}\\{tail}"),
        Some(d) => format!("{d}{tail}"),
    }
}

/// `path.win32.join`: the parts joined with `\`, then normalized (leading separators of a
/// first part that is not a UNC path are folded to one, so a join never makes a UNC path).
pub fn join(parts: &[&str]) -> String {
    let parts: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    let Some(first) = parts.first() else {
        return ".".into();
    };
    let mut joined = parts.join("\\");
    let f = first.as_bytes();
    let mut needs_replace = true;
    let mut slashes = 0;
    if is_sep(f[0]) {
        slashes += 1;
        if f.len() > 1 && is_sep(f[1]) {
            slashes += 1;
            if f.len() > 2 {
                if is_sep(f[2]) {
                    slashes += 1;
                } else {
                    needs_replace = false;
                }
            }
        }
    }
    if needs_replace {
        let j = joined.as_bytes();
        while slashes < j.len() && is_sep(j[slashes]) {
            slashes += 1;
        }
        if slashes >= 2 {
            joined = format!("\\{}", &joined[slashes..]);
        }
    }
    normalize(&joined)
}

/// `path.win32.dirname`.
pub fn dirname(p: &str) -> String {
    let b = p.as_bytes();
    let len = b.len();
    if len == 0 {
        return ".".into();
    }
    if len == 1 {
        return if is_sep(b[0]) { p.into() } else { ".".into() };
    }
    let mut root_end: Option<usize> = None;
    let mut offset = 0;
    if is_sep(b[0]) {
        root_end = Some(1);
        offset = 1;
        if is_sep(b[1]) {
            let mut j = 2;
            while j < len && !is_sep(b[j]) {
                j += 1;
            }
            if j < len && j != 2 {
                let mut last = j;
                while j < len && is_sep(b[j]) {
                    j += 1;
                }
                if j < len && j != last {
                    last = j;
                    while j < len && !is_sep(b[j]) {
                        j += 1;
                    }
                    if j == len {
                        return p.into();
                    }
                    if j != last {
                        root_end = Some(j + 1);
                        offset = j + 1;
                    }
                }
            }
        }
    } else if is_drive(b[0]) && b[1] == b':' {
        let r = if len > 2 && is_sep(b[2]) { 3 } else { 2 };
        root_end = Some(r);
        offset = r;
    }
    let mut end = None;
    let mut matched_slash = true;
    for i in (offset..len).rev() {
        if is_sep(b[i]) {
            if !matched_slash {
                end = Some(i);
                break;
            }
        } else {
            matched_slash = false;
        }
    }
    match end.or(root_end) {
        None => ".".into(),
        Some(e) => p[..e].to_owned(),
    }
}

/// node's `normalizeString`: `.` and `..` segments resolved, separators made `sep`;
/// `allow_above_root` keeps leading `..` of a relative path.
pub(super) fn normalize_string(
    path: &str,
    allow_above_root: bool,
    sep: char,
    is_sep: fn(u8) -> bool,
) -> String {
    let b = path.as_bytes();
    let mut res = String::with_capacity(path.len());
    let mut last_segment_length = 0usize;
    let mut last_slash: isize = -1;
    let mut dots: i32 = 0;
    let mut code = 0u8;
    let mut i = 0usize;
    while i <= b.len() {
        if i < b.len() {
            code = b[i];
        } else if is_sep(code) {
            break;
        } else {
            code = b'/';
        }
        if is_sep(code) {
            if last_slash == i as isize - 1 || dots == 1 {
                // nothing to add
            } else if dots == 2 {
                let rb = res.as_bytes();
                let ends_dotdot = res.len() >= 2
                    && last_segment_length == 2
                    && rb[rb.len() - 1] == b'.'
                    && rb[rb.len() - 2] == b'.';
                if !ends_dotdot {
                    if res.len() > 2 {
                        match res.rfind(sep) {
                            None => {
                                res.clear();
                                last_segment_length = 0;
                            }
                            Some(k) => {
                                res.truncate(k);
                                last_segment_length = match res.rfind(sep) {
                                    Some(k) => res.len() - 1 - k,
                                    None => res.len(),
                                };
                            }
                        }
                        last_slash = i as isize;
                        dots = 0;
                        i += 1;
                        continue;
                    } else if !res.is_empty() {
                        res.clear();
                        last_segment_length = 0;
                        last_slash = i as isize;
                        dots = 0;
                        i += 1;
                        continue;
                    }
                }
                if allow_above_root {
                    if !res.is_empty() {
                        res.push(sep);
                    }
                    res.push_str("..");
                    last_segment_length = 2;
                }
            } else {
                let seg = &path[(last_slash + 1) as usize..i];
                if !res.is_empty() {
                    res.push(sep);
                }
                res.push_str(seg);
                last_segment_length = (i as isize - last_slash - 1) as usize;
            }
            last_slash = i as isize;
            dots = 0;
        } else if code == b'.' && dots != -1 {
            dots += 1;
        } else {
            dots = -1;
        }
        i += 1;
    }
    res
}
