// Sledge web UI: a single-page application with hash routes, plain
// JavaScript, no build step. It talks to the JSON API under /api/ on the same
// origin and draws charts with the vendored uPlot (vendor/uPlot.iife.min.js).
//
// Routes: #/ (jobs), #/new (start a job), #/jobs/{id} (one job, live while
// running), #/compare?ids=1,2,3 (overlay and ratios; for two jobs the
// verdict of sledge compare), #/profiles (the performance profiles) and
// #/profile/{id} (one profile: NOPM and p95 against VUs, the knee marked).
'use strict';
(function () {
  const TOKEN_KEY = 'sledge.token';
  const TX_ORDER = ['new_order', 'payment', 'order_status', 'delivery', 'stock_level'];
  const TX_LABEL = {
    new_order: 'New-Order', payment: 'Payment', order_status: 'Order-Status',
    delivery: 'Delivery', stock_level: 'Stock-Level',
  };
  const WORKLOAD_LABEL = { tprocc: 'TPROC-C', tproch: 'TPROC-H' };
  const PALETTE = ['#2f6fed', '#e8590c', '#12805c', '#9c36b5', '#d6336c', '#0c8599',
    '#f08c00', '#5c7cfa', '#495057', '#a61e4d'];
  const POLL_MS = 2000;
  // NEUTRAL_BAND: on the compare page a change smaller than this (5 %) is
  // shown grey, not judged better or worse.
  const NEUTRAL_BAND = 0.05;

  const $app = document.getElementById('app');

  // ---------------------------------------------------------------- DOM

  // h builds an element: h('a', {href: '#/', testid: 'x', onclick: fn}, 'text', child…).
  // Text is always set as text, never parsed as HTML.
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    let value = null;
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v == null || v === false) continue;
        if (k === 'class') el.className = v;
        else if (k === 'testid') el.dataset.testid = v;
        else if (k === 'text') el.textContent = v;
        else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
        else if (k === 'value' && (tag === 'input' || tag === 'select' || tag === 'textarea')) value = String(v);
        else if (v === true) el.setAttribute(k, '');
        else el.setAttribute(k, String(v));
      }
    }
    append(el, kids);
    if (value != null) el.value = value; // after the children: a select needs its options first
    return el;
  }

  function append(el, kids) {
    for (const k of kids.flat(Infinity)) {
      if (k == null || k === false) continue;
      el.append(k instanceof Node ? k : String(k));
    }
    return el;
  }

  function svg(tag, attrs, ...kids) {
    const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v != null) el.setAttribute(k, String(v));
    for (const k of kids.flat()) if (k != null) el.append(k instanceof Node ? k : String(k));
    return el;
  }

  function setPage(...nodes) { $app.replaceChildren(...nodes.flat(Infinity).filter(Boolean)); }

  function badge(status, testid) {
    return h('span', { class: 'badge badge-' + (status || 'unknown'), testid }, status || 'unknown');
  }

  // importedBadge marks a job imported from another repository (sledge jobs
  // import): read-only, its origin in the title; null for a local job.
  function importedBadge(job, testid) {
    const o = job && job.imported_from;
    if (!o) return null;
    return h('span', { class: 'badge badge-imported', testid,
      title: `imported: job ${o.id} of ${o.host || '—'} (${o.repository || '—'}), exported ${fmtDate(o.exported_at)} by sledge ${o.sledge_version || '—'}; read-only` }, 'imported');
  }

  function panel(title, testid, ...kids) {
    return h('section', { class: 'panel', testid }, title ? h('h2', null, title) : null, kids);
  }

  function card(label, value, opts) {
    opts = opts || {};
    return h('div', { class: 'card' + (opts.headline ? ' headline' : '') },
      h('div', { class: 'label' }, label),
      h('div', { class: 'value' + (opts.small ? ' small' : ''), testid: opts.testid }, value),
      opts.hint ? h('div', { class: 'hint', testid: opts.testid ? opts.testid + '-hint' : null }, opts.hint) : null);
  }

  function table(cols, rows, attrs) {
    // cols: [{label, num, title, cls}]; rows: arrays of cells or {attrs,
    // cells}. Each cell carries its column's label (data-label), which a
    // table laid out as cards at narrow widths shows beside it.
    return h('table', Object.assign({ class: 'data' }, attrs || {}),
      h('thead', null, h('tr', null, cols.map(c => h('th', { class: c.num ? 'num' : null, title: c.title }, c.label)))),
      h('tbody', null, rows.map(r => {
        const cells = Array.isArray(r) ? r : r.cells;
        return h('tr', Array.isArray(r) ? null : r.attrs, cells.map((v, i) => {
          const c = cols[i] || {};
          return h('td', { class: [c.num ? 'num' : '', c.cls || ''].join(' ').trim() || null, 'data-label': c.label }, v);
        }));
      })));
  }

  function alertBox(kind, msg, testid) {
    return h('div', { class: 'alert alert-' + kind, role: kind === 'error' ? 'alert' : null, testid }, msg);
  }

  let toastTimer = 0;
  function toast(msg, isError) {
    const el = document.getElementById('toast');
    el.textContent = msg;
    el.className = 'toast' + (isError ? ' error' : '');
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
  }

  // ---------------------------------------------------------------- format

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  function fmtNum(v, digits) {
    if (!isNum(v)) return '—';
    const d = digits || 0;
    return v.toLocaleString(undefined, { minimumFractionDigits: d, maximumFractionDigits: d });
  }

  // fmtSig shows small numbers with more decimals (latencies, seconds).
  function fmtSig(v) {
    if (!isNum(v)) return '—';
    const a = Math.abs(v);
    return fmtNum(v, a === 0 ? 0 : a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0);
  }

  function fmtCompact(v) {
    if (!isNum(v)) return '';
    const a = Math.abs(v);
    if (a >= 1e9) return +(v / 1e9).toFixed(1) + 'G';
    if (a >= 1e6) return +(v / 1e6).toFixed(1) + 'M';
    if (a >= 1e4) return +(v / 1e3).toFixed(1) + 'k';
    return +v.toFixed(a < 1 ? 3 : a < 10 ? 2 : 1) + '';
  }

  function fmtDate(s) {
    if (!s) return '—';
    const d = new Date(s);
    if (isNaN(d)) return String(s);
    return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  }

  function fmtDuration(secs) {
    if (!isNum(secs) || secs < 0) return '—';
    if (secs < 60) return (secs < 10 ? secs.toFixed(1) : Math.round(secs)) + ' s';
    const s = Math.round(secs);
    const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
    const pad = n => String(n).padStart(2, '0');
    return hh ? `${hh} h ${pad(mm)} m` : `${mm} m ${pad(ss)} s`;
  }

  function jobSeconds(job) {
    const a = Date.parse(job.started_at);
    if (isNaN(a)) return NaN;
    const b = job.ended_at ? Date.parse(job.ended_at) : Date.now();
    return (b - a) / 1000;
  }

  function workloadOf(job) { return job.workload || 'tprocc'; }
  function workloadLabel(w) { return WORKLOAD_LABEL[w] || w || '—'; }
  function dbLabel(job) { return [job.db_kind, job.db_version].filter(Boolean).join(' ') || '—'; }
  // targetLabel shows a job's target by the name the server gave it (its
  // config's "target"), else as recorded (a URL without its password).
  function targetLabel(job, cfg) {
    const name = cfg && cfg.target;
    if (!name && !job.target) return null;
    return h('div', { class: 'target mono', title: job.target || '' }, name || job.target);
  }
  function isTPROCH(result) { return !!result && (Array.isArray(result.queries) || result.workload === 'tproch'); }

  // setupText summarises a job from its config, compactly: its size (VUs,
  // rate, terminals or stages; streams; warehouses; scale), then what ran
  // (a TPROC-C run's mode) and the settings that tell jobs apart where they
  // are not the defaults (ramp-up, duration, iterations, isolation, exec
  // mode, pacing, random home; a build's engine and loader). The rest
  // (seed, client CPUs, …) is in setupTitle and on the compare page.
  function setupText(job, cfg) {
    if (!cfg) return '';
    const parts = [];
    const conn = cfg.connections ? ' / ' + cfg.connections + ' conn' : '';
    // A staged run's targets replace its VUs (terminals, rate).
    const stages = stageTargets(cfg.stages);
    if (cfg.load_model === 'rate') parts.push(stages.length ? 'rate' + conn : (cfg.rate ? cfg.rate + ' tx/s' : 'rate by type') + conn);
    else if (cfg.load_model === 'terminals') parts.push(stages.length ? 'terminals' + conn : (cfg.terminals ? cfg.terminals + ' terminals' : 'terminals') + conn);
    else if (cfg.vu && !stages.length) parts.push(cfg.vu + ' VU');
    if (stages.length) parts.push('stages ' + stages.join('→') + ' ' + LOAD_TARGET[cfg.load_model || 'closed']);
    if (cfg.streams != null && cfg.streams !== '') parts.push(cfg.streams === '0' ? 'power only' : cfg.streams + ' streams');
    if (cfg.warehouses) parts.push(cfg.warehouses + ' WH');
    if (cfg.scale_factor) parts.push('SF ' + cfg.scale_factor);
    if (cfg.mode) parts.push(cfg.mode);
    if (cfg.iterations) parts.push(cfg.iterations + ' iterations');
    else {
      if (cfg.rampup && cfg.rampup !== SETUP_DEFAULTS.rampup) parts.push('ramp ' + shortDuration(cfg.rampup));
      if (cfg.duration && cfg.duration !== SETUP_DEFAULTS.duration && !stages.length) parts.push(shortDuration(cfg.duration));
    }
    if (cfg.isolation && cfg.isolation !== SETUP_DEFAULTS.isolation) parts.push(cfg.isolation);
    if (cfg.exec_mode && cfg.exec_mode !== SETUP_DEFAULTS.exec_mode) parts.push(cfg.exec_mode + ' exec');
    if (cfg.pacing && cfg.pacing !== SETUP_DEFAULTS.pacing) parts.push('paced ' + cfg.pacing.replace(/^spec ?/, '').replace(/^$/, 'spec'));
    if (cfg.random_home === 'true') parts.push('random home');
    if (job.kind === 'build') {
      if (cfg.engine) parts.push(cfg.engine);
      if (cfg.loader) parts.push(cfg.loader + ' loader');
    }
    return parts.join(' · ');
  }
  // SETUP_DEFAULTS are the recorded settings a run has unless asked
  // otherwise (internal/config's defaults as sledge jobs show ID config
  // prints them): the setup column leaves them out.
  const SETUP_DEFAULTS = { rampup: '10s', duration: '1m0s', isolation: 'default', exec_mode: 'prepared', pacing: 'unpaced' };
  // SETUP_HIDDEN are settings that identify rather than describe a job
  // (the target, its series, the NURand constants it drew).
  const SETUP_HIDDEN = new Set(['db', 'target', 'series', 'trial', 'profile', 'profile_vu', 'c_id', 'c_ol_i_id', 'c_run_last', 'c_load']);
  // setupTitle is every recorded setting, for the setup cell's tooltip.
  function setupTitle(cfg) {
    if (!cfg) return null;
    return Object.keys(cfg).filter(k => !SETUP_HIDDEN.has(k)).sort().map(k => k + ' ' + cfg[k]).join('\n') || null;
  }
  // shortDuration drops a Go duration's zero tail: 5m0s is 5m, 1h0m0s 1h.
  function shortDuration(d) { return String(d).replace(/^(.*[hm])0s$/, '$1').replace(/^(.*h)0m$/, '$1'); }

  // seriesLine is "trial k/n of series #S" for a trial of a series (sledge
  // run --repeat N), with a link to the series' first trial.
  function seriesLine(cfg, testid) {
    if (!cfg || !(cfg.series || cfg.trial)) return null;
    return h('div', { class: 'muted', testid },
      cfg.trial ? 'trial ' + cfg.trial + ' of ' : 'trial of ',
      cfg.series ? h('a', { href: '#/jobs/' + cfg.series, title: 'the series\' first trial' }, 'series #' + cfg.series) : 'a series');
  }

  // Load models: what a stage's target counts (and the unit of a rate).
  const LOAD_TARGET = { closed: 'VUs', terminals: 'terminals', rate: 'tx/s' };
  const LOAD_MODEL_LABEL = { closed: 'closed-loop virtual users', terminals: 'terminals over a session pool', rate: 'open-loop arrivals at a rate' };
  function loadModelOf(cfg, result) {
    return (result && result.load && result.load.model) || (cfg && cfg.load_model) || 'closed';
  }
  // stageTargets reads the targets of a stages setting ("2m:8,2m:16").
  function stageTargets(text) {
    return String(text || '').split(',').map(p => Number((p.split(':')[1] || '').trim())).filter(v => isFinite(v) && v > 0);
  }
  // fmtTarget shows a whole target as such (8 VUs, not 8.00).
  function fmtTarget(v) { return isNum(v) && Number.isInteger(v) ? fmtNum(v) : fmtSig(v); }
  function targetText(model, v) {
    if (!isNum(v)) return '—';
    return fmtTarget(v) + ' ' + (model === 'rate' ? 'tx/s' : model === 'terminals' ? (v === 1 ? 'terminal' : 'terminals') : (v === 1 ? 'VU' : 'VUs'));
  }
  const LAG_NOTE = 'Schedule lag: from a transaction\'s scheduled start until it was sent to the database, ' +
    'the wait for a free session included. Latencies count from the scheduled start, so they include it.';

  function setupValue(cfg) {
    if (!cfg) return -1;
    const v = Number(cfg.vu || cfg.streams || cfg.warehouses || cfg.scale_factor);
    return isNaN(v) ? -1 : v;
  }

  // ---------------------------------------------------------------- API

  function getToken() { try { return localStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; } }
  function setToken(v) {
    try { if (v) localStorage.setItem(TOKEN_KEY, v); else localStorage.removeItem(TOKEN_KEY); } catch (e) { /* private mode */ }
    updateTokenButton();
  }
  function updateTokenButton() {
    const b = document.getElementById('token-button');
    b.textContent = getToken() ? 'API token ✓' : 'API token';
    b.title = getToken() ? 'A token is set; click to change or forget it' : 'Set the bearer token the server asks for';
  }

  class ApiError extends Error {
    constructor(status, message, field) { super(message); this.status = status; this.field = field || ''; }
  }

  // askToken shows the token dialog; resolves true when a token was saved.
  // Concurrent callers share one dialog.
  let tokenPrompt = null, tokenResolve = null;
  function askToken(message) {
    if (tokenPrompt) return tokenPrompt;
    const dlg = document.getElementById('token-dialog');
    document.getElementById('token-message').textContent = message ||
      'The server asks for a token. It is kept in this browser\'s local storage.';
    const input = document.getElementById('token-input');
    input.value = getToken();
    dlg.hidden = false;
    setTimeout(() => input.focus(), 0);
    tokenPrompt = new Promise(resolve => { tokenResolve = resolve; });
    return tokenPrompt;
  }
  function closeToken(saved) {
    document.getElementById('token-dialog').hidden = true;
    const r = tokenResolve;
    tokenPrompt = null; tokenResolve = null;
    if (r) r(saved);
  }
  function initTokenDialog() {
    document.getElementById('token-form').addEventListener('submit', e => {
      e.preventDefault();
      setToken(document.getElementById('token-input').value.trim());
      closeToken(true);
    });
    document.getElementById('token-cancel').addEventListener('click', () => closeToken(false));
    document.getElementById('token-clear').addEventListener('click', () => {
      setToken('');
      document.getElementById('token-input').value = '';
      closeToken(false);
      toast('Token forgotten');
    });
    document.getElementById('token-dialog').addEventListener('keydown', e => { if (e.key === 'Escape') closeToken(false); });
    document.getElementById('token-button').addEventListener('click', () => {
      askToken('Bearer token sent with every API request. It is kept in this browser\'s local storage.')
        .then(saved => { if (saved) route(); });
    });
    updateTokenButton();
  }

  // api sends one request; on 401 it asks for a token and tries again.
  async function api(method, path, body) {
    for (;;) {
      const token = getToken();
      const headers = { Accept: 'application/json' };
      if (token) headers.Authorization = 'Bearer ' + token;
      // The server refuses a state-changing request that is not
      // application/json, even without a body (POST …/stop, DELETE).
      if (body !== undefined || (method !== 'GET' && method !== 'HEAD')) headers['Content-Type'] = 'application/json';
      let res;
      try {
        res = await fetch(path, {
          method, headers, cache: 'no-store',
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (e) {
        throw new ApiError(0, 'Cannot reach the Sledge server (' + e.message + ')');
      }
      if (res.status === 401) {
        const saved = await askToken(token ? 'The server refused the token. Enter a valid one.'
          : 'The server asks for a token. It is kept in this browser\'s local storage.');
        if (saved) continue;
        throw new ApiError(401, 'Unauthorized: this server needs an API token.');
      }
      const text = await res.text();
      let data = null;
      if (text) { try { data = JSON.parse(text); } catch (e) { data = text; } }
      if (!res.ok) {
        const msg = (data && typeof data === 'object' && data.error) ||
          (typeof data === 'string' && data.trim()) || (res.status + ' ' + res.statusText);
        throw new ApiError(res.status, msg, data && typeof data === 'object' ? data.field : '');
      }
      return data;
    }
  }

  // get returns fallback on 404 (e.g. no result yet) and rethrows other errors.
  async function get(path, fallback) {
    try { return await api('GET', path); } catch (e) {
      if (e instanceof ApiError && e.status === 404) return fallback;
      throw e;
    }
  }

  // settle turns a promise into {data} or {error}.
  function settle(p) { return p.then(data => ({ data }), error => ({ error })); }

  // ---------------------------------------------------------------- router

  let cleanups = [];
  let routeSeq = 0;
  function onCleanup(fn) { cleanups.push(fn); }
  // alive reports whether the page that called it is still the current one.
  function aliveToken() { const seq = routeSeq; return () => seq === routeSeq; }

  function route() {
    for (const fn of cleanups.splice(0)) { try { fn(); } catch (e) { console.error(e); } }
    routeSeq++;
    const hash = location.hash.replace(/^#/, '') || '/';
    const q = hash.indexOf('?');
    const path = q < 0 ? hash : hash.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1));
    document.getElementById('nav-jobs').classList.toggle('active', path === '/' || path.startsWith('/jobs/') || path.startsWith('/profile'));
    document.getElementById('nav-new').classList.toggle('active', path === '/new');
    let m;
    let page;
    if (path === '/' || path === '') page = pageJobs();
    else if (path === '/new') page = pageNew(params);
    else if ((m = path.match(/^\/jobs\/(\d+)\/?$/))) page = pageJob(m[1]);
    else if (path === '/compare') page = pageCompare(params);
    else if (path === '/profiles') page = pageProfiles();
    else if ((m = path.match(/^\/profile\/(\d+)\/?$/))) page = pageProfile(m[1]);
    else page = pageNotFound(path);
    Promise.resolve(page).catch(e => {
      console.error(e);
      setPage(alertBox('error', 'Error: ' + (e && e.message || e), 'page-error'));
    });
    window.scrollTo(0, 0);
  }

  function pageNotFound(path) {
    document.title = 'Not found · Sledge';
    setPage(h('div', { class: 'empty', testid: 'not-found' },
      h('p', null, 'No page at ', h('code', null, path), '.'),
      h('a', { href: '#/', class: 'btn' }, 'Go to the jobs')));
  }

  // ---------------------------------------------------------------- charts

  function track(observer, target) {
    observer.observe(target);
    onCleanup(() => observer.disconnect());
  }

  // LineChart wraps a uPlot chart of interval series (x = elapsed seconds).
  // It is created on the first setData with points, once its element is in
  // the page, and resizes with its container.
  function lineChart(opts) {
    const el = h('div', { class: 'chart', testid: opts.testid, id: opts.testid });
    const empty = h('div', { class: 'chart-empty' }, opts.emptyText || 'No intervals yet.');
    el.append(h('h3', null, opts.title), empty);
    let plot = null;
    let shadeTo = null;
    // Stage bands ({stage, from, to, label}): alternating shaded spans with
    // a line at each boundary and "stage N" on top, as elements over the
    // plot (so that they can be read and tested), placed on every draw.
    let bands = [];
    const marks = h('div', { class: 'stage-marks', testid: opts.testid + '-stages' });
    function placeBands(u) {
      const w = u.over.clientWidth;
      marks.replaceChildren(...bands.map((b, i) => {
        const l = Math.max(0, Math.min(w, u.valToPos(b.from, 'x'))), r = Math.max(0, Math.min(w, u.valToPos(b.to, 'x')));
        return h('div', {
          class: 'stage-band' + (i % 2 ? ' alt' : '') + (b.from > 0.001 ? ' boundary' : ''), testid: `${opts.testid}-stage-${b.stage}`,
          'data-stage': b.stage, 'data-from': b.from, 'data-to': b.to, style: `left:${l}px;width:${Math.max(0, r - l)}px`,
          title: `stage ${b.stage}${b.label ? ' · ' + b.label : ''}: ${fmtSig(b.from)}–${fmtSig(b.to)} s`,
        }, h('span', null, 'stage ' + b.stage + (b.label && r - l > 90 ? ' · ' + b.label : '')));
      }));
      el.dataset.stages = String(bands.length);
    }
    function width() { return Math.max(240, el.clientWidth || 600); }
    const chart = {
      el,
      setBands(list) {
        bands = list || [];
        if (plot) placeBands(plot);
      },
      setData(data, rampupEnd) {
        shadeTo = isNum(rampupEnd) ? rampupEnd : null;
        if (!data[0].length && !plot) return;
        if (plot) { plot.setData(data); return; }
        empty.remove();
        plot = new uPlot({
          width: width(), height: opts.height || 240,
          // y starts at zero: a range from the data's minimum would make
          // noise look like a swing.
          scales: { x: { time: false }, y: { range: zeroRange } },
          cursor: { drag: { x: true, y: false } },
          series: [
            { label: opts.xLabel || 'elapsed', value: (u, v) => v == null ? '—' : fmtSig(v) + ' s' },
            ...opts.series.map(s => ({
              label: s.label, stroke: s.color, width: s.width || 2, dash: s.dash, spanGaps: true,
              fill: s.fill, value: (u, v) => v == null ? '—' : fmtSig(v) + (s.unit ? ' ' + s.unit : ''),
            })),
          ],
          axes: [
            { label: opts.xLabel || 'elapsed (s)', values: (u, vals) => vals.map(fmtCompact) },
            { label: opts.yLabel, size: 64, values: (u, vals) => vals.map(fmtCompact) },
          ],
          hooks: {
            // The y scale's bounds, for tests and the curious (data-y-min, data-y-max).
            setScale: [(u, key) => {
              if (key === 'y') { el.dataset.yMin = String(u.scales.y.min); el.dataset.yMax = String(u.scales.y.max); }
            }],
            drawClear: [u => {
              // Shade the ramp-up (not counted in the result).
              if (shadeTo == null) return;
              const x0 = u.bbox.left;
              const x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(shadeTo, 'x', true));
              if (x1 <= x0) return;
              u.ctx.save();
              u.ctx.fillStyle = 'rgba(102,112,133,0.08)';
              u.ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
              u.ctx.fillStyle = 'rgba(102,112,133,0.7)';
              u.ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
              u.ctx.fillText('ramp-up', x0 + 6 * devicePixelRatio, u.bbox.top + 14 * devicePixelRatio);
              u.ctx.restore();
            }],
            draw: [u => { if (bands.length || marks.childElementCount) placeBands(u); }],
          },
        }, data, el);
        plot.over.append(marks);
        placeBands(plot);
      },
      destroy() { if (plot) plot.destroy(); plot = null; },
    };
    let lastW = 0;
    track(new ResizeObserver(() => {
      const w = width();
      if (plot && Math.abs(w - lastW) > 2) { lastW = w; plot.setSize({ width: w, height: opts.height || 240 }); }
    }), el);
    onCleanup(() => chart.destroy());
    return chart;
  }

  // zeroRange is a uPlot y range from 0 to a round number above the data.
  function zeroRange(u, min, max) {
    const hi = isNum(max) && max > 0 ? max : 1;
    const step = niceStep(hi / 4);
    return [0, Math.ceil(hi * 1.05 / step) * step];
  }

  // intervalData turns /series intervals into uPlot columns.
  function intervalData(ivs) {
    const x = [], tpm = [], nopm = [], p50 = [], p95 = [], p99 = [], errs = [], lag = [];
    const stages = [];
    // A terminal or rate run reports its schedule lag (omitted when 0).
    const lagged = ivs.some(iv => isNum(iv.lag_p99_ms) || isNum(iv.scheduled) || isNum(iv.late) || isNum(iv.dropped));
    let rampEnd = null, prevEnd = 0;
    for (const iv of ivs) {
      const no = (iv.transactions && iv.transactions.new_order) || {};
      x.push(iv.elapsed_s);
      tpm.push(isNum(iv.tpm) ? iv.tpm : null);
      nopm.push(isNum(iv.nopm) ? iv.nopm : null);
      p50.push(isNum(no.p50_ms) ? no.p50_ms : null);
      p95.push(isNum(no.p95_ms) ? no.p95_ms : null);
      p99.push(isNum(no.p99_ms) ? no.p99_ms : null);
      // Errors per minute of the interval: intervals differ in length (the
      // last, a stage's, one cut by an outage).
      const len = isNum(iv.length_s) && iv.length_s > 0 ? iv.length_s
        : isNum(prevEnd) && isNum(iv.elapsed_s) && iv.elapsed_s > prevEnd ? iv.elapsed_s - prevEnd : null;
      errs.push(isNum(iv.errors) && len ? iv.errors * 60 / len : null);
      lag.push(isNum(iv.lag_p99_ms) ? iv.lag_p99_ms : lagged ? 0 : null);
      // Consecutive intervals of one stage make its band.
      if (isNum(iv.stage) && iv.stage > 0 && isNum(iv.elapsed_s)) {
        const last = stages[stages.length - 1];
        if (last && last.stage === iv.stage) last.to = iv.elapsed_s;
        else stages.push({ stage: iv.stage, from: len ? Math.max(0, iv.elapsed_s - len) : prevEnd, to: iv.elapsed_s });
      }
      if (isNum(iv.elapsed_s)) prevEnd = iv.elapsed_s;
      if (iv.phase === 'rampup' && isNum(iv.elapsed_s)) rampEnd = Math.max(rampEnd || 0, iv.elapsed_s);
    }
    return { x, tpm, nopm, p50, p95, p99, errs, lag, lagged, stages, rampEnd };
  }

  // seriesCharts builds the interval charts (a fourth, the schedule lag, for
  // terminal and rate runs), stages marked; update(ivs) redraws them.
  function seriesCharts(testid) {
    const tput = lineChart({
      testid: 'chart-tpm', title: 'Throughput', yLabel: 'per minute',
      series: [{ label: 'TPM', color: PALETTE[0] }, { label: 'NOPM', color: PALETTE[2] }],
    });
    const lat = lineChart({
      testid: 'chart-latency', title: 'New-Order latency', yLabel: 'ms',
      series: [
        { label: 'p50', color: PALETTE[2], unit: 'ms' },
        { label: 'p95', color: PALETTE[6], unit: 'ms' },
        { label: 'p99', color: PALETTE[4], unit: 'ms' },
      ],
    });
    const err = lineChart({
      testid: 'chart-errors', title: 'Errors per minute', yLabel: 'errors / min',
      series: [{ label: 'errors', color: '#d92d20', fill: 'rgba(217,45,32,0.08)', unit: '/ min' }],
    });
    const el = h('div', { class: 'grid2', testid, id: testid },
      h('div', { class: 'panel' }, tput.el), h('div', { class: 'panel' }, lat.el),
      h('div', { class: 'panel' }, err.el));
    // The schedule lag of a terminal or rate run: a fourth chart, added
    // once the intervals carry it.
    let lag = null;
    let targets = [], model = 'closed';
    return {
      el,
      // setStages names the stages' targets on the bands (from the
      // job's stages setting and load model).
      setStages(list, m) { targets = list || []; model = m || 'closed'; },
      update(ivs) {
        const d = intervalData(ivs);
        if (d.lagged && !lag) {
          lag = lineChart({
            testid: 'chart-lag', title: 'Schedule lag p99', yLabel: 'ms',
            series: [{ label: 'lag p99', color: PALETTE[3], unit: 'ms' }],
          });
          el.append(h('div', { class: 'panel' }, lag.el, h('p', { class: 'muted chart-note' }, LAG_NOTE)));
        }
        const bands = d.stages.map(b => Object.assign({ label: isNum(targets[b.stage - 1]) ? targetText(model, targets[b.stage - 1]) : '' }, b));
        for (const c of [tput, lat, err, lag]) if (c) c.setBands(bands);
        tput.setData([d.x, d.tpm, d.nopm], d.rampEnd);
        lat.setData([d.x, d.p50, d.p95, d.p99], d.rampEnd);
        err.setData([d.x, d.errs], d.rampEnd);
        if (lag) lag.setData([d.x, d.lag], d.rampEnd);
      },
    };
  }

  // barChart draws grouped bars as SVG: categories on x, one bar per series.
  function barChart(opts) {
    const host = h('div', { class: 'barchart', testid: opts.testid, id: opts.testid });
    let log = !!opts.log;
    function draw() {
      const W = Math.max(240, host.clientWidth || 720);
      const padL = 58, padR = 12, padT = 12;
      // Category labels turn when they would run together (a narrow screen).
      const longest = Math.max(1, ...opts.categories.map(c => String(c).length));
      const rotate = opts.rotate || longest * 6.5 > (W - padL - padR) / (opts.categories.length || 1) - 4;
      const padB = rotate ? Math.min(96, 24 + Math.round(longest * 6.5 * 0.65)) : 34;
      const H = (opts.height || 260) + (rotate ? padB - 34 : 0);
      const pw = W - padL - padR, ph = H - padT - padB;
      const vals = opts.series.flatMap(s => s.values).filter(v => isNum(v) && v > 0);
      const max = vals.length ? Math.max(...vals) : 1;
      let lo = 0, hi, ticks = [];
      if (log) {
        lo = Math.pow(10, Math.floor(Math.log10(vals.length ? Math.min(...vals) : 1)));
        hi = Math.pow(10, Math.ceil(Math.log10(max)));
        if (hi <= lo) hi = lo * 10;
        for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
      } else {
        const step = niceStep(max / 5);
        hi = Math.ceil(max / step) * step || 1;
        for (let t = 0; t <= hi + step / 2; t += step) ticks.push(t);
      }
      const y = v => {
        if (!isNum(v) || v <= 0) return padT + ph;
        if (log) return padT + ph - (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) * ph;
        return padT + ph - v / hi * ph;
      };
      const root = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': opts.title || 'bar chart' });
      for (const t of ticks) {
        const yy = y(t === 0 ? NaN : t);
        root.append(svg('line', { x1: padL, x2: W - padR, y1: yy, y2: yy, stroke: '#e3e6eb' }));
        root.append(svg('text', { x: padL - 6, y: yy + 4, 'text-anchor': 'end' }, fmtCompact(t)));
      }
      if (opts.yLabel) {
        root.append(svg('text', { x: 12, y: padT + ph / 2, transform: `rotate(-90 12 ${padT + ph / 2})`, 'text-anchor': 'middle' }, opts.yLabel));
      }
      const n = opts.categories.length || 1, k = opts.series.length || 1;
      const gw = pw / n, bw = Math.max(1, (gw * 0.8) / k);
      opts.categories.forEach((cat, i) => {
        opts.series.forEach((s, j) => {
          const v = s.values[i];
          if (!isNum(v)) return;
          const yy = y(v);
          const rect = svg('rect', {
            x: padL + i * gw + gw * 0.1 + j * bw, y: yy, width: Math.max(1, bw - 1), height: Math.max(0, padT + ph - yy),
            fill: s.color, rx: 1.5, 'data-testid': `${opts.testid}-bar-${i}-${j}`,
          }, svg('title', null, `${cat} · ${s.label}: ${fmtSig(v)}${opts.unit ? ' ' + opts.unit : ''}`));
          root.append(rect);
        });
        const cx = padL + i * gw + gw / 2, cy = padT + ph + 16;
        root.append(svg('text', rotate
          ? { x: cx, y: cy, 'text-anchor': 'end', transform: `rotate(-40 ${cx} ${cy})` }
          : { x: cx, y: cy, 'text-anchor': 'middle' }, cat));
      });
      root.append(svg('line', { x1: padL, x2: W - padR, y1: padT + ph, y2: padT + ph, stroke: '#98a2b3' }));
      host.replaceChildren(root, opts.series.length > 1 || opts.legend
        ? h('div', { class: 'legend' }, opts.series.map(s => h('span', null, h('i', { style: `background:${s.color}` }), s.label)))
        : null);
    }
    let lastW = 0;
    track(new ResizeObserver(() => {
      const w = host.clientWidth;
      if (Math.abs(w - lastW) > 2) { lastW = w; draw(); }
    }), host);
    return { el: host, setLog(v) { log = v; draw(); } };
  }

  function niceStep(raw) {
    if (!(raw > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
  }

  // ---------------------------------------------------------------- server observations

  // Wait classes bottom-up in the active-sessions chart, each with one
  // colour on every page: CPU (active, no wait event) at the bottom, the
  // waits a tuner looks for first (locks, I/O) right above it.
  const WAIT_CLASSES = [
    ['CPU', '#12805c'], ['IO', '#2f6fed'], ['Lock', '#d92d20'], ['LWLock', '#f08c00'],
    ['Commit', '#e8590c'], ['BufferPin', '#a61e4d'], ['IPC', '#0c8599'], ['Client', '#9c36b5'],
    ['Timeout', '#868e96'], ['Activity', '#5c7cfa'], ['Extension', '#495057'], ['InjectionPoint', '#c2255c'],
    ['Other', '#d6336c'],
  ];
  const CLASS_COLOR = Object.fromEntries(WAIT_CLASSES);
  const EXTRA_COLORS = ['#74b816', '#1098ad', '#ae3ec9', '#f59f00', '#4263eb', '#868e96'];

  // classesIn lists the wait classes an observer's intervals name, in the
  // chart's order (known classes first, others by name), with colours.
  function classesIn(ivs) {
    const seen = new Set();
    for (const iv of ivs) for (const c of iv.classes || []) if (c && c.class) seen.add(c.class);
    const known = WAIT_CLASSES.map(([c]) => c).filter(c => seen.has(c));
    const other = [...seen].filter(c => !CLASS_COLOR[c]).sort();
    return known.concat(other).map((c, i) => ({ name: c, color: CLASS_COLOR[c] || EXTRA_COLORS[(i - known.length) % EXTRA_COLORS.length] }));
  }

  function classAAS(iv, name) {
    const c = (iv.classes || []).find(x => x.class === name);
    return c && isNum(c.aas) ? c.aas : 0;
  }

  // aasChart draws an observer's average active sessions per interval as
  // SVG bars stacked by wait class, each spanning the time its interval
  // covered; intervals the observer could not see (fully or in part) are
  // marked. y starts at zero. The live page redraws it with update as the
  // observer's intervals arrive.
  function aasChart(o, rampEnd, testid) {
    let ivs = [], classes = [];
    function setData(obs, ramp) {
      ivs = (obs.intervals || []).filter(iv => isNum(iv.elapsed_s));
      classes = classesIn(ivs);
      rampEnd = ramp;
    }
    setData(o, rampEnd);
    const host = h('div', { class: 'barchart aaschart', testid, id: testid });
    function draw() {
      const W = Math.max(320, host.clientWidth || 720), H = 240;
      const padL = 58, padR = 12, padT = 12, padB = 34;
      const pw = W - padL - padR, ph = H - padT - padB;
      const xMax = Math.max(1, ...ivs.map(iv => iv.elapsed_s));
      const totals = ivs.map(iv => classes.reduce((s, c) => s + classAAS(iv, c.name), 0));
      const max = Math.max(0, ...totals);
      const step = niceStep((max || 1) / 4);
      const hi = Math.ceil((max || 1) / step) * step;
      const x = v => padL + Math.max(0, Math.min(v, xMax)) / xMax * pw;
      const y = v => padT + ph - v / hi * ph;
      const root = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
        'aria-label': 'average active sessions by wait class', 'data-testid': testid + '-svg' });
      if (isNum(rampEnd) && rampEnd > 0) {
        root.append(svg('rect', { x: padL, y: padT, width: x(rampEnd) - padL, height: ph, fill: 'rgba(102,112,133,0.08)',
          'data-testid': testid + '-rampup', 'data-to': rampEnd }),
          svg('text', { x: padL + 6, y: padT + 14 }, 'ramp-up'));
      }
      for (let t = 0; t <= hi + step / 2; t += step) {
        root.append(svg('line', { x1: padL, x2: W - padR, y1: y(t), y2: y(t), stroke: '#e3e6eb' }),
          svg('text', { x: padL - 6, y: y(t) + 4, 'text-anchor': 'end' }, fmtCompact(t)));
      }
      const xStep = niceStep(xMax / 8);
      for (let t = 0; t <= xMax + xStep / 100; t += xStep) {
        root.append(svg('text', { x: x(t), y: padT + ph + 16, 'text-anchor': 'middle' }, fmtCompact(t)));
      }
      root.append(svg('text', { x: padL + pw, y: H - 2, 'text-anchor': 'end' }, 'elapsed (s)'),
        svg('text', { x: 12, y: padT + ph / 2, transform: `rotate(-90 12 ${padT + ph / 2})`, 'text-anchor': 'middle' }, 'active sessions'));
      ivs.forEach((iv, i) => {
        const len = isNum(iv.length_s) && iv.length_s > 0 ? iv.length_s : 0;
        const x0 = x(iv.elapsed_s - len), x1 = x(iv.elapsed_s);
        const bw = Math.max(1, x1 - x0 - (x1 - x0 > 4 ? 1 : 0));
        const span = `${fmtSig(iv.elapsed_s - len)}–${fmtSig(iv.elapsed_s)} s`;
        // Every interval has its column, under the bars: an interval
        // without active sessions still says so when pointed at.
        root.append(svg('rect', { x: x0, y: padT, width: bw, height: ph, fill: 'transparent',
          'data-testid': `${testid}-iv-${i}`, 'data-to': iv.elapsed_s },
        svg('title', null, `${span}: ${fmtSig(totals[i])} active sessions`)));
        if (iv.gap) {
          root.append(svg('rect', { x: x0, y: padT, width: bw, height: ph, class: 'gap', 'data-testid': `${testid}-gap-${i}` },
            svg('title', null, `${span}: not observed (all or part): ${iv.gap}`)));
        }
        let base = 0;
        for (const c of classes) {
          const v = classAAS(iv, c.name);
          if (v <= 0) continue;
          const top = y(base + v), bottom = y(base);
          root.append(svg('rect', { x: x0, y: top, width: bw, height: Math.max(0.5, bottom - top), fill: c.color,
            'data-testid': `${testid}-bar-${i}-${c.name}` },
          svg('title', null, `${span} · ${c.name}: ${fmtSig(v)} AAS of ${fmtSig(totals[i])}`)));
          base += v;
        }
      });
      root.append(svg('line', { x1: padL, x2: W - padR, y1: padT + ph, y2: padT + ph, stroke: '#98a2b3' }));
      const legend = h('div', { class: 'legend', testid: testid + '-legend' },
        classes.map(c => h('span', { testid: `${testid}-legend-${c.name}` }, h('i', { style: `background:${c.color}` }), c.name)),
        ivs.some(iv => iv.gap) ? h('span', null, h('i', { class: 'gap-swatch' }), 'not observed') : null);
      host.replaceChildren(root, legend);
    }
    let lastW = 0;
    track(new ResizeObserver(() => {
      const w = host.clientWidth;
      if (Math.abs(w - lastW) > 2) { lastW = w; draw(); }
    }), host);
    host.update = (obs, ramp) => { setData(obs, ramp); draw(); };
    return host;
  }

  const pct = v => isNum(v) ? fmtNum(v, 1) + ' %' : '—';

  // costText words an observer's own cost, as the CLI does.
  function costText(c) {
    if (!c) return '—';
    const parts = [`${fmtNum(c.samples)} samples`, `${fmtNum(c.queries)} ${c.queries === 1 ? 'query' : 'queries'} taking ${fmtNum(c.query_s, 2)} s`];
    if (isNum(c.server_cpu_share) && c.server_cpu_share > 0) parts.push(fmtNum(100 * c.server_cpu_share, 1) + ' % of one server CPU');
    if (c.reconnects > 0) parts.push(`${fmtNum(c.reconnects)} reconnect${c.reconnects === 1 ? '' : 's'}`);
    return parts.join(', ');
  }

  // serverStats is the "Server statistics" panel: each observer's summary
  // over the measured window (the result's observed object). A figure the
  // observer did not measure is left out.
  function serverStats(summary) {
    const obs = (summary && summary.observers) || [];
    return panel('Server statistics', 'server-stats', obs.map((s, k) => {
      const rows = [];
      const row = (key, label, value) => { if (value != null) rows.push(h('tr', { testid: 'stat-' + key }, h('td', null, label), h('td', null, value))); };
      if (isNum(s.aas)) {
        row('aas', 'Active sessions', `${fmtNum(s.aas, 2)} AAS (${fmtNum(s.samples)} samples)`);
        row('cpu', 'On CPU', `${fmtNum(s.cpu_aas, 2)} AAS (${pct(100 * s.cpu_share)})`);
        if ((s.waits || []).length) {
          row('waits', 'Top waits', h('ul', { class: 'plain' }, s.waits.map(w => h('li', null,
            h('i', { class: 'swatch', style: `background:${CLASS_COLOR[w.class] || '#868e96'}` }),
            w.event ? `${w.class}:${w.event}` : w.class, ` ${fmtNum(w.aas, 2)} AAS`, isNum(w.share) ? ` (${pct(100 * w.share)})` : ''))));
        }
        // The active sessions by kind of session (a mixed run's analytic
        // streams apart from its virtual users), each by wait class.
        if ((s.sessions || []).length) {
          row('sessions', 'By kind of session', h('ul', { class: 'plain' }, s.sessions.map(k => h('li', { testid: 'stat-session-kind' },
            h('b', null, k.kind), ` ${fmtNum(k.aas, 2)} AAS: `,
            (k.waits || []).map((w, i) => [i ? ', ' : '', h('i', { class: 'swatch', style: `background:${CLASS_COLOR[w.class] || '#868e96'}` }),
              `${w.class} ${fmtNum(w.aas, 2)}`])))));
        }
      }
      if (isNum(s.commits_per_s)) row('commits', 'Commits / s', `${fmtNum(s.commits_per_s, 1)}` + (s.commits_counter ? ` (${s.commits_counter})` : ''));
      if (isNum(s.buffer_hit_pct)) row('hit', 'Buffer hits', fmtNum(s.buffer_hit_pct, 2) + ' %');
      if (isNum(s.checkpoints)) row('checkpoints', 'Checkpoints begun', fmtNum(s.checkpoints));
      if (isNum(s.host_cpu_user_pct)) {
        row('host-cpu', 'Host CPU', `user ${pct(s.host_cpu_user_pct)}, sys ${pct(s.host_cpu_sys_pct)}, iowait ${pct(s.host_cpu_iowait_pct)}` +
          (isNum(s.host_cpu_steal_pct) ? `, steal ${pct(s.host_cpu_steal_pct)}` : ''));
      }
      if (isNum(s.host_disk_mbps)) row('disk', 'Disk', fmtNum(s.host_disk_mbps, 1) + ' MB/s');
      (s.gaps || []).forEach((g, i) => row('gap-' + (i + 1), 'Gap',
        `not observed for ${fmtSig(g.missed_s)} s (${fmtSig(g.from_s)}–${fmtSig(g.to_s)} s): ${g.reason}`));
      row('cost', 'Observer cost', costText(s.cost));
      (s.notes || []).forEach((n, i) => row('note-' + (i + 1), 'Note', n));
      return h('div', { class: 'observer', testid: 'server-stats-' + k },
        h('h3', null, s.server ? `${s.server}: ${s.name}` : s.name,
          h('span', { class: 'muted', style: 'font-weight:400' }, ` · ${fmtNum(s.intervals)} intervals, ${fmtDuration(s.window_s)} measured`)),
        h('table', { class: 'data kv' }, h('tbody', null, rows)));
    }));
  }

  // settingsPanel lists the server settings in force when the job started.
  function settingsPanel(observers) {
    const rows = observers.flatMap(o => o.settings || []);
    const several = new Set(rows.map(s => s.observer)).size > 1;
    const cols = [{ label: 'Setting' }, { label: 'Value' }, { label: 'Source' }].concat(several ? [{ label: 'Observer' }] : []);
    return panel('Settings', 'settings-panel', rows.length
      ? h('div', { class: 'scroll' }, table(cols, rows.map(s => ({
        attrs: { testid: 'setting-' + s.name },
        cells: [h('span', { class: 'mono' }, s.name), h('span', { class: 'mono' }, s.value), s.source || '—'].concat(several ? [s.observer] : []),
      })), { testid: 'settings-table' }))
      : h('p', { class: 'muted', testid: 'settings-empty' }, 'The observers recorded no settings (none differ from their defaults, or none could be read).'));
  }

  // observedSection is what the server did during a run: the active
  // sessions by wait class, the statistics and the settings; or one line
  // saying why the run was not observed.
  function observedSection(result, observed, rampEnd) {
    const observers = (observed && observed.observers) || [];
    if (!observers.length) {
      let why = (observed && observed.unavailable) || (result && result.observed_unavailable) || 'no observations were recorded';
      if (!/^not observed/i.test(why)) why = 'not observed: ' + why;
      return h('p', { class: 'muted', testid: 'not-observed' }, 'Server: ' + why);
    }
    const charted = observers.filter(o => (o.intervals || []).some(iv => (iv.classes || []).length));
    return h('div', { testid: 'observed', id: 'observed' },
      h('h2', { style: 'margin-top:8px' }, 'Server'),
      charted.map((o, i) => h('section', { class: 'panel', testid: 'aas-panel' },
        h('h3', null, 'Active sessions by wait class',
          h('span', { class: 'muted', style: 'font-weight:400' }, ' · ' + (o.server ? `${o.server}: ${o.name}` : o.name))),
        aasChart(o, rampEnd, i ? 'aas-chart-' + i : 'aas-chart'))),
      h('div', { class: 'grid2', style: 'margin-bottom:16px' },
        result && result.observed ? serverStats(result.observed) : null,
        settingsPanel(observers)));
  }

  // liveObserved is the live page's server section: each observer's active
  // sessions by wait class, re-read every POLL_MS from the repository,
  // where the run stores every cut as it happens. refresh(rampEnd) passes
  // the ramp-up's end from the run's intervals.
  function liveObserved(id, alive) {
    const wait = h('p', { class: 'muted', testid: 'live-observed-wait' }, 'Server: active sessions appear after the first interval.');
    const charts = h('div');
    const el = h('div', { testid: 'live-observed', id: 'live-observed' }, h('h2', { style: 'margin-top:8px' }, 'Server'), wait, charts);
    const drawn = new Map(); // observer index in the run → its chart
    let rampEnd = null, timer = 0;
    onCleanup(() => clearTimeout(timer));
    function render(observed) {
      const observers = (observed && observed.observers) || [];
      let n = 0;
      observers.forEach((o, k) => {
        if (!(o.intervals || []).some(iv => (iv.classes || []).length)) return;
        const testid = n++ ? 'live-aas-chart-' + (n - 1) : 'live-aas-chart';
        const chart = drawn.get(k);
        if (chart) return chart.update(o, rampEnd);
        const c = aasChart(o, rampEnd, testid);
        drawn.set(k, c);
        charts.append(h('section', { class: 'panel', testid: 'live-aas-panel' },
          h('h3', null, 'Active sessions by wait class',
            h('span', { class: 'muted', style: 'font-weight:400' }, ' · ' + (o.server ? `${o.server}: ${o.name}` : o.name))), c));
      });
      if (drawn.size) wait.remove();
      else if (observers.length) wait.textContent = 'Server: observed, with no session activity to chart yet.';
    }
    async function load() {
      try {
        const observed = await get(`/api/jobs/${id}/observed`, null);
        if (alive()) render(observed);
      } catch (e) {
        // The interval poll reports a server that cannot be reached.
      }
      if (alive()) timer = setTimeout(load, POLL_MS);
    }
    load();
    return { el, refresh(ramp) { if (isNum(ramp)) rampEnd = ramp; } };
  }

  // agentsPanel lists the agents of a run driven by several sledge
  // processes (--segment): each one's segment, host, state and share of the
  // numbers. Nothing shows for a run of one process. live re-reads it every
  // POLL_MS while the page is there.
  function agentsPanel(id, alive, live) {
    const el = h('div', { testid: 'agents' });
    const body = h('tbody');
    let timer = 0;
    onCleanup(() => clearTimeout(timer));
    const num = (v, d) => isNum(v) ? fmtNum(v, d) : '—';
    async function load() {
      try {
        const list = await get(`/api/jobs/${id}/agents`, []);
        if (!alive()) return;
        body.replaceChildren(...(list || []).map(a => h('tr', { testid: 'agent-' + a.segment.replace(/[^0-9A-Za-z]/g, '_') },
          h('td', { class: 'mono' }, a.segment),
          h('td', null, `${a.host} (pid ${a.pid})`),
          h('td', null, a.vus ? `${a.vus} (${a.first_vu}–${a.first_vu + a.vus - 1})` : '0'),
          h('td', null, h('span', { class: `badge badge-${a.state === 'done' ? 'completed' : a.state === 'running' || a.state === 'joined' ? 'running' : 'failed'}` }, a.state),
            a.error ? h('span', { class: 'muted' }, ' ' + a.error) : null,
            // Counted lost and back: its numbers are kept but include the silence.
            a.late ? h('span', null, ' ', h('span', { class: 'badge badge-degraded', testid: 'agent-late' }, `late: silent ${num(a.silent_s, 0)} s`)) : null),
          h('td', { class: 'num' }, num(a.nopm)),
          // Units in the cells: the headers are upper-cased, and µ would read as M.
          h('td', { class: 'num' }, isNum(a.client_cpu_per_tx_us) ? fmtNum(a.client_cpu_per_tx_us, 1) + ' µs' : '—'),
          h('td', { class: 'num' }, num(a.clock_offset_ms, 1) + ' ms'))));
        if (list && list.length && !el.firstChild) {
          el.append(panel('Agents', 'agents-panel', h('div', { class: 'scroll' }, h('table', { class: 'data', testid: 'agents-table' },
            h('thead', null, h('tr', null, ['Segment', 'Host', 'VUs', 'State', 'NOPM', 'Client CPU per transaction', 'Clock offset'].map(c => h('th', null, c)))),
            body))));
        }
      } catch (e) {
        // The job's other panels say when the server cannot be reached.
      }
      if (live && alive()) timer = setTimeout(load, POLL_MS);
    }
    load();
    return el;
  }

  // ---------------------------------------------------------------- jobs page

  const jobsState = {
    filters: { kind: '', workload: '', status: '' },
    sort: { key: 'id', dir: -1 },
    selected: new Set(),
    limit: 100,
  };
  // details caches per-job config and (TPROC-H) result; finished jobs do not change.
  const details = new Map();

  // NARROW_MEDIA is app.css's narrow screen; NARROW_ORDER the jobs
  // table's columns there.
  const NARROW_MEDIA = '(max-width: 640px)';
  const NARROW_ORDER = ['id', 'headline', 'status', 'setup', 'kind', 'workload', 'database', 'started'];
  const JOB_COLUMNS = [
    { key: 'id', label: 'ID', num: true },
    { key: 'kind', label: 'Kind' },
    { key: 'workload', label: 'Workload' },
    { key: 'database', label: 'Database' },
    { key: 'setup', label: 'Setup', title: 'From the job\'s config: VUs (rate, terminals, stages), streams, warehouses or scale factor, the mode, and the settings that are not the defaults; hover a cell for all of them' },
    { key: 'headline', label: 'Result', num: true, title: 'NOPM for TPROC-C runs, geometric mean of the power-test query times for TPROC-H runs' },
    { key: 'status', label: 'Status' },
    { key: 'started', label: 'Started' },
  ];

  function headline(job, det) {
    if (job.kind !== 'run') return null;
    if (workloadOf(job) === 'tproch') {
      const g = det && det.result && det.result.geomean_s;
      return isNum(g) ? { value: g, text: fmtSig(g) + ' s', unit: 'geomean' } : null;
    }
    return isNum(job.nopm) ? { value: job.nopm, text: fmtNum(job.nopm), unit: 'NOPM' } : null;
  }

  function sortValue(job, key) {
    const det = details.get(job.id);
    switch (key) {
      case 'id': return job.id;
      case 'kind': return job.kind || '';
      case 'workload': return workloadOf(job);
      case 'database': return dbLabel(job).toLowerCase();
      case 'setup': return setupValue(det && det.config);
      case 'headline': { const hl = headline(job, det); return hl ? hl.value : -Infinity; }
      case 'status': return job.status || '';
      case 'started': return Date.parse(job.started_at) || 0;
    }
    return '';
  }

  async function pageJobs() {
    document.title = 'Jobs · Sledge';
    const alive = aliveToken();
    const st = jobsState;
    let jobs = [];
    let pollTimer = 0, renderTimer = 0;
    onCleanup(() => { clearTimeout(pollTimer); clearTimeout(renderTimer); });

    const compareBtn = h('button', {
      type: 'button', class: 'btn', id: 'compare-button', testid: 'compare-button', disabled: true,
      title: 'Select two or more jobs to compare',
      onclick: () => { location.hash = '#/compare?ids=' + [...st.selected].join(','); },
    }, 'Compare');
    const errorBox = h('div', { testid: 'jobs-error' });
    const tbody = h('tbody', { id: 'jobs-tbody' });
    const countEl = h('span', { class: 'sub', testid: 'jobs-count' });
    const moreBtn = h('button', {
      type: 'button', class: 'btn', testid: 'load-more', hidden: true,
      onclick: () => { st.limit += 100; load(); },
    }, 'Show more');
    const selectAll = h('input', {
      type: 'checkbox', testid: 'select-all', 'aria-label': 'Select all jobs',
      onchange: e => {
        for (const j of jobs) { if (e.target.checked) st.selected.add(j.id); else st.selected.delete(j.id); }
        renderRows();
      },
    });

    function filterSelect(name, label, options) {
      return h('label', null, label + ' ',
        h('select', {
          id: 'filter-' + name, testid: 'filter-' + name, value: st.filters[name],
          onchange: e => { st.filters[name] = e.target.value; load(); },
        }, h('option', { value: '' }, 'all'), options.map(o => h('option', { value: o }, o))));
    }

    // A narrow screen shows the table in another column order: what a
    // job is and how it went (ID, result, status) before the rest, which
    // scrolls sideways.
    const narrow = window.matchMedia(NARROW_MEDIA);
    const columns = () => narrow.matches ? NARROW_ORDER.map(k => JOB_COLUMNS.find(c => c.key === k)) : JOB_COLUMNS;
    const headRow = h('tr');
    function renderHead() {
      headRow.replaceChildren(h('th', { class: 'sel' }, selectAll), ...columns().map(c =>
        h('th', {
          class: 'sortable' + (c.num ? ' num' : ''), title: c.title, testid: 'sort-' + c.key, 'data-sort': c.key,
          onclick: () => {
            if (st.sort.key === c.key) st.sort.dir = -st.sort.dir;
            else st.sort = { key: c.key, dir: (c.key === 'id' || c.key === 'started' || c.key === 'headline') ? -1 : 1 };
            renderRows();
          },
        }, c.label, h('span', { class: 'arrow' }))));
    }
    renderHead();
    const onNarrow = () => { if (alive()) { renderHead(); renderRows(); } };
    narrow.addEventListener('change', onNarrow);
    onCleanup(() => narrow.removeEventListener('change', onNarrow));

    setPage(
      h('div', { class: 'page-head' }, h('h1', null, 'Jobs'), countEl, h('span', { class: 'spacer' }),
        h('a', { href: '#/profiles', class: 'btn', id: 'profiles-button', testid: 'profiles-button', title: 'Performance profiles: VU sweeps run with sledge profile' }, 'Profiles'),
        compareBtn,
        h('a', { href: '#/new', class: 'btn btn-primary', id: 'new-job-button', testid: 'new-job-button' }, 'New job')),
      h('div', { class: 'toolbar' },
        filterSelect('kind', 'Kind', ['build', 'run', 'check', 'drop']),
        filterSelect('workload', 'Workload', ['tprocc', 'tproch']),
        filterSelect('status', 'Status', ['running', 'completed', 'degraded', 'failed', 'interrupted', 'abandoned']),
        h('span', { class: 'spacer' }),
        h('button', { type: 'button', class: 'btn', testid: 'refresh-button', onclick: () => load() }, 'Refresh')),
      errorBox,
      h('div', { class: 'panel flush' },
        h('table', { class: 'data', id: 'jobs-table', testid: 'jobs-table' }, h('thead', null, headRow), tbody)),
      h('div', { class: 'toolbar' }, moreBtn));

    function renderRows() {
      for (const th of headRow.querySelectorAll('th[data-sort]')) {
        const on = th.dataset.sort === st.sort.key;
        th.querySelector('.arrow').textContent = on ? (st.sort.dir > 0 ? '▲' : '▼') : '';
        th.setAttribute('aria-sort', on ? (st.sort.dir > 0 ? 'ascending' : 'descending') : 'none');
      }
      const rows = jobs.slice().sort((a, b) => {
        const va = sortValue(a, st.sort.key), vb = sortValue(b, st.sort.key);
        const c = va < vb ? -1 : va > vb ? 1 : 0;
        return (c || (a.id - b.id)) * st.sort.dir;
      });
      countEl.textContent = jobs.length === 1 ? '1 job' : jobs.length + ' jobs';
      if (!rows.length) {
        const filtered = st.filters.kind || st.filters.workload || st.filters.status;
        tbody.replaceChildren(h('tr', null, h('td', { colspan: JOB_COLUMNS.length + 1, class: 'empty', testid: 'jobs-empty' },
          filtered ? 'No jobs match the filters.' : h('span', null, 'No jobs yet. ', h('a', { href: '#/new' }, 'Start one'), '.'))));
      } else {
        tbody.replaceChildren(...rows.map(jobRow));
      }
      const n = [...st.selected].length;
      compareBtn.disabled = n < 2;
      compareBtn.textContent = n ? `Compare (${n})` : 'Compare';
      selectAll.checked = jobs.length > 0 && jobs.every(j => st.selected.has(j.id));
      selectAll.indeterminate = !selectAll.checked && jobs.some(j => st.selected.has(j.id));
    }

    function scheduleRender() {
      clearTimeout(renderTimer);
      renderTimer = setTimeout(() => { if (alive()) renderRows(); }, 60);
    }

    function jobRow(job) {
      const det = details.get(job.id);
      const hl = headline(job, det);
      const sel = st.selected.has(job.id);
      const href = '#/jobs/' + job.id;
      const cells = {
        id: h('td', { class: 'num' }, h('a', { href, testid: 'job-link-' + job.id }, '#' + job.id)),
        kind: h('td', null, job.kind || '—'),
        workload: h('td', null, job.workload ? workloadLabel(job.workload) : '—'),
        database: h('td', null, h('div', null, dbLabel(job)), targetLabel(job, det && det.config)),
        setup: h('td', { testid: 'job-setup-' + job.id, title: setupTitle(det && det.config) }, setupText(job, det && det.config) || (det ? '—' : '…'),
          det && det.config && det.config.profile ? h('div', { class: 'muted' },
            h('a', { href: '#/profile/' + det.config.profile, testid: 'job-profile-' + job.id }, 'profile #' + det.config.profile)) : null,
          det ? seriesLine(det.config, 'job-series-' + job.id) : null),
        headline: h('td', { class: 'num', testid: 'job-headline-' + job.id },
          hl ? [h('b', null, hl.text), ' ', h('span', { class: 'muted' }, hl.unit)]
            : (job.kind === 'run' && workloadOf(job) === 'tproch' && !det && job.status !== 'running' ? '…' : '—')),
        status: h('td', null, badge(job.status, 'job-status-' + job.id), job.imported_from ? ' ' : null, importedBadge(job, 'job-imported-' + job.id)),
        started: h('td', null, h('div', null, fmtDate(job.started_at)),
          h('div', { class: 'muted' }, job.status === 'running' ? 'running ' + fmtDuration(jobSeconds(job)) : fmtDuration(jobSeconds(job)))),
      };
      return h('tr', {
        id: 'job-row-' + job.id, testid: 'job-row-' + job.id, class: sel ? 'selected' : null,
        style: 'cursor:pointer',
        onclick: e => { if (!e.target.closest('input,a,button,label')) location.hash = href; },
      },
      h('td', { class: 'sel' }, h('input', {
        type: 'checkbox', testid: 'job-select-' + job.id, checked: sel, 'aria-label': 'Select job ' + job.id,
        onchange: e => { if (e.target.checked) st.selected.add(job.id); else st.selected.delete(job.id); renderRows(); },
      })),
      columns().map(c => cells[c.key]));
    }

    // Details (config; result of TPROC-H runs) are fetched lazily, a few at a time.
    const queue = [];
    let active = 0;
    function want(job) {
      const d = details.get(job.id);
      // The config is fixed when a job starts; a TPROC-H result once it ends.
      const needResult = job.status !== 'running' && job.kind === 'run' && workloadOf(job) === 'tproch';
      if (d && (d.pending || (d.config && (!needResult || d.resultDone)))) return;
      details.set(job.id, Object.assign({}, d || {}, { pending: true }));
      queue.push(async () => {
        const [cfg, res] = await Promise.all([
          d && d.config ? Promise.resolve({ data: d.config }) : settle(get(`/api/jobs/${job.id}/config`, {})),
          needResult ? settle(get(`/api/jobs/${job.id}/result`, null)) : Promise.resolve({ data: null }),
        ]);
        details.set(job.id, {
          config: cfg.data || null, result: res.data || null,
          resultDone: needResult && !res.error, pending: false, failed: !!(cfg.error || res.error),
        });
        const failed = cfg.error || res.error;
        if (failed && failed.status !== 401) console.warn('job', job.id, failed);
        if (alive()) scheduleRender();
      });
    }
    function pump() {
      while (active < 4 && queue.length && alive()) {
        const task = queue.shift();
        active++;
        task().catch(e => console.warn(e)).finally(() => { active--; pump(); });
      }
    }

    async function load() {
      clearTimeout(pollTimer);
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(st.filters)) if (v) q.set(k, v);
      q.set('limit', String(st.limit));
      try {
        jobs = (await api('GET', '/api/jobs?' + q)) || [];
        errorBox.replaceChildren();
      } catch (e) {
        if (!alive()) return;
        errorBox.replaceChildren(alertBox('error', 'Could not load the jobs: ' + e.message));
        if (e.status !== 401) pollTimer = setTimeout(load, 10000);
        return;
      }
      if (!alive()) return;
      const ids = new Set(jobs.map(j => j.id));
      for (const id of [...st.selected]) if (!ids.has(id)) st.selected.delete(id);
      renderRows();
      moreBtn.hidden = jobs.length < st.limit;
      jobs.forEach(want);
      pump();
      if (jobs.some(j => j.status === 'running')) pollTimer = setTimeout(load, 5000);
    }
    await load();
  }

  // ---------------------------------------------------------------- new job

  const FIELDS = [
    { name: 'db', label: 'Target', type: 'target',
      help: 'the databases this server names (GET /api/targets), or the embedded default', show: () => true },
    { name: 'force', label: 'Replace existing schema', type: 'checkbox', value: false,
      help: 'drop an existing schema first (asks you to confirm)', show: k => k === 'build' },
    { name: 'warehouses', label: 'Warehouses', type: 'number', min: 1, value: '1',
      help: 'TPROC-C warehouses (each about 80 MB)', show: (k, w) => w === 'tprocc' && k === 'build' },
    { name: 'scale', label: 'Scale factor', type: 'number', min: 0, step: 'any', value: '1',
      help: 'TPROC-H scale factor: 1, 10, 30, … (0.01 or 0.1 for tests)', show: (k, w) => w === 'tproch' && k === 'build' },
    { name: 'vu', label: 'Virtual users', type: 'number', min: 1, value: '4',
      help: 'concurrent sessions', show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'run_warehouses', api: 'warehouses', label: 'Warehouses', type: 'number', min: 1, value: '',
      placeholder: 'as built', help: 'empty: all warehouses of the schema', show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'rampup', label: 'Ramp-up', type: 'text', value: '10s', help: 'not counted; e.g. 30s, 2m',
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'duration', label: 'Duration', type: 'text', value: '1m', help: 'measured window; e.g. 5m',
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'mode', label: 'Mode', type: 'select', value: 'auto',
      options: [['auto', 'auto (procs where available)'], ['procs', 'procs (server-side routines)'], ['sql', 'sql (statements from the client)']],
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'isolation', label: 'Isolation', type: 'select', value: '',
      options: [['', 'database default'], ['read-committed', 'read committed'], ['repeatable-read', 'repeatable read'], ['serializable', 'serializable']],
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'pacing', label: 'Pacing', type: 'select', value: 'off',
      options: [['off', 'off (maximum throughput)'], ['spec', 'spec (keying and think times; 10 VUs per warehouse)']],
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'terminals', label: 'Terminals', type: 'number', min: 0, value: '', placeholder: 'none: one session per VU',
      help: 'terminals over a pool of Connections sessions (empty with Connections set: 10 per warehouse when paced); a due terminal waits for a session, and the wait counts',
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'connections', label: 'Connections', type: 'number', min: 0, value: '', placeholder: 'as many as VUs',
      help: 'the session pool of a terminal or rate run', show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'rate', label: 'Rate', type: 'text', value: '', placeholder: 'none: closed loop',
      help: 'open-loop arrivals, transactions per second (e.g. 500), or per type (new_order=200,payment=200,…); latency counts from the scheduled start',
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'stages', label: 'Stages', type: 'text', value: '', placeholder: 'none: one level for the duration',
      help: 'a load shape, DURATION:TARGET,… (e.g. 2m:8,2m:16): VUs, terminals or transactions per second per stage; the window is the stages',
      show: (k, w) => w === 'tprocc' && k === 'run' },
    { name: 'streams', label: 'Streams', type: 'number', min: 0, value: '0',
      help: 'throughput-test query streams; 0 = power test only', show: (k, w) => w === 'tproch' && k === 'run' },
    { name: 'refresh', label: 'Refresh functions', type: 'checkbox', value: false,
      help: 'run RF1/RF2 (changes the data for good)', show: (k, w) => w === 'tproch' && k === 'run' },
  ];
  // OTHER_TARGET is the target select's "type a URL or path" choice.
  // (A target's name starts with a letter or digit: it cannot be this.)
  const OTHER_TARGET = '__other__';
  const DB_KIND_LABEL = { postgres: 'PostgreSQL', mysql: 'MariaDB/MySQL', sqlite: 'SQLite', duckdb: 'DuckDB' };
  // Field names the server may report for an error, mapped to form fields.
  const FIELD_ALIASES = { vus: 'vu', scale_factor: 'scale', sf: 'scale', url: 'db', target: 'db', rate_by_type: 'rate', max_queue: 'rate' };

  function pageNew(params) {
    document.title = 'New job · Sledge';
    const inputs = {}, errors = {}, rows = {};
    const kindSel = h('select', { id: 'f-kind', name: 'kind', testid: 'input-kind' },
      h('option', { value: 'run' }, 'run — benchmark'), h('option', { value: 'build' }, 'build — create and load the schema'),
      h('option', { value: 'check' }, 'check — row counts and consistency'), h('option', { value: 'drop' }, 'drop — delete the schema'));
    const wlSel = h('select', { id: 'f-workload', name: 'workload', testid: 'input-workload' },
      h('option', { value: 'tprocc' }, 'TPROC-C (OLTP)'), h('option', { value: 'tproch' }, 'TPROC-H (analytics)'));
    kindSel.value = ['build', 'check', 'drop'].includes(params.get('kind')) ? params.get('kind') : 'run';
    wlSel.value = params.get('workload') === 'tproch' ? 'tproch' : 'tprocc';
    const general = h('div', { testid: 'new-job-error', id: 'new-job-error' });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary', id: 'new-job-submit', testid: 'new-job-submit' }, 'Start job');

    function fieldRow(name, label, control, help) {
      const err = h('div', { class: 'field-error', id: 'error-' + name, testid: 'error-' + name, role: 'alert' });
      errors[name] = err;
      const row = h('div', { class: 'field', testid: 'field-' + name },
        h('label', { for: 'f-' + name }, label), control, h('span', { class: 'help' }, help || ''), err);
      rows[name] = row;
      return row;
    }

    // The target: a select of the server's named targets and the embedded
    // default, and — where the server allows it — a URL or path typed in.
    let target = null;
    const fieldEls = FIELDS.map(f => {
      let control;
      const common = { id: 'f-' + f.name, name: f.name, testid: 'input-' + f.name };
      if (f.type === 'target') {
        const sel = h('select', common, h('option', { value: '' }, 'embedded default (in the server\'s data directory)'));
        const other = h('input', {
          type: 'text', id: 'f-db-other', name: 'db_other', testid: 'input-db-other', spellcheck: 'false', autocomplete: 'off',
          'aria-label': 'Database URL or file', hidden: true,
        });
        sel.addEventListener('change', () => { other.hidden = sel.value !== OTHER_TARGET; clearError(f.name); if (!other.hidden) other.focus(); });
        other.addEventListener('input', () => clearError(f.name));
        control = h('span', { class: 'target-control' }, sel, other);
        target = { sel, other };
      } else if (f.type === 'select') {
        control = h('select', common, f.options.map(([v, l]) => h('option', { value: v }, l)));
        control.value = f.value;
      } else if (f.type === 'checkbox') {
        control = h('span', null, h('input', Object.assign({ type: 'checkbox', checked: !!f.value }, common)));
      } else {
        control = h('input', Object.assign({
          type: f.type === 'number' ? 'number' : 'text', min: f.min, step: f.step, placeholder: f.placeholder,
          value: f.value, spellcheck: 'false', autocomplete: 'off',
        }, common));
      }
      const input = control.tagName === 'SPAN' ? control.firstChild : control;
      const p = params.get(f.api || f.name);
      if (p != null && f.type !== 'target') { if (f.type === 'checkbox') input.checked = p === 'true'; else input.value = p; }
      inputs[f.name] = input;
      input.addEventListener('input', () => clearError(f.name));
      return fieldRow(f.name, f.label, control, f.help);
    });

    function clearError(name) {
      if (errors[name]) errors[name].textContent = '';
      if (inputs[name]) inputs[name].classList.remove('invalid');
    }
    function clearErrors() { Object.keys(errors).forEach(clearError); general.replaceChildren(); }
    function showError(name, msg) {
      errors[name].textContent = msg;
      if (inputs[name]) { inputs[name].classList.add('invalid'); inputs[name].focus(); }
    }

    function updateVisible() {
      for (const f of FIELDS) rows[f.name].hidden = !f.show(kindSel.value, wlSel.value);
      submit.textContent = { build: 'Start build', check: 'Start check', drop: 'Drop schema' }[kindSel.value] || 'Start run';
      submit.classList.toggle('btn-danger-solid', kindSel.value === 'drop');
    }

    // The targets the server offers (names and kinds, never URLs).
    const alive = aliveToken();
    api('GET', '/api/targets').then(tl => {
      if (!alive()) return;
      const named = (tl && Array.isArray(tl.targets)) ? tl.targets : [];
      for (const t of named) target.sel.append(h('option', { value: t.name, testid: 'target-option-' + t.name }, `${t.name} (${DB_KIND_LABEL[t.kind] || t.kind})`));
      offerOther(tl && tl.allow_any, tl && tl.embedded);
    }, e => {
      if (!alive()) return;
      general.replaceChildren(alertBox('warn', 'Could not load the server\'s targets: ' + e.message));
      offerOther(true, true);
    });
    function offerOther(any, embedded) {
      if (!any && !embedded) return;
      target.sel.append(h('option', { value: OTHER_TARGET }, any ? 'other: a database URL or file…' : 'other: an embedded database file in the data directory…'));
      target.other.placeholder = any ? 'postgres://user:pass@host:5432/tpcc, mysql://…, sqlite:PATH' : 'sqlite:NAME.db or duckdb:NAME.duckdb (inside the server\'s data directory)';
      const want = params.get('db');
      if (want && [...target.sel.options].some(o => o.value === want && o.value !== OTHER_TARGET)) target.sel.value = want;
      else if (want) { target.sel.value = OTHER_TARGET; target.other.value = want; target.other.hidden = false; }
    }
    kindSel.addEventListener('change', () => { clearErrors(); updateVisible(); });
    wlSel.addEventListener('change', () => { clearErrors(); updateVisible(); });

    const form = h('form', { class: 'jobform', id: 'new-job-form', testid: 'new-job-form', novalidate: true },
      fieldRow('kind', 'Kind', kindSel),
      fieldRow('workload', 'Workload', wlSel),
      fieldEls,
      h('div', { class: 'actions' }, submit, h('a', { href: '#/', class: 'btn' }, 'Cancel')));
    form.addEventListener('submit', async e => {
      e.preventDefault();
      clearErrors();
      const body = { kind: kindSel.value, workload: wlSel.value };
      for (const f of FIELDS) {
        if (!f.show(body.kind, body.workload)) continue;
        const input = inputs[f.name];
        const key = f.api || f.name;
        if (f.type === 'checkbox') { body[key] = input.checked; continue; }
        if (f.type === 'target') {
          const v = input.value === OTHER_TARGET ? target.other.value.trim() : input.value;
          if (input.value === OTHER_TARGET && !v) { showError(f.name, 'Enter a database URL or file.'); return; }
          if (v) body[key] = v;
          continue;
        }
        const v = input.value.trim();
        if (v === '') continue;
        if (f.name === 'rate' && v.includes('=')) { body.rate_by_type = v; continue; } // per type
        if (f.name === 'rate') {
          const n = Number(v);
          if (!isFinite(n) || n <= 0) { showError(f.name, 'Enter transactions per second, or TYPE=RATE,… per type.'); return; }
          body.rate = n;
          continue;
        }
        if (f.type === 'number') {
          const n = Number(v);
          if (!isFinite(n)) { showError(f.name, 'Enter a number.'); return; }
          body[key] = n;
        } else body[key] = v;
      }
      // A drop, or a build that drops an existing schema, is sent only
      // once the user has confirmed it, and says so.
      if (body.kind === 'drop' || (body.kind === 'build' && body.force)) {
        const where = body.db || 'the embedded default database';
        const what = workloadLabel(body.workload);
        const msg = body.kind === 'drop'
          ? `Drop the ${what} schema in ${where}? Its tables and data are deleted.`
          : `Build with "Replace existing schema": the ${what} schema in ${where}, if there is one, is dropped first and its data deleted. Go on?`;
        if (!window.confirm(msg)) return;
        body.confirm = true;
      }
      submit.disabled = true;
      try {
        const res = await api('POST', '/api/jobs', body);
        const id = res && res.id;
        toast(`Job ${id} started`);
        location.hash = id != null ? '#/jobs/' + id : '#/';
      } catch (err) {
        let field = err.field ? (FIELD_ALIASES[err.field] || err.field) : '';
        if (field === 'warehouses' && body.kind === 'run') field = 'run_warehouses';
        if (field && errors[field] && !(rows[field] && rows[field].hidden)) showError(field, err.message);
        else general.replaceChildren(alertBox('error', (err.field ? err.field + ': ' : '') + err.message));
      } finally {
        submit.disabled = false;
      }
    });

    setPage(
      h('div', { class: 'page-head' }, h('h1', null, 'New job')),
      general,
      h('section', { class: 'panel' }, form));
    updateVisible();
  }

  // ---------------------------------------------------------------- job page

  async function pageJob(id) {
    document.title = `Job ${id} · Sledge`;
    const alive = aliveToken();
    setPage(h('p', { class: 'muted' }, 'Loading job ' + id + '…'));
    let job;
    try {
      job = await api('GET', `/api/jobs/${id}`);
    } catch (e) {
      if (!alive()) return;
      setPage(e.status === 404
        ? h('div', { class: 'empty', testid: 'job-not-found' }, h('p', null, `There is no job ${id}.`), h('a', { href: '#/', class: 'btn' }, 'Back to the jobs'))
        : alertBox('error', 'Could not load job ' + id + ': ' + e.message, 'page-error'));
      return;
    }
    if (!alive()) return;
    if (job.status === 'running') return jobRunning(job, alive);
    return jobFinished(job, alive);
  }

  function jobHeader(job, buttons) {
    const started = Date.parse(job.started_at);
    const durEl = h('b', { testid: 'job-duration' }, fmtDuration(jobSeconds(job)));
    if (job.status === 'running' && !isNaN(started)) {
      const t = setInterval(() => { durEl.textContent = fmtDuration(jobSeconds(job)); }, 1000);
      onCleanup(() => clearInterval(t));
    }
    return [
      h('div', { class: 'page-head' },
        h('h1', { testid: 'job-title' }, `Job #${job.id}`),
        badge(job.status, 'job-status'),
        importedBadge(job, 'job-imported'),
        h('span', { class: 'sub' }, `${job.kind || ''} · ${workloadLabel(workloadOf(job))}`),
        h('span', { class: 'spacer' }),
        buttons),
      h('div', { class: 'meta' },
        h('span', null, 'Database ', h('b', { testid: 'job-db' }, dbLabel(job))),
        job.target_name ? h('span', null, 'Target ', h('b', { class: 'mono', testid: 'job-target-name', title: job.target || '' }, job.target_name))
          : job.target ? h('span', null, 'Target ', h('b', { class: 'mono', testid: 'job-target' }, job.target)) : null,
        h('span', null, 'Started ', h('b', null, fmtDate(job.started_at))),
        job.ended_at ? h('span', null, 'Ended ', h('b', null, fmtDate(job.ended_at))) : null,
        h('span', null, job.status === 'running' ? 'Running for ' : 'Took ', durEl),
        job.imported_from ? h('span', { testid: 'job-origin' }, 'Imported from ',
          h('b', null, `job #${job.imported_from.id} of ${job.imported_from.host || '—'}`), ' (read-only)') : null),
      job.error ? alertBox('error', job.error, 'job-error') : null,
    ];
  }

  function configPanel(cfg) {
    const keys = Object.keys(cfg || {}).sort();
    return panel('Config', 'config', keys.length
      ? h('table', { class: 'data kv', testid: 'config-table' }, h('tbody', null,
        keys.map(k => h('tr', { testid: 'config-' + k }, h('td', null, k), h('td', { class: 'mono' }, String(cfg[k]))))))
      : h('p', { class: 'muted' }, 'No config recorded.'));
  }

  function outputPanel(lines) {
    const pre = h('pre', { class: 'output', id: 'output', testid: 'output' });
    const p = panel('Output', 'output-panel', pre);
    const set = ls => {
      const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 8;
      pre.textContent = (ls && ls.length) ? ls.join('\n') : '(no output)';
      if (atEnd) pre.scrollTop = pre.scrollHeight;
    };
    set(lines);
    return { el: p, set };
  }

  function jobRunning(job, alive) {
    const id = job.id;
    const tprocc = job.kind === 'run' && workloadOf(job) === 'tprocc';
    let finished = false;
    let pollTimer = 0;
    onCleanup(() => { finished = true; clearTimeout(pollTimer); });

    const stopBtn = h('button', {
      type: 'button', class: 'btn btn-danger', id: 'stop-button', testid: 'stop-button',
      onclick: async () => {
        stopBtn.disabled = true;
        try {
          await api('POST', `/api/jobs/${id}/stop`);
          stopBtn.textContent = 'Stopping…';
          toast('Stop requested; the job winds down and keeps what it measured.');
        } catch (e) {
          stopBtn.disabled = false;
          toast('Could not stop the job: ' + e.message, true);
        }
      },
    }, 'Stop');
    const liveState = h('span', { class: 'muted', testid: 'live-mode' });
    const notice = h('div', { testid: 'live-error' });
    const ivs = new Map();
    const charts = tprocc ? seriesCharts('live-charts') : null;
    const server = job.kind === 'run' ? liveObserved(id, alive) : null;
    const lastTPM = h('span', null, '—'), lastNOPM = h('span', null, '—'), lastElapsed = h('span', null, '—');
    // The Load panel (terminal, rate and staged runs) and the series panel
    // come with the job's settings.
    const loadHolder = h('div', { class: 'stack' });
    let load = null;
    const out = outputPanel([]);
    const cfgHolder = h('div');
    // Per-VU state from the latest interval: what each session is doing and
    // what it did in that interval.
    const vuBody = h('tbody');
    const vuPanel = tprocc ? panel('Virtual users', 'vu-panel',
      h('table', { class: 'data', testid: 'vu-table' },
        h('thead', null, h('tr', null, h('th', null, 'VU'), h('th', null, 'State'),
          h('th', null, 'Commits (last interval)'), h('th', null, 'Errors (last interval)'))),
        vuBody)) : null;

    setPage(
      jobHeader(job, [liveState, stopBtn]),
      notice,
      tprocc ? h('div', { class: 'stack', id: 'live-chart', testid: 'live-chart' },
        h('div', { class: 'cards' },
          card('TPM (last interval)', lastTPM, { testid: 'live-tpm', headline: true }),
          card('NOPM (last interval)', lastNOPM, { testid: 'live-nopm', headline: true }),
          card('Elapsed', lastElapsed, { testid: 'live-elapsed' })),
        loadHolder,
        charts.el) : null,
      server && server.el,
      job.kind === 'run' ? agentsPanel(id, alive, true) : null,
      vuPanel,
      h('div', { style: 'margin-top:16px' }, out.el),
      cfgHolder);

    function redraw() {
      const list = [...ivs.values()].sort((a, b) => a.seq - b.seq);
      if (server && list.length) server.refresh(intervalData(list).rampEnd);
      if (!charts) return;
      charts.update(list);
      if (load) load.update(list);
      const last = list[list.length - 1];
      if (last) {
        lastTPM.textContent = fmtNum(last.tpm);
        lastNOPM.textContent = fmtNum(last.nopm);
        lastElapsed.textContent = fmtDuration(last.elapsed_s) + (last.phase === 'rampup' ? ' (ramp-up)' : '');
        vuBody.replaceChildren(...(last.vus || []).map(v => h('tr', { testid: `vu-row-${v.vu}` },
          h('td', null, String(v.vu)),
          h('td', null, h('span', { class: `badge badge-${v.state === 'running' ? 'completed' : v.state === 'reconnecting' ? 'failed' : 'interrupted'}` }, v.state)),
          h('td', null, fmtNum(v.commits)),
          h('td', null, fmtNum(v.errors)))));
      }
    }
    function addIntervals(list) {
      for (const iv of list || []) if (iv && iv.seq != null) ivs.set(iv.seq, iv);
      redraw();
    }
    function done() {
      if (finished || !alive()) return;
      finished = true;
      route(); // re-render as a finished job
    }

    // Config once (asked again until it comes: a busy server may fail the
    // first request, and the Load panel and the stages' bands need it),
    // then output every few seconds.
    function fetchConfig() {
      const again = () => { if (alive() && !finished) setTimeout(fetchConfig, 1000); };
      get(`/api/jobs/${id}/config`, {}).then(c => {
        if (!alive()) return;
        if (!c || !Object.keys(c).length) { again(); return; } // every job has settings: not read yet
        cfgHolder.replaceChildren(configPanel(c));
        if (!tprocc || finished) return;
        load = liveLoad(c || {});
        loadHolder.replaceChildren(...[load && load.el, seriesPanel(id, c || {}, alive)].filter(Boolean));
        charts.setStages(stageTargets(c && c.stages), loadModelOf(c, null));
        redraw();
      }, e => {
        // Said, not only retried: a page whose settings never come shows
        // no load model and no stages, and should say why.
        if (alive() && !finished) notice.replaceChildren(alertBox('warn', "Could not load the job's settings (asking again): " + e.message));
        again();
      });
    }
    fetchConfig();
    async function pollOutput() {
      if (finished) return;
      try { const ls = await get(`/api/jobs/${id}/output`, []); if (alive()) out.set(ls); } catch (e) { /* shown by the series poll */ }
      if (!finished) setTimeout(pollOutput, 3000);
    }
    pollOutput();

    // Polling: /series and the job every POLL_MS. Used when a token is set
    // (EventSource cannot send headers) or when the event stream fails.
    async function poll() {
      if (finished) return;
      try {
        const [list, j] = await Promise.all([tprocc ? get(`/api/jobs/${id}/series`, []) : Promise.resolve([]), api('GET', `/api/jobs/${id}`)]);
        if (!alive() || finished) return;
        notice.replaceChildren();
        addIntervals(list);
        if (j && j.status !== 'running') return done();
      } catch (e) {
        if (!alive()) return;
        notice.replaceChildren(alertBox('warn', 'Live updates paused: ' + e.message));
        if (e.status === 401) return;
      }
      pollTimer = setTimeout(poll, POLL_MS);
    }
    function startPolling(why) {
      liveState.textContent = 'live · polling every ' + POLL_MS / 1000 + ' s';
      liveState.title = why;
      poll();
    }

    function startStream() {
      liveState.textContent = 'live · streaming';
      const es = new EventSource(`/api/jobs/${id}/events`);
      onCleanup(() => es.close());
      let opened = false;
      es.onopen = () => { opened = true; };
      es.addEventListener('interval', ev => {
        try { addIntervals([JSON.parse(ev.data)]); } catch (e) { console.warn('bad interval event', e); }
      });
      es.addEventListener('status', ev => {
        es.close();
        try { const j = JSON.parse(ev.data); if (j && j.status === 'running') return startPolling('stream ended early'); } catch (e) { /* re-read below */ }
        done();
      });
      es.onerror = () => {
        // The stream failed (no such endpoint, 401, dropped connection):
        // poll instead; polling also notices when the job ends.
        if (finished) return;
        es.close();
        startPolling(opened ? 'event stream dropped' : 'event stream unavailable');
      };
    }

    // The stream starts after the past intervals are loaded, and intervals
    // are keyed by seq, so none is drawn twice.
    (tprocc ? get(`/api/jobs/${id}/series`, []) : Promise.resolve([])).then(list => {
      if (!alive()) return;
      addIntervals(list);
      if (!getToken() && typeof EventSource === 'function') startStream();
      else startPolling(getToken() ? 'a token is set: EventSource cannot send it' : 'no EventSource');
    }, e => {
      if (!alive()) return;
      notice.replaceChildren(alertBox('warn', 'Could not load the intervals: ' + e.message));
      if (e.status !== 401) startPolling('series failed');
    });
  }

  async function jobFinished(job, alive) {
    const id = job.id;
    const [res, ser, cfg, outp, obsv] = await Promise.all([
      // Only runs have a result (asking for a build's would be a 404).
      job.kind === 'run' ? settle(get(`/api/jobs/${id}/result`, null)) : Promise.resolve({ data: null }),
      settle(get(`/api/jobs/${id}/series`, [])),
      settle(get(`/api/jobs/${id}/config`, {})),
      settle(get(`/api/jobs/${id}/output`, [])),
      // What the server did: only runs are observed.
      job.kind === 'run' ? settle(get(`/api/jobs/${id}/observed`, null)) : Promise.resolve({ data: null }),
    ]);
    if (!alive()) return;
    const result = res.data || null;
    const series = (ser.data || []).slice().sort((a, b) => a.seq - b.seq);
    const config = cfg.data || {};
    const output = outp.data || [];
    const observed = obsv.data || null;
    const loadErrors = [['result', res], ['series', ser], ['config', cfg], ['output', outp], ['observed', obsv]]
      .filter(([, r]) => r.error).map(([n, r]) => `${n}: ${r.error.message}`);

    const dlJSON = h('button', {
      type: 'button', class: 'btn', id: 'download-json', testid: 'download-json',
      onclick: () => download(`sledge-job-${id}.json`, 'application/json',
        JSON.stringify({ job, config, result, series, observed }, null, 2) + '\n'),
    }, 'Download JSON');
    const dlCSV = h('button', {
      type: 'button', class: 'btn', id: 'download-csv', testid: 'download-csv', disabled: !series.length,
      title: series.length ? 'The intervals as CSV' : 'This job has no intervals',
      onclick: () => download(`sledge-job-${id}-series.csv`, 'text/csv', seriesCSV(series)),
    }, 'Download CSV');
    const delBtn = h('button', {
      type: 'button', class: 'btn btn-danger', id: 'delete-button', testid: 'delete-button',
      onclick: async () => {
        if (!confirm(`Delete job ${id} and everything it recorded?`)) return;
        try {
          await api('DELETE', `/api/jobs/${id}`);
          jobsState.selected.delete(job.id);
          details.delete(job.id);
          toast(`Job ${id} deleted`);
          location.hash = '#/';
        } catch (e) { toast('Could not delete: ' + e.message, true); }
      },
    }, 'Delete');

    if (config.target) job.target_name = config.target;
    const parts = [jobHeader(job, [dlJSON, dlCSV, delBtn])];
    if (config.profile) {
      parts.push(h('div', { class: 'alert alert-info', testid: 'job-profile' },
        `Step ${config.profile_vu || config.vu || '?'} VU${(config.profile_vu || config.vu) === '1' ? '' : 's'}` +
        (config.trial ? `, trial ${config.trial},` : '') + ' of ',
        h('a', { href: '#/profile/' + config.profile, testid: 'job-profile-link' }, 'profile #' + config.profile),
        String(config.profile) === String(id) ? ' (its first job)' : ''));
    }
    if (config.slo) parts.push(sloPanel(config.slo, id, alive));
    if (loadErrors.length) parts.push(alertBox('warn', 'Some data could not be loaded: ' + loadErrors.join('; '), 'load-errors'));
    // Under the headline: how the load was offered, its stages, and the
    // series the job is a trial of.
    const model = loadModelOf(config, result);
    const extras = [result && loadPanel(result.load), result && stagesPanel(result.stages, model), seriesPanel(id, config, alive)];
    if (result && isTPROCH(result)) parts.push(tprochResult(result), extras);
    else if (result) parts.push(tproccResult(result, extras));
    else {
      if (job.kind === 'run') parts.push(h('div', { class: 'alert alert-warn', testid: 'no-result' }, 'This job recorded no result.'));
      parts.push(extras);
    }

    if (Array.isArray(job.thresholds) && job.thresholds.length) parts.push(thresholdsPanel(job.thresholds));

    let charts = null;
    if (series.length) {
      charts = seriesCharts('series-charts');
      charts.setStages(stageTargets(config.stages), model);
      parts.push(h('h2', { style: 'margin-top:8px' }, 'Intervals'), charts.el);
    }
    if (result && result.mixed) parts.push(mixedSection(result.mixed, series));
    // Under the interval charts: what the server was doing meanwhile.
    if (job.kind === 'run') parts.push(agentsPanel(id, alive, false), observedSection(result, observed, intervalData(series).rampEnd));
    if (result && Array.isArray(result.audit) && result.audit.length) parts.push(auditPanel(result.audit));
    parts.push(h('div', { class: 'grid2', style: 'margin-top:16px' }, configPanel(config), outputPanel(output).el));
    setPage(parts);
    if (charts) charts.update(series);
  }

  // disruptionBox is the notice at the top of a run whose database was out
  // of service, stalled, or could not be read by the monitor, or whose
  // client was paused: when sessions were lost and service resumed, what
  // failed meanwhile, the stalls and pauses, the intervals without commits.
  // Times are seconds since the run started.
  function disruptionBox(d, status) {
    if (!d || typeof d !== 'object') return null;
    const s = v => isNum(v) ? v.toFixed(1) + ' s' : '—';
    const items = [];
    (d.outages || []).forEach((o, i) => {
      const lost = Object.entries(o.lost || {}).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${fmtNum(v)}`).join(', ') || 'none';
      items.push(h('li', { testid: 'disruption-outage-' + (i + 1) },
        `Outage ${i + 1}: sessions lost at ${s(o.start_s)}`,
        o.recovered ? `, service resumed at ${s(o.resumed_s)} — time to recover ${s(o.time_to_recover_s)}` : ', not recovered by the end of the run',
        `; ${fmtNum(o.vus)} VU${o.vus === 1 ? '' : 's'} affected; failed meanwhile: ${lost}`));
    });
    const idle = d.idle_intervals || [];
    if (idle.length) {
      items.push(h('li', { testid: 'disruption-idle' },
        `${idle.length} measured interval${idle.length === 1 ? '' : 's'} without a commit: ` +
        idle.map(iv => '#' + iv.seq).join(', ')));
    }
    (d.stalls || []).forEach((st, i) => items.push(h('li', { testid: 'disruption-stall-' + (i + 1) },
      `Stall ${i + 1}: no transaction completed from ${s(st.start_s)} for ${s(st.duration_s)}`,
      st.ended ? '' : ' (still none when the run stopped)',
      `; ${fmtNum(st.vus)} of ${fmtNum(d.sessions)} sessions waited, the longest ${s(st.longest_wait_s)}`)));
    (d.pauses || []).forEach((p, i) => items.push(h('li', { testid: 'disruption-pause-' + (i + 1) },
      `Pause ${i + 1}: ${p.suspended ? "the client's machine was suspended" : 'the client did not run'} from ${s(p.start_s)} for ${s(p.duration_s)}; the numbers include it`)));
    (d.monitor_gaps || []).forEach((g, i) => items.push(h('li', { testid: 'disruption-monitor-' + (i + 1) },
      `The database's counters could not be read at the ${g.edge} (${s(g.at_s)}): ${g.error}`)));
    const title = status === 'degraded' ? 'Degraded run: ' : 'Disruption: ';
    return h('div', { class: 'alert alert-warn alert-disruption', role: 'status', testid: 'result-disruption', id: 'result-disruption' },
      h('b', null, title + (d.headline || 'the database was out of service')),
      items.length ? h('ul', null, items) : null);
  }

  function warningsBox(ws) {
    if (!Array.isArray(ws) || !ws.length) return null;
    return h('div', { class: 'alert alert-warn', testid: 'result-warnings' },
      h('b', null, ws.length === 1 ? 'Warning' : 'Warnings'), h('ul', null, ws.map(w => h('li', null, w))));
  }

  // errorClassPanel lists, per transaction type and error class, the
  // transactions that failed and the retries (extra attempts); with the
  // transactions retried at least once and those that failed all the same.
  // A run without errors or retries gets one line saying so.
  function errorClassPanel(txs) {
    const rows = [];
    let errors = 0, retries = 0;
    for (const [n, t] of txs) {
      const eby = t.errors_by_class || {}, rby = t.retries_by_class || {};
      const classes = [...new Set(Object.keys(eby).concat(Object.keys(rby)))].sort((a, b) =>
        ((eby[b] || 0) + (rby[b] || 0)) - ((eby[a] || 0) + (rby[a] || 0)) || a.localeCompare(b));
      // Errors or retries the result does not break down by class.
      const restE = (t.errors || 0) - Object.values(eby).reduce((a, v) => a + v, 0);
      const restR = (t.retries || 0) - Object.values(rby).reduce((a, v) => a + v, 0);
      if (restE > 0 || restR > 0) classes.push('');
      errors += t.errors || 0;
      retries += t.retries || 0;
      classes.forEach((c, i) => rows.push({
        attrs: { testid: `error-class-${n}-${c || 'unclassified'}` },
        cells: [i ? '' : (TX_LABEL[n] || n), c ? h('span', { class: 'mono' }, c) : h('span', { class: 'muted' }, 'unclassified'),
          fmtNum(c ? eby[c] || 0 : Math.max(0, restE)), fmtNum(c ? rby[c] || 0 : Math.max(0, restR)),
          i ? '' : fmtNum(t.retried), i ? '' : fmtNum(t.failed_after_retries)],
      }));
    }
    if (!errors && !retries) {
      return h('p', { class: 'muted', testid: 'error-classes-none', id: 'error-classes' }, 'Errors by class: no errors and no retries in the measured window.');
    }
    const cols = [{ label: 'Transaction' }, { label: 'Class' },
      { label: 'Failed', num: true, title: 'transactions that ended with an error of this class' },
      { label: 'Retries', num: true, title: 'extra attempts after an error of this class' },
      { label: 'Retried', num: true, title: 'transactions retried at least once (all classes)' },
      { label: 'Failed after retries', num: true, title: 'of those retried, the ones that failed all the same' }];
    return h('section', { class: 'panel', testid: 'error-classes', id: 'error-classes' },
      h('h2', null, 'Errors by class', h('span', { class: 'muted', style: 'font-weight:400' },
        ` · ${fmtNum(errors)} failed, ${fmtNum(retries)} ${retries === 1 ? 'retry' : 'retries'}`)),
      h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'error-class-table' })));
  }

  // jumpLink scrolls to an element of this page (a "#id" link would be
  // taken for a route).
  function jumpLink(text, targetId, testid) {
    return h('a', {
      href: location.hash || '#/', testid,
      onclick: e => {
        e.preventDefault();
        const el = document.getElementById(targetId);
        if (el) el.scrollIntoView({ behavior: 'smooth', block: 'start' });
      },
    }, text);
  }

  // resultSummary is a line or two under the headline cards naming what a
  // user should look at first — a disruption, the server's top wait, the
  // errors — with links to the sections further down.
  function resultSummary(r, txs) {
    const lines = [];
    const d = r.disruption;
    if (d && typeof d === 'object') {
      const n = (d.outages || []).length;
      const stalls = (d.stalls || []).length, pauses = (d.pauses || []).length;
      const parts = [];
      if (n) parts.push(`${n} outage${n === 1 ? '' : 's'}`);
      if (isNum(d.time_to_recover_s)) parts.push(`${fmtSig(d.time_to_recover_s)} s to recover`);
      else if (n) parts.push('not recovered');
      if (stalls) parts.push(`${stalls} stall${stalls === 1 ? '' : 's'} of the database`);
      if (pauses) parts.push(`${pauses} pause${pauses === 1 ? '' : 's'} of the client`);
      if (!parts.length) parts.push(d.headline || 'disrupted');
      lines.push(h('div', { testid: 'summary-disruption' }, h('b', null, r.status === 'degraded' ? 'degraded: ' : 'disruption: '),
        parts.join(', '), ' — see ', jumpLink('Disruption', 'result-disruption', 'summary-disruption-link')));
    }
    const obs = (r.observed && r.observed.observers) || [];
    if (obs.length) {
      // The figure a tuner looks at first: the top wait, else the active
      // sessions, else the host's CPU.
      const top = obs.map(o => (o.waits || [])[0]).find(w => w && w.class);
      const aas = obs.find(x => isNum(x.aas));
      const host = obs.find(x => isNum(x.host_cpu_user_pct));
      const what = top
        ? `top wait ${top.event ? top.class + ':' + top.event : top.class}` + (isNum(top.share) ? ` ${fmtNum(100 * top.share, 0)}%` : '')
        : aas ? `${fmtNum(aas.aas, 2)} active sessions`
          : host ? `host CPU ${fmtNum(host.host_cpu_user_pct + (host.host_cpu_sys_pct || 0), 0)}% busy` +
            (isNum(host.host_cpu_iowait_pct) && host.host_cpu_iowait_pct >= 1 ? `, iowait ${fmtNum(host.host_cpu_iowait_pct, 0)}%` : '')
            : `${obs.length} observer${obs.length === 1 ? '' : 's'}`;
      lines.push(h('div', { testid: 'summary-server' }, h('b', null, 'server: '), what, ' — see ',
        jumpLink('Server', 'observed', 'summary-server-link')));
    }
    const errors = txs.reduce((a, [, t]) => a + (t.errors || 0), 0);
    const retries = txs.reduce((a, [, t]) => a + (t.retries || 0), 0);
    if (errors || retries) {
      const byClass = {};
      for (const [, t] of txs) for (const [c, v] of Object.entries(t.errors_by_class || {})) byClass[c] = (byClass[c] || 0) + v;
      const topClasses = Object.entries(byClass).sort((a, b) => b[1] - a[1]).slice(0, 2).map(([c, v]) => `${c} ${fmtNum(v)}`);
      lines.push(h('div', { testid: 'summary-errors' }, h('b', null, 'errors: '),
        `${fmtNum(errors)} failed` + (topClasses.length ? ` (${topClasses.join(', ')})` : '') + `, ${fmtNum(retries)} ${retries === 1 ? 'retry' : 'retries'}`,
        ' — see ', jumpLink('Errors by class', 'error-classes', 'summary-errors-link')));
    }
    return lines.length ? h('div', { class: 'summary' + (d || errors ? ' summary-warn' : ''), testid: 'result-summary' }, lines) : null;
  }

  // ---------------------------------------------------------------- mixed run (CH-benCHmark)

  // mixedSection shows a mixed run's analytic half (the result's mixed
  // object): the baseline and mixed NOPM, the interference ratio, query
  // sets per hour and freshness; a chart of NOPM and queries completed per
  // minute over the same intervals (two y axes), the streams' start marked;
  // and each query's latencies from its histogram, with their distribution.
  function mixedSection(m, ivs) {
    const num = (v, d) => isNum(v) ? fmtNum(v, d) : '—';
    const cards = h('div', { class: 'cards' },
      card('Baseline NOPM', num(m.baseline_nopm, 0), { testid: 'mixed-baseline', hint: isNum(m.baseline_nopm) ? `${fmtSig(m.baseline_s)} s without analytic load` : 'no baseline: the streams started with the window' }),
      card('Mixed NOPM', num(m.mixed_nopm, 0), { testid: 'mixed-nopm', hint: `${fmtSig(m.mixed_s)} s with ${m.streams} stream${m.streams === 1 ? '' : 's'}` }),
      card('Interference', num(m.interference, 3), { testid: 'mixed-interference', hint: 'mixed NOPM / baseline NOPM' }),
      card('Query sets/hour', num(m.query_sets_per_hour, 1), { testid: 'mixed-sets', hint: `${m.queries} quer${m.queries === 1 ? 'y' : 'ies'}, ${m.query_errors} failed, ${m.query_sets} whole set${m.query_sets === 1 ? '' : 's'}` }),
      card('Freshness p50', isNum(m.freshness_p50_s) ? fmtSig(m.freshness_p50_s) + ' s' : '—', { testid: 'mixed-freshness', hint: 'age of the newest order at a query\'s start' }));
    const chartEl = h('div', { class: 'chart', testid: 'mixed-chart', id: 'mixed-chart' }, h('h3', null, 'NOPM and analytic queries per minute'));
    const runs = Array.isArray(m.runs) ? m.runs : [];
    // The completed queries' ends, sorted once: an interval's count is two
    // binary searches, not a scan of every run (a long run has many). The
    // first start by a loop: spreading many runs into Math.min overflows
    // the call stack.
    const ends = Float64Array.from(runs.filter(r => !r.error), r => r.end_s).sort();
    const upTo = t => { let lo = 0, hi = ends.length; while (lo < hi) { const mid = (lo + hi) >> 1; if (ends[mid] <= t) lo = mid + 1; else hi = mid; } return lo; };
    const x = [], nopm = [], qpm = [];
    for (const iv of ivs || []) {
      const len = iv.length_s || 0;
      if (!(len > 0)) continue;
      const done = upTo(iv.elapsed_s) - upTo(iv.elapsed_s - len);
      x.push(iv.elapsed_s); nopm.push(iv.nopm); qpm.push(done * 60 / len);
    }
    chartEl.dataset.points = String(x.length);
    if (x.length && typeof uPlot !== 'undefined') {
      let start = null;
      for (const r of runs) if (start == null || r.start_s < start) start = r.start_s;
      const draw = () => {
        if (chartEl.querySelector('.uplot')) return;
        new uPlot({
          width: Math.max(240, chartEl.clientWidth || 600), height: 240,
          scales: { x: { time: false }, y: { range: zeroRange }, q: { range: zeroRange } },
          series: [
            { label: 'elapsed', value: (u, v) => v == null ? '—' : fmtSig(v) + ' s' },
            { label: 'NOPM', stroke: '#2563eb', width: 2, scale: 'y' },
            { label: 'queries/min', stroke: '#d97706', width: 2, scale: 'q' },
          ],
          axes: [
            { label: 'elapsed (s)', values: (u, vals) => vals.map(fmtCompact) },
            { label: 'NOPM', scale: 'y', size: 64, values: (u, vals) => vals.map(fmtCompact) },
            { label: 'queries/min', scale: 'q', side: 1, size: 56, grid: { show: false }, values: (u, vals) => vals.map(fmtCompact) },
          ],
          hooks: {
            // A line where the first stream started: the baseline ends there.
            draw: [u => {
              if (start == null) return;
              const px = u.valToPos(start, 'x', true);
              u.ctx.save();
              u.ctx.strokeStyle = 'rgba(217,119,6,0.6)';
              u.ctx.setLineDash([4, 4]);
              u.ctx.beginPath(); u.ctx.moveTo(px, u.bbox.top); u.ctx.lineTo(px, u.bbox.top + u.bbox.height); u.ctx.stroke();
              u.ctx.restore();
            }],
          },
        }, [x, nopm, qpm], chartEl);
      };
      requestAnimationFrame(draw);
    }
    // Each query's latencies, read from its HDR histogram (the API's
    // percentiles ladder), with a strip of its distribution on one log
    // scale for all queries: the whiskers p0–p100, the box p25–p75, the
    // median a line, p99 a dot.
    const cols = [{ label: 'Query' }, { label: 'Count', num: true }, { label: 'Errors', num: true },
      { label: 'mean s', num: true }, { label: 'p50 s', num: true }, { label: 'p90 s', num: true }, { label: 'p95 s', num: true },
      { label: 'p99 s', num: true }, { label: 'max s', num: true },
      { label: 'Distribution', title: 'p0–p100 whiskers, p25–p75 box, median line, p99 dot; one log scale for all queries' }];
    const at = (q, p) => { const e = (q.percentiles || []).find(x => x.percentile === p); return e ? e.s : null; };
    let lo = Infinity, hi = 0;
    for (const q of m.per_query || []) for (const e of q.percentiles || []) if (e.s > 0) { lo = Math.min(lo, e.s); hi = Math.max(hi, e.s); }
    const strip = q => {
      const p = [0, 25, 50, 75, 99, 100].map(x => at(q, x));
      if (!(hi > 0) || p.some(v => !(v > 0))) return '—';
      const W = 160, H = 16, l0 = Math.log(lo), span = Math.max(Math.log(hi) - l0, 1e-9);
      const X = v => 2 + (W - 4) * (Math.log(v) - l0) / span;
      const [p0, p25, p50, p75, p99, p100] = p.map(X);
      return svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'data-testid': 'mixed-query-strip-' + q.query,
        'aria-label': `Q${q.query}: p0 ${fmtSig(p[0])} s, p25 ${fmtSig(p[1])} s, median ${fmtSig(p[2])} s, p75 ${fmtSig(p[3])} s, p99 ${fmtSig(p[4])} s, max ${fmtSig(p[5])} s` },
        svg('line', { x1: p0, x2: p100, y1: H / 2, y2: H / 2, stroke: '#94a3b8' }),
        svg('rect', { x: p25, y: 3, width: Math.max(p75 - p25, 1), height: H - 6, fill: '#bfdbfe', stroke: '#2563eb' }),
        svg('line', { x1: p50, x2: p50, y1: 2, y2: H - 2, stroke: '#1e3a8a', 'stroke-width': 2 }),
        svg('circle', { cx: p99, cy: H / 2, r: 2.5, fill: '#d97706' }));
    };
    const rows = (m.per_query || []).map(q => ['Q' + q.query, String(q.count), String(q.errors),
      num(q.mean_s, 3), num(q.p50_s, 3), num(at(q, 90), 3), num(q.p95_s, 3), num(q.p99_s, 3), num(q.max_s, 3), strip(q)]);
    // Each transaction type's latencies without and with the analytic load.
    const lat = l => l && l.count > 0 ? `${num(l.p50_ms, 2)} / ${num(l.p95_ms, 2)} / ${num(l.p99_ms, 2)}` : '—';
    const txNames = [];
    for (const l of [...(m.baseline_tx || []), ...(m.mixed_tx || [])]) if (!txNames.includes(l.tx)) txNames.push(l.tx);
    const byTx = (list, name) => (list || []).find(l => l.tx === name);
    const txTable = txNames.length === 0 ? null : h('div', { class: 'scroll-x' }, table(
      [{ label: 'Transaction' }, { label: 'baseline p50 / p95 / p99 ms', num: true }, { label: 'mixed p50 / p95 / p99 ms', num: true }],
      txNames.map(n => [n, lat(byTx(m.baseline_tx, n)), lat(byTx(m.mixed_tx, n))]), { testid: 'mixed-tx' }));
    return h('section', { class: 'panel', testid: 'mixed-panel', id: 'mixed-panel' },
      h('h2', null, 'Analytic streams', h('span', { class: 'muted', style: 'font-weight:400' },
        ` · ${m.streams} stream${m.streams === 1 ? '' : 's'}, ${m.order} order, from ${fmtSig(m.delay_s)} s into the window`)),
      cards, chartEl, txTable, h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'mixed-queries' })));
  }

  // ---------------------------------------------------------------- load, stages, series

  // loadPanel is how a terminal or rate run offered its load and kept its
  // schedule (the result's load).
  function loadPanel(l) {
    if (!l || typeof l !== 'object') return null;
    const ms = v => isNum(v) ? fmtSig(v) + ' ms' : '—';
    const c = (label, value, testid, hint) => card(label, value, { testid, small: true, hint });
    const cards = [];
    if (l.model === 'rate') {
      cards.push(c('Asked rate', fmtTarget(l.asked_rate) + ' tx/s', 'load-asked', 'arrivals scheduled per second'),
        c('Achieved rate', isNum(l.achieved_rate) ? fmtSig(l.achieved_rate) + ' tx/s' : '—', 'load-achieved', 'ended in the window, any outcome'));
    } else if (l.model === 'terminals') {
      cards.push(c('Terminals', fmtNum(l.terminals), 'load-terminals', `over ${fmtNum(l.connections)} connection${l.connections === 1 ? '' : 's'}`));
      if (isNum(l.achieved_rate)) cards.push(c('Achieved rate', fmtSig(l.achieved_rate) + ' tx/s', 'load-achieved', 'ended in the window, any outcome'));
    }
    if (l.model !== 'terminals') cards.push(c('Connections', fmtNum(l.connections), 'load-connections', 'database sessions'));
    if (isNum(l.scheduled)) cards.push(c('Scheduled', fmtNum(l.scheduled), 'load-scheduled', 'transactions due in the window'));
    if (l.model === 'rate' || l.dropped > 0) {
      cards.push(c('Dropped', fmtNum(l.dropped), 'load-dropped', isNum(l.max_queue) && l.max_queue > 0 ? `queue bound: ${fmtNum(l.max_queue)} waiting` : 'the queue was full'));
    }
    cards.push(c('Schedule lag p99', ms(l.lag_p99_ms), 'load-lag', `p50 ${ms(l.lag_p50_ms)} · max ${ms(l.lag_max_ms)}; scheduled start → sent`),
      c('Late', fmtNum(l.late), 'load-late', `sent more than ${isNum(l.late_after_ms) ? fmtTarget(l.late_after_ms) : '?'} ms after their scheduled start`));
    return h('section', { class: 'panel', testid: 'load-panel', id: 'load-panel' },
      h('h2', null, 'Load', h('span', { class: 'muted', style: 'font-weight:400', testid: 'load-model' }, ' · ' + (LOAD_MODEL_LABEL[l.model] || l.model))),
      h('div', { class: 'cards' }, cards),
      h('p', { class: 'muted', testid: 'load-note', style: 'margin:8px 0 0' }, LAG_NOTE));
  }

  // liveLoad is the live page's Load panel, from the job's settings and
  // its intervals so far: the model, the stage it is in, the last
  // interval's lag p99, and what was late, scheduled or dropped so far.
  function liveLoad(cfg) {
    const model = cfg.load_model || 'closed';
    const targets = stageTargets(cfg.stages);
    if (model === 'closed' && !targets.length) return null;
    const what = model === 'rate' ? (cfg.rate ? `${cfg.rate} tx/s` : 'rates by type ' + (cfg.rate_by_type || ''))
      : model === 'terminals' ? `${cfg.terminals || ''} terminals`.trim() : `${cfg.vu || '?'} VUs`;
    const how = [cfg.connections && model !== 'closed' ? `over ${cfg.connections} connections` : '',
      model === 'rate' && cfg.max_queue ? `at most ${fmtNum(Number(cfg.max_queue))} waiting` : ''].filter(Boolean).join(', ');
    const stageEl = h('span', null, '—'), lagEl = h('span', null, '—'), lateEl = h('span', null, '—'),
      schedEl = h('span', null, '—'), dropEl = h('span', null, '—');
    const lagged = model !== 'closed';
    const el = h('section', { class: 'panel', testid: 'live-load', id: 'live-load' },
      h('h2', null, 'Load', h('span', { class: 'muted', style: 'font-weight:400' }, ' · ' + (LOAD_MODEL_LABEL[model] || model))),
      h('div', { class: 'cards' },
        card('Offered', targets.length ? 'stages ' + targets.map(fmtTarget).join(' → ') + ' ' + LOAD_TARGET[model] : what,
          { testid: 'live-load-model', small: true, hint: how || null }),
        targets.length ? card('Stage', stageEl, { testid: 'live-stage', small: true }) : null,
        lagged ? card('Lag p99 (last interval)', lagEl, { testid: 'live-lag-p99', small: true }) : null,
        lagged ? card('Late (so far)', lateEl, { testid: 'live-late', small: true }) : null,
        model === 'rate' ? card('Scheduled (so far)', schedEl, { testid: 'live-scheduled', small: true }) : null,
        model === 'rate' ? card('Dropped (so far)', dropEl, { testid: 'live-dropped', small: true }) : null),
      lagged ? h('p', { class: 'muted', style: 'margin:8px 0 0' }, LAG_NOTE) : null);
    return {
      el,
      update(list) {
        const last = list[list.length - 1];
        if (!last) return;
        const sum = k => list.reduce((a, iv) => a + (isNum(iv[k]) ? iv[k] : 0), 0);
        if (isNum(last.stage) && last.stage > 0) {
          stageEl.textContent = `${last.stage} of ${targets.length} · ${targetText(model, targets[last.stage - 1])}`;
        } else if (last.phase === 'rampup') stageEl.textContent = 'ramp-up';
        lagEl.textContent = fmtSig(isNum(last.lag_p99_ms) ? last.lag_p99_ms : 0) + ' ms';
        lateEl.textContent = fmtNum(sum('late'));
        schedEl.textContent = fmtNum(sum('scheduled'));
        dropEl.textContent = fmtNum(sum('dropped'));
      },
    };
  }

  // stagesPanel is one row per stage of a staged run.
  function stagesPanel(stages, model) {
    if (!Array.isArray(stages) || !stages.length) return null;
    const lag = stages.some(st => isNum(st.lag_p99_ms));
    const unit = LOAD_TARGET[model] || 'VUs';
    const cols = [{ label: 'Stage', num: true }, { label: 'Target (' + unit + ')', num: true, title: 'what the stage offered: ' + (LOAD_MODEL_LABEL[model] || model) },
      { label: 'From s', num: true }, { label: 'To s', num: true }, { label: 'TPM', num: true }, { label: 'NOPM', num: true },
      { label: 'Errors', num: true }, { label: 'p50 ms', num: true, title: 'New-Order' }, { label: 'p95 ms', num: true, title: 'New-Order' },
      { label: 'p99 ms', num: true, title: 'New-Order' }];
    if (lag) cols.push({ label: 'Lag p99 ms', num: true, title: 'schedule lag: scheduled start → sent' });
    const rows = stages.map(st => ({
      attrs: { testid: 'stage-row-' + st.stage },
      cells: [String(st.stage), h('span', { testid: 'stage-target-' + st.stage }, fmtTarget(st.target)), fmtSig(st.start_s), fmtSig(st.end_s),
        h('span', { testid: 'stage-tpm-' + st.stage }, fmtNum(st.tpm)), fmtNum(st.nopm), fmtNum(st.errors),
        fmtSig(st.p50_ms), fmtSig(st.p95_ms), fmtSig(st.p99_ms)].concat(lag ? [isNum(st.lag_p99_ms) ? fmtSig(st.lag_p99_ms) : '—'] : []),
    }));
    return h('section', { class: 'panel', testid: 'stages-panel', id: 'stages-panel' },
      h('h2', null, 'Stages', h('span', { class: 'muted', style: 'font-weight:400' }, ` · ${stages.length} stage${stages.length === 1 ? '' : 's'}, target in ${unit}`)),
      h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'stages-table', id: 'stages-table' })),
      h('p', { class: 'muted', style: 'margin:8px 0 0' }, 'Latencies are New-Order\'s; the interval charts mark each stage.'));
  }

  // seriesPanel lists the trials of the series a job belongs to (its
  // settings series and trial) with their mean ± half the 95 % CI
  // (GET /api/series/{id}); filled in when the answer comes.
  // ciSpread is how a mean's 95 % CI follows it: " ± half", or the bounds
  // themselves when the lower one was raised to zero (a throughput cannot
  // be negative), where a ± would reach below it.
  function ciSpread(sm, fmt) {
    const half = sm.ci95_high - sm.mean;
    return sm.mean - half < sm.ci95_low - 1e-9 ? ` (${fmt(sm.ci95_low)} – ${fmt(sm.ci95_high)})` : ' ± ' + fmt(half);
  }

  function seriesPanel(jobID, cfg, alive) {
    if (!cfg || !(cfg.series || cfg.trial)) return null;
    const body = h('div', null, h('p', { class: 'muted' }, 'Loading the series…'));
    const el = h('section', { class: 'panel', testid: 'series-panel', id: 'series-panel' }, h('h2', { testid: 'series-title' }, 'Series'), body);
    get(`/api/series/${cfg.series || jobID}`, null).then(sr => {
      if (!alive()) return;
      if (!sr) { body.replaceChildren(h('p', { class: 'muted' }, 'The series could not be found.')); return; }
      el.querySelector('h2').replaceChildren('Series #' + sr.id, h('span', { class: 'muted', style: 'font-weight:400' },
        ` · ${sr.trials.length}${sr.planned ? ' of ' + sr.planned : ''} trial${(sr.planned || sr.trials.length) === 1 ? '' : 's'} of one configuration`));
      const pm = (sm, fmt, testid) => {
        if (!sm || !isNum(sm.mean)) return h('span', { testid }, '—');
        if (!isNum(sm.ci95_high)) return h('span', { testid }, fmt(sm.mean));
        return h('span', { testid, title: `95 % CI of the mean ${fmt(sm.ci95_low)} – ${fmt(sm.ci95_high)}; SD ${fmt(sm.sd)}` },
          fmt(sm.mean), h('span', { class: 'muted' }, ciSpread(sm, fmt)));
      };
      const cols = [{ label: 'Trial' }, { label: 'Job' }, { label: 'Status' }, { label: 'NOPM', num: true }, { label: 'TPM', num: true },
        { label: 'New-Order p95 ms', num: true }];
      const rows = sr.trials.map(t => ({
        attrs: { testid: 'series-trial-' + t.job_id, class: String(t.job_id) === String(jobID) ? 'current' : null },
        cells: [t.trial || '—', String(t.job_id) === String(jobID) ? h('b', { testid: 'series-link-' + t.job_id }, '#' + t.job_id + ' (this job)')
          : h('a', { href: '#/jobs/' + t.job_id, testid: 'series-link-' + t.job_id }, '#' + t.job_id),
        badge(t.status), h('span', { testid: 'series-nopm-' + t.job_id }, fmtNum(t.nopm)), fmtNum(t.tpm), fmtSig(t.p95_ms)],
      }));
      rows.push({
        attrs: { testid: 'series-mean', class: 'total' },
        cells: [h('b', null, 'mean'), `${sr.nopm.n} measured`, '', pm(sr.nopm, v => fmtNum(v), 'series-mean-nopm'),
          pm(sr.tpm, v => fmtNum(v), 'series-mean-tpm'), pm(sr.p95_ms, fmtSig, 'series-mean-p95')],
      });
      const ci = sr.nopm && isNum(sr.nopm.ci95_high);
      body.replaceChildren(
        h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'series-table', id: 'series-table' })),
        h('p', { class: 'muted', style: 'margin:8px 0 0', testid: 'series-ci' }, ci
          ? ciSpread(sr.nopm, fmtNum).startsWith(' ±')
            ? `NOPM ${fmtNum(sr.nopm.mean)}${ciSpread(sr.nopm, fmtNum)}: mean of ${sr.nopm.n} trials ± half the 95 % confidence interval of the mean ` +
              `(${fmtNum(sr.nopm.ci95_low)} – ${fmtNum(sr.nopm.ci95_high)}; SD ${fmtNum(sr.nopm.sd)}). More trials narrow it.`
            : `NOPM ${fmtNum(sr.nopm.mean)}: mean of ${sr.nopm.n} trials, the 95 % confidence interval of the mean ` +
              `(${fmtNum(sr.nopm.ci95_low)} – ${fmtNum(sr.nopm.ci95_high)}; SD ${fmtNum(sr.nopm.sd)}) held at zero below: the trials differ too much to say more. More trials narrow it.`
          : sr.nopm && sr.nopm.n === 2
            ? `NOPM ${fmtNum(sr.nopm.mean)} (SD ${fmtNum(sr.nopm.sd)}): mean of 2 trials. Too few for a confidence interval: with one degree of freedom it would be about nine times their spread; a third trial gives one.`
            : 'One trial measured so far: no error bar yet (it needs three trials).'));
    }, e => {
      if (alive()) body.replaceChildren(alertBox('warn', 'Could not load the series: ' + e.message));
    });
    return el;
  }

  function tproccResult(r, extras) {
    const names = (Array.isArray(r.transaction_order) && r.transaction_order.length ? r.transaction_order
      : TX_ORDER.filter(n => r.transactions && r.transactions[n]).concat(
        Object.keys(r.transactions || {}).filter(n => !TX_ORDER.includes(n))));
    const txs = names.map(n => [n, (r.transactions || {})[n] || {}]);
    const total = txs.reduce((s, [, t]) => s + (t.count || 0), 0);
    // The database's count is compared only when it was measured: an absent
    // one (null) is "not available" with the reason, never a disagreement.
    const hasCheck = isNum(r.nopm_db_check) && typeof r.db_check_agree === 'boolean';
    const agree = hasCheck ? r.db_check_agree : null;
    const checkReason = r.db_check_unavailable || 'not measured';
    const hasServer = isNum(r.server_tpm) && r.server_tpm >= 0;

    const cards = h('div', { class: 'cards' },
      card('NOPM', fmtNum(r.nopm), { testid: 'result-nopm', headline: true, hint: 'New-Orders per minute' }),
      card('TPM', fmtNum(r.tpm), { testid: 'result-tpm', headline: true, hint: 'transactions per minute' }),
      card('NOPM (database count)', hasCheck ? fmtNum(r.nopm_db_check) : 'not available', {
        testid: 'result-nopm-db-check',
        small: !hasCheck,
        hint: !hasCheck ? checkReason
          : agree ? 'agrees with the client' : 'differs from the client count',
      }),
      card('Server TPM', hasServer ? fmtNum(r.server_tpm) : 'n/a', {
        testid: 'result-server-tpm',
        hint: !hasServer ? (r.server_tpm_unavailable || 'not available')
          : isNum(r.server_tpm_margin) && r.server_tpm_margin >= 0.5
            ? `commits + rollbacks, server-wide, ± ${fmtNum(r.server_tpm_margin)} (its counter's lag and the transactions in flight at the window's edges)`
            : 'commits + rollbacks, server-wide',
      }),
      // A staged closed-loop run's VUs are its stages'; a terminal or rate
      // run's sessions are its connections (the Load panel says more).
      r.load ? card('Sessions', fmtNum(r.load.connections), { testid: 'result-vu', hint: r.load.model === 'terminals' ? `${fmtNum(r.load.terminals)} terminals` : 'open-loop arrivals' })
        : Array.isArray(r.stages) && r.stages.length ? card('Virtual users', r.stages.map(st => fmtTarget(st.target)).join(' → '), { testid: 'result-vu', hint: 'by stage' })
          : card('Virtual users', fmtNum(r.vu), { testid: 'result-vu' }),
      card('Warehouses', fmtNum(r.warehouses), { testid: 'result-warehouses' }),
      card('Mode / isolation', `${r.mode || '—'} / ${r.isolation || 'default'}`, { testid: 'result-mode', small: true }),
      card('Measured', fmtDuration(r.duration_s), { testid: 'result-duration', small: true, hint: 'ramp-up ' + fmtDuration(r.rampup_s) }),
      card('Client CPU / tx', isNum(r.client_cpu_per_tx_us) ? fmtSig(r.client_cpu_per_tx_us) + ' µs' : '—', { testid: 'result-cpu', small: true }),
      card('Status', r.status || '—', { testid: 'result-status', small: true }));

    const cols = [{ label: 'Transaction' }, { label: 'Committed', num: true }, { label: 'Mix', num: true },
      { label: 'Rolled back', num: true }, { label: 'Retries', num: true }, { label: 'Errors', num: true },
      { label: 'Mean ms', num: true }, { label: 'p50 ms', num: true }, { label: 'p95 ms', num: true },
      { label: 'p99 ms', num: true }, { label: 'Max ms', num: true }];
    const txTable = table(cols, txs.map(([n, t]) => ({
      attrs: { testid: 'tx-row-' + n },
      cells: [TX_LABEL[n] || n, fmtNum(t.count), total ? fmtNum(100 * (t.count || 0) / total, 1) + ' %' : '—',
        fmtNum(t.rolled_back), fmtNum(t.retries),
        t.errors ? h('span', { title: Object.entries(t.errors_by_class || {}).map(([k, v]) => `${k}: ${v}`).join(', ') }, fmtNum(t.errors)) : fmtNum(t.errors),
        fmtSig(t.mean_ms), fmtSig(t.p50_ms), fmtSig(t.p95_ms), fmtSig(t.p99_ms), fmtSig(t.max_ms)],
    })), { testid: 'tx-table', id: 'tx-table' });

    const pcts = [['p50', 'p50_ms', PALETTE[2]], ['p95', 'p95_ms', PALETTE[6]], ['p99', 'p99_ms', PALETTE[4]], ['max', 'max_ms', PALETTE[8]]];
    const latChart = barChart({
      testid: 'latency-chart', title: 'Latency by transaction', yLabel: 'ms', unit: 'ms', legend: true,
      categories: txs.map(([n]) => TX_LABEL[n] || n),
      series: pcts.map(([label, key, color]) => ({ label, color, values: txs.map(([, t]) => t[key]) })),
    });
    const logBox = h('input', { type: 'checkbox', testid: 'latency-log', id: 'latency-log', onchange: e => latChart.setLog(e.target.checked) });

    return h('div', { class: 'stack', testid: 'result', id: 'result' },
      disruptionBox(r.disruption, r.status),
      warningsBox(r.warnings),
      cards,
      resultSummary(r, txs),
      extras,
      panel('Transactions', 'tx-panel', h('div', { class: 'scroll-x' }, txTable)),
      errorClassPanel(txs),
      h('section', { class: 'panel', testid: 'latency-panel' },
        h('div', { class: 'toolbar' }, h('h2', { style: 'margin:0' }, 'Latency distribution'), h('span', { class: 'spacer' }),
          h('label', { class: 'muted', style: 'font-weight:400' }, logBox, ' log scale')),
        latChart.el));
  }

  function tprochResult(r) {
    const queries = Array.isArray(r.queries) ? r.queries : [];
    const streams = [...new Set(queries.map(q => q.stream))].sort((a, b) => a - b);
    const qnums = [...new Set(queries.map(q => q.query))].sort((a, b) => Number(a) - Number(b));
    const streamLabel = s => s === 0 ? 'power' : 'stream ' + s;
    const chart = barChart({
      testid: 'query-chart', title: 'Seconds per query', yLabel: 'seconds', unit: 's', rotate: qnums.length > 24,
      categories: qnums.map(q => 'Q' + q),
      series: streams.slice(0, PALETTE.length).map((s, i) => ({
        label: streamLabel(s), color: PALETTE[i],
        values: qnums.map(q => {
          const xs = queries.filter(x => x.stream === s && x.query === q && isNum(x.seconds));
          return xs.length ? xs.reduce((a, x) => a + x.seconds, 0) / xs.length : null;
        }),
      })),
    });
    const logBox = h('input', { type: 'checkbox', testid: 'query-log', id: 'query-log', onchange: e => chart.setLog(e.target.checked) });
    const validated = r.validated == null ? 'not checked' : String(r.validated);

    const qTable = table(
      [{ label: 'Stream' }, { label: 'Pos', num: true }, { label: 'Set', num: true }, { label: 'Query' },
        { label: 'Seconds', num: true }, { label: 'Rows', num: true }, { label: 'Answer' }, { label: 'Error' }],
      queries.map(q => ({
        attrs: { testid: `query-row-${q.stream}-${q.set != null ? q.set + '-' : ''}${q.position}`, class: q.error ? 'failed' : null },
        cells: [streamLabel(q.stream), fmtNum(q.position), q.set != null ? fmtNum(q.set) : '—', 'Q' + q.query,
          fmtSig(q.seconds), fmtNum(q.rows),
          q.answer_check == null ? h('span', { class: 'muted' }, '—')
            : q.answer_check === 'ok' ? h('span', { class: 'badge badge-ok' }, 'ok') : h('span', { class: 'badge badge-bad', title: q.answer_check }, 'differs'),
          q.error ? h('span', { class: 'mono', style: 'color:var(--danger)' }, q.error) : ''],
      })), { testid: 'query-table', id: 'query-table' });

    return h('div', { class: 'stack', testid: 'result', id: 'result' },
      warningsBox(r.warnings),
      r.note ? h('p', { class: 'muted', testid: 'result-note' }, r.note) : null,
      h('div', { class: 'cards' },
        card('Geometric mean', isNum(r.geomean_s) ? fmtSig(r.geomean_s) + ' s' : '—', { testid: 'result-geomean', headline: true, hint: 'power-test query times' }),
        card('Power', isNum(r.power) ? fmtNum(r.power, 1) : '—', { testid: 'result-power', headline: true }),
        card('Throughput', isNum(r.throughput) ? fmtNum(r.throughput, 1) : '—', { testid: 'result-throughput' }),
        card('Composite', isNum(r.composite) ? fmtNum(r.composite, 1) : '—', { testid: 'result-composite' }),
        card('Scale factor', r.scale_factor != null ? String(r.scale_factor) : '—', { testid: 'result-scale', small: true }),
        card('Streams', r.streams != null ? String(r.streams) : '—', { testid: 'result-streams', small: true, hint: r.refresh ? 'with refresh functions' : null }),
        card('Answers', validated, { testid: 'result-validated', small: true }),
        isNum(r.power_test_s) ? card('Power test', fmtDuration(r.power_test_s), { small: true, testid: 'result-power-s' }) : null,
        isNum(r.throughput_test_s) && r.throughput_test_s > 0 ? card('Throughput test', fmtDuration(r.throughput_test_s), { small: true, testid: 'result-throughput-s' }) : null,
        r.seed != null ? card('Seed', String(r.seed), { small: true, testid: 'result-seed' }) : null,
        card('Status', r.status || '—', { testid: 'result-status', small: true })),
      h('section', { class: 'panel', testid: 'query-panel' },
        h('div', { class: 'toolbar' }, h('h2', { style: 'margin:0' }, 'Seconds per query'), h('span', { class: 'spacer' }),
          h('label', { class: 'muted', style: 'font-weight:400' }, logBox, ' log scale')),
        chart.el),
      Array.isArray(r.stream_totals) && r.stream_totals.length ? panel('Streams', 'stream-panel', table(
        [{ label: 'Stream' }, { label: 'Queries', num: true }, { label: 'Failed', num: true }, { label: 'Seconds', num: true }],
        r.stream_totals.map(s => ({ attrs: { testid: 'stream-row-' + s.stream }, cells: [streamLabel(s.stream), fmtNum(s.queries), fmtNum(s.failed), fmtSig(s.seconds)] })),
        { testid: 'stream-table' })) : null,
      Array.isArray(r.refreshes) && r.refreshes.length ? panel('Refresh functions', 'refresh-panel', table(
        [{ label: 'Stream' }, { label: 'Set', num: true }, { label: 'Function' }, { label: 'Seconds', num: true }, { label: 'Rows', num: true }, { label: 'Error' }],
        r.refreshes.map(x => [streamLabel(x.stream), fmtNum(x.set), x.function, fmtSig(x.seconds), fmtNum(x.rows), x.error || '']),
        { testid: 'refresh-table' })) : null,
      panel('Queries', 'query-table-panel', h('div', { class: 'scroll-x' }, qTable)));
  }

  // thresholdsPanel is a run's thresholds (sledge run --threshold) with
  // the value measured and the verdict; a value that could not be measured
  // is a dash, its note in the row's title.
  function thresholdsPanel(ths) {
    const failed = ths.filter(t => !t.passed).length;
    return panel(failed ? `Thresholds: ${failed} of ${ths.length} failed` : 'Thresholds: all passed', 'thresholds-panel', table(
      [{ label: 'Threshold' }, { label: 'Value', num: true }, { label: '' }],
      ths.map((t, i) => ({
        attrs: { testid: 'threshold-row-' + i, title: t.note || '' },
        cells: [t.threshold, isNum(t.value) ? fmtSig(t.value) + (t.unit || '') : '—',
          h('span', { class: 'badge ' + (t.passed ? 'badge-ok' : 'badge-bad') }, t.passed ? 'pass' : 'FAIL')],
      })), { testid: 'thresholds-table', id: 'thresholds-table' }));
  }

  function auditPanel(audit) {
    return panel('Audit', 'audit-panel', table(
      [{ label: 'Check' }, { label: 'Value', num: true }, { label: 'Target' }, { label: '' }],
      audit.map((a, i) => ({
        attrs: { testid: 'audit-row-' + i },
        cells: [a.name, fmtSig(a.value) + (a.unit ? ' ' + a.unit : ''), a.target || '',
          h('span', { class: 'badge ' + (a.ok ? 'badge-ok' : 'badge-bad') }, a.ok ? 'ok' : 'not met')],
      })), { testid: 'audit-table', id: 'audit-table' }));
  }

  // ---------------------------------------------------------------- downloads

  function download(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = h('a', { href: url, download: name, style: 'display:none' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 5000);
  }

  function csvCell(v) {
    if (v == null || (typeof v === 'number' && !isFinite(v))) return '';
    const s = String(v);
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function seriesCSV(series) {
    const names = TX_ORDER.filter(n => series.some(iv => iv.transactions && iv.transactions[n]));
    for (const iv of series) for (const n of Object.keys(iv.transactions || {})) if (!names.includes(n)) names.push(n);
    const txCols = ['count', 'errors', 'p50_ms', 'p95_ms', 'p99_ms', 'max_ms'];
    const head = ['seq', 'phase', 'elapsed_s', 'length_s', 'tpm', 'nopm', 'errors'];
    // A staged run's stage, a terminal or rate run's schedule (absent: 0).
    const extra = ['stage', 'lag_p99_ms', 'late', 'scheduled', 'dropped'].filter(k => series.some(iv => iv[k] != null));
    head.push(...extra);
    for (const n of names) for (const c of txCols) head.push(n + '_' + c);
    const lines = [head.join(',')];
    for (const iv of series) {
      const row = [iv.seq, iv.phase, iv.elapsed_s, iv.length_s, iv.tpm, iv.nopm, iv.errors];
      for (const k of extra) row.push(iv[k] != null ? iv[k] : (k === 'stage' && iv.phase === 'rampup' ? '' : 0));
      for (const n of names) {
        const t = (iv.transactions || {})[n] || {};
        for (const c of txCols) row.push(t[c]);
      }
      lines.push(row.map(csvCell).join(','));
    }
    return lines.join('\r\n') + '\r\n';
  }

  // ---------------------------------------------------------------- compare

  // settingsDiffer is what the compare page shows first: from GET
  // /api/compare of the baseline against each other job (list: {entry,
  // data, error}), the server versions and client machines that differ,
  // the notes, and a table of every setting that differs from the
  // baseline's, one column a job. The comparison is the server's (sledge
  // jobs diff's); this only lays the answers side by side: a setting
  // another job's answer does not name is the baseline's.
  function settingsDiffer(base, list) {
    const out = [];
    const failed = list.filter(x => x.error);
    for (const x of failed) out.push(alertBox('warn', `Could not compare job #${x.entry.id} with #${base.id}: ${x.error.message}`));
    const got = list.filter(x => x.data);
    if (!got.length) return out;
    const pair = x => got.length > 1 ? ` (#${x.entry.id} against #${base.id})` : '';
    for (const x of got) {
      const v = x.data;
      for (const n of v.notes || []) out.push(h('div', { class: 'alert alert-warn', testid: 'compare-note' }, 'Note: ' + n + pair(x) + '.'));
      const servers = v.servers_differ || [];
      if (servers.length) {
        out.push(h('div', { class: 'alert alert-warn', testid: 'compare-server-differs' },
          h('b', null, 'The server differs' + pair(x) + ': '),
          servers.map((s, i) => [i ? '; ' : '', s.name === 'database' ? '' : s.name + ' ', `#${base.id} ${s.a || '—'}, #${x.entry.id} ${s.b || '—'}`]),
          '. A difference may be the server\'s.'));
      }
      if (v.machine_differs) {
        const facts = (v.settings_differ || []).filter(d => d.name.startsWith('client ')).map(d => d.name.slice(7));
        out.push(h('div', { class: 'alert alert-warn', testid: 'compare-machine-differs' },
          h('b', null, 'The client machine differs' + pair(x) + ': '), facts.join(', '), ' (below). A difference may be the machine\'s.'));
      }
    }
    // name → {base value, job id → value}, in the server's order.
    const rows = new Map();
    for (const x of got) {
      for (const d of x.data.settings_differ || []) {
        if (!rows.has(d.name)) rows.set(d.name, { base: d.a, by: new Map() });
        rows.get(d.name).by.set(x.entry.id, d.b);
      }
    }
    const compared = Math.max(...got.map(x => x.data.settings_compared || 0));
    const anyServer = got.some(x => (x.data.servers_differ || []).length);
    const anyMachine = got.some(x => x.data.machine_differs);
    if (!rows.size) {
      out.push(h('p', { class: 'muted', testid: 'compare-settings-same', style: 'margin:0' },
        `Job settings: the same (${compared} compared).` + (anyServer || anyMachine ? '' : ' Server version and client machine: no difference recorded.')));
      return out;
    }
    const jobs = [base].concat(got.map(x => x.entry));
    const cols = [{ label: 'Setting' }].concat(jobs.map(e => ({ label: '#' + e.id + (e === base ? ' (baseline)' : '') })));
    const trs = [...rows].map(([name, r]) => ({
      attrs: { testid: 'compare-setting-' + name.replace(/\s+/g, '-') },
      cells: [h('span', { class: 'mono' }, name)].concat(jobs.map(e => {
        const v = e === base ? r.base : (r.by.has(e.id) ? r.by.get(e.id) : r.base);
        return h('span', { class: e !== base && v !== r.base ? 'differs' : null, 'data-job': String(e.id) }, v === '' ? '—' : v);
      })),
    }));
    // Against one job, how many of how many; against several, each was
    // compared with the baseline on its own.
    out.push(h('p', { class: 'muted', style: 'margin:0 0 8px', testid: 'compare-settings-count' },
      (got.length > 1 ? `Job settings that differ from #${base.id}'s: ${rows.size}` : `Job settings that differ: ${rows.size} of ${compared}`) +
      ' — what may explain a difference in the figures below.' +
      (anyServer || anyMachine ? '' : ' Server version and client machine: no difference recorded.')));
    out.push(h('div', { class: 'scroll-x' }, table(cols, trs, { testid: 'compare-settings-table' })));
    return out;
  }

  async function pageCompare(params) {
    document.title = 'Compare · Sledge';
    const alive = aliveToken();
    const ids = [...new Set((params.get('ids') || '').split(',').map(s => s.trim()).filter(s => /^\d+$/.test(s)))];
    if (!ids.length) {
      setPage(h('div', { class: 'empty', testid: 'compare-empty' },
        h('p', null, 'Pick two or more jobs on the jobs page and press Compare.'), h('a', { href: '#/', class: 'btn' }, 'Go to the jobs')));
      return;
    }
    setPage(h('p', { class: 'muted' }, 'Loading ' + ids.length + ' jobs…'));
    const entries = await Promise.all(ids.map(async id => {
      const [job, series, config] = await Promise.all([
        settle(api('GET', `/api/jobs/${id}`)), settle(get(`/api/jobs/${id}/series`, [])),
        settle(get(`/api/jobs/${id}/config`, {})),
      ]);
      // Only a finished run has a result: asking for a build's would be a 404.
      const result = job.data && job.data.kind === 'run' && job.data.status !== 'running'
        ? await settle(get(`/api/jobs/${id}/result`, null)) : { data: null };
      return {
        id, job: job.data, error: job.error,
        series: (series.data || []).slice().sort((a, b) => a.seq - b.seq),
        result: result.data, config: config.data || {},
      };
    }));
    if (!alive()) return;

    const ok = entries.filter(e => e.job);
    const withSeries = ok.filter(e => e.series.length);
    const chart = lineChart({
      testid: 'compare-chart', title: 'TPM over time', yLabel: 'TPM', emptyText: 'None of these jobs has intervals.',
      series: withSeries.map((e, i) => ({ label: `#${e.id} ${dbLabel(e.job)}${e.config.vu ? ' · ' + e.config.vu + ' VU' : ''}`, color: PALETTE[i % PALETTE.length] })),
    });

    const base = ok[0];
    const metric = (e, key) => {
      const r = e.result || {};
      switch (key) {
        case 'nopm': return isNum(r.nopm) ? r.nopm : (isNum(e.job.nopm) ? e.job.nopm : null);
        case 'tpm': return isNum(r.tpm) ? r.tpm : (isNum(e.job.tpm) ? e.job.tpm : null);
        case 'p95': { const no = r.transactions && r.transactions.new_order; return no && isNum(no.p95_ms) ? no.p95_ms : null; }
        case 'geomean': return isNum(r.geomean_s) ? r.geomean_s : null;
        case 'power': return isNum(r.power) ? r.power : null;
        case 'errors': {
          const txs = Object.values(r.transactions || {});
          return txs.length ? txs.reduce((a, t) => a + (t.errors || 0), 0) : null;
        }
      }
      return null;
    };
    const METRICS = [
      { key: 'nopm', label: 'NOPM', fmt: v => fmtNum(v), higher: true },
      { key: 'tpm', label: 'TPM', fmt: v => fmtNum(v), higher: true },
      { key: 'p95', label: 'New-Order p95 ms', fmt: fmtSig, higher: false },
      { key: 'geomean', label: 'Geomean s', fmt: fmtSig, higher: false },
      { key: 'power', label: 'Power', fmt: v => fmtNum(v, 1), higher: true },
      { key: 'errors', label: 'Errors', fmt: v => fmtNum(v), higher: false },
    ].filter(m => ok.some(e => m.key === 'errors' ? metric(e, m.key) > 0 : metric(e, m.key) != null));

    function ratioCell(e, m) {
      const v = metric(e, m.key), b = base && metric(base, m.key);
      if (!isNum(v) || !isNum(b) || b === 0) return h('span', { class: 'muted' }, '—');
      const r = v / b;
      // Within the band a difference is not judged: one run each cannot
      // tell it from noise.
      const judged = e !== base && Math.abs(r - 1) >= NEUTRAL_BAND;
      const verdict = !judged ? 'neutral' : (r > 1) === m.higher ? 'better' : 'worse';
      const change = (r - 1) * 100;
      return h('span', {
        testid: `compare-ratio-${m.key}-${e.id}`, 'data-verdict': verdict, class: 'ratio ratio-' + verdict,
        title: e === base ? 'the baseline' : `${change >= 0 ? '+' : ''}${change.toFixed(1)} %: ` + (judged
          ? `${verdict} (${m.higher ? 'higher' : 'lower'} is better)`
          : `within ${NEUTRAL_BAND * 100} %: not judged; repeat runs to tell noise from change`),
      }, r.toFixed(2) + '×');
    }

    const cols = [{ label: 'Job' }, { label: 'Workload' }, { label: 'Database' }, { label: 'Setup' }, { label: 'Status' }];
    // On a phone the table is a card per job (table.rowcards), each figure
    // on a line with its ratio beside it: fig and vs place them.
    for (const m of METRICS) cols.push({ label: m.label, num: true, cls: 'fig' }, { label: 'vs #' + (base ? base.id : ''), num: true, cls: 'vs' });
    const rows = entries.map(e => {
      if (!e.job) {
        return { attrs: { testid: 'compare-row-' + e.id }, cells: ['#' + e.id, h('span', { style: 'color:var(--danger)' }, e.error ? e.error.message : 'not found')].concat(cols.slice(2).map(() => '')) };
      }
      const cells = [h('a', { href: '#/jobs/' + e.id }, '#' + e.id), `${e.job.kind} ${workloadLabel(workloadOf(e.job))}`,
        dbLabel(e.job), setupText(e.job, e.config) || '—', badge(e.job.status)];
      for (const m of METRICS) {
        const v = metric(e, m.key);
        cells.push(h('span', { testid: `compare-${m.key}-${e.id}` }, v == null ? '—' : m.fmt(v)), ratioCell(e, m));
      }
      return { attrs: { testid: 'compare-row-' + e.id }, cells };
    });

    // GET /api/compare of the baseline against each other job: what
    // sledge compare says first (the settings that differ, the servers,
    // the machine), and for two jobs its verdict (B against A).
    const others = base ? ok.filter(e => e !== base) : [];
    const answers = Promise.all(others.map(e => settle(api('GET', `/api/compare?a=${base.id}&b=${e.id}`)).then(r => Object.assign({ entry: e }, r))));
    const settingsBody = h('div', null, h('p', { class: 'muted', style: 'margin:0' }, 'Comparing the settings…'));
    const settingsBox = others.length ? panel('What differs', 'compare-settings', settingsBody) : null;
    answers.then(list => { if (alive()) settingsBody.replaceChildren(...settingsDiffer(base, list)); });

    let verdictBox = null;
    if (ids.length === 2 && ok.length === 2) {
      verdictBox = h('div', { class: 'alert alert-info verdict', testid: 'compare-verdict', id: 'compare-verdict' }, 'Judging the difference…');
      answers.then(([{ data: v, error: e }]) => {
        if (!alive()) return;
        if (e) {
          verdictBox.className = 'alert alert-warn';
          verdictBox.textContent = 'Could not judge the difference: ' + e.message;
          return;
        }
        const lines = String(v.text || '').split('\n');
        const sig = v.verdict ? v.verdict.significant : (v.steps || []).some(s => s.verdict && s.verdict.significant);
        verdictBox.dataset.significant = sig ? 'true' : 'false';
        verdictBox.dataset.kind = v.kind;
        verdictBox.replaceChildren(h('b', null, v.kind === 'profiles' ? `Profile #${ids[1]} against profile #${ids[0]}: ` : `Job #${ids[1]} against job #${ids[0]}: `),
          lines.length > 1 ? h('ul', null, lines.map(l => h('li', null, l))) : lines[0]);
        // Where NOPM was judged (from the trials of two series, else the
        // measured intervals), its ratio is coloured by that verdict, not
        // by the 5 % band: a difference within the noise stays grey
        // however large, one beyond it is marked however small.
        const cell = v.verdict && document.querySelector(`[data-testid="compare-ratio-nopm-${ids[1]}"]`);
        if (cell) {
          const up = v.verdict.change_pct > 0;
          const judged = v.verdict.significant ? (up ? 'better' : 'worse') : 'neutral';
          cell.dataset.verdict = judged;
          cell.className = 'ratio ratio-' + judged;
          cell.title = `${up ? '+' : ''}${Number(v.verdict.change_pct).toFixed(1)} %: ` + (v.verdict.significant
            ? `${judged}, beyond the noise of the ${v.verdict.trials ? 'trials' : 'measured intervals'}`
            : `within the noise of the ${v.verdict.trials ? 'trials' : 'measured intervals'}: not a difference`);
        }
      });
    }

    setPage(
      h('div', { class: 'page-head' }, h('h1', null, 'Compare'), h('span', { class: 'sub' }, ids.map(i => '#' + i).join(', '))),
      settingsBox,
      verdictBox,
      panel(null, 'compare-table-panel', h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'compare-table', id: 'compare-table', class: 'data rowcards' })),
        base ? h('p', { class: 'muted', style: 'margin:8px 0 0', testid: 'compare-legend' },
          `Ratios are against job #${base.id}. `, h('span', { class: 'ratio ratio-neutral' }, 'Grey'),
          `: within ${NEUTRAL_BAND * 100} % — not judged; repeat runs to tell noise from change. Beyond it `,
          h('span', { class: 'ratio ratio-better' }, 'green'), ' is better, ', h('span', { class: 'ratio ratio-worse' }, 'red'),
          ' worse (NOPM, TPM and power: higher is better; latency, geomean and errors: lower).',
          ids.length === 2 ? ' For two runs, the NOPM ratio follows the verdict above instead: grey within the noise, coloured beyond it.' : null) : null),
      h('section', { class: 'panel' }, chart.el));
    if (withSeries.length) {
      const tables = withSeries.map(e => [e.series.map(iv => iv.elapsed_s), e.series.map(iv => isNum(iv.tpm) ? iv.tpm : null)]);
      chart.setData(withSeries.length > 1 ? uPlot.join(tables) : tables[0]);
    }
  }

  // ---------------------------------------------------------------- SLO searches

  // sloPanel is the SLO search (sledge slo) a job is a step of, drawn from
  // GET /api/slo/{id} once it loads: the answer with its bracket, the curve
  // as SVG — the goal transaction's p50 and p99 against the offered rate
  // (log scale), passing steps filled, failing ones hollow, the latency
  // goal dashed, the answer marked — and the table of the steps.
  function sloPanel(sloID, jobID, alive) {
    const box = h('div', { testid: 'slo-panel-box' }, h('p', { class: 'muted' }, 'Loading SLO search ' + sloID + '…'));
    api('GET', `/api/slo/${sloID}`).then(s => {
      if (!alive()) return;
      const steps = s.steps || [];
      const tx = s.tx || 'all';
      const W = 640, H = 300, padL = 62, padR = 16, padT = 30, padB = 44;
      const pw = W - padL - padR, ph = H - padT - padB;
      const root = svg('svg', {
        viewBox: `0 0 ${W} ${H}`, class: 'profile-chart', role: 'img', 'aria-label': `${tx} latency against the offered rate`,
        'data-testid': 'slo-chart', id: 'slo-chart', preserveAspectRatio: 'xMidYMid meet',
      });
      root.append(svg('text', { x: padL, y: 18, class: 'title' }, `${tx} p50 and p99 against the offered rate`));
      const sorted = steps.slice().sort((a, b) => a.offered - b.offered);
      const rates = sorted.map(st => st.offered);
      const lo = Math.min(...rates), hi = Math.max(...rates);
      const x = v => hi > lo ? padL + pw * 0.04 + pw * 0.92 * (Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) : padL + pw / 2;
      const ys = sorted.flatMap(st => [st.p50_ms, st.p99_ms]).concat([s.latency_limit_ms]).filter(isNum);
      const max = ys.length ? Math.max(...ys) : 1;
      const step = niceStep(max * 1.1 / 5);
      const top = Math.ceil(max * 1.1 / step) * step || 1;
      const y = v => padT + ph - Math.min(v, top) / top * ph;
      for (let t = 0; t <= top + step / 2; t += step) {
        root.append(svg('line', { x1: padL, x2: W - padR, y1: y(t), y2: y(t), stroke: '#e3e6eb' }));
        root.append(svg('text', { x: padL - 6, y: y(t) + 4, 'text-anchor': 'end' }, fmtCompact(t) || '0'));
      }
      root.append(svg('line', { x1: padL, x2: W - padR, y1: padT + ph, y2: padT + ph, stroke: '#98a2b3' }));
      let lastX = -Infinity;
      for (const r of rates) {
        if (x(r) - lastX < 28) continue;
        lastX = x(r);
        root.append(svg('text', { x: x(r), y: padT + ph + 16, 'text-anchor': 'middle' }, fmtCompact(r)));
      }
      root.append(svg('text', { x: padL + pw / 2, y: H - 6, 'text-anchor': 'middle' }, 'offered rate, per second (log scale)'));
      root.append(svg('text', { x: 14, y: padT + ph / 2, transform: `rotate(-90 14 ${padT + ph / 2})`, 'text-anchor': 'middle' }, 'latency (ms)'));
      if (isNum(s.latency_limit_ms)) {
        root.append(svg('g', { 'data-testid': 'slo-chart-goal' },
          svg('line', { x1: padL, x2: W - padR, y1: y(s.latency_limit_ms), y2: y(s.latency_limit_ms), stroke: '#b42318', 'stroke-dasharray': '6 4' }),
          svg('text', { x: W - padR, y: y(s.latency_limit_ms) - 4, 'text-anchor': 'end', fill: '#b42318' }, `goal ${fmtSig(s.latency_limit_ms)} ms`)));
      }
      for (const [key, color, label] of [['p99_ms', PALETTE[0], 'p99'], ['p50_ms', '#7a8699', 'p50']]) {
        const pts = sorted.filter(st => isNum(st[key]));
        root.append(svg('polyline', { fill: 'none', stroke: color, 'stroke-width': 2, points: pts.map(st => `${x(st.offered)},${y(st[key])}`).join(' ') }));
        for (const st of pts) {
          root.append(svg('circle', {
            cx: x(st.offered), cy: y(st[key]), r: 4, fill: st.pass ? color : '#fff', stroke: color, 'stroke-width': 1.5,
            'data-testid': `slo-point-${label}-${st.step}`, 'data-pass': String(st.pass),
          }, svg('title', null, `${st.offered}/s (job #${st.job}): ${label} ${fmtSig(st[key])} ms, ${st.verdict || (st.pass ? 'pass' : 'FAIL')}`)));
        }
      }
      if (isNum(s.answer)) {
        const ax = x(s.answer);
        root.append(svg('g', { 'data-testid': 'slo-chart-answer', 'data-rate': s.answer },
          svg('line', { x1: ax, x2: ax, y1: padT, y2: padT + ph, stroke: '#12805c', 'stroke-dasharray': '4 3' }),
          svg('text', { x: ax, y: padT - 4, 'text-anchor': 'middle', fill: '#12805c' }, `answer ${s.answer}/s`)));
      }
      const cols = [{ label: 'Step', num: true }, { label: 'Phase' }, { label: 'Offered /s', num: true }, { label: 'Achieved /s', num: true },
        { label: tx + ' p50 ms', num: true }, { label: tx + ' p99 ms', num: true }, { label: 'Errors', num: true }, { label: 'Verdict' }, { label: 'Job' }];
      const rows = steps.map(st => ({
        attrs: { testid: 'slo-step-' + st.step, class: s.answer_job === st.job ? 'knee' : null },
        cells: [String(st.step), st.phase, String(st.offered), isNum(st.achieved) ? st.achieved.toFixed(1) : '—', fmtSig(st.p50_ms), fmtSig(st.p99_ms),
          isNum(st.errors_pct) ? st.errors_pct.toFixed(1) + ' %' : '—', st.verdict || (st.pass ? 'pass' : (st.saturated ? 'FAIL (saturated)' : 'FAIL')),
          String(st.job) === String(jobID) ? h('b', null, '#' + st.job) : h('a', { href: '#/jobs/' + st.job }, '#' + st.job)],
      }));
      box.replaceChildren(panel(`SLO search #${s.id}: ${(s.goals || []).join(' and ')}`, 'slo-panel',
        (s.answer_text || []).map((l, i) => h(i ? 'div' : 'p', { class: i ? 'muted' : 'alert alert-info', testid: i ? null : 'slo-answer' }, l)),
        h('div', { class: 'profile-chart-box', style: 'max-width:760px' }, root),
        h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'slo-table', id: 'slo-table' }))));
    }).catch(e => {
      if (alive()) box.replaceChildren(alertBox('warn', 'Could not load SLO search ' + sloID + ': ' + e.message, 'slo-error'));
    });
    return box;
  }

  // ---------------------------------------------------------------- profiles

  // profileChart draws one figure of a profile against VUs as SVG: a log-2
  // x axis with a tick at every VU count, y from 0, error bars where a
  // step has a 95 % CI, the knee ringed with a dashed line to the axis.
  function profileChart(opts) {
    const W = 640, H = 300, padL = 62, padR = 16, padT = 30, padB = 44;
    const pw = W - padL - padR, ph = H - padT - padB;
    const pts = opts.points.filter(p => isNum(p.y));
    const root = svg('svg', {
      viewBox: `0 0 ${W} ${H}`, class: 'profile-chart', role: 'img', 'aria-label': opts.title,
      'data-testid': opts.testid, id: opts.testid, 'data-y-min': '0', preserveAspectRatio: 'xMidYMid meet',
    });
    root.append(svg('text', { x: padL, y: 18, class: 'title' }, opts.title));
    const vus = opts.points.map(p => p.vus);
    const lo = Math.min(...vus), hi = Math.max(...vus);
    const x = v => hi > lo ? padL + pw * 0.04 + pw * 0.92 * (Math.log2(v) - Math.log2(lo)) / (Math.log2(hi) - Math.log2(lo)) : padL + pw / 2;
    const ys = pts.flatMap(p => [p.y, p.hi]).filter(isNum);
    const max = ys.length ? Math.max(...ys) : 1;
    // Headroom over the highest point for the knee's label.
    const step = niceStep(max * 1.15 / 5);
    const top = Math.ceil(max * 1.15 / step) * step || 1;
    const y = v => padT + ph - v / top * ph;
    for (let t = 0; t <= top + step / 2; t += step) {
      root.append(svg('line', { x1: padL, x2: W - padR, y1: y(t), y2: y(t), stroke: '#e3e6eb' }));
      root.append(svg('text', { x: padL - 6, y: y(t) + 4, 'text-anchor': 'end' }, fmtCompact(t) || '0'));
    }
    root.append(svg('line', { x1: padL, x2: W - padR, y1: padT + ph, y2: padT + ph, stroke: '#98a2b3' }));
    for (const v of vus) root.append(svg('text', { x: x(v), y: padT + ph + 16, 'text-anchor': 'middle' }, String(v)));
    root.append(svg('text', { x: padL + pw / 2, y: H - 6, 'text-anchor': 'middle' }, 'virtual users (log scale)'));
    root.append(svg('text', { x: 14, y: padT + ph / 2, transform: `rotate(-90 14 ${padT + ph / 2})`, 'text-anchor': 'middle' }, opts.yLabel));
    const color = opts.color || PALETTE[0];
    root.append(svg('polyline', { fill: 'none', stroke: color, 'stroke-width': 2, points: pts.map(p => `${x(p.vus)},${y(p.y)}`).join(' ') }));
    for (const p of pts) {
      if (isNum(p.lo) && isNum(p.hi)) root.append(svg('line', { x1: x(p.vus), x2: x(p.vus), y1: y(Math.max(0, p.lo)), y2: y(p.hi), stroke: color, 'stroke-width': 1.5 }));
      root.append(svg('circle', { cx: x(p.vus), cy: y(p.y), r: 4, fill: color, 'data-testid': `${opts.testid}-point-${p.vus}` },
        svg('title', null, `${p.vus} VU${p.vus === 1 ? '' : 's'}: ${opts.fmt(p.y)}`)));
    }
    const knee = pts.find(p => p.vus === opts.kneeVUs);
    if (knee) {
      const kx = x(knee.vus), ky = y(knee.y);
      root.append(svg('g', { class: 'knee', 'data-testid': opts.testid + '-knee', 'data-vus': knee.vus },
        svg('line', { x1: kx, x2: kx, y1: ky, y2: padT + ph, stroke: color, 'stroke-dasharray': '4 3' }),
        svg('circle', { cx: kx, cy: ky, r: 9, fill: 'none', stroke: color, 'stroke-width': 2 }),
        svg('text', { x: kx > padL + pw * 0.75 ? kx - 12 : kx + 12, y: ky - 12, 'text-anchor': kx > padL + pw * 0.75 ? 'end' : 'start', class: 'knee-label', fill: color },
          `knee ${knee.vus} VU${knee.vus === 1 ? '' : 's'}`)));
    }
    return h('div', { class: 'profile-chart-box' }, root);
  }

  async function pageProfile(id) {
    document.title = `Profile ${id} · Sledge`;
    const alive = aliveToken();
    setPage(h('p', { class: 'muted' }, 'Loading profile ' + id + '…'));
    let p;
    try {
      p = await api('GET', `/api/profiles/${id}`);
    } catch (e) {
      if (!alive()) return;
      setPage(e.status === 404
        ? h('div', { class: 'empty', testid: 'profile-not-found' }, h('p', null, e.message + '.'), h('a', { href: '#/profiles', class: 'btn' }, 'The profiles'))
        : alertBox('error', 'Could not load profile ' + id + ': ' + e.message, 'page-error'));
      return;
    }
    if (!alive()) return;
    if (String(p.id) !== String(id)) { location.replace('#/profile/' + p.id); return; }
    const steps = p.steps || [];
    const vus = v => `${v} VU${v === 1 ? '' : 's'}`;
    const pm = v => isNum(v) ? fmtNum(v) : '—';
    const nopmCell = s => !isNum(s.nopm) ? '—' : isNum(s.nopm_ci95_high)
      ? h('span', { title: `95 % CI ${fmtNum(s.nopm_ci95_low)} – ${fmtNum(s.nopm_ci95_high)}` }, fmtNum(s.nopm), h('span', { class: 'muted' }, ciSpread({ mean: s.nopm, ci95_low: s.nopm_ci95_low, ci95_high: s.nopm_ci95_high }, fmtNum)))
      : fmtNum(s.nopm);
    const pct = v => isNum(v) ? (v >= 0 ? '+' : '') + v.toFixed(1) + ' %' : '—';
    const cols = [{ label: 'VUs', num: true }, { label: 'Jobs' }, { label: 'NOPM', num: true, title: 'mean of the trials ± half its 95 % confidence interval' },
      { label: 'TPM', num: true }, { label: 'New-Order p95 ms', num: true }, { label: 'NOPM / VU', num: true },
      { label: 'Gain', num: true, title: 'NOPM against the previous step' }, { label: 'Of linear', num: true, title: 'the share of the linear gain the step reached' }, { label: '' }];
    const rows = steps.map(s => ({
      attrs: { testid: 'profile-step-' + s.vus, class: s.knee ? 'knee' : null },
      cells: [String(s.vus), h('span', null, (s.jobs || []).map((j, i) => [i ? ', ' : '', h('a', { href: '#/jobs/' + j }, '#' + j)])),
        h('span', { testid: 'profile-nopm-' + s.vus }, nopmCell(s)), pm(s.tpm), fmtSig(s.p95_ms), isNum(s.nopm_per_vu) ? fmtSig(s.nopm_per_vu) : '—',
        pct(s.gain_pct), isNum(s.linear_pct) ? Math.round(s.linear_pct) + ' %' : '—', s.knee ? h('b', { class: 'knee-mark', testid: 'profile-knee-mark' }, '◀ knee') : ''],
    }));
    const point = (s, key) => ({ vus: s.vus, y: s[key], lo: key === 'nopm' ? s.nopm_ci95_low : null, hi: key === 'nopm' ? s.nopm_ci95_high : null });
    setPage(
      h('div', { class: 'page-head' }, h('h1', { testid: 'profile-title' }, `Profile #${p.id}`),
        h('span', { class: 'sub' }, `${workloadLabel(p.workload)}${p.database ? ' · ' + p.database : ''} · ${steps.map(s => s.vus).join(', ')} VUs`),
        h('span', { class: 'spacer' }), h('a', { href: '#/profiles', class: 'btn' }, 'All profiles')),
      h('div', { class: 'meta' }, h('span', null, 'Started ', h('b', null, fmtDate(p.created_at))),
        h('span', null, 'Jobs ', h('b', null, String(steps.reduce((a, s) => a + (s.jobs || []).length, 0))))),
      h('div', { class: 'alert alert-info', testid: 'profile-knee', 'data-knee-vus': p.knee_vus == null ? '' : p.knee_vus },
        h('b', null, p.knee_vus == null ? 'No knee' : 'Knee at ' + vus(p.knee_vus)), ' — ', String(p.knee || '').replace(/^knee: /, '')),
      h('div', { class: 'grid2' },
        panel(null, 'profile-nopm-panel', profileChart({ testid: 'profile-chart-nopm', title: 'NOPM against VUs', yLabel: 'NOPM',
          points: steps.map(s => point(s, 'nopm')), kneeVUs: p.knee_vus, fmt: v => fmtNum(v) + ' NOPM' })),
        panel(null, 'profile-p95-panel', profileChart({ testid: 'profile-chart-p95', title: 'New-Order p95 against VUs', yLabel: 'p95 (ms)',
          points: steps.map(s => point(s, 'p95_ms')), kneeVUs: p.knee_vus, color: PALETTE[1], fmt: v => fmtSig(v) + ' ms' }))),
      panel(null, 'profile-table-panel', h('div', { class: 'scroll-x' }, table(cols, rows, { testid: 'profile-table', id: 'profile-table' })),
        h('p', { class: 'muted', style: 'margin:8px 0 0' }, 'NOPM ± half the 95 % confidence interval of the mean of a step\'s trials (two or more). ' +
          (p.knee_rule ? p.knee_rule.charAt(0).toUpperCase() + p.knee_rule.slice(1) + '.' : ''))));
  }

  async function pageProfiles() {
    document.title = 'Profiles · Sledge';
    const alive = aliveToken();
    setPage(h('p', { class: 'muted' }, 'Loading the profiles…'));
    const list = await api('GET', '/api/profiles');
    if (!alive()) return;
    const selected = new Set();
    const compareBtn = h('button', {
      type: 'button', class: 'btn', testid: 'profiles-compare', disabled: true, title: 'Select two profiles to compare',
      onclick: () => { location.hash = '#/compare?ids=' + [...selected].join(','); },
    }, 'Compare');
    const cols = [{ label: '' }, { label: 'Profile', num: true }, { label: 'Workload' }, { label: 'Database' }, { label: 'VUs' },
      { label: 'Jobs', num: true }, { label: 'Knee' }, { label: 'Started' }];
    const rows = (list || []).map(p => ({
      attrs: { testid: 'profile-row-' + p.id },
      cells: [h('input', {
        type: 'checkbox', 'aria-label': 'Select profile ' + p.id, testid: 'profile-select-' + p.id,
        onchange: e => { if (e.target.checked) selected.add(p.id); else selected.delete(p.id); compareBtn.disabled = selected.size !== 2; },
      }), h('a', { href: '#/profile/' + p.id, testid: 'profile-link-' + p.id }, '#' + p.id), workloadLabel(p.workload), p.database || '—',
      (p.steps || []).map(s => s.vus).join(', '), String((p.steps || []).reduce((a, s) => a + (s.jobs || []).length, 0)),
      p.knee_vus == null ? '—' : p.knee_vus + ' VU' + (p.knee_vus === 1 ? '' : 's'), fmtDate(p.created_at)],
    }));
    setPage(
      h('div', { class: 'page-head' }, h('h1', null, 'Profiles'), h('span', { class: 'sub', testid: 'profiles-count' }, (list || []).length + ' profiles'),
        h('span', { class: 'spacer' }), compareBtn),
      (list || []).length
        ? h('div', { class: 'panel flush' }, table(cols, rows, { testid: 'profiles-table', id: 'profiles-table' }))
        : h('div', { class: 'empty', testid: 'profiles-empty' }, h('p', null, 'No profiles yet. Run one with ', h('code', null, 'sledge profile --vu 1,2,4,8'), '.')),
      h('p', { class: 'muted' }, 'A profile runs one configuration at increasing VU counts (sledge profile --vu LIST [--repeat N]); its page draws NOPM and p95 against VUs with the knee marked.'));
  }

  // ---------------------------------------------------------------- start

  initTokenDialog();
  window.addEventListener('hashchange', route);
  if (typeof uPlot === 'undefined') console.error('uPlot did not load');
  route();
})();
