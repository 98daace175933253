//! The one pass over a file that decides where the checks run: one SIMD literal search
//! (aho-corasick's Teddy) for fingerprints of every word and prefix a check needs, and one
//! sampled scan for long token runs. Most files hold neither, and then no regex runs at all.
//!
//! Each fingerprint is a necessary condition of what it stands for, never the thing itself:
//! [`Gates`] may say a check can match where it cannot (the check then finds nothing), never
//! the reverse. The regexes fold case the Unicode way (`(?i)`), where `s` also matches `ſ`
//! (U+017F) and `k` matches `K` (U+212A), so the fingerprints carry every ASCII case of
//! their letters and an `ſ` where a word has an `s`. The tests hold both: the Unicode case
//! classes of the regexes' letters, and every check on every line of many texts against
//! [`super::find`] (which checks only what the scan found).

use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use aho_corasick::packed::{Config, Searcher};

use super::plaintext::Gates;

/// What a fingerprint stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A password word (`pass`, `pwd`, `wachtwoord`, `密码` …).
    Password,
    /// `ras` of `contrase`: a password word when `cont` is before it and `e` after.
    Contrase,
    /// `://`: a URL with a password needs an `@` on the line; a Slack webhook starts here.
    Url,
    /// ` / ` of a `user / password` pair.
    Pair,
    /// `ede` of `credential`, checked around it.
    Credential,
    /// A vendor key's prefix that is not inside a long token run.
    Vendor,
}

/// Every ASCII case of `word` (its other bytes as they are).
fn ascii_cases(word: &str) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for &b in word.as_bytes() {
        let cases = if b.is_ascii_alphabetic() {
            vec![b.to_ascii_lowercase(), b.to_ascii_uppercase()]
        } else {
            vec![b]
        };
        out = out
            .iter()
            .flat_map(|p| {
                cases.iter().map(move |&c| {
                    let mut q = p.clone();
                    q.push(c);
                    q
                })
            })
            .collect();
    }
    out
}

/// The fingerprints and their kinds.
///
/// - `pas` covers `pass`/`password`/`passwd`/`passphrase`/`mot de passe`/`passwort` (and
///   `pasſ`), `aſ` the forms with an `ſ` for the first `s` of `pass` and of `contrase`;
///   `htw` stands for `wachtwoord`, `ẩu` for `mật khẩu` (its `k` may be `K`, so it is not in
///   the fingerprint).
/// - The vendor prefixes are those of the keys shorter than a long run (AWS key ids, Slack
///   tokens, Stripe keys) and the private key header; every other vendor key is a long run
///   holding one of [`KEY_IN_RUN`] (or, for an AWS secret key, after its name), and the
///   Slack webhook starts after a `://`.
fn fingerprints() -> Vec<(Vec<u8>, Kind)> {
    let mut out: Vec<(Vec<u8>, Kind)> = Vec::new();
    let mut add = |words: Vec<Vec<u8>>, kind| out.extend(words.into_iter().map(|w| (w, kind)));
    let exact =
        |words: &[&str]| -> Vec<Vec<u8>> { words.iter().map(|w| w.as_bytes().to_vec()).collect() };
    add(ascii_cases("pas"), Kind::Password);
    add(ascii_cases("pwd"), Kind::Password);
    add(ascii_cases("htw"), Kind::Password);
    add(ascii_cases("aſ"), Kind::Password);
    add(exact(&["ẩu", "ẩU", "Ẩu", "ẨU"]), Kind::Password);
    // From each word's first character's last two bytes on: the first character alone is
    // common in its script (`口` of `接口`, `密` of `密钥`), with the next one's first byte it
    // is not.
    add(
        ["密码", "密碼", "口令", "비밀번호", "암호", "パスワード"]
            .iter()
            .map(|w| w.as_bytes()[1..].to_vec())
            .collect(),
        Kind::Password,
    );
    add(ascii_cases("ras"), Kind::Contrase);
    add(ascii_cases("ede"), Kind::Credential);
    add(exact(&["://"]), Kind::Url);
    add(exact(&[" / "]), Kind::Pair);
    add(
        exact(&["AKIA", "ASIA", "xox", "k_live_", "KEY-----"]),
        Kind::Vendor,
    );
    out
}

/// The low nibbles of a pattern's first 3 bytes: Teddy's group of patterns (one bucket).
fn group(pattern: &[u8]) -> [u8; 3] {
    [pattern[0] & 0xF, pattern[1] & 0xF, pattern[2] & 0xF]
}

/// The groups of [`fingerprints`], by one pattern of each, in the order Teddy is given them. It
/// gives each new group the bucket of its first pattern's index modulo 16, so the 17th to 20th
/// groups share the buckets of the first four: never an ASCII group (its mix with another
/// would let through common ASCII words), but non-ASCII groups whose mixes are rare byte
/// sequences. Only speed depends on this order, never what is found.
const BUCKETS: [&[u8]; 20] = [
    "ẩu".as_bytes(),
    "密码".as_bytes().split_at(1).1,
    "비밀번호".as_bytes().split_at(1).1,
    "パスワード".as_bytes().split_at(1).1,
    b"pas",
    b"pwd",
    b"htw",
    b"ras",
    b"ede",
    b"://",
    b" / ",
    b"AKIA",
    b"ASIA",
    b"xox",
    b"k_live_",
    b"KEY-----",
    "Ẩu".as_bytes(),
    "口令".as_bytes().split_at(1).1,
    "암호".as_bytes().split_at(1).1,
    "aſ".as_bytes(),
];

/// The Teddy searcher over [`fingerprints`] (one pattern of each group first, in the order of
/// [`BUCKETS`]), and each pattern's kind.
static SEARCHER: LazyLock<(Searcher, Vec<Kind>)> = LazyLock::new(|| {
    let rank = |p: &[u8]| {
        BUCKETS
            .iter()
            .position(|b| group(b) == group(p))
            .expect("every group has a bucket")
    };
    let mut patterns = fingerprints();
    let mut seen = Vec::new();
    let (mut firsts, rest): (Vec<_>, Vec<_>) = patterns.drain(..).partition(|(p, _)| {
        let new = !seen.contains(&group(p));
        seen.push(group(p));
        new
    });
    firsts.sort_by_key(|(p, _)| rank(p));
    let patterns: Vec<(Vec<u8>, Kind)> = firsts.into_iter().chain(rest).collect();
    let searcher = Config::new()
        .heuristic_pattern_limits(false)
        .builder()
        .extend(patterns.iter().map(|p| &p.0))
        .build()
        .expect("valid fingerprints");
    (searcher, patterns.into_iter().map(|p| p.1).collect())
});

/// The prefixes of the vendor keys written as one long token run, each in every such key
/// ([`super::PATTERNS`]: Anthropic, OpenAI, GitHub, npm, PyPI, Google).
static KEY_IN_RUN: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::new([
        "sk-",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "npm_",
        "pypi-",
        "AIza",
    ])
    .expect("valid prefixes")
});

/// What [`scan`] found in one file.
pub(super) struct Scan {
    /// A vendor pattern but the AWS secret key's can match somewhere in the file.
    pub(super) vendor: bool,
    /// The file holds a long run of token bytes (the AWS secret key's pattern needs one).
    pub(super) long_run: bool,
    /// Each line a plaintext check can match (without its line break), and which can.
    pub(super) lines: Vec<(Range<usize>, Gates)>,
}

/// The lines of `text` a plaintext check can match, and whether a vendor pattern can.
pub(super) fn scan(text: &str) -> Scan {
    let bytes = text.as_bytes();
    let (searcher, kinds) = &*SEARCHER;
    let find = |from: usize| searcher.find_in(bytes, aho_corasick::Span::from(from..bytes.len()));
    let mut word = find(0);
    let mut run = long_run_at_or_after(bytes, 0);
    let mut out = Scan {
        vendor: false,
        long_run: run.is_some(),
        lines: Vec::new(),
    };
    while let Some(at) = [word.map(|m| m.start()), run].into_iter().flatten().min() {
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |k| k + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k);
        let next = end + 1;
        let line = &bytes[start..end];
        let mut gates = Gates {
            long_run: run.is_some_and(|r| r < next),
            ..Gates::default()
        };
        out.vendor |= gates.long_run && KEY_IN_RUN.is_match(line);
        while let Some(m) = word.filter(|m| m.start() < next) {
            let (s, e) = (m.start(), m.end());
            match kinds[m.pattern().as_usize()] {
                Kind::Password => gates.password = true,
                Kind::Contrase => {
                    gates.password |= ascii_ci_before(bytes, s, b"cont")
                        && bytes.get(e).is_some_and(|b| b.eq_ignore_ascii_case(&b'e'));
                }
                Kind::Url => {
                    gates.url |= memchr::memchr(b'@', line).is_some();
                    out.vendor |= bytes[e..].starts_with(b"hooks.slack.com");
                }
                Kind::Pair => gates.slash = true,
                Kind::Credential => {
                    gates.credential |= ascii_ci_before(bytes, s, b"cr")
                        && bytes
                            .get(e..e + 5)
                            .is_some_and(|t| t.eq_ignore_ascii_case(b"ntial"));
                }
                Kind::Vendor => out.vendor = true,
            }
            // The next search starts one byte on, so that no fingerprint hides another.
            word = find(s + 1);
        }
        if gates != Gates::default() {
            out.lines.push((start..end, gates));
        }
        if next >= bytes.len() {
            break;
        }
        if run.is_some_and(|r| r < next) {
            run = long_run_at_or_after(bytes, next);
        }
    }
    out
}

/// Whether the bytes just before `at` are `word` in any ASCII case.
fn ascii_ci_before(bytes: &[u8], at: usize, word: &[u8]) -> bool {
    at.checked_sub(word.len())
        .is_some_and(|s| bytes[s..at].eq_ignore_ascii_case(word))
}

/// The bytes a key or hash is written with (`[A-Za-z0-9+/=_-]`).
const fn token_bytes() -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-');
        b += 1;
    }
    t
}
pub(super) static TOKEN_BYTE: [bool; 256] = token_bytes();
/// The shortest run of [`TOKEN_BYTE`]s that counts as long.
pub(super) const LONG_RUN: usize = 32;

/// The start of the first run of [`LONG_RUN`] or more token bytes that starts at or after
/// `from` (a line start). Such a run covers three whole 8-byte words at offsets that are
/// multiples of 8, so only every third word is tested (most are ruled out by a space, a line
/// break, punctuation or a non-ASCII byte, 8 bytes at once); a word that passes is part of such a run only
/// if a neighbour passes too, and only then is the run measured byte by byte.
fn long_run_at_or_after(bytes: &[u8], from: usize) -> Option<usize> {
    let word_at = |k: usize| -> Option<&[u8; 8]> { bytes.get(k..k + 8)?.try_into().ok() };
    let mut k = from.next_multiple_of(8);
    while let Some(word) = word_at(k) {
        let neighbour = |k: Option<usize>| {
            k.filter(|&k| k >= from)
                .and_then(word_at)
                .is_some_and(all_token)
        };
        if !all_token(word) || !(neighbour(k.checked_sub(8)) || neighbour(Some(k + 8))) {
            k += 24;
            continue;
        }
        let mut s = k;
        while s > from && TOKEN_BYTE[usize::from(bytes[s - 1])] {
            s -= 1;
        }
        let mut e = k + 8;
        while e < bytes.len() && TOKEN_BYTE[usize::from(bytes[e])] {
            e += 1;
        }
        if e - s >= LONG_RUN {
            return Some(s);
        }
        // Any other run starts after this one: the sampling starts again there.
        k = e.next_multiple_of(8);
    }
    None
}

/// Whether all 8 bytes are [`TOKEN_BYTE`]s: a byte below `+` (space, line break, most
/// punctuation) or above `z` (non-ASCII) rules the word out first, tested on the whole word at
/// once, then each byte is looked up.
fn all_token(word: &[u8; 8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let w = u64::from_le_bytes(*word);
    // A byte's high bit is set where it is below `+` (an ASCII byte less `+` wraps below 0),
    // or above `z` (`z` plus the rest to 127 crosses 127), or already.
    let below = w.wrapping_sub(ONES * u64::from(b'+')) & !w;
    let above = (w & !HIGH).wrapping_add(ONES * u64::from(127 - b'z')) | w;
    (below | above) & HIGH == 0 && word.iter().all(|&b| TOKEN_BYTE[usize::from(b)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The characters `(?i)` matches for `c`, as the regex crate folds case.
    fn case_class(c: char) -> Vec<char> {
        let hir = regex_syntax::parse(&format!("(?i){c}")).expect("valid");
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) =
            hir.kind()
        else {
            return vec![c];
        };
        class.iter().flat_map(|r| r.start()..=r.end()).collect()
    }

    #[test]
    fn every_group_has_its_own_bucket_but_the_planned_pairs() {
        let mut groups: Vec<[u8; 3]> = fingerprints().iter().map(|(p, _)| group(p)).collect();
        groups.sort_unstable();
        groups.dedup();
        let mut planned: Vec<[u8; 3]> = BUCKETS.iter().map(|b| group(b)).collect();
        planned.sort_unstable();
        assert_eq!(groups, planned);
    }

    #[test]
    fn fingerprints_hold_every_case_of_their_letters() {
        // The letters the fingerprints and their checks spell in ASCII cases only: none has a
        // case partner outside ASCII, but `s` (`ſ`, in the fingerprints) and `k` (`K`, in
        // none of them: `mật khẩu` is found by `ẩu`).
        for c in "pascwdhtreonliuy".chars() {
            let mut want = vec![c.to_ascii_uppercase(), c];
            if c == 's' {
                want.push('ſ');
            }
            want.sort_unstable();
            assert_eq!(case_class(c), want, "{c}");
        }
        assert_eq!(case_class('ẩ'), ['Ẩ', 'ẩ']);
        let patterns: Vec<Vec<u8>> = fingerprints().into_iter().map(|f| f.0).collect();
        for word in ["pas", "pwd", "htw", "ras", "ede"] {
            for case in ascii_cases(word) {
                assert!(patterns.contains(&case), "{word}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn sampled_words_find_the_first_long_run(
            text in "([a-zA-Z0-9+/=_-]{0,40}|[ .\n]|é|密)*",
            from in 0usize..64,
        ) {
            let bytes = text.as_bytes();
            let from = from.min(bytes.len());
            // The reference: every position, every run.
            let mut want = None;
            let mut k = from;
            while k < bytes.len() {
                let len = bytes[k..].iter().take_while(|&&b| TOKEN_BYTE[usize::from(b)]).count();
                let starts = k == from || !TOKEN_BYTE[usize::from(bytes[k - 1])];
                if starts && len >= LONG_RUN {
                    want = Some(k);
                    break;
                }
                k += len.max(1);
            }
            proptest::prop_assert_eq!(long_run_at_or_after(bytes, from), want);
        }
    }
}
