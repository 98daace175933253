//! Files found by a key each one has (its relative path, its frontmatter `name`), stored as
//! indices into the library's file list: the keys stay in the files, none is copied. A
//! `HashMap<String, usize>` of the same keys cost an allocation and a copy per file, on the one
//! thread that builds the table, for every library loaded (and every plan `tier` proves).

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
    table: HashTable<usize>,
    hasher: foldhash::fast::FixedState,
    key: PhantomData<K>,
}

impl<K: KeyOf> Keyed<K> {
    pub(super) fn new(files: &[Arc<MemFile>]) -> Keyed<K> {
        let hasher = foldhash::fast::FixedState::default();
        let mut table = HashTable::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            let Some(k) = K::key(f) else { continue };
            let hash = hasher.hash_one(k);
            if table
                .find(hash, |&j: &usize| K::key(&files[j]) == Some(k))
                .is_none()
            {
                table.insert_unique(hash, i, |&j: &usize| {
                    hasher.hash_one(K::key(&files[j]).expect("only keyed files are stored"))
                });
            }
        }
        Keyed {
            table,
            hasher,
            key: PhantomData,
        }
    }

    /// The first file of `files` (the list the index was built from) whose key is `k`.
    pub(super) fn get(&self, files: &[Arc<MemFile>], k: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(k);
        self.table
            .find(hash, |&j: &usize| K::key(&files[j]) == Some(k))
            .copied()
    }
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
        assert_eq!(by_name.get(&fs, "shared"), Some(0));
        assert_eq!(by_name.get(&fs, "own"), Some(4));
        assert_eq!(by_name.get(&fs, ""), None);
        assert_eq!(by_name.get(&fs, "d"), None);
        let by_rel = Keyed::<ByRel>::new(&fs);
        for (i, f) in fs.iter().enumerate() {
            assert_eq!(by_rel.get(&fs, &f.rel), Some(i));
        }
        assert_eq!(by_rel.get(&fs, "z.md"), None);
    }
}
