/*
 * TRACER=tracerecorder: Percepio TraceRecorder streams its recording (PSF)
 * into the RTT up channel "TzData" (its Jlink_RTT stream port), which
 * tband-capture reads through QEMU's gdbstub while the application runs.
 * The recording starts on the target (xTraceEnable(TRC_START)), so no host
 * command is needed; at the end the application waits until the capture
 * has read the channel empty. Each TIMER0 interrupt also prints a user
 * event, "tick <n>" on the channel "timer0", counted from 1, and the end
 * of the recording prints "recording stops" there.
 */
#include "FreeRTOS.h"
#include "SEGGER_RTT.h"
#include "trcRecorder.h"

#include "app.h"
#include "board.h"
#include "trace_output.h"
#include "tracer.h"

static uint32_t systick_isr_id;
static uint32_t timer0_isr_id;
static TraceISRHandle_t systick_isr;
static TraceISRHandle_t timer0_isr;
static TraceStringHandle_t timer0_channel;
static int timer0_ticks;

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
  if (xTraceEnable(TRC_START) != TRC_SUCCESS ||
      xTraceISRRegister("SysTick", 255, &systick_isr) != TRC_SUCCESS ||
      xTraceISRRegister("TIMER0", 0xE0, &timer0_isr) != TRC_SUCCESS ||
      xTraceStringRegister("timer0", &timer0_channel) != TRC_SUCCESS) {
    return 1;
  }
  return 0;
}

void platform_stop_recording(void) {
  (void)xTracePrint(timer0_channel, "recording stops");
  (void)xTraceDisable();
}

int trace_output_finish(void) {
  while (SEGGER_RTT_GetBytesInBuffer(TRC_CFG_STREAM_PORT_RTT_UP_BUFFER_INDEX) != 0) {
  }
  return 0;
}
