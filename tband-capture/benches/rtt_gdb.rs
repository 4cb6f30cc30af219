//! RTT read through QEMU's gdbstub: the read rate, and what each read
//! costs the target (the time it stands halted).
//!
//! `cargo bench -p tband-capture --bench rtt_gdb [-- RUNS]` (5 by default)
//! builds the QEMU example firmware with its RTT transport (a 4 KiB
//! channel it waits on when full) and captures its whole stream RUNS times.

use std::io::Read;
use std::time::Instant;

use tband_capture::gdb::Gdb;
use tband_capture::rtt::{Channel, Location};
use tband_capture::rtt_stream::RttStream;
use tband_host_tests::qemu::{build_firmware, start_qemu_for_gdb, tools_present};

fn main() {
    if !tools_present() {
        return;
    }
    let runs: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let firmware = build_firmware("stream-rtt");
    let location = Location::from_elf(&firmware).unwrap();
    println!("RTT through QEMU's gdbstub (lm3s6965evb, -icount shift=4), {runs} runs");
    println!("   bytes  wall ms    kB/s  polls  bytes/poll  halted µs/poll  halted %");
    for _ in 0..runs {
        let (mut qemu, _stderr, port) = start_qemu_for_gdb(&firmware);
        let gdb = Gdb::connect(&format!("127.0.0.1:{port}")).unwrap();
        let mut rtt = RttStream::new(gdb, location.clone(), Channel::parse("tband"), None);
        let start = Instant::now();
        let mut bytes = 0;
        let mut buf = vec![0; 64 << 10];
        loop {
            match rtt.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => bytes += n,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => panic!("{e}"),
            }
        }
        let wall = start.elapsed();
        assert!(qemu.wait().unwrap().success());
        let halted_per_poll = rtt.paused.as_secs_f64() / rtt.polls as f64;
        println!(
            "{bytes:8} {:8.1} {:7.0} {:6} {:11.0} {:15.0} {:9.1}",
            wall.as_secs_f64() * 1e3,
            bytes as f64 / wall.as_secs_f64() / 1e3,
            rtt.polls,
            bytes as f64 / rtt.polls as f64,
            halted_per_poll * 1e6,
            rtt.paused.as_secs_f64() / wall.as_secs_f64() * 100.0,
        );
    }
}
