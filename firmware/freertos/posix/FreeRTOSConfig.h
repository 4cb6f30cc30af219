/* FreeRTOS configuration of the POSIX example application. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION                    1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     1
#define configUSE_DAEMON_TASK_STARTUP_HOOK      1
#define configTICK_RATE_HZ                      1000
#define configMAX_PRIORITIES                    8
/* Words of 8 bytes. The tick, a signal handler, runs on the stack of the
 * task it interrupts, tracer and all. */
#define configMINIMAL_STACK_SIZE                ((unsigned short)16384)
#define configTOTAL_HEAP_SIZE                   ((size_t)(4 * 1024 * 1024))
#define configMAX_TASK_NAME_LEN                 16
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_64_BITS
#define configUSE_MUTEXES                       1
#define configUSE_COUNTING_SEMAPHORES           1
#define configUSE_TASK_NOTIFICATIONS            1
#define configQUEUE_REGISTRY_SIZE               8
#define configSUPPORT_DYNAMIC_ALLOCATION        1
#define configSUPPORT_STATIC_ALLOCATION         0
#define configCHECK_FOR_STACK_OVERFLOW          0
#define configUSE_MALLOC_FAILED_HOOK            0

#define configUSE_TIMERS                        1
#define configTIMER_TASK_PRIORITY               6
#define configTIMER_QUEUE_LENGTH                8
#define configTIMER_TASK_STACK_DEPTH            configMINIMAL_STACK_SIZE

#define INCLUDE_vTaskDelete                     1
#define INCLUDE_vTaskSuspend                    1
#define INCLUDE_vTaskDelay                      1
#define INCLUDE_xTaskDelayUntil                 1
#define INCLUDE_uxTaskPriorityGet               1
#define INCLUDE_xTaskGetSchedulerState          1

/* Run-time statistics (ulTaskGetRunTimeCounter), in nanoseconds of the
 * clock the trace uses: the kernel's own measure of each task's CPU time.
 * The POSIX port's portmacro.h defines portGET_RUN_TIME_COUNTER_VALUE (as
 * the process's user time in 10 ms steps); the ALT form takes precedence. */
#define configGENERATE_RUN_TIME_STATS           1
#define configRUN_TIME_COUNTER_TYPE             uint64_t
#define portCONFIGURE_TIMER_FOR_RUN_TIME_STATS()
uint64_t platform_now_ns(void);
#define portALT_GET_RUN_TIME_COUNTER_VALUE(total) ((total) = platform_now_ns())

/* Stops the program with the failing place on stderr. */
void app_assert_failed(const char *file, int line);
#define configASSERT(x)                         \
  do {                                          \
    if (!(x)) {                                 \
      app_assert_failed(__FILE__, __LINE__);    \
    }                                           \
  } while (0)

/* tband: ids live in uxTaskNumber / uxQueueNumber; the idle task is found
 * by its handle. */
#define configUSE_TRACE_FACILITY                1
#define INCLUDE_xTaskGetIdleTaskHandle          1
/* tband's memory hooks: each task's stack size needs the kernel to keep
 * the stack's top, its stack margin a thread-local storage pointer;
 * heap_4's block headers give each allocation's size as the heap counts
 * it. The application reads the kernel's high-water marks to compare. */
#define configRECORD_STACK_HIGH_ADDRESS         1
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 1
#define tband_STACK_MARGIN_SLOT                 0
#define tband_HEAP_BLOCK_HEADER                 1
#define INCLUDE_uxTaskGetStackHighWaterMark     1
#ifndef __ASSEMBLER__
#include "tband_freertos.h"
#endif

#endif /* FREERTOS_CONFIG_H */
