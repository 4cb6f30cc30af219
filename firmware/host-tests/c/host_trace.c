/* A C program traced through the tband C API (streaming backend): writes
 * its stream to the file named by argv[1]. Time is a counter that advances
 * by one per timestamp read, so the trace is the same on every run. */
#include <pthread.h>
#include <stdio.h>

#include "tband.h"

static FILE *out;
static uint64_t now;
static bool refuse_writes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t tband_port_timestamp(void) { return ++now; }
uint64_t tband_port_ts_resolution_ns(void) { return 1000; }
uint32_t tband_port_core_id(void) { return 0; }

uint32_t tband_port_critical_enter(void) {
  pthread_mutex_lock(&lock);
  return 0;
}

void tband_port_critical_exit(uint32_t state) {
  (void)state;
  pthread_mutex_unlock(&lock);
}

bool tband_port_stream_write(uint32_t core_id, const uint8_t *bytes, size_t len) {
  (void)core_id;
  if (refuse_writes) {
    return false;
  }
  return fwrite(bytes, 1, len, out) == len;
}

int main(int argc, char **argv) {
  if (argc != 2 || !(out = fopen(argv[1], "wb"))) {
    fprintf(stderr, "usage: host_trace OUTPUT\n");
    return 2;
  }
  tband_gather_system_metadata();
  tband_isr_name(3, "uart");
  tband_evtmarker_name(1, "work");
  tband_valmarker_name(2, "level");
  tband_isr_enter(3); /* not streaming yet: not recorded */

  if (tband_start_streaming() != 0) {
    fprintf(stderr, "streaming did not start\n");
    return 1;
  }
  tband_isr_enter(3);
  tband_isr_exit(3);
  tband_evtmarker_begin(1, "a message longer than twenty bytes");
  tband_valmarker(2, -42);
  tband_evtmarker_end(1);
  tband_evtmarker(1, NULL);
  refuse_writes = true;
  tband_valmarker(2, 1);
  refuse_writes = false;
  tband_valmarker(2, 2);
  tband_valmarker(2, 3);
  uint32_t task = tband_freertos_task_create(4, "worker");
  uint32_t queue = tband_freertos_queue_create(0);
  tband_freertos_task_switched_in(task);
  tband_freertos_queue_send(queue, 0, false, false);
  tband_freertos_queue_receive(queue, 1, false);
  tband_task_valmarker(1, 1000000);
  tband_heap_name(0, 65536, "sram");
  tband_heap_alloc(0, 0x100000010ull, 48);
  tband_heap_alloc(0, 0, 1u << 20);
  tband_heap_free(0, 0x100000010ull, 48);
  tband_task_stack_size(task, 256);
  uint32_t stack[64];
  for (unsigned i = 0; i < 64; i++) {
    stack[i] = i < 60 ? 0xa5a5a5a5u : i;
  }
  uint32_t margin = tband_task_stack_check(task, stack, UINT32_MAX, sizeof stack[0], 0xa5);
  printf("stack margin %u\n", margin);
  tband_stop_streaming();
  tband_valmarker(2, 4); /* stopped: not recorded */

  printf("dropped %u\n", tband_dropped_evt_cnt(0));
  return fclose(out) == 0 ? 0 : 1;
}
