//! A tband stream of the FreeRTOS objects beside queues (notifications,
//! an event group, a stream buffer, a software timer) that the tests of
//! the model and of the sinks read
//! (`#[path = "../../tests/rtos_objects/stream.rs"] mod stream;`).

use tband::Event;

/// Two tasks, a giver (1) and a taker (2), an ISR, and each object used.
pub fn events() -> Vec<(u64, Event<'static>)> {
    vec![
        (0, Event::TsResolutionNs { ns_per_ts: 1 }),
        (
            0,
            Event::TaskName {
                task_id: 1,
                name: b"giver",
            },
        ),
        (
            0,
            Event::TaskName {
                task_id: 2,
                name: b"taker",
            },
        ),
        (
            0,
            Event::EventGroupName {
                group_id: 1,
                name: b"flags",
            },
        ),
        (
            0,
            Event::StreamBufferName {
                buffer_id: 1,
                name: b"rx",
            },
        ),
        (1, Event::TaskSwitchedIn { task_id: 2 }),
        (2, Event::CurtaskBlockOnNotify { ticks_to_wait: 10 }),
        (3, Event::TaskSwitchedIn { task_id: 1 }),
        (4, Event::EventGroupCreated { group_id: 1 }),
        (
            5,
            Event::StreamBufferCreated {
                buffer_id: 1,
                kind: 1,
            },
        ),
        (6, Event::TimerCreated { timer_id: 1 }),
        (
            6,
            Event::TimerName {
                timer_id: 1,
                name: b"tick",
            },
        ),
        (
            7,
            Event::TaskNotify {
                task_id: 2,
                value: 1,
            },
        ),
        (
            8,
            Event::EventGroupSetBits {
                group_id: 1,
                bits: 0b101,
            },
        ),
        (
            9,
            Event::StreamBufferSend {
                buffer_id: 1,
                len_after: 12,
            },
        ),
        (
            10,
            Event::TimerCommand {
                timer_id: 1,
                command: 8,
            },
        ),
        (11, Event::TaskSwitchedIn { task_id: 2 }),
        (12, Event::CurtaskNotifyTake { value: 1 }),
        (
            13,
            Event::EventGroupClearBits {
                group_id: 1,
                bits: 0b1,
            },
        ),
        (
            14,
            Event::StreamBufferReceive {
                buffer_id: 1,
                len_after: 0,
            },
        ),
        (
            15,
            Event::CurtaskEventGroupWaitEnd {
                group_id: 1,
                bits: 0b100,
            },
        ),
        (16, Event::IsrEnter { isr_id: 1 }),
        (
            17,
            Event::TaskNotifyFromIsr {
                task_id: 2,
                value: 3,
            },
        ),
        (18, Event::IsrExit { isr_id: 1 }),
        (19, Event::TimerExpired { timer_id: 1 }),
    ]
}
