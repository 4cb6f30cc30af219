#include "truth.h"

#include <stdio.h>
#include <stdlib.h>

#include "task.h"

#define MAX_LEVELS 200000
#define MAX_STREAM_LEVELS 20000
#define MAX_TASKS 64
#define MAX_HEAP_OPS 2048
#define MAX_LEAKS 16

static struct {
  QueueHandle_t handle;
  const char *name;
} queues[TRUTH_QUEUES];

static struct {
  uint8_t queue;
  uint8_t level;
} levels[MAX_LEVELS];
static unsigned level_count;

static uint16_t stream_levels[MAX_STREAM_LEVELS];
static unsigned stream_level_count;

static struct {
  const char *name;
  UBaseType_t priority;
} tasks[MAX_TASKS];
static unsigned task_count;

static struct {
  void *block;
  size_t asked;
  /* What the heap counts for the block (0 for a free, which gives it back). */
  size_t counted;
  int is_free;
} heap_ops[MAX_HEAP_OPS];
static unsigned heap_op_count;

static struct {
  void *block;
  size_t counted;
  const char *task;
} leaks[MAX_LEAKS];
static unsigned leak_count;

static size_t heap_free_at_start;
static size_t heap_min_free;

static struct {
  char name[configMAX_TASK_NAME_LEN];
  size_t free;
} stacks[MAX_TASKS];
static unsigned stack_count;

static volatile int stopped;

void truth_queue(enum truth_queue which, QueueHandle_t handle, const char *name) {
  queues[which].handle = handle;
  queues[which].name = name;
  vQueueAddToRegistry(handle, name);
}

static void record_level(enum truth_queue which, UBaseType_t level) {
  if (stopped) {
    return;
  }
  if (level_count == MAX_LEVELS) {
    fputs("truth: too many queue operations to record\n", stderr);
    abort();
  }
  levels[level_count].queue = (uint8_t)which;
  levels[level_count].level = (uint8_t)level;
  level_count++;
}

void truth_level(enum truth_queue which) {
  record_level(which, uxQueueMessagesWaiting(queues[which].handle));
}

void truth_level_from_isr(enum truth_queue which) {
  record_level(which, uxQueueMessagesWaitingFromISR(queues[which].handle));
}

void truth_stream_buffer_level(StreamBufferHandle_t buffer) {
  if (stopped) {
    return;
  }
  if (stream_level_count == MAX_STREAM_LEVELS) {
    fputs("truth: too many stream buffer operations to record\n", stderr);
    abort();
  }
  stream_levels[stream_level_count++] = (uint16_t)xStreamBufferBytesAvailable(buffer);
}

void truth_task(const char *name, UBaseType_t priority) {
  if (stopped) {
    return;
  }
  if (task_count == MAX_TASKS) {
    fputs("truth: too many tasks to record\n", stderr);
    abort();
  }
  tasks[task_count].name = name;
  tasks[task_count].priority = priority;
  task_count++;
}

void truth_stop(void) { stopped = 1; }

void truth_heap_start(void) {
  vPortFree(pvPortMalloc(1));
  heap_free_at_start = xPortGetFreeHeapSize();
}

static void record_heap_op(void *block, size_t asked, size_t counted, int is_free) {
  if (stopped) {
    return;
  }
  if (heap_op_count == MAX_HEAP_OPS) {
    fputs("truth: too many allocations to record\n", stderr);
    abort();
  }
  heap_ops[heap_op_count].block = block;
  heap_ops[heap_op_count].asked = asked;
  heap_ops[heap_op_count].counted = counted;
  heap_ops[heap_op_count].is_free = is_free;
  heap_op_count++;
}

/* Other tasks allocate too (task creation, the idle task's clean-up): the
 * scheduler is suspended from the first look at the free bytes to the
 * second. */
void *truth_malloc(size_t size) {
  vTaskSuspendAll();
  size_t before = xPortGetFreeHeapSize();
  void *block = pvPortMalloc(size);
  record_heap_op(block, size, before - xPortGetFreeHeapSize(), 0);
  (void)xTaskResumeAll();
  return block;
}

void truth_free(void *block) {
  vTaskSuspendAll();
  size_t before = xPortGetFreeHeapSize();
  vPortFree(block);
  record_heap_op(block, 0, xPortGetFreeHeapSize() - before, 1);
  (void)xTaskResumeAll();
}

void truth_leak(void *block, const char *task) {
  if (stopped) {
    return;
  }
  if (leak_count == MAX_LEAKS) {
    fputs("truth: too many leaks to record\n", stderr);
    abort();
  }
  size_t counted = 0;
  for (unsigned i = 0; i < heap_op_count; i++) {
    if (heap_ops[i].block == block && !heap_ops[i].is_free) {
      counted = heap_ops[i].counted;
    }
  }
  leaks[leak_count].block = block;
  leaks[leak_count].counted = counted;
  leaks[leak_count].task = task;
  leak_count++;
}

void truth_memory_end(void) {
  static TaskStatus_t status[MAX_TASKS];
  heap_min_free = xPortGetMinimumEverFreeHeapSize();
  UBaseType_t count = uxTaskGetSystemState(status, MAX_TASKS, NULL);
  TaskHandle_t self = xTaskGetCurrentTaskHandle();
  for (UBaseType_t i = 0; i < count; i++) {
    if (status[i].xHandle == self) {
      continue;
    }
    snprintf(stacks[stack_count].name, sizeof stacks[stack_count].name, "%s", status[i].pcTaskName);
    stacks[stack_count].free = (size_t)status[i].usStackHighWaterMark * sizeof(StackType_t);
    stack_count++;
  }
}

int truth_write(FILE *out, const char *const count_names[], const uint64_t counts[],
                unsigned count_len) {
  for (unsigned i = 0; i < task_count; i++) {
    fprintf(out, "task %s %lu\n", tasks[i].name, (unsigned long)tasks[i].priority);
  }
  for (unsigned i = 0; i < TRUTH_QUEUES; i++) {
    fprintf(out, "queue %s\n", queues[i].name);
  }
  for (unsigned i = 0; i < level_count; i++) {
    fprintf(out, "level %s %u\n", queues[levels[i].queue].name, (unsigned)levels[i].level);
  }
  for (unsigned i = 0; i < stream_level_count; i++) {
    fprintf(out, "stream_level %u\n", (unsigned)stream_levels[i]);
  }
  fprintf(out, "heap_total %lu\n", (unsigned long)configTOTAL_HEAP_SIZE);
  fprintf(out, "heap_free_at_start %lu\n", (unsigned long)heap_free_at_start);
  fprintf(out, "heap_min_free %lu\n", (unsigned long)heap_min_free);
  for (unsigned i = 0; i < heap_op_count; i++) {
    if (heap_ops[i].is_free) {
      fprintf(out, "heap_free %llu %lu\n", (unsigned long long)(uintptr_t)heap_ops[i].block,
              (unsigned long)heap_ops[i].counted);
    } else {
      fprintf(out, "heap_alloc %llu %lu %lu\n", (unsigned long long)(uintptr_t)heap_ops[i].block,
              (unsigned long)heap_ops[i].asked, (unsigned long)heap_ops[i].counted);
    }
  }
  for (unsigned i = 0; i < leak_count; i++) {
    fprintf(out, "heap_leak %llu %lu %s\n", (unsigned long long)(uintptr_t)leaks[i].block,
            (unsigned long)leaks[i].counted, leaks[i].task);
  }
  fprintf(out, "stack_bytes %lu\n", (unsigned long)(configMINIMAL_STACK_SIZE * sizeof(StackType_t)));
  /* The name last: the timer task's has a space. */
  for (unsigned i = 0; i < stack_count; i++) {
    fprintf(out, "stack_free %lu %s\n", (unsigned long)stacks[i].free, stacks[i].name);
  }
  for (unsigned i = 0; i < count_len; i++) {
    fprintf(out, "count %s %llu\n", count_names[i], (unsigned long long)counts[i]);
  }
  return fclose(out);
}
