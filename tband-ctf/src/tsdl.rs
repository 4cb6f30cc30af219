//! Parser for the subset of TSDL (CTF 1.8 metadata) that embedded tracers such as Zephyr's write:
//! `typealias`/`typedef`, integers, enums, strings, fixed arrays, sequences, structs, and the
//! `trace`, `stream`, `event` and `clock` blocks. Packet headers and contexts, variants and
//! floating point are refused with an error naming the line.

use std::collections::HashMap;

use super::lexer::{tokenize, Tok, Token};
use super::types::{
    ByteOrder, Clock, Encoding, EnumMapping, EnumType, EventClass, Field, IntegerType, Metadata,
    StructType, Type,
};
use super::{MetadataError, MAX_EVENT_ID};

pub fn parse_metadata(text: &str) -> Result<Metadata> {
    let tokens = tokenize(text)?;
    let last_line = text.lines().count().max(1);
    let mut parser = Parser {
        tokens,
        pos: 0,
        last_line,
        aliases: HashMap::new(),
        structs: HashMap::new(),
        enums: HashMap::new(),
        trace: None,
        stream: None,
        events: Vec::new(),
        clocks: Vec::new(),
    };
    parser.parse_top_level()?;
    parser.finish()
}

type Result<T> = std::result::Result<T, MetadataError>;

#[derive(Debug, Clone)]
enum AttrValue {
    /// An identifier or a dotted path such as `clock.monotonic.value`.
    Ident(String),
    Int(i128),
    Str(String),
}

enum Rhs {
    Value(AttrValue),
    Type(Type),
}

struct Entry {
    key: String,
    line: usize,
    rhs: Rhs,
}

struct Parser<'s> {
    tokens: Vec<Token<'s>>,
    pos: usize,
    last_line: usize,
    aliases: HashMap<String, Type>,
    structs: HashMap<String, StructType>,
    enums: HashMap<String, EnumType>,
    /// Byte order from the trace block, with the block's line.
    trace: Option<(ByteOrder, usize)>,
    /// Event header from the stream block, with the block's line.
    stream: Option<(Option<StructType>, usize)>,
    events: Vec<(EventClass, usize)>,
    clocks: Vec<Clock>,
}

impl<'s> Parser<'s> {
    fn peek(&self) -> Option<Tok<'s>> {
        self.tokens.get(self.pos).map(|t| t.tok)
    }

    fn peek_at(&self, ahead: usize) -> Option<Tok<'s>> {
        self.tokens.get(self.pos + ahead).map(|t| t.tok)
    }

    fn line(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.last_line, |t| t.line)
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T> {
        Err(MetadataError::new(self.line(), message))
    }

    fn next(&mut self) -> Result<Tok<'s>> {
        match self.peek() {
            Some(tok) => {
                self.pos += 1;
                Ok(tok)
            }
            None => self.error("metadata ends in the middle of a declaration"),
        }
    }

    fn eat_punct(&mut self, punct: &'static str) -> bool {
        if self.peek() == Some(Tok::Punct(punct)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, punct: &'static str) -> Result<()> {
        if self.eat_punct(punct) {
            Ok(())
        } else {
            let found = describe(self.peek());
            self.error(format!("expected `{punct}` but found {found}"))
        }
    }

    fn expect_ident(&mut self) -> Result<&'s str> {
        match self.peek() {
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                Ok(name)
            }
            other => self.error(format!("expected a name but found {}", describe(other))),
        }
    }

    fn expect_int(&mut self) -> Result<u64> {
        match self.peek() {
            Some(Tok::Int(value)) => {
                self.pos += 1;
                Ok(value)
            }
            other => self.error(format!("expected a number but found {}", describe(other))),
        }
    }

    fn parse_top_level(&mut self) -> Result<()> {
        while let Some(tok) = self.peek() {
            let line = self.line();
            match tok {
                Tok::Ident("typealias") => self.parse_typealias()?,
                Tok::Ident("typedef") => self.parse_typedef()?,
                Tok::Ident("trace") => self.parse_trace(line)?,
                Tok::Ident("stream") => self.parse_stream(line)?,
                Tok::Ident("event") => self.parse_event(line)?,
                Tok::Ident("clock") => self.parse_clock()?,
                Tok::Ident("env" | "callsite") => {
                    self.pos += 1;
                    self.parse_block()?;
                    self.expect_punct(";")?;
                }
                Tok::Ident("struct" | "enum" | "variant" | "integer" | "string") => {
                    self.parse_type_spec(false)?;
                    self.expect_punct(";")?;
                }
                other => {
                    return self.error(format!("unexpected {} at top level", describe(Some(other))))
                }
            }
        }
        Ok(())
    }

    /// `typealias TYPE := NAME WORDS;`
    fn parse_typealias(&mut self) -> Result<()> {
        self.pos += 1;
        let ty = self.parse_type_spec(false)?;
        self.expect_punct(":=")?;
        let mut words = vec![self.expect_ident()?];
        while let Some(Tok::Ident(word)) = self.peek() {
            self.pos += 1;
            words.push(word);
        }
        self.expect_punct(";")?;
        self.aliases.insert(words.join(" "), ty);
        Ok(())
    }

    /// `typedef TYPE NAME;`
    fn parse_typedef(&mut self) -> Result<()> {
        self.pos += 1;
        let base = self.parse_type_spec(true)?;
        let (name, ty) = self.parse_declarator(base, &[])?;
        self.expect_punct(";")?;
        self.aliases.insert(name, ty);
        Ok(())
    }

    /// `{ key = value; key := type; typealias ...; }` for trace, stream, event, clock and env blocks.
    fn parse_block(&mut self) -> Result<Vec<Entry>> {
        self.expect_punct("{")?;
        let mut entries = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Punct("}")) => {
                    self.pos += 1;
                    return Ok(entries);
                }
                Some(Tok::Ident("typealias")) => self.parse_typealias()?,
                Some(Tok::Ident("typedef")) => self.parse_typedef()?,
                _ => {
                    let line = self.line();
                    let key = self.parse_dotted_name()?;
                    let rhs = if self.eat_punct(":=") {
                        Rhs::Type(self.parse_type_spec(false)?)
                    } else {
                        self.expect_punct("=")?;
                        Rhs::Value(self.parse_attr_value()?)
                    };
                    self.expect_punct(";")?;
                    entries.push(Entry { key, line, rhs });
                }
            }
        }
    }

    fn parse_dotted_name(&mut self) -> Result<String> {
        let mut name = self.expect_ident()?.to_owned();
        while self.eat_punct(".") {
            name.push('.');
            name.push_str(self.expect_ident()?);
        }
        Ok(name)
    }

    fn parse_attr_value(&mut self) -> Result<AttrValue> {
        match self.peek() {
            Some(Tok::Ident(_)) => Ok(AttrValue::Ident(self.parse_dotted_name()?)),
            Some(Tok::Str(text)) => {
                self.pos += 1;
                Ok(AttrValue::Str(text.to_owned()))
            }
            Some(Tok::Int(_) | Tok::Punct("-" | "+")) => {
                Ok(AttrValue::Int(self.parse_signed_int()?))
            }
            other => self.error(format!("expected a value but found {}", describe(other))),
        }
    }

    fn parse_signed_int(&mut self) -> Result<i128> {
        let negative = if self.eat_punct("-") {
            true
        } else {
            self.eat_punct("+");
            false
        };
        let magnitude = i128::from(self.expect_int()?);
        Ok(if negative { -magnitude } else { magnitude })
    }

    fn parse_trace(&mut self, line: usize) -> Result<()> {
        self.pos += 1;
        if self.trace.is_some() {
            return self.error("a second trace block is not allowed");
        }
        let mut byte_order = None;
        for entry in self.parse_block()? {
            match (entry.key.as_str(), entry.rhs) {
                ("byte_order", Rhs::Value(AttrValue::Ident(order))) => {
                    byte_order = Some(parse_byte_order(&order).ok_or_else(|| {
                        MetadataError::new(
                            entry.line,
                            format!("trace byte_order `{order}` is not le, be or network"),
                        )
                    })?);
                }
                ("major", Rhs::Value(AttrValue::Int(major))) if major != 1 => {
                    return Err(MetadataError::new(
                        entry.line,
                        format!("CTF major version {major} is not supported (only 1.x)"),
                    ));
                }
                ("packet.header", Rhs::Type(_)) => {
                    return Err(MetadataError::new(
                        entry.line,
                        "packet headers (trace packet.header) are not supported",
                    ));
                }
                _ => {}
            }
        }
        self.expect_punct(";")?;
        let byte_order = byte_order
            .ok_or_else(|| MetadataError::new(line, "the trace block has no byte_order"))?;
        self.trace = Some((byte_order, line));
        Ok(())
    }

    fn parse_stream(&mut self, line: usize) -> Result<()> {
        self.pos += 1;
        if self.stream.is_some() {
            return self.error("more than one stream class is not supported");
        }
        let mut header = None;
        for entry in self.parse_block()? {
            match (entry.key.as_str(), entry.rhs) {
                ("event.header", Rhs::Type(Type::Struct(s))) => header = Some(s),
                ("event.header", Rhs::Type(_)) => {
                    return Err(MetadataError::new(
                        entry.line,
                        "the stream event.header must be a struct",
                    ));
                }
                (key @ ("packet.context" | "event.context"), Rhs::Type(_)) => {
                    return Err(MetadataError::new(
                        entry.line,
                        format!("stream {key} is not supported"),
                    ));
                }
                _ => {}
            }
        }
        self.expect_punct(";")?;
        self.stream = Some((header, line));
        Ok(())
    }

    fn parse_event(&mut self, line: usize) -> Result<()> {
        self.pos += 1;
        let mut name = None;
        let mut id = None;
        let mut fields = None;
        for entry in self.parse_block()? {
            match (entry.key.as_str(), entry.rhs) {
                ("name", Rhs::Value(AttrValue::Ident(n) | AttrValue::Str(n))) => name = Some(n),
                ("id", Rhs::Value(AttrValue::Int(n))) => {
                    id = Some(u64::try_from(n).map_err(|_| {
                        MetadataError::new(entry.line, format!("event id {n} is negative"))
                    })?)
                }
                ("fields", Rhs::Type(Type::Struct(s))) => fields = Some(s),
                ("fields", Rhs::Type(_)) => {
                    return Err(MetadataError::new(
                        entry.line,
                        "event fields must be a struct",
                    ));
                }
                ("context", Rhs::Type(_)) => {
                    return Err(MetadataError::new(
                        entry.line,
                        "event context is not supported",
                    ));
                }
                _ => {}
            }
        }
        self.expect_punct(";")?;
        let name = name.ok_or_else(|| MetadataError::new(line, "event block has no name"))?;
        let id = id.ok_or_else(|| MetadataError::new(line, format!("event `{name}` has no id")))?;
        let fields = fields.unwrap_or(StructType {
            fields: Vec::new(),
            align_bytes: 1,
        });
        self.events.push((EventClass { id, name, fields }, line));
        Ok(())
    }

    fn parse_clock(&mut self) -> Result<()> {
        self.pos += 1;
        let mut clock = Clock::default_ns();
        let mut named = false;
        for entry in self.parse_block()? {
            let bad_number = |n: i128| {
                MetadataError::new(
                    entry.line,
                    format!("clock {} {n} is out of range", entry.key),
                )
            };
            match (entry.key.as_str(), entry.rhs) {
                ("name", Rhs::Value(AttrValue::Ident(n) | AttrValue::Str(n))) => {
                    clock.name = n;
                    named = true;
                }
                ("freq", Rhs::Value(AttrValue::Int(n))) => {
                    clock.freq_hz = u64::try_from(n)
                        .ok()
                        .filter(|&f| f > 0)
                        .ok_or_else(|| bad_number(n))?
                }
                ("offset_s", Rhs::Value(AttrValue::Int(n))) => {
                    clock.offset_s = i64::try_from(n).map_err(|_| bad_number(n))?
                }
                ("offset", Rhs::Value(AttrValue::Int(n))) => {
                    clock.offset_cycles = i64::try_from(n).map_err(|_| bad_number(n))?
                }
                _ => {}
            }
        }
        if !named {
            return self.error("clock block has no name");
        }
        self.expect_punct(";")?;
        self.clocks.push(clock);
        Ok(())
    }

    /// A type specifier. With `declarator_follows`, the last of a run of names is left for
    /// the declarator (`unsigned int count;`).
    fn parse_type_spec(&mut self, declarator_follows: bool) -> Result<Type> {
        match self.peek() {
            Some(Tok::Ident("integer")) => {
                self.pos += 1;
                Ok(Type::Integer(self.parse_integer_body()?))
            }
            Some(Tok::Ident("string")) => {
                self.pos += 1;
                if self.peek() == Some(Tok::Punct("{")) {
                    self.parse_block()?;
                }
                Ok(Type::String)
            }
            Some(Tok::Ident("struct")) => {
                self.pos += 1;
                self.parse_struct()
            }
            Some(Tok::Ident("enum")) => {
                self.pos += 1;
                self.parse_enum()
            }
            Some(Tok::Ident("variant")) => self.error("variant types are not supported"),
            Some(Tok::Ident("floating_point")) => {
                self.error("floating_point types are not supported")
            }
            Some(Tok::Ident(_)) => self.parse_alias_reference(declarator_follows),
            other => self.error(format!("expected a type but found {}", describe(other))),
        }
    }

    fn parse_alias_reference(&mut self, declarator_follows: bool) -> Result<Type> {
        let start = self.pos;
        let mut end = start;
        while let Some(Tok::Ident(_)) = self.tokens.get(end).map(|t| t.tok) {
            end += 1;
        }
        if declarator_follows && end - start > 1 {
            end -= 1;
        }
        let words: Vec<&str> = self.tokens[start..end]
            .iter()
            .filter_map(|t| match t.tok {
                Tok::Ident(word) => Some(word),
                _ => None,
            })
            .collect();
        let name = words.join(" ");
        match self.aliases.get(&name) {
            Some(ty) => {
                self.pos = end;
                Ok(ty.clone())
            }
            None => self.error(format!("unknown type `{name}`")),
        }
    }

    fn parse_integer_body(&mut self) -> Result<IntegerType> {
        let block_line = self.line();
        let mut size_bits = None;
        let mut align_bits = None;
        let mut int = IntegerType {
            size_bytes: 0,
            signed: false,
            align_bytes: 1,
            byte_order: None,
            encoding: Encoding::None,
            clock: None,
        };
        for entry in self.parse_block()? {
            let bad = |what: &str| {
                MetadataError::new(
                    entry.line,
                    format!("integer {} {what} is not supported", entry.key),
                )
            };
            match (entry.key.as_str(), &entry.rhs) {
                ("size", Rhs::Value(AttrValue::Int(n))) => size_bits = Some(*n),
                ("align", Rhs::Value(AttrValue::Int(n))) => align_bits = Some(*n),
                ("signed", Rhs::Value(value)) => {
                    int.signed = match value {
                        AttrValue::Ident(word) if word == "true" || word == "TRUE" => true,
                        AttrValue::Ident(word) if word == "false" || word == "FALSE" => false,
                        AttrValue::Int(n @ (0 | 1)) => *n == 1,
                        _ => return Err(bad("value")),
                    }
                }
                ("byte_order", Rhs::Value(AttrValue::Ident(order))) => {
                    int.byte_order = match order.as_str() {
                        "native" => None,
                        other => Some(
                            parse_byte_order(other).ok_or_else(|| bad(&format!("`{other}`")))?,
                        ),
                    }
                }
                ("encoding", Rhs::Value(AttrValue::Ident(encoding))) => {
                    int.encoding = match encoding.as_str() {
                        "none" => Encoding::None,
                        "ASCII" | "UTF8" => Encoding::Text,
                        other => return Err(bad(&format!("`{other}`"))),
                    }
                }
                ("map", Rhs::Value(AttrValue::Ident(path))) => {
                    let clock = path
                        .strip_prefix("clock.")
                        .and_then(|rest| rest.strip_suffix(".value"))
                        .ok_or_else(|| bad(&format!("`{path}`")))?;
                    int.clock = Some(clock.to_owned());
                }
                ("base", Rhs::Value(_)) => {}
                _ => {
                    return Err(MetadataError::new(
                        entry.line,
                        format!("unknown integer attribute `{}`", entry.key),
                    ))
                }
            }
        }
        let size_bits =
            size_bits.ok_or_else(|| MetadataError::new(block_line, "integer has no size"))?;
        if !matches!(size_bits, 8 | 16 | 24 | 32 | 40 | 48 | 56 | 64) {
            return Err(MetadataError::new(
                block_line,
                format!(
                    "integer size {size_bits} is not supported (only whole bytes up to 64 bits)"
                ),
            ));
        }
        int.size_bytes = (size_bits / 8) as usize;
        let align_bits = align_bits.unwrap_or(8);
        if align_bits <= 0 || align_bits & (align_bits - 1) != 0 || align_bits > 1 << 20 {
            return Err(MetadataError::new(
                block_line,
                format!("integer align {align_bits} is not a power of two"),
            ));
        }
        // Sizes are whole bytes, so positions are always whole bytes and sub-byte alignment is free.
        int.align_bytes = ((align_bits / 8) as usize).max(1);
        Ok(int)
    }

    /// After `struct`: `[NAME] [{ fields }] [align(N)]`.
    fn parse_struct(&mut self) -> Result<Type> {
        let name = match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Ident(name)), Some(Tok::Punct("{"))) => {
                self.pos += 1;
                Some(name)
            }
            (Some(Tok::Ident(name)), _) => {
                self.pos += 1;
                return match self.structs.get(name) {
                    Some(s) => Ok(Type::Struct(s.clone())),
                    None => self.error(format!("unknown struct `{name}`")),
                };
            }
            _ => None,
        };
        self.expect_punct("{")?;
        let mut fields: Vec<Field> = Vec::new();
        while !self.eat_punct("}") {
            match self.peek() {
                Some(Tok::Ident("typealias")) => self.parse_typealias()?,
                Some(Tok::Ident("typedef")) => self.parse_typedef()?,
                _ => {
                    let base = self.parse_type_spec(true)?;
                    loop {
                        let line = self.line();
                        let (name, ty) = self.parse_declarator(base.clone(), &fields)?;
                        if fields.iter().any(|f| f.name == name) {
                            return Err(MetadataError::new(
                                line,
                                format!("field `{name}` is declared twice"),
                            ));
                        }
                        fields.push(Field { name, ty });
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    self.expect_punct(";")?;
                }
            }
        }
        let mut align_bytes = fields.iter().map(|f| f.ty.align_bytes()).max().unwrap_or(1);
        if self.peek() == Some(Tok::Ident("align")) {
            self.pos += 1;
            self.expect_punct("(")?;
            let bits = self.expect_int()?;
            self.expect_punct(")")?;
            if !bits.is_power_of_two() || bits > 1 << 20 {
                return self.error(format!("struct align {bits} is not a power of two"));
            }
            align_bytes = align_bytes.max((bits / 8) as usize);
        }
        let s = StructType {
            fields,
            align_bytes,
        };
        if let Some(name) = name {
            self.structs.insert(name.to_owned(), s.clone());
        }
        Ok(Type::Struct(s))
    }

    /// `NAME [len]...` where `len` is a number (array) or an earlier field of `siblings` (sequence).
    fn parse_declarator(&mut self, base: Type, siblings: &[Field]) -> Result<(String, Type)> {
        let name = self.expect_ident()?.to_owned();
        let mut lengths = Vec::new();
        while self.eat_punct("[") {
            let line = self.line();
            let length = match self.next()? {
                Tok::Int(n) => usize::try_from(n)
                    .ok()
                    .filter(|&n| n <= 1 << 24)
                    .map(Length::Fixed)
                    .ok_or_else(|| {
                        MetadataError::new(line, format!("array length {n} is too large"))
                    })?,
                Tok::Ident(field) if lengths.is_empty() => {
                    let index = siblings
                        .iter()
                        .position(|f| f.name == field)
                        .ok_or_else(|| {
                            MetadataError::new(line, format!("sequence length `{field}` is not an earlier field of the same struct"))
                        })?;
                    if !matches!(&siblings[index].ty, Type::Integer(int) if !int.signed) {
                        return Err(MetadataError::new(
                            line,
                            format!("sequence length `{field}` is not an unsigned integer"),
                        ));
                    }
                    Length::Field(index)
                }
                Tok::Ident(_) => {
                    return Err(MetadataError::new(
                        line,
                        format!("only the first dimension of `{name}` may be a sequence length"),
                    ))
                }
                other => {
                    return Err(MetadataError::new(
                        line,
                        format!(
                            "expected an array length but found {}",
                            describe(Some(other))
                        ),
                    ))
                }
            };
            self.expect_punct("]")?;
            lengths.push(length);
        }
        let ty = lengths.into_iter().rev().fold(base, |element, length| {
            let element = Box::new(element);
            match length {
                Length::Fixed(length) => Type::Array { element, length },
                Length::Field(length_field) => Type::Sequence {
                    element,
                    length_field,
                },
            }
        });
        Ok((name, ty))
    }

    /// After `enum`: `[NAME] [: CONTAINER] [{ LABEL [= N [... M]], ... }]`.
    fn parse_enum(&mut self) -> Result<Type> {
        let name = match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Ident(name)), Some(Tok::Punct(":" | "{"))) => {
                self.pos += 1;
                Some(name)
            }
            (Some(Tok::Ident(name)), _) => {
                self.pos += 1;
                return match self.enums.get(name) {
                    Some(e) => Ok(Type::Enum(e.clone())),
                    None => self.error(format!("unknown enum `{name}`")),
                };
            }
            _ => None,
        };
        let container = if self.eat_punct(":") {
            match self.parse_type_spec(false)? {
                Type::Integer(int) => int,
                _ => return self.error("an enum's container type must be an integer"),
            }
        } else {
            match self.aliases.get("int") {
                Some(Type::Integer(int)) => int.clone(),
                _ => return self.error("enum has no container type and `int` is not declared"),
            }
        };
        self.expect_punct("{")?;
        let mut mappings = Vec::new();
        let mut next_value: i128 = 0;
        while !self.eat_punct("}") {
            let label = match self.next()? {
                Tok::Ident(label) | Tok::Str(label) => label.to_owned(),
                other => {
                    return self.error(format!(
                        "expected an enum label but found {}",
                        describe(Some(other))
                    ))
                }
            };
            let (first, last) = if self.eat_punct("=") {
                let first = self.parse_signed_int()?;
                let last = if self.eat_punct("...") {
                    self.parse_signed_int()?
                } else {
                    first
                };
                (first, last)
            } else {
                (next_value, next_value)
            };
            if last < first {
                return self.error(format!("enum range of `{label}` ends before it starts"));
            }
            next_value = last + 1;
            mappings.push(EnumMapping { label, first, last });
            if !self.eat_punct(",") {
                self.expect_punct("}")?;
                break;
            }
        }
        let e = EnumType {
            container,
            mappings,
        };
        if let Some(name) = name {
            self.enums.insert(name.to_owned(), e.clone());
        }
        Ok(Type::Enum(e))
    }

    fn finish(self) -> Result<Metadata> {
        let (byte_order, _) = self
            .trace
            .ok_or_else(|| MetadataError::new(1, "metadata has no trace block"))?;
        let (header, stream_line) = match self.stream {
            Some((Some(header), line)) => (header, line),
            Some((None, line)) => {
                return Err(MetadataError::new(
                    line,
                    "the stream block has no event.header, so events cannot be told apart",
                ))
            }
            None => {
                return Err(MetadataError::new(
                    self.last_line,
                    "metadata has no stream block",
                ))
            }
        };
        let mut event_header = header;
        event_header.resolve_byte_order(byte_order);
        let header_id_field = event_header
            .field_index("id")
            .filter(|&i| matches!(event_header.fields[i].ty, Type::Integer(_) | Type::Enum(_)))
            .ok_or_else(|| {
                MetadataError::new(stream_line, "the event header has no integer `id` field")
            })?;
        let header_timestamp_field = event_header.field_index("timestamp");
        let clock = match header_timestamp_field.map(|i| &event_header.fields[i].ty) {
            None => Clock::default_ns(),
            Some(Type::Integer(int)) => match &int.clock {
                None => Clock::default_ns(),
                Some(name) => self
                    .clocks
                    .iter()
                    .find(|c| &c.name == name)
                    .cloned()
                    .ok_or_else(|| {
                        MetadataError::new(
                            stream_line,
                            format!(
                                "the event timestamp maps to clock `{name}`, which is not declared"
                            ),
                        )
                    })?,
            },
            Some(_) => {
                return Err(MetadataError::new(
                    stream_line,
                    "the event header's `timestamp` is not an integer",
                ))
            }
        };

        let mut events = Vec::with_capacity(self.events.len());
        let mut event_by_id: Vec<Option<usize>> = Vec::new();
        for (mut event, line) in self.events {
            let slot = usize::try_from(event.id)
                .ok()
                .filter(|&id| id <= MAX_EVENT_ID)
                .ok_or_else(|| {
                    MetadataError::new(
                        line,
                        format!("event id {} is larger than {MAX_EVENT_ID}", event.id),
                    )
                })?;
            if event_by_id.len() <= slot {
                event_by_id.resize(slot + 1, None);
            }
            if let Some(other) = event_by_id[slot] {
                let other: &EventClass = &events[other];
                return Err(MetadataError::new(
                    line,
                    format!(
                        "event id {:#x} is used by both `{}` and `{}`",
                        event.id, other.name, event.name
                    ),
                ));
            }
            event_by_id[slot] = Some(events.len());
            event.fields.resolve_byte_order(byte_order);
            events.push(event);
        }
        Ok(Metadata {
            byte_order,
            event_header,
            header_id_field,
            header_timestamp_field,
            clock,
            events,
            event_by_id,
        })
    }
}

enum Length {
    Fixed(usize),
    Field(usize),
}

fn parse_byte_order(word: &str) -> Option<ByteOrder> {
    match word {
        "le" => Some(ByteOrder::Little),
        "be" | "network" => Some(ByteOrder::Big),
        _ => None,
    }
}

fn describe(tok: Option<Tok<'_>>) -> String {
    match tok {
        None => "the end of the metadata".to_owned(),
        Some(Tok::Ident(name)) => format!("`{name}`"),
        Some(Tok::Int(n)) => format!("`{n}`"),
        Some(Tok::Str(text)) => format!("\"{text}\""),
        Some(Tok::Punct(p)) => format!("`{p}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZEPHYR_METADATA: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/corpus/zephyr_ctf/hello_sem/metadata"
    ));

    /// A trace/stream preamble with a one-byte id and a 32-bit timestamp, then `rest`.
    fn with_preamble(rest: &str) -> String {
        format!(
            "/* CTF 1.8 */\n\
             typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;\n\
             typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;\n\
             trace {{ major = 1; minor = 8; byte_order = le; }};\n\
             stream {{ event.header := struct {{ uint32_t timestamp; uint8_t id; }}; }};\n\
             {rest}"
        )
    }

    fn error_of(text: &str) -> String {
        parse_metadata(text).unwrap_err().to_string()
    }

    #[test]
    fn parses_zephyrs_metadata() {
        let meta = parse_metadata(ZEPHYR_METADATA).unwrap();
        assert_eq!(meta.byte_order, ByteOrder::Little);
        assert_eq!(meta.events.len(), 34);
        let names: Vec<&str> = meta
            .event_header
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(names, ["timestamp", "id"]);
        assert_eq!(meta.header_id_field, 1);
        assert_eq!(meta.header_timestamp_field, Some(0));
        assert_eq!(meta.clock, Clock::default_ns());

        let name_set = meta.event_class(0x1a).unwrap();
        assert_eq!(name_set.name, "thread_name_set");
        let Type::Array { element, length } = &name_set.fields.fields[1].ty else {
            panic!("name is not an array: {:?}", name_set.fields.fields[1].ty);
        };
        assert_eq!(*length, 20);
        assert!(matches!(&**element, Type::Integer(int) if int.is_char()));
        assert_eq!(
            meta.event_class(0x25).unwrap().name,
            "semaphore_take_blocking"
        );
        assert_eq!(meta.event_class(0x1f), None);
        let Type::Integer(prio) = &meta.event_class(0x12).unwrap().fields.fields[2].ty else {
            panic!("prio is not an integer");
        };
        assert!(prio.signed);
        assert_eq!(prio.byte_order, Some(ByteOrder::Little));
    }

    #[test]
    fn parses_aliases_enums_sequences_strings_and_clocks() {
        let meta = parse_metadata(
            "/* CTF 1.8 */
            typealias integer { size = 16; align = 16; signed = 0; byte_order = be; base = hex; } := unsigned short;
            typedef integer { size = 64; align = 8; signed = true; } s64[2];
            enum state : unsigned short { IDLE, RUNNING = 5, BLOCKED = 7 ... 9, \"LAST\" };
            clock { name = cycles; freq = 1000000; offset_s = 2; offset = 500; };
            trace { byte_order = be; };
            stream {
                event.header := struct {
                    enum : integer { size = 8; } { a, b } id;
                    integer { size = 32; map = clock.cycles.value; } timestamp;
                };
            };
            event {
                name = \"big\";
                id = 1;
                fields := struct {
                    unsigned short count, other;
                    enum state st;
                    string label;
                    s64 pair;
                    integer { size = 8; encoding = UTF8; } text[count];
                    struct { unsigned short x; } align(64) nested[3];
                };
            };",
        )
        .unwrap();
        assert_eq!(meta.header_id_field, 0);
        assert_eq!(meta.clock.freq_hz, 1_000_000);
        assert_eq!(meta.clock.to_ns(1_000), 2_001_500_000);

        let fields = &meta.event_class(1).unwrap().fields.fields;
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["count", "other", "st", "label", "pair", "text", "nested"]
        );
        let Type::Integer(count) = &fields[0].ty else {
            panic!()
        };
        assert_eq!(
            (count.size_bytes, count.align_bytes, count.byte_order),
            (2, 2, Some(ByteOrder::Big))
        );
        let Type::Enum(state) = &fields[2].ty else {
            panic!()
        };
        assert_eq!(state.label_of(0), Some("IDLE"));
        assert_eq!(state.label_of(8), Some("BLOCKED"));
        assert_eq!(state.label_of(10), Some("LAST"));
        assert_eq!(state.label_of(6), None);
        assert_eq!(fields[3].ty, Type::String);
        assert!(matches!(&fields[4].ty, Type::Array { length: 2, .. }));
        assert!(matches!(
            &fields[5].ty,
            Type::Sequence {
                length_field: 0,
                ..
            }
        ));
        assert!(
            matches!(&fields[6].ty, Type::Array { length: 3, element } if element.align_bytes() == 8)
        );
    }

    #[test]
    fn events_may_be_declared_in_any_order_with_any_hex_case() {
        let meta = parse_metadata(&with_preamble(
            "event { name = b; id = 0x2B; };\nevent { name = a; id = 0x2a; };",
        ))
        .unwrap();
        assert_eq!(meta.event_class(0x2a).unwrap().name, "a");
        assert_eq!(meta.event_class(0x2b).unwrap().name, "b");
        assert_eq!(meta.event_class_by_name("b").unwrap().id, 0x2b);
    }

    #[test]
    fn refuses_what_it_cannot_decode_naming_the_line() {
        let cases = [
            (
                with_preamble("event {\n name = x;\n id = 1;\n fields := struct { variant <id> v; };\n};"),
                "metadata line 9: variant types are not supported",
            ),
            (
                with_preamble("event { name = x; id = 1;\n fields := struct { uint64_t big; }; };"),
                "metadata line 7: unknown type `uint64_t`",
            ),
            (
                with_preamble("event { name = x; id = 1; };\nevent { name = y; id = 1; };"),
                "metadata line 7: event id 0x1 is used by both `x` and `y`",
            ),
            (
                with_preamble("event { name = x; };"),
                "metadata line 6: event `x` has no id",
            ),
            (
                with_preamble("event { name = x; id = 1;\n fields := struct { integer { size = 12; } odd; }; };"),
                "metadata line 7: integer size 12 is not supported (only whole bytes up to 64 bits)",
            ),
            (
                with_preamble("event { name = x; id = 1;\n fields := struct { uint8_t data[n]; }; };"),
                "metadata line 7: sequence length `n` is not an earlier field of the same struct",
            ),
            (
                "/* CTF 1.8 */\ntrace {\n byte_order = le;\n packet.header := struct { };\n};".to_owned(),
                "metadata line 4: packet headers (trace packet.header) are not supported",
            ),
            (
                "/* CTF 1.8 */\ntrace {\n major = 1;\n};".to_owned(),
                "metadata line 2: the trace block has no byte_order",
            ),
            (
                "/* CTF 1.8 */\ntrace { byte_order = le; };\nstream { id = 0; };".to_owned(),
                "metadata line 3: the stream block has no event.header, so events cannot be told apart",
            ),
            (
                "/* CTF 1.8 */\ntrace { byte_order = le; };\nstream { event.header := struct { }; };".to_owned(),
                "metadata line 3: the event header has no integer `id` field",
            ),
            (
                "/* CTF 1.8 */\ntrace { byte_order = le; }".to_owned(),
                "metadata line 2: expected `;` but found the end of the metadata",
            ),
            (
                "/* CTF 1.8 */\nfoo bar;".to_owned(),
                "metadata line 2: unexpected `foo` at top level",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(error_of(&text), expected, "for:\n{text}");
        }
    }
}
