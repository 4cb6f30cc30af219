//! A terminal timeline of a trace model: rows, level-of-detail summaries,
//! drawing and key handling, all testable without a terminal.

pub mod app;
pub mod cli;
pub mod details;
pub mod indices;
pub mod line;
pub mod load;
pub mod render;
pub mod rows;
pub mod summary;
pub mod time;
