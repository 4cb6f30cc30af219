/*
 * BACKEND=streaming: the streaming backend sends every frame out of UART0
 * as it is traced. QEMU's -serial makes the UART a TCP server (or a pty)
 * that tband-capture records from.
 */
#include "tband.h"

#include "app.h"
#include "board.h"
#include "trace_output.h"

/* What a real board would need for this application's trace (about
 * 45 kB/s); QEMU sends each byte as soon as the reader takes it, whatever
 * the rate. */
#define UART_BAUD 921600u

static void wait_until_sent(void) {
  while (UART0->state & UART_STATE_TX_FULL) {
  }
}

int trace_output_start(void) {
  UART0->bauddiv = SYSCLK_HZ / UART_BAUD;
  UART0->ctrl = UART_CTRL_TX_ENABLE;
  return tband_start_streaming();
}

void platform_stop_recording(void) { (void)tband_stop_streaming(); }

/* The tracer calls this inside its critical section, with every interrupt
 * that traces masked, so polling the one-byte transmit buffer keeps the
 * frames whole and in order. It waits while the buffer is full: nothing is
 * dropped, the link's speed is the limit. */
bool tband_port_stream_write(uint32_t core_id, const uint8_t *bytes, size_t len) {
  (void)core_id;
  for (size_t i = 0; i < len; i++) {
    wait_until_sent();
    UART0->data = bytes[i];
  }
  return true;
}

int trace_output_finish(void) {
  wait_until_sent();
  return 0;
}
