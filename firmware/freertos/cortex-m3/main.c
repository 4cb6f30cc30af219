/*
 * The example application on FreeRTOS's ARM_CM3 port in QEMU's mps2-an385.
 * The trace leaves the board the way the build's BACKEND chose
 * (trace_output.h), or through SystemView's RTT channel when the build's
 * TRACER is systemview (systemview/port.c); the application's record is
 * written at the end through semihosting into truth.txt in QEMU's working
 * folder. SysTick and TIMER0 (every 50 ms) are traced as ISRs.
 *
 *   qemu-system-arm -machine mps2-an385 -cpu cortex-m3 -display none \
 *     -semihosting-config enable=on,target=native -icount shift=4 \
 *     -kernel freertos-cm3.elf
 *
 * BACKEND=streaming builds freertos-cm3-uart.elf, run with its UART served
 * on a TCP port that holds the board until tband-capture connects: the same
 * command with -serial tcp:127.0.0.1:4444,server=on,wait=on added.
 */
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "task.h"

#include "app.h"
#include "board.h"
#include "trace_output.h"
#include "tracer.h"
#include "truth.h"

/* A build may shorten the run (CPPFLAGS=-DRUN_NS=...): the SystemView
 * recording kept in tests/corpus/ is made from a short one. */
#ifndef RUN_NS
#define RUN_NS 3000000000ull
#endif
#define SYSTICK_ISR_ID 15
#define TIMER0_ISR_ID (16 + TIMER0_IRQ)
#define INTERRUPT_EVERY_MS 50u

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_IPR ((volatile uint8_t *)0xE000E400u)

static FILE *truth_file;

uint64_t platform_now_ns(void) { return tracer_now_ns(); }

void platform_message(const char *text) { tracer_message(text); }

void platform_finish(const char *const count_names[], const uint64_t counts[],
                     unsigned count_len) {
  if (trace_output_finish() != 0) {
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
  tracer_isr_enter(SYSTICK_ISR_ID);
  xPortSysTickHandler();
  tracer_isr_exit(SYSTICK_ISR_ID);
}

void timer0_handler(void) {
  tracer_isr_enter(TIMER0_ISR_ID);
  TIMER0->intclear = 1;
  BaseType_t woken = pdFALSE;
  app_interrupt(&woken);
  tracer_isr_exit(TIMER0_ISR_ID);
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
FILE *open_output(const char *path, const char *mode) {
  FILE *file = fopen(path, mode);
  if (file == NULL || setvbuf(file, NULL, _IONBF, 0) != 0) {
    fprintf(stderr, "freertos-cm3: cannot create %s\n", path);
    exit(1);
  }
  return file;
}

int main(void) {
  truth_file = open_output("truth.txt", "w");
  start_timers();
  tracer_describe_board(SYSTICK_ISR_ID, TIMER0_ISR_ID);
  if (trace_output_start() != 0) {
    fputs("freertos-cm3: the trace could not be started\n", stderr);
    return 1;
  }
  app_create(RUN_NS);
  vTaskStartScheduler();
  fputs("freertos-cm3: the scheduler ended\n", stderr);
  return 1;
}
