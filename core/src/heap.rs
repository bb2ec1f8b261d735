//! The one binary heap of the core, over a slice the caller owns.
//!
//! Three loops need a priority queue and none may allocate: the event loop's pending
//! completions, the timeline's merges of node lists (node choice, joining equal groups) and
//! the utility-aware pass's heap of tasks by their best option. Each keeps its entries in a
//! slice it was given and orders them by its own `before(a, b)` ("`a` comes out first").
//!
//! Sifting moves the entry aside and shifts each parent or child into the hole, one copy a
//! level instead of a swap's two (the pass's entries are 80 bytes). When `before` is a strict
//! total order (every caller breaks ties by an index), which entry comes out next does not
//! depend on how the heap was built or sifted: the order of decisions is the order's, never
//! the heap's.

/// Moves entry `at` of the heap `h` down to its place: below every entry that comes out
/// before it.
#[inline]
pub(crate) fn sift_down<T: Copy>(h: &mut [T], mut at: usize, before: impl Fn(&T, &T) -> bool) {
    let Some(&x) = h.get(at) else {
        return;
    };
    loop {
        let l = 2 * at + 1;
        if l >= h.len() {
            break;
        }
        // The child that comes out first (the left one on a tie).
        let r = l + 1;
        let c = if r < h.len() && before(&h[r], &h[l]) {
            r
        } else {
            l
        };
        if !before(&h[c], &x) {
            break;
        }
        h[at] = h[c];
        at = c;
    }
    h[at] = x;
}

/// Moves entry `at` of the heap `h` up to its place: above every entry it comes out before.
#[inline]
pub(crate) fn sift_up<T: Copy>(h: &mut [T], mut at: usize, before: impl Fn(&T, &T) -> bool) {
    let Some(&x) = h.get(at) else {
        return;
    };
    while at > 0 {
        let p = (at - 1) / 2;
        if !before(&x, &h[p]) {
            break;
        }
        h[at] = h[p];
        at = p;
    }
    h[at] = x;
}

/// The order of a [`Heap`]: a closure `|a, b| ..`, or a type of its own for a heap kept in a
/// struct (a closure's type has no name to write there, and a function pointer would be
/// called indirectly at every comparison).
pub(crate) trait Order<T> {
    /// Whether `a` comes out before `b`.
    fn before(&self, a: &T, b: &T) -> bool;
}

impl<T, F: Fn(&T, &T) -> bool> Order<T> for F {
    #[inline]
    fn before(&self, a: &T, b: &T) -> bool {
        self(a, b)
    }
}

/// A heap over `buf[..len]`; the rest of `buf` is room to grow.
pub(crate) struct Heap<'b, T: Copy, O: Order<T>> {
    buf: &'b mut [T],
    len: usize,
    order: O,
}

impl<'b, T: Copy, O: Order<T>> Heap<'b, T, O> {
    /// An empty heap over `buf`, ordered by `order`.
    pub(crate) fn new(buf: &'b mut [T], order: O) -> Self {
        Heap { buf, len: 0, order }
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// How many it can hold.
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Adds `x`; gives it back when the buffer is full.
    pub(crate) fn push(&mut self, x: T) -> Result<(), T> {
        let Some(slot) = self.buf.get_mut(self.len) else {
            return Err(x);
        };
        *slot = x;
        self.len += 1;
        let o = &self.order;
        sift_up(&mut self.buf[..self.len], self.len - 1, |a, b| {
            o.before(a, b)
        });
        Ok(())
    }

    /// The entry that comes out next.
    pub(crate) fn peek(&self) -> Option<&T> {
        self.buf[..self.len].first()
    }

    /// Takes out the entry that comes out next.
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let top = self.buf[0];
        self.len -= 1;
        self.buf[0] = self.buf[self.len];
        let o = &self.order;
        sift_down(&mut self.buf[..self.len], 0, |a, b| o.before(a, b));
        Some(top)
    }

    /// Keeps only the entries `keep` accepts (order rebuilt bottom-up).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let x = self.buf[i];
            if keep(&x) {
                self.buf[kept] = x;
                kept += 1;
            }
        }
        self.len = kept;
        let o = &self.order;
        for i in (0..kept / 2).rev() {
            sift_down(&mut self.buf[..kept], i, |a, b| o.before(a, b));
        }
    }

    /// The free room past the entries, for a caller that stages entries before pushing them.
    pub(crate) fn spare(&mut self) -> &mut [T] {
        &mut self.buf[self.len..]
    }

    /// The entries, in heap order.
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.buf[..self.len]
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    proptest! {
        /// Pushes and pops in any mix come out in sorted order, as a sorted copy does.
        #[test]
        fn pops_in_order(ops in proptest::collection::vec(proptest::option::of(0u32..50), 0..200)) {
            let mut buf = [0u32; 256];
            let mut h = Heap::new(&mut buf, |a: &u32, b: &u32| a < b);
            let mut model: Vec<u32> = Vec::new();
            for op in ops {
                match op {
                    Some(x) => {
                        h.push(x).unwrap();
                        model.push(x);
                        model.sort_unstable_by(|a, b| b.cmp(a));
                    }
                    None => prop_assert_eq!(h.pop(), model.pop()),
                }
                prop_assert_eq!(h.peek().copied(), model.last().copied());
                prop_assert_eq!(h.len(), model.len());
            }
        }

        /// Retain keeps exactly what it accepts, still a heap.
        #[test]
        fn retain_keeps_a_heap(xs in proptest::collection::vec(0u32..1000, 0..100), m in 1u32..5) {
            let mut buf = [0u32; 128];
            let mut h = Heap::new(&mut buf, |a: &u32, b: &u32| a < b);
            for &x in &xs {
                h.push(x).unwrap();
            }
            h.retain(|x| x % m == 0);
            let mut want: Vec<u32> = xs.iter().copied().filter(|x| x % m == 0).collect();
            want.sort_unstable();
            let mut got = Vec::new();
            while let Some(x) = h.pop() {
                got.push(x);
            }
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_full_heap_gives_the_entry_back() {
        let mut buf = [0u8; 2];
        let mut h = Heap::new(&mut buf, |a: &u8, b: &u8| a < b);
        assert_eq!(h.capacity(), 2);
        h.push(2).unwrap();
        h.push(1).unwrap();
        assert_eq!(h.push(0), Err(0));
        assert_eq!(h.as_slice(), &[1, 2]);
        assert_eq!(h.spare().len(), 0);
    }
}
