//! Node's timers: one FIFO list per delay, a priority queue of lists, one
//! libuv timer handle.
//!
//! Models Node 20 `lib/internal/timers.js` (`insert`, `processTimers`,
//! `listOnTimeout`, `unenroll`) and `src/env.cc` (`RunTimers`, `ScheduleTimer`):
//! docs/scheduling.md rule 3. All times are in ticks.
//!
//! Node's priority queue of lists is a binary heap keyed by `(expiry, id)`;
//! here it is [`ListQueue`], a sorted run beside an 8-ary heap. Keys are
//! unique, so any priority queue takes the lists in the same order: the
//! structure changes the speed, not the schedule.

use rustc_hash::FxHashMap;

/// The largest delay Node accepts (`TIMEOUT_MAX`, 2³¹−1 ms); larger ones become 1.
pub const TIMEOUT_MAX: u64 = (1 << 31) - 1;

/// Node's delay coercion (`getTimerDuration`, `Timeout` constructor): a delay
/// below 1 or above [`TIMEOUT_MAX`] becomes 1.
pub fn coerce_delay(delay: u64) -> u64 {
    if (1..=TIMEOUT_MAX).contains(&delay) {
        delay
    } else {
        1
    }
}

/// A handle to a scheduled timeout or interval, for `clear`. Stale handles
/// (the timer already ran or was cleared) are ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimerId {
    index: u32,
    generation: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum TimerState {
    /// Linked into the list of its delay.
    Listed = 0,
    /// Cleared, still linked: unlinked when its list reaches it or is dropped.
    Cleared = 1,
    /// Taken off its list; its callback is running (intervals may be re-armed).
    Running = 2,
    /// Cleared while running: an interval is not re-armed.
    ClearedWhileRunning = 3,
    /// Slot unused.
    Free = 4,
}

impl TimerState {
    fn from_bits(bits: u32) -> Self {
        match bits & STATE_MASK {
            0 => TimerState::Listed,
            1 => TimerState::Cleared,
            2 => TimerState::Running,
            3 => TimerState::ClearedWhileRunning,
            _ => TimerState::Free,
        }
    }
}

/// A timer slot: 24 bytes and its callback (72 bytes for the interpreter's
/// 48-byte task), so that running a timer touches one or two cache lines.
struct Timer<C> {
    /// The clock reading when the timer was (re-)armed (`_idleStart`), in ticks.
    start: u64,
    /// The coerced delay in ticks (at most [`TIMEOUT_MAX`], so 31 bits) and,
    /// in the top bit ([`REPEAT`]), whether it is an interval.
    delay_repeat: u32,
    /// The next timer of its list ([`NIL`] for the last).
    next: u32,
    /// The [`TimerState`] in the low 3 bits ([`STATE_MASK`]), the slot's
    /// generation (which [`TimerId`]s name it) in the high 29, wrapping.
    state_generation: u32,
    /// Runs so far (an interval's run number), saturating.
    runs: u32,
    cb: Option<C>,
}

/// [`Timer::delay_repeat`]'s interval bit.
const REPEAT: u32 = 1 << 31;
/// [`Timer::state_generation`]'s state bits.
const STATE_MASK: u32 = 0b111;

impl<C> Timer<C> {
    fn state(&self) -> TimerState {
        TimerState::from_bits(self.state_generation)
    }

    fn set_state(&mut self, state: TimerState) {
        self.state_generation = (self.state_generation & !STATE_MASK) | state as u32;
    }

    /// The slot's generation (29 bits).
    fn generation(&self) -> u32 {
        self.state_generation >> 3
    }

    fn delay(&self) -> u32 {
        self.delay_repeat & !REPEAT
    }

    fn repeat(&self) -> bool {
        self.delay_repeat & REPEAT != 0
    }

    /// The tick it is due at (`start + delay`).
    fn due(&self) -> u64 {
        self.start.saturating_add(u64::from(self.delay()))
    }
}

/// No timer: the end of a list.
const NIL: u32 = u32::MAX;

/// One list per delay value (`TimersList`): 32 bytes, two to a cache line.
struct TimerList {
    /// Its delay in ticks (coerced: at most [`TIMEOUT_MAX`]); 0 once the
    /// list is dropped (a coerced delay is at least 1).
    delay: u32,
    /// Timers of the list not cleared (the list is dropped at 0).
    live: u32,
    /// The tick the list is due at (Node's `expiry`).
    expiry: u64,
    /// Its key's tie-breaker in the queue (Node's list id, `timerListId`).
    id: u64,
    /// First and last timer slot, in insertion order, linked through
    /// `Timer::next`; cleared ones are unlinked lazily.
    head: u32,
    tail: u32,
}

impl TimerList {
    fn alive(&self) -> bool {
        self.delay != 0
    }
}

/// A heap entry: list `list` due at `expiry`, keyed by `(expiry, id)`, in
/// 16 bytes (four of them to a cache line): the id in the high 40 bits of
/// `id_list`, the list slot in the low [`LIST_BITS`], so that `id_list`
/// orders as the id does. An entry whose list has since been dropped or
/// re-keyed is stale.
#[derive(Clone, Copy)]
struct ListKey {
    expiry: u64,
    id_list: u64,
}

/// Bits of a list slot in a [`ListKey`]: room for 16 million lists at once,
/// more than the timers that may wait at once (`MAX_WAITING` in src/interp.rs).
const LIST_BITS: u32 = 24;

impl ListKey {
    fn new(expiry: u64, id: u64, list: u32) -> Self {
        assert!(
            list >> LIST_BITS == 0 && id >> (64 - LIST_BITS) == 0,
            "timer list {list} or list id {id} out of a heap entry's range"
        );
        ListKey {
            expiry,
            id_list: id << LIST_BITS | u64::from(list),
        }
    }

    fn id(&self) -> u64 {
        self.id_list >> LIST_BITS
    }

    fn list(&self) -> u32 {
        (self.id_list & ((1 << LIST_BITS) - 1)) as u32
    }

    fn key(&self) -> (u64, u64) {
        (self.expiry, self.id_list)
    }
}

/// An 8-ary min-heap of [`ListKey`]s by `(expiry, id)`: a third of the depth
/// of a binary heap, so fewer cache misses per pop with a million lists. Keys
/// are unique (ids are never reused), so the pop order is that of any priority
/// queue.
///
/// The keys are stored in aligned groups of eight (two cache lines, which
/// the hardware fetches together), shifted by seven slots (key `i` in slot
/// `i + 7`), so that the eight children of a key (`8i+1` to `8i+8`, slots
/// `8(i+1)` to `8(i+1)+7`) are one group: a pop reads one group per level.
#[derive(Default)]
struct ListHeap {
    groups: Vec<KeyGroup>,
    len: usize,
}

/// Eight heap keys, two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct KeyGroup([ListKey; ListHeap::ARITY]);

/// Empty slots of [`ListHeap`]'s first group (keys start at slot 3).
const HEAP_SHIFT: usize = ListHeap::ARITY - 1;

impl ListHeap {
    const ARITY: usize = 8;

    fn key(&self, i: usize) -> ListKey {
        let slot = i + HEAP_SHIFT;
        self.groups[slot / Self::ARITY].0[slot % Self::ARITY]
    }

    fn set(&mut self, i: usize, key: ListKey) {
        let slot = i + HEAP_SHIFT;
        self.groups[slot / Self::ARITY].0[slot % Self::ARITY] = key;
    }

    fn peek(&self) -> Option<ListKey> {
        (self.len > 0).then(|| self.key(0))
    }

    fn push(&mut self, key: ListKey) {
        let mut i = self.len;
        self.len += 1;
        if (self.len + HEAP_SHIFT).div_ceil(Self::ARITY) > self.groups.len() {
            let empty = ListKey { expiry: 0, id_list: 0 };
            self.groups.push(KeyGroup([empty; Self::ARITY]));
        }
        while i > 0 {
            let parent = (i - 1) / Self::ARITY;
            let p = self.key(parent);
            if p.key() <= key.key() {
                break;
            }
            self.set(i, p);
            i = parent;
        }
        self.set(i, key);
    }

    fn pop(&mut self) -> Option<ListKey> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        let len = self.len;
        let last = self.key(len);
        if len == 0 {
            return Some(last);
        }
        let top = self.key(0);
        let mut i = 0;
        loop {
            let first = i * Self::ARITY + 1;
            if first >= len {
                break;
            }
            // The children `first..first + 8` are one group (see the type's comment).
            let group = &self.groups[(first + HEAP_SHIFT) / Self::ARITY].0;
            let count = (len - first).min(Self::ARITY);
            let mut min = 0;
            for c in 1..count {
                if group[c].key() < group[min].key() {
                    min = c;
                }
            }
            let child = group[min];
            if last.key() <= child.key() {
                break;
            }
            self.set(i, child);
            i = first + min;
        }
        self.set(i, last);
        Some(top)
    }
}

/// The queue of timer lists by `(expiry, id)` (Node's `timerListQueue`): a
/// sorted run beside an 8-ary heap. Keys pushed since the last look are kept
/// aside unsorted; a large batch of them (the main module setting many timers
/// of distinct delays) is sorted and merged into the run, a small one goes
/// into the heap. The smallest key is the smaller of the run's last and the
/// heap's top, so the pop order is that of any priority queue (keys are
/// unique: ids are never reused). Most pops of a large batch then read the
/// run in order, where a heap's would each take a path of cache misses.
#[derive(Default)]
struct ListQueue {
    /// Sorted largest first: the smallest key is the last.
    run: Vec<ListKey>,
    /// Pushed since the last [`Self::settle`], in no order.
    batch: Vec<ListKey>,
    heap: ListHeap,
}

impl ListQueue {
    /// Batches smaller than this go into the heap.
    const MIN_MERGE: usize = 64;

    fn push(&mut self, key: ListKey) {
        self.batch.push(key);
    }

    /// Moves the batch into the run (sorted and merged, when it is at least
    /// [`Self::MIN_MERGE`] keys and an eighth of the run: each key is merged
    /// a bounded number of times on average) or into the heap.
    fn settle(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        if self.batch.len() < Self::MIN_MERGE || self.batch.len() * 8 < self.run.len() {
            for key in self.batch.drain(..) {
                self.heap.push(key);
            }
            return;
        }
        crate::sort::sort_by_key(&mut self.batch, |k| std::cmp::Reverse(k.key()));
        if self.run.is_empty() {
            std::mem::swap(&mut self.run, &mut self.batch);
            return;
        }
        // Merge in place from the smallest end: slot `k` is written after
        // the run's key there has been read (`k >= i` throughout).
        let (old, add) = (self.run.len(), self.batch.len());
        let fill = self.batch[0];
        self.run.resize(old + add, fill);
        let (mut i, mut j) = (old, add);
        for k in (0..old + add).rev() {
            if j == 0 {
                break;
            }
            if i > 0 && self.run[i - 1].key() < self.batch[j - 1].key() {
                self.run[k] = self.run[i - 1];
                i -= 1;
            } else {
                self.run[k] = self.batch[j - 1];
                j -= 1;
            }
        }
        self.batch.clear();
    }

    /// Whether the smallest key is the run's (else the heap's).
    fn smallest_in_run(&self) -> Option<bool> {
        match (self.run.last(), self.heap.peek()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some(r), Some(h)) => Some(r.key() < h.key()),
        }
    }

    fn peek(&mut self) -> Option<ListKey> {
        self.settle();
        match self.smallest_in_run()? {
            true => self.run.last().copied(),
            false => self.heap.peek(),
        }
    }

    fn pop(&mut self) -> Option<ListKey> {
        self.settle();
        match self.smallest_in_run()? {
            true => self.run.pop(),
            false => self.heap.pop(),
        }
    }

    /// The run's key `distance` places after its smallest: a guess at a
    /// list the timers phase takes soon, for prefetching.
    fn ahead(&self, distance: usize) -> Option<ListKey> {
        self.run.len().checked_sub(distance + 1).map(|i| self.run[i])
    }
}

/// Delays below this have their list in [`DelayMap`]'s direct table (at most
/// 16 MiB of it, only the part up to the largest delay used).
const DIRECT_DELAYS: u32 = 1 << 22;

/// The list of each delay (Node's `timerListMap`): a direct table for delays
/// below [`DIRECT_DELAYS`], a hash map for the rest. An entry may be stale
/// (its list dropped, its slot since reused): [`NodeTimers::list_of`] checks.
#[derive(Default)]
struct DelayMap {
    /// 1 + the list slot of each delay (0: none), as long as the largest delay
    /// used needs, rounded up to a power of two.
    direct: Vec<u32>,
    /// Delays from [`DIRECT_DELAYS`] up.
    rest: FxHashMap<u32, u32>,
    /// Stale entries of `rest`, swept when they are many.
    stale: usize,
}

impl DelayMap {
    fn get(&self, delay: u32) -> Option<u32> {
        if delay < DIRECT_DELAYS {
            let slot = *self.direct.get(delay as usize)?;
            slot.checked_sub(1)
        } else {
            self.rest.get(&delay).copied()
        }
    }

    fn insert(&mut self, delay: u32, list: u32) {
        if delay < DIRECT_DELAYS {
            let i = delay as usize;
            if i >= self.direct.len() {
                let len = (i + 1).next_power_of_two().clamp(1024, DIRECT_DELAYS as usize);
                self.direct.resize(len, 0);
            }
            self.direct[i] = list + 1;
        } else if self.rest.insert(delay, list).is_some() {
            // A dropped list's entry (a live list's would have been found).
            self.stale = self.stale.saturating_sub(1);
        }
    }

    /// A list of `delay` was dropped, its entry left behind: sweeps the hash
    /// map's stale entries (`live(delay, slot)`: whether an entry is live)
    /// once they are more than half.
    fn dropped(&mut self, delay: u32, live: impl Fn(u32, u32) -> bool) {
        if delay < DIRECT_DELAYS {
            return;
        }
        self.stale += 1;
        if self.stale > 1024 && self.stale > self.rest.len() / 2 {
            self.rest.retain(|&d, &mut l| live(d, l));
            self.stale = 0;
        }
    }
}

/// Whether a [`DelayMap`] entry `delay → l` names a live list: slot `l` holds
/// a list of that delay (a dropped list's delay is 0, and a reused slot's is
/// its new list's).
fn entry_is_live(lists: &[TimerList], delay: u32, l: u32) -> bool {
    lists.get(l as usize).is_some_and(|list| list.delay == delay)
}

/// A due timer taken off its list by [`NodeTimers::head`].
pub struct DueTimer<C> {
    pub id: TimerId,
    pub cb: C,
    pub repeat: bool,
    /// 1-based run number (an interval's `{n}`).
    pub run: u64,
}

/// What the timers phase finds at the head of the next list.
pub enum Head<C> {
    /// The head of the current list is due: run it.
    Due(DueTimer<C>),
    /// The head of the current list is not yet due: the list was re-keyed.
    NotDue,
    /// The current list ran out (or was cleared empty).
    ListDone,
}

/// Node's timer lists and the one libuv timer handle that decides when a timers
/// phase runs (`R` in docs/scheduling.md rule 3).
pub struct NodeTimers<C> {
    timers: Vec<Timer<C>>,
    free: Vec<u32>,
    lists: Vec<TimerList>,
    free_lists: Vec<u32>,
    /// The list of each delay (Node's `timerListMap`). A dropped list's entry
    /// is left in place (see [`Self::list_of`]): with many distinct delays,
    /// each drop would otherwise be one more cache miss.
    by_delay: DelayMap,
    queue: ListQueue,
    next_list_id: u64,
    /// Node's `nextExpiry`: the expiry it last told the handle about.
    next_expiry: Option<u64>,
    /// The libuv timer handle's due tick, if started.
    handle_due: Option<u64>,
    live: usize,
}

impl<C> Default for NodeTimers<C> {
    fn default() -> Self {
        NodeTimers {
            timers: Vec::new(),
            free: Vec::new(),
            lists: Vec::new(),
            free_lists: Vec::new(),
            by_delay: DelayMap::default(),
            queue: ListQueue::default(),
            next_list_id: 0,
            next_expiry: None,
            handle_due: None,
            live: 0,
        }
    }
}

impl<C> NodeTimers<C> {
    /// Each armed timer's callback with the tick it is due at, list by list
    /// in the order the timers phase takes the lists, each list in its order.
    pub fn each(&self, f: &mut dyn FnMut(u64, &C)) {
        let mut lists: Vec<&TimerList> = self.lists.iter().filter(|l| l.alive()).collect();
        crate::sort::sort_by_key(&mut lists, |l| (l.expiry, l.id));
        for list in lists {
            let mut at = list.head;
            while at != NIL {
                let timer = &self.timers[at as usize];
                if let (TimerState::Listed, Some(cb)) = (timer.state(), &timer.cb) {
                    f(timer.due(), cb);
                }
                at = timer.next;
            }
        }
    }

    /// Number of timers and intervals still armed (they keep the loop alive).
    pub fn live(&self) -> usize {
        self.live
    }

    /// The tick at which Node's libuv timer handle is due, if it is started.
    pub fn handle_due(&self) -> Option<u64> {
        self.handle_due
    }

    /// Arms a timer: `setTimeout`/`setInterval` at clock reading `start` with a
    /// coerced `delay` in ticks (at most [`TIMEOUT_MAX`]; Node's `insert`). A
    /// new list for a delay that expires before `nextExpiry` restarts the
    /// handle at `start + delay`.
    pub fn insert(&mut self, start: u64, delay: u64, repeat: bool, cb: C) -> TimerId {
        let delay = u32::try_from(delay)
            .ok()
            .filter(|&d| d != 0 && d & REPEAT == 0)
            .expect("a coerced delay is 1 to 2³¹−1");
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.timers.push(Timer {
                    start: 0,
                    delay_repeat: 0,
                    next: NIL,
                    state_generation: TimerState::Free as u32,
                    runs: 0,
                    cb: None,
                });
                (self.timers.len() - 1) as u32
            }
        };
        let timer = &mut self.timers[index as usize];
        // The next generation (29 bits, wrapping), state Listed.
        timer.state_generation = (timer.state_generation & !STATE_MASK).wrapping_add(1 << 3) | TimerState::Listed as u32;
        timer.start = start;
        timer.delay_repeat = delay | if repeat { REPEAT } else { 0 };
        timer.runs = 0;
        timer.cb = Some(cb);
        let id = TimerId {
            index,
            generation: timer.generation(),
        };
        self.live += 1;
        self.link(index, start, delay);
        id
    }

    fn link(&mut self, index: u32, start: u64, delay: u32) {
        let list = match self.list_of(delay) {
            Some(l) => l,
            None => {
                let expiry = start.saturating_add(u64::from(delay));
                let l = self.new_list(delay, expiry);
                if self.next_expiry.is_none_or(|n| n > expiry) {
                    self.handle_due = Some(expiry);
                    self.next_expiry = Some(expiry);
                }
                l
            }
        };
        self.timers[index as usize].next = NIL;
        let tail = self.lists[list].tail;
        if tail == NIL {
            self.lists[list].head = index;
        } else {
            self.timers[tail as usize].next = index;
        }
        let list = &mut self.lists[list];
        list.tail = index;
        list.live += 1;
    }

    /// The live list of `delay`, if any. An entry of `by_delay` is live when
    /// its slot holds a live list of that delay: a dropped list's entry is
    /// left behind, and its slot may since hold a list of another delay (a
    /// new list of the same delay overwrites the entry).
    fn list_of(&self, delay: u32) -> Option<usize> {
        let l = self.by_delay.get(delay)?;
        entry_is_live(&self.lists, delay, l).then_some(l as usize)
    }

    fn new_list(&mut self, delay: u32, expiry: u64) -> usize {
        let id = self.fresh_id();
        let list = TimerList {
            delay,
            expiry,
            id,
            head: NIL,
            tail: NIL,
            live: 0,
        };
        let l = match self.free_lists.pop() {
            Some(l) => {
                let l = l as usize;
                self.lists[l] = list;
                l
            }
            None => {
                self.lists.push(list);
                self.lists.len() - 1
            }
        };
        self.by_delay.insert(delay, l as u32);
        self.queue.push(ListKey::new(expiry, id, l as u32));
        l
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_list_id += 1;
        self.next_list_id
    }

    fn drop_list(&mut self, l: usize) {
        let list = &mut self.lists[l];
        if !list.alive() {
            return;
        }
        let delay = std::mem::replace(&mut list.delay, 0);
        let mut index = std::mem::replace(&mut list.head, NIL);
        list.tail = NIL;
        // Its `by_delay` entry stays, stale (see `list_of`).
        let lists = &self.lists;
        self.by_delay.dropped(delay, |d, l| entry_is_live(lists, d, l));
        self.free_lists.push(l as u32);
        while index != NIL {
            let next = self.timers[index as usize].next;
            self.release(index);
            index = next;
        }
    }

    /// `clearTimeout`/`clearInterval`: unlinks the timer; a list it empties is
    /// dropped. Returns whether a live timer was cleared.
    pub fn clear(&mut self, id: TimerId) -> bool {
        let Some(timer) = self.timers.get_mut(id.index as usize) else {
            return false;
        };
        if timer.generation() != id.generation {
            return false;
        }
        match timer.state() {
            TimerState::Listed => {
                let delay = timer.delay();
                timer.set_state(TimerState::Cleared);
                timer.cb = None;
                self.live -= 1;
                if let Some(l) = self.list_of(delay) {
                    let list = &mut self.lists[l];
                    list.live -= 1;
                    if list.live == 0 {
                        self.drop_list(l);
                    }
                }
                true
            }
            TimerState::Running => {
                timer.set_state(TimerState::ClearedWhileRunning);
                self.live -= 1;
                true
            }
            TimerState::Cleared | TimerState::ClearedWhileRunning | TimerState::Free => false,
        }
    }

    fn release(&mut self, index: u32) {
        let timer = &mut self.timers[index as usize];
        if !matches!(timer.state(), TimerState::ClearedWhileRunning | TimerState::Cleared) {
            self.live -= 1;
        }
        timer.set_state(TimerState::Free);
        timer.next = NIL;
        timer.cb = None;
        self.free.push(index);
    }

    /// The list with the smallest `(expiry, id)` key, dropping stale keys.
    fn peek_list(&mut self) -> Option<usize> {
        while let Some(key) = self.queue.peek() {
            let (expiry, id, l) = (key.expiry, key.id(), key.list());
            let list = &self.lists[l as usize];
            if list.alive() && list.id == id && list.expiry == expiry {
                return Some(l as usize);
            }
            self.queue.pop();
        }
        None
    }

    /// Starts a `processTimers(now)` run: Node resets `nextExpiry`, and the
    /// handle is stopped while it runs.
    pub fn begin_run(&mut self) {
        self.next_expiry = None;
        self.handle_due = None;
    }

    /// `processTimers`' outer step: the next list to run at `now`, or `Err(E)`
    /// with the expiry of the first list not yet due (`None`: no list left).
    pub fn next_due_list(&mut self, now: u64) -> Result<usize, Option<u64>> {
        match self.peek_list() {
            None => Err(None),
            Some(l) if self.lists[l].expiry > now => {
                self.next_expiry = Some(self.lists[l].expiry);
                Err(Some(self.lists[l].expiry))
            }
            Some(l) => Ok(l),
        }
    }

    /// Prefetches what the lists the timers phase takes next will read, a
    /// stage at a time so that each stage reads only what an earlier call
    /// prefetched: the list record 12 lists ahead, the head timer's slot 8
    /// ahead, then the host's part of the head timer's callback 4 and 2
    /// ahead (`fetch(cb, distance)`, e.g. its record, then what the record
    /// points to). A hint only: it changes no state, and a guess that proves
    /// wrong (the lists are not taken in the run's order) costs a wasted fetch.
    #[inline]
    pub fn fetch_ahead(&self, fetch: &mut impl FnMut(&C, usize)) {
        if let Some(key) = self.queue.ahead(12) {
            if let Some(list) = self.lists.get(key.list() as usize) {
                super::prefetch(list);
            }
        }
        let head_of = |distance: usize| {
            let key = self.queue.ahead(distance)?;
            let head = self.lists.get(key.list() as usize)?.head;
            self.timers.get(head as usize)
        };
        if let Some(timer) = head_of(8) {
            super::prefetch(timer);
        }
        for distance in [4, 2] {
            if let Some(cb) = head_of(distance).and_then(|t| t.cb.as_ref()) {
                fetch(cb, distance);
            }
        }
    }

    /// `listOnTimeout`'s step for list `l` at phase-entry clock `now`: takes
    /// the head if due (`now - start >= delay`), else re-keys the list to
    /// `max(head.start + delay, now + 1)` with a fresh id.
    pub fn head(&mut self, l: usize, now: u64) -> Head<C> {
        if !self.lists[l].alive() {
            return Head::ListDone;
        }
        loop {
            let index = self.lists[l].head;
            if index == NIL {
                self.drop_list(l);
                return Head::ListDone;
            }
            let timer = &self.timers[index as usize];
            if timer.state() == TimerState::Cleared {
                self.unlink_head(l);
                self.release(index);
                continue;
            }
            let due_at = timer.due();
            if due_at > now {
                let expiry = due_at.max(now.saturating_add(1));
                let id = self.fresh_id();
                let list = &mut self.lists[l];
                list.expiry = expiry;
                list.id = id;
                self.queue.push(ListKey::new(expiry, id, l as u32));
                return Head::NotDue;
            }
            return Head::Due(self.take(l, index));
        }
    }

    fn unlink_head(&mut self, l: usize) {
        let head = self.lists[l].head;
        let next = self.timers[head as usize].next;
        let list = &mut self.lists[l];
        list.head = next;
        if next == NIL {
            list.tail = NIL;
        }
    }

    fn take(&mut self, l: usize, index: u32) -> DueTimer<C> {
        self.unlink_head(l);
        self.lists[l].live -= 1;
        let timer = &mut self.timers[index as usize];
        timer.set_state(TimerState::Running);
        timer.runs = timer.runs.saturating_add(1);
        DueTimer {
            run: u64::from(timer.runs),
            id: TimerId {
                index,
                generation: timer.generation(),
            },
            cb: timer.cb.take().expect("a listed timer holds its callback"),
            repeat: timer.repeat(),
        }
    }

    /// Whether the timer is still live (not cleared). A timer taken by
    /// [`head`](Self::head) and cleared by the drain before it runs is skipped.
    pub fn is_running(&self, id: TimerId) -> bool {
        let t = &self.timers[id.index as usize];
        t.generation() == id.generation && t.state() == TimerState::Running
    }

    /// After a timer's callback: an interval not cleared meanwhile is
    /// re-inserted from `start`, the reading taken when its callback started;
    /// anything else is released.
    pub fn finish(&mut self, due: DueTimer<C>, interval_start: Option<u64>) {
        let index = due.id.index;
        let running = self.is_running(due.id);
        match interval_start {
            Some(start) if running => {
                let timer = &mut self.timers[index as usize];
                timer.set_state(TimerState::Listed);
                timer.start = start;
                timer.cb = Some(due.cb);
                let delay = timer.delay();
                self.link(index, start, delay);
            }
            _ => self.release(index),
        }
    }

    /// Ends a `RunTimers` call (`src/env.cc`): the handle is restarted at
    /// `max(last_reading + 1, expiry)` when a list is left, else stays stopped.
    pub fn end_run(&mut self, next: Option<u64>, last_reading: u64) {
        self.handle_due = next.map(|e| e.max(last_reading.saturating_add(1)));
    }
}

impl<C> NodeTimers<C> {
    /// The latest tick any timer, list or the handle is due at, if any.
    pub fn latest(&self) -> Option<u64> {
        let lists = self.lists.iter().filter(|l| l.alive()).map(|l| {
            let tail = (l.tail != NIL).then(|| self.timers[l.tail as usize].due());
            l.expiry.max(tail.unwrap_or(0))
        });
        lists.chain(self.handle_due).max()
    }

    /// Every tick a live timer or list is due at, and the handle's.
    pub fn thresholds(&self) -> Vec<u64> {
        let mut out: Vec<u64> = self.lists.iter().filter(|l| l.alive()).map(|l| l.expiry).collect();
        for t in &self.timers {
            if t.state() == TimerState::Listed {
                out.push(t.due());
            }
        }
        out.extend(self.handle_due);
        out
    }

    /// Feeds the timers' state, times relative to `base`, to `h`: lists in
    /// queue order with their live timers, the handle and `nextExpiry`.
    pub fn fingerprint<H: std::hash::Hasher>(&self, base: u64, h: &mut H)
    where
        C: std::hash::Hash,
    {
        use std::hash::Hash;
        let rel = |t: u64| if t == u64::MAX { i128::MAX } else { t as i128 - base as i128 };
        let mut lists: Vec<&TimerList> = self.lists.iter().filter(|l| l.alive()).collect();
        crate::sort::sort_by_key(&mut lists, |l| (l.expiry, l.id));
        for l in lists {
            (u64::from(l.delay), rel(l.expiry)).hash(h);
            let mut index = l.head;
            while index != NIL {
                let t = &self.timers[index as usize];
                if t.state() == TimerState::Listed {
                    (rel(t.start), t.repeat(), t.runs, index, &t.cb).hash(h);
                }
                index = t.next;
            }
        }
        (self.handle_due.map(rel), self.next_expiry.map(rel), self.live).hash(h);
    }
}

#[cfg(test)]
mod tests;
