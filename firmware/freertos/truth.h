/*
 * The application's own record of what it did, written beside the trace
 * for the tests to compare with it: every operation's fill level of the
 * queues and of the stream buffer it owns, its tasks, its allocations and
 * frees, the blocks it leaks, the heap's and the stacks' low marks, and
 * counts.
 */
#ifndef TRUTH_H
#define TRUTH_H

#include <stdint.h>
#include <stdio.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "stream_buffer.h"

/* The queues, semaphores and mutexes whose levels are recorded. */
enum truth_queue { TRUTH_WORK_Q, TRUTH_LOCK, TRUTH_IRQ_SEM, TRUTH_SLOTS, TRUTH_QUEUES };

/* Names the object (in the trace too) and remembers its handle. */
void truth_queue(enum truth_queue which, QueueHandle_t handle, const char *name);
/* Records the object's uxQueueMessagesWaiting after an operation. The
 * caller makes sure no other operation on it comes between the two. */
void truth_level(enum truth_queue which);
void truth_level_from_isr(enum truth_queue which);
/* Records the bytes in the stream buffer after an operation, as
 * truth_level does for queues. */
void truth_stream_buffer_level(StreamBufferHandle_t buffer);
/* Records a task the application created. */
void truth_task(const char *name, UBaseType_t priority);
/* ---- Memory ---------------------------------------------------------------- */

/* Records configTOTAL_HEAP_SIZE and the heap's free bytes before anything
 * is allocated from it; call first thing. heap_4 sets itself up at its first
 * allocation (until then it says 0 bytes free), so this allocates a byte
 * and frees it before it asks. */
void truth_heap_start(void);
/* pvPortMalloc, recording the block's address (0 when it failed), the size
 * asked for and the size the heap counts for it (the fall in its free
 * bytes). */
void *truth_malloc(size_t size);
/* vPortFree, recording the block and the size the heap got back. */
void truth_free(void *block);
/* Records that the task leaves the block, which truth_malloc gave it,
 * allocated for good. */
void truth_leak(void *block, const char *task);
/* Records the heap's fewest free bytes ever, and the stack high-water mark
 * (in bytes) of every task but the calling one, which has run since its
 * last switch-out. Call once the recording has stopped, with the scheduler
 * suspended. */
void truth_memory_end(void);

/* Stops recording: nothing recorded later is written. */
void truth_stop(void);
/* Writes the record as "key value..." lines, counts as "count NAME N",
 * and closes out; 0 on success. */
int truth_write(FILE *out, const char *const count_names[], const uint64_t counts[],
                unsigned count_len);

#endif
