//! The operating system's policy sources, which ccmem does not read, found so a receipt can
//! say so. The client reads them before the managed folder's files (`cU` remote, then `ve` the
//! MDM source, then `Ype` the files; the first that holds settings wins unless
//! `managedSourcesBehavior` asks for a merge), so where one exists ccmem's prediction of
//! everything `policySettings` decides (the `<managed-settings>` entry, `claudeMdExcludes`,
//! `autoMemoryDirectory`, `autoMemoryEnabled`) may differ from the client's.
//!
//! - macOS (`Yed`, chunk-w5bjrt72): `/Library/Managed Preferences/<user>/com.anthropic.claudecode.plist`
//!   (per-user; the user name from `os.userInfo()`, skipped when empty, `.`, `..`, or holding
//!   `/` or a control character), then `/Library/Managed Preferences/com.anthropic.claudecode.plist`
//!   (device), each converted with `/usr/bin/plutil -convert json`.
//! - Windows: the registry value `Settings` (JSON) under `HKLM\SOFTWARE\Policies\ClaudeCode`,
//!   and `HKCU\…` only when no administrator source exists (`Uya`). ccmem cannot look on
//!   another platform, and does not read the registry on Windows yet: it says so.
//! - WSL (`Eqs`, `nwe`): `/mnt/c/Program Files/ClaudeCode` (the Windows host's managed
//!   folder) joins the policy walk when a Windows administrator source sets
//!   `wslInheritsWindowsSettings: true` (read through `/mnt/c/Windows/System32/reg.exe`).
//!
//! `CCMEM_MANAGED_PREFERENCES` points the macOS folder elsewhere (tests), as
//! `CCMEM_MANAGED_DIR` does the managed folder.

use std::path::Path;

use crate::env::ClientEnv;
use crate::platform::Platform;

/// The macOS managed-preferences folder.
const MANAGED_PREFERENCES: &str = "/Library/Managed Preferences";
/// The variable that points it elsewhere (tests).
const MANAGED_PREFERENCES_VAR: &str = "CCMEM_MANAGED_PREFERENCES";
/// The preferences domain the client reads.
const DOMAIN: &str = "com.anthropic.claudecode";
/// The Windows host's managed folder seen from WSL (`SH`/`yD`).
const WSL_WINDOWS_MANAGED: &str = "/mnt/c/Program Files/ClaudeCode";

/// A policy source the client may read and ccmem does not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnreadPolicy {
    /// The file, folder or registry key.
    pub source: String,
    /// What the client does with it, and what ccmem cannot tell.
    pub note: String,
}

/// The unread policy sources of this environment's platform: those that exist, and on
/// Windows the registry, which is never looked at.
pub(crate) fn unread_sources(env: &ClientEnv) -> Vec<UnreadPolicy> {
    match env.platform {
        Platform::Linux => Vec::new(),
        Platform::Macos => plists(env)
            .into_iter()
            .filter(|p| Path::new(p).exists())
            .map(|source| UnreadPolicy {
                source,
                note: "macOS managed preferences: the client reads them before \
                       managed-settings.json (through plutil); ccmem does not, so policy \
                       settings may differ"
                    .into(),
            })
            .collect(),
        Platform::Windows => vec![UnreadPolicy {
            source: r"HKLM\SOFTWARE\Policies\ClaudeCode (and HKCU\…)".into(),
            note: "the registry's policy, which the client reads before managed-settings.json, \
                   is not read by ccmem: not checked"
                .into(),
        }],
        Platform::Wsl => Path::new(WSL_WINDOWS_MANAGED)
            .exists()
            .then(|| UnreadPolicy {
                source: WSL_WINDOWS_MANAGED.into(),
                note: "the Windows host's managed folder: the client reads it too when Windows \
                       policy sets wslInheritsWindowsSettings (from the registry, through \
                       reg.exe); ccmem does not"
                    .into(),
            })
            .into_iter()
            .collect(),
    }
}

/// The macOS plists the client asks `plutil` for, per user first (`Yed`).
fn plists(env: &ClientEnv) -> Vec<String> {
    let dir = env
        .var(MANAGED_PREFERENCES_VAR)
        .unwrap_or(MANAGED_PREFERENCES);
    let user = env.var("USER").unwrap_or("");
    let usable =
        !matches!(user, "" | "." | "..") && !user.chars().any(|c| c == '/' || c.is_ascii_control());
    let mut out = Vec::new();
    if usable {
        out.push(format!("{dir}/{user}/{DOMAIN}.plist"));
    }
    out.push(format!("{dir}/{DOMAIN}.plist"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn env(platform: &str, vars: &[(&str, &str)]) -> ClientEnv {
        let mut map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        map.insert("CCMEM_PLATFORM".into(), platform.into());
        ClientEnv::new(PathBuf::from("/p"), map, Default::default())
    }

    #[test]
    fn macos_plists_that_exist_are_listed_per_user_first() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().to_str().unwrap();
        std::fs::create_dir_all(t.path().join("me")).unwrap();
        std::fs::write(t.path().join("me/com.anthropic.claudecode.plist"), "x").unwrap();
        let vars = [("CCMEM_MANAGED_PREFERENCES", dir), ("USER", "me")];
        let found = unread_sources(&env("macos", &vars));
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].source,
            format!("{dir}/me/com.anthropic.claudecode.plist")
        );
        std::fs::write(t.path().join("com.anthropic.claudecode.plist"), "x").unwrap();
        assert_eq!(unread_sources(&env("macos", &vars)).len(), 2);
        // The same files mean nothing to the Linux model.
        assert!(unread_sources(&env("linux", &vars)).is_empty());
    }

    #[test]
    fn user_names_the_client_skips() {
        for user in ["", ".", "..", "a/b", "a\u{1}"] {
            let e = env("macos", &[("USER", user)]);
            assert_eq!(
                plists(&e),
                ["/Library/Managed Preferences/com.anthropic.claudecode.plist"]
            );
        }
    }

    #[test]
    fn windows_always_says_the_registry_is_unread() {
        let found = unread_sources(&env("windows", &[]));
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .source
                .starts_with(r"HKLM\SOFTWARE\Policies\ClaudeCode")
        );
    }
}
