/* The application's side of the tband port (tband_port.c). */
#ifndef TBAND_PORT_POSIX_H
#define TBAND_PORT_POSIX_H

/* The file descriptor the streaming backend writes the trace to; times
 * count from this call. */
void tband_port_posix_stream_to(int fd);

#endif
