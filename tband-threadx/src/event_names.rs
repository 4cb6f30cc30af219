//! Names and information-word labels of the event ids ThreadX, FileX and
//! NetX Duo write into a trace buffer (ids and macro names from their API
//! headers; labels describe the four information words I1..I4).

/// What one event id means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventInfo {
    pub id: u32,
    /// The macro name from the ThreadX, FileX or NetX Duo header.
    pub name: &'static str,
    /// What I1..I4 hold; empty where the event leaves the word unused.
    pub fields: [&'static str; 4],
}

/// First id reserved for application events (`tx_trace_user_event_insert`).
pub const USER_EVENT_FIRST: u32 = 4096;
/// Last id available to application events.
pub const USER_EVENT_LAST: u32 = 65535;

/// Which software component an event id belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventFamily {
    ThreadX,
    FileX,
    NetX,
    UsbX,
    User,
    /// 0, ids in reserved ranges without a meaning, and ids above 65535.
    Invalid,
}

pub fn family(id: u32) -> EventFamily {
    match id {
        1..=199 => EventFamily::ThreadX,
        200..=299 => EventFamily::FileX,
        300..=599 => EventFamily::NetX,
        600..=999 => EventFamily::UsbX,
        USER_EVENT_FIRST..=USER_EVENT_LAST => EventFamily::User,
        _ => EventFamily::Invalid,
    }
}

/// The table entry for `id`, if the id is a known ThreadX, FileX or NetX event.
pub fn event_info(id: u32) -> Option<&'static EventInfo> {
    EVENTS
        .binary_search_by_key(&id, |info| info.id)
        .ok()
        .and_then(|index| EVENTS.get(index))
}

/// Whether `name` is the name of some event id (see [`event_name`]).
pub fn is_event_name(name: &str) -> bool {
    matches!(name, "user" | "usbx" | "unknown") || EVENTS.iter().any(|info| info.name == name)
}

/// Display name of an event id: the macro name, `user` for application
/// events, `usbx` for USBX events (their names are not in the table), or
/// `None` when the id means nothing known.
pub fn event_name(id: u32) -> Option<&'static str> {
    match family(id) {
        EventFamily::User => Some("user"),
        EventFamily::UsbX => Some("usbx"),
        _ => event_info(id).map(|info| info.name),
    }
}

/// Sorted by id.
static EVENTS: &[EventInfo] = &[
    EventInfo {
        id: 1,
        name: "TX_TRACE_THREAD_RESUME",
        fields: [
            "thread address",
            "state the thread was in before resuming",
            "stack address of the caller",
            "address of the thread selected to run next",
        ],
    },
    EventInfo {
        id: 2,
        name: "TX_TRACE_THREAD_SUSPEND",
        fields: [
            "thread address",
            "state the thread is entering",
            "stack address of the caller",
            "address of the thread selected to run next",
        ],
    },
    EventInfo {
        id: 3,
        name: "TX_TRACE_ISR_ENTER",
        fields: [
            "stack address of the caller",
            "ISR identifier passed by the port/application",
            "system state value",
            "preemption-disable counter",
        ],
    },
    EventInfo {
        id: 4,
        name: "TX_TRACE_ISR_EXIT",
        fields: [
            "stack address of the caller",
            "ISR identifier passed by the port/application",
            "system state value",
            "preemption-disable counter",
        ],
    },
    EventInfo {
        id: 5,
        name: "TX_TRACE_TIME_SLICE",
        fields: [
            "address of the thread selected to run next",
            "system state value",
            "preemption-disable counter",
            "stack address of the caller",
        ],
    },
    EventInfo {
        id: 6,
        name: "TX_TRACE_RUNNING",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 10,
        name: "TX_TRACE_BLOCK_ALLOCATE",
        fields: [
            "pool address",
            "address of the block obtained",
            "wait option",
            "blocks still available",
        ],
    },
    EventInfo {
        id: 11,
        name: "TX_TRACE_BLOCK_POOL_CREATE",
        fields: [
            "pool address",
            "start address of the pool memory",
            "number of blocks in the pool",
            "block size in bytes",
        ],
    },
    EventInfo {
        id: 12,
        name: "TX_TRACE_BLOCK_POOL_DELETE",
        fields: ["pool address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 13,
        name: "TX_TRACE_BLOCK_POOL_INFO_GET",
        fields: ["pool address", "", "", ""],
    },
    EventInfo {
        id: 14,
        name: "TX_TRACE_BLOCK_POOL_PERFORMANCE_INFO_GET",
        fields: ["pool address", "", "", ""],
    },
    EventInfo {
        id: 15,
        name: "TX_TRACE_BLOCK_POOL__PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 16,
        name: "TX_TRACE_BLOCK_POOL_PRIORITIZE",
        fields: [
            "pool address",
            "number of suspended threads",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 17,
        name: "TX_TRACE_BLOCK_RELEASE",
        fields: [
            "pool address",
            "address of the memory released",
            "number of suspended threads",
            "stack address of the caller",
        ],
    },
    EventInfo {
        id: 20,
        name: "TX_TRACE_BYTE_ALLOCATE",
        fields: [
            "pool address",
            "address of the memory obtained",
            "number of bytes requested",
            "wait option",
        ],
    },
    EventInfo {
        id: 21,
        name: "TX_TRACE_BYTE_POOL_CREATE",
        fields: [
            "pool address",
            "start address of the pool memory",
            "pool size in bytes",
            "stack address of the caller",
        ],
    },
    EventInfo {
        id: 22,
        name: "TX_TRACE_BYTE_POOL_DELETE",
        fields: ["pool address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 23,
        name: "TX_TRACE_BYTE_POOL_INFO_GET",
        fields: ["pool address", "", "", ""],
    },
    EventInfo {
        id: 24,
        name: "TX_TRACE_BYTE_POOL_PERFORMANCE_INFO_GET",
        fields: ["pool address", "", "", ""],
    },
    EventInfo {
        id: 25,
        name: "TX_TRACE_BYTE_POOL__PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 26,
        name: "TX_TRACE_BYTE_POOL_PRIORITIZE",
        fields: [
            "pool address",
            "number of suspended threads",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 27,
        name: "TX_TRACE_BYTE_RELEASE",
        fields: [
            "pool address",
            "address of the memory released",
            "number of suspended threads",
            "bytes still available in the pool",
        ],
    },
    EventInfo {
        id: 30,
        name: "TX_TRACE_EVENT_FLAGS_CREATE",
        fields: [
            "event flags group address",
            "stack address of the caller",
            "",
            "",
        ],
    },
    EventInfo {
        id: 31,
        name: "TX_TRACE_EVENT_FLAGS_DELETE",
        fields: [
            "event flags group address",
            "stack address of the caller",
            "",
            "",
        ],
    },
    EventInfo {
        id: 32,
        name: "TX_TRACE_EVENT_FLAGS_GET",
        fields: [
            "event flags group address",
            "requested flag bits",
            "flag bits currently set in the group",
            "get option",
        ],
    },
    EventInfo {
        id: 33,
        name: "TX_TRACE_EVENT_FLAGS_INFO_GET",
        fields: ["event flags group address", "", "", ""],
    },
    EventInfo {
        id: 34,
        name: "TX_TRACE_EVENT_FLAGS_PERFORMANCE_INFO_GET",
        fields: ["event flags group address", "", "", ""],
    },
    EventInfo {
        id: 35,
        name: "TX_TRACE_EVENT_FLAGS__PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 36,
        name: "TX_TRACE_EVENT_FLAGS_SET",
        fields: [
            "event flags group address",
            "flag bits to set",
            "set option",
            "number of suspended threads",
        ],
    },
    EventInfo {
        id: 37,
        name: "TX_TRACE_EVENT_FLAGS_SET_NOTIFY",
        fields: ["event flags group address", "", "", ""],
    },
    EventInfo {
        id: 40,
        name: "TX_TRACE_INTERRUPT_CONTROL",
        fields: ["posture requested", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 50,
        name: "TX_TRACE_MUTEX_CREATE",
        fields: [
            "mutex address",
            "priority-inheritance flag",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 51,
        name: "TX_TRACE_MUTEX_DELETE",
        fields: ["mutex address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 52,
        name: "TX_TRACE_MUTEX_GET",
        fields: [
            "mutex address",
            "wait option",
            "address of the owning thread",
            "ownership count",
        ],
    },
    EventInfo {
        id: 53,
        name: "TX_TRACE_MUTEX_INFO_GET",
        fields: ["mutex address", "", "", ""],
    },
    EventInfo {
        id: 54,
        name: "TX_TRACE_MUTEX_PERFORMANCE_INFO_GET",
        fields: ["mutex address", "", "", ""],
    },
    EventInfo {
        id: 55,
        name: "TX_TRACE_MUTEX_PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 56,
        name: "TX_TRACE_MUTEX_PRIORITIZE",
        fields: [
            "mutex address",
            "number of suspended threads",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 57,
        name: "TX_TRACE_MUTEX_PUT",
        fields: [
            "mutex address",
            "address of the owning thread",
            "ownership count",
            "stack address of the caller",
        ],
    },
    EventInfo {
        id: 60,
        name: "TX_TRACE_QUEUE_CREATE",
        fields: [
            "queue address",
            "message size in 32-bit words",
            "start address of the queue storage",
            "queue storage size in bytes",
        ],
    },
    EventInfo {
        id: 61,
        name: "TX_TRACE_QUEUE_DELETE",
        fields: ["queue address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 62,
        name: "TX_TRACE_QUEUE_FLUSH",
        fields: ["queue address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 63,
        name: "TX_TRACE_QUEUE_FRONT_SEND",
        fields: [
            "queue address",
            "address of the message being sent",
            "wait option",
            "messages currently in the queue",
        ],
    },
    EventInfo {
        id: 64,
        name: "TX_TRACE_QUEUE_INFO_GET",
        fields: ["queue address", "", "", ""],
    },
    EventInfo {
        id: 65,
        name: "TX_TRACE_QUEUE_PERFORMANCE_INFO_GET",
        fields: ["queue address", "", "", ""],
    },
    EventInfo {
        id: 66,
        name: "TX_TRACE_QUEUE_PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 67,
        name: "TX_TRACE_QUEUE_PRIORITIZE",
        fields: [
            "queue address",
            "number of suspended threads",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 68,
        name: "TX_TRACE_QUEUE_RECEIVE",
        fields: [
            "queue address",
            "address of the receive buffer",
            "wait option",
            "messages currently in the queue",
        ],
    },
    EventInfo {
        id: 69,
        name: "TX_TRACE_QUEUE_SEND",
        fields: [
            "queue address",
            "address of the message being sent",
            "wait option",
            "messages currently in the queue",
        ],
    },
    EventInfo {
        id: 70,
        name: "TX_TRACE_QUEUE_SEND_NOTIFY",
        fields: ["queue address", "", "", ""],
    },
    EventInfo {
        id: 80,
        name: "TX_TRACE_SEMAPHORE_CEILING_PUT",
        fields: [
            "semaphore address",
            "semaphore count at the time of the call",
            "number of suspended threads",
            "ceiling value",
        ],
    },
    EventInfo {
        id: 81,
        name: "TX_TRACE_SEMAPHORE_CREATE",
        fields: [
            "semaphore address",
            "initial semaphore count",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 82,
        name: "TX_TRACE_SEMAPHORE_DELETE",
        fields: ["semaphore address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 83,
        name: "TX_TRACE_SEMAPHORE_GET",
        fields: [
            "semaphore address",
            "wait option",
            "semaphore count at the time of the call",
            "stack address of the caller",
        ],
    },
    EventInfo {
        id: 84,
        name: "TX_TRACE_SEMAPHORE_INFO_GET",
        fields: ["semaphore address", "", "", ""],
    },
    EventInfo {
        id: 85,
        name: "TX_TRACE_SEMAPHORE_PERFORMANCE_INFO_GET",
        fields: ["semaphore address", "", "", ""],
    },
    EventInfo {
        id: 86,
        name: "TX_TRACE_SEMAPHORE__PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 87,
        name: "TX_TRACE_SEMAPHORE_PRIORITIZE",
        fields: [
            "semaphore address",
            "number of suspended threads",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 88,
        name: "TX_TRACE_SEMAPHORE_PUT",
        fields: [
            "semaphore address",
            "semaphore count at the time of the call",
            "number of suspended threads",
            "stack address of the caller",
        ],
    },
    EventInfo {
        id: 89,
        name: "TX_TRACE_SEMAPHORE_PUT_NOTIFY",
        fields: ["semaphore address", "", "", ""],
    },
    EventInfo {
        id: 100,
        name: "TX_TRACE_THREAD_CREATE",
        fields: [
            "thread address",
            "thread priority",
            "start address of the new thread's stack",
            "stack size in bytes",
        ],
    },
    EventInfo {
        id: 101,
        name: "TX_TRACE_THREAD_DELETE",
        fields: ["thread address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 102,
        name: "TX_TRACE_THREAD_ENTRY_EXIT_NOTIFY",
        fields: [
            "thread address",
            "thread state value",
            "written as 0 by the kernel",
            "",
        ],
    },
    EventInfo {
        id: 103,
        name: "TX_TRACE_THREAD_IDENTIFY",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 104,
        name: "TX_TRACE_THREAD_INFO_GET",
        fields: ["thread address", "thread state value", "", ""],
    },
    EventInfo {
        id: 105,
        name: "TX_TRACE_THREAD_PERFORMANCE_INFO_GET",
        fields: ["thread address", "thread state value", "", ""],
    },
    EventInfo {
        id: 106,
        name: "TX_TRACE_THREAD_PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 107,
        name: "TX_TRACE_THREAD_PREEMPTION_CHANGE",
        fields: [
            "thread address",
            "new preemption-threshold",
            "previous preemption-threshold",
            "thread state value",
        ],
    },
    EventInfo {
        id: 108,
        name: "TX_TRACE_THREAD_PRIORITY_CHANGE",
        fields: [
            "thread address",
            "new priority",
            "previous priority",
            "thread state value",
        ],
    },
    EventInfo {
        id: 109,
        name: "TX_TRACE_THREAD_RELINQUISH",
        fields: [
            "stack address of the caller",
            "address of the thread selected to run next",
            "",
            "",
        ],
    },
    EventInfo {
        id: 110,
        name: "TX_TRACE_THREAD_RESET",
        fields: ["thread address", "thread state value", "", ""],
    },
    EventInfo {
        id: 111,
        name: "TX_TRACE_THREAD_RESUME_API",
        fields: [
            "thread address",
            "thread state value",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 112,
        name: "TX_TRACE_THREAD_SLEEP",
        fields: [
            "ticks to sleep",
            "thread state value",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 113,
        name: "TX_TRACE_THREAD_STACK_ERROR_NOTIFY",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 114,
        name: "TX_TRACE_THREAD_SUSPEND_API",
        fields: [
            "thread address",
            "thread state value",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 115,
        name: "TX_TRACE_THREAD_TERMINATE",
        fields: [
            "thread address",
            "thread state value",
            "stack address of the caller",
            "",
        ],
    },
    EventInfo {
        id: 116,
        name: "TX_TRACE_THREAD_TIME_SLICE_CHANGE",
        fields: [
            "thread address",
            "new time-slice",
            "previous time-slice",
            "",
        ],
    },
    EventInfo {
        id: 117,
        name: "TX_TRACE_THREAD_WAIT_ABORT",
        fields: [
            "thread address",
            "thread state value",
            "written as 0 by the kernel",
            "",
        ],
    },
    EventInfo {
        id: 120,
        name: "TX_TRACE_TIME_GET",
        fields: ["tick count returned", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 121,
        name: "TX_TRACE_TIME_SET",
        fields: ["tick count being set", "", "", ""],
    },
    EventInfo {
        id: 122,
        name: "TX_TRACE_TIMER_ACTIVATE",
        fields: ["timer address", "", "", ""],
    },
    EventInfo {
        id: 123,
        name: "TX_TRACE_TIMER_CHANGE",
        fields: [
            "timer address",
            "initial expiration in ticks",
            "reschedule ticks",
            "",
        ],
    },
    EventInfo {
        id: 124,
        name: "TX_TRACE_TIMER_CREATE",
        fields: [
            "timer address",
            "initial expiration in ticks",
            "reschedule ticks",
            "auto-activate flag",
        ],
    },
    EventInfo {
        id: 125,
        name: "TX_TRACE_TIMER_DEACTIVATE",
        fields: ["timer address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 126,
        name: "TX_TRACE_TIMER_DELETE",
        fields: ["timer address", "", "", ""],
    },
    EventInfo {
        id: 127,
        name: "TX_TRACE_TIMER_INFO_GET",
        fields: ["timer address", "stack address of the caller", "", ""],
    },
    EventInfo {
        id: 128,
        name: "TX_TRACE_TIMER_PERFORMANCE_INFO_GET",
        fields: ["timer address", "", "", ""],
    },
    EventInfo {
        id: 129,
        name: "TX_TRACE_TIMER_PERFORMANCE_SYSTEM_INFO_GET",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 201,
        name: "FX_TRACE_INTERNAL_LOG_SECTOR_CACHE_MISS",
        fields: ["media pointer", "sector", "total misses", "cache size"],
    },
    EventInfo {
        id: 202,
        name: "FX_TRACE_INTERNAL_DIR_CACHE_MISS",
        fields: ["media pointer", "total misses", "", ""],
    },
    EventInfo {
        id: 203,
        name: "FX_TRACE_INTERNAL_MEDIA_FLUSH",
        fields: ["media pointer", "dirty sectors", "", ""],
    },
    EventInfo {
        id: 204,
        name: "FX_TRACE_INTERNAL_DIR_ENTRY_READ",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 205,
        name: "FX_TRACE_INTERNAL_DIR_ENTRY_WRITE",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 206,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_READ",
        fields: ["media pointer", "sector", "number of sectors", "buffer"],
    },
    EventInfo {
        id: 207,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_WRITE",
        fields: ["media pointer", "sector", "number of sectors", "buffer"],
    },
    EventInfo {
        id: 208,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_FLUSH",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 209,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_ABORT",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 210,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_INIT",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 211,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_BOOT_READ",
        fields: ["media pointer", "buffer", "", ""],
    },
    EventInfo {
        id: 212,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_RELEASE_SECTORS",
        fields: ["media pointer", "sector", "number of sectors", ""],
    },
    EventInfo {
        id: 213,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_BOOT_WRITE",
        fields: ["media pointer", "buffer", "", ""],
    },
    EventInfo {
        id: 214,
        name: "FX_TRACE_INTERNAL_IO_DRIVER_UNINIT",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 220,
        name: "FX_TRACE_DIRECTORY_ATTRIBUTES_READ",
        fields: ["media pointer", "directory name", "attributes", ""],
    },
    EventInfo {
        id: 221,
        name: "FX_TRACE_DIRECTORY_ATTRIBUTES_SET",
        fields: ["media pointer", "directory name", "attributes", ""],
    },
    EventInfo {
        id: 222,
        name: "FX_TRACE_DIRECTORY_CREATE",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 223,
        name: "FX_TRACE_DIRECTORY_DEFAULT_GET",
        fields: ["media pointer", "return path name", "", ""],
    },
    EventInfo {
        id: 224,
        name: "FX_TRACE_DIRECTORY_DEFAULT_SET",
        fields: ["media pointer", "new path name", "", ""],
    },
    EventInfo {
        id: 225,
        name: "FX_TRACE_DIRECTORY_DELETE",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 226,
        name: "FX_TRACE_DIRECTORY_FIRST_ENTRY_FIND",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 227,
        name: "FX_TRACE_DIRECTORY_FIRST_FULL_ENTRY_FIND",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 228,
        name: "FX_TRACE_DIRECTORY_INFORMATION_GET",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 229,
        name: "FX_TRACE_DIRECTORY_LOCAL_PATH_CLEAR",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 230,
        name: "FX_TRACE_DIRECTORY_LOCAL_PATH_GET",
        fields: ["media pointer", "return path name", "", ""],
    },
    EventInfo {
        id: 231,
        name: "FX_TRACE_DIRECTORY_LOCAL_PATH_RESTORE",
        fields: ["media pointer", "local path pointer", "", ""],
    },
    EventInfo {
        id: 232,
        name: "FX_TRACE_DIRECTORY_LOCAL_PATH_SET",
        fields: ["media pointer", "local path pointer", "new path name", ""],
    },
    EventInfo {
        id: 233,
        name: "FX_TRACE_DIRECTORY_LONG_NAME_GET",
        fields: ["media pointer", "short file name", "long file name", ""],
    },
    EventInfo {
        id: 234,
        name: "FX_TRACE_DIRECTORY_NAME_TEST",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 235,
        name: "FX_TRACE_DIRECTORY_NEXT_ENTRY_FIND",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 236,
        name: "FX_TRACE_DIRECTORY_NEXT_FULL_ENTRY_FIND",
        fields: ["media pointer", "directory name", "", ""],
    },
    EventInfo {
        id: 237,
        name: "FX_TRACE_DIRECTORY_RENAME",
        fields: [
            "media pointer",
            "old directory name",
            "new directory name",
            "",
        ],
    },
    EventInfo {
        id: 238,
        name: "FX_TRACE_DIRECTORY_SHORT_NAME_GET",
        fields: ["media pointer", "long file name", "short file name", ""],
    },
    EventInfo {
        id: 239,
        name: "FX_TRACE_FILE_ALLOCATE",
        fields: ["file pointer", "size", "previous size", "new size"],
    },
    EventInfo {
        id: 240,
        name: "FX_TRACE_FILE_ATTRIBUTES_READ",
        fields: ["media pointer", "file name", "attributes", ""],
    },
    EventInfo {
        id: 241,
        name: "FX_TRACE_FILE_ATTRIBUTES_SET",
        fields: ["media pointer", "file name", "attributes", ""],
    },
    EventInfo {
        id: 242,
        name: "FX_TRACE_FILE_BEST_EFFORT_ALLOCATE",
        fields: ["file pointer", "size", "actual size allocated", ""],
    },
    EventInfo {
        id: 243,
        name: "FX_TRACE_FILE_CLOSE",
        fields: ["file pointer", "", "file size", ""],
    },
    EventInfo {
        id: 244,
        name: "FX_TRACE_FILE_CREATE",
        fields: ["media pointer", "file name", "", ""],
    },
    EventInfo {
        id: 245,
        name: "FX_TRACE_FILE_DATE_TIME_SET",
        fields: ["media pointer", "file name", "year", "month"],
    },
    EventInfo {
        id: 246,
        name: "FX_TRACE_FILE_DELETE",
        fields: ["media pointer", "file name", "", ""],
    },
    EventInfo {
        id: 247,
        name: "FX_TRACE_FILE_OPEN",
        fields: ["media pointer", "file pointer", "file name", "open type"],
    },
    EventInfo {
        id: 248,
        name: "FX_TRACE_FILE_READ",
        fields: [
            "file pointer",
            "buffer pointer",
            "request size",
            "actual size",
        ],
    },
    EventInfo {
        id: 249,
        name: "FX_TRACE_FILE_RELATIVE_SEEK",
        fields: [
            "file pointer",
            "byte offset",
            "seek from",
            "previous offset",
        ],
    },
    EventInfo {
        id: 250,
        name: "FX_TRACE_FILE_RENAME",
        fields: ["media pointer", "old file name", "new file name", ""],
    },
    EventInfo {
        id: 251,
        name: "FX_TRACE_FILE_SEEK",
        fields: ["file pointer", "byte offset", "previous offset", ""],
    },
    EventInfo {
        id: 252,
        name: "FX_TRACE_FILE_TRUNCATE",
        fields: ["file pointer", "size", "previous size", "new size"],
    },
    EventInfo {
        id: 253,
        name: "FX_TRACE_FILE_TRUNCATE_RELEASE",
        fields: ["file pointer", "size", "previous size", "new size"],
    },
    EventInfo {
        id: 254,
        name: "FX_TRACE_FILE_WRITE",
        fields: ["file pointer", "buffer pointer", "size", "bytes written"],
    },
    EventInfo {
        id: 255,
        name: "FX_TRACE_MEDIA_ABORT",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 256,
        name: "FX_TRACE_MEDIA_CACHE_INVALIDATE",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 257,
        name: "FX_TRACE_MEDIA_CHECK",
        fields: [
            "media pointer",
            "scratch memory",
            "scratch memory size",
            "errors",
        ],
    },
    EventInfo {
        id: 258,
        name: "FX_TRACE_MEDIA_CLOSE",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 259,
        name: "FX_TRACE_MEDIA_FLUSH",
        fields: ["media pointer", "", "", ""],
    },
    EventInfo {
        id: 260,
        name: "FX_TRACE_MEDIA_FORMAT",
        fields: [
            "media pointer",
            "root entries",
            "sectors",
            "sectors per cluster",
        ],
    },
    EventInfo {
        id: 261,
        name: "FX_TRACE_MEDIA_OPEN",
        fields: [
            "media pointer",
            "media driver",
            "memory pointer",
            "memory size",
        ],
    },
    EventInfo {
        id: 262,
        name: "FX_TRACE_MEDIA_READ",
        fields: [
            "media pointer",
            "logical sector",
            "buffer pointer",
            "bytes read",
        ],
    },
    EventInfo {
        id: 263,
        name: "FX_TRACE_MEDIA_SPACE_AVAILABLE",
        fields: [
            "media pointer",
            "available bytes pointer",
            "available clusters",
            "",
        ],
    },
    EventInfo {
        id: 264,
        name: "FX_TRACE_MEDIA_VOLUME_GET",
        fields: ["media pointer", "volume name", "volume source", ""],
    },
    EventInfo {
        id: 265,
        name: "FX_TRACE_MEDIA_VOLUME_SET",
        fields: ["media pointer", "volume name", "", ""],
    },
    EventInfo {
        id: 266,
        name: "FX_TRACE_MEDIA_WRITE",
        fields: [
            "media pointer",
            "logical sector",
            "buffer pointer",
            "byte written",
        ],
    },
    EventInfo {
        id: 267,
        name: "FX_TRACE_SYSTEM_DATE_GET",
        fields: ["year", "month", "day", ""],
    },
    EventInfo {
        id: 268,
        name: "FX_TRACE_SYSTEM_DATE_SET",
        fields: ["year", "month", "day", ""],
    },
    EventInfo {
        id: 269,
        name: "FX_TRACE_SYSTEM_INITIALIZE",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 270,
        name: "FX_TRACE_SYSTEM_TIME_GET",
        fields: ["hour", "minute", "second", ""],
    },
    EventInfo {
        id: 271,
        name: "FX_TRACE_SYSTEM_TIME_SET",
        fields: ["hour", "minute", "second", ""],
    },
    EventInfo {
        id: 272,
        name: "FX_TRACE_UNICODE_DIRECTORY_CREATE",
        fields: [
            "media pointer",
            "source unicode",
            "source length",
            "short name",
        ],
    },
    EventInfo {
        id: 273,
        name: "FX_TRACE_UNICODE_DIRECTORY_RENAME",
        fields: [
            "media pointer",
            "source unicode",
            "source length",
            "new name",
        ],
    },
    EventInfo {
        id: 274,
        name: "FX_TRACE_UNICODE_FILE_CREATE",
        fields: [
            "media pointer",
            "source unicode",
            "source length",
            "short name",
        ],
    },
    EventInfo {
        id: 275,
        name: "FX_TRACE_UNICODE_FILE_RENAME",
        fields: [
            "media pointer",
            "source unicode",
            "source length",
            "new name",
        ],
    },
    EventInfo {
        id: 276,
        name: "FX_TRACE_UNICODE_LENGTH_GET",
        fields: ["unicode name", "length", "", ""],
    },
    EventInfo {
        id: 277,
        name: "FX_TRACE_UNICODE_NAME_GET",
        fields: [
            "media pointer",
            "source short name",
            "unicode name",
            "length",
        ],
    },
    EventInfo {
        id: 278,
        name: "FX_TRACE_UNICODE_SHORT_NAME_GET",
        fields: [
            "media pointer",
            "source unicode name",
            "length",
            "short name",
        ],
    },
    EventInfo {
        id: 300,
        name: "NX_TRACE_INTERNAL_ARP_REQUEST_RECEIVE",
        fields: ["IP pointer", "source IP address", "packet pointer", ""],
    },
    EventInfo {
        id: 301,
        name: "NX_TRACE_INTERNAL_ARP_REQUEST_SEND",
        fields: ["IP pointer", "destination IP address", "packet pointer", ""],
    },
    EventInfo {
        id: 302,
        name: "NX_TRACE_INTERNAL_ARP_RESPONSE_RECEIVE",
        fields: ["IP pointer", "source IP address", "packet pointer", ""],
    },
    EventInfo {
        id: 303,
        name: "NX_TRACE_INTERNAL_ARP_RESPONSE_SEND",
        fields: ["IP pointer", "destination IP address", "packet pointer", ""],
    },
    EventInfo {
        id: 304,
        name: "NX_TRACE_INTERNAL_ICMP_RECEIVE",
        fields: [
            "IP pointer",
            "source IP address",
            "packet pointer",
            "header word 0",
        ],
    },
    EventInfo {
        id: 305,
        name: "NX_TRACE_INTERNAL_ICMP_SEND",
        fields: [
            "IP pointer",
            "destination IP address",
            "packet pointer",
            "header 0",
        ],
    },
    EventInfo {
        id: 306,
        name: "NX_TRACE_INTERNAL_IGMP_RECEIVE",
        fields: [
            "IP pointer",
            "source IP address",
            "packet pointer",
            "header word 0",
        ],
    },
    EventInfo {
        id: 308,
        name: "NX_TRACE_INTERNAL_IP_RECEIVE",
        fields: [
            "IP pointer",
            "source IP address",
            "packet pointer",
            "packet length",
        ],
    },
    EventInfo {
        id: 309,
        name: "NX_TRACE_INTERNAL_IP_SEND",
        fields: [
            "IP pointer",
            "destination IP address",
            "packet pointer",
            "length",
        ],
    },
    EventInfo {
        id: 310,
        name: "NX_TRACE_INTERNAL_TCP_DATA_RECEIVE",
        fields: [
            "IP pointer",
            "source IP address",
            "packet pointer",
            "sequence",
        ],
    },
    EventInfo {
        id: 311,
        name: "NX_TRACE_INTERNAL_TCP_DATA_SEND",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 312,
        name: "NX_TRACE_INTERNAL_TCP_FIN_RECEIVE",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 313,
        name: "NX_TRACE_INTERNAL_TCP_FIN_SEND",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 314,
        name: "NX_TRACE_INTERNAL_TCP_RESET_RECEIVE",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 315,
        name: "NX_TRACE_INTERNAL_TCP_RESET_SEND",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 316,
        name: "NX_TRACE_INTERNAL_TCP_SYN_RECEIVE",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 317,
        name: "NX_TRACE_INTERNAL_TCP_SYN_SEND",
        fields: ["IP pointer", "socket pointer", "packet pointer", "sequence"],
    },
    EventInfo {
        id: 318,
        name: "NX_TRACE_INTERNAL_UDP_RECEIVE",
        fields: [
            "IP pointer",
            "socket pointer",
            "packet pointer",
            "header word 0",
        ],
    },
    EventInfo {
        id: 319,
        name: "NX_TRACE_INTERNAL_UDP_SEND",
        fields: ["IP pointer", "socket pointer", "packet pointer", "header 0"],
    },
    EventInfo {
        id: 320,
        name: "NX_TRACE_INTERNAL_RARP_RECEIVE",
        fields: [
            "IP pointer",
            "target IP address",
            "packet pointer",
            "header word 1",
        ],
    },
    EventInfo {
        id: 321,
        name: "NX_TRACE_INTERNAL_RARP_SEND",
        fields: [
            "IP pointer",
            "target IP address",
            "packet pointer",
            "header word 1",
        ],
    },
    EventInfo {
        id: 322,
        name: "NX_TRACE_INTERNAL_TCP_RETRY",
        fields: [
            "IP pointer",
            "socket pointer",
            "packet pointer",
            "number of retries",
        ],
    },
    EventInfo {
        id: 323,
        name: "NX_TRACE_INTERNAL_TCP_STATE_CHANGE",
        fields: [
            "IP pointer",
            "socket pointer",
            "previous state",
            "new state",
        ],
    },
    EventInfo {
        id: 324,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_PACKET_SEND",
        fields: ["IP pointer", "packet pointer", "packet size", ""],
    },
    EventInfo {
        id: 325,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_INITIALIZE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 326,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_LINK_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 327,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_LINK_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 328,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_PACKET_BROADCAST",
        fields: ["IP pointer", "packet pointer", "packet size", ""],
    },
    EventInfo {
        id: 329,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_ARP_SEND",
        fields: ["IP pointer", "packet pointer", "packet size", ""],
    },
    EventInfo {
        id: 330,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_ARP_RESPONSE_SEND",
        fields: ["IP pointer", "packet pointer", "packet size", ""],
    },
    EventInfo {
        id: 331,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_RARP_SEND",
        fields: ["IP pointer", "packet pointer", "packet size", ""],
    },
    EventInfo {
        id: 332,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_MULTICAST_JOIN",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 333,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_MULTICAST_LEAVE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 334,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_STATUS",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 335,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_SPEED",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 336,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_DUPLEX_TYPE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 337,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_ERROR_COUNT",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 338,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_RX_COUNT",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 339,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_TX_COUNT",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 340,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_GET_ALLOC_ERRORS",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 341,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_UNINITIALIZE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 342,
        name: "NX_TRACE_INTERNAL_IO_DRIVER_DEFERRED_PROCESSING",
        fields: ["IP pointer", "packet pointer", "packet size", ""],
    },
    EventInfo {
        id: 350,
        name: "NX_TRACE_ARP_DYNAMIC_ENTRIES_INVALIDATE",
        fields: ["IP pointer", "entries invalidated", "", ""],
    },
    EventInfo {
        id: 351,
        name: "NX_TRACE_ARP_DYNAMIC_ENTRY_SET",
        fields: [
            "IP pointer",
            "IP address",
            "physical high word",
            "physical low word",
        ],
    },
    EventInfo {
        id: 352,
        name: "NX_TRACE_ARP_ENABLE",
        fields: ["IP pointer", "arp cache memory", "arp cache size", ""],
    },
    EventInfo {
        id: 353,
        name: "NX_TRACE_ARP_GRATUITOUS_SEND",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 354,
        name: "NX_TRACE_ARP_HARDWARE_ADDRESS_FIND",
        fields: [
            "IP pointer",
            "IP address",
            "physical high word",
            "physical low word",
        ],
    },
    EventInfo {
        id: 355,
        name: "NX_TRACE_ARP_INFO_GET",
        fields: ["IP pointer", "arps sent", "arps received", ""],
    },
    EventInfo {
        id: 356,
        name: "NX_TRACE_ARP_IP_ADDRESS_FIND",
        fields: [
            "IP pointer",
            "IP address",
            "physical high word",
            "physical low word",
        ],
    },
    EventInfo {
        id: 357,
        name: "NX_TRACE_ARP_STATIC_ENTRIES_DELETE",
        fields: ["IP pointer", "entries deleted", "", ""],
    },
    EventInfo {
        id: 358,
        name: "NX_TRACE_ARP_STATIC_ENTRY_CREATE",
        fields: [
            "IP pointer",
            "IP address",
            "physical high word",
            "physical low word",
        ],
    },
    EventInfo {
        id: 359,
        name: "NX_TRACE_ARP_STATIC_ENTRY_DELETE",
        fields: [
            "IP pointer",
            "IP address",
            "physical high word",
            "physical low word",
        ],
    },
    EventInfo {
        id: 360,
        name: "NX_TRACE_ICMP_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 361,
        name: "NX_TRACE_ICMP_INFO_GET",
        fields: [
            "IP pointer",
            "pings sent",
            "ping responses",
            "pings received",
        ],
    },
    EventInfo {
        id: 362,
        name: "NX_TRACE_ICMP_PING",
        fields: ["IP pointer", "IP address", "data pointer", "data size"],
    },
    EventInfo {
        id: 363,
        name: "NX_TRACE_IGMP_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 364,
        name: "NX_TRACE_IGMP_INFO_GET",
        fields: [
            "IP pointer",
            "reports sent",
            "queries received",
            "groups joined",
        ],
    },
    EventInfo {
        id: 365,
        name: "NX_TRACE_IGMP_LOOPBACK_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 366,
        name: "NX_TRACE_IGMP_LOOPBACK_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 367,
        name: "NX_TRACE_IGMP_MULTICAST_JOIN",
        fields: ["IP pointer", "group address", "", ""],
    },
    EventInfo {
        id: 368,
        name: "NX_TRACE_IGMP_MULTICAST_LEAVE",
        fields: ["IP pointer", "group address", "", ""],
    },
    EventInfo {
        id: 369,
        name: "NX_TRACE_IP_ADDRESS_CHANGE_NOTIFY",
        fields: [
            "IP pointer",
            "IP address change notify",
            "additional info",
            "",
        ],
    },
    EventInfo {
        id: 370,
        name: "NX_TRACE_IP_ADDRESS_GET",
        fields: ["IP pointer", "IP address", "network mask", ""],
    },
    EventInfo {
        id: 371,
        name: "NX_TRACE_IP_ADDRESS_SET",
        fields: ["IP pointer", "IP address", "network mask", ""],
    },
    EventInfo {
        id: 372,
        name: "NX_TRACE_IP_CREATE",
        fields: ["IP pointer", "IP address", "network mask", "default pool"],
    },
    EventInfo {
        id: 373,
        name: "NX_TRACE_IP_DELETE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 374,
        name: "NX_TRACE_IP_DRIVER_DIRECT_COMMAND",
        fields: ["IP pointer", "command", "return value", ""],
    },
    EventInfo {
        id: 375,
        name: "NX_TRACE_IP_FORWARDING_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 376,
        name: "NX_TRACE_IP_FORWARDING_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 377,
        name: "NX_TRACE_IP_FRAGMENT_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 378,
        name: "NX_TRACE_IP_FRAGMENT_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 379,
        name: "NX_TRACE_IP_GATEWAY_ADDRESS_SET",
        fields: ["IP pointer", "gateway address", "", ""],
    },
    EventInfo {
        id: 380,
        name: "NX_TRACE_IP_INFO_GET",
        fields: [
            "IP pointer",
            "bytes sent",
            "bytes received",
            "packets dropped",
        ],
    },
    EventInfo {
        id: 381,
        name: "NX_TRACE_IP_RAW_PACKET_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 382,
        name: "NX_TRACE_IP_RAW_PACKET_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 383,
        name: "NX_TRACE_IP_RAW_PACKET_RECEIVE",
        fields: ["IP pointer", "packet pointer", "wait option", ""],
    },
    EventInfo {
        id: 384,
        name: "NX_TRACE_IP_RAW_PACKET_SEND",
        fields: [
            "IP pointer",
            "packet pointer",
            "destination IP",
            "type of service",
        ],
    },
    EventInfo {
        id: 385,
        name: "NX_TRACE_IP_STATUS_CHECK",
        fields: [
            "IP pointer",
            "needed status",
            "actual status",
            "wait option",
        ],
    },
    EventInfo {
        id: 386,
        name: "NX_TRACE_PACKET_ALLOCATE",
        fields: [
            "pool pointer",
            "packet pointer",
            "packet type",
            "available packets",
        ],
    },
    EventInfo {
        id: 387,
        name: "NX_TRACE_PACKET_COPY",
        fields: [
            "packet pointer",
            "new packet pointer",
            "pool pointer",
            "wait option",
        ],
    },
    EventInfo {
        id: 388,
        name: "NX_TRACE_PACKET_DATA_APPEND",
        fields: ["packet pointer", "data start", "data size", "pool pointer"],
    },
    EventInfo {
        id: 389,
        name: "NX_TRACE_PACKET_DATA_RETRIEVE",
        fields: ["packet pointer", "buffer start", "bytes copied", ""],
    },
    EventInfo {
        id: 390,
        name: "NX_TRACE_PACKET_LENGTH_GET",
        fields: ["packet pointer", "length", "", ""],
    },
    EventInfo {
        id: 391,
        name: "NX_TRACE_PACKET_POOL_CREATE",
        fields: [
            "pool pointer",
            "payload size",
            "memory pointer",
            "memory size",
        ],
    },
    EventInfo {
        id: 392,
        name: "NX_TRACE_PACKET_POOL_DELETE",
        fields: ["pool pointer", "", "", ""],
    },
    EventInfo {
        id: 393,
        name: "NX_TRACE_PACKET_POOL_INFO_GET",
        fields: [
            "pool pointer",
            "total packets",
            "free packets",
            "empty requests",
        ],
    },
    EventInfo {
        id: 394,
        name: "NX_TRACE_PACKET_RELEASE",
        fields: ["packet pointer", "packet status", "available packets", ""],
    },
    EventInfo {
        id: 395,
        name: "NX_TRACE_PACKET_TRANSMIT_RELEASE",
        fields: ["packet pointer", "packet status", "available packets", ""],
    },
    EventInfo {
        id: 396,
        name: "NX_TRACE_RARP_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 397,
        name: "NX_TRACE_RARP_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 398,
        name: "NX_TRACE_RARP_INFO_GET",
        fields: [
            "IP pointer",
            "requests sent",
            "responses received",
            "invalids",
        ],
    },
    EventInfo {
        id: 399,
        name: "NX_TRACE_SYSTEM_INITIALIZE",
        fields: ["", "", "", ""],
    },
    EventInfo {
        id: 400,
        name: "NX_TRACE_TCP_CLIENT_SOCKET_BIND",
        fields: ["IP pointer", "socket pointer", "port", "wait option"],
    },
    EventInfo {
        id: 401,
        name: "NX_TRACE_TCP_CLIENT_SOCKET_CONNECT",
        fields: ["IP pointer", "socket pointer", "server IP", "server port"],
    },
    EventInfo {
        id: 402,
        name: "NX_TRACE_TCP_CLIENT_SOCKET_PORT_GET",
        fields: ["IP pointer", "socket pointer", "port", ""],
    },
    EventInfo {
        id: 403,
        name: "NX_TRACE_TCP_CLIENT_SOCKET_UNBIND",
        fields: ["IP pointer", "socket pointer", "", ""],
    },
    EventInfo {
        id: 404,
        name: "NX_TRACE_TCP_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 405,
        name: "NX_TRACE_TCP_FREE_PORT_FIND",
        fields: ["IP pointer", "port", "free port", ""],
    },
    EventInfo {
        id: 406,
        name: "NX_TRACE_TCP_INFO_GET",
        fields: [
            "IP pointer",
            "bytes sent",
            "bytes received",
            "invalid packets",
        ],
    },
    EventInfo {
        id: 407,
        name: "NX_TRACE_TCP_SERVER_SOCKET_ACCEPT",
        fields: [
            "IP pointer",
            "socket pointer",
            "wait option",
            "socket state",
        ],
    },
    EventInfo {
        id: 408,
        name: "NX_TRACE_TCP_SERVER_SOCKET_LISTEN",
        fields: ["IP pointer", "port", "socket pointer", "listen queue size"],
    },
    EventInfo {
        id: 409,
        name: "NX_TRACE_TCP_SERVER_SOCKET_RELISTEN",
        fields: ["IP pointer", "port", "socket pointer", "socket state"],
    },
    EventInfo {
        id: 410,
        name: "NX_TRACE_TCP_SERVER_SOCKET_UNACCEPT",
        fields: ["IP pointer", "socket pointer", "socket state", ""],
    },
    EventInfo {
        id: 411,
        name: "NX_TRACE_TCP_SERVER_SOCKET_UNLISTEN",
        fields: ["IP pointer", "port", "", ""],
    },
    EventInfo {
        id: 412,
        name: "NX_TRACE_TCP_SOCKET_CREATE",
        fields: [
            "IP pointer",
            "socket pointer",
            "type of service",
            "window size",
        ],
    },
    EventInfo {
        id: 413,
        name: "NX_TRACE_TCP_SOCKET_DELETE",
        fields: ["IP pointer", "socket pointer", "socket state", ""],
    },
    EventInfo {
        id: 414,
        name: "NX_TRACE_TCP_SOCKET_DISCONNECT",
        fields: [
            "IP pointer",
            "socket pointer",
            "wait option",
            "socket state",
        ],
    },
    EventInfo {
        id: 415,
        name: "NX_TRACE_TCP_SOCKET_INFO_GET",
        fields: [
            "IP pointer",
            "socket pointer",
            "bytes sent",
            "bytes received",
        ],
    },
    EventInfo {
        id: 416,
        name: "NX_TRACE_TCP_SOCKET_MSS_GET",
        fields: ["IP pointer", "socket pointer", "mss", "socket state"],
    },
    EventInfo {
        id: 417,
        name: "NX_TRACE_TCP_SOCKET_MSS_PEER_GET",
        fields: ["IP pointer", "socket pointer", "peer mss", "socket state"],
    },
    EventInfo {
        id: 418,
        name: "NX_TRACE_TCP_SOCKET_MSS_SET",
        fields: ["IP pointer", "socket pointer", "mss", "socket state"],
    },
    EventInfo {
        id: 419,
        name: "NX_TRACE_TCP_SOCKET_RECEIVE",
        fields: ["socket pointer", "packet pointer", "length", "rx sequence"],
    },
    EventInfo {
        id: 420,
        name: "NX_TRACE_TCP_SOCKET_RECEIVE_NOTIFY",
        fields: ["IP pointer", "socket pointer", "receive notify", ""],
    },
    EventInfo {
        id: 421,
        name: "NX_TRACE_TCP_SOCKET_SEND",
        fields: ["socket pointer", "packet pointer", "length", "tx sequence"],
    },
    EventInfo {
        id: 422,
        name: "NX_TRACE_TCP_SOCKET_STATE_WAIT",
        fields: [
            "IP pointer",
            "socket pointer",
            "desired state",
            "previous state",
        ],
    },
    EventInfo {
        id: 423,
        name: "NX_TRACE_TCP_SOCKET_TRANSMIT_CONFIGURE",
        fields: ["IP pointer", "socket pointer", "queue depth", "timeout"],
    },
    EventInfo {
        id: 424,
        name: "NX_TRACE_UDP_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 425,
        name: "NX_TRACE_UDP_FREE_PORT_FIND",
        fields: ["IP pointer", "port", "free port", ""],
    },
    EventInfo {
        id: 426,
        name: "NX_TRACE_UDP_INFO_GET",
        fields: [
            "IP pointer",
            "bytes sent",
            "bytes received",
            "invalid packets",
        ],
    },
    EventInfo {
        id: 427,
        name: "NX_TRACE_UDP_SOCKET_BIND",
        fields: ["IP pointer", "socket pointer", "port", "wait option"],
    },
    EventInfo {
        id: 428,
        name: "NX_TRACE_UDP_SOCKET_CHECKSUM_DISABLE",
        fields: ["IP pointer", "socket pointer", "", ""],
    },
    EventInfo {
        id: 429,
        name: "NX_TRACE_UDP_SOCKET_CHECKSUM_ENABLE",
        fields: ["IP pointer", "socket pointer", "", ""],
    },
    EventInfo {
        id: 430,
        name: "NX_TRACE_UDP_SOCKET_CREATE",
        fields: [
            "IP pointer",
            "socket pointer",
            "type of service",
            "queue maximum",
        ],
    },
    EventInfo {
        id: 431,
        name: "NX_TRACE_UDP_SOCKET_DELETE",
        fields: ["IP pointer", "socket pointer", "", ""],
    },
    EventInfo {
        id: 432,
        name: "NX_TRACE_UDP_SOCKET_INFO_GET",
        fields: [
            "IP pointer",
            "socket pointer",
            "bytes sent",
            "bytes received",
        ],
    },
    EventInfo {
        id: 433,
        name: "NX_TRACE_UDP_SOCKET_PORT_GET",
        fields: ["IP pointer", "socket pointer", "port", ""],
    },
    EventInfo {
        id: 434,
        name: "NX_TRACE_UDP_SOCKET_RECEIVE",
        fields: [
            "IP pointer",
            "socket pointer",
            "packet pointer",
            "packet size",
        ],
    },
    EventInfo {
        id: 435,
        name: "NX_TRACE_UDP_SOCKET_RECEIVE_NOTIFY",
        fields: ["IP pointer", "socket pointer", "receive notify", ""],
    },
    EventInfo {
        id: 436,
        name: "NX_TRACE_UDP_SOCKET_SEND",
        fields: [
            "socket pointer",
            "packet pointer",
            "packet size",
            "IP address",
        ],
    },
    EventInfo {
        id: 437,
        name: "NX_TRACE_UDP_SOCKET_UNBIND",
        fields: ["IP pointer", "socket pointer", "port", ""],
    },
    EventInfo {
        id: 438,
        name: "NX_TRACE_UDP_SOURCE_EXTRACT",
        fields: ["packet pointer", "IP address", "port", ""],
    },
    EventInfo {
        id: 439,
        name: "NX_TRACE_IP_INTERFACE_ATTACH",
        fields: ["IP pointer", "IP address", "interface index", ""],
    },
    EventInfo {
        id: 440,
        name: "NX_TRACE_UDP_SOCKET_BYTES_AVAILABLE",
        fields: ["IP pointer", "socket pointer", "bytes available", ""],
    },
    EventInfo {
        id: 441,
        name: "NX_TRACE_IP_STATIC_ROUTE_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 442,
        name: "NX_TRACE_IP_STATIC_ROUTE_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 443,
        name: "NX_TRACE_IP_STATIC_ROUTE_ADD",
        fields: ["IP pointer", "network address", "net mask", "next hop"],
    },
    EventInfo {
        id: 444,
        name: "NX_TRACE_IP_STATIC_ROUTE_DELETE",
        fields: ["IP pointer", "network address", "net mask", ""],
    },
    EventInfo {
        id: 445,
        name: "NX_TRACE_TCP_SOCKET_PEER_INFO_GET",
        fields: ["socket pointer", "network address", "port", ""],
    },
    EventInfo {
        id: 446,
        name: "NX_TRACE_TCP_SOCKET_WINDOW_UPDATE_NOTIFY_SET",
        fields: ["socket pointer", "", "", ""],
    },
    EventInfo {
        id: 447,
        name: "NX_TRACE_UDP_SOCKET_INTERFACE_SET",
        fields: ["socket pointer", "interface index", "", ""],
    },
    EventInfo {
        id: 448,
        name: "NX_TRACE_UDP_SOCKET_INTERFACE_CLEAR",
        fields: ["socket pointer", "", "", ""],
    },
    EventInfo {
        id: 449,
        name: "NX_TRACE_IP_INTERFACE_INFO_GET",
        fields: ["IP pointer", "IP address", "mtu size", "interface index"],
    },
    EventInfo {
        id: 450,
        name: "NX_TRACE_PACKET_DATA_EXTRACT_OFFSET",
        fields: ["packet pointer", "buffer length", "bytes copied", ""],
    },
    EventInfo {
        id: 471,
        name: "NX_TRACE_ICMP_PING6",
        fields: ["IP pointer", "IP address", "data pointer", "data size"],
    },
    EventInfo {
        id: 478,
        name: "NX_TRACE_ND_CACHE_IP_ADDRESS_FIND",
        fields: [
            "IP pointer",
            "IP address",
            "physical high word",
            "physical low word",
        ],
    },
    EventInfo {
        id: 482,
        name: "NX_TRACE_IPSTATIC_ROUTE_ADD",
        fields: [
            "IP pointer",
            "network address",
            "net mask",
            "next hop address",
        ],
    },
    EventInfo {
        id: 483,
        name: "NX_TRACE_IP_STATIC_ROUTING_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 484,
        name: "NX_TRACE_IP_STATIC_ROUTING_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 485,
        name: "NX_TRACE_IPV6_ENABLE",
        fields: ["IP pointer", "", "", ""],
    },
    EventInfo {
        id: 497,
        name: "NX_TRACE_IPV6_DISABLE",
        fields: ["IP pointer", "", "", ""],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_without_duplicates() {
        assert!(EVENTS.windows(2).all(|pair| pair[0].id < pair[1].id));
    }

    #[test]
    fn names_come_from_the_right_family() {
        for info in EVENTS {
            let prefix = match family(info.id) {
                EventFamily::ThreadX => "TX_TRACE_",
                EventFamily::FileX => "FX_TRACE_",
                EventFamily::NetX => "NX_TRACE_",
                other => panic!("id {} in family {other:?}", info.id),
            };
            assert!(info.name.starts_with(prefix), "{}", info.name);
        }
    }

    #[test]
    fn looks_up_names() {
        assert_eq!(event_name(1), Some("TX_TRACE_THREAD_RESUME"));
        assert_eq!(event_name(69), Some("TX_TRACE_QUEUE_SEND"));
        assert_eq!(event_name(206), Some("FX_TRACE_INTERNAL_IO_DRIVER_READ"));
        assert_eq!(event_name(386), Some("NX_TRACE_PACKET_ALLOCATE"));
        assert_eq!(event_name(5000), Some("user"));
        assert_eq!(event_name(700), Some("usbx"));
        assert_eq!(event_name(0), None);
        assert_eq!(event_name(7), None);
        assert_eq!(event_name(0xFFFF_FFFF), None);
        assert_eq!(
            event_info(68).map(|i| i.fields[3]),
            Some("messages currently in the queue")
        );
    }
}
