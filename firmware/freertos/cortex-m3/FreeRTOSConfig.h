/* FreeRTOS configuration of the example on Cortex-M3 (QEMU's mps2-an385). */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ                      25000000
#define configUSE_PREEMPTION                    1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configUSE_DAEMON_TASK_STARTUP_HOOK      1
#define configTICK_RATE_HZ                      1000
#define configMAX_PRIORITIES                    8
#define configMINIMAL_STACK_SIZE                ((unsigned short)512)
#define configTOTAL_HEAP_SIZE                   ((size_t)(96 * 1024))
#define configMAX_TASK_NAME_LEN                 16
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_32_BITS
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

/* Interrupts at or below (numerically above) this priority may call the
 * FromISR API; the timer interrupt has 0xE0. */
#define configKERNEL_INTERRUPT_PRIORITY         255
#define configMAX_SYSCALL_INTERRUPT_PRIORITY    (5 << 5)

#define INCLUDE_vTaskDelete                     1
#define INCLUDE_vTaskSuspend                    1
#define INCLUDE_vTaskDelay                      1
#define INCLUDE_xTaskDelayUntil                 1
#define INCLUDE_uxTaskPriorityGet               1
#define INCLUDE_xTaskGetSchedulerState          1

/* Run-time statistics (ulTaskGetRunTimeCounter), in nanoseconds of the
 * clock the trace uses: the kernel's own measure of each task's CPU time.
 * The switch-cost bench (switch_cost.c) counts switches without them. */
#ifndef SWITCH_COST_BENCH
#define configGENERATE_RUN_TIME_STATS           1
#define configRUN_TIME_COUNTER_TYPE             uint64_t
#define portCONFIGURE_TIMER_FOR_RUN_TIME_STATS()
uint64_t platform_now_ns(void);
#define portGET_RUN_TIME_COUNTER_VALUE()        platform_now_ns()
#endif

/* Stops the program with the failing place on stderr. */
void app_assert_failed(const char *file, int line);
#define configASSERT(x)                         \
  do {                                          \
    if (!(x)) {                                 \
      app_assert_failed(__FILE__, __LINE__);    \
    }                                           \
  } while (0)

/* tband: ids live in uxTaskNumber / uxQueueNumber; the idle task is found
 * by its handle. SystemView's FreeRTOS integration (TRACER=systemview)
 * finds it by its name instead: V11.1.0 has no single idle task handle. */
#define configUSE_TRACE_FACILITY                1
#ifdef TRACER_SYSTEMVIEW
#define INCLUDE_xTaskGetIdleTaskHandle          0
#else
#define INCLUDE_xTaskGetIdleTaskHandle          1
#endif
/* tband's memory hooks: each task's stack size needs the kernel to keep
 * the stack's top, its stack margin a thread-local storage pointer;
 * heap_4's block headers give each allocation's size as the heap counts
 * it. The application reads the kernel's high-water marks to compare. */
#define configRECORD_STACK_HIGH_ADDRESS         1
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 1
#define tband_STACK_MARGIN_SLOT                 0
#define tband_HEAP_BLOCK_HEADER                 1
#define INCLUDE_uxTaskGetStackHighWaterMark     1
/* TBAND_UNTRACED: the switch-cost bench's build without tracing. */
#if !defined(__ASSEMBLER__) && (defined(TRACER_SYSTEMVIEW) || defined(TRACER_TRACERECORDER))
#include "freertos_trace.h"
#elif !defined(__ASSEMBLER__) && !defined(TBAND_UNTRACED)
#include "tband_freertos.h"
#endif

#endif /* FREERTOS_CONFIG_H */
