/* Vector table and reset of the Cortex-M3 on QEMU's mps2-an385. */
#include <stdint.h>
#include <string.h>

#include "board.h"

extern uint32_t _data_start[], _data_end[], _data_load[], _bss_start[], _bss_end[], _stack_top[];
extern int main(void);
extern void initialise_monitor_handles(void);

void reset_handler(void);

static void unexpected_interrupt(void) {
  for (;;) {
  }
}

/* A build may handle faults (postmortem.c records them). */
void hard_fault_handler(void) __attribute__((weak, alias("unexpected_interrupt")));

#define IRQS 32

__attribute__((section(".vectors"), used)) static void (*const vectors[16 + IRQS])(void) = {
    [0] = (void (*)(void))_stack_top,
    [1] = reset_handler,
    [2] = unexpected_interrupt,
    [3] = hard_fault_handler,
    [4 ... 10] = unexpected_interrupt,
    [11] = vPortSVCHandler,
    [12 ... 13] = unexpected_interrupt,
    [14] = xPortPendSVHandler,
    [15] = systick_handler,
    [16 ... 16 + TIMER0_IRQ - 1] = unexpected_interrupt,
    [16 + TIMER0_IRQ] = timer0_handler,
    [16 + TIMER0_IRQ + 1 ... 16 + IRQS - 1] = unexpected_interrupt,
};

void reset_handler(void) {
  memcpy(_data_start, _data_load, (size_t)((char *)_data_end - (char *)_data_start));
  memset(_bss_start, 0, (size_t)((char *)_bss_end - (char *)_bss_start));
  initialise_monitor_handles();
  (void)main();
  for (;;) {
  }
}
