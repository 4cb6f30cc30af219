//! The firmware's defmt log frames decoded with its ELF, whose `.defmt`
//! section holds the format strings (the `defmt-decoder` crate reads it).

use std::fs;
use std::path::Path;

use defmt_decoder::{DecodeError, Locations, Table};
use tband_model::{LogDecoder, LogLevel, LogMessage, Model};

use crate::{OpenOptions, TraceError};

/// What `Model::decode_logs` says of frames when no ELF was given.
const NO_ELF: &str = "give the firmware's ELF with --elf";

/// The defmt table and source locations of one firmware build; none in a
/// firmware without defmt (its ELF still locates faults).
pub struct DefmtElf {
    table: Option<Table>,
    locations: Locations,
}

impl DefmtElf {
    /// Reads the defmt table of the ELF at `path`.
    pub fn read(path: &Path) -> Result<DefmtElf, TraceError> {
        let unreadable = |reason: String| TraceError::Elf {
            path: path.to_path_buf(),
            reason,
        };
        let elf = fs::read(path).map_err(|e| unreadable(e.to_string()))?;
        if !elf.starts_with(b"\x7fELF") {
            return Err(unreadable("it is not an ELF file".into()));
        }
        let table = Table::parse(&elf).map_err(|e| unreadable(format!("{e:#}")))?;
        // Without debug information a line still decodes, without its place.
        let locations = (table.as_ref())
            .and_then(|t| t.get_locations(&elf).ok())
            .unwrap_or_default();
        Ok(DefmtElf { table, locations })
    }
}

impl LogDecoder for DefmtElf {
    fn decode(&self, frame: &[u8]) -> Result<LogMessage, String> {
        let table =
            (self.table.as_ref()).ok_or("the ELF has no .defmt section (is defmt linked in?)")?;
        let (decoded, used) = table.decode(frame).map_err(|e| match e {
            DecodeError::UnexpectedEof => {
                "a frame is cut short (raise TBAND_DEFMT_FRAME_BYTES in the firmware)".to_string()
            }
            DecodeError::Malformed => {
                "a frame does not match the ELF's defmt table (is it this firmware's ELF?)"
                    .to_string()
            }
        })?;
        if used != frame.len() {
            return Err(format!(
                "a frame has {} bytes after its log line (is it this firmware's ELF?)",
                frame.len() - used
            ));
        }
        let location = self.locations.get(&decoded.index());
        Ok(LogMessage {
            level: decoded
                .level()
                .and_then(|l| LogLevel::from_name(l.as_str())),
            text: decoded.display_message().to_string(),
            file: location.map(|l| l.file.display().to_string()),
            line: location.and_then(|l| u32::try_from(l.line).ok()),
        })
    }
}

/// The defmt table of the ELF `options` name, if they name one.
pub(crate) fn read_elf(options: &OpenOptions) -> Result<Option<DefmtElf>, TraceError> {
    options.elf.as_deref().map(DefmtElf::read).transpose()
}

/// Decodes the model's log frames with `elf`, if there is one.
pub(crate) fn decode_logs(model: &mut Model, elf: Option<&DefmtElf>) {
    model.decode_logs(elf.map(|d| d as &dyn LogDecoder), NO_ELF);
}
