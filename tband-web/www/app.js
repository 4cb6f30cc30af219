// The page: collects trace files, hands them to the converter worker, and
// shows its progress, the summary, the download and the Perfetto UI button.
const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';

const $ = (id) => document.getElementById(id);
const chosen = []; // { file, coreInput }
let traceUrl = null;
let traceBlob = null;
let traceName = '';

$('picker').addEventListener('change', (e) => {
  addFiles(e.target.files);
  e.target.value = '';
});
const drop = $('drop');
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  addFiles(e.dataTransfer.files);
});
$('clear').addEventListener('click', () => {
  chosen.length = 0;
  $('files').tBodies[0].replaceChildren();
  updateButtons();
});
$('convert').addEventListener('click', convert);
$('open-perfetto').addEventListener('click', openInPerfetto);

function addFiles(files) {
  for (const file of files) {
    const row = $('files').tBodies[0].insertRow();
    row.insertCell().textContent = file.name;
    const size = row.insertCell();
    size.className = 'bytes';
    size.textContent = file.size.toLocaleString('en');
    const coreInput = document.createElement('input');
    coreInput.type = 'number';
    coreInput.min = '0';
    coreInput.placeholder = 'auto';
    coreInput.title = 'The core this stream was recorded on (a multi-core tband set)';
    row.insertCell().append(coreInput);
    chosen.push({ file, coreInput });
  }
  updateButtons();
}

function updateButtons() {
  $('files').hidden = chosen.length === 0;
  $('convert').disabled = chosen.length === 0;
  $('clear').disabled = chosen.length === 0;
}

function setState(state) {
  document.body.dataset.state = state;
  $('status').hidden = state !== 'working';
  $('convert').disabled = state === 'working' || chosen.length === 0;
}

function convert() {
  const files = chosen.map(({ file, coreInput }) => ({
    file,
    core: coreInput.value === '' ? null : Number(coreInput.value),
  }));
  $('error').hidden = true;
  $('result').hidden = true;
  setState('working');
  showProgress('starting', 0, 0);
  const worker = nextWorker;
  const startedAt = now();
  const parts = [];
  const finished = () => {
    worker.terminate();
    nextWorker = startWorker();
  };
  worker.onmessage = ({ data }) => {
    if (data.progress) {
      const { stage, done, total } = data.progress;
      showProgress(stage, done, total);
      return;
    }
    if (data.chunk) {
      parts.push(new Blob([data.chunk]));
      return;
    }
    finished();
    if (data.error) {
      showError(data.error);
    } else {
      const { summary, timings } = data.result;
      const trace = new Blob(parts, { type: 'application/octet-stream' });
      timings.exportMs = now() - timings.exportStartedAt;
      timings.totalMs = now() - startedAt;
      showResult(files[0].file.name, { summary, trace, timings });
    }
  };
  worker.onerror = (e) => {
    finished();
    showError(`the converter stopped: ${e.message}`);
  };
  worker.postMessage({ files });
}

// A worker per conversion, so that its memory is returned when it ends;
// each is started when the page is free, to warm up (worker.js) while the
// user chooses files.
let nextWorker = startWorker();

// Milliseconds on a clock that the page and its workers share.
function now() {
  return performance.timeOrigin + performance.now();
}

function startWorker() {
  return new Worker('worker.js', { type: 'module' });
}

function showProgress(stage, done, total) {
  const bar = $('progress');
  if (total > 0) {
    bar.value = done / total;
    $('stage').textContent = `${stage}: ${Math.floor((100 * done) / total)}%`;
  } else {
    bar.removeAttribute('value');
    $('stage').textContent = `${stage}…`;
  }
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = false;
  setState('error');
}

function showResult(firstName, { summary, trace, timings }) {
  if (traceUrl) URL.revokeObjectURL(traceUrl);
  traceBlob = trace;
  traceName = `${firstName}.pftrace`;
  traceUrl = URL.createObjectURL(trace);
  const link = $('download');
  link.href = traceUrl;
  link.download = traceName;
  link.textContent = `Download ${traceName}`;
  $('trace-size').textContent =
    `${formatBytes(trace.size)}, converted in ${(timings.totalMs / 1000).toFixed(2)} s`;
  $('trace-size').dataset.timings = JSON.stringify(timings);
  $('summary').textContent = summary;
  $('result').hidden = false;
  setState('done');
}

// Perfetto's documented way to hand a trace to its UI: open it, PING until
// it answers PONG (it is ready), then post the trace buffer (read from the
// Blob meanwhile: the page holds the trace as a Blob until it is asked for).
function openInPerfetto() {
  const ui = window.open(PERFETTO_ORIGIN);
  if (!ui) {
    showError('the browser blocked the Perfetto UI window; allow pop-ups for this page');
    return;
  }
  const buffer = traceBlob.arrayBuffer();
  const ping = setInterval(() => ui.postMessage('PING', PERFETTO_ORIGIN), 50);
  const onMessage = async (e) => {
    if (e.origin !== PERFETTO_ORIGIN || e.data !== 'PONG') return;
    clearInterval(ping);
    window.removeEventListener('message', onMessage);
    ui.postMessage({ perfetto: { buffer: await buffer, title: traceName } }, PERFETTO_ORIGIN);
  };
  window.addEventListener('message', onMessage);
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
