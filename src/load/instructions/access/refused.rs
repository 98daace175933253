//! The paths the client refuses before it reads an instruction file or a rules folder: its
//! `RG` (linux build, chunk-bqhgd24a), `vG` (darwin) and `kG` (win32), each an `or` of tests
//! from the platform's chunk of path predicates (linux chunk-1pzcrk77, darwin chunk-t2dc0fpd,
//! win32 chunk-87nzcwew):
//!
//! | test | what it refuses | linux | macos | windows |
//! |---|---|---|---|---|
//! | `Nr && !ou` | two leading separators (UNC, `//x`), or `\??\` (also once `path.win32.normalize`d), unless a WSL share `\\wsl$\<distro>` / `\\wsl.localhost\<distro>` | ✓ | ✓ | ✓ |
//! | `uc` | `/net/<host>…` and `/Network/Servers/<host>…` after `.`/`..` are resolved, names compared without case and zero-width characters | ✓ | ✓ | – |
//! | `Ux` | anything under `/Network` | – | ✓ | – |
//! | `XP` | `/net` itself | ✓ | ✓ | ✓ |
//! | `EX`/`MX` | the automount roots: `/net`, `/net/<x>`; on macOS also `/Network`, `/Network/<x>`, `/Network/Servers/<x>` and `/home` itself, seen through `/System/Volumes/Data` too | ✓ | ✓ | – |
//! | `Nk` | `/.vol`, `/.file`, `/.nofollow`, `/.resolve` and below (any case) | ✓ | ✓ | ✓ |
//!
//! So a Windows project on `\\server\share` loads no CLAUDE.md at all (the client's issue
//! #64518), and `/net/host/p` is refused on Linux while Windows reads it. Held to the three
//! builds' own functions by `fuzz/vectors-platform/refused.json`.

use crate::platform::Platform;
use crate::text::path::win32;

/// Why the client refuses `path` on `platform`, or `None` when it reads it. (Every candidate
/// path of a load comes here: one pass over its segments, no allocation for ASCII names.)
pub fn refused(platform: Platform, path: &str) -> Option<&'static str> {
    let mac = platform == Platform::Macos;
    if unc(path) && !wsl_share(path) {
        return Some("network path (UNC)");
    }
    if !path.starts_with('/') || !may_be_refused(path) {
        return None;
    }
    let seen = Segments::scan(path);
    if seen.special {
        return Some("special macOS path (/.vol, /.file, /.nofollow, /.resolve)");
    }
    if seen.only_net {
        return Some("network path (/net)");
    }
    if platform.is_windows() {
        return None;
    }
    if seen.mount {
        return Some("network path (/net, /Network/Servers)");
    }
    if mac && seen.network {
        return Some("network path (/Network)");
    }
    if automount_root(path, mac) {
        return Some("automount root");
    }
    None
}

/// The paths `autoMemoryDirectory` (and the cowork override) may not name (`za` of the linux
/// build, `Ga` of win32, the darwin build's `za`): UNC paths (a WSL share too), `/net/<host>`
/// and `/Network/Servers/<host>` (not on Windows), anything under `/Network` (macOS), and the
/// special macOS folders. Unlike [`refused`], `/net` itself and the automount roots pass.
pub fn invalid_memory_dir(platform: Platform, path: &str) -> bool {
    if unc(path) {
        return true;
    }
    if !path.starts_with('/') {
        return false;
    }
    let seen = Segments::scan(path);
    seen.special
        || (!platform.is_windows() && seen.mount)
        || (platform == Platform::Macos && seen.network)
}

/// Whether any test below can refuse `path` (absolute): each looks at the first segment, so
/// a path that never climbs (`..`) and whose first segment is plain ASCII other than the
/// names they look for passes at once (nearly every path of a load: no walk over it).
fn may_be_refused(path: &str) -> bool {
    if path.contains("..") {
        return true;
    }
    let first = segments(path)
        .find(|s| !s.is_empty() && *s != ".")
        .unwrap_or("");
    !first.is_ascii()
        || [
            "net",
            "network",
            "home",
            "system",
            ".vol",
            ".file",
            ".nofollow",
            ".resolve",
        ]
        .iter()
        .any(|n| first.eq_ignore_ascii_case(n))
}

/// `Nr`: `^[\\/]{2}`, or `\??\` (`T1`: as written, or once normalized when it holds `??`).
fn unc(p: &str) -> bool {
    let b = p.as_bytes();
    let sep = |c: u8| c == b'/' || c == b'\\';
    if b.len() >= 2 && sep(b[0]) && sep(b[1]) {
        return true;
    }
    let nt = |s: &str| {
        let b = s.as_bytes();
        b.len() >= 4 && sep(b[0]) && b[1] == b'?' && b[2] == b'?' && sep(b[3])
    };
    nt(p) || (memchr::memchr(b'?', b).is_some() && p.contains("??") && nt(&win32::normalize(p)))
}

/// `ou`: `\\wsl$\<distro>` or `\\wsl.localhost\<distro>` (any case, either separator), the
/// distro name holding something other than dots and spaces.
fn wsl_share(p: &str) -> bool {
    let b = p.as_bytes();
    let sep = |c: u8| c == b'/' || c == b'\\';
    if b.len() < 2 || !sep(b[0]) || !sep(b[1]) {
        return false;
    }
    let rest = &p[2..];
    ["wsl$", "wsl.localhost"].into_iter().any(|h| {
        rest.len() > h.len()
            && rest.as_bytes()[..h.len()].eq_ignore_ascii_case(h.as_bytes())
            && sep(rest.as_bytes()[h.len()])
            && !rest[h.len() + 1..]
                .split(['/', '\\'])
                .next()
                .unwrap_or("")
                .chars()
                .all(|c| c == '.' || c == ' ')
    })
}

/// What the client's segment walks (`uc`, `RU`, `Nk`, `XP`) find in an absolute posix path,
/// its segments resolved one by one (`.` skipped, `..` pops; each test runs after a push, so
/// passing through `/net/<host>` or `/Network` counts even if a later `..` leaves it).
#[derive(Default)]
struct Segments {
    /// `Nk`: `.vol`, `.file`, `.nofollow` or `.resolve` was pushed as the first segment.
    special: bool,
    /// `RU`: `network` (any case) was pushed as the first segment.
    network: bool,
    /// `uc`: the segments were once `net/<host>` or `network/servers/<host>` (`R`).
    mount: bool,
    /// `XP`: the resolved path is `/net` (any case).
    only_net: bool,
}

impl Segments {
    fn scan(p: &str) -> Self {
        let mut seen = Segments::default();
        let mut first: [&str; 3] = [""; 3];
        let mut depth = 0usize;
        // Without a `..` the walk never comes back up: past the fourth segment nothing can
        // change (every path of a load is read here, most of them deep).
        let climbs = p.contains("..");
        for seg in segments(p) {
            match seg {
                "" | "." => {}
                ".." => depth = depth.saturating_sub(1),
                _ if depth > 3 && !climbs => break,
                s => {
                    if depth < 3 {
                        first[depth] = s;
                    }
                    depth += 1;
                    if depth == 1 {
                        seen.special |= [".vol", ".file", ".nofollow", ".resolve"]
                            .iter()
                            .any(|n| s.eq_ignore_ascii_case(n));
                        seen.network |= lower_is(s, "network");
                    } else if depth <= 3 {
                        seen.mount |= mount_prefix(&first[..depth]);
                    }
                }
            }
        }
        seen.only_net = depth == 1 && lower_is(first[0], "net");
        seen
    }
}

/// `p.split("/")`, by bytes (`/` is ASCII, so every piece is a `str`): `str::split` with a
/// `char` set up a searcher per call, a measurable share of a load's time.
fn segments(p: &str) -> impl Iterator<Item = &str> {
    let b = p.as_bytes();
    let (mut start, mut i) = (0usize, 0usize);
    std::iter::from_fn(move || {
        while i <= b.len() {
            let end = i;
            i += 1;
            if end == b.len() || b[end] == b'/' {
                let seg = &p[start..end];
                start = i;
                return Some(seg);
            }
        }
        None
    })
}

/// `name.toLowerCase() === target` (an ASCII lower-case target).
fn lower_is(name: &str, target: &str) -> bool {
    if name.is_ascii() {
        name.eq_ignore_ascii_case(target)
    } else {
        name.to_lowercase() == target
    }
}

/// `NR(name) === target`: without zero-width and direction characters, and without case
/// (`toUpperCase().toLowerCase()`, which also folds `ſ` to `s` and `ı` to `i`).
fn folded_is(name: &str, target: &str) -> bool {
    if name.is_ascii() {
        return name.eq_ignore_ascii_case(target);
    }
    name.chars()
        .filter(|c| {
            !matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
        })
        .collect::<String>()
        .to_uppercase()
        .to_lowercase()
        == target
}

/// `R`: `net/<host>` or `network/servers/<host>`.
fn mount_prefix(segs: &[&str]) -> bool {
    match segs {
        [a, _] => folded_is(a, "net"),
        [a, b, _] => folded_is(a, "network") && folded_is(b, "servers"),
        _ => false,
    }
}

/// `EX` (linux) and `MX` (darwin): the automount roots themselves and their first level, on
/// the segments as written (`.` dropped, any `..` makes it no match). macOS first sees through
/// the `/System/Volumes/Data` firmlinks (`WR`).
fn automount_root(p: &str, mac: bool) -> bool {
    let first = segments(p)
        .find(|s| !s.is_empty() && *s != ".")
        .unwrap_or("");
    let candidate = !first.is_ascii()
        || ["net", "network", "home", "system"]
            .iter()
            .any(|n| first.eq_ignore_ascii_case(n));
    if !candidate {
        return false; // nearly every path
    }
    let p = if mac { firmlinked(p) } else { p.into() };
    let mut segs: [&str; 3] = [""; 3];
    let mut n = 0usize;
    for seg in segments(&p).filter(|s| !s.is_empty() && *s != ".") {
        if n == 3 || seg == ".." {
            return false;
        }
        segs[n] = seg;
        n += 1;
    }
    if n == 0 {
        return false;
    }
    let segs = &segs[..n];
    if mount_prefix(segs) && (n == 2 || mac) {
        return true;
    }
    let first = segs[0];
    n <= 2
        && (lower_is(first, "net")
            || (mac && (lower_is(first, "network") || (lower_is(first, "home") && n == 1))))
}

/// The folders macOS reaches through `/System/Volumes/Data` (`Zt`).
const FIRMLINKED: [&str; 16] = [
    "usr/local",
    "usr/libexec/cups",
    "usr/share/snmp",
    "AppleInternal",
    "Applications",
    "Library",
    "Users",
    "Volumes",
    "cores",
    "home",
    "media",
    "mnt",
    "opt",
    "pkg",
    "private",
    "sw",
];

/// `WR`: `/System/Volumes/Data/<firmlinked>…` written as `/<firmlinked>…`.
fn firmlinked(p: &str) -> std::borrow::Cow<'_, str> {
    let first = p.split('/').nth(1).unwrap_or("");
    if first.is_ascii() && !first.eq_ignore_ascii_case("system") {
        return p.into(); // nearly every path: no allocation
    }
    let parts: Vec<&str> = p.split('/').collect();
    let fold = |s: &str| s.to_uppercase().to_lowercase();
    if parts.len() < 5
        || !parts[0].is_empty()
        || fold(parts[1]) != "system"
        || fold(parts[2]) != "volumes"
        || fold(parts[3]) != "data"
    {
        return p.into();
    }
    let rest = &parts[4..];
    let hit = FIRMLINKED.iter().any(|f| {
        let f: Vec<&str> = f.split('/').collect();
        rest.len() >= f.len() && f.iter().zip(rest).all(|(a, b)| fold(a) == fold(b))
    });
    if hit {
        format!("/{}", rest.join("/")).into()
    } else {
        p.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Platform; 4] = Platform::ALL;

    fn on(platform: Platform, p: &str) -> bool {
        refused(platform, p).is_some()
    }

    #[test]
    fn unc_paths_are_refused_everywhere_but_wsl_shares() {
        for p in ALL {
            for path in [
                r"\\srv\share\CLAUDE.md",
                "//srv/share/CLAUDE.md",
                r"\??\C:\x",
                r"\\?\C:\x",
            ] {
                assert!(on(p, path), "{p} {path}");
            }
            for path in [
                r"\\wsl$\Ubuntu\home\x",
                r"\\WSL.localhost\Debian\x",
                "//wsl$/Ubuntu",
            ] {
                assert!(!on(p, path), "{p} {path}");
            }
            assert!(on(p, r"\\wsl$\..\x") && on(p, r"\\wsl$\ \x"), "{p}");
        }
    }

    #[test]
    fn network_mounts_by_platform() {
        let (l, m, w) = (Platform::Linux, Platform::Macos, Platform::Windows);
        for path in [
            "/net/host/p/CLAUDE.md",
            "/NET/host",
            "/x/../net/host/p",
            "/Network/Servers/h/p",
        ] {
            assert!(on(l, path) && on(m, path) && !on(w, path), "{path}");
        }
        assert!(on(w, "/net") && on(l, "/net/") && on(m, "/Net"));
        // Zero-width characters do not hide a mount.
        assert!(on(l, "/ne\u{200d}t/host/p"));
        // Anything under /Network on macOS only; /home itself is an automount root there.
        assert!(on(m, "/Network/Library/x") && !on(l, "/Network/Library/x"));
        assert!(on(m, "/home") && !on(m, "/home/me") && !on(l, "/home"));
        assert!(on(m, "/System/Volumes/Data/home") && !on(m, "/System/Volumes/Data/etc"));
        assert!(!on(l, "/netx/host") && !on(m, "/srv/net/host"));
        // Tested as the segments are resolved: passing through a mount is enough.
        assert!(on(l, "/net/h/../../x") && !on(w, "/net/h/../../x"));
        assert!(on(m, "/Network/../x") && on(w, "/.vol/../x"));
    }

    #[test]
    fn special_macos_folders_are_refused_everywhere() {
        for p in ALL {
            assert!(
                on(p, "/.vol/1/2") && on(p, "/.FILE/x") && on(p, "/x/../.resolve"),
                "{p}"
            );
            assert!(!on(p, "/p/.vol/x") && !on(p, "/.volume"), "{p}");
        }
    }

    #[test]
    fn ordinary_paths_are_read() {
        for p in ALL {
            for path in [
                "/home/me/p/CLAUDE.md",
                r"C:\Users\me\p\CLAUDE.md",
                "rel/x.md",
            ] {
                assert!(!on(p, path), "{p} {path}");
            }
        }
    }
}
