//! What the simulated client would see when it starts: its platform, its working directory (as
//! a real path, the way `process.cwd()` reports it), its home folder, the environment switches,
//! and the command-line flags that change loading.
//!
//! The platform is the host's (WSL told apart from Linux the client's way), or the one
//! `CCMEM_PLATFORM` names (`linux`, `macos`, `windows`, `wsl`): the rules of another platform
//! then apply to this machine's files, as the client's own helpers take a platform argument.
//! What differs by platform here: the home folder (`USERPROFILE` on Windows), the managed folder
//! (`pr()`), the config folder's `path.join`, and the working directory's form (NFC on macOS,
//! without Rust's `\\?\` prefix on Windows).
//!
//! The process environment is read once, in `cli::main`, into a [`ProcessEnv`]: variables
//! decoded lossily (a byte that is not UTF-8 becomes U+FFFD, as node's `process.env` decodes
//! it; nothing panics), and the working directory (which may have vanished). Everything
//! downstream receives that value or a [`ClientEnv`] built from it, never `std::env`, so tests
//! can build either by hand.
#![allow(
    clippy::disallowed_methods,
    reason = "this is the environment snapshot the rule sends every read to"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::platform::Platform;
use crate::text::path;

mod host;
mod own_vars;
mod path_search;
use host::{client_cwd, config_dir_of, home_of};
pub use host::{host_platform, platform_in_use};
pub use own_vars::Dropped;
pub use path_search::{PathHit, find_on_path, is_executable};

/// The client version this model reproduces (defined in `constants`).
pub use crate::constants::CLIENT_VERSION;

/// The variable that chooses the platform model (`linux`, `macos`, `windows`, `wsl`).
pub const PLATFORM_VAR: &str = "CCMEM_PLATFORM";

/// The variable that points the managed-policy folder elsewhere (tests; the client itself has
/// no override in this version: `oya()` returns undefined).
pub const MANAGED_DIR_VAR: &str = "CCMEM_MANAGED_DIR";

/// Client flags that change what loads (same names as the client's own flags).
#[derive(Debug, Clone, Default)]
pub struct ClientFlags {
    /// `--add-dir DIR`, as given (resolved against the cwd by the loader).
    pub add_dirs: Vec<String>,
    /// `--settings FILE|JSON`.
    pub settings: Option<String>,
    /// `--setting-sources LIST` (comma separated `user`, `project`, `local`).
    pub setting_sources: Option<String>,
    /// `--bare`.
    pub bare: bool,
    /// `--safe-mode`.
    pub safe_mode: bool,
    /// `--agents JSON`: extra agent definitions.
    pub agents: Option<String>,
}

/// A snapshot of everything the client would read from its process environment.
#[derive(Debug, Clone)]
pub struct ClientEnv {
    /// The platform model: whose rules apply.
    pub platform: Platform,
    /// The platform this machine is (the model's when `CCMEM_PLATFORM` is unset).
    pub host: Platform,
    /// The real path of the start directory (symlinks resolved; `$PWD` is ignored), in the
    /// platform's form (NFC on macOS, no `\\?\` on Windows).
    pub cwd: PathBuf,
    /// What node's `os.homedir()` returns: `$HOME`, on Windows `%USERPROFILE%`.
    pub home: PathBuf,
    /// The managed-policy folder.
    pub managed_dir: PathBuf,
    /// Client flags.
    pub flags: ClientFlags,
    vars: BTreeMap<String, String>,
    /// [`ClientEnv::config_dir`], found once (a load asks for it at every rules folder).
    config: PathBuf,
}

impl ClientEnv {
    /// Builds an environment from explicit parts (`cwd` must already be a real path). The
    /// platform is `CCMEM_PLATFORM`'s (an unknown name counts as unset: [`ProcessEnv`] refuses
    /// it first), else the host's.
    pub fn new(cwd: PathBuf, vars: BTreeMap<String, String>, flags: ClientFlags) -> Self {
        let host = host_platform(&vars);
        let platform = vars
            .get(PLATFORM_VAR)
            .and_then(|v| Platform::from_name(v))
            .unwrap_or(host);
        let home = home_of(platform, &vars);
        let managed_dir = vars
            .get(MANAGED_DIR_VAR)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(platform.managed_dir()));
        let config = config_dir_of(platform, &home, vars.get("CLAUDE_CONFIG_DIR"));
        Self {
            platform,
            host,
            cwd: client_cwd(platform, cwd),
            home,
            managed_dir,
            flags,
            vars,
            config,
        }
    }

    /// The raw value of an environment variable.
    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str)
    }

    /// Every variable the session sees (another session in this environment starts with
    /// them).
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// The client's truthy test: trimmed, lower-cased value in {1, true, yes, on}.
    pub fn is_truthy(&self, key: &str) -> bool {
        self.var(key).is_some_and(is_truthy)
    }

    /// The client's falsy test: trimmed, lower-cased value in {0, false, no, off}.
    pub fn is_falsy(&self, key: &str) -> bool {
        self.var(key).is_some_and(|v| {
            matches!(
                v.trim().to_lowercase().as_str(),
                "0" | "false" | "no" | "off"
            )
        })
    }

    /// The config home: `CLAUDE_CONFIG_DIR` verbatim when set (even relative or empty),
    /// else `path.join(homedir(), ".claude")`; NFC-normalized as the client does on every
    /// platform (`rt`, chunk-8q1xh8ej).
    pub fn config_dir(&self) -> PathBuf {
        self.config.clone()
    }

    /// The client's global config file (`.claude.json`): inside `CLAUDE_CONFIG_DIR` when set,
    /// else `$HOME/.claude.json`.
    pub fn global_config_path(&self) -> PathBuf {
        let dir = match self.var("CLAUDE_CONFIG_DIR") {
            Some(dir) => dir.to_owned(),
            None => self.home.to_string_lossy().into_owned(),
        };
        PathBuf::from(path::join(self.platform, &[&dir, ".claude.json"]))
    }

    /// True when the whole instruction block is off (`--bare`, `CLAUDE_CODE_SIMPLE`,
    /// `--safe-mode`, `CLAUDE_CODE_SAFE_MODE`, `CLAUDE_CODE_DISABLE_CLAUDE_MDS`).
    pub fn instructions_disabled(&self) -> Option<&'static str> {
        if self.flags.bare {
            Some("--bare")
        } else if self.is_truthy("CLAUDE_CODE_SIMPLE") {
            Some("CLAUDE_CODE_SIMPLE")
        } else if self.flags.safe_mode {
            Some("--safe-mode")
        } else if self.is_truthy("CLAUDE_CODE_SAFE_MODE") {
            Some("CLAUDE_CODE_SAFE_MODE")
        } else if self.is_truthy("CLAUDE_CODE_DISABLE_CLAUDE_MDS") {
            Some("CLAUDE_CODE_DISABLE_CLAUDE_MDS")
        } else {
            None
        }
    }
}

/// The process environment, read once: every variable (lossily decoded) and the working
/// directory.
#[derive(Debug, Clone)]
pub struct ProcessEnv {
    vars: BTreeMap<String, String>,
    cwd: Result<PathBuf, String>,
    /// Resolved when first asked ([`ProcessEnv::exe`]): only `hook install` needs it, and its
    /// `readlink` of every component of the path cost every other command start-up time.
    exe: std::sync::OnceLock<Option<PathBuf>>,
    /// `CCMEM_*` variables a settings file's `env` set, left out of `vars` (`own_vars`).
    dropped: Vec<Dropped>,
}

impl ProcessEnv {
    /// Reads this process's environment and working directory. Never panics: a variable that is
    /// not UTF-8 is decoded lossily, a vanished working directory is kept as an error that
    /// [`ProcessEnv::cwd`] reports when a command needs it.
    pub fn read() -> Self {
        let mut vars = std::env::vars_os()
            .map(|(k, v)| (owned_lossy(k), owned_lossy(v)))
            .collect();
        // Linux's getcwd(2) already answers with the real path, as the client's `process.cwd()`
        // sees it; elsewhere resolve it.
        let cwd = std::env::current_dir();
        #[cfg(not(target_os = "linux"))]
        let cwd = cwd.and_then(|c| c.canonicalize());
        let dropped = own_vars::drop_settings_set(&mut vars, cwd.as_deref().ok());
        Self {
            vars,
            cwd: cwd.map_err(|e| e.to_string()),
            exe: std::sync::OnceLock::new(),
            dropped,
        }
    }

    /// The `CCMEM_*` variables left out because a settings file's `env` set them (the caller
    /// says so on stderr).
    pub fn dropped(&self) -> &[Dropped] {
        &self.dropped
    }

    /// An environment from explicit parts (tests; `cwd` must already be a real path).
    pub fn new(cwd: PathBuf, vars: BTreeMap<String, String>) -> Self {
        Self {
            vars,
            cwd: Ok(cwd),
            exe: std::sync::OnceLock::from(None),
            dropped: Vec::new(),
        }
    }

    /// The running binary (a real path), when the system says.
    pub fn exe(&self) -> Option<&Path> {
        self.exe
            .get_or_init(|| {
                std::env::current_exe()
                    .ok()
                    .and_then(|p| p.canonicalize().ok())
            })
            .as_deref()
    }

    /// Every variable, lossily decoded.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }

    /// One variable.
    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str)
    }

    /// The working directory (a real path), or why there is none (say, it was removed).
    pub fn cwd(&self) -> anyhow::Result<&Path> {
        self.cwd
            .as_deref()
            .map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))
    }

    /// The platform model `CCMEM_PLATFORM` chooses, else the host's; an unknown name is an
    /// error naming the ones there are.
    pub fn platform(&self) -> anyhow::Result<Platform> {
        match self.var(PLATFORM_VAR) {
            None => Ok(host_platform(&self.vars)),
            Some(name) => Platform::from_name(name).ok_or_else(|| {
                anyhow::anyhow!(
                    "{PLATFORM_VAR}={name:?} names no platform model: use linux, macos, windows \
                     or wsl"
                )
            }),
        }
    }

    /// The client environment of a client started in the working directory with `flags`.
    pub fn client_env(&self, flags: ClientFlags) -> anyhow::Result<ClientEnv> {
        self.platform()?;
        Ok(ClientEnv::new(
            self.cwd()?.to_owned(),
            self.vars.clone(),
            flags,
        ))
    }

    /// The client environment of a session started in `dir` (a hook's `cwd`; empty: the
    /// working directory), resolved to its real path as the client's `process.cwd()` reports
    /// it.
    pub fn client_env_in(&self, dir: &str) -> anyhow::Result<ClientEnv> {
        self.platform()?;
        let dir = if dir.is_empty() {
            self.cwd()?.to_owned()
        } else {
            PathBuf::from(dir)
        };
        let real = dir.canonicalize().map_err(|e| {
            anyhow::anyhow!(
                "cannot resolve the session directory {}: {e}",
                dir.display()
            )
        })?;
        Ok(ClientEnv::new(
            real,
            self.vars.clone(),
            ClientFlags::default(),
        ))
    }
}

fn lossy(s: &OsStr) -> String {
    s.to_string_lossy().into_owned()
}

/// [`lossy`] keeping the buffer when the value is UTF-8 (every variable, at every start).
pub(super) fn owned_lossy(s: std::ffi::OsString) -> String {
    s.into_string().unwrap_or_else(|s| lossy(&s))
}

/// The client's truthy test on a raw string.
pub fn is_truthy(value: &str) -> bool {
    matches!(
        value.trim().to_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

/// ccmem's own cache folder for these environment variables: `$XDG_CACHE_HOME/ccmem` when
/// that is absolute, else `$HOME/.cache/ccmem` (the client versions `verify` runs, the hooks'
/// version check).
pub fn cache_dir(vars: &BTreeMap<String, String>) -> Option<PathBuf> {
    match vars.get("XDG_CACHE_HOME").filter(|v| v.starts_with('/')) {
        Some(x) => Some(Path::new(x).join("ccmem")),
        None => vars.get("HOME").map(|h| Path::new(h).join(".cache/ccmem")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> ClientEnv {
        let vars = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ClientEnv::new(PathBuf::from("/p"), vars, ClientFlags::default())
    }

    #[test]
    fn truthy_values_follow_the_client() {
        for v in ["1", "true", " YES ", "On"] {
            assert!(env(&[("X", v)]).is_truthy("X"), "{v}");
        }
        for v in ["0", "false", "", "2", "y"] {
            assert!(!env(&[("X", v)]).is_truthy("X"), "{v}");
        }
        assert!(env(&[("X", " off")]).is_falsy("X"));
    }

    #[test]
    fn config_dir_prefers_env_verbatim() {
        assert_eq!(
            env(&[("HOME", "/h")]).config_dir(),
            PathBuf::from("/h/.claude")
        );
        assert_eq!(
            env(&[("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "rel")]).config_dir(),
            PathBuf::from("rel")
        );
        assert_eq!(
            env(&[("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "/c")]).global_config_path(),
            PathBuf::from("/c/.claude.json")
        );
    }

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn process_env_resolves_a_session_dir_to_its_real_path() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        let p = ProcessEnv::new(PathBuf::from("/"), BTreeMap::new());
        let env = p.client_env_in(link.to_str().unwrap()).unwrap();
        assert_eq!(env.cwd, dir.path().canonicalize().unwrap());
        let err = p.client_env_in("/no/such/dir/ccmem").unwrap_err();
        assert!(err.to_string().contains("/no/such/dir/ccmem"), "{err}");
    }

    #[test]
    fn disable_claude_mds_zero_does_not_disable() {
        assert_eq!(
            env(&[("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "0")]).instructions_disabled(),
            None
        );
        assert!(
            env(&[("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1")])
                .instructions_disabled()
                .is_some()
        );
    }

    #[test]
    fn cache_dir_prefers_absolute_xdg() {
        let vars = |kv: &[(&str, &str)]| {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        assert_eq!(
            cache_dir(&vars(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/ccmem"))
        );
        assert_eq!(
            cache_dir(&vars(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/ccmem"))
        );
        assert_eq!(cache_dir(&vars(&[])), None);
    }

    #[test]
    fn an_unknown_platform_name_is_refused() {
        let vars = [(PLATFORM_VAR.to_owned(), "darwin".to_owned())].into();
        let p = ProcessEnv::new(PathBuf::from("/"), vars);
        let err = p.client_env(ClientFlags::default()).unwrap_err();
        assert!(
            err.to_string().contains("linux, macos, windows or wsl"),
            "{err}"
        );
        let ok = ProcessEnv::new(
            PathBuf::from("/"),
            [(PLATFORM_VAR.to_owned(), "wsl".to_owned())].into(),
        );
        assert_eq!(
            ok.client_env(ClientFlags::default()).unwrap().platform,
            Platform::Wsl
        );
    }
}
