/*
 * The tband port on FreeRTOS's ARM_CM3 port: TIMER1 counting down from
 * 2^32 - 1 at 25 MHz (started by main.c) is the clock (40 ns a tick; it wraps after 171 s, longer
 * than any run of the example), and the critical section raises BASEPRI as
 * the kernel's own FromISR critical sections do.
 */
#include "FreeRTOS.h"

#include "board.h"
#include "tband.h"
#include "tracer.h"

uint64_t tband_port_timestamp(void) { return 0xFFFFFFFFu - TIMER1->value; }

uint64_t tband_port_ts_resolution_ns(void) { return 1000000000u / SYSCLK_HZ; }

uint32_t tband_port_core_id(void) { return 0; }

uint32_t tband_port_critical_enter(void) { return (uint32_t)portSET_INTERRUPT_MASK_FROM_ISR(); }

void tband_port_critical_exit(uint32_t state) { portCLEAR_INTERRUPT_MASK_FROM_ISR(state); }

/* Snapshot backend (snapshot.c and the switch-cost bench): the run is
 * sized so that the buffer does not fill; if it does, the trace ends there
 * and reports the events it lost. */
void tband_port_snapshot_full(uint32_t core_id) { (void)core_id; }

uint64_t tracer_now_ns(void) { return tband_port_timestamp() * tband_port_ts_resolution_ns(); }

void tracer_isr_enter(uint32_t id) { tband_isr_enter(id); }

void tracer_isr_exit(uint32_t id) { tband_isr_exit(id); }

/* Messages are the instants of one marker (recorded with the library's
 * markers feature). */
#define MESSAGE_MARKER_ID 1

void tracer_describe_board(uint32_t systick_id, uint32_t timer0_id) {
  tband_gather_system_metadata();
  tband_isr_name(systick_id, "SysTick");
  tband_isr_name(timer0_id, "TIMER0");
  tband_evtmarker_name(MESSAGE_MARKER_ID, "log");
}

void tracer_message(const char *text) { tband_evtmarker(MESSAGE_MARKER_ID, text); }
