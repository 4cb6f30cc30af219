// Converts the trace files it is sent with the WebAssembly build of the
// tband libraries, posting its progress, then the summary and the trace.
import init, { Files, simulated_trace } from './pkg/tband_web.js';

const ready = init().then(warmUp);
const READ_BYTES = 1 << 20;
const WARM_UP_BYTES = 2 << 20;

// V8 runs WebAssembly first as its quick compiler made it, and optimises a
// function only once it has run a while: converting a small simulated
// trace while the page waits for files lets the user's first conversion
// run on optimised code.
function warmUp() {
  const quiet = { progress() {} };
  const bytes = simulated_trace(WARM_UP_BYTES);
  const files = new Files();
  files.begin('warm-up.bin', undefined, bytes.length);
  files.append(bytes);
  files.end();
  const converted = files.open(quiet);
  converted.summary();
  converted.perfetto({ ...quiet, chunk() {} });
  converted.free();
}

self.onmessage = async ({ data: { files } }) => {
  try {
    const started = performance.now();
    await ready;
    const total = files.reduce((sum, f) => sum + f.file.size, 0);
    const given = new Files();
    let read = 0;
    for (const { file, core } of files) {
      given.begin(file.name, core ?? undefined, file.size);
      // Read in slices of a size of our own: a stream's chunks are as
      // large as the browser likes, up to megabytes, too few to show
      // the reading's progress.
      for (let at = 0; at < file.size; at += READ_BYTES) {
        const slice = new Uint8Array(await file.slice(at, at + READ_BYTES).arrayBuffer());
        given.append(slice);
        read += slice.length;
        progress(`reading ${file.name}`, read, total);
      }
      given.end();
    }
    const readMs = performance.now() - started;
    progress('decoding', 0, 0);
    const converted = given.open(listener('decoding'));
    const decodedMs = performance.now() - started;
    const summary = converted.summary();
    const summarisedMs = performance.now() - started;
    // Each chunk is copied out of the module's memory and handed to the
    // page, which makes it a Blob (which the browser may keep outside the
    // page's memory) while this worker goes on with the next.
    progress('writing the Perfetto trace', 0, 0);
    converted.perfetto({
      ...listener('writing the Perfetto trace'),
      chunk: (bytes) => {
        const chunk = bytes.slice();
        self.postMessage({ chunk }, [chunk.buffer]);
      },
    });
    converted.free();
    // The page ends the export's timing when it has made the last chunk a
    // Blob: from when it began here, on the clock both share.
    const timings = {
      readMs,
      decodeMs: decodedMs - readMs,
      summaryMs: summarisedMs - decodedMs,
      exportStartedAt: performance.timeOrigin + started + summarisedMs,
    };
    self.postMessage({ result: { summary, timings } });
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};

// Posts `done` of `total` for `stage` when it is a new stage, or at least
// a percent further than the last posted, or the end: about a hundred
// messages a stage, however often the converter tells.
let posted = { stage: '', fraction: 0 };
function progress(stage, done, total) {
  const fraction = total > 0 ? done / total : 0;
  const further = fraction >= posted.fraction + 0.01 || (fraction >= 1 && posted.fraction < 1);
  if (stage === posted.stage && !further) return;
  posted = { stage, fraction };
  self.postMessage({ progress: { stage, done, total } });
}

// What the converter tells its progress to during `stage`.
function listener(stage) {
  return { progress: (done, total) => progress(stage, done, total) };
}
