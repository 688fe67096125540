// Corral's device wall: what the grid and the device page share. Plain JS, no libraries and
// no build step; it works in current Chromium and Firefox.
'use strict';

const Corral = (() => {
  const dash = '\u2014';

  // span renders a duration in ms as "1h 4m", "4m 12s" or "12s".
  function span(ms) {
    let s = Math.max(0, Math.round(ms / 1000));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    s %= 60;
    if (h) return `${h}h ${m}m`;
    if (m) return `${m}m ${s}s`;
    return `${s}s`;
  }

  // until renders when a time is due: "in 4m 12s", or "expired".
  function until(stamp) {
    if (!stamp) return dash;
    const ms = Date.parse(stamp) - Date.now();
    return ms > 0 ? 'in ' + span(ms) : 'expired';
  }

  function clock(stamp) {
    return stamp ? new Date(stamp).toLocaleTimeString() : dash;
  }

  // drainText says since when and by whom the device's node drains ("" when it does not); an
  // older node's entry tells neither.
  function drainText(d) {
    if (!d.draining) return '';
    return 'Draining' + (d.draining_since ? ' since ' + clock(d.draining_since) : '') + (d.draining_by ? ' by ' + d.draining_by : '');
  }

  // fields are the texts of a device's data-f elements.
  function fields(d) {
    return {
      serial: d.serial,
      state: d.draining && d.state !== 'draining' ? d.state + ' (draining)' : d.state,
      platform: [d.platform, d.model].filter(Boolean).join(' \u00b7 '),
      release: [d.brand, d.release].filter(Boolean).join(' ') || dash,
      node: d.node,
      reason: d.reason || dash,
      tags: (d.tags || []).join(' '),
      holder: d.holder || dash,
      since: d.holder && d.held_since ? ' since ' + clock(d.held_since) : '', // the browser's zone
      lease: d.lease_expires ? until(d.lease_expires) : dash,
      leasemax: d.lease_max ? 'at the latest ' + clock(d.lease_max) : dash,
      queue: d.queue_len === undefined ? dash : String(d.queue_len), // none: the token may not read it
      task: d.task ? d.task.tool : '',
      running: d.task ? `${d.task.tool} for ${d.task.holder || 'someone'} since ${clock(d.task.started)}` : dash,
      drain: drainText(d),
    };
  }

  // markStale says on the screen under root, greyed by the style, that its frame is no longer
  // live: the device is offline (its last frame stays), or the gateway does not answer.
  function markStale(root) {
    const img = root.querySelector('img[data-screen]');
    if (!img) return;
    const box = img.parentElement;
    let why = '';
    if (!img.hidden && root.dataset.state === 'offline') why = 'offline';
    else if (!img.hidden && document.body.dataset.unreachable !== undefined) why = 'gateway unreachable';
    if (why && img.dataset.captured) why += ' \u00b7 last frame at ' + clock(img.dataset.captured);
    if ((box.dataset.stale || '') !== why) {
      if (why) box.dataset.stale = why; else delete box.dataset.stale;
    }
  }

  // unreachable marks the page's screens stale while the gateway does not answer (on), and
  // live again when it does.
  function unreachable(on) {
    if (on === (document.body.dataset.unreachable !== undefined)) return;
    if (on) document.body.dataset.unreachable = ''; else delete document.body.dataset.unreachable;
    for (const img of document.querySelectorAll('img[data-screen]')) {
      const root = img.closest('[data-serial]');
      if (root) markStale(root);
    }
  }

  // Backoff spaces a poll's tries while the gateway does not answer: the wait doubles from
  // first up to max, and an answer brings it back to the poll's own interval (every).
  class Backoff {
    constructor(every, first, max) { this.every = every; this.first = first; this.max = max; this.wait = every; this.failing = false; }
    ok() { this.failing = false; this.wait = this.every; return this.wait; }
    failed() {
      this.wait = this.failing ? Math.min(this.wait * 2, this.max) : this.first;
      this.failing = true;
      return this.wait;
    }
  }

  // fill writes a device into the data-f elements under root.
  function fill(root, d) {
    const t = fields(d);
    if (root.dataset.state !== d.state) root.dataset.state = d.state;
    for (const el of root.querySelectorAll('[data-f]')) {
      const k = el.dataset.f;
      if (k === 'lease' && el.dataset.expires !== (d.lease_expires || '')) el.dataset.expires = d.lease_expires || '';
      if (k in t && el.textContent !== t[k]) el.textContent = t[k];
    }
    markStale(root);
  }

  // tick keeps relative times current.
  function tick() {
    for (const el of document.querySelectorAll('[data-expires]')) {
      const text = el.dataset.expires ? until(el.dataset.expires) : dash;
      if (el.textContent !== text) el.textContent = text;
    }
    for (const el of document.querySelectorAll('time[data-time]')) {
      if (el.dataset.time && !el.dataset.local) {
        el.textContent = clock(el.dataset.time);
        el.title = el.dataset.time;
        el.dataset.local = '1';
      }
    }
  }
  setInterval(tick, 1000);
  document.addEventListener('DOMContentLoaded', tick);

  // getJSON fetches the console's JSON; a lost login reloads the page (to the login form).
  async function getJSON(url) {
    const r = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    if (r.status === 401) { location.reload(); throw new Error('logged out'); }
    if (!r.ok) { const e = new Error(`${r.status} ${await r.text()}`); e.status = r.status; throw e; }
    return r.json();
  }

  // Screens keeps one EventSource for the live screens of the page: set() names the serials to
  // watch (reopening the stream when they change), and every frame lands in the <img
  // data-screen> under the element whose data-serial is the frame's. A hidden page watches
  // nothing, so frames cost nothing when no one looks. The stream is closed as soon as the page
  // is about to go (beforeunload): Firefox cuts a stream still open when the next page starts
  // loading and logs that as an error (its bug 833462). Should the page stay after all (its
  // load stopped), the user's next touch or key opens it again: a timer could fire while a slow
  // next page is still on its way.
  //
  // rootsOf(serial) returns the elements of a serial (by default a search of the document, which
  // a page of thousands of cards replaces with a lookup).
  class Screens {
    constructor(width, fps, rootsOf) {
      this.width = width; this.fps = fps; this.serials = []; this.es = null; this.key = '';
      this.rootsOf = rootsOf || ((serial) => document.querySelectorAll(`[data-serial="${CSS.escape(serial)}"]`));
      document.addEventListener('visibilitychange', () => this.open());
      window.addEventListener('beforeunload', () => {
        this.close();
        for (const e of ['pointerdown', 'keydown']) window.addEventListener(e, () => this.open(), { once: true });
      });
      window.addEventListener('pagehide', () => this.close());
    }
    set(serials) {
      this.serials = [...new Set(serials)].sort();
      this.open();
    }
    close() {
      if (this.es) { this.es.close(); this.es = null; this.key = ''; }
    }
    open() {
      // A token that may not call screenshot gets no screens (the page says so).
      const want = document.hidden || document.body.dataset.screens === 'false' ? [] : this.serials;
      const q = new URLSearchParams({ width: this.width, fps: this.fps });
      for (const s of want) q.append('serial', s);
      const key = want.length ? q.toString() : '';
      if (key === this.key) return;
      this.close();
      if (!key) return;
      this.key = key;
      this.es = new EventSource('/console/frames?' + q);
      this.es.addEventListener('frame', (ev) => this.show(JSON.parse(ev.data)));
    }
    show(f) {
      for (const root of this.rootsOf(f.serial)) {
        const img = root.querySelector('img[data-screen]');
        if (!img) continue;
        img.src = 'data:image/jpeg;base64,' + f.jpeg;
        const box = img.parentElement; // the screen's box takes the screen's shape
        const ratio = `${f.width} / ${f.height}`;
        if (box.style.aspectRatio !== ratio) box.style.aspectRatio = ratio;
        img.dataset.seq = f.seq;
        img.dataset.size = `${f.width}x${f.height}`;
        img.dataset.captured = f.captured;
        img.hidden = false;
        markStale(root);
        const none = root.querySelector('[data-noframe]');
        if (none) none.hidden = true;
        const at = root.querySelector('[data-captured]');
        if (at) at.textContent = `${f.width}\u00d7${f.height}, captured ${clock(f.captured)}`;
        root.dataset.frames = String(Number(root.dataset.frames || 0) + 1);
      }
    }
  }

  return { fill, tick, getJSON, Screens, Backoff, unreachable, span, until, clock };
})();
