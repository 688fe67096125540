// The device page's actions, for viewers allowed them: the buttons of the Control panel, typing,
// and the live screen as a touchscreen (a click taps there, a drag swipes). Each action is a
// POST with the page's CSRF token; the gateway runs it as the MCP tool would. Actions go one
// after another, in the order they were made, as a finger's would.
'use strict';

(() => {
  const main = document.querySelector('main[data-page="device"]');
  const panel = document.getElementById('controls');
  if (!main || !panel) return;
  const base = `/console/devices/${encodeURIComponent(main.dataset.serial)}/actions/`;
  const csrf = document.querySelector('meta[name="corral-csrf"]').content;
  const can = new Set(panel.dataset.can.split(' ').filter(Boolean));
  const result = panel.querySelector('[data-result]');
  const heldText = panel.querySelector('[data-held-text]');
  const button = (name) => panel.querySelector(`button[data-action="${name}"]`);

  function show(ok, message) {
    result.textContent = message;
    result.dataset.outcome = ok ? 'ok' : 'error';
  }

  // busyText words a busy refusal for a person, in the browser's time zone: who has the
  // device, until when, and what to do (an agent's advice, wait_seconds, is no use here). A
  // task whose tool told how long it takes is worded by the gateway ("for about 12s more"):
  // no time of day to show, and the browser's clock may be off.
  function busyText(b, message) {
    const serial = main.dataset.serial;
    const at = (stamp) => new Date(stamp).toLocaleTimeString();
    const who = b.holder || 'someone';
    if (b.task && b.task_expected) return message;
    if (b.task) return `${serial} is busy: ${who} is running ${b.task} on it without a lease, until ${at(b.task_ends)} at the latest. Try again later.`;
    if (b.until) {
      return `${serial} is busy: held by ${who} until ${at(b.until)} (at the latest ${at(b.max)}); ${b.waiting} waiting. ` +
        `Try again later, or ask ${who} to release it.`;
    }
    return `${serial} is busy: ${who} is using it. Try again later, or ask them to release it.`;
  }

  // leaseText words an Acquire's answer in the browser's time zone (its message says UTC).
  function leaseText(l) {
    const at = (stamp) => new Date(stamp).toLocaleTimeString();
    return `This console holds ${main.dataset.serial} until ${at(l.until)} unless an action renews it (at the latest ${at(l.max)}). Release it when done.`;
  }

  // setPaused offers the gestures, or says why not (a halted rig, an offline device): the
  // gateway would refuse them. Stop, Release and the others stay.
  const pausedText = panel.querySelector('[data-paused-text]');
  function setPaused(why) {
    if (why) panel.dataset.paused = ''; else delete panel.dataset.paused;
    pausedText.textContent = why || '';
    pausedText.hidden = !why;
    for (const el of panel.querySelectorAll('[data-gesture]')) el.disabled = Boolean(why);
  }

  function setHeld(held) {
    panel.dataset.held = String(held);
    heldText.textContent = held ? 'This console holds the device: every action renews its lease.' : 'Not held by this console.';
    if (button('acquire')) button('acquire').hidden = held;
    if (button('release')) button('release').hidden = !held;
  }

  let queue = Promise.resolve();
  // act queues an action and resolves to the gateway's answer ({ok, message, held?}).
  function act(name, body) {
    const run = async () => {
      panel.dataset.pending = name;
      try {
        const r = await fetch(base + name, {
          method: 'POST', credentials: 'same-origin', cache: 'no-store',
          headers: { 'Content-Type': 'application/json', 'X-Corral-CSRF': csrf },
          body: JSON.stringify(body || {}),
        });
        if (r.status === 401) { location.reload(); return { ok: false }; }
        const a = await r.json().catch(() => ({ ok: false, message: `${r.status} ${r.statusText}` }));
        show(a.ok, a.busy ? busyText(a.busy, a.message) : a.lease ? leaseText(a.lease) : a.message);
        if (typeof a.held === 'boolean') setHeld(a.held);
        return a;
      } catch (e) {
        show(false, 'The gateway did not answer: ' + e.message);
        return { ok: false };
      } finally {
        delete panel.dataset.pending;
        panel.dataset.done = String(Number(panel.dataset.done || 0) + 1);
      }
    };
    const p = queue.then(run);
    queue = p;
    return p;
  }

  // Force release asks for a second click, within 4 s: it takes the device from its holder.
  let armed = null;
  for (const b of panel.querySelectorAll('button[data-action]')) {
    b.addEventListener('click', () => {
      const name = b.dataset.action;
      if (name === 'force_release' && armed !== b) {
        armed = b;
        b.textContent = 'Click again to revoke the lease';
        setTimeout(() => { if (armed === b) { armed = null; b.textContent = 'Force release'; } }, 4000);
        return;
      }
      if (name === 'force_release') { armed = null; b.textContent = 'Force release'; }
      act(name);
    });
  }

  const form = panel.querySelector('form[data-action="type"]');
  if (form) {
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const input = form.elements.text;
      const a = await act('type', { text: input.value });
      if (a.ok) input.value = '';
    });
  }

  // The page's facts, polled by device.js, say whether this session still holds the lease.
  document.addEventListener('corral:device', (ev) => {
    if (typeof ev.detail.held === 'boolean' && !panel.dataset.pending) setHeld(ev.detail.held);
    if (!ev.detail.status_hidden) setPaused(ev.detail.paused);
  });

  // The live screen as a touchscreen. A point is a fraction of the frame (0 to 1), which the
  // driver maps to the device's pixels; the image is letterboxed (object-fit: contain).
  const box = main.querySelector('.screen.big');
  const img = box && box.querySelector('img[data-screen]');
  if (!img || !(can.has('tap') || can.has('swipe'))) return;
  box.classList.add('touchable');
  img.draggable = false;

  function point(ev, clamp) {
    if (img.hidden || !img.naturalWidth) return null;
    const r = img.getBoundingClientRect();
    const s = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
    const w = img.naturalWidth * s, h = img.naturalHeight * s;
    let x = (ev.clientX - r.left - (r.width - w) / 2) / w;
    let y = (ev.clientY - r.top - (r.height - h) / 2) / h;
    if (clamp) { x = Math.min(1, Math.max(0, x)); y = Math.min(1, Math.max(0, y)); }
    if (!(x >= 0 && x <= 1 && y >= 0 && y <= 1)) return null;
    return { x: Math.round(x * 10000) / 10000, y: Math.round(y * 10000) / 10000, px: ev.clientX, py: ev.clientY, t: performance.now() };
  }

  // mark shows, for a moment, where a touch went.
  function mark(p, cls) {
    const r = box.getBoundingClientRect();
    const dot = document.createElement('span');
    dot.className = 'touch ' + cls;
    dot.style.left = `${p.px - r.left}px`;
    dot.style.top = `${p.py - r.top}px`;
    box.appendChild(dot);
    setTimeout(() => dot.remove(), 800);
  }

  let down = null;
  box.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 || 'paused' in panel.dataset) return;
    down = point(ev, false);
    if (!down) return;
    box.setPointerCapture(ev.pointerId);
    ev.preventDefault();
  });
  box.addEventListener('pointercancel', () => { down = null; });
  box.addEventListener('pointerup', (ev) => {
    const from = down;
    down = null;
    if (!from) return;
    const to = point(ev, true) || from;
    if (Math.hypot(to.px - from.px, to.py - from.py) < 8) {
      if (!can.has('tap')) return;
      mark(from, 'tap');
      act('tap', { x: from.x, y: from.y });
      return;
    }
    if (!can.has('swipe')) return;
    mark(from, 'from');
    mark(to, 'to');
    const duration = Math.min(3, Math.max(0.1, (to.t - from.t) / 1000));
    act('swipe', { from_x: from.x, from_y: from.y, to_x: to.x, to_y: to.y, duration: Math.round(duration * 1000) / 1000 });
  });
})();
