/*
 * BACKEND=postmortem: the post-mortem backend keeps the last events in a
 * RAM ring, which a debugger reads out of the halted or crashed board
 * (tband-capture --flight-recorder, through the symbol
 * tband_flight_recorder). This build's task `crasher` dereferences a bad
 * pointer CRASH_AFTER_MS into the run; the HardFault handler records the
 * fault with tband_fault, says so through semihosting and waits there for
 * the debugger.
 */
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"
#include "tband.h"

#include "app.h"
#include "trace_output.h"

#ifndef CRASH_AFTER_MS
#define CRASH_AFTER_MS 2500u
#endif
#define CRASH_MARKER_ID 9
/* Nothing answers there on the mps2-an385: a read is a bus error. */
#define BAD_ADDRESS 0xF0000000u

volatile uint32_t crash_value;

static void crasher_task(void *arg) {
  (void)arg;
  vTaskDelay(pdMS_TO_TICKS(CRASH_AFTER_MS));
  tband_evtmarker(CRASH_MARKER_ID, "reading 0xf0000000");
  crash_value = *(volatile uint32_t *)BAD_ADDRESS; /* the bad dereference */
  for (;;) {
  }
}

int trace_output_start(void) {
  tband_evtmarker_name(CRASH_MARKER_ID, "crash");
  return xTaskCreate(crasher_task, "crasher", configMINIMAL_STACK_SIZE, NULL, 1, NULL) == pdPASS
             ? 0
             : -1;
}

void platform_stop_recording(void) { tband_stop_postmortem(); }

/* The ring stays on the board for the debugger. */
int trace_output_finish(void) { return 0; }

/* Semihosting's SYS_WRITE0: QEMU prints the text. */
static void semihosting_write0(const char *text) {
  register uint32_t op __asm__("r0") = 0x04;
  register const char *arg __asm__("r1") = text;
  __asm__ volatile("bkpt 0xAB" : "+r"(op) : "r"(arg) : "memory");
}

void record_fault(const uint32_t *frame) {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  tband_fault_cortex_m((uint8_t)(ipsr & 0x1FFu), frame);
  semihosting_write0("freertos-cm3: fault recorded\n");
  for (;;) {
  }
}

/* The exception frame is on the stack that was in use: the process stack
 * when a task faulted (bit 2 of EXC_RETURN set), else the main stack. */
__attribute__((naked)) void hard_fault_handler(void) {
  __asm__ volatile("tst lr, #4\n"
                   "ite eq\n"
                   "mrseq r0, msp\n"
                   "mrsne r0, psp\n"
                   "b record_fault\n");
}
