//! A crash in Perfetto's own trace processor: the export of a trace that
//! ends in a fault shows it as an instant on its core's track (group
//! "Faults") and on a track of the task's thread, and as the damage `fault` on the
//! "Trace health" track, which the PerfettoSQL `trace_health` reads.

mod common;
#[path = "../../tests/trace_processor/shell.rs"]
mod shell;
#[path = "../../tests/fault/stream.rs"]
mod stream;

use tband_decode::encode::encode_stream;

const QUERIES: &str = "
SELECT coalesce(p.name, th.name, '') AS parent, k.name AS track, s.ts, s.dur, s.name
FROM slice s JOIN track k ON s.track_id = k.id
LEFT JOIN track p ON p.id = k.parent_id
LEFT JOIN thread_track tt ON tt.id = k.id
LEFT JOIN thread th ON th.utid = tt.utid
WHERE s.name = 'HardFault' ORDER BY parent, track;

SELECT s.name, s.ts FROM slice s JOIN track k ON s.track_id = k.id
WHERE k.name = 'Trace health' AND s.name <> 'end_of_trace';
";

#[test]
fn the_fault_is_an_instant_on_its_core_and_its_task_and_in_trace_health() {
    let Some(shell) = shell::trace_processor() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tband-perfetto-fault-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("crash.bin");
    std::fs::write(&trace, encode_stream(&stream::crash())).unwrap();
    let out = dir.join("crash.pftrace");
    common::convert(&[trace.display().to_string()], &out, &[]);
    let result = shell::run_queries(&shell, QUERIES, &out);
    std::fs::remove_dir_all(&dir).unwrap();
    let sets: Vec<&str> = result.trim_end().split("\n\n").collect();
    assert_eq!(
        sets[0].lines().skip(1).collect::<Vec<_>>(),
        [
            "\"Faults\",\"core 0\",4000,0,\"HardFault\"",
            "\"logger\",\"fault\",4000,0,\"HardFault\"",
        ],
        "{result}"
    );
    assert_eq!(
        sets[1].lines().skip(1).collect::<Vec<_>>(),
        ["\"fault\",4000"],
        "{result}"
    );
}
