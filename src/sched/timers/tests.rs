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
            let key = ListKey::new(expiry, id as u32, (id % 1000) as u32);
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
        queue.push(ListKey::new(1000 - id, id as u32, 0));
    }
    assert_eq!(queue.peek().map(|k| k.expiry), Some(0));
    assert_eq!((queue.run.len(), queue.heap.len), (1000, 0));
    assert_eq!(queue.ahead(2).map(|k| k.expiry), Some(2));
    for id in 1001..=1010u64 {
        queue.push(ListKey::new(id - 1001, id as u32, 0));
    }
    // Ten keys: into the heap. Ties on expiry go to the smaller id (the run's).
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((0, 1000)));
    assert_eq!((queue.run.len(), queue.heap.len), (999, 10));
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((0, 1001)));
    assert_eq!(queue.pop().map(|k| (k.expiry, k.id())), Some((1, 999)));
    // 500 keys (more than an eighth of the run): merged.
    for id in 2001..=2500u64 {
        queue.push(ListKey::new(5000 - id, id as u32, 0));
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
fn keys_sort_by_expiry_then_id_whatever_their_spread() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    // Spreads of expiry: one value, a few (ties by id), 17 bits, all 64.
    for spread in [1u64, 7, 100_000, u64::MAX] {
        for len in [0usize, 1, 47, 48, 49, 300, 20_000] {
            let mut keys: Vec<ListKey> = (0..len)
                .map(|i| {
                    let expiry = 1000u64.wrapping_add(rng.next() % spread.max(1));
                    let expiry = if spread == u64::MAX { rng.next() } else { expiry };
                    ListKey::new(expiry, rng.next() as u32, i as u32)
                })
                .collect();
            let mut want: Vec<(u64, u64)> = keys.iter().map(|k| k.key()).collect();
            want.sort_unstable();
            sort_keys(&mut keys);
            let got: Vec<(u64, u64)> = keys.iter().map(|k| k.key()).collect();
            assert_eq!(got, want, "spread {spread}, {len} keys");
        }
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

/// The free slots, in the order they are reused (last freed first).
fn free_slots(timers: &NodeTimers<u32>) -> usize {
    let (mut count, mut at) = (0, timers.free);
    while at != NIL {
        count += 1;
        at = timers.timers[at as usize].next;
    }
    count
}

#[test]
fn freed_slots_are_reused_last_freed_first() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    let ids: Vec<TimerId> = (0..4).map(|i| timers.insert(0, 10 + i, false, i as u32)).collect();
    for i in [2, 0, 3] {
        assert!(timers.clear(ids[i]));
    }
    assert_eq!(free_slots(&timers), 3);
    let again: Vec<u32> = (0..4).map(|i| timers.insert(0, 20 + i, false, 9).index).collect();
    assert_eq!(again, [3, 0, 2, 4]);
    assert_eq!(free_slots(&timers), 0);
}

/// The live lists' records: [`TimerList`]s, and single timers' lists.
fn lists_and_singles(timers: &NodeTimers<u32>) -> (usize, usize) {
    let lists = timers.lists.iter().filter(|l| l.alive()).count();
    let singles = timers.timers.iter().filter(|t| t.state() == TimerState::Single).count();
    (lists, singles)
}

#[test]
fn a_single_timer_has_no_list_record_until_a_second_timer_of_its_delay_arrives() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    // a's list (due at 5) is made before d's (due at 5 too): it runs first.
    timers.insert(0, 5, false, 1);
    timers.insert(2, 3, false, 2);
    assert_eq!(lists_and_singles(&timers), (0, 2));
    assert_eq!(timers.lists.len(), 0, "no list record was made");
    // A second timer of delay 5: a's list becomes a record, with its key.
    timers.insert(1, 5, false, 3);
    assert_eq!(lists_and_singles(&timers), (1, 1));
    let mut each = Vec::new();
    timers.each(&mut |due, &cb| each.push((due, cb)));
    assert_eq!(each, [(5, 1), (6, 3), (5, 2)]);
    assert_eq!(timers.latest(), Some(6));
    let mut thresholds = timers.thresholds();
    thresholds.sort_unstable();
    assert_eq!(thresholds, [5, 5, 5, 5, 5, 6]);
    assert_eq!(run_due(&mut timers, 5), [1, 2]);
    assert_eq!(run_due(&mut timers, 6), [3]);
    assert_eq!(timers.live(), 0);
    assert_eq!(lists_and_singles(&timers), (0, 0));
}

#[test]
fn a_cleared_single_timer_is_released_and_its_key_is_stale_when_its_slot_is_reused() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    let a = timers.insert(0, 10, false, 1);
    timers.insert(1, 9, false, 2);
    assert!(timers.clear(a));
    assert!(!timers.clear(a));
    assert_eq!((timers.live(), free_slots(&timers)), (1, 1));
    // Reuses a's slot, due at 10 as a was, after the list of 2: a's key
    // (due at 10, an older id) must not run it first.
    let c = timers.insert(2, 8, false, 3);
    assert_eq!(c.index, a.index);
    assert_eq!(run_due(&mut timers, 10), [2, 3]);
    assert_eq!(timers.live(), 0);
}

#[test]
fn a_timer_of_the_delay_of_a_running_single_timer_joins_its_list_as_in_node() {
    // Node deletes a list once `listOnTimeout` finds it empty: a timer of its
    // delay armed by the callback of its last timer joins it, and the list
    // is re-keyed (a fresh id) after the callback.
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    timers.insert(0, 5, false, 1);
    timers.begin_run();
    let l = timers.next_due_list(5).expect("due at 5");
    let Head::Due(due) = timers.head(l, 5) else {
        panic!("the single timer is due")
    };
    assert_eq!(due.cb, 1);
    // The callback: a timer of delay 5 (due at 10), then one due at 10 too,
    // of another delay, whose new list takes an id now.
    timers.insert(5, 5, false, 2);
    timers.insert(7, 3, false, 3);
    assert_eq!(lists_and_singles(&timers), (1, 1));
    timers.finish(due, None);
    assert!(matches!(timers.head(l, 5), Head::NotDue));
    assert_eq!(timers.next_due_list(5).err(), Some(Some(10)));
    timers.end_run(Some(10), 5);
    // The list re-keyed after the callback runs after the other list.
    assert_eq!(run_due(&mut timers, 10), [3, 2]);
    assert_eq!(timers.live(), 0);
}

#[test]
fn a_cleared_timer_of_a_list_made_from_a_single_timer() {
    let mut timers: NodeTimers<u32> = NodeTimers::default();
    let a = timers.insert(0, 4, false, 1);
    let b = timers.insert(0, 4, false, 2);
    timers.insert(0, 4, false, 3);
    assert!(timers.clear(a));
    assert!(timers.clear(b));
    assert_eq!(lists_and_singles(&timers), (1, 0));
    let d = timers.insert(0, 7, false, 4);
    timers.insert(0, 7, false, 5);
    assert!(timers.clear(d));
    assert_eq!(run_due(&mut timers, 4), [3]);
    assert_eq!(run_due(&mut timers, 7), [5]);
    assert_eq!(timers.live(), 0);
    assert_eq!(lists_and_singles(&timers), (0, 0));
}

#[test]
fn list_ids_numbered_again_when_they_run_out_keep_the_order_of_the_lists() {
    let mut timers: NodeTimers<u32> = NodeTimers {
        next_list_id: u32::MAX - 3,
        ..NodeTimers::default()
    };
    // Ten lists due at 100 (ties broken by id: the order they were made),
    // one of them made a list record, one cleared; ids run out at the fourth.
    let mut ids = Vec::new();
    for i in 0..10u32 {
        ids.push(timers.insert(u64::from(i), u64::from(100 - i), false, i));
    }
    timers.insert(2, 98, false, 20);
    assert!(timers.clear(ids[5]));
    assert_eq!(lists_and_singles(&timers), (1, 8));
    assert!(timers.next_list_id < 20, "numbered again from 1: {}", timers.next_list_id);
    timers.insert(50, 50, false, 10);
    assert_eq!(run_due(&mut timers, 100), [0, 1, 2, 20, 3, 4, 6, 7, 8, 9, 10]);
    // The list of a single timer taken by the timers phase is numbered too.
    timers.insert(100, 5, false, 1);
    timers.insert(101, 4, false, 2);
    timers.begin_run();
    let l = timers.next_due_list(105).expect("due at 105");
    let Head::Due(due) = timers.head(l, 105) else { panic!("due") };
    assert_eq!(due.cb, 1);
    timers.next_list_id = u32::MAX;
    timers.insert(103, 2, false, 3);
    assert_eq!(timers.next_list_id, 3, "the taken list, 2's and then 3's");
    // Joins the list of 1 (numbered 1), re-keyed after 1's callback.
    timers.insert(105, 5, false, 4);
    timers.finish(due, None);
    assert!(matches!(timers.head(l, 105), Head::NotDue));
    assert_eq!(run_due(&mut timers, 105), [2, 3]);
    assert_eq!(run_due(&mut timers, 110), [4]);
    assert_eq!(timers.live(), 0);
}
