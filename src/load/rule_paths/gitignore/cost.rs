//! What a source may cost the backtracking engine: the bound a match is checked against before
//! `regress` runs it.

/// The shape of a source that bounds its backtracking: `len × (n+1)^(exponent+1) × branches`
/// steps on a path of `n` characters.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cost {
    len: f64,
    /// Unbounded quantifiers, lookarounds and backreferences.
    exponent: i32,
    /// The product of the alternatives of every group and of `?`'s two choices.
    branches: f64,
}

impl Cost {
    /// `None` when a quantified group holds a quantifier or an alternative (exponential).
    pub(super) fn of(source: &str) -> Option<Cost> {
        let chars: Vec<char> = source.chars().collect();
        // Per open group: whether it holds a choice (quantifier or `|`), its alternatives.
        let mut groups: Vec<(bool, f64)> = vec![(false, 1.0)];
        let mut cost = Cost {
            len: chars.len() as f64,
            exponent: 0,
            branches: 1.0,
        };
        // Whether the last atom was a group holding a choice.
        let mut last_group_choice = false;
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            let mut group_choice = false;
            match c {
                '\\' => {
                    if chars
                        .get(k + 1)
                        .is_some_and(|d| d.is_ascii_digit() && *d != '0' || *d == 'k')
                    {
                        cost.exponent += 1;
                    }
                    k += 1;
                }
                '[' => {
                    k += 1;
                    while k < chars.len() && chars[k] != ']' {
                        k += if chars[k] == '\\' { 2 } else { 1 };
                    }
                }
                '(' => {
                    if chars.get(k + 1) == Some(&'?') {
                        if chars.get(k + 2) != Some(&':') {
                            cost.exponent += 1; // a lookaround (or a named group)
                        }
                        // Past `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` or `(?<name>`.
                        k += 2;
                        if chars.get(k) == Some(&'<') {
                            while k < chars.len() && !matches!(chars[k], '>' | '=' | '!') {
                                k += 1;
                            }
                        }
                    }
                    groups.push((false, 1.0));
                }
                ')' => {
                    let (choice, alternatives) = groups.pop()?;
                    cost.branches *= alternatives;
                    group_choice = choice || alternatives > 1.0;
                    if let Some(outer) = groups.last_mut() {
                        outer.0 |= group_choice;
                    }
                    if groups.is_empty() {
                        return None;
                    }
                }
                '|' => {
                    let top = groups.last_mut()?;
                    top.1 += 1.0;
                }
                '*' | '+' | '?' | '{' => {
                    if last_group_choice {
                        return None;
                    }
                    if c == '?' {
                        cost.branches *= 2.0;
                    } else {
                        cost.exponent += 1;
                    }
                    if let Some(top) = groups.last_mut() {
                        top.0 = true;
                    }
                    if c == '{' {
                        while k < chars.len() && chars[k] != '}' {
                            k += 1;
                        }
                    }
                    // A lazy `?` after a quantifier is no new choice.
                    if chars.get(k + 1) == Some(&'?') {
                        k += 1;
                    }
                }
                _ => {}
            }
            last_group_choice = group_choice;
            k += 1;
        }
        cost.branches *= groups.first()?.1;
        Some(cost)
    }

    pub(super) fn steps(&self, n: usize) -> f64 {
        self.len * (n as f64 + 1.0).powi(self.exponent + 1) * self.branches
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_quantifiers_are_too_costly() {
        assert!(Cost::of("^(?:a+)+b").is_none());
        assert!(Cost::of("^(?:a|aa)*b").is_none());
        let c = Cost::of("(?:^|\\/)[^\\/]*\\b(?=$|\\/$)").unwrap();
        assert_eq!((c.exponent, c.branches), (2, 4.0));
    }
}
