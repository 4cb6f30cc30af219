//! RTT through a debug probe, with probe-rs: the probe reads and writes the
//! target's RAM while it runs, so no poll halts it.

use std::io;
use std::time::Duration;

use probe_rs::probe::list::Lister;
use probe_rs::probe::DebugProbeSelector;
use probe_rs::{MemoryInterface, Permissions, Session};

use crate::rtt::TargetMemory;
use crate::rtt_stream::Attached;

/// A session with the chip behind a probe.
pub struct Probe {
    session: Session,
}

impl Probe {
    /// Opens the probe `selector` (`VID:PID[:SERIAL]`), or the only one
    /// connected, and attaches to `chip` (a probe-rs target name, e.g.
    /// `STM32F407VGTx`).
    pub fn attach(chip: &str, selector: Option<&str>) -> Result<Probe, String> {
        let lister = Lister::new();
        let probe = match selector {
            Some(text) => {
                let selector: DebugProbeSelector = text.parse().map_err(|e| {
                    format!("`{text}` is not a probe as VID:PID or VID:PID:SERIAL ({e})")
                })?;
                lister.open(selector).map_err(|e| {
                    format!("cannot open the probe {text}: {e}; check that it is plugged in")
                })?
            }
            None => match lister.list_all().as_slice() {
                [] => {
                    return Err(
                        "no debug probe found; check that it is plugged in and that \
                                your user may open it (udev rules on Linux)"
                            .into(),
                    )
                }
                [one] => one
                    .open()
                    .map_err(|e| format!("cannot open the probe {}: {e}", one.identifier))?,
                many => {
                    let names: Vec<String> = many
                        .iter()
                        .map(|p| format!("{:04x}:{:04x}", p.vendor_id, p.product_id))
                        .collect();
                    return Err(format!(
                        "{} probes are connected ({}); choose one with --probe VID:PID[:SERIAL]",
                        many.len(),
                        names.join(", ")
                    ));
                }
            },
        };
        let session = probe.attach(chip, Permissions::default()).map_err(|e| {
            format!("cannot attach to a {chip} through the probe: {e}; check --chip and the wiring")
        })?;
        Ok(Probe { session })
    }
}

impl Probe {
    /// Runs `f` with the core halted (the flight recorder reads its rings
    /// whole), then lets it run on if it was running.
    pub fn halted<R>(&mut self, f: impl FnOnce(&mut Probe) -> R) -> Result<R, String> {
        let failed = |e: probe_rs::Error| format!("cannot halt the target through the probe: {e}");
        let mut core = self.session.core(0).map_err(failed)?;
        let was_halted = core.core_halted().map_err(failed)?;
        if !was_halted {
            core.halt(HALT_TIMEOUT).map_err(failed)?;
        }
        drop(core);
        let result = f(self);
        if !was_halted {
            let mut core = self.session.core(0).map_err(failed)?;
            core.run()
                .map_err(|e| format!("cannot let the target run on through the probe: {e}"))?;
        }
        Ok(result)
    }
}

/// How long a halt may take.
const HALT_TIMEOUT: Duration = Duration::from_millis(500);

impl TargetMemory for Probe {
    fn read(&mut self, address: u32, buf: &mut [u8]) -> io::Result<()> {
        let mut core = self.session.core(0).map_err(io::Error::other)?;
        core.read(address.into(), buf).map_err(io::Error::other)
    }

    fn write(&mut self, address: u32, bytes: &[u8]) -> io::Result<()> {
        let mut core = self.session.core(0).map_err(io::Error::other)?;
        core.write(address.into(), bytes).map_err(io::Error::other)
    }
}

impl Attached for Probe {
    /// The probe reads a running target: nothing to do.
    fn pause(&mut self) -> io::Result<bool> {
        Ok(true)
    }

    fn resume(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn release(&mut self) {}
}
