// Drives the real Perfetto UI in headless Chromium for tests/perfetto_ui.rs,
// as a user of `tband-perfetto --serve` would: opens the printed link,
// answers the accelerator dialog, looks at the timeline and at the views
// the link defined, adds the printed extension server in the settings,
// reloads, and runs macros from the command palette. Reports what the page
// showed as JSON on stdout.
//
//   TBAND_PERFETTO_UI=DIR node drive_ui.mjs JOB.json
//
// DIR, the Perfetto UI folder, is served on the link's origin. The job:
//   { link, extension, linkTabs: [title], focusTrack, views: [view],
//     macros: [title], macroShot: title, screenshots: DIR, patienceMs }
// (patienceMs: how long any one wait may take, 2 minutes unless given)
// linkTabs are the query tabs the link opens, focusTrack the track the
// timeline's screenshot starts at, macroShot the macro it shows run. The
// report:
//   { startupIssues: text | null, linkTabs: [{ title, table }],
//     linkPinned: [name], tracks: [[ancestor, ..., name]],
//     crashedTracks: [name], views: { view: table }, modules: [label],
//     macros: [{ title, table, pinned: [name] }], timings: { phase: ms } }
// where a table is { columns, rows, error }, each cell as the UI's own
// export (Export > Download > Tab Separated Values) writes it. The
// screenshots: link.png (what the link opens), timeline.png (every group
// expanded), add-server.png (the dialog filled in), macro.png (macroShot
// run); failure.png if the drive fails.
import { createServer } from 'node:http';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { chromium } from 'playwright-core';

const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
const uiDir = process.env.TBAND_PERFETTO_UI;
if (!uiDir) {
  console.error('drive_ui.mjs: set TBAND_PERFETTO_UI to the folder of the Perfetto UI');
  process.exit(2);
}

// The files of the UI folder.
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

// Loading a trace, or a large query, takes seconds; nothing here should take
// minutes, unless the job says how long to wait (a benchmark's large trace).
const LONG = job.patienceMs ?? 120_000;

const timings = {};
const pageErrors = [];
const started = Date.now();
let phaseStart = started;
// Ends a phase: its time.
function phase(name) {
  const now = Date.now();
  timings[name] = now - phaseStart;
  phaseStart = now;
  noPageErrors(name);
}

// Ends the drive if the page has thrown: the UI may have stopped redrawing.
function noPageErrors(after) {
  if (pageErrors.length > 0) throw new Error(`the page threw by the end of "${after}": ${[...new Set(pageErrors)].join('; ')}`);
}

const server = await serveFolder(resolve(uiDir), new URL(job.link));
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
let report;
try {
  report = await drive(await browser.newContext({
    // The extension server's certificate is one tband-perfetto made.
    serviceWorkers: 'block',
    ignoreHTTPSErrors: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 800 },
  }));
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(report));

// Runs the job in a page of `context`; on a failure, leaves a screenshot of
// the page as it was (`failure.png`).
async function drive(context) {
  // Headless Chromium has no GPU, and the UI's WebGL drawing of track
  // rectangles then leaves some tracks blank; the UI's own flag draws them
  // with Canvas 2D, as a user would set it on its Flags page.
  await context.addInitScript(() =>
    localStorage.setItem('perfettoFeatureFlags', JSON.stringify({ webglRendering: 'OVERRIDE_FALSE' })),
  );
  const page = await context.newPage();
  try {
    return await steps(page);
  } catch (e) {
    if (job.screenshots) await page.screenshot({ path: join(job.screenshots, 'failure.png') });
    throw e;
  }
}

async function steps(page) {
  page.on('pageerror', (e) => pageErrors.push(e.message));
  if (job.screenshots) {
    await mkdir(job.screenshots, { recursive: true });
    await rm(join(job.screenshots, 'failure.png'), { force: true });
  }
  const shot = async (name) => {
    if (!job.screenshots) return;
    // A pointer over the timeline highlights what it is over.
    await page.mouse.move(0, 0);
    await writeFile(join(job.screenshots, `${name}.png`), await settled(page));
  };

  await page.goto(job.link);
  const accept = page.getByRole('button', { name: 'YES, use loaded trace' });
  await accept.waitFor({ timeout: LONG });
  phase('load');
  await openLoadedTrace(page);
  phase('open');
  await waitUntilIdle(page);
  phase('timeline');
  const startupIssues = await dialogText(page, 'Some startup commands did not run');
  if (startupIssues !== null) await page.getByRole('button', { name: 'Dismiss' }).click();
  // The cookie notice would cover the screenshots.
  await page.locator('.pf-cookie-consent').getByRole('button', { name: 'OK' }).click();

  // What the link's startup commands showed and pinned.
  const linkTabs = [];
  for (const title of job.linkTabs) {
    await page.locator('.pf-drawer-panel__tabs > *', { hasText: title }).first().click();
    linkTabs.push({ title, table: await resultTable(page, title) });
  }
  const linkPinned = await pinnedTracks(page);
  await shot('link');
  await runCommand(page, 'Unpin all pinned tracks');
  phase('link');

  await runCommand(page, 'Expand all track groups');
  const tracks = await trackPaths(page, '.pf-timeline-page__scrolling-track-tree');
  const crashedTracks = await page
    .locator('.pf-track__header:has(.pf-track__canvas--error) .pf-track__title')
    .allInnerTexts();
  await page.getByTitle('Hide panel').click();
  await page
    .locator('.pf-timeline-page__scrolling-track-tree .pf-track__shell', { hasText: job.focusTrack })
    .first()
    .evaluate((shell) => shell.scrollIntoView({ block: 'start' }));
  // The tracks brought into view load their data.
  await waitUntilIdle(page);
  await shot('timeline');
  await page.getByTitle('Show panel').click();
  phase('tracks');

  const views = {};
  for (const view of job.views) {
    const sql = `SELECT * FROM ${view}`;
    // ':' turns the search box into a query box.
    await page.locator('.pf-omnibox input').click();
    await page.keyboard.type(':');
    // Filled as one input event (keys typed one by one while the box
    // redraws can be lost), and submitted once the box has redrawn with it.
    await page.locator('.pf-omnibox--query-mode input').fill(sql);
    await nextFrame(page);
    await page.keyboard.press('Enter');
    views[view] = await resultTable(page, 'Omnibox query', sql);
  }
  phase('views');

  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('button', { name: 'Add Server' }).first().click();
  await page.getByRole('radio', { name: /HTTPS$/ }).click();
  await page.getByPlaceholder('https://example.com/path/to/extensions').fill(job.extension);
  // The dialog fetches the manifest and lists its modules, `default` checked.
  const checked = page.locator('.pf-modal-dialog label:has(input[type=checkbox]:checked)');
  await checked.first().waitFor({ timeout: LONG });
  const modules = (await checked.allInnerTexts()).map((m) => m.trim());
  await shot('add-server');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.locator('.pf-extension-servers-settings__item').first().waitFor();
  phase('addServer');

  // Extension servers are loaded when the page loads.
  await page.reload();
  await openLoadedTrace(page);
  await waitUntilIdle(page);
  phase('reload');

  const macros = [];
  for (const title of job.macros) {
    await runCommand(page, 'Unpin all pinned tracks');
    await runCommand(page, title);
    const table = await resultTable(page, title);
    macros.push({ title, table, pinned: await pinnedTracks(page) });
    if (title === job.macroShot) await shot('macro');
    phase(`macro ${title}`);
  }
  timings.total = Date.now() - started;
  return { tracks, crashedTracks, startupIssues, linkTabs, linkPinned, views, modules, macros, timings };
}

// Answers "Use trace processor native acceleration?" with the trace the
// trace processor has loaded, and waits for the first track.
async function openLoadedTrace(page) {
  await page.getByRole('button', { name: 'YES, use loaded trace' }).click({ timeout: LONG });
  await page.locator('.pf-track__shell').first().waitFor({ timeout: LONG });
}

// Waits until the page's loading bar has stopped for good: the trace is
// loaded, startup commands have run and no query is pending, also a frame
// later (a track drawn asks for its data then).
async function waitUntilIdle(page) {
  const loading = page.locator('.pf-ui-main__loading.pf-linear-progress--anim');
  do {
    await loading.waitFor({ state: 'detached', timeout: LONG });
    await nextFrame(page);
  } while ((await loading.count()) > 0);
}

// Runs a command from the command palette (Ctrl+Shift+P): types its name
// and picks the entry of that name.
async function runCommand(page, name) {
  await page.keyboard.press('Control+Shift+P');
  await page.locator('.pf-omnibox--command-mode input').fill(name);
  const entry = page.locator('.pf-omnibox-options-container li', {
    has: page.locator('.pf-title').getByText(name, { exact: true }),
  });
  try {
    await entry.waitFor({ timeout: 10_000 });
  } catch {
    const offered = await page.locator('.pf-omnibox-options-container .pf-title').allInnerTexts();
    throw new Error(`the command palette offers no "${name}" but: ${offered.join(', ') || 'nothing'}`);
  }
  await entry.click();
  await waitUntilIdle(page);
  noPageErrors(name);
}

// Resolves after the page has drawn a frame (the UI redraws in animation
// frames).
function nextFrame(page) {
  return page.evaluate(() => new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn))));
}

// A screenshot of the page once it has stopped changing for a second:
// tracks draw their data as it comes, some in later frames.
async function settled(page) {
  const deadline = Date.now() + LONG;
  let last = await page.screenshot();
  let since = Date.now();
  while (Date.now() - since < 1000) {
    await page.waitForTimeout(200);
    const now = await page.screenshot();
    if (!now.equals(last)) {
      if (Date.now() > deadline) throw new Error('the page kept changing');
      [last, since] = [now, Date.now()];
    }
  }
  return last;
}

// The text of the open dialog with this title, or null when there is none.
async function dialogText(page, title) {
  const dialog = page.locator('.pf-modal-dialog', { hasText: title });
  return (await dialog.count()) > 0 ? (await dialog.innerText()).trim() : null;
}

// Every track shell under the element `root` (none if it is not there), as
// the titles of its tracks from the top.
function trackPaths(page, root) {
  return page.evaluate((root) => {
    const tree = document.querySelector(root);
    if (!tree) return [];
    return [...tree.querySelectorAll('.pf-track__shell')].map((shell) => {
      const path = [];
      for (let track = shell.closest('.pf-track'); tree.contains(track); track = track.parentElement.closest('.pf-track')) {
        // A lite shell (a track out of view) is its title alone.
        const own = track.querySelector(':scope > .pf-track__header > .pf-track__shell');
        path.unshift((own.querySelector('.pf-track__title') ?? own).innerText.trim());
      }
      return path;
    });
  }, root);
}

// The names of the pinned tracks.
async function pinnedTracks(page) {
  return (await trackPaths(page, '.pf-timeline-page__pinned-track-tree')).map((path) => path.at(-1));
}

// Waits for the query tab titled `title` to show the result of `sql` (of
// any query without it), and reads it back through the tab's own export.
async function resultTable(page, title, sql) {
  // A query tab is titled with its row count once the rows are in.
  const tab = page.locator('.pf-drawer-panel__tabs > *', { hasText: new RegExp(`^${escapeRegExp(title)} \\(\\d+\\)`) });
  await tab.waitFor({ timeout: LONG });
  const details = page.locator('.pf-details-shell', {
    has: page.locator('.pf-header-title').getByText(title, { exact: true }),
  });
  if (sql !== undefined) await details.locator('.pf-header-description', { hasText: sql }).waitFor({ timeout: LONG });
  const error = details.locator('.pf-results-table__error-message');
  if ((await error.count()) > 0) return { columns: [], rows: [], error: (await error.innerText()).trim() };
  await details.getByRole('button', { name: 'Export' }).click();
  await page.locator('.pf-menu-item', { hasText: /^Download/ }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('.pf-menu-item', { hasText: 'Tab Separated Values (.tsv)' }).click(),
  ]);
  const tsv = await readFile(await download.path(), 'utf8');
  await page.keyboard.press('Escape');
  const [header, ...lines] = tsv.split('\n');
  return { columns: header.split('\t'), rows: lines.map((l) => l.split('\t')), error: null };
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Serves the files of `dir` on the origin of `url` (its host and port).
async function serveFolder(dir, url) {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, url).pathname);
    const file = resolve(dir, '.' + (path.endsWith('/') ? `${path}index.html` : path));
    if (file !== dir && !file.startsWith(dir + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((ready, failed) => {
    server.once('error', failed);
    server.listen(Number(url.port), url.hostname, ready);
  });
  return server;
}
