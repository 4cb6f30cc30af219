//! Running queries: parameters bound by name, errors placed at file and line.

use crate::engine::{Database, QueryResult, Value};
use crate::error::Error;
use crate::reports::{self, Query};
use crate::sql;

/// A `--param name=value` from the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub value: Value,
}

impl std::str::FromStr for Param {
    type Err = String;

    fn from_str(s: &str) -> Result<Param, String> {
        let (name, value) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
        let name = name.trim().trim_start_matches([':', '$']);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{name}` is not a parameter name (letters, digits, _)"
            ));
        }
        Ok(Param {
            name: name.to_string(),
            value: parse_value(value),
        })
    }
}

/// A parameter's text as the value it looks like: integer, real, or text.
pub fn parse_value(s: &str) -> Value {
    if let Ok(i) = s.parse::<i64>() {
        Value::Int(i)
    } else if let Ok(r) = s.parse::<f64>() {
        Value::Real(r)
    } else {
        Value::Text(s.to_string())
    }
}

/// Runs each query (every statement of it, in order) and returns the result
/// of its last statement.
pub fn run(
    db: &mut dyn Database,
    queries: &[Query],
    params: &[Param],
) -> Result<Vec<QueryResult>, Error> {
    let parsed: Vec<Vec<sql::Statement>> =
        queries.iter().map(|q| sql::statements(&q.text)).collect();
    if let Some(p) = params
        .iter()
        .find(|p| !parsed.iter().flatten().any(|s| s.params.contains(&p.name)))
    {
        return Err(Error::Input(format!(
            "no query here takes the parameter `{}`",
            p.name
        )));
    }
    queries
        .iter()
        .zip(&parsed)
        .map(|(query, statements)| run_one(db, query, statements, params))
        .collect()
}

fn run_one(
    db: &mut dyn Database,
    query: &Query,
    statements: &[sql::Statement],
    params: &[Param],
) -> Result<QueryResult, Error> {
    let declared = reports::parameters(&query.text);
    let mut last = None;
    for statement in statements {
        let values = statement
            .params
            .iter()
            .map(|name| {
                let default = declared
                    .iter()
                    .find(|d| d.name == *name)
                    .and_then(|d| d.default.as_deref());
                if let Some(p) = params.iter().rev().find(|p| p.name == *name) {
                    return match (&p.value, default.map(parse_value)) {
                        (Value::Text(given), Some(Value::Int(_) | Value::Real(_))) => {
                            Err(Error::Input(format!(
                                "{} takes a number for `{name}` (default {}), not `{given}`",
                                query.name,
                                default.unwrap_or_default()
                            )))
                        }
                        _ => Ok(p.value.clone()),
                    };
                }
                default.map(parse_value).ok_or_else(|| {
                    Error::Input(format!(
                        "{} needs a value for `{name}`: add --param {name}=VALUE",
                        query.name
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let result = db
            .query(&statement.sql, &values)
            .map_err(|message| Error::Sql {
                at: format!("{}:{}", query.name, statement.line),
                message: message.trim().to_string(),
            })?;
        last = Some(result);
    }
    last.ok_or_else(|| Error::Input(format!("{} holds no SQL statement", query.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse_as_the_values_they_look_like() {
        let p: Param = "window_ms=5".parse().unwrap();
        assert_eq!(
            p,
            Param {
                name: "window_ms".into(),
                value: Value::Int(5)
            }
        );
        let p: Param = ":x=0.5".parse().unwrap();
        assert_eq!(p.value, Value::Real(0.5));
        let p: Param = "name=idle task".parse().unwrap();
        assert_eq!(p.value, Value::Text("idle task".into()));
        assert!("novalue"
            .parse::<Param>()
            .unwrap_err()
            .contains("NAME=VALUE"));
        assert!("a b=1".parse::<Param>().is_err());
    }
}
