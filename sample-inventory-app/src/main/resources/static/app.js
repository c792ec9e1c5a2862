// The inventory page: polls products, lock metrics and the locks held now, runs flash sales, and
// hands the sales' figures to the charts (charts.js).
'use strict';

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) {
    td.className = className;
  }
  return td;
}

async function getJson(url) {
  const response = await fetch(url);
  return response.ok ? response.json() : null;
}

async function metric(name, statistic) {
  const body = await getJson('/actuator/metrics/' + name);
  if (!body) {
    return 0;
  }
  const measurement = body.measurements.find((m) => m.statistic === statistic);
  return measurement ? measurement.value : 0;
}

async function refresh() {
  const products = await getJson('/api/products');
  const rows = document.querySelector('#products tbody');
  rows.replaceChildren(...(products || []).map((p) => {
    const tr = document.createElement('tr');
    tr.append(cell(p.id), cell(p.name), cell(p.stock, p.stock < 0 ? 'bad' : null), cell(p.version), cell(p.lastFence));
    return tr;
  }));
  document.getElementById('acquired').firstChild.textContent = Math.round(await metric('distlock.acquire', 'COUNT'));
  document.getElementById('active').firstChild.textContent = Math.round(await metric('distlock.active', 'ACTIVE_TASKS'));
  const orders = await getJson('/api/orders/count');
  document.getElementById('orders').firstChild.textContent = orders ? orders.orders : 0;
}

async function refreshHeldLocks() {
  const locks = await getJson('/actuator/locks');
  const held = (locks && locks.held) || [];
  const rows = document.querySelector('#held tbody');
  if (held.length === 0) {
    const tr = document.createElement('tr');
    tr.append(cell('no lock held right now', 'empty'));
    tr.firstChild.colSpan = 5;
    rows.replaceChildren(tr);
    return;
  }
  rows.replaceChildren(...held.map((lock) => {
    const tr = document.createElement('tr');
    tr.className = 'held';
    tr.append(cell(lock.name), cell(lock.key), cell(lock.fencingToken), cell(new Date(lock.since).toLocaleTimeString()),
      cell(lock.leaseRemaining));
    return tr;
  }));
  const latest = Math.max(...held.map((lock) => lock.fencingToken));
  document.getElementById('last-token').textContent = latest;
}

async function refreshTimeline() {
  window.distlockDrawStock(await getJson('/api/flash-sales/timeline'));
}

async function startSale() {
  const button = document.getElementById('start');
  const status = document.getElementById('status');
  button.disabled = true;
  status.textContent = 'selling...';
  // While the sale runs, the chart follows the units left, and the held locks table what is held.
  const live = setInterval(() => { refreshTimeline(); refreshHeldLocks(); }, 200);
  try {
    const response = await fetch('/api/flash-sales', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        strategy: document.getElementById('strategy').value,
        buyers: Number(document.getElementById('buyers').value),
        stock: Number(document.getElementById('stock').value),
        loseLocks: document.getElementById('lose-locks').checked,
      }),
    });
    const reports = await response.json();
    const rows = document.querySelector('#reports tbody');
    for (const r of reports) {
      const tr = document.createElement('tr');
      tr.className = 'report';
      tr.append(cell(r.strategy), cell(r.sold), cell(r.oversold, r.oversold > 0 ? 'bad' : 'ok'),
        cell(r.finalStock), cell(r.rejected), cell(r.errors), cell(r.durationMillis + ' ms'),
        cell(r.p50Millis.toFixed(1) + ' ms'), cell(r.p99Millis.toFixed(1) + ' ms'), cell(r.lockAcquisitions),
        cell(r.lockLosses), cell(r.staleWritesRejected, r.staleWritesRejected > 0 ? 'ok' : null));
      rows.prepend(tr);
    }
    window.distlockDrawLatency(reports);
    await refreshTimeline();
    status.textContent = 'done';
  } catch (error) {
    status.textContent = 'failed: ' + error;
  } finally {
    clearInterval(live);
    button.disabled = false;
    refresh();
    refreshHeldLocks();
  }
}

document.getElementById('start').addEventListener('click', startSale);
refresh();
refreshHeldLocks();
setInterval(refresh, 1000);
setInterval(refreshHeldLocks, 1000);
