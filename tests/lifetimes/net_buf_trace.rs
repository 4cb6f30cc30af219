//! A Zephyr CTF trace of network buffers that the tests write: Zephyr's
//! own TSDL metadata (`tests/corpus/zephyr_ctf/workload/metadata`) with the
//! five `net_buf_*` event declarations added, and a stream of known
//! allocations, references and destructions in three pools, from two
//! threads and an ISR, two buffers leaked. The tests of the model and of
//! every sink include this file
//! (`#[path = "../../tests/lifetimes/net_buf_trace.rs"] mod net_buf_trace;`)
//! and compare what they read with the tables below.

#![allow(dead_code)] // each crate's test uses a part of it

use std::fs;
use std::path::{Path, PathBuf};

/// The declarations the network-buffer tracing adds to Zephyr's metadata.
const NET_BUF_EVENTS: &str = "
event {
	name = net_buf_alloc;
	id = 0x34;
	fields := struct {
		uint32_t pool;
		uint32_t free;
		ctf_bounded_string_t name[20];
	};
};

event {
	name = net_buf_allocated;
	id = 0x35;
	fields := struct {
		uint32_t pool;
		uint32_t free;
		uint32_t buf;
		ctf_bounded_string_t name[20];
	};
};

event {
	name = net_buf_destroyed;
	id = 0x36;
	fields := struct {
		uint32_t pool;
		uint32_t free;
		uint32_t buf;
		ctf_bounded_string_t name[20];
	};
};

event {
	name = net_buf_ref;
	id = 0x37;
	fields := struct {
		uint32_t buf;
		uint32_t count;
	};
};

event {
	name = net_buf_unref;
	id = 0x38;
	fields := struct {
		uint32_t buf;
		uint32_t count;
	};
};
";

pub const RX: (u32, &str) = (0x2000_0100, "rx_pool");
pub const TX: (u32, &str) = (0x2000_0200, "tx_pool");
pub const DATA: (u32, &str) = (0x2000_0300, "data_pool");

pub const RX_THREAD: (u32, &str) = (0x0800_1000, "rx_thread");
pub const TX_THREAD: (u32, &str) = (0x0800_2000, "tx_thread");

/// Who began or ended a lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Thread(&'static str),
    Isr,
}

/// One buffer's lifetime as the stream records it: pool name, buffer,
/// start, end (none: leaked), who began it, who ended it (times in ns
/// since the first event).
pub type Lifetime = (&'static str, u32, u64, Option<u64>, Who, Option<Who>);

pub const LIFETIMES: &[Lifetime] = &[
    (
        "rx_pool",
        0x2000_1000,
        1_200,
        Some(3_600),
        Who::Thread("rx_thread"),
        Some(Who::Thread("tx_thread")),
    ),
    (
        "data_pool",
        0x2000_3000,
        1_500,
        Some(4_200),
        Who::Thread("rx_thread"),
        Some(Who::Thread("rx_thread")),
    ),
    (
        "tx_pool",
        0x2000_2000,
        2_200,
        Some(4_100),
        Who::Thread("tx_thread"),
        Some(Who::Thread("rx_thread")),
    ),
    (
        "tx_pool",
        0x2000_2040,
        2_500,
        None,
        Who::Thread("tx_thread"),
        None,
    ),
    ("rx_pool", 0x2000_1040, 3_200, None, Who::Isr, None),
    (
        "rx_pool",
        0x2000_1000,
        4_400,
        Some(5_000),
        Who::Thread("rx_thread"),
        Some(Who::Thread("rx_thread")),
    ),
];

/// The references taken and dropped: time, buffer, event, count.
pub const MARKS: &[(u64, u32, &str, u32)] = &[
    (1_300, 0x2000_1000, "net_buf_ref", 2),
    (2_300, 0x2000_1000, "net_buf_unref", 1),
    (3_500, 0x2000_1000, "net_buf_unref", 0),
];

/// Each pool's free buffers as the events state them: pool, time, free.
pub const FREE: &[(&str, u64, u32)] = &[
    ("rx_pool", 1_100, 4),
    ("rx_pool", 1_200, 3),
    ("data_pool", 1_400, 8),
    ("data_pool", 1_500, 7),
    ("tx_pool", 2_100, 3),
    ("tx_pool", 2_200, 2),
    ("tx_pool", 2_400, 2),
    ("tx_pool", 2_500, 1),
    ("rx_pool", 3_100, 3),
    ("rx_pool", 3_200, 2),
    ("rx_pool", 3_600, 3),
    ("tx_pool", 4_100, 2),
    ("data_pool", 4_200, 8),
    ("rx_pool", 4_300, 3),
    ("rx_pool", 4_400, 2),
    ("rx_pool", 5_000, 3),
];

/// The last event's time: where the leaked lifetimes end, truncated.
pub const END_NS: u64 = 6_000;

/// Each pool's fewest free buffers and when first: pool, free, time.
pub const LOW_WATER: &[(&str, u32, u64)] = &[
    ("data_pool", 7, 1_500),
    ("rx_pool", 2, 3_200),
    ("tx_pool", 1, 2_500),
];

/// What the stream holds, in time order.
enum Op {
    SwitchIn((u32, &'static str)),
    SwitchOut((u32, &'static str)),
    IsrEnter,
    IsrExit,
    Alloc((u32, &'static str), u32),
    Allocated((u32, &'static str), u32, u32),
    Destroyed((u32, &'static str), u32, u32),
    Ref(u32, u32),
    Unref(u32, u32),
}

const STREAM: &[(u64, Op)] = &[
    (0, Op::SwitchIn(RX_THREAD)),
    (1_100, Op::Alloc(RX, 4)),
    (1_200, Op::Allocated(RX, 3, 0x2000_1000)),
    (1_300, Op::Ref(0x2000_1000, 2)),
    (1_400, Op::Alloc(DATA, 8)),
    (1_500, Op::Allocated(DATA, 7, 0x2000_3000)),
    (2_000, Op::SwitchOut(RX_THREAD)),
    (2_000, Op::SwitchIn(TX_THREAD)),
    (2_100, Op::Alloc(TX, 3)),
    (2_200, Op::Allocated(TX, 2, 0x2000_2000)),
    (2_300, Op::Unref(0x2000_1000, 1)),
    (2_400, Op::Alloc(TX, 2)),
    (2_500, Op::Allocated(TX, 1, 0x2000_2040)),
    (3_000, Op::IsrEnter),
    (3_100, Op::Alloc(RX, 3)),
    (3_200, Op::Allocated(RX, 2, 0x2000_1040)),
    (3_300, Op::IsrExit),
    (3_500, Op::Unref(0x2000_1000, 0)),
    (3_600, Op::Destroyed(RX, 3, 0x2000_1000)),
    (4_000, Op::SwitchOut(TX_THREAD)),
    (4_000, Op::SwitchIn(RX_THREAD)),
    (4_100, Op::Destroyed(TX, 2, 0x2000_2000)),
    (4_200, Op::Destroyed(DATA, 8, 0x2000_3000)),
    (4_300, Op::Alloc(RX, 3)),
    (4_400, Op::Allocated(RX, 2, 0x2000_1000)),
    (5_000, Op::Destroyed(RX, 3, 0x2000_1000)),
    (END_NS, Op::SwitchOut(RX_THREAD)),
];

/// Zephyr's metadata with the `net_buf_*` declarations added.
pub fn metadata() -> String {
    let zephyr = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/zephyr_ctf/workload/metadata"
    );
    let zephyr = fs::read_to_string(zephyr).expect("Zephyr's metadata is in the corpus");
    zephyr + NET_BUF_EVENTS
}

/// The event stream: each event a header (32-bit time, 8-bit id) and its
/// fields, little-endian and byte-aligned, strings as 20 bytes.
pub fn stream() -> Vec<u8> {
    let mut out = Vec::new();
    for (ts, op) in STREAM {
        let mut event = |id: u8, words: &[u32], name: Option<&str>| {
            out.extend_from_slice(&(*ts as u32).to_le_bytes());
            out.push(id);
            for word in words {
                out.extend_from_slice(&word.to_le_bytes());
            }
            if let Some(name) = name {
                let mut field = [0u8; 20];
                field[..name.len()].copy_from_slice(name.as_bytes());
                out.extend_from_slice(&field);
            }
        };
        match *op {
            Op::SwitchOut((id, name)) => event(0x10, &[id], Some(name)),
            Op::SwitchIn((id, name)) => event(0x11, &[id], Some(name)),
            Op::IsrEnter => event(0x1B, &[], None),
            Op::IsrExit => event(0x1C, &[], None),
            Op::Alloc((pool, name), free) => event(0x34, &[pool, free], Some(name)),
            Op::Allocated((pool, name), free, buf) => event(0x35, &[pool, free, buf], Some(name)),
            Op::Destroyed((pool, name), free, buf) => event(0x36, &[pool, free, buf], Some(name)),
            Op::Ref(buf, count) => event(0x37, &[buf, count], None),
            Op::Unref(buf, count) => event(0x38, &[buf, count], None),
        }
    }
    out
}

/// Writes the trace as a CTF directory (`metadata`, `channel0_0`) under
/// `parent` and returns the directory.
pub fn write(parent: &Path) -> PathBuf {
    let dir = parent.join("net_buf_ctf");
    fs::create_dir_all(&dir).expect("the directory is made");
    fs::write(dir.join("metadata"), metadata()).expect("the metadata is written");
    fs::write(dir.join("channel0_0"), stream()).expect("the stream is written");
    dir
}
