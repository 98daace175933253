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

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::env::ProcessEnv;

#[derive(Debug, Default)]
struct Plan {
    kill_at: Option<usize>,
    delay: Option<Duration>,
}

static PLAN: OnceLock<Plan> = OnceLock::new();
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Arms the fault points from the environment (a no-op in release builds).
pub fn arm(env: &ProcessEnv) {
    if cfg!(debug_assertions) {
        let num = |k: &str| env.var(k).and_then(|v| v.trim().parse::<u64>().ok());
        let plan = Plan {
            kill_at: num("CCMEM_FAULT_AT").map(|k| k as usize),
            delay: num("CCMEM_TEST_DELAY_MS").map(Duration::from_millis),
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

/// The widened check-to-swap window of a test run.
pub(crate) fn window() {
    if cfg!(debug_assertions)
        && let Some(d) = PLAN.get().and_then(|p| p.delay)
    {
        std::thread::sleep(d);
    }
}
