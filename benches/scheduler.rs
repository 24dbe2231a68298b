//! The scheduler alone (no parsing, no interpreter): a host whose callbacks
//! are plain numbers. Timers with distinct delays (n log n), set by the main
//! module or half of them by timer callbacks, an immediate chain (one turn
//! each), a nextTick/microtask drain, and pool waves.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use loopsim::sched::{Ctx, EventLoop, Host, LimitKind, Limits, Module, Phase, Scheduler};

/// What each callback does: 0 nothing, 1 re-schedule itself as an immediate,
/// 2 queue a microtask and a nextTick chain link.
struct Bench {
    left: u64,
    kind: u8,
}

impl Host<u64, Scheduler<u64>> for Bench {
    type Stop = ();
    fn call(&mut self, s: &mut Scheduler<u64>, &cb: &u64, _ctx: Ctx<'_>) -> Result<(), ()> {
        match (self.kind, cb) {
            (1, 1) if self.left > 0 => {
                self.left -= 1;
                s.set_immediate(1);
            }
            (2, 2) if self.left > 0 => {
                self.left -= 1;
                s.queue_microtask(0);
                s.next_tick(2);
            }
            _ => {}
        }
        Ok(())
    }
    fn limit(&mut self, _: &Scheduler<u64>, _: LimitKind, _: Phase) {}
}

fn limits() -> Limits {
    Limits {
        max_turns: u64::MAX,
        max_callbacks: u64::MAX,
    }
}

struct Main<F: FnMut(&mut Scheduler<u64>)>(F);

impl<F: FnMut(&mut Scheduler<u64>)> Host<u64, Scheduler<u64>> for Main<F> {
    type Stop = ();
    fn call(&mut self, s: &mut Scheduler<u64>, &cb: &u64, _ctx: Ctx<'_>) -> Result<(), ()> {
        if cb == u64::MAX {
            (self.0)(s);
        }
        Ok(())
    }
    fn limit(&mut self, _: &Scheduler<u64>, _: LimitKind, _: Phase) {}
}

/// The main module sets `half` timers of distinct delays (1 to `half`);
/// timer `i` sets timer `half + i`, of a delay of its own (`half + 1 + i`).
struct Chain {
    half: u64,
}

impl Host<u64, Scheduler<u64>> for Chain {
    type Stop = ();
    fn call(&mut self, s: &mut Scheduler<u64>, &cb: &u64, _ctx: Ctx<'_>) -> Result<(), ()> {
        let half = self.half;
        if cb == u64::MAX {
            for i in 0..half {
                s.set_timeout((i * 7919) % half + 1, i);
            }
        } else if cb < half {
            s.set_timeout(half + 1 + cb, half + cb);
        }
        Ok(())
    }
    fn limit(&mut self, _: &Scheduler<u64>, _: LimitKind, _: Phase) {}
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("scheduler");
    g.sample_size(10);
    for n in [10_000u64, 100_000, 1_000_000] {
        g.throughput(Throughput::Elements(n));
        g.bench_with_input(BenchmarkId::new("timers distinct delays", n), &n, |b, &n| {
            b.iter(|| {
                let mut s = Scheduler::new(4, Module::Cjs, limits());
                let mut host = Main(|s: &mut Scheduler<u64>| {
                    for i in 0..n {
                        s.set_timeout((i * 7919) % n + 1, i);
                    }
                });
                s.run(u64::MAX, &mut host).unwrap();
            })
        });
    }
    // Half the timers set by the main module (one large batch of lists: the
    // sorted run), half one at a time by those timers' callbacks (the heap).
    let n = 100_000u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("timers distinct delays 1e5, half set from callbacks", |b| {
        b.iter(|| {
            let mut s = Scheduler::new(4, Module::Cjs, limits());
            let mut host = Chain { half: n / 2 };
            s.run(u64::MAX, &mut host).unwrap();
        })
    });
    let n = 1_000_000u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("immediate chain 1e6", |b| {
        b.iter(|| {
            let mut s = Scheduler::new(4, Module::Cjs, limits());
            let mut host = Bench { left: n, kind: 1 };
            s.run(1, &mut host).unwrap();
        })
    });
    g.bench_function("nextTick+microtask drain 1e6", |b| {
        b.iter(|| {
            let mut s = Scheduler::new(4, Module::Cjs, limits());
            let mut host = Bench { left: n / 2, kind: 2 };
            s.run(2, &mut host).unwrap();
        })
    });
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("pool 1e5 jobs on 4 threads", |b| {
        b.iter(|| {
            let mut s = Scheduler::new(4, Module::Cjs, limits());
            let mut host = Main(|s: &mut Scheduler<u64>| {
                for i in 0..100_000 {
                    s.submit(3, i);
                }
            });
            s.run(u64::MAX, &mut host).unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
