// The device page: a larger live screen, the device's facts polled twice a second, and its
// task timeline, whose rows the gateway renders (the page swaps them in, keeping open the
// agent steps someone opened).
'use strict';

(() => {
  const main = document.querySelector('main[data-page="device"]');
  const serial = main.dataset.serial;
  const path = encodeURIComponent(serial);
  const gone = document.getElementById('gone');
  const warn = document.getElementById('warn');
  const rows = document.getElementById('timeline');
  const screens = new Corral.Screens(720, 4);
  screens.set([serial]);

  // stopped says who stopped a halted rig and when, in the browser's time zone (halt.go).
  const stopped = document.createElement('p');
  stopped.className = 'warn';
  stopped.dataset.stopped = '';
  stopped.hidden = true;
  warn.after(stopped);
  function showStopped(s) {
    stopped.textContent = s ? `Stopped by ${s.by} at ${s.at ? new Date(s.at).toLocaleString() : 'unknown time'}` : '';
    stopped.hidden = !s;
  }

  // While the gateway does not answer, the polls try less and less often (Corral.Backoff).
  const factsTries = new Corral.Backoff(500, 1000, 5000);
  const timelineTries = new Corral.Backoff(2000, 4000, 10000);

  async function facts() {
    let wait;
    try {
      const d = await Corral.getJSON(`/console/api/devices/${path}?tasks=0`);
      if (!d.status_hidden) Corral.fill(main, d.device); // else the token may not read it
      showStopped(d.status_hidden ? null : d.device.stopped);
      document.dispatchEvent(new CustomEvent('corral:device', { detail: d })); // actions.js
      gone.hidden = true;
      warn.textContent = d.leases_error || d.leases_hidden || '';
      warn.hidden = !warn.textContent;
      document.body.dataset.updated = new Date().toISOString();
      wait = factsTries.ok();
      Corral.unreachable(false);
    } catch (e) {
      if (e.status === 404) { // the gateway answered: the device is gone
        wait = factsTries.ok();
        gone.hidden = false;
      } else {
        wait = factsTries.failed();
        if (e.message !== 'logged out') { // as the grid says it
          warn.textContent = `The gateway does not answer: ${e.message}; trying again in ${Corral.span(wait)}.`;
          warn.hidden = false;
          Corral.unreachable(true);
        }
      }
    }
    setTimeout(facts, wait);
  }

  let last = null; // the rows as the gateway last sent them
  async function timeline() {
    let wait;
    try {
      const r = await fetch(`/console/devices/${path}/timeline`, { credentials: 'same-origin', cache: 'no-store' });
      if (r.status === 401) { location.reload(); return; }
      wait = r.status >= 500 ? timelineTries.failed() : timelineTries.ok(); // ok() only after an answer: it resets the back-off
      if (r.ok) {
        const html = await r.text();
        if (html !== last) {
          const open = new Set([...rows.querySelectorAll('details[open]')].map((d) => d.dataset.task));
          rows.innerHTML = html;
          for (const d of rows.querySelectorAll('details')) if (open.has(d.dataset.task)) d.open = true;
          last = html;
          Corral.tick();
        }
      }
    } catch (e) { wait = timelineTries.failed(); } // the next round tries again
    setTimeout(timeline, wait);
  }

  facts();
  if (main.dataset.timeline !== 'false') setTimeout(timeline, 2000); // else the token may not read it
})();
