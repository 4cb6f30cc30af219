/*
 * The example application on FreeRTOS's ARM_CM3 port in QEMU's mps2-an385:
 * the snapshot backend records into RAM; at the end the trace and the
 * application's record are written through semihosting into trace.bin and
 * truth.txt in QEMU's working directory. SysTick and TIMER0 (every 50 ms)
 * are traced as ISRs.
 *
 *   qemu-system-arm -machine mps2-an385 -cpu cortex-m3 -display none \
 *     -semihosting-config enable=on,target=native -icount shift=4 \
 *     -kernel freertos-cm3.elf
 */
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "task.h"

#include "app.h"
#include "board.h"
#include "tband.h"
#include "truth.h"

#define RUN_NS 3000000000ull
#define SYSTICK_ISR_ID 15
#define TIMER0_ISR_ID (16 + TIMER0_IRQ)
#define INTERRUPT_EVERY_MS 50u

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)

static uint8_t trace[TRACE_BYTES];
static FILE *trace_file;
static FILE *truth_file;

uint64_t platform_now_ns(void) { return tband_port_timestamp() * tband_port_ts_resolution_ns(); }

void platform_stop_recording(void) { (void)tband_stop_snapshot(); }

void platform_finish(const char *const count_names[], const uint64_t counts[],
                     unsigned count_len) {
  size_t len = tband_read_trace(0, trace, sizeof trace);
  if (len > sizeof trace || fwrite(trace, 1, len, trace_file) != len || fclose(trace_file) != 0) {
    fputs("freertos-cm3: the trace could not be written\n", stderr);
    exit(1);
  }
  if (truth_write(truth_file, count_names, counts, count_len) != 0) {
    fputs("freertos-cm3: the record could not be written\n", stderr);
    exit(1);
  }
  exit(0);
}

void systick_handler(void) {
  tband_isr_enter(SYSTICK_ISR_ID);
  xPortSysTickHandler();
  tband_isr_exit(SYSTICK_ISR_ID);
}

void timer0_handler(void) {
  tband_isr_enter(TIMER0_ISR_ID);
  TIMER0->intclear = 1;
  BaseType_t woken = pdFALSE;
  app_interrupt(&woken);
  tband_isr_exit(TIMER0_ISR_ID);
  portYIELD_FROM_ISR(woken);
}

static void start_timers(void) {
  TIMER1->reload = 0xFFFFFFFFu;
  TIMER1->value = 0xFFFFFFFFu;
  TIMER1->ctrl = TIMER_ENABLE;
  TIMER0->reload = SYSCLK_HZ / 1000u * INTERRUPT_EVERY_MS;
  TIMER0->value = TIMER0->reload;
  NVIC_IPR[TIMER0_IRQ] = 0xE0;
  NVIC_ISER0 = 1u << TIMER0_IRQ;
  TIMER0->ctrl = TIMER_ENABLE | TIMER_INTERRUPT;
}

/* Opened before the scheduler starts: newlib allocates a stream's memory
 * when it is opened, and its allocator refuses while a task's stack is in
 * use. Unbuffered, so that nothing is allocated later. */
static FILE *open_output(const char *path, const char *mode) {
  FILE *file = fopen(path, mode);
  if (file == NULL || setvbuf(file, NULL, _IONBF, 0) != 0) {
    fprintf(stderr, "freertos-cm3: cannot create %s\n", path);
    exit(1);
  }
  return file;
}

int main(void) {
  trace_file = open_output("trace.bin", "wb");
  truth_file = open_output("truth.txt", "w");
  start_timers();
  tband_gather_system_metadata();
  tband_isr_name(SYSTICK_ISR_ID, "SysTick");
  tband_isr_name(TIMER0_ISR_ID, "TIMER0");
  if (tband_trigger_snapshot() != 0) {
    fputs("freertos-cm3: the trace could not be started\n", stderr);
    return 1;
  }
  app_create(RUN_NS);
  vTaskStartScheduler();
  fputs("freertos-cm3: the scheduler ended\n", stderr);
  return 1;
}
