#include "truth.h"

#include <stdio.h>
#include <stdlib.h>

#include "task.h"

#define MAX_LEVELS 200000
#define MAX_STREAM_LEVELS 20000
#define MAX_TASKS 64

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
  for (unsigned i = 0; i < count_len; i++) {
    fprintf(out, "count %s %llu\n", count_names[i], (unsigned long long)counts[i]);
  }
  return fclose(out);
}
