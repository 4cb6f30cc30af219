/* TraceRecorder's configuration for the example (TRACER=tracerecorder).
 * QEMU's Cortex-M3 has no DWT cycle counter: the recorder's Cortex-M port
 * timestamps with SysTick. The port wants three CMSIS names, which a
 * vendor's device header would give; this board has none. */
#ifndef TRC_CONFIG_H
#define TRC_CONFIG_H

#include <stdint.h>

#define __CORTEX_M 0x03u

static inline uint32_t __get_PRIMASK(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask" : "=r"(primask)::"memory");
  return primask;
}

static inline void __set_PRIMASK(uint32_t primask) {
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

#define TRC_CFG_HARDWARE_PORT TRC_HARDWARE_PORT_ARM_Cortex_M
#define TRC_CFG_ARM_CM_USE_SYSTICK

#define TRC_CFG_SCHEDULING_ONLY 0
#define TRC_CFG_INCLUDE_MEMMANG_EVENTS 1
#define TRC_CFG_INCLUDE_USER_EVENTS 1
#define TRC_CFG_INCLUDE_ISR_TRACING 1
#define TRC_CFG_INCLUDE_READY_EVENTS 1
#define TRC_CFG_INCLUDE_OSTICK_EVENTS 1
/* Every task, queue, semaphore, ISR and string the example names. */
#define TRC_CFG_ENTRY_SLOTS 64
#define TRC_CFG_ENTRY_SYMBOL_MAX_LENGTH 28
#define TRC_CFG_ENABLE_TASK_MONITOR 0
#define TRC_CFG_TASK_MONITOR_MAX_TASKS 10
#define TRC_CFG_ENABLE_STACK_MONITOR 0
#define TRC_CFG_STACK_MONITOR_MAX_TASKS 10
#define TRC_CFG_STACK_MONITOR_MAX_REPORTS 1
#define TRC_CFG_CTRL_TASK_PRIORITY 1
#define TRC_CFG_CTRL_TASK_DELAY 10
#define TRC_CFG_CTRL_TASK_STACK_SIZE 256
#define TRC_CFG_RECORDER_BUFFER_ALLOCATION TRC_RECORDER_BUFFER_ALLOCATION_STATIC
#define TRC_CFG_MAX_ISR_NESTING 8
#define TRC_CFG_ISR_TAILCHAINING_THRESHOLD 0
#define TRC_CFG_RECORDER_DATA_INIT 1
#define TRC_CFG_RECORDER_DATA_ATTRIBUTE
#define TRC_CFG_USE_TRACE_ASSERT 0

#endif
