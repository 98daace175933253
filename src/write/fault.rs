//! Fault injection for tests, compiled into debug builds only (release builds compile every point
//! to nothing). Armed once at start-up from the process environment ([`arm`]):
//!
//! - `CCMEM_FAULT_AT=k`: the process kills itself with SIGKILL (as `kill -9` would: no unwinding,
//!   no buffered output) just before its `k`-th write system call (1-based), counted over every
//!   call the writer makes: open, write, fchown, fchmod, fsync, mkdir, rename, unlink, rmdir.
//!   A run that ends normally made fewer than `k` calls: the harness walks `k = 1, 2, …` until it
//!   does.
//! - `CCMEM_TEST_DELAY_MS=n`: sleeps `n` ms in the window between a target's last check and its
//!   swap (widening it, so a concurrent writer can be made to land there).
//! - `CCMEM_TEST_WINDOW_DIR=dir`: holds the `n`-th such window (1-based, counted over the run)
//!   open: creates `dir/open-n`, then waits for `dir/closed-n` (at most [`WINDOW_WAIT`]). A test
//!   acts inside the window as it appears and then closes it, however loaded the machine is.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::env::ProcessEnv;

#[derive(Debug, Default)]
struct Plan {
    kill_at: Option<usize>,
    delay: Option<Duration>,
    window_dir: Option<PathBuf>,
}

/// How long a window held open by `CCMEM_TEST_WINDOW_DIR` waits for the test to close it.
const WINDOW_WAIT: Duration = Duration::from_secs(60);

static PLAN: OnceLock<Plan> = OnceLock::new();
static CALLS: AtomicUsize = AtomicUsize::new(0);
static WINDOWS: AtomicUsize = AtomicUsize::new(0);

/// Arms the fault points from the environment (a no-op in release builds).
pub fn arm(env: &ProcessEnv) {
    if cfg!(debug_assertions) {
        let num = |k: &str| env.var(k).and_then(|v| v.trim().parse::<u64>().ok());
        let plan = Plan {
            kill_at: num("CCMEM_FAULT_AT").map(|k| k as usize),
            delay: num("CCMEM_TEST_DELAY_MS").map(Duration::from_millis),
            window_dir: env.var("CCMEM_TEST_WINDOW_DIR").map(PathBuf::from),
        };
        let _ = PLAN.set(plan);
    }
}

/// Counts one write system call, `what`, about to be made; dies when it is the armed one.
pub(crate) fn point(what: &str) {
    if !cfg!(debug_assertions) {
        return;
    }
    let n = CALLS.fetch_add(1, Ordering::Relaxed) + 1;
    if PLAN.get().is_some_and(|p| p.kill_at == Some(n)) {
        let _ = what;
        crate::sys::kill_self();
    }
}

/// The widened (or held) check-to-swap window of a test run.
pub(crate) fn window() {
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(plan) = PLAN.get() else { return };
    if let Some(d) = plan.delay {
        std::thread::sleep(d);
    }
    if let Some(dir) = &plan.window_dir {
        let n = WINDOWS.fetch_add(1, Ordering::Relaxed) + 1;
        #[allow(
            clippy::disallowed_methods,
            reason = "an empty marker in the folder a test named, never a user's file"
        )]
        let _ = std::fs::File::create(dir.join(format!("open-{n}")));
        let closed = dir.join(format!("closed-{n}"));
        let deadline = Instant::now() + WINDOW_WAIT;
        while !closed.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
