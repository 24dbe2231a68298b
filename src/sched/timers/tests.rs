//! The timer structures alone: the list queue against a plain priority
//! queue, the delay map, the sizes of the records, and lists with cleared
//! timers.

use super::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn list_queue_pops_in_the_order_of_a_binary_heap() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut queue = ListQueue::default();
    let mut reference: BinaryHeap<Reverse<(u64, u64)>> = BinaryHeap::new();
    let mut id = 0u64;
    let mut popped = 0;
    // Rounds of batches of every size (some merged into the run, some into
    // the heap), each followed by some pops, then everything popped.
    for round in 0..200u64 {
        let batch = match round % 4 {
            0 => rng.below(5_000),
            1 => rng.below(70),
            2 => 1,
            _ => rng.below(600),
        };
        for _ in 0..batch {
            id += 1;
            // Few distinct expiries, so ties on expiry are common.
            let expiry = round * 10 + rng.below(2_000);
            let key = ListKey::new(expiry, id, (id % 1000) as u32);
            queue.push(key);
            reference.push(Reverse(key.key()));
        }
        for _ in 0..rng.below(batch + 50) {
            let want = reference.pop().map(|Reverse(k)| k);
            assert_eq!(queue.peek().map(|k| k.key()), want);
            assert_eq!(queue.pop().map(|k| k.key()), want);
            popped += usize::from(want.is_some());
        }
    }
    while let Some(Reverse(want)) = reference.pop() {
        assert_eq!(queue.pop().map(|k| k.key()), Some(want));
        popped += 1;
    }
    assert_eq!(queue.pop().map(|k| k.key()), None);
    assert_eq!(popped as u64, id);
    assert!(queue.run.capacity() > 0, "some batches were merged into the run");
}

#[test]
fn a_large_batch_is_merged_into_the_run_a_small_one_goes_to_the_heap() {
    let mut queue = ListQueue::default();
    for id in 1..=1000u64 {
        queue.push(ListKey::new(1000 - id, id, 0));
    }
    assert_eq!(queue.peek().map(|k| k.expiry), Some(0));
    assert_eq!((queue.run.len(), queue.heap.len), (1000, 0));
    assert_eq!(queue.ahead(2).map(|k| k.expiry), Some(2));
    for id in 1001..=1010u64 {
        queue.push(ListKey::new(id - 1001, id, 0));
    }
    // Ten keys: into the heap. Ties on expiry go to the smaller id (the run's).
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((0, 1000)));
    assert_eq!((queue.run.len(), queue.heap.len), (999, 10));
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((0, 1001)));
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((1, 999)));
    // 500 keys (more than an eighth of the run): merged.
    for id in 2001..=2500u64 {
        queue.push(ListKey::new(5000 - id, id, 0));
    }
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((1, 1002)));
    assert_eq!((queue.run.len(), queue.heap.len), (1498, 8));
    let mut last = (0, 0);
    while let Some(k) = queue.pop() {
        assert!(k.key() > last, "{:?} after {last:?}", k.key());
        last = k.key();
    }
}

#[test]
fn the_delay_map_keeps_small_delays_in_its_table_and_large_ones_in_a_hash_map() {
    let mut map = DelayMap::default();
    assert_eq!(map.get(5), None);
    map.insert(5, 0);
    map.insert(1_000_000, 7);
    map.insert(DIRECT_DELAYS, 8);
    map.insert(TIMEOUT_MAX as u32, 9);
    assert_eq!(map.get(5), Some(0));
    assert_eq!(map.get(6), None);
    assert_eq!(map.get(1_000_000), Some(7));
    assert_eq!(map.get(DIRECT_DELAYS), Some(8));
    assert_eq!(map.get(TIMEOUT_MAX as u32), Some(9));
    assert_eq!(
        map.direct.len(),
        1 << 20,
        "the table grows to a power of two past the largest delay"
    );
    assert_eq!(map.rest.len(), 2);
    map.insert(5, 3);
    assert_eq!(map.get(5), Some(3));
}

#[test]
fn stale_delay_map_entries_are_swept_once_more_than_half() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    let base = u64::from(DIRECT_DELAYS);
    let ids: Vec<TimerId> = (0..3000).map(|i| timers.insert(0, base + i, false, i as u32)).collect();
    assert_eq!(timers.by_delay.rest.len(), 3000);
    for &id in &ids[..1500] {
        assert!(timers.clear(id));
    }
    assert_eq!((timers.by_delay.rest.len(), timers.by_delay.stale), (3000, 1500));
    assert!(timers.clear(ids[1500]));
    assert_eq!((timers.by_delay.rest.len(), timers.by_delay.stale), (1499, 0));
    assert_eq!(timers.live(), 1499);
}

#[test]
fn records_are_small() {
    assert_eq!(std::mem::size_of::<TimerList>(), 32);
    assert_eq!(std::mem::size_of::<ListKey>(), 16);
    // 24 bytes of its own beside the callback (8 bytes here).
    assert_eq!(std::mem::size_of::<Timer<Box<u64>>>(), 32);
}

/// Runs every timer due at `now`, as `processTimers` does (no host): the
/// callbacks in the order they run.
fn run_due(timers: &mut NodeTimers<u32>, now: u64) -> Vec<u32> {
    let mut ran = Vec::new();
    timers.begin_run();
    while let Ok(l) = timers.next_due_list(now) {
        while let Head::Due(due) = timers.head(l, now) {
            ran.push(due.cb);
            timers.finish(due, None);
        }
    }
    ran
}

#[test]
fn three_hundred_lists_with_one_cleared_run_in_due_order() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    // Delays 300 down to 1, two timers each; all of delay 150 cleared.
    let mut ids = Vec::new();
    for d in (1..=300u32).rev() {
        ids.push((d, timers.insert(0, u64::from(d), false, d)));
        ids.push((d, timers.insert(0, u64::from(d), false, d + 1000)));
    }
    for &(d, id) in &ids {
        if d == 150 {
            assert!(timers.clear(id));
        }
    }
    assert_eq!(timers.live(), 598);
    assert_eq!(timers.handle_due(), Some(1));
    let mut ran = Vec::new();
    for now in 1..=300 {
        ran.extend(run_due(&mut timers, now));
    }
    let want: Vec<u32> = (1..=300).filter(|&d| d != 150).flat_map(|d| [d, d + 1000]).collect();
    assert_eq!(ran, want);
    assert_eq!(timers.live(), 0);
    assert_eq!(run_due(&mut timers, 10_000), Vec::<u32>::new());
}

#[test]
fn a_cleared_handle_of_a_reused_slot_is_stale() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    let a = timers.insert(0, 5, false, 1);
    assert!(timers.clear(a));
    assert_eq!(run_due(&mut timers, 5), Vec::<u32>::new());
    let b = timers.insert(5, 5, true, 2);
    assert_eq!(a.index, b.index, "the slot is reused");
    assert_ne!(a.generation, b.generation);
    assert!(!timers.clear(a));
    assert_eq!(timers.live(), 1);
    timers.begin_run();
    let l = timers.next_due_list(10).expect("due at 10");
    let Head::Due(due) = timers.head(l, 10) else {
        panic!("the interval is due")
    };
    assert_eq!((due.cb, due.repeat, due.run), (2, true, 1));
    timers.finish(due, Some(10));
    // Re-armed from 10 in the same list: due at 15, so the list is re-keyed.
    assert!(matches!(timers.head(l, 10), Head::NotDue));
    assert_eq!(timers.next_due_list(10).err(), Some(Some(15)));
    assert!(timers.clear(b));
    assert_eq!(timers.live(), 0);
}
