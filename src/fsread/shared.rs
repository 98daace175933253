//! Reading many files into a few large buffers: each file's bytes are a span ([`Bytes`]) of a
//! buffer the thread's other reads share, instead of an allocation of its own.
//!
//! Why: a library of 20,000 files is ~30 MB of text held at once. Read file by file into
//! allocations of their own, that memory comes from the allocator's heap, an allocation (and
//! its header) per file; here a thread's reads fill one buffer of [`LATER`] bytes, then the
//! next. A read whose file size is known is zeroed first ([`read_into`]); one whose size is not
//! is read into the room left as it is ([`read_into_room`]).
//!
//! No huge pages are asked for: see `memory::library::heap` for why (they cost more than they
//! save when the audit runs once after a pause on a virtual machine).

use std::cell::RefCell;
use std::mem::MaybeUninit;

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

/// The least room a read into the room left ([`read_into_room`]) is given: with less, the
/// thread's buffer is replaced by a fresh one first (the room left over, at most this, unused).
const LEAST_ROOM: usize = 64 * 1024;

/// Reads with `read` into the room left in the thread's buffer, at most `max` bytes, without
/// zeroing it first, and returns the bytes `read` says it wrote, as a span of that buffer, with
/// the room it was given: for a file whose size is not known, a read that comes back short of
/// the room has read all of it. The room is at least `max.min(LEAST_ROOM)` (a fresh buffer
/// when less is left).
pub(super) fn read_into_room<E>(
    max: usize,
    read: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize, E>,
) -> Result<(Bytes, usize), E> {
    BUFFER.with_borrow_mut(|(buf, had_one)| {
        debug_assert!(buf.is_empty());
        let least = max.min(LEAST_ROOM);
        if buf.capacity() < least {
            *buf = fresh(least, !*had_one);
            *had_one = true;
        }
        let room = buf.capacity().min(max);
        let got = read(&mut buf.spare_capacity_mut()[..room]);
        let n = *got.as_ref().unwrap_or(&0);
        assert!(n <= room, "a read wrote more than it was given");
        // SAFETY: `read` initialised the first `n` bytes of the room (it says so, and `n` is
        // within the room).
        unsafe { buf.set_len(n) };
        let bytes = buf.split().freeze();
        got.map(|_| (bytes, room))
    })
}

/// A new buffer for a read of `want` bytes: [`FIRST`] for a thread's first, [`LATER`] after.
fn fresh(want: usize, first: bool) -> BytesMut {
    BytesMut::with_capacity(want.max(if first { FIRST } else { LATER }))
}

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
    fn reads_into_the_room_left_are_spans_of_the_same_buffer() {
        let write = |text: &'static [u8]| {
            move |b: &mut [MaybeUninit<u8>]| {
                for (d, s) in b.iter_mut().zip(text) {
                    d.write(*s);
                }
                Ok::<_, ()>(text.len().min(b.len()))
            }
        };
        let (a, room_a) = read_into_room(1 << 20, write(b"abc")).unwrap();
        let (b, room_b) = read_into_room(1 << 20, write(b"de")).unwrap();
        assert_eq!((&a[..], &b[..]), (&b"abc"[..], &b"de"[..]));
        assert_eq!(a.as_ptr().wrapping_add(3), b.as_ptr());
        // The room is what is left of the buffer, capped by `max`, and never below the least
        // room (a fresh buffer then).
        assert_eq!(room_a, room_b + 3);
        assert!(room_b >= LEAST_ROOM);
        let (c, room_c) = read_into_room(2, write(b"xyz")).unwrap();
        assert_eq!((&c[..], room_c), (&b"xy"[..], 2));
        // A failed read keeps nothing.
        assert_eq!(
            read_into_room::<&str>(8, |_| Err("boom")).unwrap_err(),
            "boom"
        );
        let (d, _) = read_into_room(8, write(b"next")).unwrap();
        assert_eq!(&d[..], b"next");
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
