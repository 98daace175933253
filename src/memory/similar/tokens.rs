//! The tokens a signature is made of, as ids: runs of letters and digits, lower-cased, and each
//! CJK character on its own (CJK text has no spaces between words). Anything else separates.

use super::SEED;

/// Calls `f` with the id of each token of `text`, in order: a word's id is [`TokenHash`] of
/// its lower-cased UTF-8 bytes, a CJK character's is [`cjk_id`] of its code point.
pub(super) fn each_token_id(text: &str, mut f: impl FnMut(u64)) {
    let mut word: Option<TokenHash> = None;
    for c in text.chars() {
        if is_word_char(c) {
            let hash = word.get_or_insert_with(TokenHash::new);
            if c.is_ascii() {
                hash.push(c.to_ascii_lowercase() as u8);
            } else {
                let mut utf8 = [0u8; 4];
                for lower in c.to_lowercase() {
                    lower
                        .encode_utf8(&mut utf8)
                        .bytes()
                        .for_each(|b| hash.push(b));
                }
            }
            continue;
        }
        if let Some(hash) = word.take() {
            f(hash.finish());
        }
        if is_cjk(c) {
            f(cjk_id(c));
        }
    }
    if let Some(hash) = word {
        f(hash.finish());
    }
}

/// Whether `c` belongs to a word token: a letter or digit that is not CJK.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric()
    } else {
        !is_cjk(c) && c.is_alphanumeric()
    }
}

/// CJK ideographs (with extensions and compatibility forms), kana and hangul syllables.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3040..=0x30FF | 0x3400..=0x4DBF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F)
}

/// A CJK character's token id: its code point, spread (the shingle hash mixes it further).
fn cjk_id(c: char) -> u64 {
    (u64::from(c as u32) ^ 0x00c3_1c3a).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A word token's id: its lower-cased UTF-8 bytes taken 8 at a time (little-endian, the last
/// word zero-padded: a token holds no NUL), one multiply-rotate step per word. Ids only need
/// to differ (the shingle hash spreads them), not be uniform.
struct TokenHash {
    h: u64,
    word: u64,
    shift: u32,
}

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
        self.h = (self.h ^ self.word)
            .wrapping_mul(TokenHash::MUL)
            .rotate_left(29);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<u64> {
        let mut out = Vec::new();
        each_token_id(text, |id| out.push(id));
        out
    }

    /// The id of one token, written out: a CJK character's, or a word's from its bytes.
    fn id(token: &str) -> u64 {
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

    #[test]
    fn words_are_lower_cased_and_cjk_is_one_token_per_character() {
        let want = |tokens: &[&str]| tokens.iter().map(|t| id(t)).collect::<Vec<_>>();
        assert_eq!(
            ids("React Query 在tab切换后死锁"),
            want(&["react", "query", "在", "tab", "切", "换", "后", "死", "锁"])
        );
        assert_eq!(
            ids("Ünïcode café2 ДА — x_y-z 42 "),
            want(&["ünïcode", "café2", "да", "x", "y", "z", "42"])
        );
        assert_eq!(
            ids("混合mixed文本text。标点，符号！"),
            want(&[
                "混", "合", "mixed", "文", "本", "text", "标", "点", "符", "号"
            ])
        );
        // Lower-casing is per character (`İ` becomes two characters), and the Kelvin sign K
        // is the letter k.
        assert_eq!(
            ids("İstanbul \u{212A}EY ǅungla"),
            want(&["i\u{307}stanbul", "key", "ǆungla"])
        );
        assert_eq!(ids(""), want(&[]));
        // Words longer than one 8-byte step.
        assert_eq!(
            ids("internationalization ABCDEFGHIJKLMNOPQ"),
            want(&["internationalization", "abcdefghijklmnopq"])
        );
    }

    /// The ids are part of every signature, so of every similarity `near-duplicate` reports:
    /// pinned, so that a change to them is a decision, not an accident.
    #[test]
    fn ids_are_stable() {
        assert_eq!(
            ids("Deploy 在 naïve"),
            [
                3182072660463829353,
                1791268347423613050,
                17194190726241622810
            ]
        );
    }
}
