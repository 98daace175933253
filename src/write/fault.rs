//! Fault injection for tests (debug builds only): the process environment, read once at
//! start-up, arms it; release builds compile every point to nothing.
//!
//! `CCMEM_FAULT_AFTER_STEP=k` aborts the process right after durable step `k` (1-based) of an
//! operation, as a crash or a kill would.

use std::sync::OnceLock;

use crate::env::ProcessEnv;

#[derive(Debug, Default)]
struct Plan {
    after_step: Option<usize>,
}

static PLAN: OnceLock<Plan> = OnceLock::new();

/// Arms the fault points from the environment (a no-op in release builds).
pub fn arm(env: &ProcessEnv) {
    if cfg!(debug_assertions) {
        let plan = Plan {
            after_step: env
                .var("CCMEM_FAULT_AFTER_STEP")
                .and_then(|k| k.parse().ok()),
        };
        let _ = PLAN.set(plan);
    }
}

/// Counts one durable step; aborts when it is the armed one.
pub(crate) fn step(counter: &mut usize) {
    *counter += 1;
    if cfg!(debug_assertions) && PLAN.get().is_some_and(|p| p.after_step == Some(*counter)) {
        std::process::abort();
    }
}
