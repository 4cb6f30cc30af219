//! A fault's PC and LR as function and line: looked up in the firmware's
//! ELF file, in its line information (DWARF, read by `addr2line`), else in
//! its symbol table (the function only).

use std::borrow::Cow;
use std::path::Path;
use std::rc::Rc;

use gimli::{EndianRcSlice, RunTimeEndian};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use tband_model::Model;

type Reader = EndianRcSlice<RunTimeEndian>;

/// The firmware's addresses, as its ELF file names them.
pub struct Symbols {
    lines: Option<addr2line::Context<Reader>>,
    /// The symbol table's functions: start, size, name; by start.
    functions: Vec<(u64, u64, String)>,
}

impl Symbols {
    /// Reads `elf`; an ELF file with neither line information nor
    /// symbols is an error, as is a file that is not ELF.
    pub fn read(elf: &Path) -> Result<Symbols, String> {
        let data = std::fs::read(elf)
            .map_err(|e| format!("cannot read the ELF file {}: {e}", elf.display()))?;
        let file = object::File::parse(&*data)
            .map_err(|e| format!("{} is not an ELF file ({e})", elf.display()))?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let section = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let bytes = (file.section_by_name(id.name()))
                .and_then(|s| s.uncompressed_data().ok())
                .unwrap_or(Cow::Borrowed(&[]));
            Ok(EndianRcSlice::new(Rc::from(&*bytes), endian))
        };
        // Line information that does not parse counts as none: the
        // symbol table still names the functions.
        let lines = if file.section_by_name(".debug_line").is_some() {
            gimli::Dwarf::load(section)
                .and_then(addr2line::Context::from_dwarf)
                .ok()
        } else {
            None
        };
        let mut functions: Vec<(u64, u64, String)> = (file.symbols())
            .filter(|s| s.kind() == SymbolKind::Text && s.address() != 0)
            .filter_map(|s| {
                // Thumb functions' symbols have bit 0 set.
                Some((s.address() & !1, s.size(), s.name().ok()?.to_owned()))
            })
            .collect();
        functions.sort_unstable();
        if lines.is_none() && functions.is_empty() {
            return Err(format!(
                "{} has neither line information nor symbols (stripped?); \
                 give the ELF file the firmware was built as",
                elf.display()
            ));
        }
        Ok(Symbols { lines, functions })
    }

    /// Whether lines are known, not only functions.
    pub fn has_lines(&self) -> bool {
        self.lines.is_some()
    }

    /// `function at file:line` for the instruction at `addr`, followed by
    /// `, inlined in function at file:line` for each function it was
    /// inlined in, outwards; `function` when only the symbol table knows
    /// it; `None` when nothing does.
    pub fn locate(&self, addr: u64) -> Option<String> {
        let chain = self.frames(addr);
        (!chain.is_empty()).then(|| chain.join(", inlined in "))
    }

    /// The function the instruction at `addr` is in as compiled, where
    /// the functions inlined there are left out: `function at file:line`.
    pub fn locate_outermost(&self, addr: u64) -> Option<String> {
        self.frames(addr).pop()
    }

    /// `function at file:line` of each function the instruction at `addr`
    /// is in, innermost first (a function alone when only the symbol
    /// table knows it).
    fn frames(&self, addr: u64) -> Vec<String> {
        if let Some(chain) = self.lines.as_ref().map(|ctx| in_lines(ctx, addr)) {
            if !chain.is_empty() {
                return chain;
            }
        }
        self.in_symbols(addr).into_iter().collect()
    }

    fn in_symbols(&self, addr: u64) -> Option<String> {
        let i = self
            .functions
            .partition_point(|&(start, _, _)| start <= addr);
        let (start, size, name) = self.functions.get(i.checked_sub(1)?)?;
        (size == &0 || addr < start + size).then(|| demangled(name).into_owned())
    }

    /// Fills each fault's PC and LR locations: the PC's with the
    /// functions inlined there, the LR's the function it returns into.
    /// The LR is a return address: the call is the instruction before it
    /// (bit 0, Thumb, off).
    pub fn locate_faults(&self, model: &mut Model) {
        for f in &mut model.faults {
            f.pc_location = self.locate(u64::from(f.pc));
            let call = u64::from(f.lr & !1).checked_sub(1);
            f.lr_location = call.and_then(|addr| self.locate_outermost(addr));
        }
    }
}

fn in_lines(ctx: &addr2line::Context<Reader>, addr: u64) -> Vec<String> {
    let mut chain = Vec::new();
    let Ok(mut frames) = ctx.find_frames(addr).skip_all_loads() else {
        return chain;
    };
    while let Ok(Some(frame)) = frames.next() {
        let Some(function) = frame.function.as_ref().and_then(|f| f.demangle().ok()) else {
            continue;
        };
        let at = frame.location.and_then(|l| {
            let file = Path::new(l.file?)
                .file_name()?
                .to_string_lossy()
                .into_owned();
            Some(format!("{file}:{}", l.line?))
        });
        chain.push(match at {
            Some(at) => format!("{function} at {at}"),
            None => function.into_owned(),
        });
    }
    chain
}

/// A symbol's name, demangled when it is a Rust one.
fn demangled(name: &str) -> Cow<'_, str> {
    match addr2line::demangle(name, gimli::DW_LANG_Rust) {
        Some(name) => Cow::Owned(name),
        None => Cow::Borrowed(name),
    }
}
