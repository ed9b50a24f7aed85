// Browser test of the server section of a run's job page: what the
// database server was doing (active sessions by wait class, statistics,
// settings). cmd/sledge/browser_test.go (TestWebUIObservedInChromium)
// stores an observed run and a run that was not observed in a fresh
// repository and runs this script against a server over it:
//
//   node observed.mjs URL ARTIFACT_DIR OBSERVED_ID UNOBSERVED_ID [LIVE_ID]
//
// LIVE_ID is a run going on against a real PostgreSQL server: its live
// page must draw the active sessions chart under the TPM chart and add
// bars as the run's intervals are cut; the script then stops the run from
// the page.
//
// $CHROMIUM names the browser (default /usr/bin/chromium). It checks that
// the observed job's page draws the stacked chart with a legend of the
// stored wait classes, the statistics and the settings table, and that the
// other job's page says it was not observed and draws none of it.
// Screenshots go to ARTIFACT_DIR; any failure exits 1 with failure.png.
// Every wait is for what the page shows and lasts until
// $SLEDGE_DEADLINE_MS (milliseconds since the epoch, set by
// browser_test.go from the test's deadline; else 10 minutes from the
// start): a busy machine only makes it slower.
// Console errors and requests to any other origin fail the test too.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { trackRequests } from './requests.mjs';

const [base, artifactsArg, observedID, unobservedID, liveID] = process.argv.slice(2);
if (!/^https?:\/\//.test(base || '') || !observedID || !unobservedID) {
  console.error('usage: node observed.mjs URL ARTIFACT_DIR OBSERVED_ID UNOBSERVED_ID');
  process.exit(2);
}
const artifacts = path.resolve(artifactsArg);
mkdirSync(artifacts, { recursive: true });
const origin = new URL(base).origin;
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

class Failure extends Error {}
function check(cond, msg) { if (!cond) throw new Failure(msg); }
const sel = id => `[data-testid="${id}"]`;
const t0 = Date.now();
const log = msg => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);
const deadline = Number(process.env.SLEDGE_DEADLINE_MS) || Date.now() + 10 * 60 * 1000;
// timeLeft is how long a wait may last from now: until the deadline.
const timeLeft = () => Math.max(1000, deadline - Date.now());
// step names what the script does next (for a failure's message) and
// gives its waits the time left.
let stepSince = Date.now();
// A step that has gone on for a minute says so every 30 s, with the page's
// requests: a stalled browser or server shows in the log, not only as a
// test killed at its deadline.
setInterval(() => {
  const s = (Date.now() - stepSince) / 1000;
  if (s >= 60) log(`  … still at step "${stepName}" after ${s.toFixed(0)} s` + (requests ? '\n' + requests.report() : ''));
}, 30000).unref();
function step(name) {
  stepName = name;
  stepSince = Date.now();
  log('▶ ' + name);
  page.setDefaultTimeout(timeLeft());
}

const consoleErrors = [];
const foreignRequests = [];
let browser, page, requests, stepName = 'start';

async function main() {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(timeLeft());
  requests = trackRequests(page, base, t0);
  page.on('console', m => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', e => consoleErrors.push('uncaught: ' + (e.stack || e.message)));
  context.on('request', r => {
    const u = r.url();
    if (u.startsWith('data:') || u.startsWith('blob:')) return;
    let o = '';
    try { o = new URL(u).origin; } catch (e) { /* unparsable: foreign */ }
    if (o !== origin) foreignRequests.push(`${r.method()} ${u}`);
  });

  step('observed job: active sessions chart, statistics, settings');
  await page.goto(`${base}/#/jobs/${observedID}`);
  await page.locator(sel('aas-chart-svg')).waitFor();
  const legend = (await page.locator(`${sel('aas-chart-legend')} > span`).allTextContents()).map(s => s.trim());
  log('  legend: ' + legend.join(', '));
  for (const c of ['CPU', 'IO', 'Lock', 'LWLock', 'Client']) check(legend.includes(c), `the legend lacks ${c}: ${legend.join(', ')}`);
  check(legend.indexOf('CPU') === 0, `CPU is not the first class: ${legend.join(', ')}`);
  // The Lock spike is stored in intervals 6 and 7 only (0-based 5, 6).
  const lockBars = await page.locator('[data-testid^="aas-chart-bar-"][data-testid$="-Lock"]').evaluateAll(
    els => els.map(e => ({ id: e.dataset.testid, h: Number(e.getAttribute('height')) })));
  const tall = lockBars.filter(b => b.h > 20).map(b => b.id);
  check(tall.length === 2 && tall.includes('aas-chart-bar-5-Lock') && tall.includes('aas-chart-bar-6-Lock'),
    `tall Lock bars ${JSON.stringify(lockBars)}, want those of intervals 5 and 6`);
  // Bars of one interval stack: CPU's top is the next class's bottom.
  const cpu = page.locator(sel('aas-chart-bar-5-CPU'));
  const lock = page.locator(sel('aas-chart-bar-5-Lock'));
  const cpuTop = Number(await cpu.getAttribute('y'));
  const lockBottom = Number(await lock.getAttribute('y')) + Number(await lock.getAttribute('height'));
  check(lockBottom <= cpuTop + 0.5, `Lock (bottom ${lockBottom}) is not stacked above CPU (top ${cpuTop})`);
  check(await page.locator(sel('aas-chart-gap-8')).count() === 1, 'the gap in interval 9 is not marked');
  const stats = await page.locator(sel('server-stats')).textContent();
  for (const want of ['PostgreSQL 16.4', 'Commits / s', 'Buffer hits', 'Checkpoints begun', 'Host CPU', 'Observer cost', 'Gap', 'Lock:transactionid']) {
    check(stats.includes(want), `the statistics panel lacks "${want}": ${stats}`);
  }
  const kinds = (await page.locator(sel('stat-session-kind')).allTextContents()).map(s => s.replace(/\s+/g, ' ').trim());
  check(kinds.length === 2 && /^sledge vu 3\.00 AAS: CPU 3\.00$/.test(kinds[0]) && /^sledge chbench analytic 0\.50 AAS: IO 0\.50$/.test(kinds[1]),
    `the sessions by kind say ${JSON.stringify(kinds)}`);
  const settings = page.locator(sel('settings-table'));
  await settings.waitFor();
  const sb = (await page.locator(sel('setting-shared_buffers')).textContent()).replace(/\s+/g, ' ');
  check(/shared_buffers\s*1GB\s*configuration file/.test(sb), `the shared_buffers row says ${JSON.stringify(sb)}`);
  check(await settings.locator('tbody tr').count() === 4, 'the settings table does not have the 4 stored settings');
  // The section sits under the interval charts.
  const tpmBox = await page.locator(sel('chart-tpm')).boundingBox();
  const aasBox = await page.locator(sel('aas-chart')).boundingBox();
  check(tpmBox && aasBox && aasBox.y > tpmBox.y, 'the active sessions chart is not under the TPM chart');
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(artifacts, 'observed-job.png'), fullPage: true });
  // The sticky top bar would cover the element's screenshot.
  await page.evaluate(() => { document.querySelector('.topbar').style.position = 'static'; });
  await page.locator(sel('observed')).screenshot({ path: path.join(artifacts, 'observed-section.png') });
  log('  screenshots observed-job.png, observed-section.png');

  step('job not observed: one line saying why');
  await page.goto(`${base}/#/jobs/${unobservedID}`);
  const line = (await page.locator(sel('not-observed')).textContent()).trim();
  check(/not observed/.test(line), `the line says ${JSON.stringify(line)}`);
  check(await page.locator(sel('aas-chart')).count() === 0 && await page.locator(sel('settings-table')).count() === 0,
    'a job not observed shows a chart or settings');
  // Its thresholds: a table of the verdicts, the failed ones counted.
  const ths = page.locator(sel('thresholds-panel'));
  await ths.waitFor();
  const head = await ths.textContent();
  check(head.includes('Thresholds: 2 of 3 failed'), `the thresholds panel says ${JSON.stringify(head)}`);
  const rows = [0, 1, 2].map(i => page.locator(sel('threshold-row-' + i)));
  const texts = await Promise.all(rows.map(r => r.textContent()));
  check(/nopm>=40000\s*41,?000\s*pass/.test(texts[0]), `threshold row 0 says ${JSON.stringify(texts[0])}`);
  check(/p99\(new_order\)<5ms\s*12\.5ms\s*FAIL/.test(texts[1]), `threshold row 1 says ${JSON.stringify(texts[1])}`);
  check(/p99\(delivery\)<1s\s*—\s*FAIL/.test(texts[2]), `threshold row 2 says ${JSON.stringify(texts[2])}`);
  check((await rows[2].getAttribute('title')) === 'no transaction completed in the window', 'the unmeasured row has no note');
  await page.screenshot({ path: path.join(artifacts, 'not-observed-job.png'), fullPage: true });

  if (process.env.AGENTS_ID) await agentsPanel(process.env.AGENTS_ID);
  if (process.env.IMPORTED_ID) await importedJob(process.env.IMPORTED_ID, observedID);
  if (process.env.MIXED_ID) await mixedJob(process.env.MIXED_ID);
  if (liveID) await livePage();

  check(consoleErrors.length === 0, `the browser console has errors:\n  ${consoleErrors.join('\n  ')}`);
  check(foreignRequests.length === 0, `requests left ${origin}:\n  ${foreignRequests.join('\n  ')}`);
}

// agentsPanel opens a run driven by two agents, one lost: the Agents panel
// lists both in segment order with their states and the first's share.
async function agentsPanel(id) {
  step('run of two agents: the Agents panel');
  await page.goto(`${base}/#/jobs/${id}`);
  await page.locator(sel('agents-table')).waitFor();
  const rows = await page.locator(`${sel('agents-table')} tbody tr`).evaluateAll(trs => trs.map(
    tr => [...tr.cells].map(td => td.textContent.replace(/\s+/g, ' ').trim()).join(' ')));
  log('  ' + rows.join(' | '));
  check(rows.length === 2, `${rows.length} agent rows, want 2`);
  check(/^0\/2 client1 \(pid 101\) 4 \(1–4\) done 20,500 30\.4 µs 0\.0 ms$/.test(rows[0]), `the first agent's row: ${rows[0]}`);
  check(/^1\/2 client2 \(pid 202\) 4 \(5–8\) lost — — 3\.0 ms$/.test(rows[1]), `the lost agent's row: ${rows[1]}`);
  await page.locator(sel('agents-panel')).screenshot({ path: path.join(artifacts, 'agents-panel.png') });
  log('  screenshot agents-panel.png');
}

// mixedJob opens a stored CH-benCHmark mixed run: its Analytic streams
// section shows the baseline and mixed NOPM with their ratio, and draws NOPM
// and the queries completed per minute over the run's intervals.
async function mixedJob(id) {
  step('mixed run: the Analytic streams section');
  await page.goto(`${base}/#/jobs/${id}`);
  const panel = page.locator(sel('mixed-panel'));
  await panel.waitFor();
  check((await page.locator(sel('mixed-interference')).textContent()).trim() === '0.500',
    `interference says ${await page.locator(sel('mixed-interference')).textContent()}`);
  check(/40,?000/.test(await page.locator(sel('mixed-baseline')).textContent()), 'the baseline NOPM is not 40,000');
  const chart = page.locator(sel('mixed-chart'));
  await chart.locator('.uplot').waitFor();
  check(await chart.getAttribute('data-points') === '12', `the chart has ${await chart.getAttribute('data-points')} points, want the 12 intervals`);
  check(await page.locator(`${sel('mixed-queries')} tbody tr`).count() === 22, 'the per-query table has not 22 rows');
  // Each query's latencies read from its histogram (Q2 ran twice, 80 ms;
  // three significant digits), and a strip of its distribution.
  const heads = (await page.locator(`${sel('mixed-queries')} thead th`).allTextContents()).map(s => s.trim());
  check(heads.join('|') === 'Query|Count|Errors|mean s|p50 s|p90 s|p95 s|p99 s|max s|Distribution', `the per-query table's columns are ${heads.join('|')}`);
  const q2 = (await page.locator(`${sel('mixed-queries')} tbody tr`).nth(1).locator('td').allTextContents()).map(s => s.trim());
  check(q2[0] === 'Q2' && q2[1] === '2' && q2[4] === '0.080' && q2[8] === '0.080', `the Q2 row says ${JSON.stringify(q2)}`);
  check(await page.locator('[data-testid^="mixed-query-strip-"]').count() === 22, 'not every query has its distribution strip');
  const txRow = (await page.locator(`${sel('mixed-tx')} tbody tr`).first().textContent()).replace(/\s+/g, ' ');
  check(/new_order.*1\.00 \/ 2\.00 \/ 3\.00.*4\.00 \/ 8\.00 \/ 16\.00/.test(txRow), `the latency table's first row says ${JSON.stringify(txRow)}`);
  await page.evaluate(() => { document.querySelector('.topbar').style.position = 'static'; });
  await panel.screenshot({ path: path.join(artifacts, 'mixed-section.png') });
  log('  screenshot mixed-section.png');
}

// importedJob opens the observed run imported back (sledge jobs import):
// marked imported with its origin, in the list and on its page, which
// shows its server section as the original's does.
async function importedJob(id, from) {
  step('imported job: marked, with its origin, and read as any other');
  await page.goto(`${base}/#/jobs/${id}`);
  await page.locator(sel('aas-chart-svg')).waitFor();
  const badge = (await page.locator(sel('job-imported')).textContent()).trim();
  check(badge === 'imported', `the imported badge says ${JSON.stringify(badge)}`);
  const title = await page.locator(sel('job-imported')).getAttribute('title');
  check(new RegExp(`^imported: job ${from} of .*; read-only$`).test(title || ''), `the badge's title says ${JSON.stringify(title)}`);
  const origin = (await page.locator(sel('job-origin')).textContent()).replace(/\s+/g, ' ').trim();
  check(origin.startsWith(`Imported from job #${from} of `) && origin.endsWith('(read-only)'), `the origin says ${JSON.stringify(origin)}`);
  await page.screenshot({ path: path.join(artifacts, 'imported-job.png'), fullPage: true });
  await page.goto(base + '/#/');
  await page.locator(sel('job-imported-' + id)).waitFor();
  check(await page.locator(sel('job-imported-' + from)).count() === 0, 'the original job is marked imported in the list');
  log('  screenshot imported-job.png');
}

// livePage watches a running job: the server section fills in and grows
// while the run goes on, then the run is stopped from the page.
async function livePage() {
  step('live job: active sessions chart grows while the run goes on');
  await page.goto(`${base}/#/jobs/${liveID}`);
  await page.locator(sel('stop-button')).waitFor();
  await page.locator(sel('live-aas-chart-svg')).waitFor();
  // Each interval drawn has its column; those with active sessions, bars.
  const columns = () => page.locator('[data-testid^="live-aas-chart-iv-"]').count();
  const first = await columns();
  check(await page.locator('[data-testid^="live-aas-chart-bar-"]').count() >= 1, 'the live chart has no bars');
  const legend = (await page.locator(`${sel('live-aas-chart-legend')} > span`).allTextContents()).map(s => s.trim());
  log(`  ${first} interval(s) drawn; legend: ${legend.join(', ')}`);
  check(legend.length >= 1, 'the live chart has no legend');
  // The run cuts an interval every second; the page re-reads every 2 s.
  // Over when the run is: intervals that stop coming fail then.
  const grew = await (await page.waitForFunction(n => document.querySelectorAll('[data-testid^="live-aas-chart-iv-"]').length >= n + 2 ||
    (document.querySelector('[data-testid="job-status"]') || {}).textContent !== 'running', first, { polling: 200 })).jsonValue();
  const later = await columns();
  check(grew && later >= first + 2, `the live chart stayed at ${later} intervals until the run ended`);
  log(`  ${later} intervals drawn a few seconds later`);
  const tpmBox = await page.locator(sel('chart-tpm')).boundingBox();
  const aasBox = await page.locator(sel('live-aas-chart')).boundingBox();
  check(tpmBox && aasBox && aasBox.y > tpmBox.y, 'the live active sessions chart is not under the TPM chart');
  await page.screenshot({ path: path.join(artifacts, 'observed-live.png'), fullPage: true });
  // The ramp-up (2 s, two 1 s intervals) is shaded up to the end of the
  // interval it ends with. Both are read in one go (the chart is redrawn as
  // intervals come) from each interval's column, which is there with or
  // without active sessions in it; the shading needs the run's ramp-up
  // intervals: without any, it never comes.
  const series = await (await page.request.get(`${base}/api/jobs/${liveID}/series`)).json();
  check(series.some(iv => iv.phase === 'rampup'), `the run has no ramp-up interval to shade: ${JSON.stringify(series.map(iv => [iv.seq, iv.phase]))}`);
  // Polled on a timer, not on animation frames, and over when the run is:
  // a shading that never comes fails then, not at the test's deadline.
  const ends = await (await page.waitForFunction(() => {
    const status = (document.querySelector('[data-testid="job-status"]') || {}).textContent;
    const r = document.querySelector('[data-testid="live-aas-chart-rampup"]');
    if (!r) return status !== 'running' ? { status } : null;
    const to = Number(r.dataset.to);
    const cols = [...document.querySelectorAll('[data-testid^="live-aas-chart-iv-"]')];
    if (!cols.length) return null;
    const col = cols.reduce((a, b) => Math.abs(Number(b.dataset.to) - to) < Math.abs(Number(a.dataset.to) - to) ? b : a);
    const end = e => Number(e.getAttribute('x')) + Number(e.getAttribute('width'));
    return { ramp: end(r), interval: end(col), to, intervalTo: Number(col.dataset.to) };
  }, null, { polling: 200 })).jsonValue();
  check(!ends.status, `the live chart had no ramp-up shading while the run went on (it ended ${ends.status})`);
  check(Math.abs(ends.ramp - ends.interval) < 4,
    `the ramp-up shading (to ${ends.to} s) ends at x=${ends.ramp}, the interval ending at ${ends.intervalTo} s at x=${ends.interval}`);
  log('  screenshot observed-live.png');
  await page.locator(sel('stop-button')).click();
  // The page turns into the finished job's, with the stored chart.
  await page.locator(sel('aas-chart-svg')).waitFor();
  log('  stopped; the finished page draws the stored chart');
}

let code = 0;
try {
  await main();
  log(`✔ all checks passed; screenshots in ${artifacts}`);
} catch (e) {
  code = 1;
  console.error(`✘ FAILED at step "${stepName}": ${e instanceof Failure ? e.message : (e && e.stack) || e}`);
  if (page) await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
  if (consoleErrors.length) console.error('  console errors:\n    ' + consoleErrors.join('\n    '));
  const reqs = requests ? requests.report() : '';
  if (reqs) console.error(reqs);
} finally {
  if (browser) await browser.close().catch(() => {});
}
process.exit(code);
