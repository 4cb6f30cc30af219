/*
 * A FreeRTOS application that a FreeRTOS user recognises, traced by tband,
 * which keeps its own record of what it did beside the trace (truth.h).
 *
 * Tasks, by priority (7 highest):
 *   busy        7  spins 20 ms (BUSY_SPIN_NS) of every 50 (xTaskDelayUntil), measuring its spins;
 *                  the kernel's run-time statistics measure its CPU time too
 *   sem_waiter  6  takes irq_sem, which the build's traced interrupt gives every 50 ms
 *   Tmr Svc     6  the timer task: slot_timer gives two slots and notifies counter
 *   mutex_high  5  takes lock every 7 ms, raising mutex_low's priority when it waits
 *   eg_waiter   5  waits for both progress bits of the event group, then clears them
 *   sb_reader   5  reads the stream buffer
 *   consumer    4  receives from work_q, forwards the items into a stream buffer
 *   worker      4  created by control twice a second; lives 5 ms, then deletes itself
 *   counter     3  waits for a notification, then takes every slot
 *   heap_user   3  allocates and frees blocks in a known pattern for 40 rounds, leaving
 *                  some allocated for good (unless built with APP_HEAP_LEAKS=0), and
 *                  asks once for more than the heap has
 *   producer    2  sends bursts of 1 to 4 items to work_q every 10 ms
 *   mutex_low   2  holds lock for 1 ms of every 4
 *   control     1  suspends and resumes producer, saying so in a message (platform_message),
 *                  creates workers, ends the run
 *
 * A task that may be preempted by another user of the same object between
 * an operation and reading the object's level (a lower-priority user) does
 * both with the scheduler suspended and without waiting, so the recorded
 * level is the one the operation left. control has the lowest priority, so
 * it runs, and ends the recording, only when every other task waits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "event_groups.h"
#include "queue.h"
#include "semphr.h"
#include "stream_buffer.h"
#include "task.h"
#include "timers.h"

#include "app.h"
#include "truth.h"

#define WORK_Q_LENGTH 4
#define SLOTS_MAX 10
#define SLOTS_INITIAL 2
/* A build may set it (CPPFLAGS=-DBUSY_SPIN_NS=...): the test of the CI
 * workflow example (docs/examples/) makes one that spins longer, a
 * regression for the example's budget to catch. */
#ifndef BUSY_SPIN_NS
#define BUSY_SPIN_NS 20000000ull
#endif
#define BUSY_PERIOD_MS 50
#define HOLD_NS 1000000ull
#define STREAM_BUFFER_BYTES 256
#define PRODUCED (1u << 0)
#define CONSUMED (1u << 1)
#define STACK_WORDS configMINIMAL_STACK_SIZE
/* A build may set it to 0 (CPPFLAGS=-DAPP_HEAP_LEAKS=0): a run whose task
 * frees every block it allocates. */
#ifndef APP_HEAP_LEAKS
#define APP_HEAP_LEAKS 1
#endif
#define HEAP_ROUNDS 40
#define HEAP_LEAK_EVERY 10

enum count {
  NOTIFICATIONS_GIVEN,
  NOTIFICATIONS_TAKEN,
  EVENT_GROUP_SETS,
  EVENT_GROUP_CLEARS,
  EVENT_GROUP_WAITS_DONE,
  STREAM_BUFFER_SENDS,
  STREAM_BUFFER_BYTES_SENT,
  STREAM_BUFFER_BYTES_RECEIVED,
  TASKS_CREATED_AT_RUN_TIME,
  TIMER_EXPIRIES,
  BUSY_NS,
  BUSY_RUN_TIME_NS,
  WINDOW_NS,
  COUNTS
};

static const char *const count_names[COUNTS] = {
    "notifications_given",   "notifications_taken",         "event_group_sets",
    "event_group_clears",    "event_group_waits_done",      "stream_buffer_sends",
    "stream_buffer_bytes_sent", "stream_buffer_bytes_received", "tasks_created_at_run_time",
    "timer_expiries",        "busy_ns",                     "busy_run_time_ns",
    "window_ns",
};

static uint64_t counts[COUNTS];

static QueueHandle_t work_q;
static SemaphoreHandle_t lock;
static SemaphoreHandle_t irq_sem;
static SemaphoreHandle_t slots;
static EventGroupHandle_t progress;
static StreamBufferHandle_t bytes;
static TimerHandle_t slot_timer;
static TaskHandle_t busy_task;
static TaskHandle_t producer_task;
static TaskHandle_t counter_task;

static uint64_t run_ns;
static uint64_t start_ns;

static uint64_t now_ns(void) { return platform_now_ns(); }

static void spin(uint64_t ns, uint64_t *spun) {
  uint64_t begin = now_ns();
  uint64_t end;
  do {
    end = now_ns();
  } while (end - begin < ns);
  if (spun != NULL) {
    *spun += end - begin;
  }
}

static void create_task(TaskFunction_t code, const char *name, UBaseType_t priority,
                        TaskHandle_t *handle) {
  if (xTaskCreate(code, name, STACK_WORDS, NULL, priority, handle) != pdPASS) {
    fprintf(stderr, "freertos example: cannot create task %s\n", name);
    exit(1);
  }
  truth_task(name, priority);
}

void app_assert_failed(const char *file, int line) {
  fprintf(stderr, "freertos example: assertion failed at %s:%d\n", file, line);
  abort();
}

void app_interrupt(BaseType_t *woken) {
  if (xSemaphoreGiveFromISR(irq_sem, woken) == pdPASS) {
    truth_level_from_isr(TRUTH_IRQ_SEM);
  }
}

/* Runs once in the timer task when the scheduler has started: the point
 * where V11.1.0, which has no traceSTARTING_SCHEDULER, lets the tracer
 * learn the idle and timer tasks. */
void vApplicationDaemonTaskStartupHook(void) { tband_freertos_scheduler_started(); }

static void busy(void *arg) {
  (void)arg;
  TickType_t wake = xTaskGetTickCount();
  for (;;) {
    spin(BUSY_SPIN_NS, &counts[BUSY_NS]);
    xTaskDelayUntil(&wake, pdMS_TO_TICKS(BUSY_PERIOD_MS));
  }
}

static void sem_waiter(void *arg) {
  (void)arg;
  for (;;) {
    if (xSemaphoreTake(irq_sem, portMAX_DELAY) == pdPASS) {
      truth_level(TRUTH_IRQ_SEM);
    }
  }
}

static void slot_timer_expired(TimerHandle_t timer) {
  (void)timer;
  counts[TIMER_EXPIRIES]++;
  for (int i = 0; i < 2; i++) {
    if (xSemaphoreGive(slots) == pdPASS) {
      truth_level(TRUTH_SLOTS);
    }
  }
  xTaskNotifyGive(counter_task);
  counts[NOTIFICATIONS_GIVEN]++;
}

static void mutex_high(void *arg) {
  (void)arg;
  for (;;) {
    vTaskDelay(pdMS_TO_TICKS(7));
    if (xSemaphoreTake(lock, portMAX_DELAY) == pdPASS) {
      truth_level(TRUTH_LOCK);
      xSemaphoreGive(lock);
      truth_level(TRUTH_LOCK);
    }
  }
}

static void eg_waiter(void *arg) {
  (void)arg;
  for (;;) {
    EventBits_t bits = xEventGroupWaitBits(progress, PRODUCED | CONSUMED, pdFALSE, pdTRUE, portMAX_DELAY);
    if ((bits & (PRODUCED | CONSUMED)) == (PRODUCED | CONSUMED)) {
      counts[EVENT_GROUP_WAITS_DONE]++;
    }
    xEventGroupClearBits(progress, PRODUCED | CONSUMED);
    counts[EVENT_GROUP_CLEARS]++;
  }
}

static void consumer(void *arg) {
  (void)arg;
  for (;;) {
    uint32_t item;
    if (xQueueReceive(work_q, &item, portMAX_DELAY) != pdPASS) {
      continue;
    }
    truth_level(TRUTH_WORK_Q);
    /* sb_reader, of higher priority, runs as soon as the scheduler resumes. */
    vTaskSuspendAll();
    size_t sent = xStreamBufferSend(bytes, &item, sizeof item, 0);
    if (sent > 0) {
      truth_stream_buffer_level(bytes);
    }
    (void)xTaskResumeAll();
    counts[STREAM_BUFFER_BYTES_SENT] += sent;
    counts[STREAM_BUFFER_SENDS]++;
    xEventGroupSetBits(progress, CONSUMED);
    counts[EVENT_GROUP_SETS]++;
  }
}

static void worker(void *arg) {
  (void)arg;
  vTaskDelay(pdMS_TO_TICKS(5));
  vTaskDelete(NULL);
}

static void counter(void *arg) {
  (void)arg;
  for (;;) {
    counts[NOTIFICATIONS_TAKEN] += ulTaskNotifyTake(pdTRUE, portMAX_DELAY);
    BaseType_t taken;
    do {
      vTaskSuspendAll();
      taken = xSemaphoreTake(slots, 0);
      if (taken == pdPASS) {
        truth_level(TRUTH_SLOTS);
      }
      (void)xTaskResumeAll();
    } while (taken == pdPASS);
  }
}

static void sb_reader(void *arg) {
  (void)arg;
  for (;;) {
    uint8_t buf[64];
    size_t received = xStreamBufferReceive(bytes, buf, sizeof buf, portMAX_DELAY);
    if (received > 0) {
      truth_stream_buffer_level(bytes);
    }
    counts[STREAM_BUFFER_BYTES_RECEIVED] += received;
  }
}

static void heap_user(void *arg) {
  (void)arg;
  if (truth_malloc(configTOTAL_HEAP_SIZE) != NULL) {
    fputs("freertos example: an allocation larger than the heap succeeded\n", stderr);
    exit(1);
  }
  for (unsigned round = 0; round < HEAP_ROUNDS; round++) {
    void *small = truth_malloc(16 + 8 * (round % 4));
    void *large = truth_malloc(200 + round);
    void *odd = truth_malloc(53);
    if (small == NULL || large == NULL || odd == NULL) {
      fputs("freertos example: the heap is full\n", stderr);
      exit(1);
    }
    vTaskDelay(pdMS_TO_TICKS(5));
    truth_free(large);
    if (APP_HEAP_LEAKS && round % HEAP_LEAK_EVERY == 3) {
      truth_leak(small, "heap_user");
    } else {
      truth_free(small);
    }
    vTaskDelay(pdMS_TO_TICKS(5));
    truth_free(odd);
    vTaskDelay(pdMS_TO_TICKS(15));
  }
  vTaskSuspend(NULL);
}

static void producer(void *arg) {
  (void)arg;
  uint32_t item = 0;
  unsigned burst = 0;
  for (;;) {
    burst = burst % WORK_Q_LENGTH + 1;
    vTaskSuspendAll();
    for (unsigned i = 0; i < burst; i++) {
      item++;
      if (xQueueSend(work_q, &item, 0) == pdPASS) {
        truth_level(TRUTH_WORK_Q);
      }
    }
    (void)xTaskResumeAll();
    xEventGroupSetBits(progress, PRODUCED);
    counts[EVENT_GROUP_SETS]++;
    vTaskDelay(pdMS_TO_TICKS(10));
  }
}

static void mutex_low(void *arg) {
  (void)arg;
  for (;;) {
    vTaskSuspendAll();
    BaseType_t taken = xSemaphoreTake(lock, 0);
    if (taken == pdPASS) {
      truth_level(TRUTH_LOCK);
    }
    (void)xTaskResumeAll();
    if (taken == pdPASS) {
      spin(HOLD_NS, NULL);
      vTaskSuspendAll();
      xSemaphoreGive(lock);
      truth_level(TRUTH_LOCK);
      (void)xTaskResumeAll();
    }
    vTaskDelay(pdMS_TO_TICKS(3));
  }
}

/* Ends the recording and the program. Every other task waits when this
 * one runs, so the counts are whole. */
static void finish(void) {
  vTaskSuspendAll();
  counts[WINDOW_NS] = now_ns() - start_ns;
  counts[BUSY_RUN_TIME_NS] = ulTaskGetRunTimeCounter(busy_task);
  platform_stop_recording();
  truth_stop();
  truth_memory_end();
  uint64_t final_counts[COUNTS];
  for (unsigned i = 0; i < COUNTS; i++) {
    final_counts[i] = counts[i];
  }
  (void)xTaskResumeAll();
  platform_finish(count_names, final_counts, COUNTS);
}

static void control(void *arg) {
  (void)arg;
  for (unsigned round = 1;; round++) {
    vTaskDelay(pdMS_TO_TICKS(100));
    if (now_ns() - start_ns >= run_ns) {
      finish();
    }
    if (round % 2 == 1) {
      platform_message("suspending producer");
      vTaskSuspend(producer_task);
    } else {
      platform_message("resuming producer");
      vTaskResume(producer_task);
    }
    if (round % 5 == 0) {
      create_task(worker, "worker", 4, NULL);
      counts[TASKS_CREATED_AT_RUN_TIME]++;
    }
  }
}

static void *created(void *object, const char *what) {
  if (object == NULL) {
    fprintf(stderr, "freertos example: cannot create %s\n", what);
    exit(1);
  }
  return object;
}

void app_create(uint64_t run) {
  truth_heap_start();
  run_ns = run;
  start_ns = now_ns();
  work_q = created(xQueueCreate(WORK_Q_LENGTH, sizeof(uint32_t)), "work_q");
  truth_queue(TRUTH_WORK_Q, work_q, "work_q");
  lock = created(xSemaphoreCreateMutex(), "lock");
  truth_queue(TRUTH_LOCK, lock, "lock");
  truth_level(TRUTH_LOCK);
  irq_sem = created(xSemaphoreCreateBinary(), "irq_sem");
  truth_queue(TRUTH_IRQ_SEM, irq_sem, "irq_sem");
  slots = created(xSemaphoreCreateCounting(SLOTS_MAX, SLOTS_INITIAL), "slots");
  truth_queue(TRUTH_SLOTS, slots, "slots");
  truth_level(TRUTH_SLOTS);
  progress = created(xEventGroupCreate(), "progress");
  tband_freertos_event_group_name(progress, "progress");
  bytes = created(xStreamBufferCreate(STREAM_BUFFER_BYTES, 1), "bytes");
  tband_freertos_stream_buffer_name(bytes, "bytes");
  slot_timer = created(xTimerCreate("slot_timer", pdMS_TO_TICKS(20), pdTRUE, NULL, slot_timer_expired),
                       "slot_timer");

  create_task(busy, "busy", 7, &busy_task);
  create_task(sem_waiter, "sem_waiter", 6, NULL);
  create_task(mutex_high, "mutex_high", 5, NULL);
  create_task(eg_waiter, "eg_waiter", 5, NULL);
  create_task(sb_reader, "sb_reader", 5, NULL);
  create_task(consumer, "consumer", 4, NULL);
  create_task(counter, "counter", 3, &counter_task);
  create_task(heap_user, "heap_user", 3, NULL);
  create_task(producer, "producer", 2, &producer_task);
  create_task(mutex_low, "mutex_low", 2, NULL);
  create_task(control, "control", 1, NULL);
  if (xTimerStart(slot_timer, 0) != pdPASS) {
    fputs("freertos example: cannot start slot_timer\n", stderr);
    exit(1);
  }
}
