//! Files found by a key each one has (its relative path, its frontmatter `name`). The keys are
//! copied once, end to end, into one string beside the table: a lookup compares against that
//! block, not through the file list to each file and its own string, and the table costs no
//! allocation per file (as a `HashMap<String, usize>` of the same keys would).

use std::hash::BuildHasher;
use std::marker::PhantomData;
#[cfg(test)]
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

/// The keys of a run of consecutive files, hashed and copied end to end: gathered on the pool
/// a run at a time (where each file is reached once for every table and vote), then put in one
/// table by [`Keyed::from_runs`], which reaches no file.
#[derive(Debug)]
pub(super) struct Run<K> {
    keys: String,
    /// Per key, in the order of the files: the file, where its key ends in `keys`, its hash.
    listed: Vec<(u32, u32, u64)>,
    key: PhantomData<K>,
}

impl<K: KeyOf> Run<K> {
    pub(super) fn with_capacity(files: usize) -> Run<K> {
        Run {
            keys: String::new(),
            listed: Vec::with_capacity(files),
            key: PhantomData,
        }
    }

    /// Adds the key of file `i` (the files come in order), if it has one.
    pub(super) fn push(&mut self, i: usize, f: &MemFile) {
        let Some(k) = K::key(f) else { return };
        self.keys.push_str(k);
        let hash = HASHER.hash_one(k);
        self.listed.push((narrow(i), narrow(self.keys.len()), hash));
    }
}

/// The hasher of every run and table (`FixedState::default()`: a fixed seed, so a key hashed
/// on any thread finds its entry).
const HASHER: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0);

impl<K: KeyOf> Keyed<K> {
    /// The index of `files` (the library gathers its runs on the pool).
    #[cfg(test)]
    pub(super) fn new(files: &[Arc<MemFile>]) -> Keyed<K> {
        let mut run = Run::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            run.push(i, f);
        }
        Keyed::from_runs(vec![run])
    }

    /// The index of the files whose keys `runs` gathered, in the order of the files.
    pub(super) fn from_runs(runs: Vec<Run<K>>) -> Keyed<K> {
        let count = runs.iter().map(|r| r.listed.len()).sum();
        let mut table = HashTable::with_capacity(count);
        let mut keys = String::with_capacity(runs.iter().map(|r| r.keys.len()).sum());
        let mut listed = Vec::with_capacity(count);
        for run in &runs {
            let mut start = 0;
            for &(file, end, hash) in &run.listed {
                let k = &run.keys[start as usize..end as usize];
                start = end;
                if table
                    .find(hash, |e: &Entry| key_of(&keys, e) == k)
                    .is_none()
                {
                    let entry = Entry {
                        file,
                        start: narrow(keys.len()),
                        len: narrow(k.len()),
                    };
                    keys.push_str(k);
                    listed.push((file, narrow(keys.len())));
                    table.insert_unique(hash, entry, |e: &Entry| HASHER.hash_one(key_of(&keys, e)));
                }
            }
        }
        Keyed {
            table,
            keys,
            listed,
            key: PhantomData,
        }
    }

    /// The first file of the list the index was built from whose key is `k`.
    pub(super) fn get(&self, k: &str) -> Option<usize> {
        let hash = HASHER.hash_one(k);
        self.table
            .find(hash, |e: &Entry| key_of(&self.keys, e) == k)
            .map(|e| e.file as usize)
    }
}

impl<K> Keyed<K> {
    /// Every key with its file, in the order of the files (read from one block: no file is
    /// reached).
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &str)> {
        (0..self.len()).map(|k| self.at(k))
    }

    /// How many keys there are.
    pub(super) fn len(&self) -> usize {
        self.listed.len()
    }

    /// The `k`-th key, in the order of the files, with its file.
    pub(super) fn at(&self, k: usize) -> (usize, &str) {
        let start = k.checked_sub(1).map_or(0, |j| self.listed[j].1);
        let (file, end) = self.listed[k];
        (file as usize, &self.keys[start as usize..end as usize])
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
        // Gathered a few files at a time, as the library does: the same table.
        let runs = (fs.chunks(2).enumerate())
            .map(|(c, chunk)| {
                let mut run = Run::<ByName>::with_capacity(chunk.len());
                for (k, f) in chunk.iter().enumerate() {
                    run.push(c * 2 + k, f);
                }
                run
            })
            .collect();
        let gathered = Keyed::from_runs(runs);
        assert_eq!(gathered.iter().collect::<Vec<_>>(), listed);
        for k in ["shared", "own", "", "d"] {
            assert_eq!(gathered.get(k), by_name.get(k), "{k}");
        }
    }
}
