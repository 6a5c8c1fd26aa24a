/**
 * The dashboard's one script, served from a static route so the admin pages' CSP needs no
 * 'unsafe-inline' (docs/operations.md, "The task dashboard"). Plain ES2017 for any browser, no
 * build: it ages heartbeats and calls by the server's clock every second and follows the page's
 * SSE endpoint (`data-live`), swapping in the rows (list) or the page body (task) the server
 * renders for a changed task.
 */
export const DASHBOARD_SCRIPT = String.raw`(function () {
  'use strict';
  var body = document.body;
  var offset = Number(body.getAttribute('data-server-now')) - Date.now();
  var state = document.getElementById('live-state');

  function age(ms) {
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + ' s';
    if (ms < 3600000) return Math.floor(ms / 60000) + ' min';
    return (ms / 3600000).toFixed(1) + ' h';
  }

  function tick() {
    var now = Date.now() + offset;
    document.querySelectorAll('[data-since]').forEach(function (element) {
      var ms = Math.max(0, now - Number(element.getAttribute('data-since')));
      element.textContent = age(ms);
      var limit = element.getAttribute('data-stale-after');
      if (limit !== null) element.classList.toggle('stale', ms > Number(limit));
    });
  }
  setInterval(tick, 1000);

  function show(text, on) {
    if (!state) return;
    state.textContent = text;
    state.classList.toggle('on', on);
  }

  var live = body.getAttribute('data-live');
  if (!live || typeof EventSource === 'undefined') return;
  var source = new EventSource(live);
  source.onopen = function () { show('live', true); };
  source.onerror = function () { show('reconnecting…', false); };

  source.addEventListener('row', function (event) {
    var change = JSON.parse(event.data);
    var old = document.getElementById('task-' + change.id);
    if (!change.html) {
      if (old) old.remove();
      return;
    }
    var holder = document.createElement('tbody');
    holder.innerHTML = change.html;
    var row = holder.firstElementChild;
    if (old) old.replaceWith(row);
    else {
      var rows = document.getElementById('rows');
      if (rows) rows.prepend(row);
    }
    tick();
  });

  source.addEventListener('page', function (event) {
    var root = document.getElementById('live-root');
    if (root) root.innerHTML = JSON.parse(event.data).html;
    tick();
  });
})();
`;
