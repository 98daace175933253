//! One file of a memory library: its name's role (index, hub, entry), its text read with a
//! size cap, and its parsed frontmatter. A file that cannot be read as text keeps the reason.

use std::fs::File;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use jiff::Timestamp;

use super::meta::{self, Parsed};
use super::similar::{self, Sketch};
use crate::fsread::{self, Stat, Unread};
use crate::text::links::{LineScanner, Link};

mod text;
pub use text::Text;

/// What a file's name makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// `MEMORY.md` at the top of the library.
    Index,
    /// `reference_<group>_hub.md`.
    Hub {
        /// The group name.
        group: String,
    },
    /// `<type>_<topic>.md` with a valid type and topic.
    Entry {
        /// The type prefix.
        kind: String,
        /// The topic.
        topic: String,
    },
    /// Any other `.md` name (a naming violation).
    Other,
}

/// Classifies a file name (no directories) by claude-memory-manager's naming
/// (`<type>_<topic>.md`, topic as [`super::spec::topic_problem`] allows).
pub fn role_of(file_name: &str) -> Role {
    if file_name == crate::constants::INDEX_FILE {
        return Role::Index;
    }
    let Some(stem) = file_name.strip_suffix(".md") else {
        return Role::Other;
    };
    let Some((kind, topic)) = stem.split_once('_') else {
        return Role::Other;
    };
    if !crate::constants::MEMORY_TYPES.contains(&kind)
        || super::spec::topic_problem(topic).is_some()
    {
        return Role::Other;
    }
    if kind == "reference"
        && let Some(group) = topic.strip_suffix("_hub")
        && !group.is_empty()
    {
        return Role::Hub {
            group: group.to_owned(),
        };
    }
    Role::Entry {
        kind: kind.to_owned(),
        topic: topic.to_owned(),
    }
}

/// Why a file has no text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Not a regular file, too large, missing, permission denied, symlink loop…
    Io(String),
    /// Contains NUL bytes.
    Binary,
    /// Not valid UTF-8; the byte offset of the first bad sequence.
    InvalidUtf8(usize),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Io(e) => f.write_str(e),
            Unreadable::Binary => f.write_str("binary file (contains NUL bytes)"),
            Unreadable::InvalidUtf8(at) => write!(f, "not valid UTF-8 (first bad byte at {at})"),
        }
    }
}

/// A file's text and its parse, or why it has none.
#[derive(Debug, Clone)]
#[allow(
    clippy::large_enum_variant,
    reason = "the large variant is the common one; boxing would allocate once more per file"
)]
pub enum Content {
    /// Text and frontmatter.
    Text {
        /// The whole file.
        text: Text,
        /// Frontmatter and body offsets.
        parsed: Parsed,
        /// The links in the body, as written: `(line, offset in the text, link)` (where they
        /// lead is the library's to say).
        links: Vec<(usize, usize, Link)>,
    },
    /// No text.
    Unread(Unreadable),
}

/// What `MemFile::read` finds beside the text and its parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extras {
    /// The sketch of the file's near-duplicate signature ([`MemFile::sketch`]).
    pub sketch: bool,
    /// The time and mode of every file. Without, only of a file whose frontmatter has no
    /// `modified` date (the one use of a file time in the audit, `stale-entry`'s, is there), and
    /// the others are read without an `fstat` when they can be (`fsread::Stat`).
    pub stat_all: bool,
}

impl Extras {
    /// What every command but the audit gets: every file's time and mode, no sketch.
    pub const ALL_STATS: Extras = Extras {
        sketch: false,
        stat_all: true,
    };
}

/// One `.md` file of the library.
#[derive(Debug, Clone)]
pub struct MemFile {
    /// Path relative to the library root, `/`-separated.
    pub rel: String,
    /// The path as reached from the root given by the user.
    pub path: PathBuf,
    /// What the name makes it (from the file name alone).
    pub role: Role,
    /// Text or the reason there is none.
    pub content: Content,
    /// The directory entry is a symbolic link.
    pub symlink: bool,
    /// Modification time of the file read (`None` when it was not read; may be `None` when it
    /// was read without [`Extras::stat_all`] and its frontmatter has a `modified` date).
    pub mtime: Option<Timestamp>,
    /// Permission bits of the file read (`None` where [`MemFile::mtime`] is).
    pub mode: Option<u32>,
    /// The sketch of [`similar::of_memory`] of the file, found as it was read when the load
    /// was asked for it (see [`MemFile::sketch`]).
    sketch: Option<Sketch>,
}

impl MemFile {
    /// Reads and parses the file at `root/rel`, reading at most `cap` bytes (one open, one
    /// `fstat`, one read; no `stat` first when the walk saw a regular file, and that open
    /// relative to `dir`, the root folder open, when given; no `fstat` either where `extras`
    /// does not need it). With [`Extras::sketch`], the sketch of its near-duplicate signature is
    /// found too, while its text is still in the cache from the decoding (found later, by the
    /// audit's rule, every file's text had to be fetched again from memory).
    pub(crate) fn read(
        root: &Path,
        dir: Option<&File>,
        entry: fsread::MdEntry,
        cap: u64,
        extras: Extras,
    ) -> MemFile {
        let fsread::MdEntry {
            rel,
            symlink,
            regular,
        } = entry;
        let path = root.join(&rel);
        let read = match dir {
            // A file of the listing, opened relative to the open root folder (and, where the
            // listing says it is regular, not `fstat`ed unless `extras` needs it).
            Some(dir) if !symlink => {
                let stat = extras.stat_all || !regular;
                fsread::read_regular_at(dir, Path::new(&rel), cap, stat)
            }
            _ => fsread::read_with_meta(&path, cap, !symlink)
                .map(|(b, m)| (b.into(), Stat::Known(m))),
        };
        let (content, stat) = match read {
            Ok((bytes, stat)) => (decode(bytes), Some(stat)),
            Err(Unread::TooLarge(n)) => (
                Content::Unread(Unreadable::Io(format!(
                    "too large ({n} bytes; the audit reads at most {cap})"
                ))),
                None,
            ),
            Err(e) => (Content::Unread(Unreadable::Io(e.to_string())), None),
        };
        let mut file = MemFile {
            role: role_for(&rel),
            rel,
            path,
            content,
            symlink,
            mtime: None,
            mode: None,
            sketch: None,
        };
        let meta = match stat {
            Some(Stat::Known(meta)) => Some(meta),
            Some(unasked) if file.modified().is_none() => unasked.metadata(),
            _ => None,
        };
        if let Some(meta) = meta {
            file.mtime = mtime_of(&meta);
            file.mode = Some(mode_of(&meta));
        }
        if extras.sketch {
            file.sketch = similar::of_memory(&file).map(|s| s.sketch());
        }
        file
    }

    /// A file from text in memory (planned, or in a test): parsed, never read from disk.
    pub fn from_text(root: &Path, rel: String, text: String) -> MemFile {
        MemFile::from_bytes(root, rel, text.into_bytes())
    }

    /// A file from bytes in memory (what recovery will leave, a plan): decoded and parsed.
    pub fn from_bytes(root: &Path, rel: String, bytes: Vec<u8>) -> MemFile {
        MemFile {
            role: role_for(&rel),
            path: root.join(&rel),
            content: decode(bytes.into()),
            rel,
            symlink: false,
            mtime: None,
            mode: None,
            sketch: None,
        }
    }

    /// The memory's type: its frontmatter `type` (or `metadata.type`), else, when the
    /// frontmatter gives none (absent, invalid, or without the field), the type prefix of a
    /// `<type>_<topic>.md` name. Checks that depend on the type still run on a file whose
    /// frontmatter cannot be read.
    pub fn kind(&self) -> Option<&str> {
        let from_meta = self
            .meta()
            .and_then(|m| m.kind.as_deref())
            .map(str::trim)
            .filter(|k| !k.is_empty());
        from_meta.or(match &self.role {
            Role::Entry { kind, .. } => Some(kind.as_str()),
            Role::Hub { .. } => Some("reference"),
            _ => None,
        })
    }

    /// The frontmatter `modified` as a time, when it parses.
    pub fn modified(&self) -> Option<Timestamp> {
        self.meta()?
            .modified
            .as_deref()
            .and_then(meta::parse_modified)
    }

    /// The text, when the file was read.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Content::Text { text, .. } => Some(text),
            Content::Unread(_) => None,
        }
    }

    /// The text and its parse, when the file was read.
    pub fn parsed(&self) -> Option<(&str, &Parsed)> {
        match &self.content {
            Content::Text { text, parsed, .. } => Some((text, parsed)),
            Content::Unread(_) => None,
        }
    }

    /// The links in the body as written (none without a text): `(line, offset in the text,
    /// link)`.
    pub fn written_links(&self) -> &[(usize, usize, Link)] {
        match &self.content {
            Content::Text { links, .. } => links,
            Content::Unread(_) => &[],
        }
    }

    /// The sketch of the near-duplicate signature ([`similar::of_memory`]) found when the file
    /// was read, when the load was asked for it (`None` when it was not, or the file has none).
    pub fn sketch(&self) -> Option<&Sketch> {
        self.sketch.as_ref()
    }

    /// The parsed frontmatter fields, when the file has a valid block.
    pub fn meta(&self) -> Option<&meta::Meta> {
        match self.parsed()?.1 {
            Parsed {
                front: meta::Front::Parsed(m),
                ..
            } => Some(m),
            _ => None,
        }
    }

    /// The file name (last path component).
    pub fn name(&self) -> &str {
        self.rel.rsplit('/').next().unwrap_or(&self.rel)
    }

    /// 1-based line of the first body line (after the frontmatter), 1 without a text.
    pub fn body_line(&self) -> usize {
        match self.parsed() {
            Some((text, p)) => line_of(text, p.body_start),
            None => 1,
        }
    }
}

/// A file's modification time, when it has one jiff can hold.
pub(super) fn mtime_of(meta: &std::fs::Metadata) -> Option<Timestamp> {
    meta.modified()
        .ok()
        .and_then(|t| Timestamp::try_from(t).ok())
}

/// A file's permission bits.
pub(super) fn mode_of(meta: &std::fs::Metadata) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777
}

/// The role of a file at `rel`: only the top-level `MEMORY.md` is the index.
fn role_for(rel: &str) -> Role {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.contains('/') && name == crate::constants::INDEX_FILE {
        Role::Other
    } else {
        role_of(name)
    }
}

fn decode(bytes: Bytes) -> Content {
    if memchr_nul(&bytes) {
        return Content::Unread(Unreadable::Binary);
    }
    let text = match Text::new(bytes) {
        Ok(text) => text,
        Err(at) => return Content::Unread(Unreadable::InvalidUtf8(at)),
    };
    let parsed = meta::parse(&text);
    // Scanned here, while the text is still in the cache from the check above: scanned later,
    // with the library built, every file's text had to be fetched again.
    let links = LineScanner::new(&text, parsed.body_start).collect_all();
    Content::Text {
        text,
        parsed,
        links,
    }
}

/// Whether `bytes` holds a NUL (memchr's vector search: `<[u8]>::contains` goes a word at a
/// time and cost as much as the UTF-8 check).
fn memchr_nul(bytes: &[u8]) -> bool {
    memchr::memchr(0, bytes).is_some()
}

pub use crate::text::line_of;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_from_names() {
        assert_eq!(role_of("MEMORY.md"), Role::Index);
        assert_eq!(
            role_of("reference_db_core_hub.md"),
            Role::Hub {
                group: "db_core".into()
            }
        );
        assert_eq!(
            role_of("feedback_wild-card2.md"),
            Role::Entry {
                kind: "feedback".into(),
                topic: "wild-card2".into()
            }
        );
        for bad in [
            "feedback-x-y.md",
            "FeedbackXy.md",
            "note_x.md",
            "_x_y.md",
            "feedback_AUTH_x.md",
            "feedback_.md",
            "reference_hub.md.bak",
        ] {
            assert_eq!(role_of(bad), Role::Other, "{bad}");
        }
    }

    #[test]
    fn binary_and_invalid_utf8_are_unreadable() {
        assert!(matches!(
            decode(b"a\0b".to_vec().into()),
            Content::Unread(Unreadable::Binary)
        ));
        assert!(matches!(
            decode(b"ok\xff".to_vec().into()),
            Content::Unread(Unreadable::InvalidUtf8(2))
        ));
    }

    #[test]
    fn line_numbers_are_one_based() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
