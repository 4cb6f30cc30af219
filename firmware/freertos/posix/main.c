/*
 * The example application on FreeRTOS's POSIX port: the streaming backend
 * writes the trace into a file, the application's record goes beside it,
 * and the tick (a signal) is traced as the ISR "tick".
 *
 *   freertos-posix TRACE TRUTH [SECONDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "FreeRTOS.h"
#include "task.h"

#include "app.h"
#include "tband.h"
#include "tband_port_posix.h"
#include "truth.h"

#define TICK_ISR_ID 1
#define INTERRUPT_EVERY_TICKS 50

static int trace_fd;
static FILE *truth_file;

uint64_t platform_now_ns(void) { return tband_port_timestamp(); }

/* Messages are the instants of one marker (recorded with the library's
 * markers feature). */
#define MESSAGE_MARKER_ID 1

void platform_message(const char *text) { tband_evtmarker(MESSAGE_MARKER_ID, text); }

void platform_stop_recording(void) { (void)tband_stop_streaming(); }

void platform_finish(const char *const count_names[], const uint64_t counts[],
                     unsigned count_len) {
  if (close(trace_fd) != 0) {
    fputs("freertos-posix: the trace could not be finished\n", stderr);
    exit(1);
  }
  if (truth_write(truth_file, count_names, counts, count_len) != 0) {
    fputs("freertos-posix: the record could not be written\n", stderr);
    exit(1);
  }
  exit(0);
}

void vApplicationTickHook(void) {
  static unsigned ticks;
  tband_isr_enter(TICK_ISR_ID);
  if (++ticks % INTERRUPT_EVERY_TICKS == 0) {
    app_interrupt(NULL);
  }
  tband_isr_exit(TICK_ISR_ID);
}

int main(int argc, char **argv) {
  unsigned long seconds = 3;
  char *end = NULL;
  if (argc == 4) {
    seconds = strtoul(argv[3], &end, 10);
  }
  if (argc < 3 || argc > 4 || (end != NULL && (*end != '\0' || seconds == 0 || seconds > 600))) {
    fputs("usage: freertos-posix TRACE TRUTH [SECONDS (1 to 600, default 3)]\n", stderr);
    return 2;
  }
  trace_fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (trace_fd < 0) {
    fprintf(stderr, "freertos-posix: cannot create %s\n", argv[1]);
    return 1;
  }
  truth_file = fopen(argv[2], "w");
  if (truth_file == NULL) {
    fprintf(stderr, "freertos-posix: cannot create %s\n", argv[2]);
    return 1;
  }
  tband_port_posix_stream_to(trace_fd);
  tband_gather_system_metadata();
  tband_isr_name(TICK_ISR_ID, "tick");
  tband_evtmarker_name(MESSAGE_MARKER_ID, "log");
  if (tband_start_streaming() != 0) {
    fputs("freertos-posix: the trace could not be started\n", stderr);
    return 1;
  }
  app_create((uint64_t)seconds * 1000000000ull);
  vTaskStartScheduler();
  fputs("freertos-posix: the scheduler ended\n", stderr);
  return 1;
}
