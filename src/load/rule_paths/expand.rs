//! The client's pattern list for one `paths:` value (`p6n` → `ra` → `Eu`): strings split on
//! commas outside braces, trimmed, brace-expanded under a budget shared by the whole value.
//!
//! Lengths in the budget are UTF-16 code units, as the client's `String.length`.

use crate::constants::{BRACE_BUDGET_RESULTS, BRACE_BUDGET_UTF16};
use crate::text::js;

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

/// A `paths` value as YAML gave it, reduced to what the client looks at.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string.
    Str(String),
    /// A sequence (flattened recursively).
    List(Vec<Value>),
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
    let mut budget = Budget::default();
    let mut out = Vec::new();
    flatten(value, &mut budget, &mut out);
    out
}

fn flatten(value: &Value, budget: &mut Budget, out: &mut Vec<String>) {
    match value {
        Value::List(items) => items.iter().for_each(|v| flatten(v, budget, out)),
        Value::Str(s) => {
            for part in split_commas(s) {
                out.extend(expand(&part, budget));
            }
        }
        Value::Truthy | Value::Falsy => {}
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
        let v = Value::List(vec![
            Value::Str("a,b".into()),
            Value::Truthy,
            Value::List(vec![Value::Str("{c,d}".into())]),
        ]);
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
        let v = Value::List(vec![Value::Str(half.clone()), Value::Str(half.clone())]);
        let got = pattern_list(&v);
        assert_eq!(got.len(), 601);
        assert_eq!(got[600], half);
    }
}
