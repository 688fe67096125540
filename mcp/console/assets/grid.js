// The grid: long-polls the registry's JSON view and updates the cards in place
// (keyed by serial), filters on the server by the form's query, and watches the live screens
// of the cards on screen only.
'use strict';

(() => {
  const form = document.getElementById('filters');
  const wall = document.getElementById('wall');
  const tmpl = document.getElementById('card-template');
  const count = document.getElementById('count');
  const warn = document.getElementById('warn');
  const empty = document.getElementById('empty');
  const hidden = document.getElementById('hidden');
  const screens = new Corral.Screens(360, 2, (serial) => (cards.has(serial) ? [cards.get(serial)] : []));
  // A failed poll tries again after 1 s, then less and less often while the gateway does not
  // answer; an answer asks again at once (a long poll).
  const tries = new Corral.Backoff(0, 1000, 5000);

  // The cards on screen (or about to be) are the ones watched.
  const onScreen = new Set();
  let pending = 0;
  const watch = () => { clearTimeout(pending); pending = setTimeout(() => screens.set([...onScreen]), 150); };
  const seen = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) onScreen.add(e.target.dataset.serial); else onScreen.delete(e.target.dataset.serial);
    }
    watch();
  }, { rootMargin: '300px' });
  for (const el of wall.children) seen.observe(el);

  function query() {
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
    return q;
  }

  // cards holds the wall's card of every serial, and shown the key of what each card shows
  // (keyOf), so that a render looks each card up in constant time and touches only the cards
  // whose device changed: linear in the devices, whatever their number (a querySelector per
  // device made it quadratic). Cards the server rendered have no key yet: the first render
  // fills them.
  const cards = new Map();
  const shown = new Map();
  for (const el of wall.children) cards.set(el.dataset.serial, el);

  function cardOf(serial) {
    let el = cards.get(serial);
    if (el) return el;
    el = tmpl.content.firstElementChild.cloneNode(true);
    el.dataset.serial = serial;
    for (const a of el.querySelectorAll('[data-link]')) a.href = '/devices/' + encodeURIComponent(serial);
    cards.set(serial, el);
    seen.observe(el);
    return el;
  }

  function dropCard(el) {
    const serial = el.dataset.serial;
    seen.unobserve(el);
    onScreen.delete(serial);
    cards.delete(serial);
    shown.delete(serial);
    el.remove();
  }

  // keyOf is what a card shows of a device (Corral.fields' inputs, less what only the device
  // page shows): equal keys, nothing to write.
  function keyOf(d) {
    return [d.state, d.draining ? 1 : 0, d.draining_since, d.draining_by, d.platform, d.model, d.node, (d.tags || []).join(' '), d.holder, d.held_since,
      d.lease_expires, d.queue_len, d.task ? d.task.tool : ''].join('\u0000');
  }

  // options keeps a filter's choices to the values the farm has, and the chosen one.
  function options(select, values, chosen) {
    const want = ['', ...values];
    if (chosen && !want.includes(chosen)) want.push(chosen);
    const have = [...select.options].map((o) => o.value);
    if (have.join('\n') !== want.join('\n')) {
      select.replaceChildren(...want.map((v) => new Option(v || 'any', v)));
    }
    select.value = chosen || '';
  }

  // render shows the grid g: fills the cards whose device changed, puts the cards in g's order
  // (moving only those out of place), and removes the cards of devices no longer in g. New cards
  // are filled before they join the wall, and a run of them joins in one insertion.
  function render(g) {
    const keep = new Set();
    let at = wall.firstElementChild; // where the next card belongs
    let fresh = null; // new cards waiting to join the wall before at
    for (const d of g.devices) {
      keep.add(d.serial);
      const el = cardOf(d.serial);
      const key = keyOf(d);
      if (shown.get(d.serial) !== key) { Corral.fill(el, d); shown.set(d.serial, key); }
      if (!el.isConnected) { (fresh ||= document.createDocumentFragment()).append(el); continue; }
      if (fresh) { wall.insertBefore(fresh, at); fresh = null; }
      if (at === el) at = el.nextElementSibling; else wall.insertBefore(el, at);
    }
    if (fresh) wall.insertBefore(fresh, at);
    for (const el of [...wall.children]) if (!keep.has(el.dataset.serial)) dropCard(el);
    options(form.elements.platform, g.platforms, g.filter.platform);
    options(form.elements.tag, g.tags, g.filter.tag);
    options(form.elements.node, g.nodes, g.filter.node);
    options(form.elements.state, g.states, g.filter.state);
    count.textContent = `${g.devices.length} of ${g.total} devices`;
    warn.textContent = g.leases_error || g.leases_hidden || '';
    warn.hidden = !warn.textContent;
    hidden.textContent = g.hidden || '';
    hidden.hidden = !g.hidden;
    empty.hidden = g.devices.length > 0 || Boolean(g.hidden);
    document.body.dataset.updated = new Date().toISOString();
    watch();
  }

  // poll asks for the grid, long-polling: naming the grid it has, it is answered when the grid
  // changes (or with 304 after a while), and asks again at once. A hidden page does not poll.
  let timer = 0;
  let seq = 0;
  let etag = '';
  let asked = '';
  let ctrl = null;
  async function poll() {
    clearTimeout(timer);
    if (ctrl) ctrl.abort();
    if (document.hidden) return;
    const mine = ++seq;
    const q = query();
    if (q.toString() !== asked) { asked = q.toString(); etag = ''; }
    if (etag) q.set('wait', '1');
    ctrl = new AbortController();
    let again;
    try {
      const r = await fetch('/console/api/devices?' + q, { credentials: 'same-origin', cache: 'no-store',
        headers: etag ? { 'If-None-Match': etag } : {}, signal: ctrl.signal });
      if (r.status === 401) { location.reload(); return; }
      if (r.status !== 304) {
        if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
        const g = await r.json();
        if (mine === seq) { etag = r.headers.get('ETag') || ''; render(g); }
      }
      again = tries.ok();
      Corral.unreachable(false);
    } catch (e) {
      if (e.name === 'AbortError') return; // a newer poll took over
      again = tries.failed();
      warn.textContent = `The gateway does not answer: ${e.message}; trying again in ${Corral.span(again)}.`;
      warn.hidden = false;
      etag = '';
      Corral.unreachable(true);
    }
    if (mine === seq) timer = setTimeout(poll, again);
  }
  document.addEventListener('visibilitychange', poll);

  form.addEventListener('change', () => {
    const q = query().toString();
    history.replaceState(null, '', q ? '/?' + q : '/');
    poll();
  });
  form.addEventListener('submit', (e) => { e.preventDefault(); poll(); });
  watch();
  poll();
})();
