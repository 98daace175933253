//! Whether auto memory is on (`oS` → `PAe` → `Kg`, chunk-6bm6jz2w), checked in the client's
//! order: safe mode; `CLAUDE_CODE_DISABLE_AUTO_MEMORY` truthy (off) or falsy (forced on);
//! `CLAUDE_CODE_SIMPLE`/`--bare`; `CLAUDE_CODE_REMOTE` without a memory folder override; then the
//! merged `autoMemoryEnabled` setting (default on). Server feature gates are off offline.

use crate::env::ClientEnv;
use crate::settings::Settings;

/// Why auto memory is off for the whole session, or `None` when it is on.
pub fn off_reason(env: &ClientEnv, settings: &Settings) -> Option<String> {
    if env.flags.safe_mode || env.is_truthy("CLAUDE_CODE_SAFE_MODE") {
        return Some("safe mode".into());
    }
    if env.is_truthy("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
        return Some("CLAUDE_CODE_DISABLE_AUTO_MEMORY".into());
    }
    if env.is_falsy("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
        return None;
    }
    if env.flags.bare {
        return Some("--bare".into());
    }
    if env.is_truthy("CLAUDE_CODE_SIMPLE") {
        return Some("CLAUDE_CODE_SIMPLE".into());
    }
    if env.is_truthy("CLAUDE_CODE_REMOTE")
        && !non_empty(env, crate::constants::REMOTE_MEMORY_DIR_ENV)
        && !non_empty(env, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    {
        return Some("CLAUDE_CODE_REMOTE without a memory folder override".into());
    }
    match settings.merged("/autoMemoryEnabled") {
        Some((serde_json::Value::Bool(false), layer)) => {
            Some(format!("autoMemoryEnabled: false in {}", layer.origin))
        }
        _ => None,
    }
}

/// Memory-store mode (`R1e`): a non-blank `CLAUDE_MEMORY_STORES` filters the entry out.
pub fn memory_store_mode(env: &ClientEnv) -> bool {
    env.var("CLAUDE_MEMORY_STORES")
        .is_some_and(|v| !crate::text::js::trim(v).is_empty())
}

/// The variable is set to a non-empty value (the client's `!process.env.X` test, negated).
pub fn non_empty(env: &ClientEnv, key: &str) -> bool {
    env.var(key).is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::env::ClientFlags;

    fn env(vars: &[(&str, &str)], bare: bool) -> ClientEnv {
        let vars = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let flags = ClientFlags {
            bare,
            ..ClientFlags::default()
        };
        ClientEnv::new(PathBuf::from("/p"), vars, flags)
    }

    fn settings(json: &str) -> Settings {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("cfg")).unwrap();
        std::fs::write(t.path().join("cfg/settings.json"), json).unwrap();
        let e = env(
            &[("CLAUDE_CONFIG_DIR", t.path().join("cfg").to_str().unwrap())],
            false,
        );
        Settings::load(&e)
    }

    #[test]
    fn switch_order() {
        let none = Settings::default();
        assert!(off_reason(&env(&[], false), &none).is_none());
        assert!(
            off_reason(
                &env(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")], false),
                &none
            )
            .is_some()
        );
        let off = settings(r#"{"autoMemoryEnabled": false}"#);
        assert!(off_reason(&env(&[], false), &off).is_some());
        assert!(
            off_reason(
                &env(&[("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0")], false),
                &off
            )
            .is_none(),
            "falsy forces on over the setting"
        );
        assert!(
            off_reason(
                &env(
                    &[
                        ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "0"),
                        ("CLAUDE_CODE_SAFE_MODE", "1")
                    ],
                    false
                ),
                &none
            )
            .is_some()
        );
        assert!(off_reason(&env(&[], true), &none).is_some());
    }

    #[test]
    fn remote_needs_an_override() {
        let none = Settings::default();
        assert!(off_reason(&env(&[("CLAUDE_CODE_REMOTE", "true")], false), &none).is_some());
        assert!(
            off_reason(
                &env(
                    &[
                        ("CLAUDE_CODE_REMOTE", "true"),
                        ("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/m")
                    ],
                    false
                ),
                &none
            )
            .is_none()
        );
    }

    #[test]
    fn memory_stores_blank_is_ignored() {
        assert!(memory_store_mode(&env(
            &[("CLAUDE_MEMORY_STORES", "[]")],
            false
        )));
        assert!(!memory_store_mode(&env(
            &[("CLAUDE_MEMORY_STORES", "  ")],
            false
        )));
    }
}
