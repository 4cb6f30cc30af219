//! The Perfetto UI address `--serve` prints: the UI, the trace's URL when
//! the file is served (the UI's open-from-URL route; without it the UI
//! opens the trace trace_processor holds), and the startup commands that
//! define tband's views and show the CPU load, so the reports are there
//! with nothing installed.

use crate::extension::{self, REPORTS};
use crate::serve::percent_encode;

/// The address of the UI at `ui` that opens the trace at `trace_url`, or
/// the one trace_processor holds.
pub fn ui_link(ui: &str, trace_url: Option<&str>) -> String {
    let commands = extension::startup_commands(&REPORTS[0]).to_string();
    let trace = trace_url.map_or_else(String::new, |url| format!("url={}&", query_value(url)));
    format!(
        "{}/#!/?{trace}startupCommands={}",
        ui.trim_end_matches('/'),
        query_value(&commands)
    )
}

/// `value` escaped for the query of the UI's route, which reads `+` as a
/// space: every space is one `+` (shorter than `%20`), a literal `+` was
/// escaped before.
fn query_value(value: &str) -> String {
    percent_encode(value).replace("%20", "+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_carries_the_trace_url_and_the_commands() {
        let link = ui_link(
            "https://ui.perfetto.dev/",
            Some("http://127.0.0.1:9001/a b.pftrace"),
        );
        let rest = link
            .strip_prefix("https://ui.perfetto.dev/#!/?url=http%3A%2F%2F127.0.0.1%3A9001%2Fa+b.pftrace&startupCommands=%5B%7B%22")
            .unwrap_or_else(|| panic!("{link}"));
        assert!(!rest.contains(['&', '#', ' ', '"', '\n']), "{rest}");
        let without = ui_link("http://127.0.0.1:10000", None);
        assert!(
            without.starts_with("http://127.0.0.1:10000/#!/?startupCommands=%5B"),
            "{without}"
        );
    }

    #[test]
    fn a_plus_in_a_value_stays_a_plus() {
        assert_eq!(query_value("a+b c%20"), "a%2Bb+c%2520");
    }
}
