//! Traces as SQL tables: the trace model loaded into SQLite or DuckDB with
//! one schema, `.sql` reports run on it, results printed for people and CI.

pub mod cli;
pub mod diff;
pub mod engine;
pub mod error;
pub mod export;
#[cfg(any(feature = "parquet", feature = "duckdb-engine"))]
pub mod fleet;
pub mod output;
pub mod reports;
pub mod rows;
pub mod run;
pub mod schema;
pub mod sql;
pub mod tables;
pub mod views;

pub use engine::{Database, Engine, QueryResult, Value};
pub use error::Error;
