//! Lifetime rules as TOML: the `--rules` file every tool reads and the
//! rules built in. A file is a list of `[[rule]]` tables:
//!
//! ```toml
//! [[rule]]
//! event = "net_buf_allocated"   # the event's name as the trace records it
//! action = "begin"              # begin, end, mark or counter
//! kind = "net_buf"              # what kind of object
//! key = "buf"                   # the field that identifies it
//! name = "name"                 # begin: the field that names it
//! pool = "pool"                 # begin: the field that is its pool
//! pool_name = "name"            # begin, counter: the field that names the pool
//! where = { event_id = 4100 }   # only events whose fields hold these values
//! ```
//!
//! A mark rule may name a `value` field shown with the instant; a counter
//! rule names the counter (`counter = "free"`), the field that is its
//! value (`value`) and keys its pool with `key`.

use std::fmt;
use std::ops::Range;
use std::path::Path;

use tband_model::rules::{Rule, RuleAction, Rules};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// The rules for Zephyr's network buffers, which need no option.
const BUILT_IN: &str = include_str!("net_buf_rules.toml");

/// Why a rules file could not be used: one sentence that names the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError(String);

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RulesError {}

/// The rules built in: Zephyr's `net_buf_*` events.
pub fn built_in_rules() -> Rules {
    parse_rules(BUILT_IN, "the built-in rules").expect("the built-in rules parse")
}

/// Reads a rules file.
pub fn read_rules(path: &Path) -> Result<Rules, RulesError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| RulesError(format!("cannot read the rules file {name}: {e}")))?;
    parse_rules(&text, &name)
}

/// Parses rules from TOML; `name` names the text in errors.
pub fn parse_rules(text: &str, name: &str) -> Result<Rules, RulesError> {
    let at = |span: Range<usize>, message: &str| {
        let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
        RulesError(format!("{name} line {line}: {message}"))
    };
    let table = DeTable::parse(text).map_err(|e| {
        let message = e
            .message()
            .lines()
            .next()
            .unwrap_or("not TOML")
            .trim_end_matches('.');
        at(
            e.span().unwrap_or(0..0),
            &format!("{message} (not valid TOML)"),
        )
    })?;
    let mut rules = Vec::new();
    for (key, value) in table.get_ref().iter() {
        if key.get_ref().as_ref() != "rule" {
            return Err(at(
                key.span(),
                &format!(
                    "unknown key `{}`: a rules file holds only [[rule]] tables",
                    key.get_ref()
                ),
            ));
        }
        let DeValue::Array(list) = value.get_ref() else {
            return Err(at(
                value.span(),
                "`rule` must be a list of tables, written [[rule]]",
            ));
        };
        for item in list {
            let DeValue::Table(fields) = item.get_ref() else {
                return Err(at(
                    item.span(),
                    "each rule must be a table, written [[rule]]",
                ));
            };
            rules.push(rule(item.span(), fields, &at)?);
        }
    }
    Ok(Rules { rules })
}

type At<'a> = dyn Fn(Range<usize>, &str) -> RulesError + 'a;

/// One `[[rule]]` table.
fn rule(span: Range<usize>, fields: &DeTable<'_>, at: &At<'_>) -> Result<Rule, RulesError> {
    let mut text: [Option<(String, Range<usize>)>; 9] = Default::default();
    let mut conditions = Vec::new();
    for (key, value) in fields.iter() {
        let key_name = key.get_ref().as_ref();
        if key_name == "where" {
            conditions = where_clause(value, at)?;
            continue;
        }
        let Some(slot) = TEXT_KEYS.iter().position(|k| *k == key_name) else {
            return Err(at(
                key.span(),
                &format!(
                    "unknown key `{key_name}` in a rule (known: {}, where)",
                    TEXT_KEYS.join(", ")
                ),
            ));
        };
        let DeValue::String(s) = value.get_ref() else {
            return Err(at(value.span(), &format!("`{key_name}` must be a string")));
        };
        text[slot] = Some((s.to_string(), value.span()));
    }
    let [event, action, kind, key, name, pool, pool_name, value, counter] = text;
    let required = |field: Option<(String, Range<usize>)>, key: &str| {
        field.ok_or_else(|| at(span.clone(), &format!("the rule has no `{key}`")))
    };
    let (event, _) = required(event, "event")?;
    let (action_text, action_span) = required(action, "action")?;
    let Some(action) = RuleAction::ALL
        .into_iter()
        .find(|a| a.as_str() == action_text)
    else {
        return Err(at(
            action_span,
            &format!("unknown action `{action_text}` (begin, end, mark or counter)"),
        ));
    };
    let (kind, _) = required(kind, "kind")?;
    let (key, _) = required(key, "key")?;
    let allowed =
        |field: &Option<(String, Range<usize>)>, key: &str, actions: &[RuleAction]| match field {
            Some((_, span)) if !actions.contains(&action) => {
                let names: Vec<&str> = actions.iter().map(|a| a.as_str()).collect();
                Err(at(
                    span.clone(),
                    &format!(
                        "`{key}` applies only to {} rules, not {action_text}",
                        names.join(" and ")
                    ),
                ))
            }
            _ => Ok(()),
        };
    allowed(&name, "name", &[RuleAction::Begin])?;
    allowed(&pool, "pool", &[RuleAction::Begin])?;
    allowed(
        &pool_name,
        "pool_name",
        &[RuleAction::Begin, RuleAction::Counter],
    )?;
    allowed(&value, "value", &[RuleAction::Mark, RuleAction::Counter])?;
    allowed(&counter, "counter", &[RuleAction::Counter])?;
    if action == RuleAction::Counter {
        required(value.clone(), "value")?;
        required(counter.clone(), "counter")?;
    }
    let field = |f: Option<(String, Range<usize>)>| f.map(|(s, _)| s);
    Ok(Rule {
        event,
        conditions,
        action,
        kind,
        key,
        name: field(name),
        pool: field(pool),
        pool_name: field(pool_name),
        value: field(value),
        counter: field(counter),
    })
}

/// The keys of a rule whose values are strings, in [`rule`]'s order.
const TEXT_KEYS: [&str; 9] = [
    "event",
    "action",
    "kind",
    "key",
    "name",
    "pool",
    "pool_name",
    "value",
    "counter",
];

/// `where = { field = integer, ... }`.
fn where_clause(
    value: &Spanned<DeValue<'_>>,
    at: &At<'_>,
) -> Result<Vec<(String, i64)>, RulesError> {
    let DeValue::Table(fields) = value.get_ref() else {
        return Err(at(
            value.span(),
            "`where` must be a table of fields and integers, e.g. { event_id = 4100 }",
        ));
    };
    fields
        .iter()
        .map(|(field, wanted)| match wanted.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .map(|v| (field.get_ref().to_string(), v))
                .map_err(|_| at(wanted.span(), "the integer does not fit in 64 bits")),
            _ => Err(at(
                wanted.span(),
                &format!(
                    "`where` compares `{}` with an integer only",
                    field.get_ref()
                ),
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        parse_rules(text, "r.toml")
            .expect_err("rejected")
            .to_string()
    }

    #[test]
    fn the_built_in_rules_cover_the_five_net_buf_events() {
        let rules = built_in_rules();
        for event in [
            "net_buf_alloc",
            "net_buf_allocated",
            "net_buf_destroyed",
            "net_buf_ref",
            "net_buf_unref",
        ] {
            assert!(rules.names_event(event), "{event}");
        }
    }

    #[test]
    fn a_rule_reads_every_key() {
        let rules = parse_rules(
            "[[rule]]\nevent = \"user\"\naction = \"counter\"\nkind = \"req\"\nkey = \"info1\"\n\
             pool_name = \"info2\"\nvalue = \"info3\"\ncounter = \"queued\"\nwhere = { event_id = 0x1004 }\n",
            "r.toml",
        )
        .expect("parsed");
        assert_eq!(
            rules.rules,
            [Rule {
                event: "user".into(),
                conditions: vec![("event_id".into(), 4100)],
                action: RuleAction::Counter,
                kind: "req".into(),
                key: "info1".into(),
                name: None,
                pool: None,
                pool_name: Some("info2".into()),
                value: Some("info3".into()),
                counter: Some("queued".into()),
            }]
        );
    }

    #[test]
    fn errors_are_one_sentence_naming_the_line() {
        assert_eq!(
            error("[[rule]]\nevent = \"a\"\naction = \"start\"\nkind = \"k\"\nkey = \"f\"\n"),
            "r.toml line 3: unknown action `start` (begin, end, mark or counter)"
        );
        assert_eq!(
            error("[[rule]]\nevent = \"a\"\naction = \"end\"\nkind = \"k\"\nkey = \"f\"\npool = \"p\"\n"),
            "r.toml line 6: `pool` applies only to begin rules, not end"
        );
        assert_eq!(
            error("[[rule]]\nevent = \"a\"\n\naction = \"end\"\n"),
            "r.toml line 1: the rule has no `kind`"
        );
        assert_eq!(
            error("[[rule]]\nevent = \"a\"\nkey = 3\n"),
            "r.toml line 3: `key` must be a string"
        );
        let syntax = error("[[rule]]\nevent = \"a\nkind = 1\n");
        assert!(syntax.starts_with("r.toml line 2: "), "{syntax}");
        assert!(syntax.ends_with("(not valid TOML)"), "{syntax}");
        assert!(!syntax.contains('\n'), "{syntax}");
        assert_eq!(
            error("rules = 1\n"),
            "r.toml line 1: unknown key `rules`: a rules file holds only [[rule]] tables"
        );
    }
}
