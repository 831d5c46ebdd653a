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
  // An amount or a number: its cell never breaks inside it (render-review-html's AMOUNT).
  var AMOUNT = /^[+-]?[\\d,]*\\d(\\.\\d+)?( [A-Z]{3})?$/;
  var STEP = 200;
  var PAGE = 100;

  // Calls apply(query) 120 ms after the last keystroke in a search box (lower-cased, trimmed).
  function onSearch(box, apply) {
    if (!box) return;
    var timer = 0;
    box.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        apply(box.value.trim().toLowerCase());
      }, 120);
    });
  }

  /**
   * A many-row plan's table: filters by the columns' roles (goes to zero: before > 0 and after 0;
   * decrease / increase: the delta's sign; biggest changes: by |delta|, largest first; failed and
   * pending: the outcome), a search over the text cells, sort by any column (click again to reverse),
   * and pages of PAGE rows. Works on row indices, so 100,000 rows sort and filter at once.
   */
  function bigTable(table) {
    var rows = table.rows || [];
    var cols = table.columns || [];
    var body = document.getElementById('trows');
    var shownText = document.getElementById('tshown');
    var prev = document.getElementById('tprev');
    var nextButton = document.getElementById('tnext');
    var search = document.getElementById('tsearch');
    if (!body) return;
    function col(role) {
      for (var i = 0; i < cols.length; i++) if (cols[i].role === role) return i;
      return -1;
    }
    var before = col('before'), after = col('after'), delta = col('delta'), outcome = col('outcome');
    var view = [];
    var page = 0;
    var tfilter = 'all';
    var query = '';
    var sortBy = -1;
    var sortDir = 1;
    var hay = null;
    function matches(r) {
      switch (tfilter) {
        case 'zero': return r[after] === 0 && r[before] > 0;
        case 'decrease': return r[delta] < 0;
        case 'increase': return r[delta] > 0;
        case 'biggest': return r[delta] !== 0;
        case 'failed': return /^failed/.test(String(r[outcome]));
        case 'pending': return /^pending/.test(String(r[outcome]));
        default: return true;
      }
    }
    function textOf(i) {
      if (!hay) {
        hay = new Array(rows.length);
        for (var j = 0; j < rows.length; j++) hay[j] = rows[j].join(' ').toLowerCase();
      }
      return hay[i];
    }
    function compute() {
      view = [];
      for (var i = 0; i < rows.length; i++) {
        if (!matches(rows[i])) continue;
        if (query && textOf(i).indexOf(query) < 0) continue;
        view.push(i);
      }
      var by = sortBy, dir = sortDir;
      if (by < 0 && tfilter === 'biggest') {
        view.sort(function (a, b) { return Math.abs(rows[b][delta]) - Math.abs(rows[a][delta]) || a - b; });
      } else if (by >= 0) {
        view.sort(function (a, b) {
          var x = rows[a][by], y = rows[b][by];
          var c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
          return c * dir || a - b;
        });
      }
      page = 0;
    }
    function draw() {
      var start = page * PAGE;
      var end = Math.min(view.length, start + PAGE);
      var fragment = document.createDocumentFragment();
      for (var v = start; v < end; v++) {
        var r = rows[view[v]];
        var tr = el('tr');
        for (var k = 0; k < r.length; k++) {
          var role = cols[k] && cols[k].role;
          var cls = role ? 'c-' + role : '';
          var shown = role === 'delta' && typeof r[k] === 'number' && r[k] > 0 ? '+' + r[k] : r[k];
          if (role === 'outcome') cls += ' ' + outcomeClass(String(r[k]));
          else if (AMOUNT.test(String(shown))) cls += (cls ? ' ' : '') + 'amount';
          tr.appendChild(el('td', cls, shown));
        }
        fragment.appendChild(tr);
      }
      body.textContent = '';
      body.appendChild(fragment);
      if (shownText) shownText.textContent = view.length === 0 ? 'No rows match' :
        'Rows ' + (start + 1) + '–' + end + ' of ' + view.length.toLocaleString('en-US') +
        (view.length === rows.length ? '' : ' (' + rows.length.toLocaleString('en-US') + ' in all)');
      if (prev) prev.disabled = page === 0;
      if (nextButton) nextButton.disabled = end >= view.length;
    }
    var fbuttons = document.querySelectorAll('button[data-tfilter]');
    for (var b = 0; b < fbuttons.length; b++) {
      fbuttons[b].addEventListener('click', function (event) {
        var button = event.currentTarget;
        tfilter = button.getAttribute('data-tfilter') || 'all';
        for (var j = 0; j < fbuttons.length; j++) fbuttons[j].setAttribute('aria-pressed', String(fbuttons[j] === button));
        compute();
        draw();
      });
    }
    var sorts = document.querySelectorAll('button[data-sort]');
    for (var s = 0; s < sorts.length; s++) {
      sorts[s].addEventListener('click', function (event) {
        var button = event.currentTarget;
        var by = Number(button.getAttribute('data-sort'));
        sortDir = by === sortBy ? -sortDir : 1;
        sortBy = by;
        for (var j = 0; j < sorts.length; j++) sorts[j].removeAttribute('aria-sort');
        button.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
        compute();
        draw();
      });
    }
    onSearch(search, function (q) {
      query = q;
      compute();
      draw();
    });
    if (prev) prev.addEventListener('click', function () { if (page > 0) { page--; draw(); } });
    if (nextButton) nextButton.addEventListener('click', function () { if ((page + 1) * PAGE < view.length) { page++; draw(); } });
    // The server rendered the first page of the unfiltered, unsorted rows: keep it.
    for (var i = 0; i < rows.length; i++) view.push(i);
  }
  var source = document.getElementById('review-data');
  if (!source) return;
  var data = JSON.parse(source.textContent || '{}');
  if (data.table) bigTable(data.table);
  var list = document.getElementById('cards');
  if (!list) {
    document.documentElement.setAttribute('data-ready', 'true');
    if (window.performance && performance.mark) performance.mark('review-ready');
    return;
  }
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
  function noteClass(n) {
    if (/^(error|failed|refused)\b/i.test(n)) return 'n-error';
    if (/^warning\b/i.test(n)) return 'n-warning';
    return 'n-note';
  }
  function outcomeClass(o) {
    var m = /^[a-z]+/i.exec(o);
    return 'o-' + (m ? m[0].toLowerCase() : 'other');
  }
  function renderCard(c) {
    var card = el('article', 'card a-' + String(c.action).replace(/[^a-z0-9-]/gi, '') + (c.refused ? ' refused' : ''));
    card.setAttribute('data-action', c.action);
    var head = el('header');
    head.appendChild(el('span', 'badge', c.action));
    if (c.refused) head.appendChild(el('span', 'badge refused-badge', 'refused'));
    if (c.outcome) head.appendChild(el('span', 'badge outcome ' + outcomeClass(c.outcome), c.outcome));
    head.appendChild(el('h3', 'name', c.name));
    if (c.key) head.appendChild(el('code', 'key', c.key));
    card.appendChild(head);
    if (c.refused) card.appendChild(el('p', 'refused-reason', 'Refused: ' + c.refused));
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
          var cellCls = col && col.role ? 'c-' + col.role : '';
          if (AMOUNT.test(String(cells[k]))) cellCls += (cellCls ? ' ' : '') + 'amount';
          row.appendChild(el('td', cellCls, cells[k]));
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
      for (var n = 0; n < notes.length; n++) ul.appendChild(el('li', noteClass(notes[n]), notes[n]));
      card.appendChild(ul);
    }
    return card;
  }
  function text(i) {
    if (hay[i] === undefined) {
      var c = cards[i];
      var parts = [c.action, c.name, c.key, c.refused || '', c.outcome || ''].concat(c.notes || [], c.images || []);
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
      if (filter === 'refused' ? !cards[i].refused : filter !== 'all' && cards[i].action !== filter) continue;
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
  onSearch(search, function (q) {
    query = q;
    reset();
  });
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
