//! `secret-in-memory` (hard).

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a line of any memory file that holds what looks like a credential:
    ///
    /// - a vendor key by its shape: Anthropic, OpenAI, GitHub (classic and fine-grained), AWS
    ///   (access key id, secret key assignment), Slack (token, webhook URL), npm, PyPI, Stripe
    ///   live keys, Google API keys; a private key block;
    /// - a password written out: `password=…`, `pwd: …`, `密码：…` (and the word in other
    ///   languages), a URL with `user:password@`, a `user / password` pair on a line that says
    ///   it is a login (`Credentials: ops / T7#pq9…`);
    /// - a long hex (32+) or base64 (32+, mixed case and digits) token after a key word on the
    ///   same line (`token`, `secret`, `api_key`, `cookie`, `session`, `bearer`, …).
    ///
    /// Look-alikes are left alone: placeholders (`<password>`, `${DB_PASS}`, `***`, `see
    /// 1Password`), config names (`PASSWORD_MIN_LENGTH=12`), prose about passwords, UUIDs, and
    /// hex runs beside the word that names them (commit, sha256, checksum, oid, digest …).
    /// The finding names the file, line and kind of secret, and never prints the value (the
    /// human output does not show the line either).
    ///
    /// A `user / password` pair counts only when the password is not a word of prose: it holds
    /// digits among its letters or a symbol (`!#$%&*+=?@…`). Prose puts words on both sides of
    /// a slash (`user / Organization`, `account / Workspace SSO`, `계정 / Google-Play`).
    ///
    /// An error: a live credential's secrecy is lost once it is written down.
    ///
    /// Measured on text its authors did not write for it: the judged corpus
    /// (`tests/fixtures/judged/`, 13 libraries, 394 files in eight languages, written to look
    /// like what people and the client write): 20 of 21 planted credentials found before this
    /// change and after it, 9 false findings before (15% of the lines it reported on real text
    /// were prose: `user / Organization` and the like), 0 after. The rule-made corpus
    /// (`tests/fixtures/libraries/`, 5,792 lines) stays at 0 false findings
    /// (`tests/library_audit.rs`).
    ///
    /// ## Why it matters
    /// Memory files are read into every session that needs them, copied into transcripts,
    /// synced and sometimes committed. A key in memory is a key in all of those places.
    ///
    /// ## Example
    /// `- staging key: sk-ant-api03-…` in `reference_staging.md`.
    ///
    /// ## Fix
    /// Revoke the key, remove it from the file, and write where it lives instead
    /// (`the staging key is in 1Password, "Staging Anthropic"`).
    pub const RULE = ("secret-in-memory", Hard, Both, Check::File(check));
}

mod plaintext;
mod scan;

/// The one vendor pattern without a fixed prefix (its key word may be in any case, and apart
/// from its value): [`find`] runs it alone on a file with a long token run.
const AWS_SECRET: usize = 5;

const PATTERNS: [(&str, &str); 13] = [
    (
        "an Anthropic API key",
        r"(?-u:\b)sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{32,}",
    ),
    (
        "an OpenAI API key",
        r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|(?-u:\b)sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
    ),
    (
        "a GitHub token",
        r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{36,}(?-u:\b)",
    ),
    (
        "a GitHub fine-grained token",
        r"(?-u:\b)github_pat_[A-Za-z0-9_]{60,}",
    ),
    (
        "an AWS access key id",
        r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)",
    ),
    (
        "an AWS secret access key",
        r#"(?i)aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}(?-u:\b)"#,
    ),
    ("a Slack token", r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}"),
    (
        "a Slack webhook URL",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
    ),
    (
        "a private key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----",
    ),
    ("an npm token", r"(?-u:\b)npm_[A-Za-z0-9]{36,}(?-u:\b)"),
    ("a PyPI token", r"(?-u:\b)pypi-AgE[A-Za-z0-9_-]{50,}"),
    (
        "a Stripe live key",
        r"(?-u:\b)[sr]k_live_[A-Za-z0-9]{20,}(?-u:\b)",
    ),
    ("a Google API key", r"(?-u:\b)AIza[0-9A-Za-z_-]{35}(?-u:\b)"),
];

/// Each pattern, built when first needed: most libraries need the AWS secret key's alone (for
/// a long token run), or none. The few files where a vendor pattern can match are searched
/// with each in turn (each finds its literal prefix many bytes at a time), not with a
/// `RegexSet` of them all first: building that set costs as much as building every pattern
/// alone, for the few files that need any.
static EACH: [OnceLock<Regex>; PATTERNS.len()] = [const { OnceLock::new() }; PATTERNS.len()];

/// Pattern `k` of [`PATTERNS`].
fn each(k: usize) -> &'static Regex {
    EACH[k].get_or_init(|| Regex::new(PATTERNS[k].1).expect("valid regex"))
}

/// `(byte range, kind)` of every secret in `text`: the audit's own detection, which `add` also
/// runs on what it is about to write.
pub fn find(text: &str) -> Vec<(Range<usize>, &'static str)> {
    let scan = scan::scan(text);
    let vendor = scan.vendor || (scan.long_run && each(AWS_SECRET).is_match(text));
    find_on(text, vendor, &scan.lines)
}

/// The secrets in `text`: the vendor patterns' when `vendor` (else none can match), and the
/// plaintext credentials on `lines`.
fn find_on(
    text: &str,
    vendor: bool,
    lines: &[(Range<usize>, plaintext::Gates)],
) -> Vec<(Range<usize>, &'static str)> {
    let mut out = Vec::new();
    if vendor {
        for (k, (kind, _)) in PATTERNS.iter().enumerate() {
            out.extend(each(k).find_iter(text).map(|m| (m.range(), *kind)));
        }
    }
    for (range, kind) in plaintext::find(text, lines) {
        // A vendor pattern already named this value.
        if !out
            .iter()
            .any(|(o, _)| o.start < range.end && range.start < o.end)
        {
            out.push((range, kind));
        }
    }
    out.sort_by_key(|(r, _)| r.start);
    out
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let Some(text) = ctx.lib.files[i].text() else {
        return;
    };
    for (range, kind) in find(text) {
        let mut d = ctx.diag_at(
            &RULE,
            i,
            range,
            format!("line holds what looks like {kind} (value not shown); revoke it and remove it"),
        );
        d.redact = true;
        out.push(d);
    }
}

#[cfg(test)]
mod tests {
    use super::{AWS_SECRET, PATTERNS, find, find_on, plaintext::find_in_line};
    use crate::rules::testing::{Fixture, fm};

    pub(crate) const ANTHROPIC: &str = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxAA";

    #[test]
    fn kinds() {
        let kinds = |t: &str| find(t).into_iter().map(|(_, k)| k).collect::<Vec<_>>();
        assert_eq!(kinds(ANTHROPIC), ["an Anthropic API key"]);
        assert_eq!(
            kinds("sk-proj-abcdefghijklmnopqrstT3BlbkFJabcdefghijklmnopqrst"),
            ["an OpenAI API key"]
        );
        assert_eq!(
            kinds("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
            ["a GitHub token"]
        );
        assert_eq!(
            kinds("id AKIAIOSFODNN7EXAMPLE ok"),
            ["an AWS access key id"]
        );
        assert_eq!(
            kinds("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            ["an AWS secret access key"]
        );
        assert_eq!(kinds("xoxb-1234567890-abcdefghij"), ["a Slack token"]);
        assert_eq!(
            kinds("-----BEGIN OPENSSH PRIVATE KEY-----"),
            ["a private key"]
        );
        for clean in [
            "sk-ant-… (redacted)",
            "apikey: SUPABASE_ANON_KEY",
            "ghp_short",
            "AKIA in prose",
            "-----BEGIN PUBLIC KEY-----",
            "task-ant-api03-",
        ] {
            assert!(find(clean).is_empty(), "{clean}");
        }
    }

    /// Every vendor pattern on the whole text, every plaintext check on every line.
    fn everywhere(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
        let mut out = find_on(text, true, &[]);
        let mut start = 0;
        for whole in text.split_inclusive('\n') {
            let line = whole.trim_end_matches('\n').trim_end_matches('\r');
            for (r, kind) in find_in_line(line) {
                let r = start + r.start..start + r.end;
                if !out.iter().any(|(o, _)| o.start < r.end && r.start < o.end) {
                    out.push((r, kind));
                }
            }
            start += whole.len();
        }
        out.sort_by_key(|(r, _)| r.start);
        out
    }

    /// Key words, separators and values of secrets of every kind, their look-alikes and their
    /// case forms (`ſ`, `K`, mixed case).
    const WORDS: &[&str] = &[
        "password",
        "PaSsWoRd",
        "pa\u{17f}\u{17f}word",
        "pas\u{17f}",
        "pwd",
        "contraseña",
        "CoNtRaSeÑa",
        "contra\u{17f}eña",
        "WachtWoord",
        "mật khẩu",
        "mật \u{212a}hẩu",
        "MẬT KHẨU",
        "密码",
        "口令",
        "비밀번호",
        "パスワード",
        "Credentials",
        "cReDeNtIaLs",
        "login",
        "user",
        "账号",
        "session cookie",
        "api_key",
        "token",
        "sha256",
        "commit",
        "aws_secret_access_key",
        "Aws_Secret_Access_Key",
        "aw\u{17f}\u{17f}ecret_access_\u{212a}ey",
        "nothing",
        "",
    ];
    const SEPARATORS: &[&str] = &[
        ": ",
        "=",
        " = ",
        "：",
        " is ",
        " iſ ",
        " iſ",
        " / ",
        "",
        "\t/\t",
        "\u{3000}/ ",
        ":\n  ",
        " ",
        "\"",
    ];
    const VALUES: &[&str] = &[
        "Winter2026!x",
        "T7#pq9LwZ2xv",
        "root:Toor2026!x",
        "ops-vendor / T7#pq9LwZ2xv",
        "T7#pq9LwZ2xv, a / b",
        "a1B2c3D4e5F6g7H8a1B2c3D4e5F6g7H8",
        "4b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c",
        "xyz_4b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e==",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "sk-proj-abcdefghijklmnopqrstT3BlbkFJabcdefghijklmnopqrst",
        "github_pat_A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2",
        "AKIAIOSFODNN7EXAMPLE",
        "ASIAIOSFODNN7EXAMPLE",
        "xoxb-1234567890-abcdefghij",
        "sk_live_aB3aB3aB3aB3aB3aB3aB3aB3",
        "npm_abcdefghijabcdefghijabcdefghijabcdef",
        "pypi-AgEAb1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_Ab1_",
        "AIzaBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
        "postgres://svc_app:Xk9mQ2vPl7rT@db.internal:5432/app",
        "https://hooks.slack.com/services/T0A/B0B/abc",
        "-----BEGIN RSA PRIVATE KEY-----",
        "${DB_PASSWORD}",
        "<password>",
        "see 1Password",
        "admin@example.test",
        "description",
    ];

    #[test]
    fn finds_on_each_line_what_every_check_finds() {
        for w in WORDS {
            for s in SEPARATORS {
                for v in VALUES {
                    let text = format!("{w}{s}{v}\n");
                    assert_eq!(find(&text), everywhere(&text), "{text:?}");
                }
            }
        }
    }

    /// Lines of [`WORDS`], [`SEPARATORS`] and [`VALUES`] between other text.
    fn texts() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::sample::select;
        use proptest::strategy::Strategy;
        let noise = select(vec!["", " ", "- ", "x ", "é", "密", "`", "(", "\r"]);
        let line = (
            noise.clone(),
            select(WORDS),
            select(SEPARATORS),
            select(VALUES),
            noise,
        );
        proptest::collection::vec(line, 0..6).prop_map(|lines| {
            lines
                .into_iter()
                .map(|(a, w, s, v, b)| format!("{a}{w}{s}{v}{b}\n"))
                .collect()
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// The scan skips a file, a line or a check only where nothing can be found.
        #[test]
        fn finds_what_every_check_on_every_line_finds(text in texts()) {
            proptest::prop_assert_eq!(find(&text), everywhere(&text));
        }
    }

    #[test]
    fn aws_secret_is_the_aws_secret_pattern() {
        assert_eq!(PATTERNS[AWS_SECRET].0, "an AWS secret access key");
    }

    #[test]
    fn vectors_report_line_never_value() {
        let f = Fixture::new(&[
            ("user_ok.md", &(fm("user", "") + "no secrets\n")),
            (
                "user_key.md",
                &(fm("user", "") + "line one\nstaging: " + ANTHROPIC + "\n"),
            ),
        ]);
        assert_eq!(f.found("secret-in-memory"), [("user_key.md".to_owned(), 8)]);
        let a = f.audit();
        let json = serde_json::to_string(&a.diagnostics).unwrap();
        assert!(!json.contains("AbCdEf"), "{json}");
    }
}
