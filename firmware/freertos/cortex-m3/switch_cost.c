/*
 * Instructions per context switch on FreeRTOS's ARM_CM3 port, built with
 * tband's trace hooks recording into the snapshot backend and without them
 * (-DTBAND_UNTRACED). Three measurements, ROUNDS rounds of two each:
 *   yield   two tasks of one priority hand the processor to each other
 *           with taskYIELD (the switch alone: one task_switched_in, and the
 *           stack margin's check at switch-out);
 *   notify  a task wakes a higher-priority one with a direct-to-task
 *           notification and waits for one back (a switch and the wake-up:
 *           task_to_rdy_state and task_switched_in);
 *   heap    heap_4's pvPortMalloc and vPortFree of a block (heap_alloc and
 *           heap_free), per call.
 * Run under qemu-system-arm -icount shift=0, where one instruction takes one
 * nanosecond of virtual time and TIMER1 counts 25 MHz cycles of it; prints
 * instructions per switch, the tick interrupt included (untraced in both).
 */
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "task.h"

#include "board.h"
#ifndef TBAND_UNTRACED
#include "tband.h"
#endif

#define ROUNDS 10000u
#define NS_PER_CYCLE (1000000000u / SYSCLK_HZ)

#ifdef TBAND_UNTRACED
#define BUILD "untraced"
#else
#define BUILD "traced"
#endif

static TaskHandle_t waker;
static TaskHandle_t woken;

void app_assert_failed(const char *file, int line) {
  fprintf(stderr, "switch-cost: assertion failed at %s:%d\n", file, line);
  abort();
}

void systick_handler(void) { xPortSysTickHandler(); }

/* TIMER0 is not started here. */
void timer0_handler(void) {}

void vApplicationDaemonTaskStartupHook(void) {
#ifndef TBAND_UNTRACED
  tband_freertos_scheduler_started();
#endif
}

static uint32_t cycles(void) { return 0xFFFFFFFFu - TIMER1->value; }

/* Each measurement records into an empty snapshot: a full one would
 * measure only the count of events it drops. */
static void start_recording(void) {
#ifndef TBAND_UNTRACED
  (void)tband_reset_snapshot();
  if (tband_trigger_snapshot() != 0) {
    fputs("switch-cost: the trace could not be started\n", stderr);
    exit(1);
  }
#endif
}

static void print_cost(const char *what, uint32_t spent, const char *per) {
  unsigned long long tenths = (unsigned long long)spent * NS_PER_CYCLE * 10u / (2u * ROUNDS);
  printf("%s %s: %llu.%llu instructions per %s\n", BUILD, what, tenths / 10u, tenths % 10u, per);
}

static void heap_rounds(void) {
  start_recording();
  uint32_t start = cycles();
  for (unsigned i = 0; i < ROUNDS; i++) {
    vPortFree(pvPortMalloc(32));
  }
  print_cost("heap", cycles() - start, "call");
}

static void woken_task(void *arg) {
  (void)arg;
  for (;;) {
    (void)ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
    xTaskNotifyGive(waker);
  }
}

static void waker_task(void *arg) {
  (void)arg;
  start_recording();
  uint32_t start = cycles();
  for (unsigned i = 0; i < ROUNDS; i++) {
    xTaskNotifyGive(woken);
    (void)ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
  }
  print_cost("notify", cycles() - start, "switch");
  heap_rounds();
  exit(0);
}

static void create(TaskFunction_t code, const char *name, void *arg, UBaseType_t priority,
                   TaskHandle_t *handle) {
  if (xTaskCreate(code, name, configMINIMAL_STACK_SIZE, arg, priority, handle) != pdPASS) {
    fprintf(stderr, "switch-cost: cannot create %s\n", name);
    exit(1);
  }
}

/* The first yielder times the rounds, then starts the notify measurement. */
static void yielder(void *first) {
  uint32_t start = cycles();
  for (unsigned i = 0; i < ROUNDS; i++) {
    taskYIELD();
  }
  if (first != NULL) {
    print_cost("yield", cycles() - start, "switch");
    create(woken_task, "woken", NULL, 4, &woken);
    create(waker_task, "waker", NULL, 3, &waker);
  }
  vTaskSuspend(NULL);
}

int main(void) {
  TIMER1->reload = 0xFFFFFFFFu;
  TIMER1->value = 0xFFFFFFFFu;
  TIMER1->ctrl = TIMER_ENABLE;
#ifndef TBAND_UNTRACED
  tband_gather_system_metadata();
#endif
  start_recording();
  static const char first[] = "first";
  create(yielder, "yield_a", (void *)first, 2, NULL);
  create(yielder, "yield_b", NULL, 2, NULL);
  vTaskStartScheduler();
  return 1;
}
