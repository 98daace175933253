//! The `ccmem` binary: [`ccmem::cli::main`] and its exit status.
//!
//! On glibc Linux the binary has no Rust `main` (`no_main`): std's start-up there installs the
//! stack-overflow handler, whose guard-page lookup (`pthread_getattr_np`) opens and parses
//! `/proc/self/maps` — a fifth of the instructions of a hook call that has nothing to do, and
//! the client runs the post-tool-use hook after every Write, Edit and Bash call. What ccmem
//! needs of that start-up is done here: SIGPIPE ignored (a closed pipe is a `BrokenPipe` error,
//! which exits 0) and stdout flushed before exit, which is `_exit` (no destructors for memory the
//! kernel frees anyway). Arguments still reach `std::env::args` (glibc
//! passes them to std's `.init_array` hook). The cost: a stack overflow ends in a bare SIGSEGV
//! instead of std's message. Elsewhere (and in `cargo test`'s harness) the usual `main` runs.

#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

/// Runs the command line and flushes stdout; returns the exit code.
fn run() -> i32 {
    let status = ccmem::cli::main();
    let _ = std::io::Write::flush(&mut std::io::stdout());
    status.code()
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = run();
    // Everything is written and flushed (stderr is unbuffered): leave without running the
    // thread-local destructors and exit handlers, which only free memory the kernel frees.
    // SAFETY: `_exit` ends the process; nothing of ccmem runs after it.
    unsafe { libc::_exit(code) }
}

#[cfg(any(not(all(target_os = "linux", target_env = "gnu")), test))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(run() as u8)
}
