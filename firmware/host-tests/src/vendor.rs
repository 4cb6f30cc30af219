//! Builds of the FreeRTOS example traced by a vendor's recorder, found
//! through environment variables: its sources in a folder of
//! `TBAND_VENDOR_TRACERS`, the kernel in `FREERTOS_KERNEL_PATH`, and
//! `arm-none-eabi-gcc` and `qemu-system-arm` installed. Without any of
//! them a test skips with a message, or fails when
//! `TBAND_REQUIRE_VENDOR_TRACERS=1`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder `sub` of `variable`'s folder, if it holds `file`.
fn folder(variable: &str, sub: &str, file: &str) -> Result<PathBuf, String> {
    let base = std::env::var_os(variable).ok_or(format!("{variable} is not set"))?;
    let path = PathBuf::from(base).join(sub);
    if path.join(file).is_file() {
        Ok(path)
    } else {
        Err(format!("{} holds no {file}", path.display()))
    }
}

/// Whether `program --version` runs, or why not.
pub fn tool(program: &str) -> Result<(), String> {
    match Command::new(program).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(format!("{program} is not installed")),
    }
}

/// The recorder's sources (`sub` of `TBAND_VENDOR_TRACERS`, holding
/// `file`) and the kernel's, or `None` after saying why the test skips.
pub fn sources(sub: &str, file: &str) -> Option<(PathBuf, PathBuf)> {
    let found = folder("TBAND_VENDOR_TRACERS", sub, file).and_then(|recorder| {
        let kernel = folder("FREERTOS_KERNEL_PATH", "", "tasks.c")?;
        tool("arm-none-eabi-gcc")?;
        tool("qemu-system-arm")?;
        Ok((recorder, kernel))
    });
    match found {
        Ok(found) => Some(found),
        Err(why) => {
            assert!(
                std::env::var("TBAND_REQUIRE_VENDOR_TRACERS").as_deref() != Ok("1"),
                "TBAND_REQUIRE_VENDOR_TRACERS=1 but {why}"
            );
            println!("skipped: {why}");
            None
        }
    }
}

/// A folder of its own for a build, under the target folder (never the
/// folder cargo builds the test in, whose lock it holds).
pub fn build_dir(name: &str) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target"))
        .join(name)
}
