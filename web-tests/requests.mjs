// trackRequests follows a page's API requests (those under base/api/):
// the ones still waiting for their answer, and the ones answered slowly
// or not at all. A browser test prints report() when a step fails or
// stalls: a page that waits then shows whether the server held a request
// or the browser never had it answered. t0 is the script's start (times
// are given from it).
export function trackRequests(page, base, t0) {
  const SLOW_MS = 2000;
  const pending = new Map();
  const slow = [];
  const name = r => `${r.method()} ${r.url().slice(base.length)}`;
  const at = ms => `${((ms - t0) / 1000).toFixed(1)} s`;
  page.on('request', r => { if (r.url().startsWith(base + '/api/')) pending.set(r, Date.now()); });
  const end = (r, how) => {
    const since = pending.get(r);
    if (since === undefined) return;
    pending.delete(r);
    const ms = Date.now() - since;
    if (ms >= SLOW_MS || how !== 'answered') slow.push(`${name(r)}: ${how} after ${ms} ms (sent at ${at(since)})`);
  };
  page.on('requestfinished', r => end(r, 'answered'));
  page.on('requestfailed', r => end(r, 'failed (' + ((r.failure() || {}).errorText || '?') + ')'));
  return {
    report() {
      const now = Date.now();
      // An event stream is open for as long as its job runs: not a wait.
      const waiting = [...pending].filter(([r]) => !/\/events$/.test(r.url()))
        .map(([r, since]) => `${name(r)}: waiting ${now - since} ms (sent at ${at(since)})`);
      return [
        waiting.length && '  requests without an answer yet:\n    ' + waiting.join('\n    '),
        slow.length && `  requests answered after ${SLOW_MS} ms or more, or failed:\n    ` + slow.slice(-20).join('\n    '),
      ].filter(Boolean).join('\n');
    },
  };
}
