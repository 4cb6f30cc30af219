/* What main.c asks of the tracer the build chose (the Makefile's TRACER):
 * tband (tband_port.c) or SEGGER SystemView (systemview/port.c). */
#ifndef TRACER_H
#define TRACER_H

#include <stdint.h>

/* Nanoseconds on the tracer's clock. */
uint64_t tracer_now_ns(void);
/* Around an interrupt handler's body; id is the exception number. */
void tracer_isr_enter(uint32_t id);
void tracer_isr_exit(uint32_t id);
/* Before the recording starts: names the two traced interrupts and
 * describes the system. */
void tracer_describe_board(uint32_t systick_id, uint32_t timer0_id);
void tracer_message(const char *text);

#endif
