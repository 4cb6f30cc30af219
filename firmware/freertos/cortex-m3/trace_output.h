/* How the trace leaves the board: one file per BACKEND of the Makefile,
 * snapshot.c (written out by semihosting at the end) or streaming.c (sent
 * out of UART0 while the application runs). Each also defines
 * platform_stop_recording of app.h. */
#ifndef TRACE_OUTPUT_H
#define TRACE_OUTPUT_H

#include <stdio.h>

/* Before the scheduler starts: prepares the way out and starts recording;
 * 0 on success. */
int trace_output_start(void);
/* After the recording stopped: hands out what is still on the board;
 * 0 on success. */
int trace_output_finish(void);

/* main.c's: opens a file in QEMU's working folder by semihosting, or ends
 * the program. */
FILE *open_output(const char *path, const char *mode);

#endif
