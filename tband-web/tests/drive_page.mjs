// Drives the built page in headless Chromium for tests/browser.rs and the
// benchmark: for each job, gives the page its files, converts, and reports
// what the page shows (JSON on stdout).
//
//   node tests/drive_page.mjs URL JOBS.json
//
// A job is { files: [{ path, core }], download?: PATH, screenshot?: PATH }.
// Its report: { summary, error, timings, progress, peakRendererKiB }, with the
// download saved through the page's own link.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [url, jobsPath] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(jobsPath, 'utf8'));

// The network is closed: no background connections, no sandbox as root.
const browser = await chromium.launch({
  executablePath: process.env.TBAND_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const reports = [];
try {
  for (const job of jobs) {
    reports.push(await run(job));
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(reports));

async function run(job) {
  const page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1100, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(url);
  await page.setInputFiles('#picker', job.files.map((f) => f.path));
  const cores = page.locator('#files input[type=number]');
  for (const [i, f] of job.files.entries()) {
    if (f.core !== null && f.core !== undefined) await cores.nth(i).fill(String(f.core));
  }
  await page.evaluate(recordProgress);
  await page.click('#convert');
  await page.waitForSelector('body[data-state=done], body[data-state=error]', { timeout: 600_000 });
  const state = await page.getAttribute('body', 'data-state');
  const progress = await page.evaluate(() => window.shownProgress);
  const report = { peakRendererKiB: peakRendererKiB(), pageErrors, progress };
  if (state === 'error') {
    report.error = await page.textContent('#error');
  } else {
    report.summary = await page.textContent('#summary');
    report.timings = JSON.parse(await page.getAttribute('#trace-size', 'data-timings'));
    if (job.download) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
      report.downloadName = download.suggestedFilename();
      await download.saveAs(job.download);
    }
    if (job.screenshot) await page.screenshot({ path: job.screenshot });
  }
  await page.close();
  return report;
}

// Keeps every progress line the page shows (`window.shownProgress`).
function recordProgress() {
  window.shownProgress = [];
  const stage = document.getElementById('stage');
  new MutationObserver(() => window.shownProgress.push(stage.textContent)).observe(stage, {
    childList: true,
    characterData: true,
    subtree: true,
  });
}

// The largest resident size any Chromium renderer process (where the page
// and its worker run) has had: the kernel's high-water mark of each, read
// once the conversion is over, as sampling would take the page's CPU time
// (a renderer that has exited since it was listed is passed over).
function peakRendererKiB() {
  let peak = 0;
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  for (const line of ps.split('\n')) {
    if (!line.includes('--type=renderer')) continue;
    let status;
    try {
      status = readFileSync(`/proc/${parseInt(line, 10)}/status`, 'utf8');
    } catch {
      continue;
    }
    const highWater = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    if (highWater) peak = Math.max(peak, Number(highWater[1]));
  }
  return peak;
}
