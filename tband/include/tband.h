/*
 * tband: C API of the tband firmware tracer (static library tband-c).
 *
 * Function names follow the reference C tracer's API. Which backend exists
 * is chosen when the library is built (cargo feature of tband-c); sizes by
 * the TBAND_* environment variables at build time. Event groups built
 * without their feature (isr, markers, freertos) are empty functions.
 *
 * The application supplies the port: the tband_port_* functions below.
 */
#ifndef TBAND_H_
#define TBAND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Port: implemented by the application ------------------------------ */

/* Current time in ticks of one monotonic timer shared by all cores. */
uint64_t tband_port_timestamp(void);
/* Nanoseconds per tick. */
uint64_t tband_port_ts_resolution_ns(void);
/* Index of the running core (0 on single-core systems). */
uint32_t tband_port_core_id(void);
/* Enter a critical section that excludes every interrupt and core that
 * traces; returns a state that is handed back to tband_port_critical_exit
 * (e.g. the previous interrupt mask). Sections nest. */
uint32_t tband_port_critical_enter(void);
void tband_port_critical_exit(uint32_t state);
/* Streaming backend only: send bytes (whole frames) of a core's stream;
 * return false if they could not be sent (counted as dropped events). */
bool tband_port_stream_write(uint32_t core_id, const uint8_t *bytes, size_t len);
/* External backend only: every frame, metadata flagged. */
void tband_port_external(uint32_t core_id, const uint8_t *frame, size_t len, bool is_metadata);
/* Snapshot backend only: the core's buffer just filled up. */
void tband_port_snapshot_full(uint32_t core_id);

/* ---- General -------------------------------------------------------------- */

/* Record ts_resolution_ns in the running core's metadata; once per core. */
void tband_gather_system_metadata(void);
/* Whether a metadata event did not fit the core's metadata buffer (such
 * events also count as dropped, so the trace reports them). */
bool tband_metadata_buf_overflowed(uint32_t core_id);
/* Events of a core lost so far. */
uint32_t tband_dropped_evt_cnt(uint32_t core_id);
/* Copy a core's trace (metadata buffer, then snapshot or post-mortem bytes)
 * to out. Returns the bytes copied, or, if cap is too small, the bytes
 * needed (nothing copied). */
size_t tband_read_trace(uint32_t core_id, uint8_t *out, size_t cap);

/* ---- Backends (only the one built in exists) ----------------------------- */

/* Streaming: start sends every core's metadata first. 0 on success. */
int tband_start_streaming(void);
int tband_stop_streaming(void);
/* Snapshot: 0 on success. */
int tband_trigger_snapshot(void);
int tband_stop_snapshot(void);
int tband_reset_snapshot(void);
/* Post-mortem: a ring per core that always keeps the newest bytes. */
void tband_stop_postmortem(void);
void tband_start_postmortem(void);
void tband_reset_postmortem(void);

/* ---- ISRs ------------------------------------------------------------------ */

void tband_isr_name(uint32_t isr_id, const char *name);
void tband_isr_enter(uint32_t isr_id);
void tband_isr_exit(uint32_t isr_id);

/* ---- Markers ------------------------------------------------------------- */

void tband_evtmarker_name(uint32_t id, const char *name);
/* msg may be NULL (no message). */
void tband_evtmarker(uint32_t id, const char *msg);
void tband_evtmarker_begin(uint32_t id, const char *msg);
void tband_evtmarker_end(uint32_t id);
void tband_valmarker_name(uint32_t id, const char *name);
void tband_valmarker(uint32_t id, int64_t val);

/* ---- Memory ---------------------------------------------------------------- */

/* Heaps are numbered by the application (tband_freertos.h uses heap 0);
 * total_size in bytes, 0 when unknown. */
void tband_heap_name(uint32_t heap_id, uint32_t total_size, const char *name);
/* addr: the block the allocator returned, 0 when the allocation failed;
 * size: the bytes the allocator counts against the heap for it. */
void tband_heap_alloc(uint32_t heap_id, uint64_t addr, uint32_t size);
/* size: the block's size, 0 when the allocator does not say. */
void tband_heap_free(uint32_t heap_id, uint64_t addr, uint32_t size);
/* A task's stack, in bytes (metadata). */
void tband_task_stack_size(uint32_t task_id, uint32_t size);
/* The fewest bytes of its stack the task has had left so far. */
void tband_task_stack_free(uint32_t task_id, uint32_t free);
/* The task's stack margin from its fill pattern (FreeRTOS's high-water
 * mark, in bytes): whole words of word_size bytes, all of them fill, from
 * stack (the lowest address of a stack that grows down) up. previous_free:
 * what the last call returned for the task (UINT32_MAX: none yet); only the
 * 16 words below it are read while they stay fill, the stack from its
 * bottom when one did not. Records tband_task_stack_free when the margin
 * fell; returns it. */
uint32_t tband_task_stack_check(uint32_t task_id, const void *stack, uint32_t previous_free,
                                size_t word_size, uint8_t fill);

/* ---- Faults ---------------------------------------------------------------- */

/* Fault kinds: the number of the exception whose handler records the fault
 * (Cortex-M's numbering), or 0 for a fault the software found itself. */
#define TBAND_FAULT_SOFTWARE 0
#define TBAND_FAULT_NMI 2
#define TBAND_FAULT_HARD 3
#define TBAND_FAULT_MEM_MANAGE 4
#define TBAND_FAULT_BUS 5
#define TBAND_FAULT_USAGE 6
#define TBAND_FAULT_SECURE 7

/* Records a fault and the registers its handler has (0 where the core has
 * no such register), then freezes the post-mortem ring so that the fault
 * stays its last event: call it once from the fault handler. */
void tband_fault(uint8_t kind, uint32_t pc, uint32_t lr, uint32_t xpsr, uint32_t cfsr,
                 uint32_t hfsr, uint32_t mmfar, uint32_t bfar);

#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
/* tband_fault from a Cortex-M fault handler: frame is the exception frame
 * the core stacked (R0-R3, R12, LR, PC, xPSR), the status and address
 * registers are the System Control Block's. */
static inline void tband_fault_cortex_m(uint8_t kind, const uint32_t *frame)
{
    volatile const uint32_t *scb_fault = (volatile const uint32_t *)0xE000ED28u;
    tband_fault(kind, frame[6], frame[5], frame[7], scb_fault[0], scb_fault[1], scb_fault[3],
                scb_fault[4]);
}
#endif

/* ---- FreeRTOS (see tband_freertos.h for the trace macros) ----------------- */

/* Return the new object's id, stored in uxTaskNumber / uxQueueNumber. */
uint32_t tband_freertos_task_create(uint32_t priority, const char *name);
/* freertos_queue_type: ucQueueType (queueQUEUE_TYPE_*). */
uint32_t tband_freertos_queue_create(uint8_t freertos_queue_type);
/* Name a queue by its id (uxQueueNumber). With tband_freertos.h, name it by
 * handle: tband_freertos_queue_name(handle, name) and its variants. */
void tband_freertos_queue_id_name(uint32_t queue_id, const char *name);
void tband_freertos_task_switched_in(uint32_t task_id);
void tband_freertos_task_to_rdy_state(uint32_t task_id);
void tband_freertos_task_resumed(uint32_t task_id);
void tband_freertos_task_resumed_from_isr(uint32_t task_id);
void tband_freertos_task_suspended(uint32_t task_id);
void tband_freertos_task_delay(uint32_t ticks);
void tband_freertos_task_delay_until(uint32_t time_to_wake);
void tband_freertos_task_priority_set(uint32_t task_id, uint32_t priority);
void tband_freertos_task_priority_inherit(uint32_t task_id, uint32_t priority);
void tband_freertos_task_priority_disinherit(uint32_t task_id, uint32_t priority);
void tband_freertos_task_deleted(uint32_t task_id);
void tband_freertos_task_is_idle_task(uint32_t task_id, uint32_t core_id);
void tband_freertos_task_is_timer_task(uint32_t task_id);
/* size_before: items in the queue before the operation. */
void tband_freertos_queue_send(uint32_t queue_id, uint32_t size_before, bool overwrite, bool from_isr);
void tband_freertos_queue_receive(uint32_t queue_id, uint32_t size_before, bool from_isr);
void tband_freertos_queue_reset(uint32_t queue_id);
void tband_freertos_queue_cur_length(uint32_t queue_id, uint32_t length);
void tband_freertos_blocking_on_queue_peek(uint32_t queue_id, uint32_t ticks_to_wait);
void tband_freertos_blocking_on_queue_send(uint32_t queue_id, uint32_t ticks_to_wait);
void tband_freertos_blocking_on_queue_receive(uint32_t queue_id, uint32_t ticks_to_wait);

/* Notifications, event groups, stream buffers and timers (extension events).
 * The create functions return the new object's id, stored in
 * uxEventGroupNumber / uxStreamBufferNumber / uxTimerNumber. */
/* value: the notified task's notification value after the notification. */
void tband_freertos_task_notify(uint32_t task_id, uint32_t value, bool from_isr);
/* value: the running task's notification value as it reads it. */
void tband_freertos_task_notify_take(uint32_t value);
void tband_freertos_blocking_on_notify(uint32_t ticks_to_wait);
uint32_t tband_freertos_event_group_create(void);
void tband_freertos_event_group_id_name(uint32_t group_id, const char *name);
void tband_freertos_event_group_set_bits(uint32_t group_id, uint32_t bits, bool from_isr);
void tband_freertos_event_group_clear_bits(uint32_t group_id, uint32_t bits, bool from_isr);
void tband_freertos_blocking_on_event_group(uint32_t group_id, uint32_t ticks_to_wait);
/* bits: the group's bits the ended wait returns. */
void tband_freertos_event_group_wait_end(uint32_t group_id, uint32_t bits);
/* freertos_type: the stream buffer type (sbTYPE_*). */
uint32_t tband_freertos_stream_buffer_create(uint8_t freertos_type);
void tband_freertos_stream_buffer_id_name(uint32_t buffer_id, const char *name);
/* len_after: bytes in the buffer after the operation. */
void tband_freertos_stream_buffer_send(uint32_t buffer_id, uint32_t len_after, bool from_isr);
void tband_freertos_stream_buffer_receive(uint32_t buffer_id, uint32_t len_after, bool from_isr);
void tband_freertos_stream_buffer_reset(uint32_t buffer_id);
void tband_freertos_blocking_on_stream_buffer(uint32_t buffer_id, uint32_t ticks_to_wait);
uint32_t tband_freertos_timer_create(const char *name);
/* command: the timer command sent (tmrCOMMAND_*). */
void tband_freertos_timer_command(uint32_t timer_id, uint32_t command);
void tband_freertos_timer_expired(uint32_t timer_id);

/* Task-local markers: belong to the task running on the calling core. */
void tband_task_evtmarker_name(uint32_t id, uint32_t task_id, const char *name);
void tband_task_evtmarker(uint32_t id, const char *msg);
void tband_task_evtmarker_begin(uint32_t id, const char *msg);
void tband_task_evtmarker_end(uint32_t id);
void tband_task_valmarker_name(uint32_t id, uint32_t task_id, const char *name);
void tband_task_valmarker(uint32_t id, int64_t val);

#ifdef __cplusplus
}
#endif

#endif /* TBAND_H_ */
