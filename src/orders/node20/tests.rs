//! The explorer's own rules (docs/orders.md): which clock readings and
//! completion orders it offers, how its poll waits, when it visits. The
//! queues and phases are the one scheduler's, tested in `crate::sched`.

use super::*;
use crate::sched::{Ctx, EventLoop, Host, LimitKind, Phase};

/// A chooser that plays a script of choices (0 past its end) and records
/// every choice point (its number of options) and every visit.
#[derive(Default)]
struct Scripted {
    script: Vec<usize>,
    offered: Vec<usize>,
    visits: Vec<u64>,
    /// Asks for lazy timer-start readings.
    lazy: bool,
    /// Told that a lazy reading could not stand for every start.
    not_robust: bool,
}

impl Chooser for &mut Scripted {
    fn choose(&mut self, n: usize, _why: &dyn Fn(usize) -> String) -> usize {
        self.offered.push(n);
        let pick = self.script.get(self.offered.len() - 1).copied().unwrap_or(0);
        pick.min(n - 1)
    }

    fn visit(&mut self, fingerprint: u64, _log: crate::sched::LogSoFar) -> bool {
        self.visits.push(fingerprint);
        true
    }

    fn lazy(&self) -> bool {
        self.lazy
    }

    fn not_robust(&mut self) {
        self.not_robust = true;
    }
}

fn clock(chooser: &mut Scripted, unused: u64) -> ChooserClock<&mut Scripted> {
    ChooserClock {
        unused,
        ..ChooserClock::new(chooser)
    }
}

fn scripted(script: &[usize]) -> Scripted {
    Scripted {
        script: script.to_vec(),
        ..Scripted::default()
    }
}

/// A state at `now` with a timeout due at each of `due` (set at 0).
fn state_with_timers(now: u64, due: &[u64]) -> LoopState<usize> {
    let mut s = LoopState::new(4);
    for (i, &d) in due.iter().enumerate() {
        s.timers.insert(0, d, false, i);
    }
    s.now = now;
    s.last_reading = now;
    s
}

/// Every reading a read can end at: one replay per option offered.
fn readings(unused: u64, due: &[u64], offset: u64) -> Vec<u64> {
    let mut first = Scripted::default();
    let mut s = state_with_timers(0, due);
    clock(&mut first, unused).read(&mut s, offset, Reading::TimersRerun);
    let n = first.offered.first().copied().unwrap_or(1);
    (0..n)
        .map(|i| {
            let mut chooser = scripted(&[i]);
            let mut s = state_with_timers(0, due);
            clock(&mut chooser, unused).read(&mut s, offset, Reading::TimersRerun)
        })
        .collect()
}

#[test]
fn a_reading_offers_one_crossing_per_unused_unit_up_to_the_horizon() {
    // Two units begun, a timer due at 3: 0, 1 or 2 boundaries.
    assert_eq!(readings(2, &[3], 0), [0, 1, 2]);
    // Ten units, but past 3 no comparison changes.
    assert_eq!(readings(10, &[3], 0), [0, 1, 2, 3]);
    // Nothing pending: no choice at all, the reading is the clock.
    let mut chooser = Scripted::default();
    let mut s = state_with_timers(7, &[]);
    assert_eq!(clock(&mut chooser, 5).read(&mut s, 0, Reading::TimersRerun), 7);
    assert!(chooser.offered.is_empty());
}

#[test]
fn far_crossings_are_tried_only_next_to_a_threshold() {
    // 100 units, timers due at 50 and 90: 0, the most (90), and the
    // readings next to each due tick (the handle is due at 50 too).
    assert_eq!(readings(100, &[50, 90], 0), [0, 49, 50, 51, 89, 90]);
    // With an offset of 20 (a reading compared later with a 20-tick delay),
    // the readings 20 before each threshold count too.
    assert_eq!(readings(100, &[50, 90], 20), [0, 29, 30, 31, 49, 50, 51, 69, 70, 71, 89, 90]);
}

#[test]
fn a_reading_leaves_a_unit_unused_only_when_it_crossed_fewer_than_all() {
    let mut chooser = scripted(&[1]);
    let mut s = state_with_timers(0, &[3]);
    let mut c = clock(&mut chooser, 2);
    assert_eq!(c.read(&mut s, 0, Reading::TimersRerun), 1);
    assert_eq!((c.unused, s.now, s.last_reading), (1, 1, 1));
    let mut chooser = scripted(&[2]);
    let mut s = state_with_timers(0, &[3]);
    let mut c = clock(&mut chooser, 2);
    assert_eq!(c.read(&mut s, 0, Reading::TimersRerun), 2);
    assert_eq!(c.unused, 0);
}

/// The options a turn's timers or poll phase reading offers, with `unused`
/// crossings, in a state at 0 with `io` arriving at each of `at` and timers
/// due at each of `due`, an immediate queued or not.
fn phase_reading_options(what: Reading<'_, usize>, unused: u64, at: &[u64], due: &[u64], immediate: bool) -> Vec<usize> {
    let mut chooser = Scripted::default();
    let mut s = state_with_io(0, at);
    for (i, &d) in due.iter().enumerate() {
        s.timers.insert(0, d, false, i);
    }
    if immediate {
        s.live_immediates = 1;
    }
    clock(&mut chooser, unused).read(&mut s, 0, what);
    chooser.offered
}

#[test]
fn a_sleep_past_every_crossing_erases_them_so_the_phase_readings_do_not_branch() {
    let poll = || Reading::PollPhase { turn: 1 };
    let timers = || Reading::TimersPhase { turn: 1 };
    // The loop sleeps until 10 whatever 0, 1 or 2 crossings give here.
    assert_eq!(phase_reading_options(poll(), 2, &[10], &[], false), Vec::<usize>::new());
    assert_eq!(phase_reading_options(timers(), 2, &[10], &[], false), Vec::<usize>::new());
    assert_eq!(phase_reading_options(poll(), 2, &[], &[10], false), Vec::<usize>::new());
    // A completion the crossings reach (at 2): they decide whether the poll sees it.
    assert_eq!(phase_reading_options(poll(), 2, &[2], &[], false), [3]);
    // The timers phase's reading needs the wake two ticks past its own
    // crossings (the poll phase's reading may take two more).
    assert_eq!(phase_reading_options(timers(), 2, &[4], &[], false), [3]);
    assert_eq!(phase_reading_options(timers(), 2, &[5], &[], false), Vec::<usize>::new());
    // An immediate keeps the poll from sleeping: the crossings stay.
    assert_eq!(phase_reading_options(poll(), 2, &[10], &[], true), [3]);
    // Other readings are not erased by a later sleep.
    assert_eq!(phase_reading_options(Reading::TimersRerun, 2, &[10], &[], false), [3]);
}

/// A state at `now` with `io` events (callbacks 100, 101, …) arriving at each of `at`.
fn state_with_io(now: u64, at: &[u64]) -> LoopState<usize> {
    let mut s = state_with_timers(now, &[]);
    for (i, &t) in at.iter().enumerate() {
        // Started at 0: not instant, so they race within their tick.
        s.pool.arrive(t, 0, i as u64 + 1, 100 + i);
    }
    // Registered with epoll before they were ready (rule 2d).
    s.pool.register_watchers(0);
    s
}

fn cbs(done: Vec<Completion<usize>>) -> Vec<usize> {
    done.into_iter().map(|c| c.cb).collect()
}

#[test]
fn a_poll_entered_in_a_completions_tick_may_or_may_not_see_it() {
    for (pick, seen) in [(0, vec![100]), (1, vec![])] {
        let mut chooser = scripted(&[pick]);
        let mut s = state_with_io(5, &[5]);
        s.pending.push_back(9); // a pending callback: the poll does not block
        let ready = clock(&mut chooser, 0).poll_ready(&mut s, 5);
        assert_eq!(chooser.offered, [2], "the completion, or not ready yet");
        assert_eq!(cbs(ready), seen);
        assert_eq!(s.pool.outstanding(), 1 - seen.len(), "one not seen is put back");
    }
}

#[test]
fn completions_of_earlier_ticks_are_all_seen_in_any_order() {
    let mut chooser = scripted(&[1]);
    let mut s = state_with_io(9, &[4, 4]);
    let ready = clock(&mut chooser, 0).poll_ready(&mut s, 9);
    assert_eq!(chooser.offered, [2], "which one first; both are seen");
    assert_eq!(cbs(ready), [101, 100]);
}

/// Rule 2d: `io` ready before the poll phase registered its watcher comes
/// after those that woke epoll while registered, in start order, whatever
/// their ready ticks; no choice is offered for them.
#[test]
fn completions_ready_before_their_registration_come_last_in_start_order() {
    let mut chooser = Scripted::default();
    let mut s = state_with_io(9, &[6]);
    // Started at 1 and 2 (after the registration at 0), ready at 5 and 3.
    s.pool.arrive(5, 1, 10, 200);
    s.pool.arrive(3, 2, 11, 201);
    let ready = clock(&mut chooser, 0).poll_ready(&mut s, 9);
    assert!(chooser.offered.is_empty(), "one order: {:?}", chooser.offered);
    assert_eq!(cbs(ready), [100, 200, 201]);
}

#[test]
fn a_blocked_poll_wakes_at_the_next_completion_and_sees_at_least_one() {
    let mut chooser = scripted(&[0, 1]);
    let mut s = state_with_io(0, &[7, 7]);
    s.timers.insert(0, 10, false, 1);
    let mut c = clock(&mut chooser, 3);
    let ready = c.poll_ready(&mut s, 0);
    assert_eq!((s.now, s.last_reading, c.unused), (7, 7, 1), "woken at 7, one unit begun");
    // Two at 7: which first (no stopping before one), then the other or stop.
    assert_eq!(chooser.offered, [2, 2]);
    assert_eq!(cbs(ready), [100], "the second one was not ready yet");
    assert_eq!(s.pool.outstanding(), 1);
}

#[test]
fn a_blocked_poll_woken_by_the_timer_handle_may_see_nothing() {
    let mut chooser = Scripted::default();
    let mut s = state_with_io(0, &[7]);
    s.timers.insert(0, 5, false, 1);
    let ready = clock(&mut chooser, 0).poll_ready(&mut s, 0);
    assert_eq!(s.now, 5, "woken by the timer handle, before the completion");
    assert!(ready.is_empty() && chooser.offered.is_empty());
    // The handle and a completion at the same tick: it may or may not be seen.
    let mut chooser = scripted(&[1]);
    let mut s = state_with_io(0, &[5]);
    s.timers.insert(0, 5, false, 1);
    let ready = clock(&mut chooser, 0).poll_ready(&mut s, 0);
    assert_eq!(chooser.offered, [2]);
    assert!(ready.is_empty());
}

/// `&mut dyn Hasher` as a sized hasher.
struct HashInto<'a>(&'a mut dyn Hasher);

impl Hasher for HashInto<'_> {
    fn finish(&self) -> u64 {
        self.0.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
}

#[test]
fn equal_states_have_equal_fingerprints_whatever_the_clock() {
    let mut chooser = Scripted::default();
    let c = clock(&mut chooser, 1);
    let host = |h: &mut dyn Hasher| 42u8.hash(&mut HashInto(h));
    let at = |now: u64| {
        let mut s = LoopState::new(4);
        s.now = now;
        s.last_reading = now;
        s.timers.insert(now, 5, false, 1usize);
        s.pool.arrive(now + 3, now, 1, 2);
        s.pending.push_back(3);
        s
    };
    assert_eq!(c.fingerprint(&at(0), &host), c.fingerprint(&at(1000), &host));
    let mut other = at(0);
    other.pending.push_back(4);
    assert_ne!(c.fingerprint(&at(0), &host), c.fingerprint(&other, &host));
    let other_host = |h: &mut dyn Hasher| 43u8.hash(&mut HashInto(h));
    assert_ne!(c.fingerprint(&at(0), &host), c.fingerprint(&at(0), &other_host));
}

/// Ticks at or before the last clock reading are one value in a state's
/// fingerprint (docs/orders.md "Past ticks"): a timer overdue by 90 ticks or
/// by 80, a completion ready 50 or 40 ticks ago, are due at every later
/// reading alike. Ticks after it keep their distance from the clock, and
/// the order of earlier completions is kept, with which of them share a tick.
#[test]
fn ticks_before_the_last_reading_are_one_value_in_a_fingerprint() {
    let mut chooser = Scripted::default();
    let c = clock(&mut chooser, 1);
    let host = |h: &mut dyn Hasher| 42u8.hash(&mut HashInto(h));
    let at = |timer_start: u64, done: &[(u64, usize)]| {
        let mut s = LoopState::new(4);
        (s.now, s.last_reading) = (100, 100);
        s.timers.insert(timer_start, 5, false, 1usize);
        for (seq, &(ready, cb)) in done.iter().enumerate() {
            s.pool.arrive(ready, 0, seq as u64 + 1, cb);
        }
        s.pool.register_watchers(0);
        s
    };
    let fp = |s: &LoopState<usize>| c.fingerprint(s, &host);
    // Due at 15 or at 25: both long past.
    assert_eq!(fp(&at(10, &[])), fp(&at(20, &[])));
    // Due at 101 or at 102: the next reading may tell them apart.
    assert_ne!(fp(&at(96, &[])), fp(&at(97, &[])));
    // Due at 100, the last reading, is past like 15.
    assert_eq!(fp(&at(95, &[])), fp(&at(10, &[])));
    // Completions ready at 50 and 60, or 40 and 99: in the same order.
    assert_eq!(fp(&at(10, &[(50, 2), (60, 3)])), fp(&at(10, &[(40, 2), (99, 3)])));
    // Not in the same order, or one ready at the last reading's tick (a
    // poll entered in that tick may find it or not).
    assert_ne!(fp(&at(10, &[(50, 2), (60, 3)])), fp(&at(10, &[(60, 2), (50, 3)])));
    assert_ne!(fp(&at(10, &[(50, 2), (60, 3)])), fp(&at(10, &[(50, 2), (100, 3)])));
    // Two of one tick (a poll takes them in any order) or of two ticks.
    assert_ne!(fp(&at(10, &[(50, 2), (50, 3)])), fp(&at(10, &[(40, 2), (50, 3)])));
    assert_eq!(fp(&at(10, &[(50, 2), (50, 3)])), fp(&at(10, &[(40, 2), (40, 3)])));
}

/// Without `clear` nothing reads a timer's slot (docs/orders.md "Timer
/// slots"): two timers in one list, in each other's slots (the first slot
/// freed by a cleared timer before the second was set), are one state
/// unless the chooser keys the slots.
#[test]
fn timers_in_each_others_slots_are_one_state_without_clear() {
    let host = |h: &mut dyn Hasher| 42u8.hash(&mut HashInto(h));
    let mut swapped = LoopState::new(4);
    let gone = swapped.timers.insert(0, 5, false, 9usize);
    swapped.timers.insert(0, 5, false, 1usize);
    assert!(swapped.timers.clear(gone));
    swapped.timers.insert(0, 5, false, 2usize);
    let mut in_order = LoopState::new(4);
    in_order.timers.insert(0, 5, false, 1usize);
    in_order.timers.insert(0, 5, false, 2usize);
    let fp = |s: &LoopState<usize>, timer_slots: bool| {
        let mut chooser = Scripted::default();
        ChooserClock {
            timer_slots,
            ..clock(&mut chooser, 0)
        }
        .fingerprint(s, &host)
    };
    assert_eq!(fp(&swapped, false), fp(&in_order, false));
    assert_ne!(fp(&swapped, true), fp(&in_order, true));
    // The list's order is kept: the second timer first is another state.
    let mut reversed = LoopState::new(4);
    reversed.timers.insert(0, 5, false, 2usize);
    reversed.timers.insert(0, 5, false, 1usize);
    assert_ne!(fp(&reversed, false), fp(&in_order, false));
}

/// Unused crossings past the horizon are one value in a fingerprint
/// (docs/orders.md "Crossings past the horizon"): with a timer due 3 ticks
/// ahead, 4 crossings and 9 reach the same ticks at the next reading.
#[test]
fn crossings_past_the_horizon_are_one_value_in_a_fingerprint() {
    let host = |h: &mut dyn Hasher| 42u8.hash(&mut HashInto(h));
    let mut s = LoopState::new(4);
    (s.now, s.last_reading) = (100, 100);
    s.timers.insert(100, 3, false, 1usize);
    let fp = |unused: u64| {
        let mut chooser = Scripted::default();
        clock(&mut chooser, unused).fingerprint(&s, &host)
    };
    assert_eq!(fp(4), fp(9));
    assert_ne!(fp(3), fp(4));
    assert_ne!(fp(0), fp(1));
}

/// A host whose callbacks are numbers: each of the first `left` calls
/// queues an immediate; it records where each callback ran.
struct Chain {
    left: usize,
    ran: Vec<(u64, Phase, Phase)>,
}

impl<L: EventLoop<usize>> Host<usize, L> for Chain {
    type Stop = LimitKind;
    fn call(&mut self, s: &mut L, &cb: &usize, ctx: Ctx<'_>) -> Result<(), LimitKind> {
        self.ran.push((ctx.turn, ctx.phase, ctx.loop_phase));
        if cb == 1 {
            s.next_tick(2);
        }
        if self.left > 0 && cb != 2 {
            self.left -= 1;
            s.set_immediate(1);
        }
        Ok(())
    }
    fn limit(&mut self, _: &L, kind: LimitKind, _: Phase) -> LimitKind {
        kind
    }
}

/// Each turn's start, each pending phase's start and each poll phase's
/// start are visited, the three told apart (docs/orders.md "Memoised states").
#[test]
fn the_chooser_visits_each_turns_pending_phases_and_poll_phases_start() {
    let mut chooser = Scripted::default();
    let mut host = Chain { left: 3, ran: Vec::new() };
    let mut node = node20(4, Module::Cjs, Limits::default(), NodeProfile::Node20, &mut chooser);
    node.run_loop(0, &mut host).expect("a finite run");
    assert_eq!(node.turn(), 3);
    drop(node);
    assert_eq!(chooser.visits.len(), 9);
    for turn in chooser.visits.chunks(3) {
        assert_ne!(turn[0], turn[1], "a pending phase's start is not its turn's");
        assert_ne!(turn[1], turn[2], "a poll phase's start is not its pending phase's");
        assert_ne!(turn[0], turn[2], "a poll phase's start is not its turn's");
    }
    assert_eq!(host.ran.iter().filter(|r| r.1 == Phase::Check).count(), 3);
}

#[test]
fn the_explorer_tells_the_loop_phase_as_the_model_does() {
    let mut chooser = Scripted::default();
    let mut host = Chain { left: 1, ran: Vec::new() };
    node20(4, Module::Cjs, Limits::default(), NodeProfile::Node20, &mut chooser)
        .run_loop(0, &mut host)
        .expect("a finite run");
    // A nextTick drained after an immediate runs in the check phase's drain.
    assert_eq!(
        host.ran,
        [
            (0, Phase::Main, Phase::Main),
            (1, Phase::Check, Phase::Check),
            (1, Phase::NextTick, Phase::Check)
        ]
    );
}

/// Three lazy timer starts in the poll phase (delay `delay`, clock at 1, one
/// unit each), then the next timers phase takes `k` crossings: the reading,
/// and whether the chooser was told it cannot stand for every start.
fn lazy_then_timers_phase(delay: u64, k: usize) -> (u64, bool, Vec<usize>) {
    let mut chooser = Scripted {
        script: vec![k],
        lazy: true,
        ..Scripted::default()
    };
    let mut s = state_with_timers(1, &[]);
    s.loop_phase = Phase::Poll;
    let mut c = clock(&mut chooser, 0);
    for i in 0..3 {
        Timing::<usize>::unit_begins(&mut c);
        let start = c.read(&mut s, delay, Reading::TimerSet(&i));
        assert_eq!(start, 1, "a lazy reading is the clock as it stands");
        s.timers.insert(start, delay, false, i);
    }
    assert_eq!(c.open, Some((1, 1)));
    assert_eq!(c.unused, 3, "no crossing was taken: all three units' stay");
    s.loop_phase = Phase::Timers;
    let r = c.read(&mut s, 0, Reading::TimersPhase { turn: 2 });
    (r, chooser.not_robust, chooser.offered)
}

#[test]
fn lazy_timer_starts_take_no_choice_and_leave_their_crossings_to_the_next_reading() {
    // Due at 101..=103 whatever their starts: readings at 1..=4 tell none of them apart.
    for k in 0..=3 {
        let (r, not_robust, offered) = lazy_then_timers_phase(100, k);
        assert_eq!(offered, [4], "0 to 3 crossings, all at the timers phase");
        assert_eq!((r, not_robust), (1 + k as u64, false));
    }
}

#[test]
fn a_reading_inside_a_lazy_timers_window_is_not_robust() {
    // Delay 2: the timers are due at 3 if no crossing came before their
    // starts, later if some did. Up to the horizon (3): a reading at 2 tells
    // none apart, one at 3 cannot say which are due.
    assert_eq!(lazy_then_timers_phase(2, 1), (2, false, vec![3]));
    assert_eq!(lazy_then_timers_phase(2, 2), (3, true, vec![3]));
}

#[test]
fn timer_starts_in_the_timers_phase_are_read_exactly() {
    let mut chooser = Scripted {
        lazy: true,
        ..Scripted::default()
    };
    let mut s = state_with_timers(1, &[5]);
    s.loop_phase = Phase::Timers;
    let mut c = clock(&mut chooser, 2);
    c.read(&mut s, 3, Reading::TimerSet(&7));
    assert_eq!(chooser.offered.len(), 1, "a choice, as without lazy readings");
}
