//! The loose keys of a wiki link `[[name]]` that matches no file and no frontmatter `name:`
//! exactly: a file's stem, its stem without the type prefix, and its `name`, compared
//! case-insensitively with `_` and `-` alike.
//!
//! They are looked for only for the names that need them, all at once after the link scan, in
//! one pass over the files (on the pool): no table of every file's keys (three `String`s per
//! file, to answer a few names), and nothing built while the scan waits.

use std::sync::Arc;

use rayon::prelude::*;

use crate::memory::file::MemFile;

/// For each key of `want`, the first file (by path) that has it among its loose keys (its stem,
/// its stem without the type prefix, its `name`), a stretch of files per job on the pool.
pub(super) fn first_with_keys(
    files: &[Arc<MemFile>],
    want: &mut foldhash::HashMap<String, Option<usize>>,
) {
    let ids: foldhash::HashMap<&str, usize> = (want.keys().enumerate())
        .map(|(n, k)| (k.as_str(), n))
        .collect();
    let keys = (files.par_iter().enumerate())
        .with_min_len(STRETCH)
        .flat_map_iter(|(i, f)| {
            let name = f.meta().and_then(|m| m.name.as_deref());
            let [stem, topic] = stem_and_topic(f.name());
            [stem, topic, name]
                .into_iter()
                .flatten()
                .map(move |k| (i, k))
        });
    let sketch = Sketch::of(want.keys());
    let none = || vec![None; ids.len()];
    let first = keys
        .fold(
            || (none(), String::new()),
            |(mut first, mut key), (i, raw)| {
                if sketch.may_hold(raw) {
                    wiki_key_into(raw, &mut key);
                    if let Some(&n) = ids.get(key.as_str()) {
                        first[n] = earlier(first[n], Some(i));
                    }
                }
                (first, key)
            },
        )
        .map(|(first, _)| first)
        .reduce(none, |a, b| {
            a.into_iter().zip(b).map(|(a, b)| earlier(a, b)).collect()
        });
    let found: Vec<(String, usize)> = (ids.iter())
        .filter_map(|(k, &n)| Some(((*k).to_owned(), first[n]?)))
        .collect();
    for (k, i) in found {
        want.insert(k, Some(i));
    }
}

/// Files looked at per job of [`first_with_keys`] at the least.
const STRETCH: usize = 1024;

fn earlier(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A file name's stem and its stem without the type prefix (what follows the first `_` or `-`).
fn stem_and_topic(name: &str) -> [Option<&str>; 2] {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    let topic = (stem.bytes().position(|b| b == b'_' || b == b'-')).map(|k| &stem[k + 1..]);
    [Some(stem), topic]
}

/// The comparison form of a wiki name: lower case, `_` as `-`, outer `-` trimmed.
pub(super) fn wiki_key(name: &str) -> String {
    let mut key = String::new();
    wiki_key_into(name, &mut key);
    key
}

/// [`wiki_key`] into `out` (one buffer for every file's keys).
fn wiki_key_into(name: &str, out: &mut String) {
    out.clear();
    let name = name.trim();
    let dash = |c: char| if c == '_' { '-' } else { c };
    if name.is_ascii() {
        out.extend(name.chars().map(|c| dash(c.to_ascii_lowercase())));
    } else {
        out.extend(name.to_lowercase().chars().map(dash));
    }
    out.truncate(out.trim_end_matches('-').len());
    out.drain(..out.len() - out.trim_start_matches('-').len());
}

/// The lengths and the first and last bytes of the ASCII keys wanted: a file's ASCII name whose
/// key cannot be one of them is passed over without building its key.
#[derive(Debug, Default)]
struct Sketch {
    lens: u64,
    first: u128,
    last: u128,
}

impl Sketch {
    fn of<'a>(keys: impl Iterator<Item = &'a String>) -> Sketch {
        let mut s = Sketch::default();
        // An ASCII name has an ASCII key: non-ASCII keys need no sketch.
        for k in keys.filter(|k| k.is_ascii()).map(String::as_bytes) {
            s.lens |= 1 << (k.len() % 64);
            if let (Some(&f), Some(&l)) = (k.first(), k.last()) {
                s.first |= 1 << f;
                s.last |= 1 << l;
            }
        }
        s
    }

    /// Whether the key of `raw` may be a key sketched (always, for a non-ASCII `raw`: its
    /// lower case may be longer, shorter or ASCII).
    fn may_hold(&self, raw: &str) -> bool {
        if !raw.is_ascii() {
            return true;
        }
        // The key's bytes are these, lower-cased, `_` as `-`.
        let core = raw.trim().trim_matches(['-', '_']).as_bytes();
        self.lens & (1 << (core.len() % 64)) != 0
            && match (core.first(), core.last()) {
                (Some(&f), Some(&l)) => {
                    self.first & (1 << f.to_ascii_lowercase()) != 0
                        && self.last & (1 << l.to_ascii_lowercase()) != 0
                }
                _ => true,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn wiki_keys_are_the_trimmed_lowercase_name_with_dashes(name in "[ _A-Za-zÄÖΣσς\u{212A}-]{0,12}") {
            let want = name.trim().to_lowercase().replace('_', "-").trim_matches('-').to_owned();
            proptest::prop_assert_eq!(wiki_key(&name), want);
        }

        #[test]
        fn the_sketch_never_passes_over_a_key_wanted(
            others in proptest::collection::vec("[ _A-Za-zÄ\u{212A}-]{0,6}", 0..4),
            raw in "[ _A-Za-zÄ\u{212A}-]{0,6}",
        ) {
            let mut keys: Vec<String> = others.iter().map(|w| wiki_key(w)).collect();
            keys.push(wiki_key(&raw.to_uppercase().replace('-', "_")));
            let sketch = Sketch::of(keys.iter());
            for written in [raw.clone(), raw.to_uppercase(), format!(" _{raw}- ")] {
                if keys.contains(&wiki_key(&written)) {
                    proptest::prop_assert!(sketch.may_hold(&written), "{written:?} {keys:?}");
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn each_key_finds_the_first_file_that_has_it(
            files in proptest::collection::vec(("[aB_-]{1,4}", proptest::option::of("[ aB_-]{0,4}")), 1..12),
            probes in proptest::collection::vec("[ aB_-]{0,4}", 1..6),
        ) {
            let files: Vec<Arc<MemFile>> = (files.iter())
                .map(|(stem, name)| {
                    let front = name.as_ref().map_or(String::new(), |n| format!("---\nname: '{n}'\n---\n"));
                    let rel = format!("{stem}.md");
                    Arc::new(MemFile::from_text(std::path::Path::new("/m"), rel, front))
                })
                .collect();
            // The table every file's keys made before: the first file by path wins.
            let mut table = std::collections::HashMap::new();
            for (i, f) in files.iter().enumerate() {
                let name = f.meta().and_then(|m| m.name.as_deref());
                for k in stem_and_topic(f.name()).into_iter().chain([name]).flatten() {
                    table.entry(wiki_key(k)).or_insert(i);
                }
            }
            let mut want: foldhash::HashMap<String, Option<usize>> =
                probes.iter().map(|p| (wiki_key(p), None)).collect();
            first_with_keys(&files, &mut want);
            for (key, found) in want {
                proptest::prop_assert_eq!(found, table.get(&key).copied(), "{}", key);
            }
        }
    }

    #[test]
    fn the_sketch_passes_over_other_lengths_and_ends() {
        let keys = [wiki_key("Abc_Def")];
        let sketch = Sketch::of(keys.iter());
        assert!(sketch.may_hold(" abc-def "));
        assert!(sketch.may_hold("__ABC-DEF"));
        for other in ["abc-de", "abc-deg", "xbc-def", "abc-defg"] {
            assert!(!sketch.may_hold(other), "{other}");
        }
        assert!(
            sketch.may_hold("abc-dÉf"),
            "a non-ASCII name is always looked at"
        );
    }
}
