//! Credentials written out in plain words, found line by line: a password assignment, a
//! `user / password` pair beside a word that says so, a URL carrying `user:password@`, and a
//! long hex or base64 token beside a key word. Each pattern skips what looks alike but is not
//! a secret: placeholders (`<password>`, `${DB_PASS}`, `***`, `see 1Password`), config names
//! (`PASSWORD_MIN_LENGTH=12`), prose ("never change passwords"), UUIDs, and hashes beside the
//! words that name them (commit, sha256, checksum, oid …).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// Words after which a value is a password: whole words in scripts with spaces, any
/// occurrence in those without.
const PASSWORD: &str = r"(?:(?:^|[^\p{L}\p{N}_])(?:password|passwd|passphrase|pwd|pass|mot de passe|contraseña|passwort|wachtwoord|mật khẩu)|密码|密碼|口令|비밀번호|암호|パスワード)";

/// A password assignment: `password=…`, `pwd: …`, `"passwd": "…"`.
static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"(?i){PASSWORD}["']?\s*(?:=|:|：|(?-u:\b)is(?-u:\b))\s*["'`]?([^\s"'`,;，；]+)"#
    ))
    .expect("valid regex")
});

/// Words that say a line holds a login.
static LOGIN_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:credentials?|logins?|log-in|sign-in|account|username|user)(?-u:\b)|账号|帳號|凭据|계정|アカウント")
        .expect("valid regex")
});

/// `user / password` (spaces around the slash) or `Credentials: user:password`.
static PAIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([^\s/:]{2,})\s+/\s+(\S+)|(?i:credentials?)\s*[:：]\s*([^\s/:]{2,}):(\S+)")
        .expect("valid regex")
});

/// `scheme://user:password@host`.
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.-]*://([^\s:/@]+):([^\s@/]+)@").expect("valid regex")
});

/// Words after which a long token is a secret.
static KEY_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:token|secret|api[_ -]?key|apikey|access[_ -]?key|private[_ -]?key|(?-u:\b)key(?-u:\b)|cookie|session|bearer|authorization|(?-u:\b)auth(?-u:\b)|credential|password|密钥|令牌|토큰|키|トークン|シークレット)")
        .expect("valid regex")
});

/// Words that name a hash: a hex run beside them is not a secret.
static HASH_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:commit|sha\d*|md5|checksum|digest|oid|hash|fingerprint|integrity|revision|rev|etag|blake\d*)(?-u:\b)")
        .expect("valid regex")
});

/// A long run of token characters.
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/=_-]{32,}").expect("valid regex"));

/// A UUID (8-4-4-4-12 hex digits).
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        .expect("valid regex")
});

/// The literals every password, URL and user/password match holds (the gates of
/// [`find_in_line`] but the long token run), `pass`/`pwd` in every ASCII case and the longer words
/// in lower, Capitalized and UPPER case. Literals only, so the regex engine searches for them
/// all at once with SIMD.
static TRIGGER: LazyLock<Regex> = LazyLock::new(|| {
    let mut words: Vec<String> = Vec::new();
    for w in ["credential", "contrase", "wachtwoord", "mật khẩu"] {
        let cap: String = w[..1].to_uppercase() + &w[1..];
        words.extend([w.to_owned(), cap, w.to_uppercase()]);
    }
    words.extend(
        [
            "://",
            " / ",
            "密码",
            "密碼",
            "口令",
            "비밀번호",
            "암호",
            "パスワード",
        ]
        .map(String::from),
    );
    let literals: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    // ASCII case only (`-u`): Unicode case folding would add `ſ` for `s`, and a set that is
    // not all literals needs the regex engine's automaton behind the literal search.
    Regex::new(&format!("(?i-u:pass|pwd)|{}", literals.join("|"))).expect("valid regex")
});

/// `(byte range, kind)` of each plaintext credential in `text`, found line by line on the lines
/// [`find_in_line`] can match at all: those holding a [`TRIGGER`] literal or a long token run
/// (a key word alone, `token` or `session`, is common prose; a token after it is not).
pub(super) fn find(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut word = TRIGGER.find(text).map(|m| m.start());
    let mut run = long_run_at_or_after(bytes, 0);
    while let Some(at) = [word, run].into_iter().flatten().min() {
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |k| k + 1);
        let Some(end) = memchr::memchr(b'\n', &bytes[at..]).map(|k| at + k) else {
            out.extend(shifted(start, text[start..].trim_end_matches('\r')));
            break;
        };
        out.extend(shifted(start, text[start..end].trim_end_matches('\r')));
        // Each search runs again only once the line it found is passed.
        let next = end + 1;
        if word.is_some_and(|w| w < next) {
            word = TRIGGER.find_at(text, next).map(|m| m.start());
        }
        if run.is_some_and(|r| r < next) {
            run = long_run_at_or_after(bytes, next);
        }
    }
    out
}

/// [`find_in_line`] on the line starting at byte `start`, its ranges in the whole text.
fn shifted(start: usize, line: &str) -> impl Iterator<Item = (Range<usize>, &'static str)> {
    find_in_line(line)
        .into_iter()
        .map(move |(r, kind)| (start + r.start..start + r.end, kind))
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
static TOKEN_BYTE: [bool; 256] = token_bytes();
/// The shortest run of [`TOKEN_BYTE`]s [`has_long_run`] counts.
const LONG_RUN: usize = 32;

/// The start of the first run of [`LONG_RUN`] or more token bytes that starts at or after
/// `from` (a line start). Such a run covers three whole 8-byte words at offsets that are
/// multiples of 8, so only every third word is tested (most are ruled out by a space, a line
/// break or a non-ASCII byte, 8 bytes at once), and the run is measured around a word that
/// passes.
fn long_run_at_or_after(bytes: &[u8], from: usize) -> Option<usize> {
    let mut k = from.next_multiple_of(8);
    while k + 8 <= bytes.len() {
        let word: &[u8; 8] = bytes[k..k + 8].try_into().expect("8 bytes");
        if !all_token(word) {
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

/// Whether all 8 bytes are [`TOKEN_BYTE`]s: a space, a line break or a non-ASCII byte rules
/// the word out first (tested on the whole word at once), then each byte is looked up.
fn all_token(word: &[u8; 8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let w = u64::from_le_bytes(*word);
    let has = |b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    w & HIGH == 0 && !has(b' ') && !has(b'\n') && word.iter().all(|&b| TOKEN_BYTE[usize::from(b)])
}

/// `(byte range in the line, kind)` of each plaintext credential in `line`. Byte scans decide
/// first which patterns can match at all, so the regexes run on few lines.
pub(super) fn find_in_line(line: &str) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    let password_word = PASSWORD_WORD.is_match(line);
    let url = line.contains("://") && line.contains('@');
    let pair = line.contains(" / ") || CREDENTIAL.is_match(line);
    let long_run = has_long_run(line);
    if !(password_word || url || pair || long_run) {
        return out;
    }
    for c in ASSIGNED.captures_iter(line).filter(|_| password_word) {
        let v = c.get(1).expect("group 1");
        if looks_like_password(trim_value(v.as_str())) {
            out.push((v.range(), "a password"));
        }
    }
    for c in URL.captures_iter(line).filter(|_| url) {
        let pass = c.get(2).expect("group 2");
        if !is_placeholder(pass.as_str()) {
            out.push((pass.range(), "a password in a URL"));
        }
    }
    if out.is_empty() && pair && LOGIN_WORD.is_match(line) {
        for c in PAIR.captures_iter(line) {
            let (user, pass) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
                (Some(u), Some(p), _, _) | (_, _, Some(u), Some(p)) => (u, p),
                _ => continue,
            };
            let pass_text = trim_value(pass.as_str());
            if is_user(user.as_str()) && looks_like_password(pass_text) && strong(pass_text) {
                out.push((pass.range(), "a user name and password"));
            }
        }
    }
    if let Some(word) = KEY_WORD.find(line).filter(|_| long_run) {
        let hash_named = HASH_WORD.is_match(line);
        for t in TOKEN.find_iter(&line[word.end()..]) {
            let token = t.as_str().trim_end_matches('=');
            let hex = token.bytes().all(|b| b.is_ascii_hexdigit());
            let secret = if hex {
                !hash_named && token.len() >= 32
            } else {
                !UUID.is_match(t.as_str()) && base64_like(token)
            };
            if secret {
                let at = word.end() + t.start();
                out.push((at..at + t.len(), "a token"));
            }
        }
    }
    out.sort_by_key(|(r, _)| r.start);
    out.dedup_by(|a, b| a.0.start < b.0.end && b.0.start < a.0.end);
    out
}

/// A password word anywhere on a line (a cheap test before [`ASSIGNED`]).
static PASSWORD_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i:pass|pwd|contrase|wachtwoord|mật khẩu)|密码|密碼|口令|비밀번호|암호|パスワード",
    )
    .expect("valid regex")
});

/// `credential` in any case.
static CREDENTIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)credential").expect("valid regex"));

/// Whether `line` holds a run of 32 or more token characters (what a key or hash looks like).
fn has_long_run(line: &str) -> bool {
    let mut run = 0;
    for &b in line.as_bytes() {
        if TOKEN_BYTE[usize::from(b)] {
            run += 1;
            if run >= LONG_RUN {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

fn trim_value(v: &str) -> &str {
    v.trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '.' | ',' | ';' | ')' | '(' | '*'))
}

/// A value that is a password, not a placeholder, a reference or a word.
fn looks_like_password(v: &str) -> bool {
    v.chars().count() >= 6 && !is_placeholder(v) && !v.contains("://")
}

/// A password that is not an ordinary word: letters and digits, or a symbol, or mixed case.
fn strong(v: &str) -> bool {
    let digits = v.chars().any(|c| c.is_ascii_digit());
    let letters = v.chars().any(char::is_alphabetic);
    let symbol = v.chars().any(|c| !c.is_alphanumeric());
    let upper = v.chars().any(char::is_uppercase);
    let lower = v.chars().any(char::is_lowercase);
    v.chars().count() >= 8 && letters && (digits || symbol || (upper && lower))
}

/// A user name: an e-mail address or a login-like word, not a path or a number.
fn is_user(u: &str) -> bool {
    let u = u.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '(' | '*'));
    u.len() >= 2
        && u.chars().any(char::is_alphabetic)
        && u.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '@' | '.' | '_' | '-' | '+'))
}

/// Base64 or URL-safe base64 of a real key: mixed case and digits.
fn base64_like(t: &str) -> bool {
    t.len() >= 32
        && t.bytes().any(|b| b.is_ascii_uppercase())
        && t.bytes().any(|b| b.is_ascii_lowercase())
        && t.bytes().any(|b| b.is_ascii_digit())
        && !t.contains("//")
}

/// Values that stand for a secret without being one.
fn is_placeholder(v: &str) -> bool {
    let l = v.to_lowercase();
    let l = l.trim_matches(|c: char| !c.is_alphanumeric() && c != '$' && c != '<' && c != '{');
    l.is_empty()
        || v.starts_with(['<', '$', '{', '%', '['])
        || v.contains("${")
        || v.contains("{{")
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•' | '-' | '…'))
        || l.starts_with("env")
        || l.starts_with("process.env")
        || l.contains("1password")
        || l.contains("vault")
        || l.contains("keychain")
        || l.contains("redacted")
        || matches!(
            l,
            "password"
                | "passwd"
                | "secret"
                | "changeme"
                | "example"
                | "dummy"
                | "placeholder"
                | "your-password"
                | "yourpassword"
                | "none"
                | "null"
                | "empty"
                | "n/a"
                | "required"
                | "optional"
                | "hidden"
                | "unknown"
                | "same"
                | "see"
                | "ask"
                | "stored"
                | "set"
                | "not"
                | "never"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

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

        #[test]
        fn checking_candidate_lines_finds_what_checking_every_line_finds(
            text in "(password=|pwd: |PASS is |Credentials: |user / |token |key |://|@|:|\\.|a1B2c3D4e5F6g7H8|ZZZZ|x|/|-|=| |\t|\n|\r\n|密码：|비밀번호 )*",
        ) {
            let mut slow = Vec::new();
            let mut start = 0;
            for line in text.split_inclusive('\n') {
                let l = line.trim_end_matches('\n').trim_end_matches('\r');
                slow.extend(shifted(start, l));
                start += line.len();
            }
            proptest::prop_assert_eq!(find(&text), slow);
        }
    }

    fn kinds(line: &str) -> Vec<&'static str> {
        find_in_line(line).into_iter().map(|(_, k)| k).collect()
    }

    #[test]
    fn plaintext_credentials() {
        assert_eq!(
            kinds("login: user=admin@example.test, pwd=Winter2026!staging"),
            ["a password"]
        );
        assert_eq!(
            kinds("password=correct-horse-battery-staple"),
            ["a password"]
        );
        assert_eq!(kinds("数据库密码：Zq8!rT5pLm"), ["a password"]);
        assert_eq!(
            kinds("Primary: postgres://svc_app:Xk9mQ2vPl7rT@db.staging.internal:5432/app"),
            ["a password in a URL"]
        );
        assert_eq!(
            kinds("Credentials: ops-vendor / T7#pq9LwZ2xv"),
            ["a user name and password"]
        );
        assert_eq!(
            kinds(
                "- [Dev app login credentials](reference_dev-login.md) — admin@example.test / Winter2026!staging on dev"
            ),
            ["a user name and password"]
        );
        assert_eq!(
            kinds(
                "session cookie: 4b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c"
            ),
            ["a token"]
        );
        assert_eq!(
            kinds("api_key: dGhpcy1pcy1ub3QtYS1yZWFsLWtleS1mb3ItY2NtZW0tdGVzdHM="),
            ["a token"]
        );
    }

    #[test]
    fn look_alikes_are_not_secrets() {
        for clean in [
            "Read replica: postgres://readonly@db-ro.staging.internal:5432/app (IAM auth, no password)",
            "Never change passwords in the DB; ask the user if credentials are needed.",
            "**How to apply:** `PASSWORD_MIN_LENGTH=12` is enforced; the reset flow is `/api/v1/password/reset`.",
            "Fixed in commit 3f2c1a9e8b7d6c5f4a3b2c1d0e9f8a7b6c5d4e3f (ledger rounding).",
            "Tarball sha256: 9a3d5e7f1b2c4d6e8f0a1b3c5d7e9f2a4b6c8d0e1f3a5b7c9d2e4f6a8b0c1d3e",
            "Pilot A tenant id: 7c9e6679-7425-40de-944b-e07fc1f90ae7",
            "originSessionId: 9bcb5645-bb7a-4eb5-8136-ff774166a95e",
            "Platform engineer. All secrets live in 1Password (vault Platform).",
            "Token budget: 25,000 tokens per request; the summarizer trims to 20,000.",
            "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393",
            "password: see 1Password, item \"Staging\"",
            "password=${DB_PASSWORD}",
            "DB_PASS=<your password>",
            "the password is stored in the keychain",
            "user / admin roles: read / write",
            "login flow: dev / staging / production",
            "postgres://user:password@localhost/db",
            "session key: src/main/java/com/example/session/SessionKeyResolver.java",
        ] {
            assert!(kinds(clean).is_empty(), "{clean}: {:?}", kinds(clean));
        }
    }
}
