/* SystemView's configuration for the example (TRACER=systemview).
 * QEMU's Cortex-M3 has no DWT cycle counter: the timestamp is TIMER1,
 * counting down from 2^32 - 1 at 25 MHz (main.c starts it), the clock the
 * tband build uses too. The up buffer holds what a capture polling it
 * through a GDB server reads between two stops. */
#ifndef SEGGER_SYSVIEW_CONF_H
#define SEGGER_SYSVIEW_CONF_H

#include <stdint.h>

uint32_t systemview_timestamp(void);
#define SEGGER_SYSVIEW_GET_TIMESTAMP() systemview_timestamp()
#define SEGGER_SYSVIEW_TIMESTAMP_BITS 32
#define SEGGER_SYSVIEW_RTT_BUFFER_SIZE 16384

#endif
