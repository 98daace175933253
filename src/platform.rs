//! The platform the simulated client runs on: Linux, macOS, Windows or WSL.
//!
//! The client ships one build per platform and asks its own platform at run time (`A()`, the
//! `getPlatform` of chunk-84t780nh: `darwin` → `macos`, `win32` → `windows`, `linux` → `wsl`
//! when `WSL_DISTRO_NAME` or `WSL_INTEROP` is set or `/proc/version` names Microsoft or WSL,
//! else `linux`). Its loader then branches on that value in a few dozen places
//! (`tests/oracle/SPEC-platforms.md` lists them). ccmem keeps the branch a value too, chosen at
//! run time ([`crate::env`] reads `CCMEM_PLATFORM`, else the host), so every platform's rules run
//! and are tested on any machine; this module holds the facts that are a platform's alone.
//! The path rules that differ (node's `path.win32` against `path.posix`, the dedup key, refused
//! paths, …) live where they are used, in `text::path` and `load`, each taking a [`Platform`].

use std::fmt;

/// A platform of the client (`A()`'s values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// Linux (the linux-x64 and linux-arm64 builds).
    #[default]
    Linux,
    /// macOS (darwin builds): NFC paths, the managed folder under `/Library`.
    Macos,
    /// Windows (win32 builds): `path.win32`, `USERPROFILE`, case-folded dedup keys.
    Windows,
    /// The Linux build inside WSL: Linux's rules, plus what it inherits from Windows.
    Wsl,
}

impl Platform {
    /// Every platform, in the order the README lists them.
    pub const ALL: [Platform; 4] = [
        Platform::Linux,
        Platform::Macos,
        Platform::Windows,
        Platform::Wsl,
    ];

    /// The platform this binary was built for, before the WSL test (which needs the
    /// environment: [`crate::env`]).
    pub const fn compiled() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::Macos
        } else if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Linux
        }
    }

    /// The platform named `name` (`linux`, `macos`, `windows`, `wsl`: the client's own names).
    pub fn from_name(name: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The client's name of the platform (`A()`).
    pub const fn name(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::Macos => "macos",
            Platform::Windows => "windows",
            Platform::Wsl => "wsl",
        }
    }

    /// Whether paths are node's `path.win32` strings (`C:\Users\me\p`) rather than posix ones.
    pub const fn is_windows(self) -> bool {
        matches!(self, Platform::Windows)
    }

    /// Whether every path the client resolves is NFC-normalized (the darwin build's `fn(t) =
    /// t.normalize("NFC")`, applied to the working directory, real paths and imports; the
    /// linux and win32 builds' `fn` returns its argument).
    pub const fn nfc_paths(self) -> bool {
        matches!(self, Platform::Macos)
    }

    /// The managed-policy folder (`pr()`, chunk-fwa49gns; `oya()`, the override, returns
    /// undefined in this version). `C:` is written in even when `%ProgramFiles%` is on another
    /// drive; WSL reads Linux's folder.
    pub const fn managed_dir(self) -> &'static str {
        match self {
            Platform::Macos => "/Library/Application Support/ClaudeCode",
            Platform::Windows => "C:\\Program Files\\ClaudeCode",
            Platform::Linux | Platform::Wsl => "/etc/claude-code",
        }
    }

    /// node's `path.delimiter`: what separates `CLAUDE_CODE_AUTOMOUNT_ROOTS` (`e5`/`Z6`).
    pub const fn delimiter(self) -> char {
        if self.is_windows() { ';' } else { ':' }
    }

    /// node's `path.sep`.
    pub const fn sep(self) -> char {
        if self.is_windows() { '\\' } else { '/' }
    }

    /// Whether the client asks `statfs` whether a top-level folder is an autofs map root
    /// (`toe`: linux and wsl only).
    pub const fn checks_autofs(self) -> bool {
        matches!(self, Platform::Linux | Platform::Wsl)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_only_the_clients_names_parse() {
        for p in Platform::ALL {
            assert_eq!(Platform::from_name(p.name()), Some(p));
        }
        for bad in ["darwin", "win32", "Linux", "", "unknown"] {
            assert_eq!(Platform::from_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn managed_folders_are_the_clients() {
        assert_eq!(Platform::Linux.managed_dir(), "/etc/claude-code");
        assert_eq!(Platform::Wsl.managed_dir(), "/etc/claude-code");
        assert_eq!(
            Platform::Macos.managed_dir(),
            "/Library/Application Support/ClaudeCode"
        );
        assert_eq!(
            Platform::Windows.managed_dir(),
            r"C:\Program Files\ClaudeCode"
        );
    }

    #[test]
    fn separators_follow_node() {
        assert_eq!(Platform::Windows.delimiter(), ';');
        assert_eq!(Platform::Windows.sep(), '\\');
        for p in [Platform::Linux, Platform::Macos, Platform::Wsl] {
            assert_eq!((p.delimiter(), p.sep()), (':', '/'));
            assert!(!p.is_windows());
        }
        assert!(Platform::Macos.nfc_paths() && !Platform::Linux.nfc_paths());
        assert!(Platform::Wsl.checks_autofs() && !Platform::Macos.checks_autofs());
    }
}
