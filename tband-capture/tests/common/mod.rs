//! What the tests and the bench share: a pseudo-terminal to stand for a
//! serial port.

use std::ffi::CStr;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A pseudo-terminal in raw mode: its master side, and its slave's path.
pub fn raw_pty() -> (File, OwnedFd, String) {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills in two descriptors, which are owned from here on;
    // the name and the settings may be null.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0);
    // SAFETY: both descriptors were just opened and nothing else owns them.
    let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // SAFETY: a termios filled in by tcgetattr, made raw, set back on the
    // same open descriptor.
    unsafe {
        let mut settings = std::mem::zeroed::<libc::termios>();
        assert_eq!(libc::tcgetattr(slave.as_raw_fd(), &mut settings), 0);
        libc::cfmakeraw(&mut settings);
        assert_eq!(
            libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &settings),
            0
        );
    }
    // SAFETY: ttyname returns a static buffer, copied before the next call.
    let name = unsafe { CStr::from_ptr(libc::ttyname(slave.as_raw_fd())) };
    (master, slave, name.to_str().unwrap().to_string())
}
