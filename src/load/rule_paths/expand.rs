//! The client's pattern list for one `paths:` value (`p6n` → `ra` → `Eu`): strings split on
//! commas outside braces, trimmed, brace-expanded under a budget shared by the whole value.
//!
//! Lengths in the budget are UTF-16 code units, as the client's `String.length`.
//!
//! A value may name far more strings than it holds: YAML aliases share one list between many
//! places (up to 16 Mi nodes, [`crate::text::frontmatter::yaml::MAX_ALIAS_NODES`]), and the
//! client flattens them all (5.3 million patterns from a 400-byte `paths:`, 2.5 s and 650 MB in
//! the client). The list is found here in time and memory bounded by what the value holds: a
//! shared list that no longer depends on the budget (no `{` in it, or the budget spent, after
//! which every pattern is kept as it is) is walked once, and a list of more than
//! [`MAX_LISTED`] patterns keeps each pattern once, at its LAST place. The matcher's verdict is
//! the last pattern that matches a path (`Matcher::matched`), so the same files match; only the
//! order in which repeated patterns are listed differs.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::constants::{BRACE_BUDGET_RESULTS, BRACE_BUDGET_UTF16};
use crate::text::js;

/// Patterns a `paths:` value lists as the client lists them, repeats included; a longer list
/// keeps each pattern once (see the module docs).
pub const MAX_LISTED: u64 = 10_000;

/// What is left of the expansion budget of one `paths` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Results still allowed.
    pub results: i64,
    /// UTF-16 units still allowed.
    pub utf16_units: i64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            results: BRACE_BUDGET_RESULTS,
            utf16_units: BRACE_BUDGET_UTF16,
        }
    }
}

impl Budget {
    /// Spent for good: every pattern [`expand`] is given from now on comes back as it is (no
    /// result left, or the units below zero; both only go down).
    fn spent(&self) -> bool {
        self.results <= 0 || self.utf16_units < 0
    }
}

/// A `paths` value as YAML gave it, reduced to what the client looks at. Lists are shared as
/// the YAML value shares them.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string.
    Str(String),
    /// A sequence (flattened recursively).
    List(Arc<Vec<Value>>),
    /// Anything else the client finds truthy (non-zero number, `true`, a mapping).
    Truthy,
    /// `null`, `false`, `0`, `NaN`, `""`: the client's `n.paths ?` test fails.
    Falsy,
}

impl Value {
    /// JavaScript truthiness of the value.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Str(s) => !s.is_empty(),
            Value::List(_) | Value::Truthy => true,
            Value::Falsy => false,
        }
    }
}

/// The pattern list of a `paths` value (`ra`), before the `/**` suffix removal.
pub(super) fn pattern_list(value: &Value) -> Vec<String> {
    let mut walk = Walk::default();
    let mut log = Vec::new();
    walk.forward(value, &mut Budget::default(), &mut log);
    let total = log
        .iter()
        .fold(0u64, |n, item| n.saturating_add(walk.count(item)));
    let mut out = Vec::new();
    if total <= MAX_LISTED {
        for item in &log {
            walk.emit(item, &mut out);
        }
        return out;
    }
    let (mut seen, mut done) = (HashSet::new(), HashSet::new());
    let mut keep = |p: &str, out: &mut Vec<String>| {
        if !seen.contains(p) {
            seen.insert(p.to_owned());
            out.push(p.to_owned());
        }
    };
    for item in log.iter().rev() {
        walk.emit_last_first(item, &mut done, &mut keep, &mut out);
    }
    out.reverse();
    out
}

/// One step of the flattened value, in order.
enum Item<'v> {
    /// Every string of this value split, each part as it is (nothing in it is expanded).
    Same(&'v Value),
    /// A string whose parts were expanded: the parts that changed, by place.
    Expanded(&'v str, Vec<(usize, Vec<String>)>),
}

/// What [`pattern_list`] learns of the strings and lists of a value once, by address (the value
/// is borrowed for the whole walk: addresses are its own).
#[derive(Default)]
struct Walk {
    /// Each string's parts (split on commas) and the places of those holding a `{`.
    parts: HashMap<(usize, usize), (Vec<String>, Vec<usize>)>,
    /// Whether a list holds a `{` anywhere.
    braces: HashMap<usize, bool>,
    /// The patterns a list gives when nothing in it is expanded.
    counts: HashMap<usize, u64>,
}

fn list_at(items: &Arc<Vec<Value>>) -> usize {
    Arc::as_ptr(items) as usize
}

impl Walk {
    fn parts(&mut self, s: &str) -> &(Vec<String>, Vec<usize>) {
        self.parts
            .entry((s.as_ptr() as usize, s.len()))
            .or_insert_with(|| {
                let parts = split_commas(s);
                let braces = (parts.iter().enumerate())
                    .filter(|(_, p)| p.contains('{'))
                    .map(|(k, _)| k)
                    .collect();
                (parts, braces)
            })
    }

    fn has_brace(&mut self, v: &Value) -> bool {
        match v {
            Value::Str(s) => s.contains('{'),
            Value::List(items) => {
                if let Some(&b) = self.braces.get(&list_at(items)) {
                    return b;
                }
                let b = items.iter().any(|i| self.has_brace(i));
                self.braces.insert(list_at(items), b);
                b
            }
            Value::Truthy | Value::Falsy => false,
        }
    }

    /// The value in order, the budget spent as the client spends it; what no longer depends on
    /// the budget is left whole ([`Item::Same`]).
    fn forward<'v>(&mut self, v: &'v Value, budget: &mut Budget, log: &mut Vec<Item<'v>>) {
        if budget.spent() || !self.has_brace(v) {
            log.push(Item::Same(v));
            return;
        }
        match v {
            Value::List(items) => items.iter().for_each(|i| self.forward(i, budget, log)),
            Value::Str(s) => {
                let (parts, braces) = self.parts(s);
                let mut changed = Vec::new();
                for &k in braces {
                    let got = expand(&parts[k], budget);
                    if got.len() != 1 || got[0] != parts[k] {
                        changed.push((k, got));
                    }
                }
                log.push(Item::Expanded(s, changed));
            }
            Value::Truthy | Value::Falsy => {}
        }
    }

    /// How many patterns an item gives.
    fn count(&mut self, item: &Item<'_>) -> u64 {
        match item {
            Item::Same(v) => self.count_same(v),
            Item::Expanded(s, changed) => {
                let parts = self.parts(s).0.len() as u64;
                (changed.iter()).fold(parts, |n, (_, got)| n - 1 + got.len() as u64)
            }
        }
    }

    fn count_same(&mut self, v: &Value) -> u64 {
        match v {
            Value::Str(s) => self.parts(s).0.len() as u64,
            Value::List(items) => {
                if let Some(&n) = self.counts.get(&list_at(items)) {
                    return n;
                }
                let n = (items.iter()).fold(0u64, |n, i| n.saturating_add(self.count_same(i)));
                self.counts.insert(list_at(items), n);
                n
            }
            Value::Truthy | Value::Falsy => 0,
        }
    }

    /// Appends an item's patterns in order.
    fn emit(&mut self, item: &Item<'_>, out: &mut Vec<String>) {
        match item {
            Item::Same(Value::Str(s)) => out.extend(self.parts(s).0.iter().cloned()),
            Item::Same(Value::List(items)) => {
                for i in items.iter() {
                    self.emit(&Item::Same(i), out);
                }
            }
            Item::Same(_) => {}
            Item::Expanded(s, changed) => {
                let mut changed = changed.iter().peekable();
                for (k, part) in self.parts(s).0.iter().enumerate() {
                    match changed.next_if(|(at, _)| *at == k) {
                        Some((_, got)) => out.extend(got.iter().cloned()),
                        None => out.push(part.clone()),
                    }
                }
            }
        }
    }

    /// Passes an item's patterns to `keep` LAST FIRST; a list met again is skipped (everything
    /// in it was met at a later place already). `done`: the lists met.
    fn emit_last_first(
        &mut self,
        item: &Item<'_>,
        done: &mut HashSet<usize>,
        keep: &mut impl FnMut(&str, &mut Vec<String>),
        out: &mut Vec<String>,
    ) {
        match item {
            Item::Same(Value::Str(s)) => {
                for p in self.parts(s).0.iter().rev() {
                    keep(p, out);
                }
            }
            Item::Same(Value::List(items)) => {
                if done.insert(list_at(items)) {
                    for i in items.iter().rev() {
                        self.emit_last_first(&Item::Same(i), done, keep, out);
                    }
                }
            }
            Item::Same(_) => {}
            Item::Expanded(..) => {
                let mut all = Vec::new();
                self.emit(item, &mut all);
                for p in all.iter().rev() {
                    keep(p, out);
                }
            }
        }
    }
}

/// Splits on commas at brace depth 0 (depth may go negative, as in the client), trims each
/// part and drops empty ones.
pub fn split_commas(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut depth: i64 = 0;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                push_trimmed(&mut parts, &cur);
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    push_trimmed(&mut parts, &cur);
    parts
}

fn push_trimmed(parts: &mut Vec<String>, s: &str) {
    let t = js::trim(s);
    if !t.is_empty() {
        parts.push(t.to_owned());
    }
}

/// Brace expansion of one pattern (`Eu`): the first `{…}` group (no `}` inside, non-empty)
/// is split on commas, alternatives trimmed, depth-first in order. Over budget, the pattern is
/// kept unexpanded (what was spent on the attempt stays spent, as in the client).
pub fn expand(pattern: &str, budget: &mut Budget) -> Vec<String> {
    if !pattern.contains('{') {
        return vec![pattern.to_owned()];
    }
    let pattern_units = js::utf16_len(pattern) as i64;
    let mut done: Vec<String> = Vec::new();
    let mut stack = vec![pattern.to_owned()];
    while let Some(item) = stack.pop() {
        let Some((prefix, inner, rest)) = first_group(&item) else {
            done.push(item);
            continue;
        };
        let alternatives: Vec<&str> = inner.split(',').map(js::trim).collect();
        budget.utf16_units -= js::utf16_len(&item) as i64;
        let count = (done.len() + stack.len() + alternatives.len()) as i64;
        if budget.utf16_units < 0
            || count > budget.results
            || count.saturating_mul(pattern_units) > budget.utf16_units
        {
            return vec![pattern.to_owned()];
        }
        for alt in alternatives.iter().rev() {
            stack.push(format!("{prefix}{alt}{rest}"));
        }
    }
    budget.results -= done.len() as i64;
    budget.utf16_units -= done.len() as i64 * pattern_units;
    done
}

/// `^([^{]*)\{([^}]+)\}(.*)$` without the `m` flag: the rest may hold no line terminator.
fn first_group(s: &str) -> Option<(&str, &str, &str)> {
    let open = s.find('{')?;
    let close = open + 1 + s[open + 1..].find('}')?;
    if close == open + 1 {
        return None;
    }
    let rest = &s[close + 1..];
    if rest.contains(['\n', '\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    Some((&s[..open], &s[open + 1..close], rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &str) -> Vec<String> {
        pattern_list(&Value::Str(s.to_owned()))
    }

    #[test]
    fn commas_split_outside_braces_only() {
        assert_eq!(list(" a , b,,c "), ["a", "b", "c"]);
        assert_eq!(
            list("src/*.{ts,tsx}, lib"),
            ["src/*.ts", "src/*.tsx", "lib"]
        );
        assert_eq!(split_commas("a},b"), ["a},b"]);
    }

    #[test]
    fn braces_expand_in_order_and_nest() {
        assert_eq!(list("{a,b}/{c,d}"), ["a/c", "a/d", "b/c", "b/d"]);
        assert_eq!(list("x{ a , b }y"), ["xay", "xby"]);
        assert_eq!(list("{a,{b,c}}"), ["a}", "b", "c}"]);
        assert_eq!(list("a{}b"), ["a{}b"]);
        assert_eq!(list("a{b"), ["a{b"]);
    }

    #[test]
    fn lists_flatten_and_drop_non_strings() {
        let v = Value::List(Arc::new(vec![
            Value::Str("a,b".into()),
            Value::Truthy,
            Value::List(Arc::new(vec![Value::Str("{c,d}".into())])),
        ]));
        assert_eq!(pattern_list(&v), ["a", "b", "c", "d"]);
    }

    #[test]
    fn budget_boundary_is_one_thousand_results() {
        let at = format!("{{{}}}", vec!["**"; 1000].join(","));
        assert_eq!(list(&at).len(), 1000);
        let over = format!("{{{}}}", vec!["**"; 1001].join(","));
        assert_eq!(list(&over), std::slice::from_ref(&over));
    }

    #[test]
    fn budget_is_shared_by_one_value() {
        let half = format!("{{{}}}", vec!["x"; 600].join(","));
        let v = Value::List(Arc::new(vec![
            Value::Str(half.clone()),
            Value::Str(half.clone()),
        ]));
        let got = pattern_list(&v);
        assert_eq!(got.len(), 601);
        assert_eq!(got[600], half);
    }
}
