//! The host and the platform model: which platform the host is, as the client tells it (WSL
//! apart from Linux), and what the platform makes of the home folder, the config folder and the
//! working directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

use super::{PLATFORM_VAR, owned_lossy};
use crate::platform::Platform;
use crate::text::path;

/// The platform model this process runs, for `ccmem --version`: `CCMEM_PLATFORM`'s when it
/// names one (said so), else the host's; an unknown name is said too (commands then refuse it).
pub fn platform_in_use() -> String {
    let vars: BTreeMap<String, String> = ["CCMEM_PLATFORM", "WSL_DISTRO_NAME", "WSL_INTEROP"]
        .into_iter()
        .filter_map(|k| Some((k.to_owned(), owned_lossy(std::env::var_os(k)?))))
        .collect();
    match vars.get(PLATFORM_VAR) {
        None => format!("{} (the host)", host_platform(&vars)),
        Some(v) => match Platform::from_name(v) {
            Some(p) => format!("{p} (from {PLATFORM_VAR})"),
            None => format!(
                "{} (the host; {PLATFORM_VAR}={v:?} names no platform model)",
                host_platform(&vars)
            ),
        },
    }
}

/// The host's platform as the client tells it (`getPlatform`, chunk-84t780nh): on a Linux
/// build, WSL when `WSL_DISTRO_NAME` or `WSL_INTEROP` is set (non-empty), else when
/// `/proc/version` (lower-cased) holds `microsoft` or `wsl` (`kAn`). The file is read once per
/// process.
pub fn host_platform(vars: &BTreeMap<String, String>) -> Platform {
    let compiled = Platform::compiled();
    if compiled != Platform::Linux {
        return compiled;
    }
    let wsl_var = ["WSL_DISTRO_NAME", "WSL_INTEROP"]
        .iter()
        .any(|k| vars.get(*k).is_some_and(|v| !v.is_empty()));
    if wsl_var || proc_version_says_wsl() {
        Platform::Wsl
    } else {
        Platform::Linux
    }
}

fn proc_version_says_wsl() -> bool {
    static WSL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WSL.get_or_init(|| {
        // One read: the kernel's one line fits (this runs at every start on Linux).
        let mut buf = [0u8; 512];
        let n = std::fs::File::open("/proc/version").and_then(|mut f| {
            use std::io::Read;
            f.read(&mut buf)
        });
        n.is_ok_and(|n| is_wsl_kernel(&String::from_utf8_lossy(&buf[..n])))
    })
}

/// `kAn`: a kernel string (`/proc/version`) of WSL.
fn is_wsl_kernel(version: &str) -> bool {
    let v = version.to_lowercase();
    v.contains("microsoft") || v.contains("wsl")
}

/// [`ClientEnv::config_dir`] of these parts.
pub(super) fn config_dir_of(
    platform: Platform,
    home: &Path,
    config_var: Option<&String>,
) -> PathBuf {
    let raw = match config_var {
        Some(dir) => dir.clone(),
        None => path::join(
            platform,
            &[&home.to_string_lossy(), crate::constants::CLAUDE_DIR],
        ),
    };
    if raw.is_ascii() {
        return PathBuf::from(raw); // ASCII is already NFC
    }
    PathBuf::from(raw.nfc().collect::<String>())
}

/// node's `os.homedir()`: `$HOME` (libuv's `uv_os_homedir` on Unix), `%USERPROFILE%` on
/// Windows, where `HOME` is ignored. Without the variable libuv asks the system (the password
/// database, the profile folder); ccmem falls back to `/` (to `HOME`, then `C:\` on Windows).
pub(super) fn home_of(platform: Platform, vars: &BTreeMap<String, String>) -> PathBuf {
    let get = |k: &str| vars.get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if platform.is_windows() {
        get("USERPROFILE")
            .or_else(|| get("HOME"))
            .unwrap_or_else(|| PathBuf::from("C:\\"))
    } else {
        vars.get("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/"))
    }
}

/// The working directory as the client stores it (`Ct`, chunk-kpsx6rkm): NFC-normalized on
/// macOS (so an NFD folder name is printed, slugged and compared in NFC), Rust's verbatim
/// `\\?\` prefix dropped on Windows (the client's `process.cwd()` never has it).
pub(super) fn client_cwd(platform: Platform, cwd: PathBuf) -> PathBuf {
    match platform {
        Platform::Macos => match cwd.to_str() {
            Some(s) if !s.is_ascii() => PathBuf::from(s.nfc().collect::<String>()),
            _ => cwd,
        },
        Platform::Windows => match cwd.to_str() {
            Some(s) => PathBuf::from(path::strip_verbatim(s).into_owned()),
            None => cwd,
        },
        Platform::Linux | Platform::Wsl => cwd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{ClientEnv, ClientFlags};

    #[test]
    fn wsl_is_told_from_linux_as_the_client_does() {
        let vars = |kv: &[(&str, &str)]| {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        if Platform::compiled() == Platform::Linux && !proc_version_says_wsl() {
            assert_eq!(host_platform(&vars(&[])), Platform::Linux);
            assert_eq!(
                host_platform(&vars(&[("WSL_DISTRO_NAME", "")])),
                Platform::Linux
            );
        }
        if Platform::compiled() == Platform::Linux {
            assert_eq!(
                host_platform(&vars(&[("WSL_INTEROP", "/run/x")])),
                Platform::Wsl
            );
        }
        assert!(is_wsl_kernel(
            "Linux version 5.15.90.1-microsoft-standard-WSL2"
        ));
        assert!(is_wsl_kernel("linux version 4.4.0-19041-Microsoft"));
        assert!(!is_wsl_kernel(
            "Linux version 6.18.44-fc-v1147 (builder@sandboxing)"
        ));
    }

    #[test]
    fn the_platform_decides_home_managed_folder_and_cwd_form() {
        let on = |platform: &str, cwd: &str, vars: &[(&str, &str)]| {
            let mut vars: BTreeMap<String, String> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            vars.insert(PLATFORM_VAR.into(), platform.into());
            ClientEnv::new(PathBuf::from(cwd), vars, ClientFlags::default())
        };
        let vars = [("HOME", "/h"), ("USERPROFILE", r"C:\Users\me")];
        let w = on("windows", r"\\?\C:\Users\me\p", &vars);
        assert_eq!(w.platform, Platform::Windows);
        assert_eq!(w.home, PathBuf::from(r"C:\Users\me"), "HOME is ignored");
        assert_eq!(w.cwd, PathBuf::from(r"C:\Users\me\p"), "no verbatim prefix");
        assert_eq!(w.managed_dir, PathBuf::from(r"C:\Program Files\ClaudeCode"));
        assert_eq!(w.config_dir(), PathBuf::from(r"C:\Users\me\.claude"));
        assert_eq!(
            w.global_config_path(),
            PathBuf::from(r"C:\Users\me\.claude.json")
        );
        let m = on("macos", "/r/cafe\u{301}", &vars);
        assert_eq!(m.home, PathBuf::from("/h"));
        assert_eq!(m.cwd, PathBuf::from("/r/caf\u{e9}"), "NFC");
        assert_eq!(
            m.managed_dir,
            PathBuf::from("/Library/Application Support/ClaudeCode")
        );
        let l = on("linux", "/r/cafe\u{301}", &vars);
        assert_eq!(l.cwd, PathBuf::from("/r/cafe\u{301}"), "byte for byte");
        assert_eq!(l.managed_dir, PathBuf::from("/etc/claude-code"));
        // The test folder still wins over the platform's.
        let t = on("macos", "/r", &[("CCMEM_MANAGED_DIR", "/t/m")]);
        assert_eq!(t.managed_dir, PathBuf::from("/t/m"));
    }
}
