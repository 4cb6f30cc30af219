/*
 * TRACER=systemview: SEGGER SystemView records into its RTT up channel
 * ("SysView"), which tband-capture reads through QEMU's gdbstub while the
 * application runs. The recording starts on the target
 * (SEGGER_SYSVIEW_Start), so no host command is needed; at the end the
 * application waits until the capture has read the channel empty.
 *
 * Built with -DSYSTEMVIEW_WAIT_FOR_HOST, the target instead waits, before
 * the application starts, for the host to send SystemView's start command
 * on the SysView down channel (tband-capture --start systemview).
 */
#include <stdio.h>

#include "FreeRTOS.h"
#include "SEGGER_RTT.h"
#include "SEGGER_SYSVIEW.h"

#include "app.h"
#include "board.h"
#include "trace_output.h"
#include "tracer.h"

extern const SEGGER_SYSVIEW_OS_API SYSVIEW_X_OS_TraceAPI;

char systemview_heap;

static uint32_t systick_isr_id;
static uint32_t timer0_isr_id;

uint32_t systemview_timestamp(void) { return 0xFFFFFFFFu - TIMER1->value; }

uint64_t tracer_now_ns(void) { return (uint64_t)systemview_timestamp() * (1000000000u / SYSCLK_HZ); }

/* SystemView reads the active exception's number itself. FreeRTOS V11's
 * port records the rest: SysTick's enter and exit in xPortSysTickHandler,
 * and every other handler's exit in portYIELD_FROM_ISR (traceISR_EXIT or
 * traceISR_EXIT_TO_SCHEDULER), which main.c's TIMER0 handler ends with. */
void tracer_isr_enter(uint32_t id) {
  if (id != systick_isr_id) {
    SEGGER_SYSVIEW_RecordEnterISR();
  }
}

void tracer_isr_exit(uint32_t id) { (void)id; }

void tracer_message(const char *text) { SEGGER_SYSVIEW_Print(text); }

void tracer_describe_board(uint32_t systick_id, uint32_t timer0_id) {
  systick_isr_id = systick_id;
  timer0_isr_id = timer0_id;
}

/* The system description SystemView sends when it starts: the
 * application, the device, the OS and the names of the interrupts. */
static void send_system_description(void) {
  char interrupts[48];
  SEGGER_SYSVIEW_SendSysDesc("N=tband FreeRTOS example,D=Cortex-M3,O=FreeRTOS");
  snprintf(interrupts, sizeof interrupts, "I#%lu=SysTick,I#%lu=TIMER0",
           (unsigned long)systick_isr_id, (unsigned long)timer0_isr_id);
  SEGGER_SYSVIEW_SendSysDesc(interrupts);
}

#ifdef SYSTEMVIEW_WAIT_FOR_HOST
/* Polls the down channel until the host has started the recording. Both
 * timers stand still meanwhile: the time waited is not the first task's
 * run time nor a gap in the trace (TIMER1 is the clock of both), and
 * TIMER0's handler would give a semaphore the application has not created
 * yet. */
static void wait_for_host(void) {
  uint32_t timer0 = TIMER0->ctrl;
  uint32_t timer1 = TIMER1->ctrl;
  TIMER0->ctrl = 0;
  TIMER1->ctrl = 0;
  while (!SEGGER_SYSVIEW_IsStarted()) {
  }
  TIMER1->ctrl = timer1;
  TIMER0->ctrl = timer0;
}
#endif

int trace_output_start(void) {
  SEGGER_SYSVIEW_Init(SYSCLK_HZ, SYSCLK_HZ, &SYSVIEW_X_OS_TraceAPI, send_system_description);
#ifdef SYSTEMVIEW_WAIT_FOR_HOST
  wait_for_host();
#else
  SEGGER_SYSVIEW_Start();
#endif
  SEGGER_SYSVIEW_HeapDefine(&systemview_heap, &systemview_heap, configTOTAL_HEAP_SIZE, 0);
  SEGGER_SYSVIEW_NameResource((U32)&systemview_heap, "heap_4");
  return 0;
}

void platform_stop_recording(void) { SEGGER_SYSVIEW_Stop(); }

int trace_output_finish(void) {
  while (SEGGER_RTT_GetBytesInBuffer((unsigned)SEGGER_SYSVIEW_GetChannelID()) != 0) {
  }
  return 0;
}
