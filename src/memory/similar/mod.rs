//! Near-duplicate detection: MinHash signatures over word shingles, with a fixed-seed hash, so
//! the same library always gives the same pairs. No model, no network.
//!
//! Text is cut into tokens ([`tokens`]: runs of letters or digits, lower-cased; each CJK
//! character is a token of its own, since CJK text has no spaces), tokens into overlapping
//! shingles of [`SHINGLE`] tokens, and the shingle set into a [`BINS`]-value signature by
//! one-permutation hashing with rotation densification (one hash per shingle instead of one
//! per shingle and permutation). The share of equal values estimates the Jaccard similarity of
//! the two shingle sets. [`clusters`] finds the groups of files whose pairs are above a
//! threshold with LSH banding, so a large library is not compared pair by pair.

mod clusters;
mod tokens;

pub use clusters::{Cluster, clusters};

/// Tokens per shingle.
pub const SHINGLE: usize = 3;
/// Values per signature.
pub const BINS: usize = 64;
/// LSH bands of `ROWS` values each (60 of the 64 values). A pair at similarity 0.8 shares a
/// whole band with probability 1 - (1 - 0.8^5)^12 = 99.2 % (0.9: 99.99 %); five rows rather
/// than four keep template text (headings every file has) from making most pairs candidates.
const BANDS: usize = 12;
const ROWS: usize = 5;
/// The fixed seed (never random: results must be reproducible).
const SEED: u64 = 0x00cc_3e3a_0d1f_5eed;
const EMPTY: u64 = u64::MAX;
/// The odd multiplier of the band keys: the values are hashes already, so one multiply per
/// value is enough to make the key's top bits depend on every bit of the band.
const BAND_MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// A MinHash signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    values: [u64; BINS],
    /// The LSH key of each band of `values`: two signatures are a pair of [`clusters`] only when
    /// they share one.
    keys: [u64; BANDS],
    /// No shingle at all (empty or one-token text).
    empty: bool,
}

impl Signature {
    /// The signature of `text`.
    pub fn of(text: &str) -> Signature {
        Signature::of_parts(&[text])
    }

    /// The signature of the concatenation of `parts` (each part ends a token), without
    /// copying them into one string. One pass: each token id is shifted into the window of the
    /// last [`SHINGLE`] and the shingle it completes goes straight into its bin, so no list of
    /// a file's tokens is ever held.
    pub fn of_parts(parts: &[&str]) -> Signature {
        let mut values = [EMPTY; BINS];
        // The last `SHINGLE` token ids, zero-padded in front until that many were seen.
        let mut window = [0u64; SHINGLE];
        let mut seen = 0usize;
        for part in parts {
            tokens::each_token_id(part, |id| {
                window.rotate_left(1);
                window[SHINGLE - 1] = id;
                seen += 1;
                if seen >= SHINGLE {
                    let h = shingle_hash(&window);
                    let bin = (h >> 58) as usize; // top 6 bits pick one of 64 bins
                    values[bin] = values[bin].min(h & ((1 << 58) - 1));
                }
            });
        }
        if (1..SHINGLE).contains(&seen) {
            // Short text: the whole token run, zero-padded in front, is the one shingle.
            let h = shingle_hash(&window);
            values[(h >> 58) as usize] = h & ((1 << 58) - 1);
        }
        let empty = values.iter().all(|&v| v == EMPTY);
        if !empty {
            densify(&mut values);
        }
        Signature::of_values(values, empty)
    }

    /// The signature of densified `values` (`empty`: no shingle), with its band keys.
    fn of_values(values: [u64; BINS], empty: bool) -> Signature {
        let keys = std::array::from_fn(|band| {
            values[band * ROWS..(band + 1) * ROWS]
                .iter()
                .fold(SEED ^ band as u64, |h, &v| (h ^ v).wrapping_mul(BAND_MUL))
        });
        Signature {
            values,
            keys,
            empty,
        }
    }
}

/// The signature two memories are compared by, for the audit's `near-duplicate` and for
/// `add`'s refusal alike: the file's description and body (`None` for MEMORY.md, hubs and files
/// without text).
pub fn of_memory(file: &super::file::MemFile) -> Option<Signature> {
    use super::file::Role;
    if matches!(file.role, Role::Index | Role::Hub { .. }) {
        return None;
    }
    let (text, parsed) = file.parsed()?;
    let desc = file
        .meta()
        .and_then(|m| m.description.as_deref())
        .unwrap_or("");
    Some(Signature::of_parts(&[desc, &text[parsed.body_start..]]))
}

/// Estimated Jaccard similarity of the shingle sets, in `0.0..=1.0` (0 when either is empty).
pub fn similarity(a: &Signature, b: &Signature) -> f64 {
    if a.empty || b.empty {
        return 0.0;
    }
    let equal = a
        .values
        .iter()
        .zip(&b.values)
        .filter(|(x, y)| x == y)
        .count();
    equal as f64 / BINS as f64
}

/// The shingle's hash: its token ids combined position by position (odd multipliers, so
/// `a b c` and `c b a` differ) with the fixed seed, through splitmix64's finalizer: as uniform
/// over the bins as MinHash needs (a test checks), and cheap.
fn shingle_hash(window: &[u64; SHINGLE]) -> u64 {
    const K: [u64; 3] = [
        0x9e37_79b9_7f4a_7c15,
        0xc2b2_ae3d_27d4_eb4f,
        0x1656_67b1_9e37_79f9,
    ];
    let [a, b, c] = *window;
    mix(SEED
        ^ a.wrapping_mul(K[0])
        ^ b.wrapping_mul(K[1]).rotate_left(21)
        ^ c.wrapping_mul(K[2]).rotate_left(42))
}

/// splitmix64's finalizer.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Fills empty bins from the next filled bin (circularly), salted by the distance, so two
/// signatures agree on a filled-from bin only when they agree on its source.
fn densify(values: &mut [u64; BINS]) {
    let orig = *values;
    for j in 0..BINS {
        if orig[j] != EMPTY {
            continue;
        }
        let mut t = 1;
        while orig[(j + t) % BINS] == EMPTY {
            t += 1;
        }
        values[j] = mix(orig[(j + t) % BINS] ^ (t as u64)) & ((1 << 58) - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const A: &str = "Supabase mutation deadlocks after a tab switch because the SDK \
                     guards the session with Web Locks; use fetch against the REST API instead \
                     of the client.";

    #[test]
    fn identical_text_is_one_and_stable() {
        assert_eq!(Signature::of(A), Signature::of(A));
        assert_eq!(similarity(&Signature::of(A), &Signature::of(A)), 1.0);
        // Case and punctuation do not matter.
        let b = A.to_uppercase().replace(';', ",");
        assert_eq!(similarity(&Signature::of(A), &Signature::of(&b)), 1.0);
    }

    /// Signatures decide every similarity `near-duplicate` reports: pinned, so that a change
    /// to them is a decision, not an accident.
    #[test]
    fn signatures_are_stable() {
        let a = Signature::of(A);
        let b =
            Signature::of(&A.replace("instead of the client", "instead of the supabase client"));
        assert_eq!(
            a.values[..3],
            [182270644847672241, 88052478300447236, 198905707746045561]
        );
        assert_eq!(similarity(&a, &b), 0.921875);
    }

    #[test]
    fn small_edit_is_near_and_other_text_is_far() {
        let edited = A.replace("instead of the client", "instead of the supabase client");
        let near = similarity(&Signature::of(A), &Signature::of(&edited));
        assert!(near > 0.6, "{near}");
        let other = "Stripe webhook replays carry no idempotency key, so refunds run twice; store \
                     the event id and skip events already seen before touching the ledger.";
        let far = similarity(&Signature::of(A), &Signature::of(other));
        assert!(far < 0.2, "{far}");
    }

    #[test]
    fn cjk_text_is_compared_by_character() {
        let a = Signature::of("浏览器端 supabase 在 tab 切换后死锁,必须用 fetch 调 REST API");
        let b =
            Signature::of("浏览器端 supabase 在 tab 切换后死锁,必须用 fetch() 调 REST API 接口");
        assert!(similarity(&a, &b) > 0.7);
    }

    /// The plain definition [`Signature::of_parts`] computes in one pass: every window of
    /// [`SHINGLE`] ids of the whole token list, or the zero-padded run of a shorter list.
    fn plain(text: &str) -> Signature {
        let mut ids = Vec::new();
        tokens::each_token_id(text, |id| ids.push(id));
        let mut values = [EMPTY; BINS];
        let mut shingles: Vec<[u64; SHINGLE]> = ids
            .windows(SHINGLE)
            .map(|w| w.try_into().unwrap())
            .collect();
        if (1..SHINGLE).contains(&ids.len()) {
            let mut w = [0u64; SHINGLE];
            w[SHINGLE - ids.len()..].copy_from_slice(&ids);
            shingles.push(w);
        }
        for w in shingles {
            let h = shingle_hash(&w);
            let bin = (h >> 58) as usize;
            values[bin] = values[bin].min(h & ((1 << 58) - 1));
        }
        let empty = values.iter().all(|&v| v == EMPTY);
        if !empty {
            densify(&mut values);
        }
        Signature::of_values(values, empty)
    }

    #[test]
    fn one_pass_is_every_window_of_the_token_list() {
        for text in [
            "",
            "one",
            "two words",
            "three words here",
            A,
            "浏览器端 supabase 在 tab 切换后死锁",
            "Ünïcode café2 ДА — x_y-z 42 ",
        ] {
            assert_eq!(Signature::of(text), plain(text), "{text:?}");
        }
    }

    #[test]
    fn parts_are_the_text_they_make_together() {
        assert_eq!(
            Signature::of_parts(&["tab switch", "deadlock in the browser"]),
            Signature::of("tab switch deadlock in the browser")
        );
    }

    #[test]
    fn shingle_hashes_fill_the_bins_evenly_and_depend_on_order() {
        let mut bins = [0usize; BINS];
        for i in 0..64_000u64 {
            let h = shingle_hash(&[i, i.wrapping_mul(31) + 7, i ^ 0xabcd]);
            bins[(h >> 58) as usize] += 1;
        }
        assert!(bins.iter().all(|&n| (800..1200).contains(&n)), "{bins:?}");
        assert_ne!(shingle_hash(&[1, 2, 3]), shingle_hash(&[3, 2, 1]));
    }

    #[test]
    fn empty_text_matches_nothing() {
        assert_eq!(similarity(&Signature::of(""), &Signature::of("")), 0.0);
        assert!(similarity(&Signature::of("one"), &Signature::of("one")) > 0.99);
    }
}
