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
//!
//! A list of one timer has no list record: its queue key names the timer's
//! slot (the timer is [`TimerState::Single`], its slot holding the list's
//! id), and it becomes a [`TimerList`] when a second timer of its delay is
//! armed. A million timers of distinct delays then take no list records.

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
    /// Alone in its list, which has no [`TimerList`]: the list is its queue
    /// key, naming this slot, and [`Timer::next`] holds the list's id.
    Single = 5,
}

impl TimerState {
    fn from_bits(bits: u32) -> Self {
        match bits & STATE_MASK {
            0 => TimerState::Listed,
            1 => TimerState::Cleared,
            2 => TimerState::Running,
            3 => TimerState::ClearedWhileRunning,
            5 => TimerState::Single,
            _ => TimerState::Free,
        }
    }
}

/// A timer slot: 24 bytes and its callback (64 bytes for the interpreter's
/// 40-byte task), so that running a timer touches one cache line or two.
#[derive(Clone)]
struct Timer<C> {
    /// The clock reading when the timer was (re-)armed (`_idleStart`), in ticks.
    start: u64,
    /// The coerced delay in ticks (at most [`TIMEOUT_MAX`], so 31 bits) and,
    /// in the top bit ([`REPEAT`]), whether it is an interval.
    delay_repeat: u32,
    /// The next timer of its list ([`NIL`] for the last); for a
    /// [`TimerState::Single`] timer, its list's id; for a free slot, the
    /// next free slot.
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
#[derive(Clone)]
struct TimerList {
    /// Its delay in ticks (coerced: at most [`TIMEOUT_MAX`]); 0 once the
    /// list is dropped (a coerced delay is at least 1).
    delay: u32,
    /// Timers of the list not cleared (the list is dropped at 0).
    live: u32,
    /// The tick the list is due at (Node's `expiry`).
    expiry: u64,
    /// Its key's tie-breaker in the queue (Node's list id, `timerListId`).
    id: u32,
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

/// A heap entry: the list `owner` names due at `expiry`, keyed by
/// `(expiry, id)`, in 16 bytes (four of them to a cache line): the id in the
/// high 32 bits of `id_list`, the owner in the low 32, so that `id_list`
/// orders as the id does. An entry whose list has since been dropped or
/// re-keyed is stale.
#[derive(Clone, Copy)]
struct ListKey {
    expiry: u64,
    id_list: u64,
}

/// An owner with this bit names the slot of a [`TimerState::Single`] timer
/// (the rest of its bits), else a [`TimerList`] slot: in [`ListKey`]s and
/// [`DelayMap`] entries.
const SINGLE: u32 = 1 << 31;

impl ListKey {
    fn new(expiry: u64, id: u32, owner: u32) -> Self {
        ListKey {
            expiry,
            id_list: u64::from(id) << 32 | u64::from(owner),
        }
    }

    fn id(&self) -> u32 {
        (self.id_list >> 32) as u32
    }

    fn owner(&self) -> u32 {
        self.id_list as u32
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
#[derive(Clone, Default)]
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

    /// Every key, in no order.
    fn keys(&self) -> impl Iterator<Item = ListKey> + '_ {
        (0..self.len).map(|i| self.key(i))
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
#[derive(Clone, Default)]
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
        sort_keys(&mut self.batch);
        self.batch.reverse();
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

/// Sorts keys by `(expiry, id)`, smallest first: a radix sort in place on
/// the expiry's bits (a byte at a time from the highest that differ), each
/// small bucket by comparisons. Keys are unique, so the order is that of
/// any sort; no memory beside the keys (the batch is sorted when the most
/// timers wait at once).
fn sort_keys(keys: &mut [ListKey]) {
    let (Some(min), Some(max)) = (keys.iter().map(|k| k.expiry).min(), keys.iter().map(|k| k.expiry).max()) else {
        return;
    };
    let bits = 64 - (max - min).leading_zeros();
    radix_sort_keys(keys, min, bits.saturating_sub(8));
}

/// [`sort_keys`] of keys whose expiries, less `min`, agree above bit
/// `shift + 8`: bucketed by bits `shift..shift + 8`, each bucket sorted.
fn radix_sort_keys(keys: &mut [ListKey], min: u64, shift: u32) {
    /// Buckets at most this long are sorted by comparisons.
    const SMALL: usize = 48;
    if keys.len() <= SMALL {
        crate::sort::sort_by_key(keys, |k| k.key());
        return;
    }
    let digit = |k: &ListKey| ((k.expiry - min) >> shift) as usize & 0xff;
    let mut ends = [0usize; 256];
    for k in keys.iter() {
        ends[digit(k)] += 1;
    }
    let mut starts = [0usize; 256];
    let mut sum = 0;
    for (b, end) in ends.iter_mut().enumerate() {
        starts[b] = sum;
        sum += *end;
        *end = sum;
    }
    // In place (American flag sort): each key is swapped into its bucket.
    let mut heads = starts;
    for b in 0..256 {
        while heads[b] < ends[b] {
            let d = digit(&keys[heads[b]]);
            if d == b {
                heads[b] += 1;
            } else {
                keys.swap(heads[b], heads[d]);
                heads[d] += 1;
            }
        }
    }
    for b in 0..256 {
        let bucket = &mut keys[starts[b]..ends[b]];
        if shift == 0 {
            // One expiry: by id.
            crate::sort::sort_by_key(bucket, |k| k.key());
        } else {
            radix_sort_keys(bucket, min, shift.saturating_sub(8));
        }
    }
}

/// Delays below this have their list in [`DelayMap`]'s direct table (at most
/// 16 MiB of it, only the part up to the largest delay used).
const DIRECT_DELAYS: u32 = 1 << 22;

/// The list of each delay (Node's `timerListMap`): a direct table for delays
/// below [`DIRECT_DELAYS`], a hash map for the rest. An entry may be stale
/// (its list dropped, its slot since reused): [`NodeTimers::list_of`] checks.
#[derive(Clone, Default)]
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
                // At least 16 delays, so that the copy of a small table (an
                // orders search copies the loop's state once per schedule it
                // replays) costs 64 bytes, not the 4 KiB of 1,024.
                let len = (i + 1).next_power_of_two().clamp(16, DIRECT_DELAYS as usize);
                self.direct.resize(len, 0);
            }
            self.direct[i] = list + 1;
        } else if self.rest.insert(delay, list).is_some() {
            // A dropped list's entry (a live list's would have been found).
            self.stale = self.stale.saturating_sub(1);
        }
    }

    /// Replaces the live entry of `delay` (a single timer's list becoming a
    /// [`TimerList`]).
    fn replace(&mut self, delay: u32, list: u32) {
        if delay < DIRECT_DELAYS {
            self.direct[delay as usize] = list + 1;
        } else {
            self.rest.insert(delay, list);
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

/// Whether a [`DelayMap`] entry `delay → owner` names a live list: a list
/// slot holding a list of that delay (a dropped list's delay is 0, and a
/// reused slot's is its new list's), or a timer of that delay alone in its
/// list, or `taken`, the single timer whose list the timers phase is in.
fn entry_is_live<C>(lists: &[TimerList], timers: &[Timer<C>], taken: Option<Taken>, delay: u32, owner: u32) -> bool {
    if owner & SINGLE == 0 {
        return lists.get(owner as usize).is_some_and(|list| list.delay == delay);
    }
    let index = owner & !SINGLE;
    timers
        .get(index as usize)
        .is_some_and(|t| t.state() == TimerState::Single && t.delay() == delay)
        || taken.is_some_and(|k| k.index == index && k.list.is_none() && k.delay == delay)
}

/// What a live [`DelayMap`] entry names.
#[derive(Clone, Copy)]
enum Owner {
    /// A [`TimerList`] slot.
    List(usize),
    /// The slot of a timer alone in its list (or of [`Taken`]'s timer).
    Single(u32),
}

/// The timer alone in its list that [`NodeTimers::head`] took: until the
/// timers phase leaves its list, the list is still its delay's, as in Node,
/// where `listOnTimeout` deletes a list once it finds it empty. A timer of
/// that delay armed meanwhile (by the callback, or the interval re-armed)
/// makes it a [`TimerList`] (`list`) with the key the list had.
#[derive(Clone, Copy)]
struct Taken {
    index: u32,
    delay: u32,
    expiry: u64,
    id: u32,
    list: Option<u32>,
}

/// The list the timers phase takes, from [`NodeTimers::next_due_list`] to
/// [`NodeTimers::head`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListAt {
    owner: u32,
    id: u32,
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
#[derive(Clone)]
pub struct NodeTimers<C> {
    timers: Vec<Timer<C>>,
    /// The free slots, a stack linked through [`Timer::next`] ([`NIL`]:
    /// none): no memory of its own, where a vector of them would take 4
    /// bytes a timer once a million timers have run.
    free: u32,
    lists: Vec<TimerList>,
    free_lists: Vec<u32>,
    /// The list of each delay (Node's `timerListMap`). A dropped list's entry
    /// is left in place (see [`Self::list_of`]): with many distinct delays,
    /// each drop would otherwise be one more cache miss.
    by_delay: DelayMap,
    queue: ListQueue,
    next_list_id: u32,
    /// The single timer whose list the timers phase is in, if any.
    taken: Option<Taken>,
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
            free: NIL,
            lists: Vec::new(),
            free_lists: Vec::new(),
            by_delay: DelayMap::default(),
            queue: ListQueue::default(),
            next_list_id: 0,
            taken: None,
            next_expiry: None,
            handle_due: None,
            live: 0,
        }
    }
}

/// A list as [`NodeTimers::each`] and [`NodeTimers::fingerprint`] see it:
/// its key, delay and first timer (a single timer's list has one, the list
/// of [`Taken`]'s timer none).
struct ListView {
    expiry: u64,
    id: u32,
    delay: u32,
    first: u32,
    single: bool,
}

impl<C> NodeTimers<C> {
    /// The live lists, in the order the timers phase takes them.
    fn views(&self) -> Vec<ListView> {
        let mut out: Vec<ListView> = self
            .lists
            .iter()
            .filter(|l| l.alive())
            .map(|l| ListView {
                expiry: l.expiry,
                id: l.id,
                delay: l.delay,
                first: l.head,
                single: false,
            })
            .collect();
        for index in self.singles() {
            let t = &self.timers[index as usize];
            out.push(ListView {
                expiry: t.due(),
                id: t.next,
                delay: t.delay(),
                first: index,
                single: true,
            });
        }
        if let Some(k) = self.taken.filter(|k| k.list.is_none()) {
            out.push(ListView {
                expiry: k.expiry,
                id: k.id,
                delay: k.delay,
                first: NIL,
                single: true,
            });
        }
        crate::sort::sort_by_key(&mut out, |v| (v.expiry, v.id));
        out
    }

    /// The slot of each timer alone in its list, found by its live queue key
    /// (as many keys as lists, not as timers), in no order.
    fn singles(&self) -> impl Iterator<Item = u32> + '_ {
        let q = &self.queue;
        q.run.iter().chain(&q.batch).copied().chain(q.heap.keys()).filter_map(|key| {
            let single = key.owner() & SINGLE != 0 && self.key_is_live(key);
            single.then_some(key.owner() & !SINGLE)
        })
    }

    /// The timers of a list `view`, in order, cleared ones included.
    fn view_timers<'s>(&'s self, view: &ListView) -> impl Iterator<Item = (u32, &'s Timer<C>)> + 's {
        let single = view.single;
        let mut at = view.first;
        std::iter::from_fn(move || {
            if at == NIL {
                return None;
            }
            let index = at;
            let timer = &self.timers[index as usize];
            at = if single { NIL } else { timer.next };
            Some((index, timer))
        })
    }

    /// Each list with an armed timer: its expiry (its key in the queue of
    /// lists) and its armed timers' `(start, due)` ticks in list order. The
    /// all-orders explorer checks its lazily read timer starts with it
    /// (`crate::orders::node20`).
    pub fn each_list(&self, mut f: impl FnMut(u64, &[(u64, u64)])) {
        let mut armed = Vec::new();
        for view in self.views() {
            armed.clear();
            for (_, t) in self.view_timers(&view) {
                if matches!(t.state(), TimerState::Listed | TimerState::Single) {
                    armed.push((t.start, t.due()));
                }
            }
            if !armed.is_empty() {
                f(view.expiry, &armed);
            }
        }
    }

    /// Each armed timer's callback with the tick it is due at, list by list
    /// in the order the timers phase takes the lists, each list in its order.
    pub fn each(&self, f: &mut dyn FnMut(u64, &C)) {
        for view in self.views() {
            for (_, timer) in self.view_timers(&view) {
                if let (TimerState::Listed | TimerState::Single, Some(cb)) = (timer.state(), &timer.cb) {
                    f(timer.due(), cb);
                }
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
        let index = match self.free {
            NIL => {
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
            free => {
                self.free = self.timers[free as usize].next;
                free
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

    /// Puts timer `index` (state Listed) at the end of the list of `delay`:
    /// a new list is the timer alone ([`TimerState::Single`]); a second timer
    /// makes a single timer's list a [`TimerList`].
    fn link(&mut self, index: u32, start: u64, delay: u32) {
        let list = match self.list_of(delay) {
            Some(Owner::List(l)) => l,
            Some(Owner::Single(alone)) => self.promote(alone, delay),
            None => {
                let expiry = start.saturating_add(u64::from(delay));
                if self.next_expiry.is_none_or(|n| n > expiry) {
                    self.handle_due = Some(expiry);
                    self.next_expiry = Some(expiry);
                }
                let id = self.fresh_id();
                let timer = &mut self.timers[index as usize];
                timer.set_state(TimerState::Single);
                timer.next = id;
                self.by_delay.insert(delay, index | SINGLE);
                self.queue.push(ListKey::new(expiry, id, index | SINGLE));
                return;
            }
        };
        self.append(list, index);
    }

    /// Links timer `index` at the end of list `l`.
    fn append(&mut self, l: usize, index: u32) {
        self.timers[index as usize].next = NIL;
        let tail = self.lists[l].tail;
        if tail == NIL {
            self.lists[l].head = index;
        } else {
            self.timers[tail as usize].next = index;
        }
        let list = &mut self.lists[l];
        list.tail = index;
        list.live += 1;
    }

    /// Makes the list of the single timer `alone` (or of [`Taken`]'s timer) a
    /// [`TimerList`] with the same key (pushed again, naming the list; the
    /// old entry is then stale). Returns the list's slot.
    fn promote(&mut self, alone: u32, delay: u32) -> usize {
        let taken = self.taken.filter(|k| k.index == alone && k.list.is_none());
        let (expiry, id) = match taken {
            Some(k) => (k.expiry, k.id),
            None => {
                let timer = &self.timers[alone as usize];
                (timer.due(), timer.next)
            }
        };
        let l = self.new_list(TimerList {
            delay,
            expiry,
            id,
            head: NIL,
            tail: NIL,
            live: 0,
        });
        self.by_delay.replace(delay, l as u32);
        match taken {
            Some(k) => self.taken = Some(Taken { list: Some(l as u32), ..k }),
            None => {
                self.timers[alone as usize].set_state(TimerState::Listed);
                self.append(l, alone);
            }
        }
        l
    }

    /// The live list of `delay`, if any. An entry of `by_delay` is live when
    /// it names a live list of that delay ([`entry_is_live`]): a dropped
    /// list's entry is left behind, and its slot may since hold a list of
    /// another delay (a new list of the same delay overwrites the entry).
    fn list_of(&self, delay: u32) -> Option<Owner> {
        let owner = self.by_delay.get(delay)?;
        if !entry_is_live(&self.lists, &self.timers, self.taken, delay, owner) {
            return None;
        }
        Some(match owner & SINGLE {
            0 => Owner::List(owner as usize),
            _ => Owner::Single(owner & !SINGLE),
        })
    }

    /// Puts `list` in a free slot and its key in the queue.
    fn new_list(&mut self, list: TimerList) -> usize {
        let (expiry, id) = (list.expiry, list.id);
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
        self.queue.push(ListKey::new(expiry, id, l as u32));
        l
    }

    /// A new list id (Node's `timerListId++`). Ids are 32 bits: when they run
    /// out, the live keys are numbered again in their order ([`Self::renumber`]).
    fn fresh_id(&mut self) -> u32 {
        if self.next_list_id == u32::MAX {
            self.renumber();
        }
        self.next_list_id += 1;
        self.next_list_id
    }

    /// Whether a queue key is its list's current key.
    fn key_is_live(&self, key: ListKey) -> bool {
        let owner = key.owner();
        if owner & SINGLE != 0 {
            let timer = &self.timers[(owner & !SINGLE) as usize];
            return timer.state() == TimerState::Single && timer.next == key.id();
        }
        let list = &self.lists[owner as usize];
        list.alive() && list.id == key.id() && list.expiry == key.expiry
    }

    /// Gives the live keys (and [`Taken`]'s list) the ids 1, 2, … in their
    /// order, dropping stale keys: the order of every list, and of lists
    /// made later, stays as it was.
    fn renumber(&mut self) {
        const TAKEN: u32 = u32::MAX;
        let queue = std::mem::take(&mut self.queue);
        let mut keys: Vec<ListKey> = queue
            .run
            .iter()
            .chain(&queue.batch)
            .copied()
            .chain(queue.heap.keys())
            .filter(|&k| self.key_is_live(k))
            .collect();
        if let Some(k) = self.taken {
            keys.push(ListKey::new(k.expiry, k.id, TAKEN));
        }
        crate::sort::sort_by_key(&mut keys, |k| k.key());
        for (i, key) in keys.iter_mut().enumerate() {
            let id = i as u32 + 1;
            match key.owner() {
                TAKEN => {
                    if let Some(k) = &mut self.taken {
                        k.id = id;
                    }
                    continue;
                }
                owner if owner & SINGLE != 0 => self.timers[(owner & !SINGLE) as usize].next = id,
                owner => self.lists[owner as usize].id = id,
            }
            self.queue.push(ListKey::new(key.expiry, id, key.owner()));
        }
        self.next_list_id = keys.len() as u32;
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
        self.dropped(delay);
        self.free_lists.push(l as u32);
        while index != NIL {
            let next = self.timers[index as usize].next;
            self.release(index);
            index = next;
        }
    }

    /// The list of `delay` is gone, its `by_delay` entry left behind, stale.
    fn dropped(&mut self, delay: u32) {
        let (lists, timers, taken) = (&self.lists, &self.timers, self.taken);
        self.by_delay
            .dropped(delay, |d, owner| entry_is_live(lists, timers, taken, d, owner));
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
                if let Some(Owner::List(l)) = self.list_of(delay) {
                    let list = &mut self.lists[l];
                    list.live -= 1;
                    if list.live == 0 {
                        self.drop_list(l);
                    }
                }
                true
            }
            TimerState::Single => {
                // Its list is dropped with it: its key is stale.
                let delay = timer.delay();
                timer.set_state(TimerState::Cleared);
                self.release(id.index);
                self.live -= 1;
                self.dropped(delay);
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
        timer.next = self.free;
        timer.cb = None;
        self.free = index;
    }

    /// The smallest key whose list is live, dropping stale keys.
    fn peek_list(&mut self) -> Option<ListKey> {
        while let Some(key) = self.queue.peek() {
            if self.key_is_live(key) {
                return Some(key);
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
    pub fn next_due_list(&mut self, now: u64) -> Result<ListAt, Option<u64>> {
        self.leave_taken();
        match self.peek_list() {
            None => Err(None),
            Some(key) if key.expiry > now => {
                self.next_expiry = Some(key.expiry);
                Err(Some(key.expiry))
            }
            Some(key) => Ok(ListAt {
                owner: key.owner(),
                id: key.id(),
            }),
        }
    }

    /// The timers phase leaves the list of [`Taken`]'s timer: if no timer
    /// joined it, it is dropped.
    fn leave_taken(&mut self) {
        if let Some(k) = self.taken.take() {
            if k.list.is_none() {
                self.dropped(k.delay);
            }
        }
    }

    /// Prefetches what the lists the timers phase takes next will read, a
    /// stage at a time so that each stage reads only what an earlier call
    /// prefetched: the list record 12 lists ahead (a single timer's slot),
    /// the head timer's slot 8 ahead, then the host's part of the head
    /// timer's callback 4 and 2 ahead (`fetch(cb, distance)`, e.g. its
    /// record, then what the record points to). A hint only: it changes no
    /// state, and a guess that proves wrong (the lists are not taken in the
    /// run's order) costs a wasted fetch.
    #[inline]
    pub fn fetch_ahead(&self, fetch: &mut impl FnMut(&C, usize)) {
        if let Some(key) = self.queue.ahead(12) {
            let owner = key.owner();
            if owner & SINGLE != 0 {
                if let Some(timer) = self.timers.get((owner & !SINGLE) as usize) {
                    super::prefetch(timer);
                }
            } else if let Some(list) = self.lists.get(owner as usize) {
                super::prefetch(list);
            }
        }
        let head_of = |distance: usize| {
            let owner = self.queue.ahead(distance)?.owner();
            let head = match owner & SINGLE {
                0 => self.lists.get(owner as usize)?.head,
                _ => owner & !SINGLE,
            };
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

    /// `listOnTimeout`'s step for list `at` at phase-entry clock `now`: takes
    /// the head if due (`now - start >= delay`), else re-keys the list to
    /// `max(head.start + delay, now + 1)` with a fresh id.
    pub fn head(&mut self, at: ListAt, now: u64) -> Head<C> {
        let l = if at.owner & SINGLE == 0 {
            at.owner as usize
        } else {
            let index = at.owner & !SINGLE;
            match self.taken {
                // Its timer ran: the list goes on if a timer joined it.
                Some(k) if k.index == index => match k.list {
                    Some(l) => l as usize,
                    None => {
                        self.leave_taken();
                        return Head::ListDone;
                    }
                },
                _ => return self.head_single(index, at.id, now),
            }
        };
        let head = self.list_head(l, now);
        if !matches!(head, Head::Due(_)) {
            self.leave_taken();
        }
        head
    }

    /// [`Self::head`] of a single timer's list (`id`: the list's id).
    fn head_single(&mut self, index: u32, id: u32, now: u64) -> Head<C> {
        let timer = &self.timers[index as usize];
        if timer.state() != TimerState::Single || timer.next != id {
            return Head::ListDone;
        }
        let due_at = timer.due();
        if due_at > now {
            let expiry = due_at.max(now.saturating_add(1));
            let id = self.fresh_id();
            self.timers[index as usize].next = id;
            self.queue.push(ListKey::new(expiry, id, index | SINGLE));
            return Head::NotDue;
        }
        let delay = timer.delay();
        self.taken = Some(Taken {
            index,
            delay,
            expiry: due_at,
            id,
            list: None,
        });
        let timer = &mut self.timers[index as usize];
        timer.next = NIL;
        Head::Due(self.take(index))
    }

    /// [`Self::head`] of list `l`.
    fn list_head(&mut self, l: usize, now: u64) -> Head<C> {
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
            self.unlink_head(l);
            self.lists[l].live -= 1;
            return Head::Due(self.take(index));
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

    /// Takes timer `index`, off its list, to run.
    fn take(&mut self, index: u32) -> DueTimer<C> {
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
        let singles = self.singles().map(|index| self.timers[index as usize].due());
        let taken = self.taken.filter(|k| k.list.is_none()).map(|k| k.expiry);
        lists.chain(singles).chain(taken).chain(self.handle_due).max()
    }

    /// Every tick a live timer or list is due at, and the handle's.
    pub fn thresholds(&self) -> Vec<u64> {
        let mut out: Vec<u64> = self.lists.iter().filter(|l| l.alive()).map(|l| l.expiry).collect();
        out.extend(self.taken.filter(|k| k.list.is_none()).map(|k| k.expiry));
        for t in &self.timers {
            match t.state() {
                TimerState::Listed => out.push(t.due()),
                // Its list's expiry, and its own.
                TimerState::Single => out.extend([t.due(), t.due()]),
                _ => {}
            }
        }
        out.extend(self.handle_due);
        out
    }

    /// Feeds the timers' state, times relative to `base`, to `h`: lists in
    /// queue order with their live timers, the handle and `nextExpiry`.
    ///
    /// Ticks at or before `past` (a clock reading no later one can be
    /// below) are all one value: every later comparison finds them due,
    /// whatever they are (docs/orders.md "Past ticks"). A list's due tick
    /// there only orders it before the others, which the lists' order shows;
    /// a timer due there runs at the next timers phase that runs, its start
    /// compared with nothing; the handle due there fires at the next timers
    /// phase; a `nextExpiry` there is below every new list's expiry.
    ///
    /// With `slots` false the timers' slots are left out: where nothing
    /// holds a handle (no `clear`), nothing reads a timer's slot (its list
    /// links it, in the order the key shows), so timers set into slots freed
    /// in different orders are one state (docs/orders.md "Timer slots").
    pub fn fingerprint<H: std::hash::Hasher>(&self, base: u64, past: Option<u64>, slots: bool, h: &mut H)
    where
        C: std::hash::Hash,
    {
        use std::hash::Hash;
        let rel = |t: u64| if t == u64::MAX { i128::MAX } else { t as i128 - base as i128 };
        // (Not in the WebAssembly build, for its size budget.)
        #[cfg(not(target_arch = "wasm32"))]
        let at = |t: u64| if past.is_some_and(|p| t <= p) { i128::MIN } else { rel(t) };
        #[cfg(target_arch = "wasm32")]
        let at = {
            let _ = past;
            rel
        };
        for view in self.views() {
            (u64::from(view.delay), at(view.expiry)).hash(h);
            for (index, t) in self.view_timers(&view) {
                if matches!(t.state(), TimerState::Listed | TimerState::Single) {
                    let start = if at(t.due()) == i128::MIN { i128::MIN } else { rel(t.start) };
                    let slot = if slots { index } else { u32::MAX };
                    (start, t.repeat(), t.runs, slot, &t.cb).hash(h);
                }
            }
        }
        (self.handle_due.map(at), self.next_expiry.map(at), self.live).hash(h);
    }
}

#[cfg(test)]
mod tests;
