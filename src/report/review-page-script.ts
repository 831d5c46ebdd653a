/**
 * The review page's only script (inlined, allowed by its hash in the page's Content-Security-Policy).
 * It reads the embedded JSON, and renders the cards that match the filter and search 200 at a
 * time as the reader scrolls, so a 50,000-change plan stays usable. It builds nodes with
 * `textContent` and properties only: no value from a sheet or the store is ever parsed as HTML.
 * The card markup must match `renderCard` in render-review-html.ts (the server renders the first
 * cards so the page shows them before this runs, and without JavaScript).
 */
export const REVIEW_PAGE_SCRIPT = `(function () {
  'use strict';
  var STEP = 200;
  var source = document.getElementById('review-data');
  var list = document.getElementById('cards');
  if (!source || !list) return;
  var data = JSON.parse(source.textContent || '{}');
  var cards = data.cards || [];
  var columns = data.columns || [];
  var shownText = document.getElementById('shown');
  var more = document.getElementById('more');
  var search = document.getElementById('search');
  var filter = 'all';
  var query = '';
  var matches = [];
  var shown = 0;
  var hay = new Array(cards.length);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function isImageUrl(url) {
    return /^https?:\\/\\//i.test(url);
  }
  function renderCard(c) {
    var card = el('article', 'card a-' + String(c.action).replace(/[^a-z0-9-]/gi, ''));
    card.setAttribute('data-action', c.action);
    var head = el('header');
    head.appendChild(el('span', 'badge', c.action));
    head.appendChild(el('h3', 'name', c.name));
    if (c.key) head.appendChild(el('code', 'key', c.key));
    card.appendChild(head);
    var images = c.images || [];
    if (images.length) {
      var thumbs = el('div', 'thumbs');
      for (var i = 0; i < images.length; i++) {
        var url = images[i];
        if (isImageUrl(url)) {
          var img = el('img');
          img.loading = 'lazy';
          img.decoding = 'async';
          img.referrerPolicy = 'no-referrer';
          img.width = 72;
          img.height = 72;
          img.alt = 'Image ' + (i + 1) + ' of ' + c.name;
          img.title = url;
          img.src = url;
          thumbs.appendChild(img);
        } else thumbs.appendChild(el('span', 'image-text', url));
      }
      card.appendChild(thumbs);
    }
    var rows = c.rows || [];
    if (rows.length) {
      var table = el('table');
      var tr = el('tr');
      for (var h = 0; h < columns.length; h++) tr.appendChild(el('th', '', columns[h].label));
      table.appendChild(el('thead')).appendChild(tr);
      var body = el('tbody');
      for (var r = 0; r < rows.length; r++) {
        var row = el('tr', rows[r].tone ? 't-' + rows[r].tone : '');
        var cells = rows[r].cells;
        for (var k = 0; k < cells.length; k++) {
          var col = columns[k];
          row.appendChild(el('td', col && col.role ? 'c-' + col.role : '', cells[k]));
        }
        body.appendChild(row);
      }
      table.appendChild(body);
      card.appendChild(table);
    }
    if (c.preview !== undefined && c.preview !== null) card.appendChild(el('pre', 'preview', c.preview));
    var notes = c.notes || [];
    if (notes.length) {
      var ul = el('ul', 'notes');
      for (var n = 0; n < notes.length; n++) ul.appendChild(el('li', '', notes[n]));
      card.appendChild(ul);
    }
    return card;
  }
  function text(i) {
    if (hay[i] === undefined) {
      var c = cards[i];
      var parts = [c.action, c.name, c.key].concat(c.notes || [], c.images || []);
      var rows = c.rows || [];
      for (var r = 0; r < rows.length; r++) parts.push(rows[r].cells.join(' '));
      if (c.preview) parts.push(c.preview);
      hay[i] = parts.join(' ').toLowerCase();
    }
    return hay[i];
  }
  function select() {
    matches = [];
    for (var i = 0; i < cards.length; i++) {
      if (filter !== 'all' && cards[i].action !== filter) continue;
      if (query && text(i).indexOf(query) < 0) continue;
      matches.push(i);
    }
  }
  function status() {
    if (shownText) shownText.textContent = 'Showing ' + shown + ' of ' + matches.length +
      (matches.length === cards.length ? '' : ' (' + cards.length + ' in all)');
    if (more) more.hidden = shown >= matches.length;
  }
  function next() {
    var end = Math.min(matches.length, shown + STEP);
    var fragment = document.createDocumentFragment();
    for (; shown < end; shown++) fragment.appendChild(renderCard(cards[matches[shown]]));
    list.appendChild(fragment);
    status();
  }
  function reset() {
    select();
    list.textContent = '';
    shown = 0;
    next();
  }

  // The server rendered the first cards of the unfiltered list: keep them.
  select();
  shown = Math.min(list.children.length, matches.length);
  status();

  var buttons = document.querySelectorAll('button[data-filter]');
  for (var b = 0; b < buttons.length; b++) {
    buttons[b].addEventListener('click', function (event) {
      var button = event.currentTarget;
      filter = button.getAttribute('data-filter') || 'all';
      for (var j = 0; j < buttons.length; j++) buttons[j].setAttribute('aria-pressed', String(buttons[j] === button));
      reset();
    });
  }
  if (search) {
    var timer = 0;
    search.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        query = search.value.trim().toLowerCase();
        reset();
      }, 120);
    });
  }
  if (more) {
    more.addEventListener('click', next);
    if ('IntersectionObserver' in window) {
      new IntersectionObserver(function (entries) {
        for (var e = 0; e < entries.length; e++) if (entries[e].isIntersecting && shown < matches.length) next();
      }, { rootMargin: '800px' }).observe(more);
    }
  }
  document.documentElement.setAttribute('data-ready', 'true');
  if (window.performance && performance.mark) performance.mark('review-ready');
})();
`;
