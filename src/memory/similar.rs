//! Near-duplicate detection: MinHash signatures over word shingles, with a fixed-seed hash
//! (xxh3), so the same library always gives the same pairs. No model, no network.
//!
//! Text is cut into tokens (runs of letters or digits, lower-cased; each CJK character is a
//! token of its own, since CJK text has no spaces), tokens into overlapping shingles of
//! [`SHINGLE`] tokens, and the shingle set into a [`BINS`]-value signature by one-permutation
//! hashing with rotation densification (one hash per shingle instead of one per shingle and
//! permutation). The share of equal values estimates the Jaccard similarity of the two
//! shingle sets. [`pairs`] finds the pairs above a threshold with LSH banding, so a 20,000-file
//! library is not compared pair by pair.

use std::collections::HashMap;

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Tokens per shingle.
pub const SHINGLE: usize = 3;
/// Values per signature.
pub const BINS: usize = 64;
/// LSH bands (of `BINS / BANDS` values each).
const BANDS: usize = 16;
const ROWS: usize = BINS / BANDS;
/// The fixed seed (never random: results must be reproducible).
const SEED: u64 = 0x00cc_3e3a_0d1f_5eed;
const EMPTY: u64 = u64::MAX;

/// A MinHash signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    values: [u64; BINS],
    /// No shingle at all (empty or one-token text).
    empty: bool,
}

impl Signature {
    /// The signature of `text`.
    pub fn of(text: &str) -> Signature {
        let mut values = [EMPTY; BINS];
        let mut window = [0u64; SHINGLE];
        let mut n = 0usize;
        for token in tokens(text) {
            window.rotate_left(1);
            window[SHINGLE - 1] = xxh3_64_with_seed(token.as_bytes(), SEED);
            n += 1;
            if n < SHINGLE {
                continue;
            }
            let h = shingle_hash(&window);
            let bin = (h >> 58) as usize; // top 6 bits pick one of 64 bins
            let v = h & ((1 << 58) - 1);
            if v < values[bin] {
                values[bin] = v;
            }
        }
        if n > 0 && n < SHINGLE {
            // Short text: the whole token run is the one shingle.
            let h = shingle_hash(&window);
            values[(h >> 58) as usize] = h & ((1 << 58) - 1);
        }
        let empty = values.iter().all(|&v| v == EMPTY);
        if !empty {
            densify(&mut values);
        }
        Signature { values, empty }
    }
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

/// Every pair `(i, j, similarity)` with `i < j` and similarity at least `threshold`, sorted.
/// `None` entries take no part.
pub fn pairs(sigs: &[Option<Signature>], threshold: f64) -> Vec<(usize, usize, f64)> {
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    for band in 0..BANDS {
        let mut buckets: HashMap<&[u64], Vec<usize>> = HashMap::new();
        for (i, sig) in sigs.iter().enumerate() {
            if let Some(sig) = sig.as_ref().filter(|s| !s.empty) {
                let key = &sig.values[band * ROWS..(band + 1) * ROWS];
                buckets.entry(key).or_default().push(i);
            }
        }
        for members in buckets.values().filter(|m| m.len() > 1) {
            for (k, &i) in members.iter().enumerate() {
                candidates.extend(members[k + 1..].iter().map(|&j| (i, j)));
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    candidates
        .into_iter()
        .filter_map(|(i, j)| {
            let s = similarity(sigs[i].as_ref()?, sigs[j].as_ref()?);
            (s >= threshold).then_some((i, j, s))
        })
        .collect()
}

fn shingle_hash(window: &[u64; SHINGLE]) -> u64 {
    let mut h = SEED;
    for &t in window {
        h = mix(h ^ t);
    }
    h
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

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F)
}

/// Lower-cased word tokens; each CJK character is a token.
fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        loop {
            let (start, c) = chars.next()?;
            if is_cjk(c) {
                return Some(c.to_string());
            }
            if !c.is_alphanumeric() {
                continue;
            }
            let mut end = start + c.len_utf8();
            while let Some(&(i, d)) = chars.peek() {
                if !d.is_alphanumeric() || is_cjk(d) {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            return Some(text[start..end].to_lowercase());
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "Supabase mutation deadlocks after a tab switch because the SDK guards the \
                     session with Web Locks; use fetch against the REST API instead of the client.";

    #[test]
    fn identical_text_is_one_and_stable() {
        assert_eq!(Signature::of(A), Signature::of(A));
        assert_eq!(similarity(&Signature::of(A), &Signature::of(A)), 1.0);
        // Case and punctuation do not matter.
        let b = A.to_uppercase().replace(';', ",");
        assert_eq!(similarity(&Signature::of(A), &Signature::of(&b)), 1.0);
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
    fn cjk_is_tokenized_per_character() {
        let t: Vec<String> = tokens("React Query 在tab切换后死锁").collect();
        assert_eq!(
            t,
            ["react", "query", "在", "tab", "切", "换", "后", "死", "锁"]
        );
        let a = Signature::of("浏览器端 supabase 在 tab 切换后死锁,必须用 fetch 调 REST API");
        let b =
            Signature::of("浏览器端 supabase 在 tab 切换后死锁,必须用 fetch() 调 REST API 接口");
        assert!(similarity(&a, &b) > 0.7);
    }

    #[test]
    fn empty_text_matches_nothing() {
        assert_eq!(similarity(&Signature::of(""), &Signature::of("")), 0.0);
        assert!(similarity(&Signature::of("one"), &Signature::of("one")) > 0.99);
    }

    #[test]
    fn pairs_finds_exactly_the_close_pair() {
        let edited = A.replace("tab switch", "tab change");
        let sigs = vec![
            Some(Signature::of(A)),
            Some(Signature::of(
                "an unrelated note about billing invoices and coupons in stripe",
            )),
            None,
            Some(Signature::of(&edited)),
        ];
        let found = pairs(&sigs, 0.5);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0, found[0].1), (0, 3));
    }
}
