//! Putting files read in any order into path order without reaching each file, and its path,
//! at every comparison: each path's first bytes are taken once, as a number, while the file is
//! fresh from its read, and only paths that share those bytes are compared whole. (Sorting 20,000
//! files by `rel` fetched two scattered files and two scattered strings per comparison, and cost
//! more than building the lookup tables.)

use std::cmp::Ordering;
use std::sync::Arc;

use rayon::slice::ParallelSliceMut;

use crate::memory::file::MemFile;

/// The first 24 bytes of a relative path, big-endian, zero-padded: ordered as the paths are,
/// up to ties.
///
/// The padding cannot misorder: where two padded heads first differ, the larger has a real
/// byte, so either both paths have bytes there (the order of those bytes) or the smaller path
/// ended before (a prefix of the other, bytes of zero at most between). Equal heads leave the
/// order to the paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct PathHead([u64; 3]);

impl PathHead {
    pub(super) fn of(rel: &str) -> PathHead {
        let mut head = [0u8; 24];
        let n = rel.len().min(head.len());
        head[..n].copy_from_slice(&rel.as_bytes()[..n]);
        let word = |k: usize| u64::from_be_bytes(head[k..k + 8].try_into().expect("8 bytes"));
        PathHead([word(0), word(8), word(16)])
    }
}

/// `files`, each beside the head of its path, sorted by path.
pub(super) fn by_path(mut files: Vec<(PathHead, Arc<MemFile>)>) -> Vec<Arc<MemFile>> {
    // Relative paths are unique: no stable sort needed.
    files.par_sort_unstable_by(|a, b| order(a, b, |f| &f.rel));
    files.into_iter().map(|(_, f)| f).collect()
}

fn order<T>(a: &(PathHead, T), b: &(PathHead, T), rel: impl Fn(&T) -> &str) -> Ordering {
    a.0.cmp(&b.0).then_with(|| rel(&a.1).cmp(rel(&b.1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn heads_then_paths_order_as_paths(
            // Few letters, NUL among them, and long shared starts: ties of every kind.
            rels in proptest::collection::vec("(abcdefghijkl_){0,2}[ab\0_]{0,30}", 0..40),
        ) {
            let mut plain = rels.clone();
            plain.sort();
            let mut headed: Vec<(PathHead, &str)> =
                rels.iter().map(|r| (PathHead::of(r), r.as_str())).collect();
            headed.sort_by(|a, b| order(a, b, |r| r));
            let headed: Vec<&str> = headed.iter().map(|(_, r)| *r).collect();
            proptest::prop_assert_eq!(headed, plain);
        }
    }

    #[test]
    fn files_come_out_by_path() {
        let root = std::path::Path::new("/m");
        let rels = [
            "b.md",
            "a/z.md",
            "a.md",
            "feedback_twenty_four_by.md",
            "feedback_twenty_four_bx.md",
        ];
        let files = (rels.iter())
            .map(|r| {
                let f = MemFile::from_text(root, (*r).to_owned(), String::new());
                (PathHead::of(r), Arc::new(f))
            })
            .collect();
        let sorted: Vec<String> = by_path(files).iter().map(|f| f.rel.clone()).collect();
        let mut want: Vec<&str> = rels.to_vec();
        want.sort_unstable();
        assert_eq!(sorted, want);
    }
}
