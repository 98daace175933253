//! The links of a library's files: each one found in a file's text, and where it leads (a
//! file of the library by path or by `name:`, a path outside it, nothing). A library derived
//! from another ([`Library::with`]) keeps the links of its unchanged files and only looks up
//! again where they lead.

use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;

use super::Library;
use super::wiki::{self, wiki_key};
use crate::memory::file::{Role, role_of};
use crate::text::links::{self, Link, Syntax};

/// Where a link leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A file of the library (its index in [`Library::files`]), named by its path.
    File(usize),
    /// A file of the library matched by name only: a wiki link `[[name]]` that equals a
    /// file's frontmatter `name` (or its topic) but not its file name. Not broken, but it does
    /// not make the file reachable: the model gets a name to search for, not a file to open.
    Named(usize),
    /// An existing path that is not a file of the library (outside the folder, hidden…).
    Outside,
    /// Nothing there.
    Missing,
}

/// A link found in a file, with its position and where it leads.
#[derive(Debug, Clone)]
pub struct FileLink {
    /// 1-based line.
    pub line: usize,
    /// Byte offset of the link in the file.
    pub offset: usize,
    /// The link.
    pub link: Link,
    /// Where it leads.
    pub target: Target,
    /// The line reaches the model: not past the client's cut of MEMORY.md (always true
    /// outside MEMORY.md).
    pub loaded: bool,
}

impl Library {
    /// The links of file `i` (and whether a code span was left out), `dark` the index's lines
    /// past the client's cut.
    pub(super) fn scan_links(&self, i: usize, dark: &[(usize, bool)]) -> (Vec<FileLink>, bool) {
        let written = self.files[i].written_links();
        let mut out = Vec::with_capacity(written.len());
        let mut dropped = false;
        for (line, offset, link) in written {
            let loaded = dark.binary_search_by_key(line, |d| d.0).is_err();
            match self.file_link(i, *line, *offset, link.clone(), loaded) {
                Some(l) => out.push(l),
                None => dropped = true,
            }
        }
        (out, dropped)
    }

    /// `link` found in file `from`, resolved; `None` for a code span that is prose.
    fn file_link(
        &self,
        from: usize,
        line: usize,
        offset: usize,
        link: Link,
        loaded: bool,
    ) -> Option<FileLink> {
        let target = self.resolve(from, &link);
        // A code span is a link only where it names a memory: a missing `CLAUDE.md` in
        // backticks is prose about another file.
        if link.syntax == Syntax::CodeSpan
            && target == Target::Missing
            && role_of(link.target.rsplit('/').next().unwrap_or("")) == Role::Other
        {
            return None;
        }
        Some(FileLink {
            line,
            offset,
            link,
            target,
            loaded,
        })
    }

    /// The links of file `i`, an unchanged file whose links in the prior library were `old`:
    /// a link to a file that is still there leads to it (at its new index, `moved`), any other
    /// is resolved again.
    pub(super) fn relink(
        &self,
        i: usize,
        old: &[FileLink],
        moved: &[Option<usize>],
    ) -> (Vec<FileLink>, bool) {
        let mut dropped = false;
        let mut out = Vec::with_capacity(old.len());
        for l in old {
            if let Target::File(t) = l.target
                && let Some(now) = moved[t]
            {
                out.push(FileLink {
                    target: Target::File(now),
                    ..l.clone()
                });
                continue;
            }
            match self.file_link(i, l.line, l.offset, l.link.clone(), l.loaded) {
                Some(l) => out.push(l),
                None => dropped = true,
            }
        }
        (out, dropped)
    }

    /// Where `link` in file `from` leads, short of the loose wiki keys: a `[[name]]` that
    /// matches no file and no `name:` is `Missing` until [`Library::resolve_loose_names`].
    fn resolve(&self, from: usize, link: &Link) -> Target {
        let by_path = |target: &str| self.resolve_path(from, target);
        match link.syntax {
            Syntax::Markdown | Syntax::Reference | Syntax::CodeSpan => by_path(&link.target),
            Syntax::Wiki if links::ends_with_md(&link.target) => by_path(&link.target),
            Syntax::Wiki => match by_path(&format!("{}.md", link.target)) {
                // `[[name]]`: the memory whose `name:` it is (the client's own meaning).
                Target::Missing => self
                    .named(link.target.trim())
                    .map_or(Target::Missing, Target::Named),
                found => found,
            },
        }
    }

    /// The wiki links `[[name]]` left `Missing` by [`Library::resolve`]: else the memory whose
    /// file stem or topic (or `name:`) matches, compared case-insensitively with `_` and `-`
    /// alike. All of them at once, after the scan: one pass over the files for the few names
    /// that need it, rather than a table of every file's keys (most libraries never need one).
    pub(super) fn resolve_loose_names(&mut self) {
        let pending = |l: &FileLink| l.link.syntax == Syntax::Wiki && l.target == Target::Missing;
        let mut keys: foldhash::HashMap<String, Option<usize>> = (self.links.par_iter())
            .flat_map_iter(|links| links.iter().filter(|l| pending(l)))
            .map(|l| (wiki_key(&l.link.target), None))
            .collect();
        if keys.is_empty() {
            return;
        }
        wiki::first_with_keys(&self.files, &mut keys);
        (self.links.par_iter_mut())
            .flat_map_iter(|links| links.iter_mut().filter(|l| pending(l)))
            .for_each(|l| {
                if let Some(&Some(i)) = keys.get(&wiki_key(&l.link.target)) {
                    l.target = Target::Named(i);
                }
            });
    }

    fn resolve_path(&self, from: usize, target: &str) -> Target {
        let from_rel = &self.files[from].rel;
        let dir = from_rel.rfind('/').map_or("", |k| &from_rel[..k + 1]);
        let on_disk: PathBuf = if let Some(rest) = target.strip_prefix("~/") {
            match &self.home {
                Some(home) => home.join(rest),
                // Without HOME nothing can be said about the link.
                None => return Target::Outside,
            }
        } else if target.starts_with('/') {
            PathBuf::from(target)
        } else {
            // The common case, a plain name from a file at the root, needs no path work.
            let plain = dir.is_empty() && !target.contains("./") && !target.starts_with('.');
            if plain && let Some(t) = self.find(target) {
                return Target::File(t);
            }
            if let Some(t) = normalize(&format!("{dir}{target}")).and_then(|j| self.find(&j)) {
                return Target::File(t);
            }
            // Absolute already, so `inside` needs no working directory.
            self.abs_root
                .as_ref()
                .unwrap_or(&self.root)
                .join(dir)
                .join(target)
        };
        if let Some(t) = self.inside(&on_disk) {
            return Target::File(t);
        }
        if std::fs::metadata(&on_disk).is_ok() {
            Target::Outside
        } else {
            Target::Missing
        }
    }

    /// The library file at an absolute or root-relative path, compared lexically.
    fn inside(&self, path: &Path) -> Option<usize> {
        let root = self.abs_root.as_ref()?;
        let path = std::path::absolute(path).ok()?;
        let rel = path.strip_prefix(root).ok()?;
        let rel = normalize(rel.to_str()?)?;
        self.find(&rel)
    }
}

/// Resolves `.` and `..` in a relative path; `None` when it leaves the root.
pub(super) fn normalize(rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}
