//! The `ccmem` binary: [`ccmem::cli::main`] and its exit status.
//!
//! On glibc Linux the binary has no Rust `main` (`no_main`): std's start-up there installs the
//! stack-overflow handler, whose guard-page lookup (`pthread_getattr_np`) opens and parses
//! `/proc/self/maps` — a large part of a hook call that has nothing to do, and the client runs
//! the post-tool-use hook after every Write, Edit and Bash call. What ccmem
//! needs of that start-up is done here: SIGPIPE ignored (a closed pipe is a `BrokenPipe` error,
//! which exits 0) and stdout flushed before exit, which is `_exit` (no destructors for memory the
//! kernel frees anyway). Arguments still reach `std::env::args` (glibc
//! passes them to std's `.init_array` hook). The cost: a stack overflow ends in a bare SIGSEGV
//! instead of std's message. Elsewhere (and in `cargo test`'s harness) the usual `main` runs.

#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]
#![deny(unsafe_code)]

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[allow(
    unsafe_code,
    reason = "the C entry point can only be defined in the binary"
)]
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    ccmem::cli::main_without_std_start()
}

#[cfg(any(not(all(target_os = "linux", target_env = "gnu")), test))]
fn main() -> std::process::ExitCode {
    let status = ccmem::cli::main();
    let _ = std::io::Write::flush(&mut std::io::stdout());
    std::process::ExitCode::from(status.code() as u8)
}
