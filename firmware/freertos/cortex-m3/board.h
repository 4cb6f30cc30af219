/* The parts of QEMU's mps2-an385 the example uses: two CMSDK timers at
 * 25 MHz, one free-running as the tracer's clock, one interrupting, and
 * the CMSDK UART0 the streaming build sends its trace out of. */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#define SYSCLK_HZ 25000000u
#define TIMER0_IRQ 8

struct cmsdk_timer {
  volatile uint32_t ctrl;
  volatile uint32_t value;
  volatile uint32_t reload;
  volatile uint32_t intclear;
};

#define TIMER0 ((struct cmsdk_timer *)0x40000000u)
#define TIMER1 ((struct cmsdk_timer *)0x40001000u)
#define TIMER_ENABLE 1u
#define TIMER_INTERRUPT 8u

struct cmsdk_uart {
  volatile uint32_t data;
  volatile uint32_t state;
  volatile uint32_t ctrl;
  volatile uint32_t intstatus;
  volatile uint32_t bauddiv;
};

#define UART0 ((struct cmsdk_uart *)0x40004000u)
#define UART_STATE_TX_FULL 1u
#define UART_CTRL_TX_ENABLE 1u

void systick_handler(void);
void timer0_handler(void);

/* The ARM_CM3 port's handlers, which its headers do not declare. */
void vPortSVCHandler(void);
void xPortPendSVHandler(void);
void xPortSysTickHandler(void);

#endif
