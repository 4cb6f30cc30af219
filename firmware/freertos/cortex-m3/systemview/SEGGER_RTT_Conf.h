/* SEGGER RTT's configuration for the example traced by SystemView
 * (TRACER=systemview): the terminal channel 0 and SystemView's channel,
 * written with RTT's C routines, locked by masking every interrupt. */
#ifndef SEGGER_RTT_CONF_H
#define SEGGER_RTT_CONF_H

#define SEGGER_RTT_MAX_NUM_UP_BUFFERS 2
#define SEGGER_RTT_MAX_NUM_DOWN_BUFFERS 2
#define BUFFER_SIZE_UP 64
#define BUFFER_SIZE_DOWN 16
#define SEGGER_RTT_PRINTF_BUFFER_SIZE 64
#define SEGGER_RTT_MODE_DEFAULT SEGGER_RTT_MODE_NO_BLOCK_SKIP
#define RTT_USE_ASM 0

#ifndef __ASSEMBLER__
static inline unsigned rtt_mask_interrupts(void) {
  unsigned primask;
  __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  return primask;
}

static inline void rtt_restore_interrupts(unsigned primask) {
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

#define SEGGER_RTT_LOCK()                                                                          \
  {                                                                                                \
    unsigned rtt_saved_primask = rtt_mask_interrupts();
#define SEGGER_RTT_UNLOCK()                                                                        \
  rtt_restore_interrupts(rtt_saved_primask);                                                       \
  }
#endif

#endif
