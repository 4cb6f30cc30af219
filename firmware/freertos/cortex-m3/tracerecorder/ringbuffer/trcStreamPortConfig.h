/* TraceRecorder's RingBuffer stream port for the example
 * (TR_STREAM_PORT=RingBuffer): the recording stays in RAM, in a ring that
 * keeps the newest 16 KiB of events, and is written out at the end. */
#ifndef TRC_STREAM_PORT_CONFIG_H
#define TRC_STREAM_PORT_CONFIG_H

#define TRC_STREAM_PORT_RINGBUFFER_MODE_STOP_WHEN_FULL (0U)
#define TRC_STREAM_PORT_RINGBUFFER_MODE_OVERWRITE_WHEN_FULL (1U)
#define TRC_CFG_STREAM_PORT_BUFFER_SIZE 16384
#define TRC_CFG_STREAM_PORT_RINGBUFFER_MODE TRC_STREAM_PORT_RINGBUFFER_MODE_OVERWRITE_WHEN_FULL

#endif
