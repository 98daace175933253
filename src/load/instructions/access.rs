//! How the client reaches a file's text: symlink resolution (`Gr`), the paths it refuses
//! (network, device, protected folders), the 4 MiB capped read with WHATWG UTF-8 decoding, and
//! the text-extension allow-list.

mod refused;

use std::path::Path;

use unicode_normalization::UnicodeNormalization;

use crate::constants::MAX_FILE_BYTES;
use crate::fsread::{self, Unread};
use crate::load::{SkipWhy, memo};
use crate::platform::Platform;
use crate::text::path as node_path;

pub use refused::{invalid_memory_dir, refused};

/// Reads a file as the client does: capped at 4 MiB, decoded as UTF-8 with U+FFFD for every
/// invalid sequence (WHATWG decoder, BOM kept).
pub fn read_text(path: &str) -> Result<String, Unread> {
    let bytes = fsread::read_capped(Path::new(path), MAX_FILE_BYTES)?;
    Ok(decode(&bytes))
}

/// UTF-8 decoding as the client's runtime does it (WHATWG: one U+FFFD per maximal invalid
/// subsequence, a BOM kept as U+FEFF).
pub fn decode(bytes: &[u8]) -> String {
    encoding_rs::UTF_8
        .decode_without_bom_handling(bytes)
        .0
        .into_owned()
}

/// A path with its symlinks resolved (`Gr`).
pub struct Resolved {
    /// The real path, or the path itself when it cannot be resolved.
    pub path: String,
    /// Whether the real path differs from the path (or the path is a dangling link).
    pub is_symlink: bool,
    /// Whether resolution succeeded.
    pub canonical: bool,
    /// Nothing at all is at the path (`lstat` said ENOENT/ENOTDIR): reading it can only
    /// report it missing, so callers need not try.
    pub absent: bool,
    /// `lstat` found a regular file (not a link) of this many bytes: reading it needs no
    /// second `stat`.
    pub regular: Option<u64>,
}

impl Resolved {
    /// Resolves `path` on `platform`: the real path is written as the client's `realpath`
    /// returns it there (the darwin build's `BT.realpath` ends in `fn`, NFC; Windows paths lose
    /// the verbatim prefix Rust's `canonicalize` adds).
    pub fn of(platform: Platform, path: &str) -> Self {
        let mut r = Self::raw(path);
        if r.canonical {
            match platform {
                Platform::Macos if !r.path.is_ascii() => {
                    r.path = r.path.nfc().collect();
                    r.is_symlink = r.path != path;
                }
                // Found under wine (issue 28): `strip_verbatim` borrows for `\\?\C:\…` (only
                // `\\?\UNC\…` is rebuilt), so matching its owned result kept the prefix, and
                // every file read as a UNC path, refused; and the memoized real folder plus
                // `/` + name (`memo::join`) mixed separators, so every file looked like a link.
                // The client's `realpath` returns `C:\x\y`: node's `path.win32.normalize` of
                // the path without the prefix.
                Platform::Windows => {
                    let real = node_path::win32::normalize(&node_path::strip_verbatim(&r.path));
                    if real != r.path {
                        r.path = real;
                        r.is_symlink = r.path != path;
                    }
                }
                _ => {}
            }
        }
        r
    }

    fn raw(path: &str) -> Self {
        // Most walk candidates do not exist: one lstat settles those without the
        // per-component readlink calls of realpath(3).
        let meta = match memo::lstat(Path::new(path)) {
            Ok(meta) => meta,
            Err(e) => {
                let absent = matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                );
                return Resolved {
                    path: path.to_owned(),
                    is_symlink: false,
                    canonical: false,
                    absent,
                    regular: None,
                };
            }
        };
        let is_symlink = meta.file_type().is_symlink();
        let regular = meta.is_file().then_some(meta.len());
        match realpath(Path::new(path), is_symlink) {
            Ok(real) => Resolved {
                is_symlink: real != path,
                path: real,
                canonical: true,
                absent: false,
                regular,
            },
            Err(_) => Resolved {
                path: path.to_owned(),
                is_symlink,
                canonical: false,
                absent: false,
                regular,
            },
        }
    }

    /// A symlink whose target cannot be resolved (`OZ`).
    pub fn dangling(&self) -> bool {
        self.is_symlink && !self.canonical
    }
}

/// `realpath(3)`: a path whose last component is not a symlink is `realpath(dir) + name`
/// (directories memoized per load); symlinks take the plain libc path.
/// Built as a `String` at once (this runs for every path a load looks at).
fn realpath(path: &Path, is_symlink: bool) -> std::io::Result<String> {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !is_symlink && !dir.as_os_str().is_empty() => {
            Ok(memo::join(&memo::real_dir(dir)?, &name.to_string_lossy()))
        }
        _ => std::fs::canonicalize(path).map(into_string),
    }
}

fn into_string(p: std::path::PathBuf) -> String {
    p.into_os_string()
        .into_string()
        .unwrap_or_else(|os| os.to_string_lossy().into_owned())
}

/// Paths the client never reads instruction files from: network and special paths (the
/// platform's [`refused`]), device and process files, and protected download/work/scratchpad
/// folders.
pub fn blocked(platform: Platform, path: &str) -> Option<SkipWhy> {
    if let Some(reason) = refused(platform, path) {
        return Some(SkipWhy::Other {
            reason: reason.into(),
        });
    }
    if ["/dev", "/proc"].iter().any(|d| {
        path.strip_prefix(d)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }) {
        return Some(SkipWhy::DevicePath);
    }
    // One pass over the components (this runs for every candidate path of a load; splitting
    // on a `char` finds the slashes with memchr).
    let (mut downloads, mut work, mut scratchpad) = (false, false, false);
    for part in path.split('/') {
        match part {
            "connector-downloads" => downloads = true,
            ".artifact-work" => work = true,
            "scratchpad" => scratchpad = true,
            _ => {}
        }
    }
    if downloads || work {
        let folder = if downloads {
            "connector-downloads"
        } else {
            ".artifact-work"
        };
        return Some(SkipWhy::ProtectedFolder {
            folder: folder.into(),
        });
    }
    if !scratchpad {
        return None;
    }
    let parts: Vec<&str> = path.split('/').collect();
    let scratch = parts.windows(4).any(|w| {
        w[0] == "claude"
            && w[3] == "scratchpad"
            && (w[1] != "s" || (w[2].len() == 12 && w[2].bytes().all(|b| b.is_ascii_digit())))
    });
    scratch.then(|| SkipWhy::ProtectedFolder {
        folder: "scratchpad".into(),
    })
}

/// [`blocked`] for a path or what it resolves to, the resolved path asked only when it differs
/// (it is the same string for every candidate that does not exist).
pub fn blocked_either(platform: Platform, path: &str, resolved: &str) -> Option<SkipWhy> {
    blocked(platform, path).or_else(|| {
        if resolved == path {
            None
        } else {
            blocked(platform, resolved)
        }
    })
}

/// The client's text-extension allow-list (`CQr`), compared with the lower-cased `extname`
/// (so `.R` can never match, as in the client).
pub fn is_text_extension(ext: &str) -> bool {
    TEXT_EXTENSIONS.contains(&ext)
}

const TEXT_EXTENSIONS: &[&str] = &[
    ".md",
    ".txt",
    ".text",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".xml",
    ".csv",
    ".html",
    ".htm",
    ".css",
    ".scss",
    ".sass",
    ".less",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".cts",
    ".py",
    ".pyi",
    ".pyw",
    ".rb",
    ".erb",
    ".rake",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".kts",
    ".scala",
    ".c",
    ".cpp",
    ".cc",
    ".cxx",
    ".h",
    ".hpp",
    ".hxx",
    ".cs",
    ".swift",
    ".sh",
    ".bash",
    ".zsh",
    ".fish",
    ".ps1",
    ".bat",
    ".cmd",
    ".env",
    ".ini",
    ".cfg",
    ".conf",
    ".config",
    ".properties",
    ".sql",
    ".graphql",
    ".gql",
    ".proto",
    ".vue",
    ".svelte",
    ".astro",
    ".ejs",
    ".hbs",
    ".pug",
    ".jade",
    ".php",
    ".pl",
    ".pm",
    ".lua",
    ".r",
    ".R",
    ".dart",
    ".ex",
    ".exs",
    ".erl",
    ".hrl",
    ".clj",
    ".cljs",
    ".cljc",
    ".edn",
    ".hs",
    ".lhs",
    ".elm",
    ".ml",
    ".mli",
    ".f",
    ".f90",
    ".f95",
    ".for",
    ".cmake",
    ".make",
    ".makefile",
    ".gradle",
    ".sbt",
    ".rst",
    ".adoc",
    ".asciidoc",
    ".org",
    ".tex",
    ".latex",
    ".lock",
    ".log",
    ".diff",
    ".patch",
];

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn resolution_follows_a_directory_replaced_by_a_link_once_forgotten() {
        let t = tempfile::tempdir().unwrap();
        let root = super::super::paths::to_string(&t.path().canonicalize().unwrap());
        let (a, b) = (format!("{root}/a"), format!("{root}/b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let file = format!("{a}/CLAUDE.md");
        std::fs::File::create(&file).unwrap();
        std::fs::File::create(format!("{b}/CLAUDE.md")).unwrap();
        memo::reset();
        let l = Platform::Linux;
        assert_eq!(Resolved::of(l, &file).path, file);
        std::fs::remove_dir_all(&a).unwrap();
        std::os::unix::fs::symlink(&b, &a).unwrap();
        memo::reset();
        let r = Resolved::of(l, &file);
        assert_eq!(r.path, format!("{b}/CLAUDE.md"));
        assert!(r.is_symlink && !r.absent);
        assert!(Resolved::of(l, &format!("{root}/nope/CLAUDE.md")).absent);
    }

    #[test]
    fn macos_real_paths_are_nfc() {
        // APFS finds an NFC name for an NFD folder; here a link plays that part.
        let t = tempfile::tempdir().unwrap();
        let root = super::super::paths::to_string(&t.path().canonicalize().unwrap());
        let nfd = format!("{root}/cafe\u{301}");
        std::fs::create_dir_all(&nfd).unwrap();
        std::fs::File::create(format!("{nfd}/x.md")).unwrap();
        let nfc = format!("{root}/caf\u{e9}");
        std::os::unix::fs::symlink(&nfd, &nfc).unwrap();
        memo::reset();
        let linux = Resolved::of(Platform::Linux, &format!("{nfc}/x.md"));
        assert_eq!(linux.path, format!("{nfd}/x.md"));
        memo::reset();
        let mac = Resolved::of(Platform::Macos, &format!("{nfc}/x.md"));
        assert_eq!(mac.path, format!("{nfc}/x.md"));
        assert!(!mac.is_symlink, "the NFC form is the path itself");
    }
}
