use super::*;
use crate::load::SkipWhy;

/// The Windows model's one rule the loader's tests cannot hold under wine: which files a
/// `Read` deny rule withholds. The receipt says so when the settings have such a rule.
#[test]
fn the_windows_model_says_its_read_deny_matching_is_unverified() {
    let env_of = |platform: &str| {
        let vars = [("CCMEM_PLATFORM".to_owned(), platform.to_owned())].into();
        ClientEnv::new(std::env::temp_dir(), vars, Default::default())
    };
    let deny_notes = |env: &ClientEnv, rules: usize| -> Vec<String> {
        PlatformView::of(env, Vec::new(), Vec::new(), rules)
            .unverified
            .into_iter()
            .filter(|u| u.contains("deny"))
            .collect()
    };
    let windows = env_of("windows");
    assert_eq!(deny_notes(&windows, 0), Vec::<String>::new());
    assert_eq!(
        deny_notes(&windows, 1),
        [
            "on Windows: which files the settings' 1 Read deny rule (permissions.deny) withhold: \
          ccmem matches them as posix paths, and how the Windows client matches them against \
          C:\\ paths is not captured"
        ]
    );
    assert!(deny_notes(&windows, 3)[0].contains("3 Read deny rules "));
    for posix in ["linux", "macos", "wsl"] {
        assert_eq!(
            deny_notes(&env_of(posix), 3),
            Vec::<String>::new(),
            "{posix}"
        );
    }
}

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
