//! `ccmem::cli::heap::prepare_for_bulk` as `audit` and `tier` call it: on the process's main
//! thread, before any other thread. The test harness runs every test on a thread of its own
//! (whose allocations come from an arena of their own, not from the heap the function grows),
//! so this test has no harness: `main` is the test.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn main() {
    use ccmem::cli::heap::{PAD, prepare_for_bulk};
    // SAFETY: `sbrk(0)` only reads the current end of the heap.
    let end = || unsafe { libc::sbrk(0) } as usize;
    let before = end();
    prepare_for_bulk();
    let after = end();
    // The block that makes the heap grow was not optimized away: it grew by the pad at least.
    assert!(after >= before + PAD, "heap end {before:#x} -> {after:#x}");
    // Allocation works as before, and 60 MB of small blocks fit in that one growth.
    let blocks: Vec<Vec<u8>> = (0..40_000).map(|i| vec![i as u8; 1 + i % 3000]).collect();
    assert!((blocks.iter().enumerate()).all(|(i, b)| b.len() == 1 + i % 3000 && b[0] == i as u8));
    assert_eq!(end(), after, "the heap grew again");
    println!(
        "heap: grew once by {} MiB and served 40,000 blocks from it",
        (after - before) >> 20
    );
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() {
    println!("heap: skipped (the heap set-up is for glibc Linux only)");
}
