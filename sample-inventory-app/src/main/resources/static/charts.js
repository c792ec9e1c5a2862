// The page's charts, drawn with uPlot. What each chart plots is also kept in window.distlockCharts
// (and in data attributes of the chart's element), so that a browser test can check the drawing.
'use strict';

const COLORS = {
  LOCK: '#2563eb', GUARD: '#0b7a3e', OPTIMISTIC: '#d97706', FENCED: '#7c3aed', UNGUARDED: '#c62828',
  LOCK_ONLY: '#8d6e63',
};

const PERCENTILES = [
  { label: 'p50', key: 'p50Millis' },
  { label: 'p90', key: 'p90Millis' },
  { label: 'p99', key: 'p99Millis' },
  { label: 'max', key: 'maxMillis' },
];

window.distlockCharts = { stock: { series: {} }, latency: { series: {} } };

const plots = {};

function chartWidth(element) {
  return Math.max(320, element.clientWidth || 520);
}

function draw(id, options, data) {
  const element = document.getElementById(id);
  const seriesCount = options.series.length - 1;
  const existing = plots[id];
  if (existing && existing.series.length - 1 === seriesCount && existing.distlockKey === options.distlockKey) {
    existing.setData(data);
    return;
  }
  if (existing) {
    existing.destroy();
  }
  options.width = chartWidth(element);
  const plot = new uPlot(options, data, element);
  plot.distlockKey = options.distlockKey;
  plots[id] = plot;
}

// timeline: {batch, series: [{strategy, initialStock, samples: [[millis, unitsLeft], ...]}]}
function drawStock(timeline) {
  const series = (timeline && timeline.series) || [];
  if (series.length === 0) {
    return;
  }
  const tables = series.map((s) => [s.samples.map((p) => p[0]), s.samples.map((p) => p[1])]);
  const data = uPlot.join(tables);
  const state = { series: {}, min: {}, batch: timeline.batch };
  series.forEach((s) => {
    state.series[s.strategy] = s.samples.length;
    state.min[s.strategy] = Math.min(...s.samples.map((p) => p[1]));
  });
  window.distlockCharts.stock = state;
  const element = document.getElementById('stock-chart');
  element.dataset.series = series.length;
  element.dataset.points = series.map((s) => s.strategy + ':' + s.samples.length).join(',');
  draw('stock-chart', {
    distlockKey: series.map((s) => s.strategy).join(','),
    height: 300,
    scales: { x: { time: false } },
    axes: [{ label: 'ms since the buyers were released' }, { label: 'units left' }],
    series: [{ label: 'ms' }].concat(series.map((s) => ({
      label: s.strategy, stroke: COLORS[s.strategy] || '#333', width: 2, spanGaps: true,
      points: { show: false },
    }))),
    hooks: {
      // A line at zero: below it, more was sold than there was.
      draw: [(u) => {
        const y = u.valToPos(0, 'y', true);
        const ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = '#9aa5b1';
        ctx.setLineDash([4, 4]);
        ctx.beginPath();
        ctx.moveTo(u.bbox.left, y);
        ctx.lineTo(u.bbox.left + u.bbox.width, y);
        ctx.stroke();
        ctx.restore();
      }],
    },
  }, data);
}

// reports: the flash-sale reports of the latest request
function drawLatency(reports) {
  if (!reports || reports.length === 0) {
    return;
  }
  const x = PERCENTILES.map((p, i) => i);
  const group = reports.length;
  // Grouped bars: at every percentile each strategy takes its own slot, offset from the tick.
  const tables = reports.map((r, j) => [
    x.map((i) => i + (j - (group - 1) / 2) * (0.8 / group)),
    PERCENTILES.map((p) => r[p.key]),
  ]);
  const data = uPlot.join(tables);
  const state = { series: {} };
  reports.forEach((r) => { state.series[r.strategy] = PERCENTILES.map((p) => r[p.key]); });
  window.distlockCharts.latency = state;
  const element = document.getElementById('latency-chart');
  element.dataset.series = reports.length;
  // Each bar as wide as its slot: the plot area (the chart less its axes) shared by the groups.
  const barWidth = Math.max(2, Math.floor(((chartWidth(element) - 80) * 0.8) / (PERCENTILES.length * group)));
  draw('latency-chart', {
    distlockKey: reports.map((r) => r.strategy).join(','),
    height: 300,
    legend: { live: false },
    scales: { x: { time: false, range: [-0.5, PERCENTILES.length - 0.5] } },
    axes: [
      { label: 'percentile', splits: () => x, values: (u, splits) => splits.map((v) => PERCENTILES[v].label) },
      { label: 'ms' },
    ],
    series: [{ label: 'percentile' }].concat(reports.map((r) => ({
      label: r.strategy, stroke: COLORS[r.strategy] || '#333', fill: (COLORS[r.strategy] || '#333') + 'cc',
      width: 1, paths: uPlot.paths.bars({ size: [1, barWidth] }), points: { show: false },
    }))),
  }, data);
}

window.distlockDrawStock = drawStock;
window.distlockDrawLatency = drawLatency;
