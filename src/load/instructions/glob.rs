//! picomatch globs (`claudeMdExcludes`, Read deny rules) matched in linear time.
//!
//! picomatch-rs compiles a glob to a regular expression (`make_re`, the port of picomatch's
//! `makeRe`) and runs it on fancy-regex, a backtracking engine: `**/*a*a*a*a*a*a*a*a*a*a*a*a*b`
//! (`[^/]*?a[^/]*?a…`) takes time exponential in its stars on a long file name, and past
//! fancy-regex's step limit picomatch-rs answers "no match", so the pattern silently stops
//! applying. Here the same source is run on the `regex` crate (a finite automaton) wherever it
//! can express it. The lookarounds picomatch emits with `dot: true` come in a few fixed shapes,
//! each rewritten to what it means (exact on a path without `\n`, which is all `.` cannot
//! cross):
//! - the guard `^(?!.*(?:^|/)\.{1,2}(?:/|$))` (no `.` or `..` segment) is run as its own
//!   regex, negated;
//! - `(?!\.{1,2}(?:/|$))[^/]+` where the run ends at a `/` or the end (the segments of `**`)
//!   is a segment other than `.` and `..`;
//! - `(?=.)` (not at the end) before an atom that must consume is dropped; before a final
//!   `[^/]*?` (and optional slashes) it makes what is left non-empty;
//! - a negated glob's `^(?!SOURCE).*$` is the opposite of `SOURCE`.
//!
//! Anything else (extglob `!(…)`, a path holding `\n`) runs on fancy-regex under a step
//! budget; a match that would go over it is not tried and the pattern is listed by
//! [`Budget::refused`], so callers can say so instead of treating it as a quiet no-match.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use picomatch_rs::{CompileOptions, make_re};

/// fancy-regex's steps for one match (its default is 1,000,000).
const STEPS_PER_MATCH: usize = 100_000;
/// Backtracked matches one [`Budget`] allows (each up to [`STEPS_PER_MATCH`] steps).
const MATCHES_PER_BUDGET: usize = 500;
/// Compiled globs kept for the process.
const KEPT_GLOBS: usize = 10_000;
/// Patterns of one list compiled at most (a session's `claudeMdExcludes`, its Read deny rules,
/// a rule's `paths:`, see [`crate::load::rule_paths`]): compiling is a pattern's cost (a regex
/// or two), and a cloned repository's `.claude/settings.json` or rule of 30,000 patterns took the
/// receipt and the session-start hook over a minute and a gigabyte. The patterns past it are
/// not compiled ([`Glob::uncompiled`]): each matches only a path equal to it and is listed as
/// refused, so callers can say ccmem could not tell.
pub const MAX_PATTERNS: usize = 1_000;

/// A segment other than `.` and `..`, for `(?!\.{1,2}(?:/|$))[^/]+` ended by `/` or the end.
const SEGMENT: &str = r"(?:[^/.][^/]*|\.[^/.][^/]*|\.\.[^/]+)";
const GUARD: &str = r"(?!.*(?:^|/)\.{1,2}(?:/|$))";
const NOT_DOT_SEGMENT: &str = r"(?!\.{1,2}(?:/|$))[^/]+";

/// One compiled glob.
pub struct Glob {
    text: String,
    /// Not compiled, its list's [`MAX_PATTERNS`] being spent: refused on every path but its
    /// own text.
    uncompiled: bool,
    linear: Option<Linear>,
    /// The source as picomatch-rs runs it, and its fancy-regex form, built when first needed
    /// (a linear glob needs it only for a path holding `\n`).
    source: String,
    backtrack: OnceLock<Option<fancy_regex::Regex>>,
}

/// The source rewritten for the `regex` crate (see the module docs).
struct Linear {
    main: regex::Regex,
    /// Whether the guard applies: a path with a `.` or `..` segment never matches.
    guard: bool,
    negated: bool,
}

/// The dot-segment guard, as a regex that finds such a segment.
static DOT_SEGMENT: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"^.*(?:^|/)\.{1,2}(?:/|$)").expect("a valid regex"));

/// How many backtracked matches are left, and the globs refused for lack of them.
#[derive(Debug)]
pub struct Budget(Mutex<(usize, Vec<String>, HashSet<String>)>);

impl Default for Budget {
    fn default() -> Self {
        Budget(Mutex::new((MATCHES_PER_BUDGET, Vec::new(), HashSet::new())))
    }
}

impl Budget {
    /// Globs that some path was not matched against (the match would have gone over the step
    /// budget), in the order first refused.
    pub fn refused(&self) -> Vec<String> {
        self.0.lock().map(|b| b.1.clone()).unwrap_or_default()
    }

    fn refuse(&self, text: &str) {
        if let Ok(mut b) = self.0.lock()
            && !b.2.contains(text)
        {
            b.2.insert(text.to_owned());
            b.1.push(text.to_owned());
        }
    }

    /// Takes one backtracked match; `false` when none is left.
    fn take(&self) -> bool {
        self.0.lock().is_ok_and(|mut b| {
            let left = b.0 > 0;
            b.0 = b.0.saturating_sub(1);
            left
        })
    }
}

impl std::fmt::Debug for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Glob")
            .field("text", &self.text)
            .field("linear", &self.linear.is_some())
            .finish()
    }
}

impl Glob {
    /// Compiles `pattern` as picomatch-rs's `compile_matcher` does; `None` where it fails.
    /// Compiled globs are kept for the process (`check` loads a session per directory, each
    /// with the same settings), up to 10,000 of them.
    pub fn new(pattern: &str, options: &CompileOptions) -> Option<Arc<Glob>> {
        type Kept = HashMap<(String, bool), Option<Arc<Glob>>>;
        static KEPT: LazyLock<Mutex<Kept>> = LazyLock::new(Mutex::default);
        let key = (pattern.to_owned(), options.windows);
        // Only the options ccmem uses are kept apart (by `windows`).
        let plain = *options
            == CompileOptions {
                dot: true,
                windows: options.windows,
                ..CompileOptions::default()
            };
        if plain && let Some(g) = KEPT.lock().ok().and_then(|k| k.get(&key).cloned()) {
            return g;
        }
        let g = Glob::compile(pattern, options).map(Arc::new);
        if plain
            && let Ok(mut k) = KEPT.lock()
            && k.len() < KEPT_GLOBS
        {
            k.insert(key, g.clone());
        }
        g
    }

    /// `pattern` left uncompiled, a list's [`MAX_PATTERNS`] being spent: it matches only a path
    /// equal to it, and every other path refuses it (see [`Budget::refused`]).
    pub fn uncompiled(pattern: &str) -> Arc<Glob> {
        Arc::new(Glob {
            text: pattern.to_owned(),
            uncompiled: true,
            linear: None,
            source: String::new(),
            backtrack: OnceLock::new(),
        })
    }

    fn compile(pattern: &str, options: &CompileOptions) -> Option<Glob> {
        if pattern.is_empty() {
            return None;
        }
        let d = make_re(pattern, options, false)?;
        let source = if d.flags.contains('i') {
            format!("(?i){}", d.source)
        } else {
            d.source.clone()
        };
        let linear = if d.flags.is_empty() {
            linear(&d.source)
        } else {
            None
        };
        let backtrack = OnceLock::new();
        if linear.is_some() {
            fancy_regex::Expr::parse_tree(&source).ok()?;
        } else {
            backtrack.set(Some(build(&source)?)).ok()?;
        }
        Some(Glob {
            text: pattern.to_owned(),
            uncompiled: false,
            linear,
            source,
            backtrack,
        })
    }

    /// The glob as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether it runs in linear time on every path without `\n`.
    pub fn is_linear(&self) -> bool {
        self.linear.is_some()
    }

    /// picomatch-rs's `Matcher::is_match`; a backtracked match only within `budget` (else
    /// `false`, and the glob is listed as refused).
    pub fn is_match(&self, input: &str, budget: &Budget) -> bool {
        if input.is_empty() {
            return false;
        }
        if input == self.text {
            return true;
        }
        if self.uncompiled {
            budget.refuse(&self.text);
            return false;
        }
        if let Some(l) = &self.linear
            && !input.contains('\n')
        {
            let hit = l.main.is_match(input) && !(l.guard && DOT_SEGMENT.is_match(input));
            return hit != l.negated;
        }
        if !budget.take() {
            budget.refuse(&self.text);
            return false;
        }
        let backtrack = self.backtrack.get_or_init(|| build(&self.source));
        match backtrack.as_ref().and_then(|re| re.is_match(input).ok()) {
            Some(hit) => hit,
            None => {
                budget.refuse(&self.text);
                false
            }
        }
    }
}

/// fancy-regex's form of `source` with the step limit.
fn build(source: &str) -> Option<fancy_regex::Regex> {
    fancy_regex::RegexBuilder::new(source)
        .backtrack_limit(STEPS_PER_MATCH)
        .build()
        .ok()
}

/// The `regex` crate's form of a picomatch source, if it has one (module docs).
fn linear(source: &str) -> Option<Linear> {
    let (negated, inner) = match source
        .strip_prefix("^(?!^")
        .and_then(|s| s.strip_suffix(").*$"))
    {
        Some(inner) => (true, format!("^{inner}")),
        None => (false, source.to_owned()),
    };
    let (guard, s) = match inner.strip_prefix(&format!("^{GUARD}")) {
        Some(rest) => (true, format!("^{rest}")),
        None => (false, inner),
    };
    let s = segments(&s)?;
    let s = lookahead_dot(&s)?;
    let main = regex::RegexBuilder::new(&s)
        .size_limit(16 << 20)
        .build()
        .ok()?;
    Some(Linear {
        main,
        guard,
        negated,
    })
}

/// Rewrites the segments of `**`: `X/`, and `X(?:/+X)*` when what follows the loop can only
/// be `/` or the end (groups closing, optional slashes); `None` when an `X` is left.
fn segments(s: &str) -> Option<String> {
    static TAIL: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^(?:\)\??)*(?:\(\?:/\+\)\?)?(?:\)\??)*\$$").expect("a valid regex")
    });
    let loop_ = format!("(?:/+{NOT_DOT_SEGMENT})*");
    let mut s = s.replace(&format!("{NOT_DOT_SEGMENT}/"), &format!("{SEGMENT}/"));
    let pair = format!("{NOT_DOT_SEGMENT}{loop_}");
    while let Some(i) = s.find(&pair) {
        let after = &s[i + pair.len()..];
        if !(after.starts_with('/') || TAIL.is_match(after)) {
            return None;
        }
        s = format!("{}{SEGMENT}(?:/+{SEGMENT})*{after}", &s[..i]);
    }
    (!s.contains(NOT_DOT_SEGMENT)).then_some(s)
}

/// Rewrites each `(?=.)` (module docs), `None` where one is left that cannot be.
fn lookahead_dot(s: &str) -> Option<String> {
    const LOOK: &str = "(?=.)";
    const LAZY: &str = "[^/]*?";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(LOOK) {
        out.push_str(&rest[..i]);
        rest = &rest[i + LOOK.len()..];
        let after = rest.strip_prefix(LAZY).unwrap_or(rest);
        if rest.len() != after.len() {
            // The run ends the source: "not at the end" makes what is left non-empty.
            if after == ")$" {
                out.push_str("[^/]+");
                rest = after;
                continue;
            }
            if after == "(?:/+)?)$" {
                out.push_str("(?:[^/]+(?:/+)?|/+)");
                rest = ")$";
                continue;
            }
        }
        if !consumes(after) {
            return None;
        }
    }
    out.push_str(rest);
    Some(out)
}

/// Whether `s` starts with an atom that must consume a character (not optional, not a group
/// or assertion).
fn consumes(s: &str) -> bool {
    let mut chars = s.chars();
    let len = match chars.next() {
        Some('\\') => match chars.next() {
            Some(c) if !c.is_ascii_alphanumeric() => 1 + c.len_utf8(),
            _ => return false,
        },
        Some('[') => {
            // A class: up to the first `]` that is not its first member or escaped.
            let b = s.as_bytes();
            let mut k = 1;
            if b.get(k) == Some(&b'^') {
                k += 1;
            }
            if b.get(k) == Some(&b']') {
                k += 1;
            }
            loop {
                match b.get(k) {
                    None | Some(b'[') => return false,
                    Some(b'\\') => k += 2,
                    Some(b']') => break k + 1,
                    Some(_) => k += 1,
                }
            }
        }
        Some(c) if !"()|$^.*+?{}".contains(c) => c.len_utf8(),
        _ => return false,
    };
    !matches!(s[len..].chars().next(), Some('?' | '*' | '{'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> CompileOptions {
        CompileOptions {
            dot: true,
            ..CompileOptions::default()
        }
    }

    /// The answer of picomatch-rs itself (fancy-regex, its default step limit).
    fn reference(pattern: &str, path: &str) -> Option<bool> {
        picomatch_rs::compile_matcher(pattern, &options())
            .ok()?
            .is_match(path)
            .ok()
    }

    fn agree(pattern: &str, paths: &[&str]) {
        let g = Glob::new(pattern, &options()).expect("compiles");
        let budget = Budget::default();
        for p in paths {
            assert_eq!(
                Some(g.is_match(p, &budget)),
                reference(pattern, p),
                "{pattern} on {p:?}"
            );
        }
        assert!(budget.refused().is_empty());
    }

    const PATHS: &[&str] = &[
        "/r/p/CLAUDE.md",
        "/r/CLAUDE.md",
        "/r/./p/CLAUDE.md",
        "/r/../p/CLAUDE.md",
        "/r/.claude/CLAUDE.md",
        "/r/..x/CLAUDE.md",
        "/r/.../CLAUDE.md",
        "/r/p/.md",
        "/r/p/a.md",
        "/r/p/",
        "/r//p/CLAUDE.md",
        "r/p/CLAUDE.md",
        "/home/ユーザー/プロジェクト/CLAUDE.md",
        "/home/пользователь/проект/CLAUDE.local.md",
        "/srv/مشروع/docs/CLAUDE.md",
        "/r/p/CLAUDE.md/x",
        "/r/a\nb/CLAUDE.md",
        "/r/p/\n.md",
        "/",
    ];

    const PATTERNS: &[&str] = &[
        "**/p/CLAUDE.md",
        "**/CLAUDE.md",
        "**",
        "/r/**",
        "/r/**/*.md",
        "/r/*",
        "/r/*/",
        "*.md",
        "/r/p/*.md",
        "**/.claude/CLAUDE.md",
        "!**/p/CLAUDE.md",
        "!/r/**",
        "/home/*/プロジェクト/**",
        "**/проект/CLAUDE.local.md",
        "/r/{p,q}/CLAUDE.md",
        "/r/[a-p]/CLAUDE.md",
        "/r/[[:alpha:]]/CLAUDE.md",
        "/r/?/CLAUDE.md",
        "/r/@(p|q)/CLAUDE.md",
        "/r/!(q)/CLAUDE.md",
        "/r/+(p)/CLAUDE.md",
        "**/*a*a*b",
        "/r/p/CLAUDE.md",
        "c:/tmp/**",
    ];

    #[test]
    fn agrees_with_picomatch_rs_on_the_vectors() {
        for pattern in PATTERNS {
            agree(pattern, PATHS);
        }
    }

    #[test]
    fn the_shapes_people_write_run_linear() {
        for pattern in PATTERNS {
            let g = Glob::new(pattern, &options()).unwrap();
            let extglob_not = pattern.contains("!(");
            assert_eq!(g.is_linear(), !extglob_not, "{pattern}");
        }
    }

    #[test]
    fn hostile_stars_are_fast_and_still_match() {
        let pattern = format!("**/*{}b", "a*".repeat(12));
        let g = Glob::new(&pattern, &options()).unwrap();
        assert!(g.is_linear());
        let budget = Budget::default();
        let long = format!("/r/{}/CLAUDE.md", "a".repeat(200));
        let start = std::time::Instant::now();
        assert!(!g.is_match(&long, &budget));
        let hit = format!("/r/{}b", "a".repeat(200));
        assert!(g.is_match(&hit, &budget));
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        assert!(budget.refused().is_empty());
    }

    #[test]
    fn an_over_budget_backtracked_glob_is_refused_not_dropped() {
        let pattern = format!("/r/!(x){}b", "*a".repeat(14));
        let g = Glob::new(&pattern, &options()).unwrap();
        assert!(!g.is_linear());
        let budget = Budget::default();
        assert!(!g.is_match(&format!("/r/{}", "a".repeat(60)), &budget));
        assert_eq!(budget.refused(), [pattern]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        /// The linear form gives picomatch-rs's verdict on random globs and paths.
        #[test]
        fn linear_agrees_with_picomatch_rs(
            pattern in "!?(/|\\*\\*/)?([ab.*?/]|\\*\\*|\\{a,b\\}|\\[a-b\\]){0,8}",
            path in "/?([ab./]|\\.\\.|ж){0,10}",
        ) {
            let Some(g) = Glob::new(&pattern, &options()) else { return Ok(()) };
            let Some(want) = reference(&pattern, &path) else { return Ok(()) };
            let budget = Budget::default();
            proptest::prop_assert_eq!(g.is_match(&path, &budget), want, "{} on {:?}", pattern, path);
        }
    }
}
