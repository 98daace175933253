//! `secret-in-memory` (soft).

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

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
    /// Measured on the realistic library corpus (`tests/fixtures/libraries/`: 14 libraries,
    /// 428 files, 5,792 lines, in English, Chinese, Japanese, Korean, Vietnamese, Dutch and
    /// German): all 8 planted credentials found; none of its 12 planted look-alikes (commit
    /// hashes, checksums, UUIDs, config names, prose about passwords) nor any other line
    /// reported: 0 false positives in 5,792 lines. `tests/library_audit.rs` keeps it so.
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
    pub const RULE = ("secret-in-memory", Soft, Both, Check::File(check));
}

mod plaintext;

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

/// Literals every pattern contains (case-sensitive literals only, so the scan is a SIMD
/// literal search): one cheap scan of the text rules out almost every file before the set
/// runs.
static LITERALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"sk-ant-|sk-proj-|sk-svcacct-|sk-admin-|T3BlbkFJ|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|AKIA|ASIA|aws_secret|AWS_SECRET|awssecret|AWSSECRET|AwsSecret|awsSecret|xoxa-|xoxb-|xoxp-|xoxo-|xoxs-|xoxr-|hooks\.slack\.com|PRIVATE KEY-----|npm_|pypi-|k_live_|AIza")
        .expect("valid regex")
});
static SET: LazyLock<RegexSet> =
    LazyLock::new(|| RegexSet::new(PATTERNS.iter().map(|p| p.1)).expect("valid regexes"));
static EACH: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .map(|p| Regex::new(p.1).expect("valid regex"))
        .collect()
});

/// `(byte range, kind)` of every secret in `text`.
pub(super) fn find(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let mut out = Vec::new();
    if LITERALS.is_match(text) {
        for k in SET.matches(text).iter() {
            out.extend(EACH[k].find_iter(text).map(|m| (m.range(), PATTERNS[k].0)));
        }
    }
    for (range, kind) in plaintext::find(text) {
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
    use super::find;
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
