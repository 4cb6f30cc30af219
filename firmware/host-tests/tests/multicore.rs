//! Two threads act as two cores recording into the global tracer at the
//! same time (std critical section); each core's snapshot holds exactly its
//! own events, in time order.

use std::thread;

use tband::EventKind;
use tband_host_tests::{decode, run_as_core, snapshot_of};

const ROUNDS: u32 = 100;

#[test]
fn concurrent_cores_keep_their_own_streams() {
    for core in 0..2 {
        run_as_core(core);
        tband::gather_system_metadata();
        tband::isr_name(core as u32, format!("irq{core}"));
    }
    assert!(tband::trigger_snapshot(), "the first trigger succeeds");
    let threads: Vec<_> = (0..2u32)
        .map(|core| {
            thread::spawn(move || {
                run_as_core(core as usize);
                for i in 0..ROUNDS {
                    tband::isr_enter(core);
                    tband::valmarker(core, i64::from(i));
                    tband::isr_exit(core);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    tband::stop_snapshot();
    for core in 0..2u32 {
        let frames = decode(&snapshot_of(core as usize), core).unwrap();
        let count = |k| frames.iter().filter(|f| f.kind == k).count();
        assert_eq!(count(EventKind::TsResolutionNs), 1);
        assert_eq!(count(EventKind::IsrName), 1);
        assert_eq!(count(EventKind::IsrEnter), ROUNDS as usize);
        assert_eq!(count(EventKind::IsrExit), ROUNDS as usize);
        assert_eq!(count(EventKind::Valmarker), ROUNDS as usize);
        // Heartbeats (every 50 events by default) report no loss.
        let heartbeats = frames.iter().filter(|f| f.kind == EventKind::DroppedEvtCnt);
        assert!(heartbeats.clone().all(|f| f.fields == "cnt=0"));
        assert_eq!(heartbeats.count(), 3 * ROUNDS as usize / 50 - 1);
        let own = format!("isr_id={core}");
        let timed: Vec<_> = frames.iter().filter(|f| f.ts.is_some()).collect();
        for f in &timed {
            if matches!(f.kind, EventKind::IsrEnter | EventKind::IsrExit) {
                assert_eq!(f.fields, own, "core {core}");
            }
        }
        // A heartbeat shares the timestamp of the event it precedes.
        assert!(
            timed.windows(2).all(|w| w[0].ts < w[1].ts
                || (w[0].ts == w[1].ts && w[0].kind == EventKind::DroppedEvtCnt)),
            "core {core} time order"
        );
        let values: Vec<_> = timed
            .iter()
            .filter(|f| f.kind == EventKind::Valmarker)
            .map(|f| f.fields.clone())
            .collect();
        let expected: Vec<_> = (0..ROUNDS)
            .map(|i| format!("valmarker_id={core} val={i}"))
            .collect();
        assert_eq!(values, expected);
    }
}
