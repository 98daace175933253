//! Credentials written out in plain words, found line by line: a password assignment, a
//! `user / password` pair beside a word that says so, a URL carrying `user:password@`, and a
//! long hex or base64 token beside a key word. Each pattern skips what looks alike but is not
//! a secret: placeholders (`<password>`, `${DB_PASS}`, `***`, `see 1Password`), config names
//! (`PASSWORD_MIN_LENGTH=12`), prose ("never change passwords"), UUIDs, and hashes beside the
//! words that name them (commit, sha256, checksum, oid …). The regexes run only on the lines
//! [`super::scan`] found, and only those whose [`Gates`] say they can match there.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::scan::{LONG_RUN, TOKEN_BYTE};

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

/// The kind of a `user / password` pair.
const PAIR_KIND: &str = "a user name and password";

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

/// Which checks of [`find_in_line`] can match a line at all: cheap necessary conditions, found
/// for a whole file at once by [`super::scan`], or by [`Gates::of`] for one line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Gates {
    /// A password word ([`PASSWORD_WORD`]).
    pub(super) password: bool,
    /// `://` and an `@`.
    pub(super) url: bool,
    /// ` / `. This gate and the next are part of the check itself (a `user / password` pair is
    /// looked for only beside one of them), so they are exact, never wider.
    pub(super) slash: bool,
    /// `credential`, in any case.
    pub(super) credential: bool,
    /// A run of [`LONG_RUN`] or more token bytes.
    pub(super) long_run: bool,
}

#[cfg(test)]
impl Gates {
    /// The gates of `line`, read from the line itself: what the tests check every line with.
    pub(super) fn of(line: &str) -> Gates {
        Gates {
            password: PASSWORD_WORD.is_match(line),
            url: line.contains("://") && line.contains('@'),
            slash: line.contains(" / "),
            credential: CREDENTIAL.is_match(line),
            long_run: has_long_run(line),
        }
    }
}

/// `(byte range, kind)` of each plaintext credential on the given lines of `text` (each with
/// what can match on it, as [`super::scan`] found).
pub(super) fn find(
    text: &str,
    lines: &[(Range<usize>, Gates)],
) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    for (range, gates) in lines {
        let line = text[range.clone()].trim_end_matches('\r');
        out.extend(
            find_gated::<true>(line, *gates)
                .into_iter()
                .map(|(r, kind)| (range.start + r.start..range.start + r.end, kind)),
        );
    }
    out
}

/// `(byte range in the line, kind)` of each plaintext credential in `line`: every regex its
/// gates let through, none skipped by a cheaper test (what the tests hold the fast path to).
#[cfg(test)]
pub(super) fn find_in_line(line: &str) -> Vec<(Range<usize>, &'static str)> {
    find_gated::<false>(line, Gates::of(line))
}

/// The plaintext credentials in `line`, with the gates given: each may be set where the line's
/// own is not (the check behind it then finds nothing), never the reverse. With `QUICK`, a
/// regex is also skipped where a byte test shows it cannot report anything.
fn find_gated<const QUICK: bool>(line: &str, gates: Gates) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    let Gates {
        password: password_word,
        url,
        long_run,
        ..
    } = gates;
    let pair = gates.slash || gates.credential;
    if !(password_word || url || pair || long_run) {
        return out;
    }
    // Each regex runs only where its gate is open (a gate after the regex, as in
    // `captures_iter(line).filter(..)`, would run the regex on every line anyway).
    if password_word && (!QUICK || has_separator(line)) {
        for c in ASSIGNED.captures_iter(line) {
            let v = c.get(1).expect("group 1");
            if looks_like_password(trim_value(v.as_str())) {
                out.push((v.range(), "a password"));
            }
        }
    }
    if url {
        for c in URL.captures_iter(line) {
            let pass = c.get(2).expect("group 2");
            if !is_placeholder(pass.as_str()) {
                out.push((pass.range(), "a password in a URL"));
            }
        }
    }
    if out.is_empty()
        && pair
        && (!QUICK || gates.credential || slashed_password(line))
        && LOGIN_WORD.is_match(line)
    {
        for c in PAIR.captures_iter(line) {
            let (user, pass) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
                (Some(u), Some(p), _, _) | (_, _, Some(u), Some(p)) => (u, p),
                _ => continue,
            };
            let pass_text = trim_value(pass.as_str());
            if is_user(user.as_str()) && looks_like_password(pass_text) && not_a_word(pass_text) {
                out.push((pass.range(), PAIR_KIND));
            }
        }
    }
    if let Some(word) = (long_run && (!QUICK || secret_run(line)))
        .then(|| KEY_WORD.find(line))
        .flatten()
    {
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

/// A password word anywhere on a line.
#[cfg(test)]
static PASSWORD_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i:pass|pwd|contrase|wachtwoord|mật khẩu)|密码|密碼|口令|비밀번호|암호|パスワード",
    )
    .expect("valid regex")
});

/// `credential` in any case.
#[cfg(test)]
static CREDENTIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)credential").expect("valid regex"));

/// Whether `line` holds a run of 32 or more token characters (what a key or hash looks like).
#[cfg(test)]
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

/// Whether `line` holds what [`ASSIGNED`] needs after its word: `=`, `:`, `：` or `is` (in any
/// case, `ſ` for `s`).
fn has_separator(line: &str) -> bool {
    let bytes = line.as_bytes();
    memchr::memchr2(b'=', b':', bytes).is_some()
        || line.contains('：')
        || bytes.windows(2).any(|w| w.eq_ignore_ascii_case(b"is"))
        || line.contains("iſ")
        || line.contains("Iſ")
}

/// Whether a run of token bytes on `line` is, or ends with, what the token check reports: 32
/// hex digits (before any `=`), or upper and lower case letters and digits (the check looks
/// at the part of a run after a key word, so a run's tail counts).
fn secret_run(line: &str) -> bool {
    line.as_bytes()
        .split(|&b| !TOKEN_BYTE[usize::from(b)])
        .filter(|run| run.len() >= LONG_RUN)
        .any(|run| {
            let has = |f: fn(&u8) -> bool| run.iter().any(f);
            let unpadded = run.iter().rposition(|&b| b != b'=').map_or(0, |k| k + 1);
            let hex_tail = run[..unpadded]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            hex_tail >= LONG_RUN
                || (has(u8::is_ascii_uppercase)
                    && has(u8::is_ascii_lowercase)
                    && has(u8::is_ascii_digit))
        })
}

/// Whether a `/` with white space on both sides is followed by a value [`PAIR`] would take
/// for a password: its first alternative's password, found without the regex.
fn slashed_password(line: &str) -> bool {
    memchr::memchr_iter(b'/', line.as_bytes()).any(|k| {
        let spaced = |c: Option<char>| c.is_some_and(char::is_whitespace);
        if !spaced(line[..k].chars().next_back()) || !spaced(line[k + 1..].chars().next()) {
            return false;
        }
        let after = line[k + 1..].trim_start();
        let pass = trim_value(after.split(char::is_whitespace).next().unwrap_or(""));
        looks_like_password(pass) && not_a_word(pass)
    })
}

/// A password beside a user name, not a word of prose: [`strong`], and a digit among its
/// letters or a symbol no word holds. Prose puts words on both sides of a slash (`user /
/// Organization`, `account / Workspace-SSO`, `계정 / Google-Play`, `usuario / Contraseña`), and
/// capitals and hyphens are what names and compounds have; a written-out password has digits or
/// symbols (`ops-admin@ledger.test / Bl4ckT34!stg`).
fn not_a_word(v: &str) -> bool {
    let digits = v.chars().any(|c| c.is_ascii_digit());
    let letters = v.chars().any(char::is_alphabetic);
    let symbol = v.chars().any(|c| {
        matches!(
            c,
            '!' | '#' | '$' | '%' | '^' | '&' | '*' | '+' | '=' | '?' | '~' | '@' | '|'
        )
    });
    strong(v) && ((digits && letters) || symbol)
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
            kinds("- Staging admin login: ops-admin@ledger.test / Bl4ckT34!stg (reset nightly)"),
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
            // Words on both sides of a slash, in real prose of many languages.
            "- Admin panel: the user / Organization split is one `User` per person",
            "- Grafana: login with your Google account / Workspace SSO, no local users.",
            "- Login: usuario / Contraseña de la consola de Stripe solo por SSO",
            "에뮬레이터 로그인 계정 / Google-Play 테스트 트랙 권한은 `release-checker` 만 쓴다.",
            "- Dashboard: (login met het bedrijfsaccount / Authenticator-app op de zaakstelefoon)",
            "- Play Console: login com a conta / Workspace-Google da empresa",
            "логин через GitHub, личный account / Team-аккаунт лаборатории",
            "- Unity のアカウント / Organization 設定は Unity Dashboard で管理。",
            "Benutzername / Passwort stehen im Vault, Account-Wechsel prod / staging.",
            "login: frontend / backend-services team split",
        ] {
            assert!(kinds(clean).is_empty(), "{clean}: {:?}", kinds(clean));
        }
    }
}
