//! The cost of the project writer lock every MCP write and CLI write takes: median and 99th
//! percentile of an uncontended acquire + release on a real folder, over 10,000 rounds. A
//! benchmark, run by `bench/reliability.sh` (`cargo bench --bench lock_overhead`).

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = tempfile::tempdir()?;
    let project = ai_rulez::testing::confined_fs::ProjectDir::open(folder.path())?;
    let mut times: Vec<f64> = Vec::with_capacity(10_000);
    for _ in 0..10_000 {
        let started = Instant::now();
        let lock = project.lock()?;
        drop(lock);
        times.push(started.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "median {:.1} µs, p99 {:.1} µs over {} rounds",
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        times.len()
    );
    Ok(())
}
