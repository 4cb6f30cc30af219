/*
 * The example application (app.c), the same on every port it is built for,
 * and what each build provides to it (posix/, cortex-m3/).
 */
#ifndef APP_H
#define APP_H

#include <stdint.h>

#include "FreeRTOS.h"

/* Creates the queues, semaphores, timer and tasks; the recording has
 * started, and the caller starts the scheduler next. The run ends after
 * run_ns. */
void app_create(uint64_t run_ns);
/* Called by the build's traced interrupt every 50 ms: gives irq_sem;
 * woken as for xSemaphoreGiveFromISR (may be NULL). */
void app_interrupt(BaseType_t *woken);

/* ---- Provided by each build ---------------------------------------------- */

/* Nanoseconds on the tracer's clock. */
uint64_t platform_now_ns(void);
/* A user message, recorded as the tracer records text. */
void platform_message(const char *text);
/* Stops the recording; called with the scheduler suspended. */
void platform_stop_recording(void);
/* Saves the trace, writes the application's record (truth_write) and ends
 * the program. */
void platform_finish(const char *const count_names[], const uint64_t counts[],
                     unsigned count_len);

#endif
