//! What the integration tests of this crate share.

use tband::{encode_frame, Event};

/// A tband stream of `events`, each at its timestamp.
pub fn encode(events: &[(u64, Event<'_>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 64];
    for (ts, ev) in events {
        let n = encode_frame(&mut buf, *ts, ev).unwrap();
        out.extend_from_slice(&buf[..n]);
    }
    out
}
