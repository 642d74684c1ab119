// A Rust program with a known call path, for the demangling tests,
// built as the crate `bench`: main -> bench::level1 -> bench::level2
// -> bench::level3, where the time goes.  It runs for 0.5 s of CPU time
// (or the milliseconds of its argument), like the C test programs.
use std::hint::black_box;

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

fn cpu_ms() -> f64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

#[inline(never)]
pub fn level3(n: u64) -> u64 {
    let mut x: u64 = 0;
    for i in 0..n {
        x = x.wrapping_add(black_box(i).wrapping_mul(2654435761));
    }
    x
}

#[inline(never)]
pub fn level2(n: u64) -> u64 {
    let r = level3(n);
    black_box(r) ^ 1
}

#[inline(never)]
pub fn level1(rounds: u64) -> u64 {
    let mut r = 0;
    for _ in 0..rounds {
        r ^= level2(black_box(100000));
    }
    black_box(r) ^ 2
}

fn main() {
    let ms: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(500.0);
    let end = cpu_ms() + ms;
    let mut r = 0;
    while cpu_ms() < end {
        r ^= level1(10);
    }
    black_box(r);
}
