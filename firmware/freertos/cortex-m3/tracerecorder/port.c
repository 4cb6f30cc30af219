/*
 * TRACER=tracerecorder: Percepio TraceRecorder records the application.
 * With its Jlink_RTT stream port (TR_STREAM_PORT=Jlink_RTT) it streams the
 * recording (PSF) into the RTT up channel "TzData", which tband-capture
 * reads through QEMU's gdbstub while the application runs; at the end the
 * application waits until the capture has read the channel empty. With its
 * RingBuffer stream port (TR_STREAM_PORT=RingBuffer) the recording stays in
 * RAM, the newest events in a ring, and the end writes the recorder's data
 * (from its start markers to its end markers) into trace.psfdump through
 * semihosting, as a debugger would dump it. The recording starts on the
 * target (xTraceEnable(TRC_START)), so no host command is needed. Each
 * TIMER0 interrupt also prints a user event, "tick <n>" on the channel
 * "timer0", counted from 1, and the end of the recording prints
 * "recording stops" there. The application's own messages go to the
 * channel "log".
 */
#include "FreeRTOS.h"
#include "trcRecorder.h"
#ifdef TR_STREAM_PORT_Jlink_RTT
#include "SEGGER_RTT.h"
#endif

#include "app.h"
#include "board.h"
#include "trace_output.h"
#include "tracer.h"

static uint32_t systick_isr_id;
static uint32_t timer0_isr_id;
static TraceISRHandle_t systick_isr;
static TraceISRHandle_t timer0_isr;
static TraceStringHandle_t timer0_channel;
static TraceStringHandle_t log_channel;
static int timer0_ticks;
#ifdef TR_STREAM_PORT_RingBuffer
/* The RingBuffer stream port's data, which it defines. */
extern TraceRingBuffer_t *RecorderDataPtr;
static FILE *dump;
#endif

uint64_t tracer_now_ns(void) {
  return (uint64_t)(0xFFFFFFFFu - TIMER1->value) * (1000000000u / SYSCLK_HZ);
}

void tracer_isr_enter(uint32_t id) {
  if (id == systick_isr_id) {
    (void)xTraceISRBegin(systick_isr);
  } else if (id == timer0_isr_id) {
    (void)xTraceISRBegin(timer0_isr);
    timer0_ticks++;
    (void)xTracePrintF(timer0_channel, "tick %d", timer0_ticks);
  }
}

void tracer_isr_exit(uint32_t id) {
  (void)id;
  (void)xTraceISREnd(0);
}

void tracer_describe_board(uint32_t systick_id, uint32_t timer0_id) {
  systick_isr_id = systick_id;
  timer0_isr_id = timer0_id;
}

int trace_output_start(void) {
#ifdef TR_STREAM_PORT_RingBuffer
  dump = open_output("trace.psfdump", "wb");
#endif
  if (xTraceEnable(TRC_START) != TRC_SUCCESS ||
      xTraceISRRegister("SysTick", 255, &systick_isr) != TRC_SUCCESS ||
      xTraceISRRegister("TIMER0", 0xE0, &timer0_isr) != TRC_SUCCESS ||
      xTraceStringRegister("timer0", &timer0_channel) != TRC_SUCCESS ||
      xTraceStringRegister("log", &log_channel) != TRC_SUCCESS) {
    return 1;
  }
  return 0;
}

void tracer_message(const char *text) { (void)xTracePrint(log_channel, text); }

void platform_stop_recording(void) {
  (void)xTracePrint(timer0_channel, "recording stops");
  (void)xTraceDisable();
}

int trace_output_finish(void) {
#ifdef TR_STREAM_PORT_RingBuffer
  return fwrite(RecorderDataPtr, sizeof *RecorderDataPtr, 1, dump) == 1 ? 0 : 1;
#else
  while (SEGGER_RTT_GetBytesInBuffer(TRC_CFG_STREAM_PORT_RTT_UP_BUFFER_INDEX) != 0) {
  }
  return 0;
#endif
}
