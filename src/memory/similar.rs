//! Near-duplicate detection: MinHash signatures over word shingles, with a fixed-seed hash
//! (splitmix64 over word-at-a-time token ids), so the same library always gives the same pairs. No model, no network.
//!
//! Text is cut into tokens (runs of letters or digits, lower-cased; each CJK character is a
//! token of its own, since CJK text has no spaces), tokens into overlapping shingles of
//! [`SHINGLE`] tokens, and the shingle set into a [`BINS`]-value signature by one-permutation
//! hashing with rotation densification (one hash per shingle instead of one per shingle and
//! permutation; tokens get a cheap word-at-a-time id, shingles a fixed-seed mix of their ids). The
//! share of equal values estimates the Jaccard similarity of the two
//! shingle sets. [`pairs`] finds the pairs above a threshold with LSH banding, so a 20,000-file
//! library is not compared pair by pair.

use rayon::prelude::*;

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
        Signature::of_parts(&[text])
    }

    /// The signature of the concatenation of `parts` (each part ends a token), without
    /// copying them into one string.
    pub fn of_parts(parts: &[&str]) -> Signature {
        let mut values = [EMPTY; BINS];
        let mut window = [0u64; SHINGLE];
        let mut n = 0usize;
        for part in parts {
            each_token_id(part, |id| {
                window.rotate_left(1);
                window[SHINGLE - 1] = id;
                n += 1;
                if n >= SHINGLE {
                    let h = shingle_hash(&window);
                    let bin = (h >> 58) as usize; // top 6 bits pick one of 64 bins
                    let v = h & ((1 << 58) - 1);
                    if v < values[bin] {
                        values[bin] = v;
                    }
                }
            });
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

/// Every pair `(i, j, similarity)` with `i < j` and similarity at least `threshold`, sorted.
/// `None` entries take no part.
pub fn pairs(sigs: &[Option<Signature>], threshold: f64) -> Vec<(usize, usize, f64)> {
    let live: Vec<(usize, &Signature)> = sigs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().filter(|s| !s.empty).map(|s| (i, s)))
        .collect();
    // Bands are independent: each is keyed and sorted on its own thread.
    let mut candidates: Vec<(usize, usize)> = (0..BANDS)
        .into_par_iter()
        .flat_map_iter(|band| {
            // Sort by a hash of the band instead of a hash map: equal bands end up adjacent (a
            // hash collision only adds a candidate, which the exact comparison below drops).
            let mut keyed: Vec<(u64, usize)> = live
                .iter()
                .map(|&(i, s)| {
                    let key = s.values[band * ROWS..(band + 1) * ROWS]
                        .iter()
                        .fold(band as u64, |h, &v| mix(h ^ v));
                    (key, i)
                })
                .collect();
            keyed.sort_unstable();
            let mut found = Vec::new();
            for run in keyed.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1) {
                for (k, &(_, i)) in run.iter().enumerate() {
                    found.extend(run[k + 1..].iter().map(|&(_, j)| (i, j)));
                }
            }
            found
        })
        .collect();
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

/// The shingle's hash: its token ids combined position by position (odd multipliers, so
/// `a b c` and `c b a` differ) with the fixed seed, through splitmix64's finalizer. A tenth of
/// the cost of xxh3 over the 24 bytes, and as uniform for MinHash (a test checks the bins).
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

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F)
}

/// Calls `f` with each lower-cased word token (the reference for [`each_token_id`]) of `text`: runs of letters and digits, and each
/// CJK character on its own. `buf` is scratch space, so a token costs no allocation (and an
/// all-lowercase ASCII word is not even copied).
#[cfg(test)]
fn each_token(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let word_char = |c: char| !is_cjk(c) && c.is_alphanumeric();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let c = if b < 0x80 {
            b as char
        } else {
            text[i..].chars().next().unwrap_or(' ')
        };
        if !word_char(c) {
            let start = i;
            i += c.len_utf8();
            if is_cjk(c) {
                f(&text[start..i]);
            }
            continue;
        }
        let start = i;
        let mut plain = true;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                if !b.is_ascii_alphanumeric() {
                    break;
                }
                plain &= !b.is_ascii_uppercase();
                i += 1;
            } else {
                let d = text[i..].chars().next().unwrap_or(' ');
                if !word_char(d) {
                    break;
                }
                plain = false;
                i += d.len_utf8();
            }
        }
        let word = &text[start..i];
        if plain {
            f(word);
        } else {
            buf.clear();
            buf.extend(word.chars().flat_map(char::to_lowercase));
            f(buf);
        }
    }
}

/// A CJK character's token id: its code point, spread (no byte hashing: CJK text is one
/// token per character, the most tokens per byte of any script).
fn cjk_id(c: char) -> u64 {
    (u64::from(c as u32) ^ 0x00c3_1c3a).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The id of one token as [`each_token`] gives it: [`cjk_id`] for a CJK character, else
/// [`TokenHash`] of its (lower-cased) bytes. The reference for [`each_token_id`].
#[cfg(test)]
fn token_id(token: &str) -> u64 {
    let mut chars = token.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if is_cjk(c) => cjk_id(c),
        _ => {
            let mut h = TokenHash::new();
            token.bytes().for_each(|b| h.push(b));
            h.finish()
        }
    }
}

/// A word token's id: its lower-cased UTF-8 bytes taken 8 at a time (little-endian, the last
/// word zero-padded: a token holds no NUL), one multiply-rotate step per word. A byte-at-a-time
/// hash (FNV-1a) is a chain of one multiply per byte, the cost of the whole scan; this is one
/// per 8 bytes. Ids only need to differ (the shingle hash spreads them), not be uniform.
struct TokenHash {
    h: u64,
    word: u64,
    shift: u32,
}

/// `| 0x20` on each byte lower-cases an ASCII letter and leaves a digit as it is.
const LOWER: u64 = 0x2020_2020_2020_2020;

impl TokenHash {
    const MUL: u64 = 0x9fb2_1c65_1e98_df25;

    fn new() -> TokenHash {
        TokenHash {
            h: SEED,
            word: 0,
            shift: 0,
        }
    }

    /// Pushes a run of ASCII letters and digits, lower-cased: whole words at once when the
    /// token is at a word boundary (as it is unless non-ASCII letters came first).
    fn push_ascii(&mut self, run: &[u8]) {
        let mut rest = run;
        if self.shift == 0 {
            let mut words = run.chunks_exact(8);
            for w in &mut words {
                self.word = u64::from_le_bytes(w.try_into().expect("8 bytes")) | LOWER;
                self.step();
            }
            rest = words.remainder();
        }
        for &b in rest {
            self.push(b | 0x20);
        }
    }

    fn push(&mut self, b: u8) {
        self.word |= u64::from(b) << self.shift;
        self.shift += 8;
        if self.shift == 64 {
            self.step();
        }
    }

    fn step(&mut self) {
        self.h = (self.h ^ self.word).wrapping_mul(Self::MUL).rotate_left(29);
        self.word = 0;
        self.shift = 0;
    }

    fn finish(mut self) -> u64 {
        if self.shift > 0 {
            self.step();
        }
        self.h
    }
}

/// What a byte is to the token scan.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    /// An ASCII byte that is no letter or digit: ends a token.
    Separator,
    /// An ASCII letter or digit.
    Word,
    /// A byte of a non-ASCII character (decoded on the slow path).
    Other,
}

const fn classes() -> [Class; 256] {
    let mut t = [Class::Separator; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c >= 0x80 {
            Class::Other
        } else if c.is_ascii_alphanumeric() {
            Class::Word
        } else {
            Class::Separator
        };
        b += 1;
    }
    t
}
static CLASS: [Class; 256] = classes();

/// The hot path of [`each_token`]: calls `f` with [`token_id`] of each token, hashing while
/// scanning (no copy). A token of ASCII letters and digits only (nearly every token of text in
/// a script with spaces) is found with a table and hashed 8 bytes at a time; a token holding
/// other characters takes the character-by-character path. A test checks both give the ids of
/// the reference.
fn each_token_id(text: &str, mut f: impl FnMut(u64)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        let class = CLASS[usize::from(bytes[i])];
        if class == Class::Separator {
            i += 1;
            continue;
        }
        let start = i;
        if class == Class::Word {
            while i < n && CLASS[usize::from(bytes[i])] == Class::Word {
                i += 1;
            }
            if i == n || CLASS[usize::from(bytes[i])] == Class::Separator {
                f(ascii_token_id(&bytes[start..i]));
                continue;
            }
            // A non-ASCII letter goes on: the whole token takes the slow path.
            i = start;
        }
        i = slow_token(text, i, &mut f);
    }
}

/// [`TokenHash`] of an ASCII token, lower-cased: whole 8-byte words, the last zero-padded.
fn ascii_token_id(token: &[u8]) -> u64 {
    let mut h = TokenHash::new();
    h.push_ascii(token);
    h.finish()
}

/// The token (or separator character) at byte `i`, character by character: gives `f` its id
/// and returns where the scan goes on.
fn slow_token(text: &str, mut i: usize, f: &mut impl FnMut(u64)) -> usize {
    let bytes = text.as_bytes();
    let mut h = TokenHash::new();
    let mut any = false;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if !b.is_ascii_alphanumeric() {
                break;
            }
            h.push(b | 0x20);
            any = true;
            i += 1;
            continue;
        }
        let c = decode_at(bytes, i);
        if is_cjk(c) {
            if !any {
                // A CJK character is a token of its own.
                f(cjk_id(c));
                i += c.len_utf8();
            }
            break;
        }
        if !c.is_alphanumeric() {
            if !any {
                i += c.len_utf8();
            }
            break;
        }
        let mut utf8 = [0u8; 4];
        for l in c.to_lowercase() {
            l.encode_utf8(&mut utf8).bytes().for_each(|u| h.push(u));
        }
        any = true;
        i += c.len_utf8();
    }
    if any {
        f(h.finish());
    }
    i
}

/// The character starting at byte `i` of valid UTF-8 (`i` at a character boundary, not ASCII).
fn decode_at(bytes: &[u8], i: usize) -> char {
    let b0 = u32::from(bytes[i]);
    let cont = |k: usize| u32::from(bytes[i + k] & 0x3f);
    let cp = if b0 < 0xe0 {
        ((b0 & 0x1f) << 6) | cont(1)
    } else if b0 < 0xf0 {
        ((b0 & 0x0f) << 12) | (cont(1) << 6) | cont(2)
    } else {
        ((b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3)
    };
    char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(text, &mut String::new(), |t| out.push(t.to_owned()));
    out
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
        let t = tokens("React Query 在tab切换后死锁");
        assert_eq!(
            t,
            ["react", "query", "在", "tab", "切", "换", "后", "死", "锁"]
        );
        assert_eq!(tokens("Ünïcode café2 ДА"), ["ünïcode", "café2", "да"]);
    }

    #[test]
    fn hot_path_ids_equal_token_hashes() {
        for text in [
            "React Query 在tab切换后死锁,必须用 fetch() 调 REST API",
            "Ünïcode café2 ДА — x_y-z 42 ",
            "混合mixed文本text。标点，符号！",
            "",
            "ǅungla İstanbul ß",
            "internationalization abcdefgh abcdefghijklmnop ABCDEFGHIJKLMNOPQ straße naïveté",
            "\u{212A}ey key KEY — Ǆ ǆ",
        ] {
            let mut ids = Vec::new();
            each_token_id(text, |h| ids.push(h));
            let want: Vec<u64> = tokens(text).iter().map(|t| token_id(t)).collect();
            assert_eq!(ids, want, "{text}");
        }
        let a = Signature::of("浏览器端 supabase 在 tab 切换后死锁,必须用 fetch 调 REST API");
        let b =
            Signature::of("浏览器端 supabase 在 tab 切换后死锁,必须用 fetch() 调 REST API 接口");
        assert!(similarity(&a, &b) > 0.7);
    }

    proptest::proptest! {
        #[test]
        fn hot_path_ids_equal_the_reference_on_any_text(
            text in "([a-zA-Z0-9]{0,20}|[ .,_\\-]|[àÄß\u{212A}ǅİ]|[在切换]|[—。！]|\\PC)*",
        ) {
            let mut ids = Vec::new();
            each_token_id(&text, |h| ids.push(h));
            let want: Vec<u64> = tokens(&text).iter().map(|t| token_id(t)).collect();
            proptest::prop_assert_eq!(ids, want);
        }
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
