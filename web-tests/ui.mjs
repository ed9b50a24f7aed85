// Browser test of Sledge's web UI in headless Chromium (playwright-core, the
// system's Chromium: no browser download). cmd/sledge/browser_test.go starts
// a server on a fresh repository and runs this script against it:
//
//   node ui.mjs URL ARTIFACT_DIR [OTHER_URL]   (or $SLEDGE_URL, $SLEDGE_ARTIFACTS, $SLEDGE_OTHER_URL)
//
// $CHROMIUM names the browser (default /usr/bin/chromium). With OTHER_URL
// (a server of another origin whose page at / holds forms aimed at
// ?api=URL) it first has that page — and the same page on URL's host, the
// same site but another origin — send forms and no-cors fetches to the API,
// and checks that the server refused them all and no job appeared. Then it
// starts a TPROC-C run from the form (the target select: the embedded
// default), watches it live, stops it, checks the result page, runs a
// second short job (serializable), checks the jobs list's setup column,
// and compares the two (the settings that differ first, as GET
// /api/compare lists them, then the figures) and three (with a build);
// then builds on the server's
// named target "scratch" with "Replace existing schema" and drops it, each
// only after confirming (declining sends nothing). On the way it checks
// the run page's errors-by-class panel (or its "no errors" line), that the
// interval charts' y axes start at zero, the compare page's neutral band,
// and at the end opens every job's page (runs, builds, the drop) and a run's
// page, the jobs list (ID, result and status first, in view) and the
// compare page at a 390 px wide viewport, which must not scroll sideways,
// nor the compare page's figures inside their panel (mobile-job.png,
// mobile-jobs.png, mobile-compare.png, mobile-compare-table.png). A screenshot of every page
// goes to ARTIFACT_DIR. Any failure exits 1 with a message and a screenshot
// of the page it happened on (failure.png). Every wait is for what the page
// shows and lasts until $SLEDGE_DEADLINE_MS (milliseconds since the epoch,
// set by browser_test.go from the test's deadline; else 10 minutes from
// the start), so that a busy machine only makes it slower; a wait that
// ends there fails the script. Console errors, uncaught
// exceptions, API requests that fail (a 404 for a section a job does not
// have) and requests to any other origin fail the test too.
//
// With $SLEDGE_PROFILE=ID (a profile's first job, run by browser_test.go on
// the same server after the main flow) and $SLEDGE_PROFILE_MEMBER (another
// of its jobs) it checks the profile pages instead: the list of profiles,
// the profile page (NOPM and p95 against VUs, the knee as the API says, the
// table), the link from a member job's page and the jobs list to it, the
// compare page's verdict for two jobs, and the profile page at 390 px;
// with $SLEDGE_ELSEWHERE (a build recorded on another machine against
// another SQLite) that the compare page says both differ, first.
//
// With $SLEDGE_SERIES=ID1,…,IDn (the trials, three or more, of a series browser_test.go
// ran on the same server after the profile) it checks the load models,
// stages and series instead: it starts a staged run (2s:1,10m:2 VUs) and a
// rate run (50 tx/s over 2 connections, 10 min) from the page itself and
// watches each live (the stage bands on the TPM chart and the Load panel's
// stage; the rate run's lag p99, late and scheduled counts), stops it with
// its Stop button once seen (a run of fixed length is too short to be seen
// live on a busy enough machine, and too long on a quiet one), then checks
// their finished pages (the stages table against GET …/result, the bands against the
// stages' times; the Load panel's rate, schedule, drops and lag), the
// Series panel of its trials (each trial, the mean ± half the 95 % CI as
// GET /api/series says, the links between them), the jobs list's "trial
// k/n of series #S", and those pages at 390 px.
import { chromium } from 'playwright-core';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { trackRequests } from './requests.mjs';

const base = (process.argv[2] || process.env.SLEDGE_URL || '').replace(/\/+$/, '');
const artifacts = path.resolve(process.argv[3] || process.env.SLEDGE_ARTIFACTS || 'artifacts');
if (!/^https?:\/\//.test(base)) {
  console.error('usage: node ui.mjs URL [ARTIFACT_DIR]   (or set $SLEDGE_URL and $SLEDGE_ARTIFACTS)');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const origin = new URL(base).origin;
const other = (process.argv[4] || process.env.SLEDGE_OTHER_URL || '').replace(/\/+$/, '');
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const profileID = process.env.SLEDGE_PROFILE || '';
const profileMember = process.env.SLEDGE_PROFILE_MEMBER || '';
const elsewhere = process.env.SLEDGE_ELSEWHERE || '';
const seriesJobs = (process.env.SLEDGE_SERIES || '').split(',').filter(Boolean);

const t0 = Date.now();
const deadline = Number(process.env.SLEDGE_DEADLINE_MS) || t0 + 10 * 60 * 1000;
// timeLeft is how long a wait may last from now: until the deadline.
const timeLeft = () => Math.max(1000, deadline - Date.now());
const log = msg => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);

// Everything the page says or asks for, checked at the end (and reported on failure).
const consoleErrors = [];
const foreignRequests = [];
const failedRequests = [];
const consoleLog = [];

class Failure extends Error {}
function check(cond, msg) { if (!cond) throw new Failure(msg); }

const sel = id => `[data-testid="${id}"]`;

let browser, page, requests, stepName = 'start';
let stepSince = Date.now();
// A step that has gone on for a minute says so every 30 s, with the page's
// requests: a stalled browser or server shows in the log, not only as a
// test killed at its deadline.
setInterval(() => {
  const s = (Date.now() - stepSince) / 1000;
  if (s >= 60) log(`  … still at step "${stepName}" after ${s.toFixed(0)} s` + (requests ? '\n' + requests.report() : ''));
}, 30000).unref();
async function step(name, fn) {
  stepName = name;
  stepSince = Date.now();
  log('▶ ' + name);
  page.setDefaultTimeout(timeLeft());
  return fn();
}
async function shot(name) {
  const file = path.join(artifacts, name);
  await page.screenshot({ path: file, fullPage: true });
  log('  screenshot ' + file);
}

// waitText waits (until the deadline) until the element's text satisfies
// pred; the error names what it saw last. With live, what it waits for is
// a running job's: it fails at once should the job's page say it ended
// (the run was too short for this machine's pace: it would never come).
async function waitText(testid, pred, what, { live = false } = {}) {
  const loc = page.locator(sel(testid)).first();
  const start = Date.now();
  let last = '(element not found)';
  let livePage = '(not seen)';
  for (;;) {
    if (await loc.count()) {
      last = ((await loc.textContent().catch(() => null)) ?? '').trim();
      if (pred(last)) return last;
    }
    if (live) {
      const said = async id => {
        const l = page.locator(sel(id)).first();
        return (await l.count()) ? ((await l.textContent().catch(() => null)) ?? '').trim() : '(none)';
      };
      const status = await said('job-status');
      if (/^(completed|interrupted|failed|degraded)$/.test(status)) {
        // What the live page last said of itself (the page now is the
        // finished job's): how it was updated, and the notice of requests
        // that failed (a page that never got the job's settings or
        // intervals says so there).
        throw new Failure(`${testid}: the job ended (${status}) before the page showed ${what} while it ran; it shows ${JSON.stringify(last)}` +
          ` (the live page said: ${livePage}; waited ${((Date.now() - start) / 1000).toFixed(1)} s)`);
      }
      const app = ((await page.locator('#app').textContent().catch(() => null)) ?? '').trim().slice(0, 60);
      livePage = `status ${JSON.stringify(status)}, mode ${JSON.stringify(await said('live-mode'))}, notice ${JSON.stringify(await said('live-error'))}, page ${JSON.stringify(app)}`;
    }
    if (Date.now() > deadline) throw new Failure(`${testid}: waited ${((Date.now() - start) / 1000).toFixed(0)} s (until the test's deadline) for ${what}; it shows ${JSON.stringify(last)}`);
    await page.waitForTimeout(200);
  }
}

// until polls cond (async) every 100 ms until it holds or the deadline
// passes, and says which.
async function until(cond) {
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > deadline) return false;
    await page.waitForTimeout(100);
  }
}

// chartsFit waits until the page no longer scrolls sideways and its
// charts fit the viewport (they resize to its width after it changed), or
// the deadline passes; the checks that follow say what sticks out.
async function chartsFit() {
  await page.waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth &&
    [...document.querySelectorAll('.uplot')].every(u => u.getBoundingClientRect().right <= window.innerWidth),
  null, { timeout: timeLeft(), polling: 100 }).catch(() => {});
}

const isNumber = s => /^[\d,.\u00a0\u202f ]+$/.test(s) && /\d/.test(s);
const toNumber = s => Number(s.replace(/[^\d.]/g, ''));

// The setup column of the two runs: 2 VUs on the one warehouse of the
// embedded SQLite (SQL from the client: it has no stored procedures), and
// what is not the default — the first run's 1 s ramp-up and 5 minutes, the
// second's 3 s serializable.
const SETUP1 = '2 VU · 1 WH · sql · ramp 1s · 5m';
const SETUP2 = '2 VU · 1 WH · sql · ramp 1s · 3s · serializable';

// compareSettingsChecks: the compare page of ids (the first the baseline)
// leads with the settings that differ — before the verdict and the
// figures — as GET /api/compare of the baseline against each other job
// lists them: a row a setting, a column a job, a job the answer for it
// does not name showing the baseline's value; and it says whether the
// server version or the client machine differs.
async function compareSettingsChecks(ids) {
  const [baseID, ...others] = ids;
  const answers = [];
  for (const id of others) {
    const r = await page.request.get(`${base}/api/compare?a=${baseID}&b=${id}`);
    check(r.status() === 200, `GET /api/compare?a=${baseID}&b=${id}: ${r.status()}`);
    answers.push(await r.json());
  }
  const rows = new Map();
  for (const [i, v] of answers.entries()) {
    check(Array.isArray(v.settings_differ) && Array.isArray(v.servers_differ) && typeof v.machine_differs === 'boolean',
      `GET /api/compare?a=${baseID}&b=${others[i]}: ${JSON.stringify(v)}`);
    for (const d of v.settings_differ) {
      if (!rows.has(d.name)) rows.set(d.name, { [baseID]: d.a });
      rows.get(d.name)[others[i]] = d.b;
    }
  }
  await page.locator(sel('compare-settings-table')).waitFor();
  // First: before the verdict, the table and the chart.
  const order = await page.evaluate(() => ['compare-settings', 'compare-verdict', 'compare-table', 'compare-chart']
    .map(t => document.querySelector(`[data-testid="${t}"]`)).filter(Boolean)
    .every((el, i, all) => i === 0 || (all[i - 1].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)));
  check(order, 'the settings that differ are not shown before the verdict and the figures');
  const n = await page.locator(`${sel('compare-settings-table')} tbody tr`).count();
  check(n === rows.size, `the settings table has ${n} rows, GET /api/compare names ${rows.size} settings`);
  const heads = await page.locator(`${sel('compare-settings-table')} thead th`).count();
  check(heads === ids.length + 1, `the settings table has ${heads} columns for ${ids.length} jobs`);
  for (const [name, vals] of rows) {
    const cells = (await page.locator(`${sel('compare-setting-' + name.replace(/\s+/g, '-'))} td`).allTextContents()).map(t => t.trim());
    const want = [name, ...ids.map(id => { const v = id in vals ? vals[id] : vals[baseID]; return v === '' ? '—' : v; })];
    check(JSON.stringify(cells) === JSON.stringify(want), `setting ${name}: the page shows ${JSON.stringify(cells)}, want ${JSON.stringify(want)}`);
  }
  const count = await waitText('compare-settings-count', s => s.startsWith(others.length > 1
    ? `Job settings that differ from #${baseID}'s: ${rows.size} ` : `Job settings that differ: ${rows.size} of `), 'how many settings differ');
  // One machine and one SQLite here: neither is said to differ, and the
  // page says so only if the API does.
  for (const [tid, differs] of [['compare-server-differs', answers.some(v => v.servers_differ.length)], ['compare-machine-differs', answers.some(v => v.machine_differs)]]) {
    const shown = await page.locator(sel(tid)).count();
    check((shown > 0) === differs, `${tid}: shown ${shown}, GET /api/compare says ${differs}`);
  }
  const same = !answers.some(v => v.servers_differ.length || v.machine_differs);
  check(same === /Server version and client machine: no difference recorded\./.test(count), `the page says ${JSON.stringify(count)}`);
  log(`  settings that differ: ${[...rows.keys()].join(', ')} (${count})`);
  return rows;
}

async function main() {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'], headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(timeLeft());
  requests = trackRequests(page, base, t0);
  page.on('console', m => {
    const loc = m.location();
    const line = `${m.type()}: ${m.text()}${loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`;
    consoleLog.push(line);
    if (m.type() === 'error') consoleErrors.push(line);
  });
  page.on('pageerror', e => { consoleErrors.push('uncaught: ' + (e.stack || e.message)); consoleLog.push('uncaught: ' + e.message); });
  // The UI promises to load nothing from the network but its own server.
  context.on('request', r => {
    const u = r.url();
    if (u.startsWith('data:') || u.startsWith('blob:')) return;
    let o = '';
    try { o = new URL(u).origin; } catch (e) { /* unparsable: foreign */ }
    if (o !== origin) foreignRequests.push(`${r.method()} ${u}`);
  });
  // The UI asks only for what a job has: no 404 for a build's result.
  page.on('response', r => {
    if (r.status() >= 400 && r.url().startsWith(base + '/api/')) failedRequests.push(`${r.request().method()} ${r.url().slice(base.length)}: ${r.status()}`);
  });

  if (profileID) return profileChecks();
  if (seriesJobs.length) return loadChecks();

  await step('jobs page (empty repository)', async () => {
    await page.goto(base + '/');
    await page.locator(sel('jobs-table')).waitFor();
    await page.locator(sel('jobs-empty')).waitFor();
    await shot('01-jobs-empty.png');
  });

  if (other) await step('a page of another origin cannot start jobs (forms, no-cors fetches)', async () => {
    // Its own browser context: the requests it makes are not the UI's.
    const evilCtx = await browser.newContext({ viewport: { width: 900, height: 600 } });
    const evil = await evilCtx.newPage();
    evil.setDefaultTimeout(timeLeft());
    const answers = [];
    evilCtx.on('response', r => {
      if (r.url().startsWith(base + '/')) answers.push({ what: `${r.request().method()} ${r.url().slice(base.length)}`, status: r.status() });
    });
    const sameSite = new URL(other);
    sameSite.hostname = new URL(base).hostname;
    const spec = JSON.stringify({ kind: 'run', vu: 1, rampup: '0s', duration: '1m' });
    for (const o of [other, sameSite.origin]) {
      await evil.goto(`${o}/?api=${encodeURIComponent(base)}`);
      for (const id of ['form-text', 'form-urlencoded', 'form-multipart']) {
        // The answer lands in a cross-origin iframe, whose load says it
        // came. The browser does not always report the frame's response to
        // this script (waiting for it took 30 s in vain now and then): what
        // it reports must be a 403 (here and below), and what matters most
        // — no job appears — is checked on the jobs page afterwards, and
        // the server's answers by browser_test.go.
        const before = answers.length;
        await evil.evaluate(id => new Promise(resolve => {
          document.querySelector('iframe[name="sink"]').addEventListener('load', resolve, { once: true });
          document.getElementById(id).submit();
        }), id);
        const seen = answers.slice(before).filter(a => a.what === 'POST /api/jobs');
        for (const a of seen) check(a.status === 403, `${o}: ${id} to /api/jobs answered ${a.status}, want 403`);
        if (!seen.length) log(`  ${o}: ${id}: the frame loaded; the browser did not report its answer (yet)`);
      }
      // no-cors: the page may send it (the answer is opaque to it). A JSON
      // content type is not allowed in no-cors mode: the browser sends
      // text/plain instead.
      const before = answers.length;
      const fetched = await evil.evaluate(async ({ api, spec }) => {
        const out = [];
        for (const headers of [{}, { 'Content-Type': 'application/json' }]) {
          try {
            const r = await fetch(api + '/api/jobs', { mode: 'no-cors', method: 'POST', headers, body: spec });
            out.push(r.type);
          } catch (e) { out.push('error: ' + e.message); }
        }
        return out;
      }, { api: base, spec });
      check(fetched.every(x => x === 'opaque'), `${o}: no-cors fetches gave ${JSON.stringify(fetched)}, want opaque answers`);
      await until(() => answers.length >= before + 2);
      check(answers.length >= before + 2, `${o}: the browser saw ${answers.length - before} answers to 2 no-cors fetches`);
      log(`  ${o}: forms and no-cors fetches sent`);
    }
    const bad = answers.filter(a => a.status !== 403);
    check(bad.length === 0, `requests from another origin were not refused: ${JSON.stringify(bad)}`);
    log(`  ${answers.length} requests from other origins, all answered 403`);
    await evil.waitForTimeout(300);
    const file = path.join(artifacts, '01b-other-origin.png');
    await evil.screenshot({ path: file, fullPage: true });
    log('  screenshot ' + file);
    await evilCtx.close();
    // Nothing happened: no job, and the UI still shows none.
    const res = await page.request.get(base + '/api/jobs');
    const list = await res.json();
    check(res.status() === 200 && Array.isArray(list) && list.length === 0, `after the other origin's requests: ${res.status()} ${JSON.stringify(list)}`);
    await page.reload();
    await page.locator(sel('jobs-empty')).waitFor();
  });

  await step('new-job form: TPROC-C run on the embedded default', async () => {
    await page.locator(sel('new-job-button')).click();
    await page.waitForURL(/#\/new$/);
    const form = page.locator(sel('new-job-form'));
    await form.waitFor();
    await form.locator(sel('input-kind')).selectOption('run');
    await form.locator(sel('input-workload')).selectOption('tprocc');
    // The target is a select of the server's named targets (names and
    // kinds, never URLs) and the embedded default.
    await form.locator(`${sel('input-db')} option[value="scratch"]`).waitFor({ state: 'attached' });
    const options = await form.locator(`${sel('input-db')} option`).allTextContents();
    log('  targets offered: ' + JSON.stringify(options));
    check(options.length >= 3 && /embedded default/.test(options[0]) && options.some(o => /^scratch \(SQLite\)$/.test(o)) &&
      options.some(o => /^bench-pg \(PostgreSQL\)$/.test(o)), `target options ${JSON.stringify(options)}`);
    const html = await page.content();
    check(!/topsecret|127\.0\.0\.1:1\b|scratch\.db/.test(html), 'the page shows a named target\'s URL');
    await form.locator(sel('input-db')).selectOption('');
    await form.locator(sel('input-vu')).fill('2');
    await form.locator(sel('input-rampup')).fill('1s');
    // Long: the page stops it once it has seen it live.
    await form.locator(sel('input-duration')).fill('5m');
    await form.locator(sel('input-mode')).selectOption('auto');
    // The load-model fields are sent and a bad one is refused under its
    // own field (the API's 400 names it), with no job made.
    for (const name of ['terminals', 'connections', 'rate', 'stages']) await form.locator(sel('input-' + name)).waitFor();
    await form.locator(sel('input-stages')).fill('2m');
    await page.locator(sel('new-job-submit')).click();
    await waitText('error-stages', s => /DURATION:TARGET/.test(s), 'the stages error under its field');
    await form.locator(sel('input-stages')).fill('');
    await form.locator(sel('input-rate')).fill('new_order=x');
    await page.locator(sel('new-job-submit')).click();
    await waitText('error-rate', s => /TYPE=RATE/.test(s), 'the per-type rate error under the rate field');
    await form.locator(sel('input-rate')).fill('');
    check(/#\/new$/.test(page.url()), 'a refused form left the page');
    // Those two 400s were asked for: they are not the page's errors.
    const asked = (list, re) => { for (let i = list.length - 1; i >= 0; i--) if (re.test(list[i])) list.splice(i, 1); };
    asked(failedRequests, /^POST \/api\/jobs: 400$/);
    asked(consoleErrors, /status of 400 \(Bad Request\) \(.*\/api\/jobs:0\)$/);
    await shot('02-new-job-form.png');
  });

  let runID;
  await step('submit: lands on the live job page (the first run builds the embedded database first)', async () => {
    await page.locator(sel('new-job-submit')).click();
    // The API answers once the run is recorded, after the build: give it time,
    // but fail at once if the form shows an error.
    for (;;) {
      const m = page.url().match(/#\/jobs\/(\d+)$/);
      if (m) { runID = m[1]; break; }
      const err = page.locator(`${sel('new-job-error')} .alert, .field-error:not(:empty)`);
      if (await err.count()) throw new Failure('the form shows an error: ' + (await err.first().textContent()));
      check(Date.now() < deadline, 'no job page by the test\'s deadline after submitting the form');
      await page.waitForTimeout(250);
    }
    log('  run job ' + runID);
    await waitText('job-status', s => s === 'running', 'status "running"', { live: true });
    await page.locator(sel('stop-button')).waitFor();
    await page.locator(sel('live-chart')).waitFor();
  });

  await step('live chart receives at least two intervals', async () => {
    // Each interval changes "Elapsed"; the page records every value it shows.
    const ok = await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="live-elapsed"]');
      const seen = window.__sledgeSeen || (window.__sledgeSeen = new Set());
      if (el && el.textContent.trim() !== '—') seen.add(el.textContent.trim());
      return seen.size >= 2 && !!document.querySelector('[data-testid="live-chart"] [data-testid="chart-tpm"] canvas');
    }, null, { timeout: timeLeft(), polling: 200 }).then(() => true, () => false);
    const seen = await page.evaluate(() => [...(window.__sledgeSeen || [])]);
    check(ok, `the live page did not show two intervals with a TPM chart by the test's deadline (elapsed values seen: ${JSON.stringify(seen)})`);
    const tpm = await waitText('live-tpm', isNumber, 'a TPM number');
    check(toNumber(tpm) > 0, `live TPM is ${tpm}`);
    log(`  intervals seen: ${seen.join(' | ')}; live TPM ${tpm}`);
    // Per-VU state: both sessions listed and running.
    const vuRows = page.locator(`${sel('vu-table')} tbody tr`);
    check(await vuRows.count() === 2, `the VU table has ${await vuRows.count()} rows, want 2`);
    const states = await vuRows.locator('td:nth-child(2)').allTextContents();
    check(states.every(x => x.trim() === 'running'), `VU states ${JSON.stringify(states)}, want running`);
    await page.waitForTimeout(500); // let uPlot paint
    await shot('03-job-live.png');
  });

  await step('stop: the job ends as interrupted', async () => {
    await page.locator(sel('stop-button')).click();
    await waitText('job-status', s => s === 'interrupted', 'status "interrupted"');
  });

  await step('reload: the finished job shows its result', async () => {
    await page.reload();
    await waitText('job-status', s => s === 'interrupted', 'status "interrupted" after reload');
    const nopm = await waitText('result-nopm', isNumber, 'a NOPM number');
    check(toNumber(nopm) > 0, `NOPM is ${nopm}`);
    const rows = await page.locator(`${sel('tx-table')} tbody tr`).count();
    check(rows === 5, `tx-table has ${rows} rows, want 5`);
    await page.locator(`${sel('series-charts')} ${sel('chart-tpm')} canvas`).first().waitFor();
    await page.locator(`${sel('latency-chart')} svg rect`).first().waitFor();
    log(`  NOPM ${nopm}, ${rows} transaction rows`);
    await page.waitForTimeout(500);
    await shot('04-job-result.png');
  });

  await step('run page: errors by class, y axes from zero, errors per minute', async () => {
    // The panel when the run had errors or retries, else its one line; which
    // one must agree with the result.
    const result = await (await page.request.get(`${base}/api/jobs/${runID}/result`)).json();
    const txs = Object.values(result.transactions || {});
    const errors = txs.reduce((a, t) => a + (t.errors || 0), 0), retries = txs.reduce((a, t) => a + (t.retries || 0), 0);
    if (errors || retries) {
      await page.locator(sel('error-classes')).waitFor();
      const n = await page.locator(`${sel('error-class-table')} tbody tr`).count();
      check(n > 0, 'the errors-by-class table has no rows');
      check(await page.locator(sel('summary-errors')).count() === 1, 'no errors line under the headline cards');
      log(`  ${errors} errors, ${retries} retries: ${n} class rows`);
    } else {
      const line = await waitText('error-classes-none', s => /no errors/.test(s), 'the "no errors" line');
      check(await page.locator(sel('error-classes')).count() === 0, 'both the panel and its "no errors" line');
      log(`  no errors or retries: ${JSON.stringify(line)}`);
    }
    // Server observations are named under the headline cards, with a link
    // down to the Server section.
    if (((result.observed || {}).observers || []).length) {
      const line = await waitText('summary-server', s => /^server: .+ — see Server$/.test(s), 'the server summary line');
      await page.locator(sel('summary-server-link')).click();
      await page.waitForFunction(() => { const r = document.getElementById('observed').getBoundingClientRect(); return r.top >= -2 && r.top < window.innerHeight; });
      await page.evaluate(() => window.scrollTo(0, 0));
      log(`  ${JSON.stringify(line)}`);
    }
    check(!result.disruption || await page.locator(sel('summary-disruption')).count() === 1, 'a disruption without its summary line');
    for (const id of ['chart-tpm', 'chart-latency', 'chart-errors']) {
      const chart = page.locator(`${sel('series-charts')} ${sel(id)}`);
      await chart.locator('canvas').first().waitFor();
      const min = await chart.getAttribute('data-y-min'), max = await chart.getAttribute('data-y-max');
      check(min === '0' && Number(max) > 0, `${id}: the y axis runs ${min}..${max}, want it from 0`);
    }
    const title = await page.locator(`${sel('chart-errors')} h3`).textContent();
    check(/per minute/.test(title), `the errors chart is titled ${JSON.stringify(title)}, want errors per minute`);
  });

  let runID2;
  await step('second run (3 s, serializable, through the API) runs to completion', async () => {
    const res = await page.request.post(base + '/api/jobs', {
      // Serializable: a setting that differs from the first run's, for the
      // compare page to lead with.
      data: { kind: 'run', workload: 'tprocc', vu: 2, rampup: '1s', duration: '3s', interval: '1s', isolation: 'serializable' },
    });
    check(res.status() === 201, `POST /api/jobs: ${res.status()} ${await res.text()}`);
    runID2 = (await res.json()).id;
    log('  run job ' + runID2);
    await page.goto(`${base}/#/jobs/${runID2}`);
    await waitText('job-status', s => s === 'completed', 'status "completed"');
    await waitText('result-nopm', isNumber, 'a NOPM number');
    const rows = await page.locator(`${sel('tx-table')} tbody tr`).count();
    check(rows === 5, `job ${runID2}: tx-table has ${rows} rows, want 5`);
    await page.waitForTimeout(500);
    await shot('05-job-completed.png');
  });

  await step('jobs page: select both runs and compare', async () => {
    await page.goto(base + '/#/');
    // The setup column comes from each job's config, fetched lazily: the
    // size, the mode the run ran (the embedded SQLite has no stored
    // procedures), and the settings that are not the defaults.
    for (const [id, setup] of [[runID, SETUP1], [runID2, SETUP2]]) {
      await page.locator(sel('job-row-' + id)).waitFor();
      await waitText('job-headline-' + id, s => /NOPM/.test(s), 'the NOPM headline');
      await waitText('job-setup-' + id, s => s === setup, `the setup "${setup}" from the config`);
    }
    const tip = await page.locator(sel('job-setup-' + runID2)).getAttribute('title');
    check(/^seed \d+$/m.test(tip) && /^client_cpus \d+$/m.test(tip) && !/^c_id /m.test(tip), `the setup cell's tooltip: ${JSON.stringify(tip)}`);
    await waitText('job-status-' + runID, s => s === 'interrupted', 'status "interrupted"');
    await waitText('job-status-' + runID2, s => s === 'completed', 'status "completed"');
    // Known UI bug, reported, not (yet) fatal: app.css's `.btn { display:
    // inline-flex }` beats the browser's `[hidden] { display: none }`, so
    // "Show more" shows with 3 of at most 100 jobs.
    if (await page.locator(sel('load-more')).isVisible()) log('  WARNING: "Show more" (load-more) is visible although every job is listed');
    await shot('06-jobs.png');
    for (const id of [runID, runID2]) await page.locator(sel('job-select-' + id)).check();
    const btn = page.locator(sel('compare-button'));
    check(await btn.isEnabled(), 'Compare stays disabled with two jobs selected');
    await btn.click();
    await page.waitForURL(/#\/compare\?ids=/);
    await page.locator(sel('compare-table')).waitFor();
    const differ = await compareSettingsChecks([runID, runID2]);
    check(differ.has('isolation') && differ.get('isolation')[runID2] === 'serializable', `settings_differ lacks the isolation: ${JSON.stringify([...differ])}`);
    const rows = await page.locator(`${sel('compare-table')} tbody tr`).count();
    check(rows === 2, `compare-table has ${rows} rows, want 2`);
    for (const id of [runID, runID2]) {
      await page.locator(sel('compare-row-' + id)).waitFor();
      const nopm = await waitText(`compare-nopm-${id}`, isNumber, 'a NOPM number');
      check(toNumber(nopm) > 0, `compare: job ${id} NOPM ${nopm}`);
    }
    await page.locator(`${sel('compare-chart')} canvas`).first().waitFor();
    check((await page.locator(`${sel('compare-chart')}`).getAttribute('data-y-min')) === '0', 'the compare chart\'s y axis does not start at 0');
    // Colours: a change within 5 % is neutral (grey); beyond it green or red.
    const ratios = page.locator(`${sel('compare-table')} [data-verdict]`);
    const nr = await ratios.count();
    check(nr >= 2, `${nr} ratio cells`);
    for (let i = 0; i < nr; i++) {
      const r = ratios.nth(i);
      const [text, verdict, tid] = [await r.textContent(), await r.getAttribute('data-verdict'), await r.getAttribute('data-testid')];
      const change = Math.abs(Number(text.replace('×', '')) - 1);
      if (tid.endsWith('-' + runID)) check(verdict === 'neutral', `${tid}: the baseline is ${verdict}`);
      else if (tid === 'compare-ratio-nopm-' + runID2) continue; // coloured by the verdict: below
      else if (change < 0.045) check(verdict === 'neutral', `${tid}: ${text} is ${verdict}, want neutral (within 5 %)`);
      else if (change > 0.055) check(verdict !== 'neutral', `${tid}: ${text} is neutral, want judged`);
    }
    check(/within 5 %/.test(await page.locator(sel('compare-legend')).textContent()), 'the compare legend does not explain the 5 % band');
    // The verdict of sledge compare (and jobs diff) for the two runs.
    const v = await (await page.request.get(`${base}/api/compare?a=${runID}&b=${runID2}`)).json();
    check(v.kind === 'jobs' && /^NOPM( [^:]*)?: (within the noise|beyond the noise|not judged)/.test(v.text), `GET /api/compare: ${JSON.stringify(v)}`);
    const shown = await waitText('compare-verdict', s => s.includes(v.text), 'the verdict of GET /api/compare');
    check(shown.startsWith(`Job #${runID2} against job #${runID}:`), `the verdict says ${JSON.stringify(shown)}`);
    // NOPM's ratio follows the verdict where there is one, the 5 % band
    // where there is none.
    const nopmRatio = page.locator(sel('compare-ratio-nopm-' + runID2));
    const nopmChange = Math.abs(Number((await nopmRatio.textContent()).replace('×', '')) - 1);
    const wantVerdict = v.verdict ? (v.verdict.significant ? (v.verdict.change_pct > 0 ? 'better' : 'worse') : 'neutral')
      : (nopmChange < 0.05 ? 'neutral' : null);
    if (wantVerdict) check(await nopmRatio.getAttribute('data-verdict') === wantVerdict,
      `the NOPM ratio is ${await nopmRatio.getAttribute('data-verdict')}, want ${wantVerdict} (verdict ${JSON.stringify(v.verdict)})`);
    log('  verdict: ' + shown);
    await page.waitForTimeout(500);
    await shot('07-compare.png');
  });

  await step('compare three jobs (two runs and a build): the settings against the first', async () => {
    const jobs = await (await page.request.get(base + '/api/jobs')).json();
    const build = jobs.filter(j => j.kind === 'build').map(j => String(j.id)).sort((a, b) => a - b)[0];
    check(build, `no build among ${JSON.stringify(jobs.map(j => [j.id, j.kind]))}`);
    await page.goto(`${base}/#/compare?ids=${runID},${runID2},${build}`);
    await page.locator(sel('compare-table')).waitFor();
    const differ = await compareSettingsChecks([runID, runID2, build]);
    // The build has no isolation: "" (shown as —).
    const iso = differ.get('isolation') || {};
    check(iso[runID2] === 'serializable' && iso[build] === '', `the isolation against the first: ${JSON.stringify(iso)}`);
    // A run against a build: not like for like, and said so.
    await waitText('compare-note', s => /is a run and job \d+ a build/.test(s), 'the note that a build is compared with a run');
    await page.waitForTimeout(300);
    await shot('07b-compare-three.png');
  });

  await step('build on the named target "scratch", replacing a schema: only after confirming', async () => {
    await page.goto(base + '/#/new');
    const form = page.locator(sel('new-job-form'));
    await form.waitFor();
    await form.locator(sel('input-kind')).selectOption('build');
    await form.locator(`${sel('input-db')} option[value="scratch"]`).waitFor({ state: 'attached' });
    await form.locator(sel('input-db')).selectOption('scratch');
    await form.locator(sel('input-warehouses')).fill('1');
    await form.locator(sel('input-force')).check();
    await shot('08-build-named-target.png');
    // Declined: nothing is sent.
    const posts = [];
    const onReq = r => { if (r.method() === 'POST' && r.url() === base + '/api/jobs') posts.push(r); };
    page.on('request', onReq);
    let asked = '';
    page.once('dialog', d => { asked = d.message(); d.dismiss(); });
    await page.locator(sel('new-job-submit')).click();
    await until(() => asked !== '');
    await page.waitForTimeout(500); // a POST the page would send on its own, after the answer
    check(/scratch/.test(asked) && /dropped/.test(asked), `the confirmation said ${JSON.stringify(asked)}`);
    check(posts.length === 0 && /#\/new$/.test(page.url()), `declining still sent ${posts.length} request(s) (page ${page.url()})`);
    // Accepted: sent with "confirm": true.
    page.once('dialog', d => d.accept());
    await page.locator(sel('new-job-submit')).click();
    await page.waitForURL(/#\/jobs\/\d+$/);
    page.off('request', onReq);
    check(posts.length === 1, `${posts.length} POSTs after accepting`);
    const sent = posts[0].postDataJSON();
    check(sent.confirm === true && sent.force === true && sent.db === 'scratch', `sent ${JSON.stringify(sent)}`);
    await waitText('job-status', s => s === 'completed', 'status "completed"');
    await waitText('job-target-name', s => s === 'scratch', 'the target by its name "scratch"');
    await page.waitForTimeout(300);
    await shot('09-build-named-done.png');
  });

  await step('drop the schema in "scratch": only after confirming', async () => {
    await page.goto(base + '/#/new');
    const form = page.locator(sel('new-job-form'));
    await form.waitFor();
    await form.locator(sel('input-kind')).selectOption('drop');
    await form.locator(`${sel('input-db')} option[value="scratch"]`).waitFor({ state: 'attached' });
    await form.locator(sel('input-db')).selectOption('scratch');
    check((await page.locator(sel('new-job-submit')).textContent()).trim() === 'Drop schema', 'the submit button does not say "Drop schema"');
    await shot('10-drop-form.png');
    let asked = '';
    page.once('dialog', d => { asked = d.message(); d.accept(); });
    await page.locator(sel('new-job-submit')).click();
    await page.waitForURL(/#\/jobs\/\d+$/);
    check(/^Drop the TPROC-C schema in scratch\?/.test(asked), `the confirmation said ${JSON.stringify(asked)}`);
    await waitText('job-status', s => s === 'completed', 'status "completed"');
    const jobs = await (await page.request.get(base + '/api/jobs')).json();
    check(jobs.length === 5, `${jobs.length} jobs, want 5 (first-run build, two runs, build, drop): ${JSON.stringify(jobs.map(j => [j.id, j.kind, j.status]))}`);
    await page.goto(base + '/#/');
    await page.locator(sel('jobs-table')).waitFor();
    await waitText('job-status-' + jobs[0].id, s => s === 'completed', 'the drop listed as completed');
    await page.waitForTimeout(300);
    await shot('11-jobs-final.png');
  });

  await step('every job\'s page opens without errors (runs, builds, the drop)', async () => {
    const jobs = await (await page.request.get(base + '/api/jobs')).json();
    for (const j of jobs) {
      await page.goto(`${base}/#/jobs/${j.id}`);
      await waitText('job-status', s => s === j.status, `status "${j.status}"`);
      await page.locator(sel('output-panel')).waitFor();
      await page.waitForTimeout(300);
      check(consoleErrors.length === 0 && failedRequests.length === 0,
        `job ${j.id} (${j.kind}): console errors ${JSON.stringify(consoleErrors)}, failed requests ${JSON.stringify(failedRequests)}`);
    }
    log(`  ${jobs.length} job pages: ${jobs.map(j => j.kind).join(', ')}`);
  });

  await step('390 px wide: the run page, the jobs list and the compare page do not scroll sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // scrollWidth and innerWidth, and (for the message) the outermost elements that stick out.
    const overflow = () => page.evaluate(() => ({
      sw: document.documentElement.scrollWidth, iw: window.innerWidth,
      out: [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5 &&
        !(e.parentElement && e.parentElement.getBoundingClientRect().right > window.innerWidth + 0.5))
        .slice(0, 5).map(e => `${e.tagName.toLowerCase()}${e.dataset.testid ? '[' + e.dataset.testid + ']' : ''}.${e.className}: ${Math.round(e.getBoundingClientRect().right)} px`),
    }));
    await page.goto(`${base}/#/jobs/${runID}`);
    await waitText('result-nopm', isNumber, 'a NOPM number');
    await page.locator(`${sel('series-charts')} ${sel('chart-tpm')} canvas`).first().waitFor();
    await chartsFit(); // the charts resize to the width
    let o = await overflow();
    check(o.sw <= o.iw, `job page at 390 px: scrollWidth ${o.sw} > innerWidth ${o.iw}: ${o.out.join('; ')}`);
    // The transaction table scrolls inside its panel; the charts fit.
    const fit = await page.evaluate(() => [...document.querySelectorAll('.uplot')].map(u => u.getBoundingClientRect().right));
    check(fit.length && fit.every(r => r <= o.iw), `charts reach ${JSON.stringify(fit)} px of ${o.iw}`);
    await shot('mobile-job.png');
    await page.goto(base + '/#/');
    await page.locator(sel('job-row-' + runID)).waitFor();
    await waitText('job-setup-' + runID, s => s === SETUP1, 'the setup');
    await chartsFit();
    o = await overflow();
    check(o.sw <= o.iw, `jobs page at 390 px: scrollWidth ${o.sw} > innerWidth ${o.iw}: ${o.out.join('; ')}`);
    // What a job is and how it went come first, in view; the rest scrolls
    // inside the table (RESULT and STATUS were cut off).
    const heads = (await page.locator(`${sel('jobs-table')} thead th[data-sort]`).allTextContents()).map(t => t.trim().toUpperCase());
    check(heads.slice(0, 3).join(',') === 'ID,RESULT,STATUS' || heads.slice(0, 3).join(',') === 'ID▼,RESULT,STATUS',
      `the jobs list's first columns at 390 px: ${JSON.stringify(heads)}`);
    for (const id of ['job-link-' + runID, 'job-headline-' + runID, 'job-status-' + runID]) {
      const r = await page.locator(sel(id)).boundingBox();
      check(r && r.x >= 0 && r.x + r.width <= o.iw, `${id} at 390 px is not in view: ${JSON.stringify(r)}`);
    }
    await shot('mobile-jobs.png');
    log(`  scrollWidth ${o.sw} <= innerWidth ${o.iw}; columns ${heads.join(', ')}`);
    await page.goto(`${base}/#/compare?ids=${runID},${runID2}`);
    await page.locator(sel('compare-settings-table')).waitFor();
    await chartsFit();
    o = await overflow();
    check(o.sw <= o.iw, `compare page at 390 px: scrollWidth ${o.sw} > innerWidth ${o.iw}: ${o.out.join('; ')}`);
    // The figures table fits its panel: no sideways scrolling inside it
    // either (a card per job at this width), every job's NOPM and its
    // ratio in view.
    await page.locator(`${sel('compare-table')} [data-testid^="compare-ratio-nopm-"]`).first().waitFor();
    const fig = await page.evaluate(() => {
      const panel = document.querySelector('[data-testid="compare-table-panel"]');
      const boxes = [...panel.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 0.5 &&
        ['auto', 'scroll'].includes(getComputedStyle(e).overflowX));
      const right = panel.getBoundingClientRect().right;
      return {
        scrolls: [panel, ...boxes].filter(e => e.scrollWidth > e.clientWidth + 0.5)
          .map(e => `${e.tagName.toLowerCase()}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`),
        out: [...panel.querySelectorAll('td')].filter(e => e.getBoundingClientRect().right > right + 0.5).length,
      };
    });
    check(fig.scrolls.length === 0 && fig.out === 0,
      `the compare figures at 390 px scroll sideways: ${fig.scrolls.join('; ')}; ${fig.out} cells beyond the panel`);
    for (const id of [runID, runID2]) {
      for (const tid of ['compare-nopm-' + id, 'compare-ratio-nopm-' + id]) {
        const r = await page.locator(sel(tid)).boundingBox();
        check(r && r.x >= 0 && r.x + r.width <= o.iw, `${tid} at 390 px is not in view: ${JSON.stringify(r)}`);
      }
    }
    await page.locator(sel('compare-table-panel')).screenshot({ path: path.join(artifacts, 'mobile-compare-table.png') });
    await shot('mobile-compare.png');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  finalChecks();
}

function finalChecks() {
  check(consoleErrors.length === 0, `the browser console has ${consoleErrors.length} error(s):\n  ${consoleErrors.join('\n  ')}`);
  check(foreignRequests.length === 0, `requests left ${origin}:\n  ${foreignRequests.join('\n  ')}`);
  check(failedRequests.length === 0, `API requests failed:\n  ${failedRequests.join('\n  ')}`);
}

// profileChecks: the pages of profile $SLEDGE_PROFILE.
async function profileChecks() {
  const prof = await (await page.request.get(`${base}/api/profiles/${profileID}`)).json();
  check(prof.id === profileID && prof.steps.length >= 2, `GET /api/profiles/${profileID}: ${JSON.stringify(prof)}`);
  log(`  profile ${profileID}: ${prof.steps.map(s => s.vus + ' VU ' + Math.round(s.nopm) + ' NOPM').join(', ')}; ${prof.knee}`);

  await step('the profiles page lists the profile', async () => {
    await page.goto(base + '/#/');
    await page.locator(sel('profiles-button')).click();
    await page.waitForURL(/#\/profiles$/);
    await page.locator(sel('profiles-table')).waitFor();
    const vus = await page.locator(`${sel('profile-row-' + profileID)} td`).nth(4).textContent();
    check(vus === prof.steps.map(s => s.vus).join(', '), `the profile's VUs are listed as ${JSON.stringify(vus)}`);
    await shot('12-profiles.png');
    await page.locator(sel('profile-link-' + profileID)).click();
    await page.waitForURL(new RegExp(`#/profile/${profileID}$`));
  });

  await step('the profile page: NOPM and p95 against VUs, the knee, the table', async () => {
    await page.locator(sel('profile-table')).waitFor();
    const rows = await page.locator(`${sel('profile-table')} tbody tr`).count();
    check(rows === prof.steps.length, `profile-table has ${rows} rows, want ${prof.steps.length}`);
    for (const s of prof.steps) {
      const nopm = await waitText('profile-nopm-' + s.vus, isNumber, 'a NOPM number');
      check(Math.abs(toNumber(nopm) - s.nopm) <= 1, `${s.vus} VUs: NOPM ${nopm}, the API says ${s.nopm}`);
      for (const c of ['profile-chart-nopm', 'profile-chart-p95']) {
        check(await page.locator(sel(`${c}-point-${s.vus}`)).count() === 1, `${c} has no point at ${s.vus} VUs`);
      }
    }
    for (const c of ['profile-chart-nopm', 'profile-chart-p95']) {
      check(await page.locator(`svg${sel(c)}`).count() === 1, `no ${c} chart`);
      check(await page.locator(`${sel(c)} polyline`).count() === 1, `${c} has no line`);
    }
    const knee = await page.locator(sel('profile-knee')).textContent();
    if (prof.knee_vus == null) {
      check(/^No knee/.test(knee), `the knee box says ${JSON.stringify(knee)}, the API has no knee`);
      check(await page.locator(sel('profile-knee-mark')).count() === 0, 'a knee is marked in the table');
      check(await page.locator(sel('profile-chart-nopm-knee')).count() === 0, 'a knee is marked on the chart');
    } else {
      check(knee.startsWith(`Knee at ${prof.knee_vus} VU`), `the knee box says ${JSON.stringify(knee)}, want ${prof.knee_vus} VUs`);
      check(await page.locator(`${sel('profile-step-' + prof.knee_vus)} ${sel('profile-knee-mark')}`).count() === 1, 'the knee\'s row is not marked');
      for (const c of ['profile-chart-nopm', 'profile-chart-p95']) {
        check(await page.locator(sel(c + '-knee')).getAttribute('data-vus') === String(prof.knee_vus), `${c}: the knee is not marked at ${prof.knee_vus} VUs`);
      }
    }
    check(/half the linear gain/.test(await page.locator(sel('profile-table-panel')).textContent()), 'the page does not define the knee');
    await page.waitForTimeout(300);
    await shot('13-profile.png');
  });

  await step('a job of the profile links to it, from its page and the jobs list', async () => {
    await page.goto(`${base}/#/jobs/${profileMember}`);
    await page.locator(sel('job-profile')).waitFor();
    const text = await page.locator(sel('job-profile')).textContent();
    check(new RegExp(`of profile #${profileID}`).test(text), `the job's profile line says ${JSON.stringify(text)}`);
    await page.locator(sel('job-profile-link')).click();
    await page.waitForURL(new RegExp(`#/profile/${profileID}$`));
    await page.locator(sel('profile-table')).waitFor();
    await page.goto(base + '/#/');
    await waitText('job-profile-' + profileMember, s => s === 'profile #' + profileID, 'the profile under the setup');
    await page.goto(`${base}/#/profile/${profileMember}`); // a member's id shows its profile
    await page.waitForURL(new RegExp(`#/profile/${profileID}$`));
    await page.locator(sel('profile-table')).waitFor();
  });

  await step('compare two jobs of the profile: the verdict of sledge compare', async () => {
    const v = await (await page.request.get(`${base}/api/compare?a=${profileID}&b=${profileMember}`)).json();
    await page.goto(`${base}/#/compare?ids=${profileID},${profileMember}`);
    await waitText('compare-verdict', s => s.includes(v.text), 'the verdict of GET /api/compare');
    await shot('14-compare-verdict.png');
  });

  if (elsewhere) await step('compare with a build on another machine and another SQLite: both said first', async () => {
    await page.goto(`${base}/#/compare?ids=${profileID},${elsewhere}`);
    await page.locator(sel('compare-table')).waitFor();
    const differ = await compareSettingsChecks([profileID, elsewhere]);
    check(differ.has('client host') && differ.get('client host')[elsewhere] === 'elsewhere', `settings_differ lacks the client host: ${JSON.stringify([...differ])}`);
    const server = await waitText('compare-server-differs', s => /^The server differs: /.test(s), 'that the server differs');
    check(new RegExp(`#${elsewhere} SQLite 3\\.0\\.1`).test(server), `the server line says ${JSON.stringify(server)}`);
    const machine = await waitText('compare-machine-differs', s => /^The client machine differs: /.test(s), 'that the client machine differs');
    check(/\bhost\b/.test(machine), `the machine line says ${JSON.stringify(machine)}`);
    await shot('15-compare-elsewhere.png');
  });

  await step('390 px wide: the profile page does not scroll sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/#/profile/${profileID}`);
    await page.locator(sel('profile-table')).waitFor();
    await chartsFit();
    const o = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: window.innerWidth }));
    check(o.sw <= o.iw, `profile page at 390 px: scrollWidth ${o.sw} > innerWidth ${o.iw}`);
    await shot('mobile-profile.png');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  finalChecks();
}

// fmtInt is the page's whole-number format (en-US).
const fmtInt = v => v.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 0 });
// fmtSigJS is the page's fmtSig: more decimals for small numbers.
function fmtSigJS(v) {
  const a = Math.abs(v), d = a === 0 ? 0 : a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0;
  return v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

// startFromPage starts a job through the API from the page (same origin)
// and opens its page; it returns the job's id.
async function startFromPage(spec) {
  await page.goto(base + '/#/');
  await page.locator(sel('jobs-table')).waitFor();
  const res = await page.evaluate(async body => {
    const r = await fetch('/api/jobs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    return { status: r.status, body: await r.json() };
  }, JSON.stringify(spec));
  check(res.status === 201 && res.body.id, `POST /api/jobs ${JSON.stringify(spec)}: ${res.status} ${JSON.stringify(res.body)}`);
  await page.goto(`${base}/#/jobs/${res.body.id}`);
  return res.body.id;
}

// noSideways checks that the page does not scroll sideways.
async function noSideways(what) {
  const o = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: window.innerWidth }));
  check(o.sw <= o.iw, `${what} at ${o.iw} px: scrollWidth ${o.sw} > innerWidth ${o.iw}`);
}

// loadChecks: the load models, stages and series ($SLEDGE_SERIES).
async function loadChecks() {
  const trial1 = seriesJobs[0], trialN = seriesJobs[seriesJobs.length - 1], n = seriesJobs.length;
  let staged, rated;

  await step('a staged run, live: the Load panel names the stage, the TPM chart marks the stages', async () => {
    // The second stage lasts until the run is stopped below, once both
    // stages were seen live: however long a busy machine takes to show them.
    staged = await startFromPage({ kind: 'run', stages: '2s:1,10m:2', rampup: '0s', interval: '1s' });
    log('  staged run job ' + staged);
    await waitText('job-status', s => s === 'running', 'status "running"', { live: true });
    await waitText('live-load-model', s => s === 'stages 1 → 2 VUs', 'the stages offered', { live: true });
    const stage = await waitText('live-stage', s => /^[12] of 2 · [12] VUs?$/.test(s), 'the stage the run is in', { live: true });
    // The band of the stage going on, drawn while the run goes on (or the
    // run's end, which fails the check below).
    await page.waitForFunction(() => !!document.querySelector('[data-testid="live-chart"] [data-testid="chart-tpm-stage-1"]') ||
      (document.querySelector('[data-testid="job-status"]') || {}).textContent !== 'running', null, { polling: 100 });
    const live = await page.locator(sel('job-status')).textContent();
    check(live === 'running', `the stage band appeared only once the run had ended (${live})`);
    log(`  live: stage ${stage}; bands ${await page.locator(`${sel('live-chart')} ${sel('chart-tpm')}`).getAttribute('data-stages')}`);
    await page.waitForTimeout(300);
    await shot('15-staged-live.png');
    // The second stage under way, a stages table of two rows once stopped.
    await waitText('live-stage', s => s === '2 of 2 · 2 VUs', 'the second stage', { live: true });
    await page.locator(sel('stop-button')).click();
    // The page turns into the finished job's by itself.
    await waitText('job-status', s => s === 'interrupted', 'status "interrupted"');
  });

  await step('the staged run\'s page: the stages table, the bands at the stages\' times', async () => {
    const result = await (await page.request.get(`${base}/api/jobs/${staged}/result`)).json();
    const stages = result.stages || [];
    check(stages.length === 2, `GET /api/jobs/${staged}/result has ${stages.length} stages: ${JSON.stringify(stages)}`);
    await page.locator(sel('stages-table')).waitFor();
    const rows = await page.locator(`${sel('stages-table')} tbody tr`).count();
    check(rows === stages.length, `the stages table has ${rows} rows, want ${stages.length}`);
    check(/Target \(VUs\)/i.test(await page.locator(`${sel('stages-table')} thead`).textContent()), 'the target column is not labelled VUs');
    await page.locator(`${sel('series-charts')} ${sel('chart-tpm')} canvas`).first().waitFor();
    await page.waitForTimeout(300);
    for (const st of stages) {
      const target = await page.locator(sel('stage-target-' + st.stage)).textContent();
      check(target === String(st.target), `stage ${st.stage}: target ${target}, the API says ${st.target}`);
      const tpm = await page.locator(sel('stage-tpm-' + st.stage)).textContent();
      check(tpm === fmtInt(st.tpm), `stage ${st.stage}: TPM ${tpm}, the API says ${st.tpm}`);
      const band = page.locator(`${sel('series-charts')} ${sel('chart-tpm-stage-' + st.stage)}`);
      check(await band.count() === 1, `the TPM chart has no band for stage ${st.stage}`);
      const [from, to, text, box] = [Number(await band.getAttribute('data-from')), Number(await band.getAttribute('data-to')),
        await band.textContent(), await band.boundingBox()];
      check(Math.abs(from - st.start_s) < 0.05 && Math.abs(to - st.end_s) < 0.05,
        `stage ${st.stage}'s band spans ${from}–${to} s, the stage ${st.start_s}–${st.end_s} s`);
      check(text.startsWith('stage ' + st.stage) && box && box.width > 10, `stage ${st.stage}'s band: ${JSON.stringify(text)}, ${JSON.stringify(box)}`);
      log(`  stage ${st.stage}: ${st.target} VUs, ${fmtSigJS(st.start_s)}–${fmtSigJS(st.end_s)} s, TPM ${tpm}; band ${Math.round(box.width)} px wide`);
    }
    check(await page.locator(`${sel('series-charts')} ${sel('chart-tpm-stage-2')}.boundary`).count() === 1, 'no boundary line at stage 2');
    check(await page.locator(sel('load-panel')).count() === 0, 'a closed-loop run shows a Load panel');
    await shot('16-staged.png');
  });

  await step('a rate run, live: the lag p99, late and scheduled so far', async () => {
    // It runs until stopped below, once seen live: however long a busy
    // machine takes to show it.
    rated = await startFromPage({ kind: 'run', rate: 50, connections: 2, duration: '10m', rampup: '0s', interval: '1s' });
    log('  rate run job ' + rated);
    await waitText('live-load-model', s => s === '50 tx/s', 'the rate offered', { live: true });
    await waitText('live-load-model-hint', s => s === 'over 2 connections, at most 100,000 waiting', 'the connections and the queue bound', { live: true });
    const lag = await waitText('live-lag-p99', s => /^[\d.,]+ ms$/.test(s), 'a lag p99', { live: true });
    const sched = await waitText('live-scheduled', s => isNumber(s) && toNumber(s) > 0, 'transactions scheduled', { live: true });
    await page.locator(`${sel('live-chart')} ${sel('chart-lag')} canvas`).first().waitFor();
    log(`  live: lag p99 ${lag}, scheduled ${sched}, late ${await page.locator(sel('live-late')).textContent()}`);
    await shot('17-rate-live.png');
    await page.locator(sel('stop-button')).click();
    await waitText('job-status', s => s === 'interrupted', 'status "interrupted"');
  });

  await step('the rate run\'s page: the Load panel', async () => {
    const l = (await (await page.request.get(`${base}/api/jobs/${rated}/result`)).json()).load;
    check(l && l.model === 'rate', `GET /api/jobs/${rated}/result: load ${JSON.stringify(l)}`);
    await page.locator(sel('load-panel')).waitFor();
    const want = {
      'load-model': ' · open-loop arrivals at a rate', 'load-asked': '50 tx/s', 'load-achieved': fmtSigJS(l.achieved_rate) + ' tx/s',
      'load-connections': '2', 'load-scheduled': fmtInt(l.scheduled), 'load-dropped': fmtInt(l.dropped),
      'load-lag': fmtSigJS(l.lag_p99_ms) + ' ms', 'load-late': fmtInt(l.late),
    };
    for (const [id, text] of Object.entries(want)) {
      const got = await page.locator(sel(id)).textContent();
      check(got === text, `${id} shows ${JSON.stringify(got)}, want ${JSON.stringify(text)}`);
    }
    check(/queue bound: 100,000 waiting/.test(await page.locator(sel('load-dropped-hint')).textContent()), 'the queue bound is not shown');
    check((await page.locator(sel('load-lag-hint')).textContent()).startsWith(`p50 ${fmtSigJS(l.lag_p50_ms)} ms · max ${fmtSigJS(l.lag_max_ms)} ms`), 'the lag p50 and max');
    check(/more than 10 ms after their scheduled start/.test(await page.locator(sel('load-late-hint')).textContent()), 'what late means');
    const note = await page.locator(sel('load-note')).textContent();
    check(/scheduled start/.test(note) && /wait for a free session/.test(note) && /Latencies count from the scheduled start/.test(note), `the lag note says ${JSON.stringify(note)}`);
    await page.locator(`${sel('series-charts')} ${sel('chart-lag')} canvas`).first().waitFor();
    check(await page.locator(sel('stages-panel')).count() === 0, 'a run without stages shows a stages table');
    await page.waitForTimeout(300);
    await shot('18-rate.png');
  });

  await step('a series: each trial, the mean ± half the 95 % CI, links between the trials', async () => {
    const sr = await (await page.request.get(`${base}/api/series/${trialN}`)).json();
    check(sr.id === trial1 && sr.trials.length === n && sr.nopm.n === n && n >= 3, `GET /api/series/${trialN}: ${JSON.stringify(sr)}`);
    check(sr.nopm.ci95_low >= 0, `GET /api/series/${trialN}: the NOPM interval goes below zero: ${JSON.stringify(sr.nopm)}`);
    await page.goto(`${base}/#/jobs/${trialN}`);
    await waitText('series-title', s => s.startsWith(`Series #${trial1} · ${n} of ${n} trials`), 'the series title');
    for (const t of sr.trials) {
      const nopm = await page.locator(sel('series-nopm-' + t.job_id)).textContent();
      check(nopm === fmtInt(t.nopm), `trial ${t.trial}: NOPM ${nopm}, the API says ${t.nopm}`);
    }
    check(await page.locator(`${sel('series-link-' + trialN)}`).textContent() === `#${trialN} (this job)`, 'this job is not marked');
    const mean = await page.locator(sel('series-mean-nopm')).textContent();
    // ± half the interval, or its bounds when the lower one is held at
    // zero (a ± would reach below it).
    const half = sr.nopm.ci95_high - sr.nopm.mean;
    const want = sr.nopm.mean - half < sr.nopm.ci95_low - 1e-9
      ? `${fmtInt(sr.nopm.mean)} (${fmtInt(sr.nopm.ci95_low)} – ${fmtInt(sr.nopm.ci95_high)})` : `${fmtInt(sr.nopm.mean)} ± ${fmtInt(half)}`;
    check(mean === want, `the mean NOPM shows ${JSON.stringify(mean)}, want ${JSON.stringify(want)}`);
    const ci = await page.locator(sel('series-ci')).textContent();
    check(ci.includes(`(${fmtInt(sr.nopm.ci95_low)} – ${fmtInt(sr.nopm.ci95_high)}; SD ${fmtInt(sr.nopm.sd)})`), `the CI line says ${JSON.stringify(ci)}`);
    log(`  NOPM ${mean} (${ci})`);
    await shot('19-series.png');
    await page.locator(sel('series-link-' + trial1)).click();
    await page.waitForURL(new RegExp(`#/jobs/${trial1}$`));
    // The last trial's page has the same series title: wait for the first
    // trial's own page, which marks it as this job.
    await waitText('series-link-' + trial1, s => s === `#${trial1} (this job)`, 'the first trial marked as this job');
    check(await page.locator(sel('series-link-' + trialN)).getAttribute('href') === `#/jobs/${trialN}`, 'the first trial does not link to the last');
    await page.goto(base + '/#/');
    await waitText('job-series-' + trialN, s => s === `trial ${n}/${n} of series #${trial1}`, 'the series under the setup');
    await waitText('job-series-' + trial1, s => s === `trial 1/${n} of series #${trial1}`, 'the series under the setup');
    await waitText('job-setup-' + staged, s => s.startsWith('stages 1→2 VUs'), 'the staged run\'s setup');
    await waitText('job-setup-' + rated, s => s.startsWith('50 tx/s / 2 conn'), 'the rate run\'s setup');
    await shot('20-jobs-series.png');
  });

  await step('390 px wide: the staged, rate and series pages do not scroll sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [id, name, testid] of [[staged, 'mobile-staged.png', 'stages-table'], [rated, 'mobile-rate.png', 'load-panel'], [trialN, 'mobile-series.png', 'series-table']]) {
      await page.goto(`${base}/#/jobs/${id}`);
      await page.locator(sel(testid)).waitFor();
      await chartsFit(); // the charts resize to the width
      await noSideways(`job ${id}'s page`);
      await shot(name);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  finalChecks();
}

let code = 0;
try {
  await main();
  log(`✔ all checks passed; screenshots in ${artifacts}`);
} catch (e) {
  code = 1;
  console.error(`✘ FAILED at step "${stepName}": ${e instanceof Failure ? e.message : (e && e.stack) || e}`);
  if (page) {
    console.error(`  page: ${page.url()}`);
    await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true })
      .then(() => console.error('  screenshot ' + path.join(artifacts, 'failure.png')), () => {});
  }
  if (!browser) console.error(`  (could not launch ${executablePath}; set $CHROMIUM to another Chromium)`);
  if (consoleErrors.length) console.error('  console errors:\n    ' + consoleErrors.join('\n    '));
  if (foreignRequests.length) console.error('  requests to other origins:\n    ' + foreignRequests.join('\n    '));
  const reqs = requests ? requests.report() : '';
  if (reqs) console.error(reqs);
} finally {
  try { writeFileSync(path.join(artifacts, 'console.log'), consoleLog.join('\n') + '\n'); } catch (e) { /* best effort */ }
  if (browser) await browser.close().catch(() => {});
}
process.exit(code);
