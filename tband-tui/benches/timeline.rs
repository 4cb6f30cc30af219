//! Rows benchmark on a (large) trace, opened as the viewer opens it: time
//! to the first frame (of the trace's first part, decoding included), until
//! the whole trace is shown, redraw time after zoom and pan, and peak memory.
//!
//! `cargo bench -p tband-tui --bench timeline -- TRACE... [--size WxH]`
//! (make big traces with `tband-sim --size 1G --wide-values -o /tmp/trace.bin`,
//! as docs/performance.md measured).

use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use tband_tui::app::App;
use tband_tui::load::{self, Opened, PREVIEW_BYTES};
use tband_tui::render::draw_buffer;

fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time this thread has run, in ns. The machine may be shared: CPU time
/// says what the work costs, wall time what it cost here and now. (The
/// kernel's per-thread figure in `/proc` moves only at scheduler ticks and
/// switches, a few ms apart: too coarse for one redraw.)
fn cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0;
    }
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// CPU time of the whole process (all threads), in ns (10 ms resolution).
fn process_cpu_ns() -> u64 {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name (which ends with `)`): utime is the
            // 12th, stime the 13th, in clock ticks of 10 ms.
            let mut fields = s.rsplit_once(')')?.1.split_whitespace().skip(11);
            let user: u64 = fields.next()?.parse().ok()?;
            let system: u64 = fields.next()?.parse().ok()?;
            Some(user + system)
        });
    ticks.unwrap_or(0) * 10_000_000
}

fn cpu_ms(from: u64, to: u64) -> f64 {
    to.saturating_sub(from) as f64 / 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut inputs = Vec::new();
    let mut size = (200u16, 60u16);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--size" => {
                let s = it.next().expect("--size WxH");
                let (w, h) = s.split_once('x').expect("--size WxH");
                size = (w.parse().expect("width"), h.parse().expect("height"));
            }
            "--bench" => {}
            other => inputs.push(other.to_string()),
        }
    }
    if inputs.is_empty() {
        eprintln!("usage: cargo bench -p tband-tui --bench timeline -- TRACE... [--size WxH]");
        std::process::exit(2);
    }
    let file_bytes: u64 = inputs
        .iter()
        .map(|p| std::fs::metadata(p.split('@').next().unwrap_or(p)).map_or(0, |m| m.len()))
        .sum();

    let area = Rect::new(0, 0, size.0, size.1);
    let started = Instant::now();
    let cpu_start = cpu_ns();
    let process_cpu_start = process_cpu_ns();
    let opened = load::open(&inputs, &Default::default(), Some(PREVIEW_BYTES))
        .unwrap_or_else(|e| panic!("{e}"));
    let (model, loader) = match opened {
        Opened::Complete(model) => (model, None),
        Opened::Partial { preview, loader } => (preview, Some(loader)),
    };
    let first_events = model.info.events;
    let mut app = App::new(model, inputs.join(" "));
    app.loading = loader.as_ref().map(|l| l.percent());
    let mut buf = Buffer::empty(area);
    app.geometry = draw_buffer(&mut buf, area, &app);
    let first_frame = started.elapsed();
    let cpu_first_frame = cpu_ns();
    let rss_first_frame = peak_rss_bytes().unwrap_or(0);
    // What the viewer does until the whole trace is modelled.
    while app.warm_up_step() {}
    let (whole, process_cpu_whole) = match loader {
        Some(loader) => {
            let loaded = loader.wait();
            let process_cpu = process_cpu_ns();
            let cpu = cpu_ns();
            app.replace(loaded);
            buf.reset();
            app.geometry = draw_buffer(&mut buf, area, &app);
            (
                Some((started.elapsed(), cpu_ms(cpu, cpu_ns()))),
                process_cpu,
            )
        }
        None => (None, process_cpu_ns()),
    };
    let events = app.model.info.events;
    let cpu_warm_start = cpu_ns();
    let warm_start = Instant::now();
    // What the viewer does while waiting for the first key.
    while app.warm_up_step() {}
    let warmed = warm_start.elapsed();
    let cpu_warmed = cpu_ns();
    let (index_bytes, summary_bytes) = app
        .rows
        .all
        .iter()
        .map(|r| r.heap_bytes())
        .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));

    // Keystrokes: zoom in deep around the middle, pan both ways, step
    // through events, zoom back out, fit; each followed by a full redraw.
    app.cursor = app.full_end() / 2;
    let mut keys: Vec<KeyCode> = Vec::new();
    keys.extend(std::iter::repeat_n(KeyCode::Char('+'), 24));
    keys.extend(std::iter::repeat_n(KeyCode::Char('d'), 10));
    keys.extend(std::iter::repeat_n(KeyCode::Char('a'), 10));
    keys.extend([
        KeyCode::Down,
        KeyCode::Char('n'),
        KeyCode::Char('n'),
        KeyCode::Char('N'),
    ]);
    keys.extend(std::iter::repeat_n(KeyCode::Char('-'), 24));
    keys.extend(std::iter::repeat_n(KeyCode::Char('d'), 5));
    keys.extend([
        KeyCode::Char('f'),
        KeyCode::Char('t'),
        KeyCode::End,
        KeyCode::Home,
    ]);
    let mut times = Vec::with_capacity(keys.len());
    let mut cpu_times = Vec::with_capacity(keys.len());
    // (cpu ns, keystroke number, key, view span after it) of each key.
    let mut per_key = Vec::with_capacity(keys.len());
    for (n, code) in keys.into_iter().enumerate() {
        let t = Instant::now();
        let cpu = cpu_ns();
        app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
        buf.reset();
        app.geometry = draw_buffer(&mut buf, area, &app);
        let spent = cpu_ns() - cpu;
        cpu_times.push(spent);
        times.push(t.elapsed());
        per_key.push((spent, n + 1, code, app.end - app.start));
    }
    per_key.sort_by_key(|k| std::cmp::Reverse(k.0));
    times.sort();
    cpu_times.sort();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    let p50 = times[times.len() / 2];
    let max = times[times.len() - 1];
    let cpu_mean = cpu_times.iter().sum::<u64>() as f64 / cpu_times.len() as f64 / 1e6;
    let cpu_max = cpu_times[cpu_times.len() - 1] as f64 / 1e6;
    let rss = peak_rss_bytes().unwrap_or(0);

    println!(
        "trace            {} ({:.1} MB, {} events, {} rows)",
        inputs.join(" "),
        file_bytes as f64 / 1e6,
        events,
        app.rows.all.len()
    );
    println!("                     wall ms     cpu ms");
    let row = |what: &str, wall: Duration, cpu: f64| {
        println!("{what:<17}{:>11.1}{cpu:>11.1}", ms(wall));
    };
    row(
        "first frame",
        first_frame,
        cpu_ms(cpu_start, cpu_first_frame),
    );
    println!(
        "(from start, decoding included, {}x{}: {first_events} events{})",
        size.0,
        size.1,
        if whole.is_some() {
            ", the trace's first part"
        } else {
            ", the whole trace"
        }
    );
    if let Some((wall, swap_cpu)) = whole {
        row(
            "whole trace shown",
            wall,
            cpu_ms(0, process_cpu_whole.saturating_sub(process_cpu_start)),
        );
        println!(
            "(from start; cpu: all threads until the whole model, its rows and figures were ready; then {swap_cpu:.1} ms to swap it in and redraw)"
        );
    }
    row("warm-up", warmed, cpu_ms(cpu_warm_start, cpu_warmed));
    println!(
        "(the other rows' summaries, built after the whole trace is shown while waiting for keys)"
    );
    println!(
        "redraw per key   wall mean {:.2} ms, median {:.2} ms, max {:.2} ms; cpu mean {cpu_mean:.2} ms, max {cpu_max:.2} ms ({} keys)",
        ms(mean),
        ms(p50),
        ms(max),
        times.len()
    );
    let worst: Vec<String> = per_key
        .iter()
        .take(5)
        .map(|(ns, n, code, span)| {
            format!(
                "#{n} {code} {:.1} ms (view {:.3} ms)",
                *ns as f64 / 1e6,
                *span as f64 / 1e6
            )
        })
        .collect();
    println!("  slowest (cpu)  {}", worst.join(", "));
    let ratio = |b: u64| b as f64 / file_bytes.max(1) as f64;
    println!(
        "peak RSS         {:>9.1} MB ({:.2}x the trace file)",
        rss as f64 / 1e6,
        ratio(rss)
    );
    println!(
        "timeline         {:>9.1} MB row indices, {:.1} MB summaries ({:.2}x the trace file together)",
        index_bytes as f64 / 1e6,
        summary_bytes as f64 / 1e6,
        ratio((index_bytes + summary_bytes) as u64)
    );
    println!(
        "  at first frame{:>9.1} MB ({:.2}x)",
        rss_first_frame as f64 / 1e6,
        ratio(rss_first_frame)
    );
}
