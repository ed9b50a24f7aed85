// Browser test of an SLO search's chart on its jobs' pages.
// cmd/sledge/slo_browser_test.go (TestWebUISLOInChromium) runs a small
// search (sledge slo) into a fresh repository and runs this script against
// a server over it:
//
//   node slo.mjs URL ARTIFACT_DIR STEP_ID STEPS POINTS ANSWER
//
// STEP_ID is one of its jobs, STEPS its number of steps, POINTS those that
// measured a p50 and a p99, ANSWER its answer (the rate; "none" when there
// is none). The job's page must show the search's panel: the answer line,
// the chart with a p99 and a p50 point per step that measured them (filled
// when the step passed), the answer marked at its rate, and
// the table of the steps. $CHROMIUM names the browser (default
// /usr/bin/chromium); waits last until $SLEDGE_DEADLINE_MS. Console errors
// and requests to any other origin fail the test too. Screenshots go to
// ARTIFACT_DIR; a failure exits 1 with failure.png.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

const [base, artifactsArg, stepID, stepsArg, pointsArg, answer] = process.argv.slice(2);
if (!/^https?:\/\//.test(base || '') || !stepID || !stepsArg || !pointsArg || !answer) {
  console.error('usage: node slo.mjs URL ARTIFACT_DIR STEP_ID STEPS POINTS ANSWER');
  process.exit(2);
}
const artifacts = path.resolve(artifactsArg);
mkdirSync(artifacts, { recursive: true });
const origin = new URL(base).origin;
const sel = id => `[data-testid="${id}"]`;
const deadline = Number(process.env.SLEDGE_DEADLINE_MS) || Date.now() + 10 * 60 * 1000;
class Failure extends Error {}
function check(cond, msg) { if (!cond) throw new Failure(msg); }

const errors = [];
let browser, page;
async function main() {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'], headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(Math.max(1000, deadline - Date.now()));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push('uncaught: ' + (e.stack || e.message)));
  context.on('request', r => {
    const u = r.url();
    if (!u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).origin !== origin) errors.push('foreign request ' + u);
  });
  await page.goto(`${base}/#/jobs/${stepID}`);
  await page.locator(sel('slo-chart')).waitFor();
  const steps = Number(stepsArg);
  for (const kind of ['p99', 'p50']) {
    const n = await page.locator(`[data-testid^="slo-point-${kind}-"]`).count();
    check(n === Number(pointsArg), `${n} ${kind} points, want ${pointsArg}`);
  }
  check(await page.locator(`${sel('slo-table')} tbody tr`).count() === steps, 'the table does not have a row per step');
  check(await page.locator(sel('slo-chart-goal')).count() === 1, 'the goal is not drawn');
  const text = await page.locator(sel('slo-answer')).textContent();
  if (answer === 'none') {
    check(/No answer/.test(text), `the answer line says ${JSON.stringify(text)}`);
    check(await page.locator(sel('slo-chart-answer')).count() === 0, 'an answer is marked where there is none');
  } else {
    check(new RegExp(`^Answer: (at least )?${answer.replace(".", "\\.")} transactions per second`).test(text.trim()), `the answer line says ${JSON.stringify(text)}`);
    check(await page.locator(sel('slo-chart-answer')).getAttribute('data-rate') === answer, 'the answer is not marked at its rate');
  }
  const filled = await page.locator('[data-testid^="slo-point-p99-"][data-pass="true"]').evaluateAll(els => els.map(e => e.getAttribute('fill')));
  check(filled.every(f => f !== '#fff'), 'a passing step is drawn hollow');
  await page.screenshot({ path: path.join(artifacts, 'slo-job.png'), fullPage: true });
  check(errors.length === 0, 'errors:\n  ' + errors.join('\n  '));
}

let code = 0;
try {
  await main();
  console.log(`✔ all checks passed; screenshots in ${artifacts}`);
} catch (e) {
  code = 1;
  console.error(`✘ FAILED: ${e instanceof Failure ? e.message : (e && e.stack) || e}`);
  if (errors.length) console.error('  errors:\n    ' + errors.join('\n    '));
  if (page) await page.screenshot({ path: path.join(artifacts, 'failure.png'), fullPage: true }).catch(() => {});
} finally {
  if (browser) await browser.close().catch(() => {});
}
process.exit(code);
