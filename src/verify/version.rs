//! Which client version is installed, cheaply: `claude --version` cached by the binary's
//! path, modification time and size, so a hook can say "installed client differs" without
//! starting the client again.
//!
//! Cache file: `CACHE_DIR/client-version.json`, an object keyed by the binary's real path:
//! `{"/usr/bin/claude": {"mtime_ns": 1, "size": 2, "version": "2.1.332 (Claude Code)"}}`.
//! `CACHE_DIR` is `$XDG_CACHE_HOME/ccmem`, else `$HOME/.cache/ccmem` ([`crate::env::cache_dir`]).
//! It is written atomically (temp file + rename, see [`crate::write::append::replace_own`]); a
//! corrupt cache is ignored and rewritten.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::client;
use crate::constants::CLIENT_VERSION;

const FILE: &str = "client-version.json";

/// How long `claude --version` may take before the answer is "unknown".
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    mtime_ns: i128,
    size: u64,
    version: String,
}

/// The installed client's `--version` line (`claude` on `PATH`), from the cache when the
/// binary has not changed (`path`: the `PATH` to search); `None` when there is no client or it
/// does not answer.
pub fn installed_client_version(cache_dir: &Path, path: Option<&str>) -> Option<String> {
    let bin = client::resolve_bin(None, path).ok()?;
    cached_version(&bin, cache_dir)
}

/// `BIN --version`, cached in `cache_dir` by the binary's real path, mtime and size.
pub fn cached_version(bin: &Path, cache_dir: &Path) -> Option<String> {
    let real = bin.canonicalize().ok()?;
    let meta = std::fs::metadata(&real).ok()?;
    let mtime_ns = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let key = real.to_string_lossy().into_owned();
    let file = cache_dir.join(FILE);
    let mut cache: BTreeMap<String, Entry> = crate::fsread::read_capped(&file, 1 << 20)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    if let Some(e) = cache.get(&key)
        && e.mtime_ns == mtime_ns
        && e.size == meta.len()
    {
        return Some(e.version.clone());
    }
    let version = client::version(&real, VERSION_TIMEOUT).ok()?;
    cache.insert(
        key,
        Entry {
            mtime_ns,
            size: meta.len(),
            version: version.clone(),
        },
    );
    let _ = store(&file, &cache);
    Some(version)
}

/// Through the writer of ccmem's own files: a temp file of an unpredictable name, never
/// written through a link planted in the cache folder.
fn store(file: &Path, cache: &BTreeMap<String, Entry>) -> anyhow::Result<()> {
    crate::write::append::replace_own(file, &serde_json::to_vec_pretty(cache)?)?;
    Ok(())
}

/// One line when the installed client is not the version ccmem models, else `None`.
pub fn mismatch_note(installed: &str) -> Option<String> {
    let number = client::version_number(installed);
    (number != CLIENT_VERSION)
        .then(|| format!("installed Claude Code is {number}; ccmem models {CLIENT_VERSION}"))
}

// Unix only: the fake client is a `#!/bin/sh` script with an exec bit.
#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    use super::*;

    fn fake_client(dir: &Path, version: &str, counter: &Path) -> PathBuf {
        let bin = dir.join("claude");
        let script = format!(
            "#!/bin/sh\necho run >> '{}'\necho '{version} (Claude Code)'\n",
            counter.display()
        );
        std::fs::write(&bin, script).unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        bin
    }

    fn runs(counter: &Path) -> usize {
        std::fs::read_to_string(counter).map_or(0, |s| s.lines().count())
    }

    #[test]
    fn caches_until_the_binary_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let counter = tmp.path().join("count");
        let cache = tmp.path().join("cache");
        let bin = fake_client(tmp.path(), "2.1.332", &counter);
        assert_eq!(
            cached_version(&bin, &cache).as_deref(),
            Some("2.1.332 (Claude Code)")
        );
        assert_eq!(
            cached_version(&bin, &cache).as_deref(),
            Some("2.1.332 (Claude Code)")
        );
        assert_eq!(runs(&counter), 1, "second call must come from the cache");
        fake_client(tmp.path(), "2.1.400-beta", &counter);
        assert_eq!(
            cached_version(&bin, &cache).as_deref(),
            Some("2.1.400-beta (Claude Code)")
        );
        assert_eq!(runs(&counter), 2);
        std::fs::write(cache.join(FILE), "not json").unwrap();
        assert!(cached_version(&bin, &cache).is_some());
        assert_eq!(runs(&counter), 3);
    }

    #[test]
    fn note_only_on_difference() {
        assert_eq!(
            mismatch_note(&format!("{CLIENT_VERSION} (Claude Code)")),
            None
        );
        let note = mismatch_note("9.9.9 (Claude Code)").unwrap();
        assert!(note.contains("9.9.9") && note.contains(CLIENT_VERSION));
    }
}
