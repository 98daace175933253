use super::*;
use crate::load::SkipWhy;

#[test]
fn conditional_rules_and_duplicates_are_not_findings() {
    assert_eq!(
        Finding::of_skip(&SkipWhy::Conditional { globs: vec![] }),
        None
    );
    assert_eq!(Finding::of_skip(&SkipWhy::Duplicate), None);
    assert_eq!(
        Finding::of_skip(&SkipWhy::Missing),
        Some(Finding::Unloadable)
    );
    assert_eq!(
        Finding::of_skip(&SkipWhy::DepthLimit),
        Some(Finding::Blocked)
    );
}
