// Converts the trace files it is sent with the WebAssembly build of the
// tband libraries, posting its progress, then the summary and the trace.
import init, { Files } from './pkg/tband_web.js';

const ready = init();

self.onmessage = async ({ data: { files } }) => {
  try {
    await ready;
    const started = performance.now();
    const total = files.reduce((sum, f) => sum + f.file.size, 0);
    const given = new Files();
    let read = 0;
    for (const { file, core } of files) {
      const bytes = await readAll(file, (n) => progress(`reading ${file.name}`, read + n, total));
      read += bytes.length;
      given.add(file.name, core ?? undefined, bytes);
    }
    const readMs = performance.now() - started;
    progress('decoding', 0, 0);
    const converted = given.open();
    const decodedMs = performance.now() - started;
    const summary = converted.summary();
    const summarisedMs = performance.now() - started;
    progress('writing the Perfetto trace', 0, 0);
    const trace = converted.perfetto();
    converted.free();
    const doneMs = performance.now() - started;
    const timings = {
      readMs,
      decodeMs: decodedMs - readMs,
      summaryMs: summarisedMs - decodedMs,
      exportMs: doneMs - summarisedMs,
      totalMs: doneMs,
    };
    self.postMessage({ result: { summary, trace: trace.buffer, timings } }, [trace.buffer]);
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};

function progress(stage, done, total) {
  self.postMessage({ progress: { stage, done, total } });
}

// A file's bytes, read in the chunks the browser hands out.
async function readAll(file, onRead) {
  const bytes = new Uint8Array(file.size);
  const reader = file.stream().getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value, at);
    at += value.length;
    onRead(at);
  }
  return bytes;
}
