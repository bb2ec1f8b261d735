//! One machine's queue (Fig. 2.3): the executing task, the pending task (next in line, never
//! remapped, so the machine never idles when its task completes) and the virtual queue that
//! a batch event empties and remaps.
//!
//! The virtual queue is a singly linked list threaded through the caller's per-task `link`
//! slice, so a machine holds no task storage of its own. Tasks run back to back: a task
//! appended at `now` starts at the machine's ready time `max(now, end)`, where `end` is when
//! the last queued task completes (no backfilling).

use crate::units::Micros;

/// No task.
pub(crate) const NONE: u32 = u32::MAX;

/// One machine's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MachineQ {
    /// The executing task, or [`NONE`].
    pub exec: u32,
    /// When the executing task completes (or the last one completed).
    pub exec_end: Micros,
    /// The pending task, or [`NONE`].
    pub pending: u32,
    /// The virtual queue's head and tail, or [`NONE`].
    pub head: u32,
    pub tail: u32,
    /// When the last queued task completes.
    pub end: Micros,
}

impl MachineQ {
    pub const IDLE: MachineQ = MachineQ {
        exec: NONE,
        exec_end: Micros::ZERO,
        pending: NONE,
        head: NONE,
        tail: NONE,
        end: Micros::ZERO,
    };

    /// When a task appended at `now` would start.
    #[inline]
    pub fn ready(&self, now: Micros) -> Micros {
        if self.end > now {
            self.end
        } else {
            now
        }
    }

    /// Appends task `t` of execution time `etc` at `now`; returns `Some(start)` if it starts
    /// executing at once (the machine was idle).
    pub fn append(&mut self, t: u32, etc: Micros, now: Micros, link: &mut [u32]) -> Option<Micros> {
        let start = self.ready(now);
        self.end = start + etc;
        if self.exec == NONE {
            self.exec = t;
            self.exec_end = self.end;
            return Some(start);
        }
        if self.pending == NONE {
            self.pending = t;
        } else {
            link[t as usize] = NONE;
            if self.tail == NONE {
                self.head = t;
            } else {
                link[self.tail as usize] = t;
            }
            self.tail = t;
        }
        None
    }

    /// The executing task completed at `exec_end`: the pending task starts, the virtual
    /// queue's head becomes pending. Returns the task that started, if any.
    pub fn complete(&mut self, etc_of: impl Fn(u32) -> Micros, link: &[u32]) -> Option<u32> {
        let now = self.exec_end;
        self.exec = self.pending;
        if self.exec == NONE {
            return None;
        }
        self.exec_end = now + etc_of(self.exec);
        self.pending = self.head;
        if self.head != NONE {
            self.head = link[self.head as usize];
            if self.head == NONE {
                self.tail = NONE;
            }
        }
        Some(self.exec)
    }

    /// Empties the virtual queue, calling `f` on each task in order, and resets `end` to
    /// the end of the unmovable tasks (executing and pending).
    pub fn drain(&mut self, link: &[u32], etc_of: impl Fn(u32) -> Micros, mut f: impl FnMut(u32)) {
        let mut t = self.head;
        while t != NONE {
            f(t);
            t = link[t as usize];
        }
        self.head = NONE;
        self.tail = NONE;
        self.end = self.unmovable_end(etc_of);
    }

    /// When the executing and pending tasks are done (the last completion if idle).
    pub fn unmovable_end(&self, etc_of: impl Fn(u32) -> Micros) -> Micros {
        if self.exec == NONE || self.pending == NONE {
            self.exec_end
        } else {
            self.exec_end + etc_of(self.pending)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn etc(_: u32) -> Micros {
        Micros(10)
    }

    #[test]
    fn first_executes_second_pends_rest_queue_and_advance_on_completion() {
        let mut link = [NONE; 4];
        let mut q = MachineQ::IDLE;
        assert_eq!(
            q.append(0, Micros(10), Micros(5), &mut link),
            Some(Micros(5))
        );
        assert_eq!(q.append(1, Micros(10), Micros(6), &mut link), None);
        assert_eq!(q.append(2, Micros(10), Micros(7), &mut link), None);
        assert_eq!(q.append(3, Micros(10), Micros(7), &mut link), None);
        assert_eq!((q.exec, q.pending, q.head, q.tail), (0, 1, 2, 3));
        assert_eq!(q.end, Micros(45));
        assert_eq!(q.complete(etc, &link), Some(1));
        assert_eq!(
            (q.exec, q.exec_end, q.pending, q.head),
            (1, Micros(25), 2, 3)
        );
        let mut seen = [NONE; 4];
        let mut n = 0;
        q.drain(&link, etc, |t| {
            seen[n] = t;
            n += 1;
        });
        // The pending task 2 stays; only the virtual queue (3) is emptied.
        assert_eq!(&seen[..n], &[3]);
        assert_eq!((q.pending, q.end), (2, Micros(35)));
    }
}
