//! The event tables of the book's wire-format page (docs/src/format.md) say
//! exactly what the schema that generates the encoder and decoder says: the
//! same events with the same ids, names, timestamp flag and fields.

use tband::schema::Group;
use tband::{FieldType, EVENTS};

const FORMAT_PAGE: &str = include_str!("../../docs/src/format.md");

/// One row of an event table as the book writes it.
#[derive(Debug, PartialEq)]
struct BookRow {
    id: u8,
    name: String,
    has_timestamp: bool,
    fields: Vec<(String, String)>,
}

/// The rows of the table under `heading`, up to the next blank line.
fn table_under(heading: &str) -> Vec<BookRow> {
    let start = FORMAT_PAGE
        .find(heading)
        .unwrap_or_else(|| panic!("docs/src/format.md has no heading {heading:?}"));
    FORMAT_PAGE[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2) // the header and the alignment row
        .map(|line| parse_row(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn parse_row(line: &str) -> Result<BookRow, String> {
    let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
    let [id, name, timestamp, fields] = cells[..] else {
        return Err(format!("{} cells instead of 4", cells.len()));
    };
    let fields = if fields == "—" {
        Vec::new()
    } else {
        fields
            .split(", ")
            .map(|field| {
                let (name, ty) = field.split_once(": ").ok_or("a field without a type")?;
                Ok((name.trim_matches('`').to_owned(), ty.to_owned()))
            })
            .collect::<Result<_, String>>()?
    };
    Ok(BookRow {
        id: id.parse().map_err(|_| "an id that is not a number")?,
        name: name.trim_matches('`').to_owned(),
        has_timestamp: match timestamp {
            "yes" => true,
            "—" => false,
            other => return Err(format!("timestamp column {other:?}")),
        },
        fields,
    })
}

fn type_name(ty: FieldType) -> &'static str {
    match ty {
        FieldType::U8 => "u8",
        FieldType::U32 => "u32",
        FieldType::U64 => "u64",
        FieldType::S64 => "s64",
        FieldType::Str => "str",
    }
}

/// The schema's events of one group, written as the book's rows.
fn schema_rows(group: Group) -> Vec<BookRow> {
    EVENTS
        .iter()
        .filter(|spec| spec.group == group)
        .map(|spec| BookRow {
            id: spec.id,
            name: spec.name.to_owned(),
            has_timestamp: !spec.is_metadata,
            fields: spec
                .fields
                .iter()
                .map(|f| (f.name.to_owned(), type_name(f.ty).to_owned()))
                .collect(),
        })
        .collect()
}

/// Fails on the first row where the book and the schema differ, naming both.
fn assert_book_matches_schema(heading: &str, group: Group) {
    let book = table_under(heading);
    let schema = schema_rows(group);
    for (in_book, in_schema) in book.iter().zip(&schema) {
        assert_eq!(
            in_book, in_schema,
            "docs/src/format.md ({heading}) and tband/src/schema.rs disagree"
        );
    }
    assert_eq!(
        book.len(),
        schema.len(),
        "docs/src/format.md ({heading}) and tband/src/schema.rs list different numbers of events"
    );
}

#[test]
fn the_books_base_events_are_the_schemas() {
    assert_book_matches_schema("### Base events", Group::Base);
}

#[test]
fn the_books_freertos_events_are_the_schemas() {
    assert_book_matches_schema("### FreeRTOS events", Group::FreeRtos);
}

#[test]
fn the_books_freertos_extension_events_are_the_schemas() {
    assert_book_matches_schema("### FreeRTOS extension events", Group::FreeRtosExtension);
}

#[test]
fn the_books_memory_events_are_the_schemas() {
    assert_book_matches_schema("### Memory events", Group::Memory);
}

#[test]
fn the_books_log_events_are_the_schemas() {
    assert_book_matches_schema("### Log events", Group::Log);
}

#[test]
fn the_books_fault_events_are_the_schemas() {
    assert_book_matches_schema("### Fault events", Group::Fault);
}

#[test]
fn a_row_that_differs_is_seen() {
    let row = parse_row("| 4 | `isr_enter` | yes | `isr`: u32 |").unwrap();
    let schema = schema_rows(Group::Base);
    let isr_enter = schema.iter().find(|r| r.id == 4).unwrap();
    assert_ne!(&row, isr_enter, "a renamed field must not compare equal");
    assert!(parse_row("| 4 | `isr_enter` | maybe | `isr_id`: u32 |").is_err());
}
