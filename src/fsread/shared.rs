//! Reading many files into a few large buffers: each file's bytes are a span ([`Bytes`]) of a
//! buffer the thread's other reads share, instead of an allocation of its own.
//!
//! Why: a library of 20,000 files is ~30 MB of text held at once. Read file by file into
//! allocations of their own, that memory comes from the allocator's heap, which grows a page at a
//! time (an `mprotect` and a page fault for every 4 KiB, with the other reading thread waiting on
//! the same address-space lock). A large buffer asked for with [`libc::MADV_HUGEPAGE`] is
//! faulted in 2 MiB at a time instead: 15 faults for what took 7,000. Small reads (a hook's
//! handful of files) never get one: a thread's first buffer is small and not advised, since
//! clearing a whole huge page costs more than a few small faults.

use std::cell::RefCell;

use bytes::{Bytes, BytesMut};

/// A thread's first buffer: enough for a small library's files.
const FIRST: usize = 256 * 1024;
/// Every later buffer (a read larger than this gets a buffer of its own size).
const LATER: usize = 8 * 1024 * 1024;

thread_local! {
    /// The thread's current buffer (empty: its length is 0, its capacity the room left for the
    /// next reads), and whether the thread has had one before.
    static BUFFER: RefCell<(BytesMut, bool)> = RefCell::new((BytesMut::new(), false));
}

/// Reads up to `want` bytes with `read` into the thread's buffer (zeroed first, as a fresh
/// `vec![0; want]` would be) and returns the `n` bytes `read` says it wrote, as a span of that
/// buffer, with `n` itself.
pub(super) fn read_into<E>(
    want: usize,
    read: impl FnOnce(&mut [u8]) -> Result<usize, E>,
) -> Result<(Bytes, usize), E> {
    BUFFER.with_borrow_mut(|(buf, had_one)| {
        debug_assert!(buf.is_empty());
        if buf.capacity() < want {
            *buf = fresh(want, !*had_one);
            *had_one = true;
        }
        buf.resize(want, 0);
        let got = read(&mut buf[..]);
        let n = *got.as_ref().unwrap_or(&0);
        buf.truncate(n.min(want));
        let bytes = buf.split().freeze();
        got.map(|n| (bytes, n))
    })
}

/// A new buffer for a read of `want` bytes: [`FIRST`] for a thread's first, [`LATER`] (advised
/// for huge pages) after.
fn fresh(want: usize, first: bool) -> BytesMut {
    let size = want.max(if first { FIRST } else { LATER });
    let mut buf = BytesMut::with_capacity(size);
    if size >= LATER {
        advise_huge_pages(buf.spare_capacity_mut());
    }
    buf
}

/// Asks the kernel to back `region` with transparent huge pages where it can (the 2 MiB-aligned
/// stretches of its pages). Only advice: where huge pages are off or unavailable, nothing
/// changes. The start is rounded down to its page: a large allocation starts a few bytes past
/// a 2 MiB boundary (after the allocator's header), and leaving that page out would cost the
/// whole first huge page.
#[cfg(target_os = "linux")]
fn advise_huge_pages(region: &mut [std::mem::MaybeUninit<u8>]) {
    let page = 4096;
    let start = region.as_mut_ptr() as usize / page * page;
    let end = (region.as_mut_ptr() as usize + region.len()) / page * page;
    if end > start {
        // SAFETY: `[start, end)` is mapped memory: `region`'s pages (the first shared at most
        // with the allocator's header). MADV_HUGEPAGE changes how the kernel backs them, never
        // what they hold.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: &mut [std::mem::MaybeUninit<u8>]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_spans_of_one_buffer_until_it_is_full() {
        let (a, n) = read_into::<()>(8, |b| {
            b[..3].copy_from_slice(b"abc");
            Ok(3)
        })
        .unwrap();
        let (b, _) = read_into::<()>(8, |b| {
            b[..2].copy_from_slice(b"de");
            Ok(2)
        })
        .unwrap();
        assert_eq!((&a[..], n, &b[..]), (&b"abc"[..], 3, &b"de"[..]));
        // The second read starts right after the first's bytes, in the same buffer.
        assert_eq!(a.as_ptr().wrapping_add(3), b.as_ptr());
        // A read larger than the room left gets a buffer of its own; the old spans are intact.
        let big = FIRST + 1;
        let (c, _) = read_into::<()>(big, |b| {
            b.fill(b'x');
            Ok(big)
        })
        .unwrap();
        assert_eq!((c.len(), &a[..], &b[..]), (big, &b"abc"[..], &b"de"[..]));
    }

    #[test]
    fn a_failed_read_leaves_the_buffer_empty_and_zeroed() {
        let e = read_into(16, |b| {
            b[..4].copy_from_slice(b"junk");
            Err("boom")
        });
        assert_eq!(e.unwrap_err(), "boom");
        let (a, _) = read_into::<()>(4, |b| {
            // What a read sees is zeroed, whatever the failed read wrote.
            assert_eq!(b, [0; 4]);
            b.copy_from_slice(b"next");
            Ok(4)
        })
        .unwrap();
        assert_eq!(&a[..], b"next");
    }
}
