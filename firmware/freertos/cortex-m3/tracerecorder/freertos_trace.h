/* FreeRTOSConfig.h's trace hooks for TRACER=tracerecorder: TraceRecorder's
 * FreeRTOS kernel port, and what app.c tells the tracer. TraceRecorder
 * learns the idle and timer tasks when they are created. */
#ifndef FREERTOS_TRACE_H
#define FREERTOS_TRACE_H

#include "trcRecorder.h"

#define tband_freertos_scheduler_started() ((void)0)
#define tband_freertos_event_group_name(group, name)                                               \
  ((void)xTraceObjectSetNameWithoutHandle((group), (name)))
#define tband_freertos_stream_buffer_name(buffer, name)                                            \
  ((void)xTraceObjectSetNameWithoutHandle((buffer), (name)))

#endif
