//! The bytes: decodable, deterministic, laid out as docs/src/format.md says, with
//! honest dropped-event accounting.

mod common;

use common::{decode, Ev};
use tband::{schema::Group, EventKind};
use tband_sim::{generate, Config, DropConfig, Layout};

fn config(cores: u32, layout: Layout, drops: bool) -> Config {
    Config {
        size: 128 << 10,
        cores,
        layout,
        drops: drops.then_some(DropConfig {
            mean_gap_events: 500,
            max_lost_events: 20,
        }),
        ..Config::default()
    }
}

fn all_configs() -> Vec<Config> {
    let mut v = Vec::new();
    for cores in [1, 3] {
        for layout in [Layout::Streaming, Layout::Snapshot] {
            for drops in [false, true] {
                for wide_values in [false, true] {
                    v.push(Config {
                        wide_values,
                        ..config(cores, layout, drops)
                    });
                }
            }
        }
    }
    v
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    for c in all_configs() {
        let (a, _) = generate(&c).unwrap();
        let (b, _) = generate(&c).unwrap();
        assert_eq!(a, b);
        let other = Config { seed: 2, ..c };
        assert_ne!(generate(&other).unwrap().0, a);
    }
}

#[test]
fn recording_the_truth_does_not_change_the_bytes() {
    let c = config(2, Layout::Streaming, true);
    let with = Config {
        record_truth: true,
        ..c.clone()
    };
    assert_eq!(generate(&c).unwrap().0, generate(&with).unwrap().0);
}

#[test]
fn streams_decode_cleanly_with_time_never_going_back() {
    for c in all_configs() {
        let (streams, _) = generate(&c).unwrap();
        assert_eq!(streams.len(), c.cores as usize);
        let total: u64 = streams.iter().map(|s| s.len() as u64).sum();
        assert!(total >= c.size && total < c.size + 1024, "{total}");
        let events = decode(&streams);
        for stream in 0..streams.len() {
            let ts: Vec<(u64, EventKind)> = events
                .iter()
                .filter(|e| e.stream == stream && e.kind != EventKind::CoreId)
                .filter_map(|e| e.ts.map(|t| (t, e.kind)))
                .collect();
            assert!(ts.len() > 1000);
            for w in ts.windows(2) {
                // Only the dropped-event count shares the next event's time.
                if w[0].1 == EventKind::DroppedEvtCnt {
                    assert_eq!(w[0].0, w[1].0);
                } else {
                    assert!(w[0].0 < w[1].0, "{w:?}");
                }
            }
        }
        // One shared timer: no timestamp occurs on two cores.
        let mut all: Vec<u64> = events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::CoreId | EventKind::DroppedEvtCnt))
            .filter_map(|e| e.ts)
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}

fn header(events: &[Ev], stream: usize) -> Vec<(EventKind, Option<u32>)> {
    events
        .iter()
        .filter(|e| e.stream == stream)
        .take_while(|e| e.ts.is_none() || e.kind == EventKind::CoreId)
        .map(|e| (e.kind, (e.kind == EventKind::CoreId).then(|| e.u32(0))))
        .collect()
}

#[test]
fn streaming_layout_dumps_every_cores_metadata_into_core_0() {
    let (streams, _) = generate(&config(3, Layout::Streaming, false)).unwrap();
    let events = decode(&streams);
    let h = header(&events, 0);
    let core_ids: Vec<u32> = h.iter().filter_map(|(_, c)| *c).collect();
    assert_eq!(core_ids, [0, 1, 2, 0]);
    assert_eq!(h[0], (EventKind::CoreId, Some(0)));
    assert_eq!(h.last(), Some(&(EventKind::CoreId, Some(0))));
    for core in 0..3 {
        let resolutions = events
            .iter()
            .filter(|e| e.kind == EventKind::TsResolutionNs && e.core == core)
            .count();
        assert_eq!(resolutions, 1, "core {core}");
        // Every ISR of a core is named in that core's metadata.
        assert!(events
            .iter()
            .any(|e| e.kind == EventKind::IsrName && e.core == core));
    }
    for stream in 1..3 {
        assert!(header(&events, stream).is_empty());
        assert!(!events
            .iter()
            .any(|e| e.stream == stream && e.kind == EventKind::CoreId));
    }
    let idle: Vec<(u32, u32)> = events
        .iter()
        .filter(|e| e.kind == EventKind::TaskIsIdleTask)
        .map(|e| (e.u32(0), e.u32(1)))
        .collect();
    assert_eq!(idle.iter().map(|i| i.1).collect::<Vec<_>>(), [0, 1, 2]);
}

#[test]
fn snapshot_layout_has_metadata_per_file_and_no_core_ids() {
    let (streams, _) = generate(&config(2, Layout::Snapshot, false)).unwrap();
    let events = decode(&streams);
    assert!(!events.iter().any(|e| e.kind == EventKind::CoreId));
    for stream in 0..2 {
        let h = header(&events, stream);
        assert_eq!(h[0].0, EventKind::TsResolutionNs);
        assert!(h.contains(&(EventKind::IsrName, None)));
    }
}

#[test]
fn a_one_core_stream_opens_like_the_reference_tracer() {
    let (streams, _) = generate(&config(1, Layout::Streaming, false)).unwrap();
    let events = decode(&streams);
    let h = header(&events, 0);
    assert_eq!(h[0], (EventKind::CoreId, Some(0)));
    assert_eq!(h.last(), Some(&(EventKind::CoreId, Some(0))));
    for kind in [
        EventKind::TsResolutionNs,
        EventKind::TaskName,
        EventKind::TaskIsIdleTask,
        EventKind::TaskIsTimerTask,
        EventKind::QueueName,
        EventKind::QueueKind,
        EventKind::IsrName,
        EventKind::EvtmarkerName,
        EventKind::ValmarkerName,
        EventKind::TaskEvtmarkerName,
        EventKind::TaskValmarkerName,
    ] {
        assert!(h.iter().any(|(k, _)| *k == kind), "{kind:?}");
    }
}

#[test]
fn a_default_trace_uses_every_event_the_simulator_models() {
    let c = Config {
        size: 2 << 20,
        cores: 2,
        drops: Some(DropConfig::default()),
        ..Config::default()
    };
    let (streams, _) = generate(&c).unwrap();
    let events = decode(&streams);
    let missing: Vec<&str> = EventKind::ALL
        .iter()
        .filter(|k| !matches!(k, EventKind::QueueReset))
        // Notifications, event groups, stream buffers, timers, heaps,
        // stacks and faults are not simulated: the FreeRTOS application's
        // traces cover them (faults its post-mortem build), the embassy
        // application's the defmt frames.
        .filter(|k| {
            !matches!(
                k.spec().group,
                Group::FreeRtosExtension | Group::Memory | Group::Log | Group::Fault
            )
        })
        .filter(|k| !events.iter().any(|e| e.kind == **k))
        .map(|k| k.name())
        .collect();
    assert!(missing.is_empty(), "never emitted: {missing:?}");
    // A pended context switch that keeps the running task traces it again.
    let mut running = [0u32; 2];
    let mut again = 0;
    for e in common::timeline(&events) {
        if e.kind == EventKind::TaskSwitchedIn {
            again += usize::from(running[e.core as usize] == e.u32(0));
            running[e.core as usize] = e.u32(0);
        }
    }
    assert!(again > 0);
}

#[test]
fn drop_counter_is_resent_only_when_it_changed_or_at_the_heartbeat() {
    for heartbeat in [0, 7, 100] {
        let c = Config {
            heartbeat,
            ..config(2, Layout::Streaming, true)
        };
        let (streams, _) = generate(&c).unwrap();
        let events = decode(&streams);
        let mut changes = 0;
        for stream in 0..streams.len() {
            let mut last_sent = 0;
            let mut since = 0;
            for e in events
                .iter()
                .filter(|e| e.stream == stream && e.ts.is_some())
            {
                match e.kind {
                    EventKind::CoreId => {}
                    EventKind::DroppedEvtCnt => {
                        let cnt = e.u32(0);
                        assert!(cnt >= last_sent);
                        if cnt == last_sent {
                            assert!(
                                heartbeat > 0 && since == heartbeat,
                                "unchanged count resent"
                            );
                        } else {
                            changes += 1;
                        }
                        last_sent = cnt;
                        since = 0;
                    }
                    _ => {
                        since += 1;
                        if heartbeat > 0 {
                            assert!(since <= heartbeat, "heartbeat missed");
                        }
                    }
                }
            }
        }
        assert!(changes > 0);
    }
}
