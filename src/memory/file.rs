//! One file of a memory library: its name's role (index, hub, entry), its text read with a
//! size cap, and its parsed frontmatter. A file that cannot be read as text keeps the reason.

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::meta::{self, Parsed};
use crate::fsread::{self, Unread};
use crate::text::links::{LineScanner, Link};

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

/// When the link `path` leads out of the memory folder `root` (or nowhere): why it is not
/// read. A file dropped into a memory folder as a link to `~/.aws/credentials` or another
/// project's notes is not a memory, and reading it would print a file outside the folder in
/// every finding that quotes a line. A link to a file of the folder is read as that file.
fn link_out_of(root: &Path, path: &Path) -> Option<String> {
    // A broken link or a loop is reported by the read itself, as before.
    let target = std::fs::canonicalize(path).ok()?;
    let inside = std::fs::canonicalize(root).is_ok_and(|r| target.starts_with(r));
    (!inside).then(|| {
        format!(
            "a symbolic link to {}, outside the memory folder: not read (a memory folder's \
             files are its own; move the file into the folder, or remove the link)",
            target.display()
        )
    })
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
        text: String,
        /// Frontmatter and body offsets.
        parsed: Parsed,
        /// The links in the body, as written: `(line, offset in the text, link)` (where they
        /// lead is the library's to say).
        links: Vec<(usize, usize, Link)>,
    },
    /// No text.
    Unread(Unreadable),
    /// MEMORY.md that is not text to ccmem (NUL bytes: saved as UTF-16; or not UTF-8), which
    /// the client reads anyway: decoded as it decodes it
    /// ([`crate::load::automem::index::decode`]). Rules that read text leave it alone
    /// (`index-encoding` reports it); its links are the ones the model sees, so what it
    /// reaches is counted as for any index.
    Decoded {
        /// Why it is not text to ccmem.
        why: Unreadable,
        /// The text the client decodes (NUL bytes included, as it measures them).
        text: String,
        /// The links the model sees: found once the NUL bytes the client's sanitizer drops
        /// are gone, `(line, offset in that text, link)`.
        links: Vec<(usize, usize, Link)>,
    },
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
    /// Modification time of the file read (`None` when it was not read from disk).
    pub mtime: Option<Timestamp>,
}

impl MemFile {
    /// Reads and parses the file at `root/rel`, reading at most `cap` bytes (no `stat` before
    /// opening when the walk saw a regular file; the opened file is checked either way).
    pub(crate) fn read(root: &Path, entry: fsread::MdEntry, cap: u64) -> MemFile {
        let fsread::MdEntry {
            rel,
            symlink,
            regular,
        } = entry;
        let path = root.join(&rel);
        // MEMORY.md is read as the client reads it (its link is judged where it is written).
        if symlink
            && role_for(&rel) != Role::Index
            && let Some(why) = link_out_of(root, &path)
        {
            return MemFile {
                role: role_for(&rel),
                rel,
                path,
                content: Content::Unread(Unreadable::Io(why)),
                symlink,
                mtime: None,
            };
        }
        let (content, meta) = match fsread::read_with_meta(&path, cap, regular && !symlink) {
            Ok((bytes, meta)) => (decode(bytes, role_for(&rel) == Role::Index), Some(meta)),
            Err(Unread::TooLarge(n)) => (
                Content::Unread(Unreadable::Io(format!(
                    "too large ({n} bytes; the audit reads at most {cap})"
                ))),
                None,
            ),
            Err(e) => (Content::Unread(Unreadable::Io(e.to_string())), None),
        };
        MemFile {
            role: role_for(&rel),
            rel,
            path,
            content,
            symlink,
            mtime: meta.as_ref().and_then(mtime_of),
        }
    }

    /// A file of the listing whose bytes were read already (MEMORY.md, by the loader, for the
    /// same command): what [`MemFile::read`] would make of them, its time from the
    /// file's metadata (no second open). `None` when the bytes are more than `cap` (then it is
    /// read, and reported, as any other).
    pub(crate) fn from_read(
        root: &Path,
        entry: &fsread::MdEntry,
        bytes: &[u8],
        cap: u64,
    ) -> Option<MemFile> {
        if bytes.len() as u64 > cap {
            return None;
        }
        let mut file = MemFile::from_bytes(root, entry.rel.clone(), bytes.to_vec());
        file.symlink = entry.symlink;
        if let Ok(meta) = std::fs::metadata(&file.path) {
            file.mtime = mtime_of(&meta);
        }
        Some(file)
    }

    /// The file `rel` of the folder `root`, read by its path as [`MemFile::read`] reads a file
    /// of the listing (`None`: nothing is there).
    pub(crate) fn read_named(root: &Path, rel: &str, cap: u64) -> Option<MemFile> {
        let meta = std::fs::symlink_metadata(root.join(rel)).ok()?;
        let entry = fsread::MdEntry {
            rel: rel.to_owned(),
            symlink: meta.file_type().is_symlink(),
            regular: meta.is_file(),
        };
        Some(MemFile::read(root, entry, cap))
    }

    /// A file from text in memory (planned, or in a test): parsed, never read from disk.
    pub fn from_text(root: &Path, rel: String, text: String) -> MemFile {
        MemFile::from_bytes(root, rel, text.into_bytes())
    }

    /// A file from bytes in memory (what recovery will leave, a plan): decoded and parsed.
    pub fn from_bytes(root: &Path, rel: String, bytes: Vec<u8>) -> MemFile {
        let role = role_for(&rel);
        MemFile {
            content: decode(bytes, role == Role::Index),
            role,
            path: root.join(&rel),
            rel,
            symlink: false,
            mtime: None,
        }
    }

    /// The memory's type: its frontmatter `type` (or `metadata.type`), else, when the
    /// frontmatter gives none (absent, invalid, or without the field), the type prefix of a
    /// `<type>_<topic>.md` name. Checks that depend on the type still run on a file whose
    /// frontmatter cannot be read.
    pub fn kind(&self) -> Option<&str> {
        let from_meta = meta::filled(self.meta().and_then(|m| m.kind.as_deref()));
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
            Content::Unread(_) | Content::Decoded { .. } => None,
        }
    }

    /// The text the client reads: the text, or MEMORY.md [`Content::Decoded`] as the client
    /// decodes it.
    pub fn client_text(&self) -> Option<&str> {
        match &self.content {
            Content::Text { text, .. } | Content::Decoded { text, .. } => Some(text),
            Content::Unread(_) => None,
        }
    }

    /// Why ccmem has no text of the file (a [`Content::Decoded`] MEMORY.md included).
    pub fn unread(&self) -> Option<&Unreadable> {
        match &self.content {
            Content::Text { .. } => None,
            Content::Unread(why) | Content::Decoded { why, .. } => Some(why),
        }
    }

    /// The text and its parse, when the file was read.
    pub fn parsed(&self) -> Option<(&str, &Parsed)> {
        match &self.content {
            Content::Text { text, parsed, .. } => Some((text, parsed)),
            Content::Unread(_) | Content::Decoded { .. } => None,
        }
    }

    /// The links in the body as written (none without a text): `(line, offset in the text,
    /// link)`. Those of a [`Content::Decoded`] MEMORY.md are the ones the model sees.
    pub fn written_links(&self) -> &[(usize, usize, Link)] {
        match &self.content {
            Content::Text { links, .. } | Content::Decoded { links, .. } => links,
            Content::Unread(_) => &[],
        }
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

/// The role of a file at `rel`: only the top-level `MEMORY.md` is the index.
fn role_for(rel: &str) -> Role {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.contains('/') && name == crate::constants::INDEX_FILE {
        Role::Other
    } else {
        role_of(name)
    }
}

/// A file's bytes as text, parsed, with the links its body writes; or why it is not text
/// (for MEMORY.md, `index`, with the text the client decodes anyway).
fn decode(bytes: Vec<u8>, index: bool) -> Content {
    let why = if memchr::memchr(0, &bytes).is_some() {
        Unreadable::Binary
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => return parse(text),
            Err(e) => {
                let why = Unreadable::InvalidUtf8(e.utf8_error().valid_up_to());
                return if index {
                    decoded(why, &e.into_bytes())
                } else {
                    Content::Unread(why)
                };
            }
        }
    };
    if index {
        decoded(why, &bytes)
    } else {
        Content::Unread(why)
    }
}

/// MEMORY.md that is not text to ccmem, as the client reads it: decoded its way, and its links
/// found in what the model gets, where the sanitizer has dropped the NUL bytes (a UTF-16 file's
/// every other byte; lines stay where they are, since no line break is dropped). Frontmatter is
/// looked for in the decoded text, as the client strips it.
fn decoded(why: Unreadable, bytes: &[u8]) -> Content {
    let text = crate::load::automem::index::decode(bytes).into_owned();
    let body_start = crate::text::frontmatter::split(&text).body_start;
    let seen = format!(
        "{}{}",
        &text[..body_start],
        text[body_start..].replace('\0', "")
    );
    let links = LineScanner::new(&seen, body_start).collect_all();
    Content::Decoded { why, text, links }
}

/// Valid UTF-8 text without NUL bytes, parsed, with the links its body writes.
fn parse(text: String) -> Content {
    let parsed = meta::parse(&text);
    let links = LineScanner::new(&text, parsed.body_start).collect_all();
    Content::Text {
        text,
        parsed,
        links,
    }
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
            decode(b"a\0b".to_vec(), false),
            Content::Unread(Unreadable::Binary)
        ));
        assert!(matches!(
            decode(b"ok\xff".to_vec(), false),
            Content::Unread(Unreadable::InvalidUtf8(2))
        ));
        // A sequence cut short at the end is bad from where it starts.
        assert!(matches!(
            decode(b"abc\xc3".to_vec(), false),
            Content::Unread(Unreadable::InvalidUtf8(3))
        ));
    }

    #[test]
    fn line_numbers_are_one_based() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
