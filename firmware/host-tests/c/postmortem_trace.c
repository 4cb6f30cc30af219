/* A C program traced through the tband C API with the post-mortem backend:
 * records more than its ring holds, stops the ring as a fault handler
 * would, and writes what tband_read_trace returns to argv[1]. */
#include <stdio.h>

#include "tband.h"

static uint64_t now;

uint64_t tband_port_timestamp(void) { return ++now; }
uint64_t tband_port_ts_resolution_ns(void) { return 1; }
uint32_t tband_port_core_id(void) { return 0; }
uint32_t tband_port_critical_enter(void) { return 0; }
void tband_port_critical_exit(uint32_t state) { (void)state; }

int main(int argc, char **argv) {
  FILE *out;
  if (argc != 2 || !(out = fopen(argv[1], "wb"))) {
    fprintf(stderr, "usage: postmortem_trace OUTPUT\n");
    return 2;
  }
  tband_gather_system_metadata();
  tband_valmarker_name(1, "step");
  for (int64_t i = 0; i < 1000; i++) {
    tband_valmarker(1, i);
  }
  tband_stop_postmortem();
  tband_valmarker(1, -1); /* frozen: not recorded */

  static uint8_t trace[4096];
  size_t len = tband_read_trace(0, trace, sizeof trace);
  if (len > sizeof trace || tband_read_trace(0, trace, 1) != len) {
    fprintf(stderr, "unexpected trace length %zu\n", len);
    return 1;
  }
  if (fwrite(trace, 1, len, out) != len) {
    return 1;
  }
  return fclose(out) == 0 ? 0 : 1;
}
