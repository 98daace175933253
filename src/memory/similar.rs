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
//! library is not compared pair by pair, over each signature's [`Sketch`] (a byte per value):
//! only the files of the few pairs the sketches cannot rule out get their whole signature again.

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
/// The odd multiplier of the band keys: the values are hashes already, so one multiply per value
/// is enough to make the key's top bits depend on every bit of the band (and one per key of a
/// sketch's band, [`band_key`]).
const BAND_MUL: u64 = 0x9e37_79b9_7f4a_7c15;
/// No file (an empty slot, the end of a chain).
const NONE: u32 = u32::MAX;

/// A MinHash signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    values: [u64; BINS],
    /// The LSH key of each band of `values`: two signatures are a pair of [`pairs`] only when
    /// they share one.
    keys: [u64; BANDS],
    /// No shingle at all (empty or one-token text).
    empty: bool,
}

/// What the audit keeps of a memory's signature from the load to the pairing: the low byte of
/// each value, 65 bytes instead of a [`Signature`]'s 616 (20,000 signatures were 12 MB of fresh
/// pages, a quarter of the audit's page faults). Equal values have equal bytes, so two
/// signatures sharing a band have sketches sharing it too, and the share of equal bytes is at
/// least the share of equal values: [`pairs`] finds the candidates and rules most out on the
/// sketches, and compares the whole signatures of the rest (found again) exactly as before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sketch {
    bytes: [u8; BINS],
    /// The signature is empty (no shingle): it pairs with nothing.
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
        thread_local! {
            /// The token ids of the text, reused from call to call on a thread.
            static IDS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        // Taken out of the thread's slot while it fills: pushed to in place, its length and
        // end were loaded from and stored to thread-local memory at every token.
        let mut ids = IDS.with_borrow_mut(std::mem::take);
        ids.clear();
        for part in parts {
            each_token_id(part, |id| ids.push(id));
        }
        let signature = Signature::of_ids(&ids);
        IDS.set(ids);
        signature
    }

    /// The signature of a token id sequence. Tokens first, shingles after: two tight loops run
    /// faster than one that does both.
    fn of_ids(ids: &[u64]) -> Signature {
        let mut values = [EMPTY; BINS];
        for window in ids.windows(SHINGLE) {
            let h = shingle_hash(&[window[0], window[1], window[2]]);
            let bin = (h >> 58) as usize; // top 6 bits pick one of 64 bins
            values[bin] = values[bin].min(h & ((1 << 58) - 1));
        }
        if (1..SHINGLE).contains(&ids.len()) {
            // Short text: the whole token run, zero-padded in front, is the one shingle.
            let mut window = [0u64; SHINGLE];
            window[SHINGLE - ids.len()..].copy_from_slice(ids);
            let h = shingle_hash(&window);
            values[(h >> 58) as usize] = h & ((1 << 58) - 1);
        }
        let empty = values.iter().all(|&v| v == EMPTY);
        if !empty {
            densify(&mut values);
        }
        Signature::of_values(values, empty)
    }

    /// The signature's [`Sketch`].
    pub fn sketch(&self) -> Sketch {
        Sketch {
            bytes: self.values.map(|v| v as u8),
            empty: self.empty,
        }
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
/// without text). The audit's load finds its sketch as it reads each file
/// ([`MemFile::sketch`]).
///
/// [`MemFile::sketch`]: super::file::MemFile::sketch
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

/// Every pair `(i, j, similarity)` with `i < j`, sharing a band and of similarity at least
/// `threshold`, sorted. `None` entries take no part. `signature(i)` gives the whole signature
/// of the file whose sketch is `sketches[i]` (found again from its text).
///
/// The candidates are the pairs of sketches sharing a band (every pair of signatures sharing
/// one, and rarely another); a candidate whose sketches' share of equal bytes is below the
/// threshold is dropped (its values' share is no more); the files of the rest get their whole
/// signatures, and a pair is kept when those share a band and are similar enough: the pairs of
/// whole signatures, with the same similarities (a test checks it against the plain
/// definition, [`pairs_plain`]). On the 20,000 files of the benchmark library, 24,000
/// candidates, and no file found again.
///
/// The bands are independent of each other, so they are split over the thread pool (each job
/// with a table of its own), and so are the sort of their candidates and the comparisons: the
/// pairing does not run on one thread while the others idle. The candidates are sorted and
/// deduplicated whatever band found them first, so the pairs are in the same order.
pub fn pairs(
    sketches: &[Option<&Sketch>],
    threshold: f64,
    signature: impl Fn(usize) -> Option<Signature> + Sync,
) -> Vec<(usize, usize, f64)> {
    let (live, bytes): (Vec<usize>, Vec<[u8; BINS]>) = sketches
        .par_iter()
        .enumerate()
        .filter_map(|(i, s)| s.filter(|s| !s.empty).map(|s| (i, s.bytes)))
        .unzip();
    assert!(live.len() < NONE as usize, "a file's place fits a u32");
    // A job per few bands: enough jobs for a busy thread to leave its share to another, few
    // enough that a table (twice as many slots as files) is not filled more often than needed.
    let per_job = BANDS.div_ceil(2 * rayon::current_num_threads()).max(1);
    let mut candidates: Vec<(usize, usize)> = (0..BANDS)
        .into_par_iter()
        .with_min_len(per_job)
        .fold(
            || (BandTable::new(live.len()), Vec::new()),
            |(mut table, mut out), band| {
                table.candidates(&bytes, band, &mut |a, b| out.push((live[a], live[b])));
                (table, out)
            },
        )
        .map(|(_, out)| out)
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        });
    candidates.par_sort_unstable();
    candidates.dedup();
    let share = |i: usize, j: usize| match (sketches[i], sketches[j]) {
        (Some(a), Some(b)) => share(&a.bytes, &b.bytes),
        _ => 0.0,
    };
    candidates.retain(|&(i, j)| share(i, j) >= threshold);
    // Each file of the pairs left, found again once.
    let mut files: Vec<usize> = candidates.iter().flat_map(|&(i, j)| [i, j]).collect();
    files.par_sort_unstable();
    files.dedup();
    let whole: Vec<Option<Signature>> = files
        .par_iter()
        .map(|&i| {
            let whole = signature(i);
            debug_assert_eq!(whole.as_ref().map(Signature::sketch).as_ref(), sketches[i]);
            whole
        })
        .collect();
    let whole = |i: usize| files.binary_search(&i).ok().and_then(|k| whole[k].as_ref());
    candidates
        .into_par_iter()
        .filter_map(|(i, j)| {
            let (a, b) = (whole(i)?, whole(j)?);
            let s = similarity(a, b);
            (share_band(a, b) && s >= threshold).then_some((i, j, s))
        })
        .collect()
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

/// The plain definition of [`pairs`], on whole signatures: every two of them, compared (the
/// reference it is tested against).
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

    /// Calls `found(earlier, later)` with the places (in `sketches`) of every two files whose
    /// sketches have the same bytes in `band`, the later one second.
    fn candidates(
        &mut self,
        sketches: &[[u8; BINS]],
        band: usize,
        found: &mut impl FnMut(usize, usize),
    ) {
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
                    // Every earlier file of the group is a candidate with this one.
                    let mut other = *last;
                    while other != NONE {
                        found(other as usize, place);
                        other = next[other as usize];
                    }
                    (next[place], *last) = (*last, place as u32);
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
    }
}

/// The key of a sketch's `band`: its 5 bytes times an odd number (one to one, so keys are
/// equal exactly when the bytes are, and the top bits, which pick the slot, depend on all).
#[inline]
fn band_key(sketch: &[u8; BINS], band: usize) -> u64 {
    let mut word = [0u8; 8];
    word[..ROWS].copy_from_slice(&sketch[band * ROWS..(band + 1) * ROWS]);
    u64::from_le_bytes(word).wrapping_mul(BAND_MUL)
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
    is_cjk_code(c as u32)
}

/// [`is_cjk`] of a code point, the CJK Unified Ideographs tested first (the most common by far).
#[inline]
fn is_cjk_code(cp: u32) -> bool {
    cp.wrapping_sub(0x4E00) <= 0x9FFF - 0x4E00
        || matches!(cp,
            0x3040..=0x30FF | 0x3400..=0x4DBF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
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
    cjk_code_id(c as u32)
}

/// [`cjk_id`] of a code point.
#[inline]
fn cjk_code_id(cp: u32) -> u64 {
    (u64::from(cp) ^ 0x00c3_1c3a).wrapping_mul(0x9e37_79b9_7f4a_7c15)
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

    fn push(&mut self, b: u8) {
        self.word |= u64::from(b) << self.shift;
        self.shift += 8;
        if self.shift == 64 {
            self.step();
        }
    }

    fn step(&mut self) {
        self.h = TokenHash::step_word(self.h, self.word);
        self.word = 0;
        self.shift = 0;
    }

    /// One step: the hash `h` after the (lower-cased, zero-padded) 8-byte word `word`.
    #[inline]
    fn step_word(h: u64, word: u64) -> u64 {
        (h ^ word).wrapping_mul(TokenHash::MUL).rotate_left(29)
    }

    fn finish(mut self) -> u64 {
        if self.shift > 0 {
            self.step();
        }
        self.h
    }
}

/// One byte of value 1, and the high bit, in each byte of a word.
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The 8 bytes of `bytes` at `i`, little-endian, zero past the end (NUL is a separator).
#[inline]
fn word_at(bytes: &[u8], i: usize) -> u64 {
    match bytes.get(i..i + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
        None => {
            let tail = bytes.get(i..).unwrap_or_default();
            let mut w = [0u8; 8];
            w[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(w)
        }
    }
}

/// The high bit of each byte of `w` that is an ASCII letter or digit, all 8 bytes at once
/// (SWAR): see [`letter_or_digit`]; bytes with their own high bit set (non-ASCII) are dropped.
#[inline]
fn alnum_mask(w: u64) -> u64 {
    letter_or_digit(w) & !w & HIGH
}

/// Bit 7 of each byte whose low 7 bits are an ASCII letter or digit (other bits are noise): on
/// the low 7 bits, `x + (0x80 - lo)` sets bit 7 exactly when `x >= lo`, and no sum carries into
/// the next byte.
#[inline]
fn letter_or_digit(w: u64) -> u64 {
    let x = w & !HIGH;
    let at_least = |x: u64, lo: u8| x + ONES * u64::from(0x80 - lo);
    let above = |x: u64, hi: u8| x + ONES * u64::from(0x7f - hi);
    let digit = at_least(x, b'0') & !above(x, b'9');
    let letter = at_least(x | LOWER, b'a') & !above(x | LOWER, b'z');
    digit | letter
}

/// The high bits of the 8 bytes of `m` (only high bits set) as 8 bits, byte `k` at bit `k`: the
/// multiplier moves bit `8k + 7` to bit `56 + k`, and no two products meet.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn gather(m: u64) -> u64 {
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Of the 64 bytes at `base` (zero past the end): one bit per ASCII letter or digit or
/// non-ASCII byte (the bytes of segments), and one per non-ASCII byte ([`block_masks_swar`]),
/// 16 bytes at a time with SSE2 (every x86-64 has it): a compare per bound and one `movemask`
/// per 16 bytes, where the words take a dozen operations and a multiply per 8 bytes.
#[cfg(target_arch = "x86_64")]
#[inline]
fn block_masks(bytes: &[u8], base: usize) -> (u64, u64) {
    // SAFETY: SSE2 is part of x86-64 itself: every x86-64 CPU has it (the compiler enables it
    // for the whole program, but calls a function marked with a target feature unsafe anyway).
    unsafe { block_masks_sse2(bytes, base) }
}

/// [`block_masks`] with SSE2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn block_masks_sse2(bytes: &[u8], base: usize) -> (u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpgt_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x,
        _mm_set1_epi8, _mm_xor_si128,
    };
    // SSE2 compares signed bytes: flipping the top bit of both sides orders them unsigned.
    let flip = |v: __m128i| _mm_xor_si128(v, _mm_set1_epi8(i8::MIN));
    let bound = |b: u8| _mm_set1_epi8((b ^ 0x80) as i8);
    let within = |x: __m128i, lo: u8, hi: u8| {
        _mm_and_si128(
            _mm_cmpgt_epi8(x, bound(lo - 1)),
            _mm_cmpgt_epi8(bound(hi + 1), x),
        )
    };
    let (mut live, mut high) = (0u64, 0u64);
    for k in 0..4 {
        let at = base + 16 * k;
        let v = _mm_set_epi64x(word_at(bytes, at + 8) as i64, word_at(bytes, at) as i64);
        let digit = within(flip(v), b'0', b'9');
        let letter = within(flip(_mm_or_si128(v, _mm_set1_epi8(0x20))), b'a', b'z');
        let h = u64::from(_mm_movemask_epi8(v) as u16);
        let l = u64::from(_mm_movemask_epi8(_mm_or_si128(digit, letter)) as u16) | h;
        live |= l << (16 * k);
        high |= h << (16 * k);
    }
    (live, high)
}

/// [`block_masks_swar`] where SSE2 is not at hand.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn block_masks(bytes: &[u8], base: usize) -> (u64, u64) {
    block_masks_swar(bytes, base)
}

/// Of the 64 bytes at `base` (zero past the end): one bit per ASCII letter or digit or
/// non-ASCII byte (the bytes of segments), and one per non-ASCII byte. The second mask is
/// gathered only when the block holds a non-ASCII byte. Word by word (SWAR), on any target;
/// x86-64 classifies 16 bytes at a time ([`block_masks`]).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn block_masks_swar(bytes: &[u8], base: usize) -> (u64, u64) {
    let (mut live, mut any_high) = (0, 0);
    for k in 0..8 {
        let w = word_at(bytes, base + 8 * k);
        live |= gather((letter_or_digit(w) | w) & HIGH) << (8 * k);
        any_high |= w;
    }
    if any_high & HIGH == 0 {
        return (live, 0);
    }
    let mut high = 0;
    for k in 0..8 {
        high |= gather(word_at(bytes, base + 8 * k) & HIGH) << (8 * k);
    }
    (live, high)
}

/// The hot path of [`each_token`]: calls `f` with [`token_id`] of each token, hashing while
/// scanning (no copy). The text is classified 64 bytes at a time into bit masks ([`block_masks`]),
/// so finding where a token starts and ends is bit arithmetic, not a byte loop whose every step
/// waits on the last. A run of letters, digits and non-ASCII bytes between ASCII separators is a
/// *segment*; a segment of ASCII letters and digits (nearly every token of text in a script with
/// spaces) is one token, hashed a word at a time ([`ascii_id`]); any other segment goes
/// character by character ([`mixed_segment`]). Tests check both give the ids of the reference.
fn each_token_id(text: &str, mut f: impl FnMut(u64)) {
    let bytes = text.as_bytes();
    let mut base = 0;
    'blocks: while base < bytes.len() {
        // `base` is never inside a segment: the scan starts at 0 and resumes after a segment.
        let (live, high) = block_masks(bytes, base);
        let mut starts = live & !(live << 1);
        // A segment reaching the end of the block may go on past it: the next block starts
        // there (once per block, not a test per segment).
        let top = (!live).leading_zeros();
        if top == 64 {
            // One segment fills the block: find its end word by word.
            let mut end = base + 64;
            loop {
                let w = word_at(bytes, end);
                let stop = !(alnum_mask(w) | (w & HIGH)) & HIGH;
                end += (stop.trailing_zeros() / 8) as usize;
                if stop != 0 {
                    break;
                }
            }
            segment(text, base, end, &mut f);
            base = end;
            continue 'blocks;
        }
        starts &= u64::MAX >> top;
        while starts != 0 {
            let s = starts.trailing_zeros();
            starts &= starts - 1;
            let len = (!(live >> s)).trailing_zeros();
            let start = base + s as usize;
            if (high >> s) & ((1 << len) - 1) == 0 {
                f(ascii_id(bytes, start, len as usize));
            } else {
                mixed_segment(text, start, start + len as usize, &mut f);
            }
        }
        base += 64 - top as usize;
    }
}

/// The tokens of the segment `start..end` (a maximal run without ASCII separators).
fn segment(text: &str, start: usize, end: usize, f: &mut impl FnMut(u64)) {
    if text.as_bytes()[start..end].is_ascii() {
        f(ascii_id(text.as_bytes(), start, end - start));
    } else {
        mixed_segment(text, start, end, f);
    }
}

/// [`TokenHash`] of the `len` ASCII letters and digits at `start`, lower-cased: whole 8-byte
/// words, the last zero-padded.
#[inline]
fn ascii_id(bytes: &[u8], mut start: usize, mut len: usize) -> u64 {
    if len <= 8 {
        // Nearly every word: one step, one test of the length (`len` is at least 1).
        let w = (word_at(bytes, start) | LOWER) & (u64::MAX >> (64 - 8 * len));
        return TokenHash::step_word(SEED, w);
    }
    let mut h = SEED;
    while len >= 8 {
        h = TokenHash::step_word(h, word_at(bytes, start) | LOWER);
        start += 8;
        len -= 8;
    }
    if len > 0 {
        let w = (word_at(bytes, start) | LOWER) & (u64::MAX >> (64 - 8 * len));
        h = TokenHash::step_word(h, w);
    }
    h
}

/// The tokens of a segment holding non-ASCII bytes, character by character: a CJK character is
/// a token, another non-ASCII letter joins the letters and digits around it (the slow path,
/// [`slow_token`]), any other character separates.
fn mixed_segment(text: &str, mut i: usize, end: usize, f: &mut impl FnMut(u64)) {
    let bytes = text.as_bytes();
    while i < end {
        if bytes[i] >= 0x80 {
            if let Some(cp) = three_byte_at(bytes, i) {
                // Nearly every character of CJK text: answered from the code point alone.
                if is_cjk_code(cp) {
                    f(cjk_code_id(cp));
                    i += 3;
                    continue;
                }
                if is_common_punctuation_code(cp) {
                    i += 3;
                    continue;
                }
            }
            let c = decode_at(bytes, i);
            if is_cjk(c) {
                f(cjk_id(c));
            } else if is_alphanumeric(c) {
                i = slow_token(text, i, f);
                continue;
            }
            i += c.len_utf8();
            continue;
        }
        let run = bytes[i..end]
            .iter()
            .position(|&b| b >= 0x80)
            .unwrap_or(end - i);
        if i + run < end && is_word_char(decode_at(bytes, i + run)) {
            // A non-ASCII letter goes on: the whole token takes the slow path.
            i = slow_token(text, i, f);
        } else {
            f(ascii_id(bytes, i, run));
            i += run;
        }
    }
}

/// Whether `c` continues a word token (a CJK character is a token of its own).
fn is_word_char(c: char) -> bool {
    !is_cjk(c) && is_alphanumeric(c)
}

/// `c.is_alphanumeric()`, answered without the Unicode tables for the punctuation that text in
/// CJK and other scripts puts between words (a test checks these ranges against the tables).
fn is_alphanumeric(c: char) -> bool {
    !is_common_punctuation(c) && c.is_alphanumeric()
}

/// The middle dot, General Punctuation (dashes, quotes), the CJK symbols `、。〃〈〉「」…`
/// and the full-width ASCII punctuation: none is a letter or digit.
fn is_common_punctuation(c: char) -> bool {
    is_common_punctuation_code(c as u32)
}

/// [`is_common_punctuation`] of a code point.
#[inline]
fn is_common_punctuation_code(cp: u32) -> bool {
    matches!(cp,
        0xB7 | 0x2000..=0x206F | 0x3000..=0x3004 | 0x3008..=0x3020 | 0xFF01..=0xFF0F
        | 0xFF1A..=0xFF20)
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
        if !is_alphanumeric(c) {
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

/// The code point of the 3-byte character at byte `i` of valid UTF-8 (`i` at a character
/// boundary), `None` when the character there has another length. No `char` is built: a lead
/// byte `1110xxxx` and its two continuation bytes `10xxxxxx` always make a code point of
/// U+0800 to U+FFFF outside the surrogates (every CJK character but the rare ideographs of the
/// supplementary planes, and the punctuation of CJK text).
#[inline]
fn three_byte_at(bytes: &[u8], i: usize) -> Option<u32> {
    match *bytes.get(i..i + 3)? {
        [b0, b1, b2] if b0 & 0xf0 == 0xe0 => {
            Some((u32::from(b0 & 0x0f) << 12) | (u32::from(b1 & 0x3f) << 6) | u32::from(b2 & 0x3f))
        }
        _ => None,
    }
}
#[inline]
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
            text in "([a-zA-Z0-9]{0,20}|[a-z]{60,70}|[ .,_\\-]|[\\x00-\\x1f\\x7f@\\[`{/:]|[àÄß\u{212A}ǅİ]|[在切换]|[在切换あ가。]{20,30}|[—。！]|[\u{3005}\u{3021}\u{4DC0}\u{D7B0}\u{1E00}\u{20000}]|\\PC)*",
        ) {
            let mut ids = Vec::new();
            each_token_id(&text, |h| ids.push(h));
            let want: Vec<u64> = tokens(&text).iter().map(|t| token_id(t)).collect();
            proptest::prop_assert_eq!(ids, want);
        }
    }

    proptest::proptest! {
        #[test]
        fn block_masks_equal_the_words_ones(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            base in 0usize..200,
        ) {
            let base = base.min(bytes.len());
            let (live, high) = block_masks(&bytes, base);
            let (swar_live, swar_high) = block_masks_swar(&bytes, base);
            proptest::prop_assert_eq!((live, high), (swar_live, swar_high));
        }
    }

    #[test]
    fn three_byte_code_points_are_the_chars() {
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            let want = (bytes.len() == 3).then_some(c as u32);
            assert_eq!(three_byte_at(bytes, 0), want, "{c:?}");
        }
    }

    #[test]
    fn common_punctuation_is_no_letter_or_digit() {
        let punctuation: Vec<char> = (0..=0x10_ffff)
            .filter_map(char::from_u32)
            .filter(|&c| is_common_punctuation(c))
            .collect();
        assert_eq!(punctuation.len(), 0xb7 - 0xb6 + 0x70 + 5 + 0x19 + 0xf + 7);
        assert!(punctuation.iter().all(|c| !c.is_alphanumeric()));
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

    proptest::proptest! {
        /// Signatures whose values come from a few, so that bands and whole signatures are
        /// often equal (and pairs have every similarity), some `None` or empty; and values
        /// that differ often have the same low byte, so sketches share bands and bytes their
        /// signatures do not.
        #[test]
        fn pairs_of_sketches_equal_the_plain_pairs(
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
            let sketches: Vec<Option<Sketch>> =
                sigs.iter().map(|s| s.as_ref().map(Signature::sketch)).collect();
            let sketches: Vec<Option<&Sketch>> = sketches.iter().map(Option::as_ref).collect();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
            let found = pool.install(|| pairs(&sketches, threshold, |i| sigs[i].clone()));
            let sigs: Vec<Option<&Signature>> = sigs.iter().map(Option::as_ref).collect();
            proptest::prop_assert_eq!(found, pairs_plain(&sigs, threshold));
        }
    }

    #[test]
    fn the_audits_load_finds_each_memorys_own_signature() {
        let dir = tempfile::tempdir().unwrap();
        let entry =
            |d: &str, b: &str| format!("---\nname: a\ndescription: {d}\ntype: user\n---\n{b}\n");
        for (name, text) in [
            ("MEMORY.md", "- [a](user_a.md): tab switch\n".to_owned()),
            ("user_a.md", entry("tab switch deadlock", A)),
            (
                "user_b.md",
                entry(
                    "浏览器端 supabase 在 tab 切换后死锁",
                    "必须用 fetch 调 REST API",
                ),
            ),
            ("user_c.md", "no frontmatter, one line of text".to_owned()),
            ("user_d.md", "---\nbroken: [\n---\nbody".to_owned()),
            ("user_e.md", String::new()),
            ("reference_db_hub.md", entry("hub", A)),
        ] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        std::fs::write(dir.path().join("user_f.md"), b"bad \xff utf-8").unwrap();
        let config = crate::config::Config::default;
        let loaded = crate::memory::Library::load_for_audit(dir.path(), config(), None).unwrap();
        let plain = crate::memory::Library::load_configured(dir.path(), config(), None).unwrap();
        assert_eq!(loaded.files.len(), 8);
        for (f, p) in loaded.files.iter().zip(&plain.files) {
            let own = of_memory(f).map(|s| s.sketch());
            assert_eq!(f.sketch(), own.as_ref(), "{}", f.rel);
            assert_eq!(p.sketch(), None, "{}", p.rel);
        }
        let with: Vec<&str> = (loaded.files.iter())
            .filter(|f| f.sketch().is_some())
            .map(|f| f.rel.as_str())
            .collect();
        assert_eq!(
            with,
            [
                "user_a.md",
                "user_b.md",
                "user_c.md",
                "user_d.md",
                "user_e.md"
            ]
        );
        // Not when the rule is off.
        let mut off = config();
        off.audit.disable = vec![crate::config::RuleName {
            name: "near-duplicate".to_owned(),
            span: 0..0,
        }];
        let off = crate::memory::Library::load_for_audit(dir.path(), off, None).unwrap();
        assert!(off.files.iter().all(|f| f.sketch().is_none()));
    }

    #[test]
    fn pairs_finds_exactly_the_close_pair() {
        let edited = A.replace("tab switch", "tab change");
        let sigs = [
            Some(Signature::of(A)),
            Some(Signature::of(
                "an unrelated note about billing invoices and coupons in stripe",
            )),
            None,
            Some(Signature::of(&edited)),
        ];
        let sketches: Vec<Option<Sketch>> = sigs
            .iter()
            .map(|s| s.as_ref().map(Signature::sketch))
            .collect();
        let sketches: Vec<Option<&Sketch>> = sketches.iter().map(Option::as_ref).collect();
        let found = pairs(&sketches, 0.5, |i| sigs[i].clone());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0, found[0].1), (0, 3));
    }
}
