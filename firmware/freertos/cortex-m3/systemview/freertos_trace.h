/* FreeRTOSConfig.h's trace hooks for TRACER=systemview: SEGGER's FreeRTOS
 * integration, written for FreeRTOS V10, adapted to V11.1.0, which passes
 * the notification's index to the five traceTASK_NOTIFY* hooks. */
#ifndef FREERTOS_TRACE_H
#define FREERTOS_TRACE_H

#include "SEGGER_SYSVIEW_FreeRTOS.h"

#undef traceTASK_NOTIFY_TAKE
#undef traceTASK_NOTIFY_GIVE_FROM_ISR
#undef traceTASK_NOTIFY
#undef traceTASK_NOTIFY_FROM_ISR
#undef traceTASK_NOTIFY_WAIT
#define traceTASK_NOTIFY_TAKE(index)                                                               \
  SEGGER_SYSVIEW_RecordU32x2(apiID_OFFSET + apiID_ULTASKNOTIFYTAKE, xClearCountOnExit, xTicksToWait)
#define traceTASK_NOTIFY_GIVE_FROM_ISR(index)                                                      \
  SEGGER_SYSVIEW_RecordU32x2(apiID_OFFSET + apiID_VTASKNOTIFYGIVEFROMISR,                          \
                             SEGGER_SYSVIEW_ShrinkId((U32)pxTCB), (U32)pxHigherPriorityTaskWoken)
#define traceTASK_NOTIFY(index)                                                                    \
  SEGGER_SYSVIEW_RecordU32x4(apiID_OFFSET + apiID_XTASKGENERICNOTIFY,                              \
                             SEGGER_SYSVIEW_ShrinkId((U32)pxTCB), ulValue, eAction,                \
                             (U32)pulPreviousNotificationValue)
#define traceTASK_NOTIFY_FROM_ISR(index)                                                           \
  SEGGER_SYSVIEW_RecordU32x5(apiID_OFFSET + apiID_XTASKGENERICNOTIFYFROMISR,                       \
                             SEGGER_SYSVIEW_ShrinkId((U32)pxTCB), ulValue, eAction,                \
                             (U32)pulPreviousNotificationValue, (U32)pxHigherPriorityTaskWoken)
#define traceTASK_NOTIFY_WAIT(index)                                                               \
  SEGGER_SYSVIEW_RecordU32x4(apiID_OFFSET + apiID_XTASKNOTIFYWAIT, ulBitsToClearOnEntry,           \
                             ulBitsToClearOnExit, (U32)pulNotificationValue, xTicksToWait)

/* Queues added to the queue registry become named resources too: the
 * integration's own packet carries only the address of the name. */
#undef traceQUEUE_REGISTRY_ADD
#define traceQUEUE_REGISTRY_ADD(xQueue, pcQueueName)                                               \
  do {                                                                                             \
    SEGGER_SYSVIEW_RecordU32x2(apiID_OFFSET + apiID_VQUEUEADDTOREGISTRY,                           \
                               SEGGER_SYSVIEW_ShrinkId((U32)(xQueue)), (U32)(pcQueueName));        \
    SEGGER_SYSVIEW_NameResource((U32)(xQueue), (pcQueueName));                                     \
  } while (0)

/* The heap's blocks as SystemView's heap events, which the integration does
 * not send: systemview_heap's address is the heap's id (port.c defines it
 * with SEGGER_SYSVIEW_HeapDefine). A failed allocation is one at address
 * 0. */
extern char systemview_heap;
#define traceMALLOC(pvAddress, uiSize) SEGGER_SYSVIEW_HeapAlloc(&systemview_heap, (pvAddress), (uiSize))
#define traceFREE(pvAddress, uiSize) SEGGER_SYSVIEW_HeapFree(&systemview_heap, (pvAddress))

/* What app.c tells the tracer: SystemView learns the idle and timer tasks
 * when they are created, and names the event group and stream buffer as
 * resources. */
#define tband_freertos_scheduler_started() ((void)0)
#define tband_freertos_event_group_name(group, name) SEGGER_SYSVIEW_NameResource((U32)(group), (name))
#define tband_freertos_stream_buffer_name(buffer, name)                                            \
  SEGGER_SYSVIEW_NameResource((U32)(buffer), (name))

#endif
