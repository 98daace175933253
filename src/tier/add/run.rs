//! `ccmem add` end to end, as the command runs it: take the folder's lock and finish what an
//! interrupted write left (not in a dry run, nor for a folder that does not exist yet), read
//! the library once, plan the entry ([`plan_add`]), and write it. A project's first memory
//! creates its folder, as the client does on its first write, only once the plan stands: a
//! refusal creates nothing.

use std::path::Path;

use jiff::Timestamp;

use super::{AddError, AddPlan, Request, plan_add};
use crate::memory::Library;
use crate::memory::pending::{self, Pending};
use crate::tier::run::changes_of;
use crate::tier::{Error, Folder, Target, check_readable, check_writes, link_target};
use crate::write::{self, Applied, Recovered};

/// Where and how to add.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The memory folder (it may not exist yet).
    pub folder: &'a Folder,
    /// The budget MEMORY.md should stay within.
    pub target: Target,
    /// The time the entry is stamped with.
    pub now: Timestamp,
    /// Plan only: take no lock, finish no interrupted write, write nothing.
    pub dry_run: bool,
}

/// What `add` did.
#[derive(Debug)]
pub enum Outcome {
    /// The entry was written (in a dry run: planned).
    Added(Box<Added>),
    /// Refused as a finding (a near-duplicate, or nothing would load): nothing written.
    Refused(AddError),
}

/// An entry written (or planned).
#[derive(Debug)]
pub struct Added {
    /// The folder did not exist: the write created it (a dry run: would create it).
    pub new_folder: bool,
    /// What recovery did before the write.
    pub recovered: Option<Recovered>,
    /// A dry run found an interrupted write it left as it is (`Some`), and its journal's
    /// operation when it has one.
    pub pending: Option<Option<Pending>>,
    /// The plan.
    pub plan: AddPlan,
    /// Per planned file: the file of the folder a write really changes when the planned name
    /// is a symbolic link.
    pub link_to: Vec<Option<String>>,
    /// What was written (`None` in a dry run).
    pub written: Option<Applied>,
}

/// Adds `entry` to the folder of `opts`.
pub fn run(entry: &Request, opts: &Options<'_>) -> Result<Outcome, Error> {
    let folder = opts.folder.path.as_path();
    let new_folder = is_missing(folder);
    let lock = if opts.dry_run || new_folder {
        None
    } else {
        Some(write::lock(folder)?.stamped(opts.now))
    };
    let recovered = match &lock {
        Some(l) => pending::recover(l, folder)?,
        None => None,
    };
    let pending = (lock.is_none() && !new_folder && write::needs_recovery(folder))
        .then(|| pending::pending(folder));
    let lib = if new_folder {
        Library::from_texts(
            folder,
            opts.folder.config.clone(),
            Vec::<(String, String)>::new(),
        )
    } else {
        opts.folder.load()?
    };
    check_readable(&lib, true)?;
    let plan = match plan_add(&lib, entry, opts.target, opts.now) {
        Ok(plan) => plan,
        Err(AddError::Refused(r)) => return Err(r.into()),
        Err(finding) => return Ok(Outcome::Refused(finding)),
    };
    check_writes(&lib, &plan.files, &opts.folder.links)?;
    let lock = match lock {
        None if new_folder && !opts.dry_run => {
            write::create_folder(folder)?;
            Some(write::lock(folder)?.stamped(opts.now))
        }
        lock => lock,
    };
    let written = match &lock {
        Some(lock) => {
            let op = format!("add {}", plan.files[0].name);
            Some(lock.apply(&op, &changes_of(&plan.files))?)
        }
        None => None,
    };
    let link_to = (plan.files.iter())
        .map(|f| link_target(&lib, &f.name))
        .collect();
    Ok(Outcome::Added(Box::new(Added {
        new_folder,
        recovered,
        pending,
        plan,
        link_to,
        written,
    })))
}

/// Whether nothing is at `path` (not even a dangling link).
pub fn is_missing(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(topic: &str, description: &str) -> Request {
        Request {
            kind: "user".to_owned(),
            topic: topic.to_owned(),
            title: None,
            description: description.to_owned(),
            why: None,
            how: None,
            group: None,
            body: None,
            force: false,
            allow_secret: false,
            session: None,
        }
    }

    fn add(folder: &Path, entry: &Request, dry_run: bool) -> Result<Outcome, Error> {
        let opts = Options {
            folder: &Folder::at(folder),
            target: crate::tier::budget::DEFAULT_TARGET,
            now: Timestamp::UNIX_EPOCH,
            dry_run,
        };
        run(entry, &opts)
    }

    #[test]
    fn a_first_memory_creates_its_folder_and_a_dry_run_does_not() {
        let t = tempfile::tempdir().unwrap();
        let folder = t.path().join("memory");
        let me = entry("me", "I test ccmem");
        let Outcome::Added(a) = add(&folder, &me, true).unwrap() else {
            panic!("refused")
        };
        assert!(a.new_folder && a.written.is_none() && !folder.exists());
        let Outcome::Added(a) = add(&folder, &me, false).unwrap() else {
            panic!("refused")
        };
        let written = a.written.expect("written");
        assert_eq!(written.files, ["user_me.md", "MEMORY.md"]);
        assert!(folder.join("user_me.md").is_file() && folder.join("MEMORY.md").is_file());
    }

    #[test]
    fn a_near_duplicate_is_a_finding_and_writes_nothing() {
        let t = tempfile::tempdir().unwrap();
        let folder = t.path().join("memory");
        let first = entry(
            "deploys",
            "Never deploy on a Friday afternoon to production",
        );
        assert!(matches!(add(&folder, &first, false), Ok(Outcome::Added(_))));
        let index = std::fs::read_to_string(folder.join("MEMORY.md")).unwrap();
        let again = entry(
            "deploy-rule",
            "Never deploy on a Friday afternoon to production",
        );
        let outcome = add(&folder, &again, false).unwrap();
        assert!(
            matches!(outcome, Outcome::Refused(AddError::Duplicate { .. })),
            "{outcome:?}"
        );
        assert!(!folder.join("user_deploy-rule.md").exists());
        assert_eq!(
            std::fs::read_to_string(folder.join("MEMORY.md")).unwrap(),
            index
        );
    }

    /// An existing topic is refused as a finding (exit 1), like its near-duplicates, nothing
    /// replaced; a request that cannot be valid is the usage error (exit 2).
    #[test]
    fn an_existing_file_is_a_finding_not_an_error() {
        let t = tempfile::tempdir().unwrap();
        let folder = t.path().join("memory");
        let me = entry("me", "I test ccmem");
        assert!(matches!(add(&folder, &me, false), Ok(Outcome::Added(_))));
        let before = std::fs::read_to_string(folder.join("user_me.md")).unwrap();
        let mut again = entry("me", "something else entirely");
        again.force = true;
        assert!(matches!(
            add(&folder, &again, false),
            Ok(Outcome::Refused(AddError::Exists(_)))
        ));
        assert_eq!(
            std::fs::read_to_string(folder.join("user_me.md")).unwrap(),
            before
        );
        let mut bad = entry("me", "x");
        bad.kind = "note".into();
        assert!(matches!(add(&folder, &bad, false), Err(Error::Refused(_))));
    }
}
