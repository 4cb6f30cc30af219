//! `tband-perfetto` on the ThreadX conformance buffers, end to end: the
//! buffers are recognised without flags and their scheduling, ISRs and
//! thread names reach the Perfetto trace.

mod common;

use prost::Message;
use tband_perfetto::protos::Trace;

const CONFORMANCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/threadx");

/// Recording, context switches and IRQs (from the model's run slices and
/// ISR slices; see tband-decode/tests/threadx_model.rs).
const RECORDINGS: [(&str, u32, u32); 4] = [
    ("threadx_demo_small", 13, 1),
    ("threadx_demo_startup", 1, 0),
    ("tracex_samples/demo_threadx", 19, 3),
    ("tracex_samples/demo_filex", 1, 0),
];

#[test]
fn threadx_buffers_convert() {
    let dir = std::env::temp_dir().join(format!("tband-perfetto-threadx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    for (name, switches, irqs) in RECORDINGS {
        let output_path = dir.join("out.pftrace");
        let stderr = common::convert(&[format!("{CONFORMANCE}/{name}.trx")], &output_path, &[]);
        assert!(
            stderr.contains(&format!("; {switches} context switches,")),
            "{name}: {stderr}"
        );
        assert!(
            stderr.contains(&format!(" {irqs} IRQs,")),
            "{name}: {stderr}"
        );
        let bytes = std::fs::read(&output_path).expect("output written");
        let trace = Trace::decode(bytes.as_slice()).expect("a Perfetto trace");
        assert!(
            trace.packet.iter().any(|p| p.process_tree.is_some()),
            "{name}"
        );
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("System Timer Thread"), "{name}");
        assert!(text.contains("thread 0"), "{name}");
    }
    std::fs::remove_dir_all(&dir).expect("temporary directory removed");
}
