/*
 * tband_freertos.h: FreeRTOS trace hooks onto the tband C API.
 *
 * Include it at the end of FreeRTOSConfig.h. Needs configUSE_TRACE_FACILITY 1
 * (the tracer keeps its ids in uxTaskNumber / uxQueueNumber) and
 * INCLUDE_xTaskGetIdleTaskHandle 1. Every macro expands inside the kernel
 * source that calls it, where the names it uses are in scope. The memory
 * hooks and what they need are under "Memory" below.
 */
#ifndef TBAND_FREERTOS_H_
#define TBAND_FREERTOS_H_

#include "tband.h"

#if (configUSE_TRACE_FACILITY != 1)
  #error "tband_freertos.h needs configUSE_TRACE_FACILITY 1"
#endif

/* ---- Tasks ------------------------------------------------------------- */

#define traceTASK_CREATE(pxNewTCB)                                                          \
  do {                                                                                     \
    (pxNewTCB)->uxTaskNumber = tband_freertos_task_create((uint32_t)(pxNewTCB)->uxPriority, \
                                                          (pxNewTCB)->pcTaskName);         \
    tband_FREERTOS_STACK_SIZE(pxNewTCB);                                                   \
  } while (0)

#define traceTASK_SWITCHED_IN() \
  tband_freertos_task_switched_in((uint32_t)pxCurrentTCB->uxTaskNumber)

#define traceMOVED_TASK_TO_READY_STATE(pxTCB) \
  tband_freertos_task_to_rdy_state((uint32_t)(pxTCB)->uxTaskNumber)

#define tracePOST_MOVED_TASK_TO_READY_STATE(pxTCB)

#define traceTASK_RESUME(pxTCB) \
  tband_freertos_task_resumed((uint32_t)(pxTCB)->uxTaskNumber)

#define traceTASK_RESUME_FROM_ISR(pxTCB) \
  tband_freertos_task_resumed_from_isr((uint32_t)(pxTCB)->uxTaskNumber)

#define traceTASK_SUSPEND(pxTCB) \
  tband_freertos_task_suspended((uint32_t)(pxTCB)->uxTaskNumber)

#define traceTASK_DELAY() \
  tband_freertos_task_delay((uint32_t)xTicksToDelay)

#define traceTASK_DELAY_UNTIL(xTimeToWake) \
  tband_freertos_task_delay_until((uint32_t)(xTimeToWake))

#define traceTASK_PRIORITY_SET(pxTCB, uxNewPriority) \
  tband_freertos_task_priority_set((uint32_t)(pxTCB)->uxTaskNumber, (uint32_t)(uxNewPriority))

#define traceTASK_PRIORITY_INHERIT(pxTCBOfMutexHolder, uxInheritedPriority) \
  tband_freertos_task_priority_inherit((uint32_t)(pxTCBOfMutexHolder)->uxTaskNumber, (uint32_t)(uxInheritedPriority))

#define traceTASK_PRIORITY_DISINHERIT(pxTCBOfMutexHolder, uxOriginalPriority) \
  tband_freertos_task_priority_disinherit((uint32_t)(pxTCBOfMutexHolder)->uxTaskNumber, (uint32_t)(uxOriginalPriority))

#define traceTASK_DELETE(pxTCB) \
  tband_freertos_task_deleted((uint32_t)(pxTCB)->uxTaskNumber)

/* The idle task of every core, and the timer service task when timers are
 * used. Kernels that call traceSTARTING_SCHEDULER (after V11.1.0) record
 * them on their own; on V11.1.0 and earlier call
 * tband_freertos_scheduler_started() once the scheduler runs, e.g. first
 * thing in a task. */
#if (configUSE_TIMERS == 1)
  /* Declared here too, so that callers need not include timers.h. */
  #define tband_FREERTOS_TIMER_TASK()                                                       \
    do {                                                                                   \
      extern struct tskTaskControlBlock *xTimerGetTimerDaemonTaskHandle(void);             \
      tband_freertos_task_is_timer_task(                                                   \
        (uint32_t)uxTaskGetTaskNumber(xTimerGetTimerDaemonTaskHandle()));                  \
    } while (0)
#else
  #define tband_FREERTOS_TIMER_TASK()
#endif

#define tband_freertos_scheduler_started()                                                 \
  do {                                                                                     \
    for (BaseType_t tband_core = 0; tband_core < (BaseType_t)configNUMBER_OF_CORES; tband_core++) { \
      tband_freertos_task_is_idle_task(                                                    \
        (uint32_t)uxTaskGetTaskNumber(xTaskGetIdleTaskHandleForCore(tband_core)),          \
        (uint32_t)tband_core);                                                             \
    }                                                                                      \
    tband_FREERTOS_TIMER_TASK();                                                           \
    tband_heap_name(0, (uint32_t)(tband_HEAP_TOTAL_SIZE), "FreeRTOS heap");               \
  } while (0)

#define traceSTARTING_SCHEDULER(xIdleTaskHandles) tband_freertos_scheduler_started()

/* ---- Queues, semaphores, mutexes --------------------------------------- */

#define traceQUEUE_CREATE(pxNewQueue) \
  ((pxNewQueue)->uxQueueNumber = tband_freertos_queue_create((uint8_t)(pxNewQueue)->ucQueueType))

#define traceCREATE_COUNTING_SEMAPHORE() \
  tband_freertos_queue_cur_length((uint32_t)((Queue_t *)xHandle)->uxQueueNumber, (uint32_t)uxInitialCount)

/* xQueueGenericSend has xCopyPosition in scope. */
#define traceQUEUE_SEND(pxQueue)                                                           \
  tband_freertos_queue_send((uint32_t)(pxQueue)->uxQueueNumber,                            \
                            (uint32_t)(pxQueue)->uxMessagesWaiting,                        \
                            xCopyPosition == queueOVERWRITE, false)

/* Also used by xQueueGiveFromISR, which has no xCopyPosition: a send that
 * goes through on a full queue can only be an overwrite. */
#define traceQUEUE_SEND_FROM_ISR(pxQueue)                                                  \
  tband_freertos_queue_send((uint32_t)(pxQueue)->uxQueueNumber,                            \
                            (uint32_t)(pxQueue)->uxMessagesWaiting,                        \
                            (pxQueue)->uxMessagesWaiting == (pxQueue)->uxLength, true)

#define traceQUEUE_SET_SEND(pxQueueSetContainer)                                           \
  tband_freertos_queue_send((uint32_t)(pxQueueSetContainer)->uxQueueNumber,                \
                            (uint32_t)(pxQueueSetContainer)->uxMessagesWaiting, false, false)

#define traceQUEUE_RECEIVE(pxQueue) \
  tband_freertos_queue_receive((uint32_t)(pxQueue)->uxQueueNumber, (uint32_t)(pxQueue)->uxMessagesWaiting, false)

#define traceQUEUE_RECEIVE_FROM_ISR(pxQueue) \
  tband_freertos_queue_receive((uint32_t)(pxQueue)->uxQueueNumber, (uint32_t)(pxQueue)->uxMessagesWaiting, true)

/* A new queue is reset before traceQUEUE_CREATE gives it its id. */
#define traceQUEUE_RESET(pxQueue, xNewQueue)                    \
  do {                                                          \
    if ((xNewQueue) == pdFALSE) {                               \
      tband_freertos_queue_reset((uint32_t)(pxQueue)->uxQueueNumber); \
    }                                                           \
  } while (0)

#define traceBLOCKING_ON_QUEUE_PEEK(pxQueue) \
  tband_freertos_blocking_on_queue_peek((uint32_t)(pxQueue)->uxQueueNumber, (uint32_t)xTicksToWait)

#define traceBLOCKING_ON_QUEUE_SEND(pxQueue) \
  tband_freertos_blocking_on_queue_send((uint32_t)(pxQueue)->uxQueueNumber, (uint32_t)xTicksToWait)

#define traceBLOCKING_ON_QUEUE_RECEIVE(pxQueue) \
  tband_freertos_blocking_on_queue_receive((uint32_t)(pxQueue)->uxQueueNumber, (uint32_t)xTicksToWait)

/* Queues named in the queue registry (vQueueAddToRegistry, e.g. the
 * kernel's timer queue "TmrQ") carry that name in the trace. */
#define traceQUEUE_REGISTRY_ADD(xQueue, pcQueueName) \
  tband_freertos_queue_id_name((uint32_t)((Queue_t *)(xQueue))->uxQueueNumber, (pcQueueName))

/* Name queues, semaphores and mutexes from application code, by handle (the
 * reference tracer's names and arguments). Names are metadata: call them
 * any time after the object is created. */
#define tband_freertos_queue_name(handle, name) \
  tband_freertos_queue_id_name((uint32_t)uxQueueGetQueueNumber(handle), (name))
#define tband_freertos_binary_semaphore_name(handle, name) tband_freertos_queue_name((handle), (name))
#define tband_freertos_counting_semaphore_name(handle, name) tband_freertos_queue_name((handle), (name))
#define tband_freertos_mutex_name(handle, name) tband_freertos_queue_name((handle), (name))
#define tband_freertos_recursive_mutex_name(handle, name) tband_freertos_queue_name((handle), (name))
/* The name earlier versions of this header gave it; code using it keeps
 * working. */
#define tband_freertos_queue_name_handle(handle, name) tband_freertos_queue_name((handle), (name))

/* ---- Task notifications ------------------------------------------------ */

/* xTaskGenericNotify and its ISR variants have the notified TCB in pxTCB;
 * the value is the one the notification left. */
#define traceTASK_NOTIFY(uxIndexToNotify)                                                  \
  tband_freertos_task_notify((uint32_t)pxTCB->uxTaskNumber,                                \
                             (uint32_t)pxTCB->ulNotifiedValue[(uxIndexToNotify)], false)
#define traceTASK_NOTIFY_FROM_ISR(uxIndexToNotify)                                         \
  tband_freertos_task_notify((uint32_t)pxTCB->uxTaskNumber,                                \
                             (uint32_t)pxTCB->ulNotifiedValue[(uxIndexToNotify)], true)
#define traceTASK_NOTIFY_GIVE_FROM_ISR(uxIndexToNotify) traceTASK_NOTIFY_FROM_ISR(uxIndexToNotify)

/* Called before the value is cleared or decremented: what the task takes. */
#define traceTASK_NOTIFY_TAKE(uxIndexToWaitOn) \
  tband_freertos_task_notify_take((uint32_t)pxCurrentTCB->ulNotifiedValue[(uxIndexToWaitOn)])
#define traceTASK_NOTIFY_WAIT(uxIndexToWaitOn) traceTASK_NOTIFY_TAKE(uxIndexToWaitOn)

#define traceTASK_NOTIFY_TAKE_BLOCK(uxIndexToWaitOn) \
  tband_freertos_blocking_on_notify((uint32_t)xTicksToWait)
#define traceTASK_NOTIFY_WAIT_BLOCK(uxIndexToWaitOn) traceTASK_NOTIFY_TAKE_BLOCK(uxIndexToWaitOn)

/* ---- Event groups ------------------------------------------------------ */

#define tband_EVENT_GROUP_ID(xEventGroup) ((uint32_t)((EventGroup_t *)(xEventGroup))->uxEventGroupNumber)

#define traceEVENT_GROUP_CREATE(pxEventBits) \
  ((pxEventBits)->uxEventGroupNumber = tband_freertos_event_group_create())

#define traceEVENT_GROUP_SET_BITS(xEventGroup, uxBitsToSet) \
  tband_freertos_event_group_set_bits(tband_EVENT_GROUP_ID(xEventGroup), (uint32_t)(uxBitsToSet), false)
/* The bits are set later by the timer task (traceEVENT_GROUP_SET_BITS). */
#define traceEVENT_GROUP_SET_BITS_FROM_ISR(xEventGroup, uxBitsToSet) \
  tband_freertos_event_group_set_bits(tband_EVENT_GROUP_ID(xEventGroup), (uint32_t)(uxBitsToSet), true)
#define traceEVENT_GROUP_CLEAR_BITS(xEventGroup, uxBitsToClear) \
  tband_freertos_event_group_clear_bits(tband_EVENT_GROUP_ID(xEventGroup), (uint32_t)(uxBitsToClear), false)
#define traceEVENT_GROUP_CLEAR_BITS_FROM_ISR(xEventGroup, uxBitsToClear) \
  tband_freertos_event_group_clear_bits(tband_EVENT_GROUP_ID(xEventGroup), (uint32_t)(uxBitsToClear), true)

#define traceEVENT_GROUP_WAIT_BITS_BLOCK(xEventGroup, uxBitsToWaitFor) \
  tband_freertos_blocking_on_event_group(tband_EVENT_GROUP_ID(xEventGroup), (uint32_t)xTicksToWait)
#define traceEVENT_GROUP_SYNC_BLOCK(xEventGroup, uxBitsToSet, uxBitsToWaitFor) \
  traceEVENT_GROUP_WAIT_BITS_BLOCK(xEventGroup, uxBitsToWaitFor)
/* xEventGroupWaitBits and xEventGroupSync have the bits they return in uxReturn. */
#define traceEVENT_GROUP_WAIT_BITS_END(xEventGroup, uxBitsToWaitFor, xTimeoutOccurred) \
  tband_freertos_event_group_wait_end(tband_EVENT_GROUP_ID(xEventGroup), (uint32_t)uxReturn)
#define traceEVENT_GROUP_SYNC_END(xEventGroup, uxBitsToSet, uxBitsToWaitFor, xTimeoutOccurred) \
  traceEVENT_GROUP_WAIT_BITS_END(xEventGroup, uxBitsToWaitFor, xTimeoutOccurred)

#define tband_freertos_event_group_name(handle, name) \
  tband_freertos_event_group_id_name((uint32_t)uxEventGroupGetNumber(handle), (name))

/* ---- Stream and message buffers ---------------------------------------- */

#define tband_STREAM_BUFFER_ID(xStreamBuffer) \
  ((uint32_t)((StreamBuffer_t *)(xStreamBuffer))->uxStreamBufferNumber)

#define traceSTREAM_BUFFER_CREATE(pxStreamBuffer, xStreamBufferType) \
  ((pxStreamBuffer)->uxStreamBufferNumber = tband_freertos_stream_buffer_create((uint8_t)(xStreamBufferType)))

/* A reset keeps the buffer's number (the kernel restores it). */
#define traceSTREAM_BUFFER_RESET(xStreamBuffer) \
  tband_freertos_stream_buffer_reset(tband_STREAM_BUFFER_ID(xStreamBuffer))
#define traceSTREAM_BUFFER_RESET_FROM_ISR(xStreamBuffer) traceSTREAM_BUFFER_RESET(xStreamBuffer)

/* Called once the bytes are in (or out): the level is the one they left. */
#define traceSTREAM_BUFFER_SEND(xStreamBuffer, xBytesSent)                                  \
  tband_freertos_stream_buffer_send(tband_STREAM_BUFFER_ID(xStreamBuffer),                 \
                                    (uint32_t)xStreamBufferBytesAvailable(xStreamBuffer), false)
#define traceSTREAM_BUFFER_SEND_FROM_ISR(xStreamBuffer, xBytesSent)                         \
  do {                                                                                     \
    if ((xBytesSent) > 0U) {                                                               \
      tband_freertos_stream_buffer_send(tband_STREAM_BUFFER_ID(xStreamBuffer),             \
                                        (uint32_t)xStreamBufferBytesAvailable(xStreamBuffer), true); \
    }                                                                                      \
  } while (0)
#define traceSTREAM_BUFFER_RECEIVE(xStreamBuffer, xReceivedLength)                          \
  tband_freertos_stream_buffer_receive(tband_STREAM_BUFFER_ID(xStreamBuffer),              \
                                       (uint32_t)xStreamBufferBytesAvailable(xStreamBuffer), false)
#define traceSTREAM_BUFFER_RECEIVE_FROM_ISR(xStreamBuffer, xReceivedLength)                 \
  do {                                                                                     \
    if ((xReceivedLength) > 0U) {                                                          \
      tband_freertos_stream_buffer_receive(tband_STREAM_BUFFER_ID(xStreamBuffer),          \
                                           (uint32_t)xStreamBufferBytesAvailable(xStreamBuffer), true); \
    }                                                                                      \
  } while (0)

#define traceBLOCKING_ON_STREAM_BUFFER_SEND(xStreamBuffer) \
  tband_freertos_blocking_on_stream_buffer(tband_STREAM_BUFFER_ID(xStreamBuffer), (uint32_t)xTicksToWait)
#define traceBLOCKING_ON_STREAM_BUFFER_RECEIVE(xStreamBuffer) \
  traceBLOCKING_ON_STREAM_BUFFER_SEND(xStreamBuffer)

#define tband_freertos_stream_buffer_name(handle, name) \
  tband_freertos_stream_buffer_id_name((uint32_t)uxStreamBufferGetStreamBufferNumber(handle), (name))
#define tband_freertos_message_buffer_name(handle, name) tband_freertos_stream_buffer_name((handle), (name))

/* ---- Software timers --------------------------------------------------- */

/* The timer's name comes with it. */
#define traceTIMER_CREATE(pxNewTimer) \
  ((pxNewTimer)->uxTimerNumber = tband_freertos_timer_create((pxNewTimer)->pcTimerName))

/* Commands the timer queue took (xReturn pdPASS); the command's ISR form
 * (tmrCOMMAND_*_FROM_ISR) says an ISR sent it. */
#define traceTIMER_COMMAND_SEND(xTimer, xCommandID, xOptionalValue, xReturn)                \
  do {                                                                                     \
    if ((xReturn) == pdPASS) {                                                             \
      tband_freertos_timer_command((uint32_t)((Timer_t *)(xTimer))->uxTimerNumber,         \
                                   (uint32_t)(xCommandID));                                \
    }                                                                                      \
  } while (0)

#define traceTIMER_EXPIRED(pxTimer) \
  tband_freertos_timer_expired((uint32_t)(pxTimer)->uxTimerNumber)

/* ---- Memory ----------------------------------------------------------- */

/* The kernel's heap is heap 0, named when the scheduler starts (with
 * tband_freertos_scheduler_started), of configTOTAL_HEAP_SIZE bytes unless
 * tband_HEAP_TOTAL_SIZE says otherwise (heap_3 and heap_5 have no such
 * size: define it, 0 for unknown). */
#ifndef tband_HEAP_TOTAL_SIZE
  #ifdef configTOTAL_HEAP_SIZE
    #define tband_HEAP_TOTAL_SIZE configTOTAL_HEAP_SIZE
  #else
    #define tband_HEAP_TOTAL_SIZE 0
  #endif
#endif

/* heap_2, heap_4 and heap_5 pass traceMALLOC the request with its block
 * header and alignment, but hand out a free block whole when what is left
 * of it would be too small for a block of its own, counting (and later
 * freeing) the whole block. With tband_HEAP_BLOCK_HEADER 1 (only for those
 * three heaps, whose block header it reads) an allocation is recorded with
 * its block's size as the heap counts it, so that allocations and frees
 * add up to the heap's own free bytes. */
#if defined(tband_HEAP_BLOCK_HEADER) && (tband_HEAP_BLOCK_HEADER == 1)
  #define tband_HEAP_BLOCK_SIZE(pvAddress, uiSize)                                          \
    ((pvAddress) == NULL ? (size_t)(uiSize)                                                \
                         : ((BlockLink_t *)((uint8_t *)(pvAddress) - xHeapStructSize))->xBlockSize & \
                               ~heapBLOCK_ALLOCATED_BITMASK)
#else
  #define tband_HEAP_BLOCK_SIZE(pvAddress, uiSize) (uiSize)
#endif

/* pvAddress NULL: the allocation failed. heap_3 frees with size 0. */
#define traceMALLOC(pvAddress, uiSize)                                                     \
  tband_heap_alloc(0, (uint64_t)(uintptr_t)(pvAddress), (uint32_t)tband_HEAP_BLOCK_SIZE(pvAddress, uiSize))
#define traceFREE(pvAddress, uiSize) \
  tband_heap_free(0, (uint64_t)(uintptr_t)(pvAddress), (uint32_t)(uiSize))

/* Each task's stack size when it is created: needs
 * configRECORD_STACK_HIGH_ADDRESS 1 (the kernel then keeps the stack's top,
 * pxEndOfStack); the size runs from the bottom of the stack to its top as
 * the kernel aligned it. */
#if defined(configRECORD_STACK_HIGH_ADDRESS) && (configRECORD_STACK_HIGH_ADDRESS == 1)
  #define tband_FREERTOS_STACK_SIZE(pxTCB)                                                  \
    tband_task_stack_size((uint32_t)(pxTCB)->uxTaskNumber,                                 \
                          (uint32_t)((uint8_t *)(pxTCB)->pxEndOfStack - (uint8_t *)(pxTCB)->pxStack + \
                                     sizeof(StackType_t)))
#else
  #define tband_FREERTOS_STACK_SIZE(pxTCB)
#endif

/* Each task's stack margin, the kernel's own high-water mark in bytes
 * (uxTaskGetStackHighWaterMark times sizeof(StackType_t)), checked when
 * the task is switched out and recorded when it fell. The check keeps the
 * task's last mark in its thread-local storage pointer number
 * tband_STACK_MARGIN_SLOT, which the application leaves to it (set
 * configNUM_THREAD_LOCAL_STORAGE_POINTERS one higher than the application
 * needs, and tband_STACK_MARGIN_SLOT to the last). It reads the 16 words
 * just below that mark, and the stack from its bottom only when one of them
 * changed: a task that first writes further down, leaving those 16 words
 * as they were, is seen at a later switch-out (see the book's FreeRTOS
 * page). For stacks that grow down (every port but a few). */
#ifdef tband_STACK_MARGIN_SLOT
  #if (configNUM_THREAD_LOCAL_STORAGE_POINTERS <= tband_STACK_MARGIN_SLOT)
    #error "tband_STACK_MARGIN_SLOT needs configNUM_THREAD_LOCAL_STORAGE_POINTERS above it"
  #endif
  /* The slot holds the mark plus one, so that a new task's NULL is "none
   * yet" (UINT32_MAX). */
  #define traceTASK_SWITCHED_OUT()                                                          \
    do {                                                                                   \
      void **tband_slot = &pxCurrentTCB->pvThreadLocalStoragePointers[tband_STACK_MARGIN_SLOT]; \
      uint32_t tband_free = tband_task_stack_check((uint32_t)pxCurrentTCB->uxTaskNumber,   \
                                                   pxCurrentTCB->pxStack,                  \
                                                   (uint32_t)(uintptr_t)*tband_slot - 1u,  \
                                                   sizeof(StackType_t), tskSTACK_FILL_BYTE); \
      *tband_slot = (void *)(uintptr_t)(tband_free + 1u);                                  \
    } while (0)
#endif

#endif /* TBAND_FREERTOS_H_ */
