//! Files found by a key each one has (its relative path, its frontmatter `name`). The keys are
//! copied once, end to end, into one string beside the table: a lookup compares against that
//! block, not through the file list to each file and its own string (two scattered reads per
//! lookup, which made finding a link's target cost more than scanning for the link). A
//! `HashMap<String, usize>` of the same keys cost an allocation and a copy per file.

use std::hash::BuildHasher;
use std::marker::PhantomData;
use std::sync::Arc;

use hashbrown::HashTable;

use crate::memory::file::MemFile;

/// Where a file keeps its key.
pub(super) trait KeyOf {
    /// The key of `f`, if it has one.
    fn key(f: &MemFile) -> Option<&str>;
}

/// A file's relative path.
#[derive(Debug, Clone)]
pub(super) struct ByRel;

impl KeyOf for ByRel {
    fn key(f: &MemFile) -> Option<&str> {
        Some(&f.rel)
    }
}

/// A file's frontmatter `name`, trimmed, when it has a non-empty one.
#[derive(Debug, Clone)]
pub(super) struct ByName;

impl KeyOf for ByName {
    fn key(f: &MemFile) -> Option<&str> {
        let name = f.meta()?.name.as_deref()?.trim();
        (!name.is_empty()).then_some(name)
    }
}

/// An index of files by the key `K` gives; where several files share a key, the first (by
/// path) wins.
#[derive(Debug, Clone)]
pub(super) struct Keyed<K> {
    /// Per key: the file, and where the key lies in `keys`.
    table: HashTable<Entry>,
    keys: String,
    /// Per key, in the order of the files: the file and where its key ends in `keys`.
    listed: Vec<(u32, u32)>,
    hasher: foldhash::fast::FixedState,
    key: PhantomData<K>,
}

/// A file and its key (`keys[start..start + len]`); `u32` keeps the table small (a library
/// has far fewer than 4 billion files and bytes of keys).
#[derive(Debug, Clone, Copy)]
struct Entry {
    file: u32,
    start: u32,
    len: u32,
}

impl<K: KeyOf> Keyed<K> {
    pub(super) fn new(files: &[Arc<MemFile>]) -> Keyed<K> {
        let hasher = foldhash::fast::FixedState::default();
        let mut table = HashTable::with_capacity(files.len());
        let mut keys = String::new();
        let mut listed = Vec::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            let Some(k) = K::key(f) else { continue };
            let hash = hasher.hash_one(k);
            if table
                .find(hash, |e: &Entry| key_of(&keys, e) == k)
                .is_none()
            {
                let entry = Entry {
                    file: narrow(i),
                    start: narrow(keys.len()),
                    len: narrow(k.len()),
                };
                keys.push_str(k);
                listed.push((entry.file, narrow(keys.len())));
                table.insert_unique(hash, entry, |e: &Entry| hasher.hash_one(key_of(&keys, e)));
            }
        }
        Keyed {
            table,
            keys,
            listed,
            hasher,
            key: PhantomData,
        }
    }

    /// The first file of the list the index was built from whose key is `k`.
    pub(super) fn get(&self, k: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(k);
        self.table
            .find(hash, |e: &Entry| key_of(&self.keys, e) == k)
            .map(|e| e.file as usize)
    }
}

impl<K> Keyed<K> {
    /// Every key with its file, in the order of the files (read from one block: no file is
    /// reached).
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &str)> {
        let starts = std::iter::once(0).chain(self.listed.iter().map(|&(_, end)| end));
        (self.listed.iter().zip(starts))
            .map(|(&(file, end), start)| (file as usize, &self.keys[start as usize..end as usize]))
    }
}

fn key_of<'k>(keys: &'k str, e: &Entry) -> &'k str {
    &keys[e.start as usize..(e.start + e.len) as usize]
}

fn narrow(n: usize) -> u32 {
    u32::try_from(n).expect("fewer than 4 GiB of files and keys")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<Arc<MemFile>> {
        list.iter()
            .map(|(rel, text)| {
                Arc::new(MemFile::from_text(
                    Path::new("/m"),
                    (*rel).to_owned(),
                    (*text).to_owned(),
                ))
            })
            .collect()
    }

    #[test]
    fn first_file_with_a_key_wins_and_files_without_one_are_left_out() {
        let fs = files(&[
            ("a.md", "---\nname: shared\n---\n"),
            ("b.md", "---\nname: shared\n---\n"),
            ("c.md", "---\nname: '  '\n---\n"),
            ("d.md", "no frontmatter\n"),
            ("e.md", "---\nname: ' own '\n---\n"),
        ]);
        let by_name = Keyed::<ByName>::new(&fs);
        assert_eq!(by_name.get("shared"), Some(0));
        assert_eq!(by_name.get("own"), Some(4));
        assert_eq!(by_name.get(""), None);
        assert_eq!(by_name.get("d"), None);
        let by_rel = Keyed::<ByRel>::new(&fs);
        for (i, f) in fs.iter().enumerate() {
            assert_eq!(by_rel.get(&f.rel), Some(i));
        }
        assert_eq!(by_rel.get("z.md"), None);
        let listed: Vec<(usize, &str)> = by_name.iter().collect();
        assert_eq!(listed, [(0, "shared"), (4, "own")]);
        assert_eq!(by_rel.iter().count(), fs.len());
    }
}
