/*
 * The tband port on FreeRTOS's POSIX port: nanoseconds of CLOCK_MONOTONIC
 * since the stream was opened,
 * critical sections that block the signals the port's tick arrives by, and
 * a streaming backend that writes the trace into a file.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "tband.h"
#include "tband_port_posix.h"

static int trace_fd = -1;
static uint64_t opened_ns;

static uint64_t monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void tband_port_posix_stream_to(int fd) {
  trace_fd = fd;
  opened_ns = monotonic_ns();
}

uint64_t tband_port_timestamp(void) { return monotonic_ns() - opened_ns; }

uint64_t tband_port_ts_resolution_ns(void) { return 1; }

uint32_t tband_port_core_id(void) { return 0; }

/* Only one FreeRTOS task's thread runs at a time; the only other context
 * that traces is the tick, a signal handler on that thread. The port's
 * portSET_INTERRUPT_MASK_FROM_ISR masks nothing, so the signals are blocked
 * here. The state is whether they were blocked already (nesting). */
uint32_t tband_port_critical_enter(void) {
  sigset_t all;
  sigset_t before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  return (uint32_t)sigismember(&before, SIGALRM);
}

void tband_port_critical_exit(uint32_t state) {
  if (state == 0) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_UNBLOCK, &all, NULL);
  }
}

/* write(2), not stdio: this runs in the tick's signal handler too. */
bool tband_port_stream_write(uint32_t core_id, const uint8_t *bytes, size_t len) {
  (void)core_id;
  while (len > 0) {
    ssize_t written = write(trace_fd, bytes, len);
    if (written < 0 && errno == EINTR) {
      continue;
    }
    if (written <= 0) {
      return false;
    }
    bytes += written;
    len -= (size_t)written;
  }
  return true;
}
