//! A memory library read into memory: MEMORY.md, every top-level `.md` file with its
//! frontmatter fields, and the `ccmem.toml` settings. Planning works on this snapshot only.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use serde::Deserialize;

use super::Refusal;
use crate::fsread::{Unread, read_capped};

/// The index file name.
pub use crate::constants::INDEX_FILE as INDEX;
/// The settings file, in the memory folder.
pub const CONFIG: &str = "ccmem.toml";

/// Frontmatter fields the planner uses (read by the audit's reader, `memory::meta`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `type` (or `metadata.type`).
    pub kind: Option<String>,
    /// `group`.
    pub group: Option<String>,
    /// `modified`, when it parses as a date (how recently the entry was needed).
    pub modified: Option<jiff::Timestamp>,
}

impl Meta {
    /// Fields of `text`'s frontmatter; malformed or absent YAML gives no fields.
    pub fn of(text: &str) -> Self {
        match crate::memory::meta::parse(text).front {
            crate::memory::meta::Front::Parsed(m) => Meta {
                name: m.name,
                description: m.description,
                kind: m.kind,
                group: m.group,
                modified: m
                    .modified
                    .as_deref()
                    .and_then(crate::memory::meta::parse_modified),
            },
            _ => Meta::default(),
        }
    }
}

/// One file of the library other than the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topic {
    /// Its text.
    pub text: String,
    /// Its frontmatter fields.
    pub meta: Meta,
}

impl Topic {
    /// A topic from its text.
    pub fn new(text: String) -> Self {
        let meta = Meta::of(&text);
        Topic { text, meta }
    }
}

/// `ccmem.toml`'s `[tier]` table.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    /// Files whose index lines are crowns (kept at the top of MEMORY.md).
    #[serde(default)]
    pub pins: Vec<String>,
    /// Target line count of MEMORY.md.
    pub target_lines: Option<usize>,
    /// Target size of MEMORY.md in UTF-16 units.
    pub target_utf16: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    tier: TierConfig,
}

/// A memory library in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Library {
    /// MEMORY.md's text.
    pub index: String,
    /// Every other top-level `.md` file, by name.
    pub files: BTreeMap<String, Topic>,
    /// Linked paths below sub-folders that exist (they are not planned, only checked).
    pub nested: BTreeSet<String>,
    /// Top-level `.md` files that are symbolic links (never written).
    pub symlinks: BTreeSet<String>,
    /// Settings from `ccmem.toml`.
    pub config: TierConfig,
}

impl Library {
    /// Reads `folder`. Refuses a symlinked or missing MEMORY.md, unreadable or non-UTF-8
    /// files, and a malformed `ccmem.toml`.
    pub fn read(folder: &Path) -> Result<Self, Refusal> {
        Self::read_inner(folder, false).map(|(lib, _)| lib)
    }

    /// Like [`Library::read`], but a missing MEMORY.md reads as empty; the flag tells whether
    /// it exists.
    pub fn read_allow_missing(folder: &Path) -> Result<(Self, bool), Refusal> {
        Self::read_inner(folder, true)
    }

    fn read_inner(folder: &Path, allow_missing: bool) -> Result<(Self, bool), Refusal> {
        let index_path = folder.join(INDEX);
        let mut exists = true;
        match fs::symlink_metadata(&index_path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Refusal::at(
                    &index_path,
                    "is a symbolic link; tier rewrites MEMORY.md and will not replace a link \
                     (point ccmem at the link's target folder instead)",
                ));
            }
            Err(_) if allow_missing => exists = false,
            Err(_) => return Err(Refusal::at(&index_path, "missing: nothing to restructure")),
            _ => {}
        }
        let index = if exists {
            read_text(&index_path)?
        } else {
            String::new()
        };
        let mut lib = Library {
            index,
            ..Library::default()
        };
        let entries = fs::read_dir(folder).map_err(|e| Refusal::at(folder, e.to_string()))?;
        for entry in entries {
            let entry = entry.map_err(|e| Refusal::at(folder, e.to_string()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == INDEX || name.starts_with('.') || !name.ends_with(".md") {
                continue;
            }
            let path = entry.path();
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if !is_link && entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if is_link {
                lib.symlinks.insert(name.clone());
            }
            lib.files.insert(name, Topic::new(read_text(&path)?));
        }
        lib.config = read_config(folder)?;
        for line in lib.index.lines() {
            for link in crate::memory::links::links(line) {
                if link.target.contains('/') && folder.join(&link.target).is_file() {
                    lib.nested.insert(link.target);
                }
            }
        }
        Ok((lib, exists))
    }
}

fn read_text(path: &Path) -> Result<String, Refusal> {
    let bytes = read_capped(path, crate::constants::MAX_FILE_BYTES).map_err(|e| match e {
        Unread::Missing => Refusal::at(path, "missing"),
        other => Refusal::at(path, format!("cannot be read: {other}")),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        Refusal::at(
            path,
            format!(
                "is not valid UTF-8 (byte {}); tier moves lines verbatim and will not guess",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// The `[tier]` table of `folder/ccmem.toml` (defaults when the file is missing).
pub fn read_config(folder: &Path) -> Result<TierConfig, Refusal> {
    let path = &folder.join(CONFIG);
    let text = match read_capped(path, 1 << 20) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(Unread::Missing) => return Ok(TierConfig::default()),
        Err(e) => return Err(Refusal::at(path, format!("cannot be read: {e}"))),
    };
    toml::from_str::<ConfigFile>(&text)
        .map(|c| c.tier)
        .map_err(|e| Refusal::at(path, format!("invalid: {}", e.message())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_reads_top_level_and_nested_fields_and_survives_bad_yaml() {
        assert_eq!(Meta::of("---\nname: n\n---\n").name.as_deref(), Some("n"));
        let m = Meta::of("---\nname: x\ngroup: Tools\nmetadata:\n  type: feedback\n---\nbody");
        assert_eq!(m.name.as_deref(), Some("x"));
        assert_eq!(m.group.as_deref(), Some("Tools"));
        assert_eq!(m.kind.as_deref(), Some("feedback"));
        assert_eq!(Meta::of("---\n: : [\n---\nb"), Meta::default());
        assert_eq!(Meta::of("no frontmatter"), Meta::default());
    }

    #[test]
    fn refuses_symlinked_index_and_invalid_utf8() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real.md"), "- [a](a.md)\n").unwrap();
        std::os::unix::fs::symlink("real.md", dir.path().join(INDEX)).unwrap();
        let err = Library::read(dir.path()).unwrap_err();
        assert!(
            err.to_string().contains("MEMORY.md: is a symbolic link"),
            "{err}"
        );

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(INDEX), "- [a](a.md)\n").unwrap();
        std::fs::write(dir.path().join("a.md"), b"ok\xff").unwrap();
        let err = Library::read(dir.path()).unwrap_err();
        assert!(
            err.to_string()
                .contains("a.md: is not valid UTF-8 (byte 2)"),
            "{err}"
        );
    }

    #[test]
    fn reads_config_pins_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(INDEX), "x\n").unwrap();
        std::fs::write(
            dir.path().join(CONFIG),
            "[tier]\npins = [\"a.md\"]\ntarget_lines = 50\n",
        )
        .unwrap();
        let lib = Library::read(dir.path()).unwrap();
        assert_eq!(lib.config.pins, ["a.md"]);
        assert_eq!(lib.config.target_lines, Some(50));
        std::fs::write(dir.path().join(CONFIG), "[tier]\npinz = 1\n").unwrap();
        assert!(Library::read(dir.path()).is_err());
    }
}
