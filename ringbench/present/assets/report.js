(function () {
  // Charts: every .chart names the JSON figure it draws; data-rendered counts what was drawn.
  function draw() {
    document.querySelectorAll('.chart').forEach(function (el) {
      var fig = JSON.parse(document.getElementById(el.dataset.spec).textContent);
      Plotly.newPlot(el, fig.data, fig.layout, {displaylogo: false, responsive: true,
        modeBarButtonsToRemove: ['select2d', 'lasso2d'], toImageButtonOptions: {filename: el.id}})
        .then(function () {
          el.dataset.rendered = el.querySelectorAll('.scatterlayer .trace, .heatmaplayer .hm').length;
        })
        .catch(function (e) { console.error('chart ' + el.id + ': ' + e); });
    });
  }
  // Tables: click a heading to sort (numbers as numbers), a row's ▸ to show its raw repeats.
  function key(tb, i) {
    var cell = tb.rows[0].cells[i];
    var t = cell ? cell.textContent.trim() : '';
    var m = t.replace(/,/g, '').match(/^[×~]?(-?\d+(?:\.\d+)?(?:e-?\d+)?)/);
    return m ? parseFloat(m[1]) : t.toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('thead th').forEach(function (th, i) {
      th.addEventListener('click', function () {
        var up = th.getAttribute('aria-sort') !== 'ascending';
        table.querySelectorAll('thead th').forEach(function (o) { o.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
        var groups = table.tBodies.length > 1 ? Array.from(table.tBodies) : null;
        var items = groups || Array.from(table.tBodies[0].rows).map(function (r) { return {rows: [r], row: r}; });
        items.sort(function (a, b) {
          var x = key(a, i), y = key(b, i);
          var nx = typeof x === 'number', ny = typeof y === 'number';
          if (nx !== ny) return nx ? -1 : 1;  // text (failed, n/a) after numbers either way
          var c = nx ? x - y : String(x).localeCompare(String(y));
          return up ? c : -c;
        });
        if (groups) items.forEach(function (g) { table.appendChild(g); });
        else items.forEach(function (it) { table.tBodies[0].appendChild(it.row); });
      });
    });
  });
  document.querySelectorAll('table.cells tr.row').forEach(function (tr) {
    tr.querySelector('button').addEventListener('click', function () {
      var det = tr.nextElementSibling;
      det.hidden = !det.hidden;
      tr.parentElement.classList.toggle('open', !det.hidden);
    });
  });
  if (window.Plotly) draw(); else console.error('Plotly is missing from the report');
})();
