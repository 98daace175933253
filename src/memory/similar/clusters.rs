//! Grouping near-duplicate signatures without comparing every pair: LSH banding over each
//! signature's sketch, then a union of the pairs found, band by band.

use rayon::prelude::*;

use super::{BAND_MUL, BANDS, BINS, ROWS, Signature, similarity};

/// No file (an empty slot, the end of a chain).
const NONE: u32 = u32::MAX;

/// Files that are near-duplicates of each other: a connected group of the pairs [`clusters`]
/// finds, reported once.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// The files, by place, ascending.
    pub members: Vec<usize>,
    /// Pairs `(i, j, similarity)` (`i < j`) that join the members, one fewer than the members
    /// (a spanning tree of the pairs), sorted.
    pub links: Vec<(usize, usize, f64)>,
}

/// The near-duplicate clusters: the groups of files joined by pairs sharing a band and of
/// similarity at least `threshold`, each group once, sorted by its first member. `None`
/// entries take no part.
///
/// Memory is linear in the library, whatever it holds: template-like libraries put hundreds of
/// near-identical files in one band's group, and listing their pairs (quadratic in the group)
/// is what a cluster replaces. Each band's groups are the files whose sketches ([`sketch`])
/// have the same bytes in that band; within a group, each file is compared
/// with the files before it only until it joins each part of the group it belongs with, so a
/// group of identical files costs one comparison per file and a group of unrelated ones its
/// pairs, as listing them did. Each band keeps the pairs that joined two parts (at most one
/// fewer than its files); those of all bands, joined in order, give the clusters: a file joins
/// a group when it is close to one member, whatever band found it (as the pairs did).
///
/// Candidates are ruled out on their sketches first (a share of equal bytes below the threshold
/// means a share of equal values below it too); the rest are compared on whole signatures,
/// which must share a band and be similar enough. A test holds the clusters to the groups of
/// [`pairs_plain`], the plain definition. The bands run on the thread pool, each with a table of
/// its own.
pub fn clusters(sigs: &[Option<&Signature>], threshold: f64) -> Vec<Cluster> {
    // The files that take part (by place in `sigs`), their signatures and sketches.
    let mut live = Vec::new();
    let mut whole = Vec::new();
    let mut bytes = Vec::new();
    for (i, s) in sigs.iter().enumerate() {
        if let Some(s) = s.filter(|s| !s.empty) {
            live.push(i);
            whole.push(s);
            bytes.push(sketch(s));
        }
    }
    assert!(live.len() < NONE as usize, "a file's place fits a u32");
    // The similarity of two live files, when they are a pair.
    let pair = |a: usize, b: usize| -> Option<f64> {
        if share(&bytes[a], &bytes[b]) < threshold {
            return None;
        }
        let (x, y) = (whole[a], whole[b]);
        let s = similarity(x, y);
        (share_band(x, y) && s >= threshold).then_some(s)
    };
    // The most bytes a pair's sketches differ in: a share of equal bytes below the threshold
    // rules a pair out.
    let far = BINS - ((threshold * BINS as f64).ceil().max(0.0) as usize).min(BINS);
    // A job per few bands: enough jobs for a busy thread to leave its share to another, few
    // enough that a table (twice as many slots as files) is not filled more often than needed.
    let per_job = BANDS.div_ceil(2 * rayon::current_num_threads()).max(1);
    let mut links: Vec<(usize, usize, f64)> = (0..BANDS)
        .into_par_iter()
        .with_min_len(per_job)
        .fold(
            || (BandTable::new(live.len()), Vec::new()),
            |(mut table, mut out), band| {
                table.groups(&bytes, band, &mut |group| {
                    join(group, &bytes, far, &pair, &mut out)
                });
                (table, out)
            },
        )
        .map(|(_, out)| out)
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        });
    links.par_sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    links.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
    // The bands' links, joined in order: each that joins two groups is kept.
    let mut parent: Vec<u32> = (0..live.len() as u32).collect();
    fn root(parent: &mut [u32], mut k: u32) -> u32 {
        while parent[k as usize] != k {
            let up = parent[parent[k as usize] as usize];
            parent[k as usize] = up;
            k = up;
        }
        k
    }
    let mut kept = Vec::new();
    for (a, b, s) in links {
        let (ra, rb) = (root(&mut parent, a as u32), root(&mut parent, b as u32));
        if ra != rb {
            parent[ra.max(rb) as usize] = ra.min(rb);
            kept.push((a, b, s));
        }
    }
    let mut by_root: std::collections::BTreeMap<u32, Cluster> = Default::default();
    for (a, b, s) in kept {
        let r = root(&mut parent, a as u32);
        let c = by_root.entry(r).or_insert_with(|| Cluster {
            members: Vec::new(),
            links: Vec::new(),
        });
        c.links.push((live[a], live[b], s));
    }
    for (k, &file) in live.iter().enumerate() {
        let r = root(&mut parent, k as u32);
        if let Some(c) = by_root.get_mut(&r) {
            c.members.push(file);
        }
    }
    by_root.into_values().collect()
}

/// Joins the files of one band's group (places in `bytes`, ascending) into parts: each file is
/// compared with the members of each part before it until one is its pair, and then belongs
/// with that part; `out` gets the pairs that joined (`(earlier, later, similarity)`, places).
///
/// Most members are never compared: the number of bytes two sketches differ in is a distance
/// (the triangle inequality holds), and a pair differs in at most `far` of them (the sketch
/// filter of [`clusters`]); each part keeps its members by their distance to its first member
/// `r`, and a file `p` at distance `d` from `r` can only pair with members whose distance to
/// `r` is within `far` of `d`. Files from another template are at a large distance from `r`,
/// their members near it: none is looked at.
fn join(
    group: &[u32],
    bytes: &[[u8; BINS]],
    far: usize,
    pair: &impl Fn(usize, usize) -> Option<f64>,
    out: &mut Vec<(usize, usize, f64)>,
) {
    let mut parts: Vec<Part> = Vec::new();
    for &p in group {
        let mut mine: Option<usize> = None;
        let mut k = 0;
        while k < parts.len() {
            let found = parts[k].pair_of(p, bytes, far, pair);
            match (found, mine) {
                (None, _) => k += 1,
                (Some((q, s)), None) => {
                    out.push((q as usize, p as usize, s));
                    parts[k].add(p, bytes);
                    mine = Some(k);
                    k += 1;
                }
                (Some((q, s)), Some(m)) => {
                    out.push((q as usize, p as usize, s));
                    let joined = parts.swap_remove(k);
                    // `m` may have moved into `k`'s place.
                    let m = if m == parts.len() { k } else { m };
                    // The smaller part's members are placed again in the larger one.
                    let (mut big, small) = if parts[m].len >= joined.len {
                        (std::mem::take(&mut parts[m]), joined)
                    } else {
                        (joined, std::mem::take(&mut parts[m]))
                    };
                    for q in small.by_distance.into_iter().flatten() {
                        big.add(q, bytes);
                    }
                    parts[m] = big;
                    mine = Some(m);
                }
            }
        }
        if mine.is_none() {
            let mut part = Part {
                first: p,
                ..Part::default()
            };
            part.add(p, bytes);
            parts.push(part);
        }
    }
}

/// The bytes two sketches differ in.
fn distance(a: &[u8; BINS], b: &[u8; BINS]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

/// A part of a band's group ([`join`]): its members by their distance to its first member.
#[derive(Default)]
struct Part {
    first: u32,
    len: usize,
    by_distance: Vec<Vec<u32>>,
}

impl Part {
    fn add(&mut self, q: u32, bytes: &[[u8; BINS]]) {
        let d = distance(&bytes[self.first as usize], &bytes[q as usize]);
        if self.by_distance.len() <= d {
            self.by_distance.resize_with(d + 1, Vec::new);
        }
        self.by_distance[d].push(q);
        self.len += 1;
    }

    /// A member that is `p`'s pair, and their similarity: only the members the triangle
    /// inequality leaves are compared (see [`join`]).
    fn pair_of(
        &self,
        p: u32,
        bytes: &[[u8; BINS]],
        far: usize,
        pair: &impl Fn(usize, usize) -> Option<f64>,
    ) -> Option<(u32, f64)> {
        let d = distance(&bytes[self.first as usize], &bytes[p as usize]);
        let near = d.saturating_sub(far)..(d + far + 1).min(self.by_distance.len());
        (self.by_distance.get(near)?.iter().flatten())
            .find_map(|&q| pair(q as usize, p as usize).map(|s| (q, s)))
    }
}

/// The share of equal bytes of two sketches (as [`similarity`] counts values).
fn share(a: &[u8; BINS], b: &[u8; BINS]) -> f64 {
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / BINS as f64
}

/// Whether two signatures have the same key in some band.
fn share_band(a: &Signature, b: &Signature) -> bool {
    a.keys.iter().zip(&b.keys).any(|(x, y)| x == y)
}

/// A signature's sketch: the low byte of each value. Equal values have equal bytes, so two
/// signatures sharing a band have sketches sharing it too, and the share of equal bytes is at
/// least the share of equal values: [`clusters`] finds the candidates and rules most out on the
/// sketches (a 64-byte comparison), and compares whole signatures only for the rest.
fn sketch(s: &Signature) -> [u8; BINS] {
    s.values.map(|v| v as u8)
}

/// The plain definition of the pairs [`clusters`] groups, on whole signatures: every two of
/// them, compared (the reference it is tested against).
#[cfg(test)]
fn pairs_plain(sigs: &[Option<&Signature>], threshold: f64) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    for (i, a) in sigs.iter().enumerate() {
        for (j, b) in sigs.iter().enumerate().skip(i + 1) {
            let (Some(a), Some(b)) = (a, b) else { continue };
            if a.empty || b.empty || !share_band(a, b) {
                continue;
            }
            let s = similarity(a, b);
            if s >= threshold {
                out.push((i, j, s));
            }
        }
    }
    out
}

/// The files of one band grouped by their key (the band's 5 bytes of their sketches), in an
/// open-addressing table: a slot holds the key and the last file of its group, `next` chains
/// the group's earlier files.
struct BandTable {
    table: Vec<(u64, u32)>,
    next: Vec<u32>,
    shift: u32,
}

impl BandTable {
    /// A table for `files` files.
    fn new(files: usize) -> BandTable {
        let slots = (files * 2).next_power_of_two().max(2);
        BandTable {
            table: vec![(0, NONE); slots],
            next: vec![NONE; files],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    /// Calls `group` with the places (in `sketches`, ascending) of each two or more files
    /// whose sketches have the same bytes in `band`.
    fn groups(&mut self, sketches: &[[u8; BINS]], band: usize, group: &mut impl FnMut(&[u32])) {
        let (table, next) = (&mut self.table, &mut self.next);
        let mask = table.len() - 1;
        table.fill((0, NONE));
        for (place, key) in sketches.iter().map(|s| band_key(s, band)).enumerate() {
            let mut slot = (key >> self.shift) as usize;
            loop {
                let (k, last) = &mut table[slot];
                if *last == NONE {
                    (*k, *last, next[place]) = (key, place as u32, NONE);
                    break;
                }
                if *k == key {
                    (next[place], *last) = (*last, place as u32);
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        let mut members = Vec::new();
        for &(_, last) in table.iter() {
            if last == NONE || next[last as usize] == NONE {
                continue;
            }
            members.clear();
            let mut at = last;
            while at != NONE {
                members.push(at);
                at = next[at as usize];
            }
            members.reverse();
            group(&members);
        }
    }
}

/// The key of a sketch's `band`: its 5 bytes times an odd number (one to one, so keys are
/// equal exactly when the bytes are, and the top bits, which pick the slot, depend on all).
fn band_key(sketch: &[u8; BINS], band: usize) -> u64 {
    let mut word = [0u8; 8];
    word[..ROWS].copy_from_slice(&sketch[band * ROWS..(band + 1) * ROWS]);
    u64::from_le_bytes(word).wrapping_mul(BAND_MUL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::similar::tests::A;

    proptest::proptest! {
        /// Signatures whose values come from a few, so that bands and whole signatures are
        /// often equal (and pairs have every similarity), some `None` or empty; and values
        /// that differ often have the same low byte, so sketches share bands and bytes their
        /// signatures do not.
        #[test]
        fn clusters_are_the_groups_of_the_plain_pairs(
            sigs in proptest::collection::vec(
                proptest::option::weighted(
                    0.9,
                    (proptest::bool::weighted(0.05), proptest::array::uniform32(0usize..3), 0u64..4),
                ),
                0..400,
            ),
            threshold in 0.0..1.0f64,
        ) {
            // 32 values from 3 (two of them with the same low byte), and the other 32 from one
            // of 4 runs (two and two with the same bytes): each half of a signature (6 bands)
            // is often shared by several others.
            let sigs: Vec<Option<Signature>> = sigs
                .into_iter()
                .map(|s| s.map(|(empty, half, run)| {
                    let values = std::array::from_fn(|k| if k < 32 {
                        [0, 1, 0x100][half[k]]
                    } else {
                        (run % 2) * 7 + (k as u64 % 3) + (run / 2) * 0x100
                    });
                    Signature::of_values(values, empty)
                }))
                .collect();
            let sigs: Vec<Option<&Signature>> = sigs.iter().map(Option::as_ref).collect();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
            let found = pool.install(|| clusters(&sigs, threshold));
            let plain = pairs_plain(&sigs, threshold);
            proptest::prop_assert_eq!(groups(&found), groups_of(&plain, sigs.len()));
            for c in &found {
                proptest::prop_assert_eq!(c.links.len() + 1, c.members.len());
                for l in &c.links {
                    proptest::prop_assert!(plain.contains(l), "{:?} is no plain pair", l);
                }
            }
        }
    }

    /// The members of each cluster.
    fn groups(found: &[Cluster]) -> Vec<Vec<usize>> {
        found.iter().map(|c| c.members.clone()).collect()
    }

    /// The groups of two or more files the pairs join, by their first member.
    fn groups_of(pairs: &[(usize, usize, f64)], n: usize) -> Vec<Vec<usize>> {
        let mut group: Vec<usize> = (0..n).collect();
        let find = |g: &mut Vec<usize>, mut k: usize| {
            while g[k] != k {
                k = g[k];
            }
            k
        };
        for &(a, b, _) in pairs {
            let (ra, rb) = (find(&mut group, a), find(&mut group, b));
            group[ra.max(rb)] = ra.min(rb);
        }
        let mut out: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for k in 0..n {
            let r = find(&mut group, k);
            out.entry(r).or_default().push(k);
        }
        out.into_values().filter(|g| g.len() > 1).collect()
    }

    /// 300 copies of one template (a word changed in each) and 20 unrelated notes: one cluster
    /// of the 300, each joined by one link.
    #[test]
    fn a_template_library_is_one_cluster() {
        let template = format!("{A} {}", A.replace("tab", "window"));
        let mut texts: Vec<String> = (0..300).map(|k| format!("{template} copy {k}")).collect();
        texts.extend(
            (0..20).map(|k| {
                format!("unrelated note {k} about stripe coupons and invoices number {k}")
            }),
        );
        let sigs: Vec<Signature> = texts.iter().map(|t| Signature::of(t)).collect();
        let sigs: Vec<Option<&Signature>> = sigs.iter().map(Some).collect();
        let found = clusters(&sigs, 0.8);
        assert_eq!(groups(&found), [(0..300).collect::<Vec<_>>()]);
        assert_eq!(found[0].links.len(), 299);
    }

    #[test]
    fn clusters_find_exactly_the_close_pair() {
        let edited = A.replace("tab switch", "tab change");
        let sigs = [
            Some(Signature::of(A)),
            Some(Signature::of(
                "an unrelated note about billing invoices and coupons in stripe",
            )),
            None,
            Some(Signature::of(&edited)),
        ];
        let sigs: Vec<Option<&Signature>> = sigs.iter().map(Option::as_ref).collect();
        let found = clusters(&sigs, 0.5);
        assert_eq!(groups(&found), [vec![0, 3]]);
        assert_eq!((found[0].links[0].0, found[0].links[0].1), (0, 3));
    }
}
