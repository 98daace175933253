//! Gitignore-style matching exactly as the client's bundled matcher does it (`P3()` = class
//! `Fi`, pattern compiler `Ti`, validity probe `Jm`).
//!
//! Why a port and not the `ignore` crate: the client's matcher is not git's nor node-ignore's.
//! It compiles each pattern to an ECMAScript regular expression with the `i` flag (matching is
//! case-insensitive), treats `[!a]` and `[^a]` as plain classes (no negation), turns an
//! unclosed `[` into the never-matching `[]`, drops ranges like `[z-a]` but rejects `[z-!]` as
//! invalid, and lets `*`/`**` match dotfiles. The `ignore` crate (globset) differs on every one
//! of these. So the compiler is ported character for character and its output is run by
//! `regress`, an ECMAScript regex engine, which accepts and rejects the same syntax.
//!
//! Matching runs in linear time: `regress` validates the source, and the source is then run by
//! the `regex` crate ([`super::linear`]). The client and `regress` backtrack, so
//! `*a*a*a*a*a*a*a*a*a*a*a*a*b` against a long file name takes them exponential time. The few
//! sources the `regex` crate cannot express (a backreference, `\b`, a lookaround or a `{n}`,
//! only reachable through escaped backslashes) run on `regress` under a step budget: a match
//! whose worst case is over [`STEPS_PER_MATCH`], or over what is left of [`STEPS_PER_MATCHER`],
//! is not tried, the pattern counts as not matching (the rule does not attach) and is listed by
//! [`Matcher::refused`]; a source with a quantified group that holds a quantifier or an
//! alternative (`(a+)+`, exponential on any engine that backtracks) is refused outright
//! ([`Unusable::TooCostly`]).

use std::collections::HashSet;
use std::sync::Mutex;

use super::linear;
use crate::load::instructions::glob::MAX_PATTERNS;

mod cost;
mod source;

use cost::Cost;
use source::to_regex;

/// One compiled pattern of a list.
#[derive(Debug)]
struct Rule {
    /// The pattern as written (with its `!`).
    pattern: String,
    negative: bool,
    engine: Engine,
}

/// How a rule's source is run.
#[derive(Debug)]
enum Engine {
    /// The `regex` crate: linear in the path.
    Linear(regex::Regex),
    /// `regress`, with the source's worst case (see [`Cost`]).
    Backtrack(regress::Regex, Cost),
    /// Not compiled, the list's [`MAX_PATTERNS`] being spent: refused on every path.
    Uncompiled,
}

/// Worst-case steps of the backtracking engine for one match (upper bound): every start
/// position, every choice of each unbounded quantifier's count, lookaround start and
/// backreference length, every alternative, each step at most the source long.
const STEPS_PER_MATCH: f64 = 2e6;
/// Steps the backtracked rules of one matcher may take in all.
const STEPS_PER_MATCHER: f64 = 5e7;

/// A pattern list compiled the client's way; invalid patterns are dropped.
#[derive(Debug, Default)]
pub struct Matcher {
    rules: Vec<Rule>,
    /// Backtracking steps the matcher may still take, and the patterns refused for lack of them.
    budget: Mutex<Budget>,
}

#[derive(Debug)]
struct Budget {
    steps: f64,
    refused: Vec<String>,
    /// `refused`, to look up (a list of thousands of uncompiled patterns).
    seen: HashSet<String>,
}

impl Budget {
    fn refuse(&mut self, pattern: &str) {
        if !self.seen.contains(pattern) {
            self.seen.insert(pattern.to_owned());
            self.refused.push(pattern.to_owned());
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: STEPS_PER_MATCHER,
            refused: Vec::new(),
            seen: HashSet::new(),
        }
    }
}

/// Why a pattern was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// Blank, a `#` comment, or ends in an unescaped backslash: skipped silently.
    Skipped,
    /// Its regular expression does not compile (the client warns and drops it).
    Invalid(String),
    /// Its regular expression backtracks exponentially (a quantified group holding a
    /// quantifier or an alternative, reachable only through escaped backslashes): ccmem does
    /// not run it and it never matches; the client would hang on a long path.
    TooCostly(String),
}

impl Matcher {
    /// Compiles `patterns`, dropping the unusable ones (`R6t` + `add`).
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Matcher {
        let rules = patterns
            .iter()
            .map(AsRef::as_ref)
            .filter(|p| accepted(p))
            .enumerate()
            .filter_map(|(k, p)| {
                if k < MAX_PATTERNS {
                    compile(p).ok()
                } else {
                    Some(Rule {
                        pattern: p.to_owned(),
                        negative: p.starts_with('!'),
                        engine: Engine::Uncompiled,
                    })
                }
            })
            .collect();
        Matcher {
            rules,
            budget: Mutex::default(),
        }
    }

    /// Patterns that some path was not matched against because their backtracking would
    /// have gone over the step budget (see the module docs), in the order first refused.
    pub fn refused(&self) -> Vec<String> {
        self.budget
            .lock()
            .map(|b| b.refused.clone())
            .unwrap_or_default()
    }

    /// Whether the matcher holds no usable pattern.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The client's `ignores(rel)`: `Some(pattern)` (the pattern that decided) when `rel`
    /// or one of its parent folders is matched and not re-included. `rel` must be a relative
    /// path that does not start with `..` or `./`; anything else never matches (the client
    /// throws there, and its callers filter such paths out first).
    pub fn matched(&self, rel: &str) -> Option<&str> {
        if rel.is_empty() || rel.starts_with('/') || is_dot_relative(rel) {
            return None;
        }
        let collapsed = collapse_slashes(rel);
        let mut prefixes: Vec<&str> = collapsed
            .match_indices('/')
            .filter(|&(i, _)| i > 0 && i + 1 < collapsed.len())
            .map(|(i, _)| &collapsed[..=i])
            .collect();
        prefixes.push(rel);
        let mut verdict: Option<&Rule> = None;
        for p in prefixes {
            if verdict.is_none() {
                verdict = self.verdict(p);
            }
        }
        verdict.map(|r| r.pattern.as_str())
    }

    /// `#i(path, 0)`: the last positive rule that matched, unless a later negation cleared it.
    fn verdict(&self, path: &str) -> Option<&Rule> {
        let mut ignored: Option<&Rule> = None;
        for rule in &self.rules {
            let applies = if rule.negative {
                ignored.is_some()
            } else {
                ignored.is_none()
            };
            if applies && self.hit(rule, path) {
                ignored = if rule.negative { None } else { Some(rule) };
            }
        }
        ignored
    }
}

impl Matcher {
    /// Whether `rule` matches `path`; a backtracked rule only within the budget.
    fn hit(&self, rule: &Rule, path: &str) -> bool {
        match &rule.engine {
            Engine::Linear(re) => re.is_match(path),
            Engine::Uncompiled => {
                if let Ok(mut budget) = self.budget.lock() {
                    budget.refuse(&rule.pattern);
                }
                false
            }
            Engine::Backtrack(re, cost) => {
                let steps = cost.steps(path.chars().count());
                let Ok(mut budget) = self.budget.lock() else {
                    return false;
                };
                if steps > STEPS_PER_MATCH || steps > budget.steps {
                    budget.refuse(&rule.pattern);
                    return false;
                }
                budget.steps -= steps;
                drop(budget);
                re.find(path).is_some()
            }
        }
    }
}

/// Whether `pattern` is usable by the client's matcher (`Jm` / `mr`).
pub fn check(pattern: &str) -> Result<(), Unusable> {
    compile(pattern).map(|_| ())
}

fn compile(pattern: &str) -> Result<Rule, Unusable> {
    if !accepted(pattern) {
        return Err(Unusable::Skipped);
    }
    let negative = pattern.starts_with('!');
    let body = strip_negation(pattern);
    let source = to_regex(body)?;
    let backtrack =
        regress::Regex::with_flags(&source, "i").map_err(|e| Unusable::Invalid(e.to_string()))?;
    let linear = linear::translate(&source).and_then(|s| {
        regex::RegexBuilder::new(&s)
            .size_limit(64 << 20)
            .build()
            .ok()
    });
    let engine = match linear {
        Some(re) => Engine::Linear(re),
        None => {
            let cost = Cost::of(&source).ok_or_else(|| {
                Unusable::TooCostly(format!("`{source}` backtracks exponentially"))
            })?;
            Engine::Backtrack(backtrack, cost)
        }
    };
    Ok(Rule {
        pattern: pattern.to_owned(),
        negative,
        engine,
    })
}

/// `nd`: not a comment, not blank, and not ending in an odd backslash.
fn accepted(p: &str) -> bool {
    if p.starts_with('#') || !p.chars().any(|c| !crate::text::js::is_js_space(c)) {
        return false;
    }
    !p.ends_with('\\') || p.ends_with("\\\\")
}

/// `/^!?(\\(?=[!#]))?/` removed.
fn strip_negation(p: &str) -> &str {
    let p = p.strip_prefix('!').unwrap_or(p);
    match p.strip_prefix('\\') {
        Some(rest) if rest.starts_with(['!', '#']) => rest,
        _ => p,
    }
}

/// `Ni` for paths starting with a dot: `.`, `..`, `./…`, `../…`.
fn is_dot_relative(p: &str) -> bool {
    let rest = p.strip_prefix("..").or_else(|| p.strip_prefix('.'));
    matches!(rest, Some(r) if r.is_empty() || r.starts_with('/'))
}

fn collapse_slashes(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for c in p.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(patterns: &[&str], rel: &str) -> bool {
        Matcher::new(patterns).matched(rel).is_some()
    }

    #[test]
    fn slashless_pattern_matches_basename_at_any_depth() {
        assert!(hit(&["*.md"], "README.md"));
        assert!(hit(&["*.md"], "docs/deep/x.md"));
        assert!(!hit(&["*.md"], "docs/x.mdx"));
    }

    #[test]
    fn leading_slash_anchors() {
        assert!(hit(&["/*.md"], "x.md"));
        assert!(!hit(&["/*.md"], "docs/x.md"));
    }

    #[test]
    fn inner_slash_anchors_to_base() {
        assert!(hit(&["lib/*.py"], "lib/m.py"));
        assert!(!hit(&["lib/*.py"], "sub/lib/m.py"));
        assert!(!hit(&["lib/*.py"], "lib/a/m.py"));
    }

    #[test]
    fn globstar_matches_zero_or_more_dirs() {
        assert!(hit(&["src/**/*.ts"], "src/b.ts"));
        assert!(hit(&["src/**/*.ts"], "src/a/b.ts"));
        assert!(!hit(&["src/**/*.ts"], "src/b.tsx"));
        assert!(hit(&["**/*.json"], ".vscode/settings.json"));
        assert!(hit(&["**/x"], "x"));
    }

    #[test]
    fn parent_directory_match_covers_descendants() {
        assert!(hit(&["src"], "src/lib/deep/x.txt"));
        assert!(hit(&["lib"], "src/lib/deep/x.txt"));
        assert!(!hit(&["lib"], "src/library/x.txt"));
        assert!(hit(&["src/"], "src/x"));
        assert!(!hit(&["x/"], "x"));
    }

    #[test]
    fn stars_match_dotfiles() {
        assert!(hit(&["src/*"], "src/.env"));
        assert!(hit(&["*"], ".hidden"));
    }

    #[test]
    fn classes_have_no_negation() {
        assert!(hit(&["src/[ab].ts"], "src/a.ts"));
        assert!(!hit(&["src/[ab].ts"], "src/c.ts"));
        assert!(hit(&["src/[!a].ts"], "src/a.ts"));
        assert!(hit(&["src/[!a].ts"], "src/!.ts"));
        assert!(!hit(&["src/[!a].ts"], "src/b.ts"));
        assert!(!hit(&["src/[^a].ts"], "src/b.ts"));
    }

    #[test]
    fn unclosed_or_invalid_classes_never_match() {
        assert!(!hit(&["src/[abc"], "src/[abc"));
        assert!(!hit(&["src/[abc"], "src/a"));
        assert!(matches!(check("[z-!]"), Err(Unusable::Invalid(_))));
        assert!(check("[z-a]x").is_ok());
        assert!(hit(&["src/[abc", "*.ts"], "src/a.ts"));
        assert!(Matcher::new(&["[z-!]"]).is_empty());
    }

    #[test]
    fn negation_cannot_reinclude_below_an_ignored_parent() {
        assert!(hit(&["src/**", "!src/gen/**"], "src/gen/x.ts"));
        assert!(!hit(&["*.ts", "!gen.ts"], "gen.ts"));
        assert!(hit(&["*.ts", "!gen.ts"], "a.ts"));
        assert!(!hit(&["!src/**"], "src/x.ts"));
    }

    #[test]
    fn matching_is_case_insensitive() {
        assert!(hit(&["*.MD"], "docs/x.md"));
    }

    #[test]
    fn skipped_patterns() {
        assert_eq!(check("# c"), Err(Unusable::Skipped));
        assert_eq!(check("   "), Err(Unusable::Skipped));
        assert_eq!(check("a\\"), Err(Unusable::Skipped));
        assert!(check("a\\\\").is_ok());
    }

    #[test]
    fn dot_relative_and_absolute_paths_never_match() {
        for p in ["../x.ts", "./x.ts", "..", ".", "/x.ts", ""] {
            assert!(!hit(&["*"], p), "{p}");
        }
        assert!(hit(&["*"], "..x"));
    }

    #[test]
    fn escapes_and_specials() {
        assert!(hit(&["a+b(c).md"], "a+b(c).md"));
        assert!(hit(&["\\#x"], "#x"));
        assert!(hit(&["\\!x"], "!x"));
        assert!(hit(&["a?c"], "abc"));
        assert!(!hit(&["a?c"], "a/c"));
        assert!(hit(&["x\\ "], "x "));
        assert!(hit(&["x "], "x"));
    }

    #[test]
    fn sources_run_linear_unless_they_need_backtracking() {
        let engine = |p: &str| compile(p).unwrap().engine;
        assert!(matches!(
            engine("*a*a*a*a*a*a*a*a*a*a*a*a*b"),
            Engine::Linear(_)
        ));
        assert!(matches!(
            engine("src/**/[!a-c]?.{ts,js}"),
            Engine::Linear(_)
        ));
        // `\b` (one backslash before a letter) is a word boundary: left to regress.
        assert!(matches!(engine("\\bsrc*"), Engine::Backtrack(..)));
        assert!(hit(&["\\bsrc*"], "lib/src.rs"));
        assert!(!hit(&["\\bsrc*"], "lib/xsrc.rs"));
    }

    #[test]
    fn backtracking_over_the_budget_is_refused_and_named() {
        let pattern = "*\\b*\\b*\\b*\\b*\\b*\\bz";
        let m = Matcher::new(&[pattern]);
        let long = format!("{}y", "ab".repeat(2000));
        assert_eq!(m.matched(&long), None);
        assert_eq!(m.refused(), [pattern]);
        assert_eq!(Matcher::new(&[pattern]).matched("z"), Some(pattern));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(pattern in "[a-z/*?!#\\\\\\[\\]{}. ^-]{0,12}", path in "[a-z/.]{0,10}") {
            let _ = Matcher::new(&[pattern.as_str()]).matched(&path);
        }

        /// The linear engine gives regress's verdict (on paths where regress follows the
        /// standard: no `ſ`, no Kelvin sign).
        #[test]
        fn linear_agrees_with_regress(
            pattern in "[a-zA-Zé*?/\\\\\\[\\]!^.+()|{}, -]{0,14}",
            path in "[a-zA-ZéÉ/.+()| -]{0,14}",
        ) {
            if let Ok(Rule { engine: Engine::Linear(re), .. }) = compile(&pattern) {
                let source = to_regex(strip_negation(&pattern)).unwrap();
                let slow = regress::Regex::with_flags(&source, "i").unwrap();
                proptest::prop_assert_eq!(re.is_match(&path), slow.find(&path).is_some(), "{}", source);
            }
        }
    }
}

/// Differential vectors: the client's own matcher, run under node, on 6,003 pairs.
#[cfg(test)]
mod vectors {
    use super::*;

    /// (In the repository, not in the published crate.)
    #[test]
    #[cfg_attr(
        not(ccmem_repository),
        ignore = "reads tests/oracle/matcher/, which only the repository holds"
    )]
    fn agree_with_the_client_matcher() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/oracle/matcher/gitignore-vectors.jsonl"
        );
        let data = &std::fs::read_to_string(path).unwrap();
        let mut failures = Vec::new();
        for line in data.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let patterns: Vec<&str> = v["p"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            let path = v["f"].as_str().unwrap();
            let m = Matcher::new(&patterns);
            let want = v["r"] == 1;
            let valid = v["v"].as_u64().unwrap() as usize;
            let usable = patterns
                .iter()
                .filter(|p| !matches!(check(p), Err(Unusable::Invalid(_))))
                .count();
            if usable != valid || m.matched(path).is_some() != want {
                failures.push(line.to_owned());
            }
        }
        assert!(
            failures.is_empty(),
            "{} disagree:\n{}",
            failures.len(),
            failures[..failures.len().min(20)].join("\n")
        );
    }
}
