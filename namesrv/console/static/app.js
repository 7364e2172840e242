// RocketMQ console: a hash-routed page per view, built with DOM calls only.
// Every value from the API is set as text (textContent / text nodes), never
// parsed as HTML.
"use strict";

const view = document.getElementById("view");
const statusEl = document.getElementById("status");
let timer = null; // the current page's next chart refresh
let seq = 0;      // render generation: a stale fetch never draws

// el builds an element; string children become text nodes.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function getJSON(path) {
  const r = await fetch(path, { headers: { Accept: "application/json" } });
  const v = await r.json();
  if (!r.ok) throw new Error(v && v.error ? v.error : r.status + " " + r.statusText);
  return v;
}

const fmt = {
  int: (v) => (v === undefined || v === null ? "" : Number(v).toLocaleString("en-US")),
  tps: (v) => Number(v || 0).toFixed(2),
  pct: (v) => (Number(v || 0) * 100).toFixed(1) + " %",
  time: (ms) => (ms > 0 ? new Date(Number(ms)).toISOString().replace("T", " ").replace("Z", "") : ""),
};

// table renders rows; a column is {key, label, num, fmt, link, cls}.
function table(cols, rows, rowAttrs) {
  const head = el("tr", {}, cols.map((c) => el("th", {}, c.label)));
  const body = rows.map((r) =>
    el("tr", rowAttrs ? rowAttrs(r) : {}, cols.map((c) => {
      const v = c.fmt ? c.fmt(r[c.key], r) : r[c.key];
      const text = v === undefined || v === null ? "" : String(v);
      const content = c.link ? el("a", { href: c.link(r) }, text) : text;
      return el("td", { class: [c.num ? "num" : "", c.cls ? c.cls(r) : ""].join(" ").trim() || null, "data-col": c.key }, content);
    })));
  if (rows.length === 0) body.push(el("tr", {}, el("td", { colspan: cols.length, class: "muted" }, "none")));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, body));
}

function card(label, value, key) {
  return el("div", { class: "card" }, el("div", { class: "label" }, label), el("div", { class: "value", "data-field": key }, value));
}

// chart draws lines of [{label, color, values}] against times on a canvas.
function chart(title, times, lines) {
  const w = 560, h = 200, pad = { l: 56, r: 10, t: 10, b: 22 };
  const c = el("canvas", { width: w, height: h });
  const g = c.getContext("2d");
  const all = lines.flatMap((l) => l.values).filter((v) => Number.isFinite(v));
  const top = Math.max(1, ...all) * 1.1;
  g.font = "11px system-ui, sans-serif";
  g.strokeStyle = "#d9dee6";
  g.fillStyle = "#4a5568";
  for (let i = 0; i <= 4; i++) {
    const y = pad.t + ((h - pad.t - pad.b) * i) / 4;
    g.beginPath(); g.moveTo(pad.l, y); g.lineTo(w - pad.r, y); g.stroke();
    g.fillText((top * (1 - i / 4)).toFixed(top < 10 ? 2 : 0), 4, y + 4);
  }
  if (times.length > 0) {
    g.fillText(fmt.time(times[0]).slice(11, 19), pad.l, h - 6);
    g.fillText(fmt.time(times[times.length - 1]).slice(11, 19), w - pad.r - 50, h - 6);
  }
  const x = (i) => pad.l + (times.length < 2 ? 0 : ((w - pad.l - pad.r) * i) / (times.length - 1));
  const y = (v) => h - pad.b - ((h - pad.t - pad.b) * v) / top;
  let lx = pad.l + 6;
  for (const l of lines) {
    g.strokeStyle = l.color; g.lineWidth = 2; g.beginPath();
    l.values.forEach((v, i) => (i === 0 ? g.moveTo(x(i), y(v)) : g.lineTo(x(i), y(v))));
    g.stroke();
    g.fillStyle = l.color; g.fillText(l.label, lx, pad.t + 12); lx += g.measureText(l.label).width + 16;
  }
  return el("div", { class: "chart" }, el("div", { class: "title" }, title), c);
}

// liveCharts redraws the charts holder at the server's sampling interval.
function liveCharts(holder, make) {
  const my = seq;
  const draw = async () => {
    let every = 5000;
    try {
      const s = await getJSON("/api/series");
      every = Math.max(1000, s.intervalMs || every);
      holder.replaceChildren(...make(s.points.map((p) => p.t), s.points));
    } catch (e) {
      holder.replaceChildren(el("p", { class: "error" }, "charts: " + e.message));
    }
    if (my === seq) timer = setTimeout(draw, every);
  };
  draw();
}

const pages = {
  async cluster() {
    const c = await getJSON("/api/cluster");
    const charts = el("div", { class: "charts" });
    liveCharts(charts, (t, p) => [
      chart("Put / get TPS (all brokers)", t, [
        { label: "put", color: "#2b6cb0", values: p.map((x) => x.putTps) },
        { label: "get", color: "#dd6b20", values: p.map((x) => x.getTps) },
      ]),
      chart("Consumer lag (all groups)", t, [{ label: "lag", color: "#b3261e", values: p.map((x) => x.lag) }]),
    ]);
    return [
      el("h1", {}, "Cluster"),
      el("p", { class: "muted" }, "Name server: " + c.namesrv.join(";")),
      table([
        { key: "cluster", label: "Cluster" }, { key: "brokerName", label: "Broker" },
        { key: "brokerId", label: "ID", num: true }, { key: "role", label: "Role" },
        { key: "addr", label: "Address" }, { key: "version", label: "Version" },
        { key: "putTps", label: "Put TPS", num: true, fmt: fmt.tps },
        { key: "getTps", label: "Get TPS", num: true, fmt: fmt.tps },
        { key: "msgPutTotalToday", label: "Put today", num: true, fmt: fmt.int },
        { key: "msgGetTotalToday", label: "Get today", num: true, fmt: fmt.int },
        { key: "diskRatio", label: "Disk used", num: true, fmt: fmt.pct },
        { key: "error", label: "", cls: () => "error" },
      ], c.brokers, (b) => ({ "data-broker": b.brokerName + ":" + b.brokerId })),
      el("h2", {}, "Live"), charts,
    ];
  },

  async topics() {
    const v = await getJSON("/api/topics");
    const filter = el("input", { type: "search", placeholder: "filter" });
    const sys = el("input", { type: "checkbox" });
    const holder = el("div");
    const draw = () => {
      const f = filter.value.toLowerCase();
      const rows = v.topics.filter((t) => (sys.checked || !t.system) && t.name.toLowerCase().includes(f));
      holder.replaceChildren(table([
        { key: "name", label: "Topic", link: (t) => "#topic/" + encodeURIComponent(t.name) },
        { key: "system", label: "Kind", fmt: (s) => (s ? "system" : "normal") },
      ], rows, (t) => ({ "data-topic": t.name, class: t.system ? "system" : null })));
    };
    filter.addEventListener("input", draw);
    sys.addEventListener("change", draw);
    draw();
    return [el("h1", {}, "Topics"), el("div", { class: "toolbar" }, filter, el("label", {}, sys, " show system topics")), holder];
  },

  async topic(name) {
    const t = await getJSON("/api/topic?name=" + encodeURIComponent(name));
    return [
      el("h1", {}, "Topic ", el("span", { "data-field": "topic" }, t.topic)),
      el("div", { class: "summary" }, card("Messages", fmt.int(t.totalMessages), "totalMessages"), card("Queues", fmt.int(t.queues.length), "queueCount")),
      t.statsError ? el("p", { class: "error" }, t.statsError) : null,
      el("h2", {}, "Queues"),
      table([
        { key: "brokerName", label: "Broker" }, { key: "queueId", label: "Queue", num: true },
        { key: "minOffset", label: "Min offset", num: true, fmt: fmt.int },
        { key: "maxOffset", label: "Max offset", num: true, fmt: fmt.int },
        { key: "messages", label: "Messages", num: true, fmt: fmt.int },
        { key: "lastUpdateTimestamp", label: "Last update (UTC)", fmt: fmt.time },
      ], t.queues, (q) => ({ "data-queue": q.brokerName + ":" + q.queueId })),
      el("h2", {}, "Route"),
      table([
        { key: "brokerName", label: "Broker" }, { key: "readQueueNums", label: "Read queues", num: true },
        { key: "writeQueueNums", label: "Write queues", num: true }, { key: "perm", label: "Perm", fmt: perm },
      ], t.queueDatas),
      table([
        { key: "cluster", label: "Cluster" }, { key: "brokerName", label: "Broker" },
        { key: "addrs", label: "Addresses", fmt: (a) => Object.entries(a || {}).map(([id, ad]) => id + "=" + ad).join(", ") },
      ], t.brokers),
    ];
  },

  async groups() {
    const v = await getJSON("/api/groups");
    const sys = el("input", { type: "checkbox" });
    const holder = el("div");
    const draw = () => holder.replaceChildren(table([
      { key: "name", label: "Group", link: (g) => "#group/" + encodeURIComponent(g.name) },
      { key: "members", label: "Members", num: true },
      { key: "totalLag", label: "Lag", num: true, fmt: fmt.int, cls: (g) => (g.totalLag > 0 ? "lag-high" : "") },
      { key: "consumeTps", label: "Consume TPS", num: true, fmt: fmt.tps },
      { key: "error", label: "", cls: () => "error" },
    ], v.groups.filter((g) => sys.checked || !g.system), (g) => ({ "data-group": g.name, class: g.system ? "system" : null })));
    sys.addEventListener("change", draw);
    draw();
    const charts = el("div", { class: "charts" });
    liveCharts(charts, (t, p) => [chart("Consumer lag (all groups)", t, [{ label: "lag", color: "#b3261e", values: p.map((x) => x.lag) }])]);
    return [el("h1", {}, "Consumer groups"), el("div", { class: "toolbar" }, el("label", {}, sys, " show system groups")), holder, el("h2", {}, "Live"), charts];
  },

  async group(name) {
    const g = await getJSON("/api/group?name=" + encodeURIComponent(name));
    const charts = el("div", { class: "charts" });
    liveCharts(charts, (t, p) => [chart("Lag of " + name, t, [{ label: "lag", color: "#b3261e", values: p.map((x) => (x.groupLag || {})[name] || 0) }])]);
    return [
      el("h1", {}, "Consumer group ", el("span", { "data-field": "group" }, g.group)),
      el("div", { class: "summary" },
        card("Total lag", fmt.int(g.totalLag), "totalLag"), card("Consume TPS", fmt.tps(g.consumeTps), "consumeTps"),
        card("Members", fmt.int(g.members.length), "members"),
        card("Model", [g.consumeType, g.messageModel].filter(Boolean).join(" / ") || "offline", "model")),
      g.statsError ? el("p", { class: "error" }, g.statsError) : null,
      el("h2", {}, "Queues"),
      table([
        { key: "topic", label: "Topic" }, { key: "brokerName", label: "Broker" },
        { key: "queueId", label: "Queue", num: true },
        { key: "brokerOffset", label: "Broker offset", num: true, fmt: fmt.int },
        { key: "consumerOffset", label: "Consumer offset", num: true, fmt: fmt.int },
        { key: "lag", label: "Lag", num: true, fmt: fmt.int, cls: (q) => (q.lag > 0 ? "lag-high" : "") },
        { key: "lastTimestamp", label: "Last consumed (UTC)", fmt: fmt.time },
      ], g.queues, (q) => ({ "data-queue": q.topic + ":" + q.brokerName + ":" + q.queueId })),
      el("h2", {}, "Members"),
      table([
        { key: "clientId", label: "Client" }, { key: "clientAddr", label: "Address" },
        { key: "language", label: "Language" }, { key: "version", label: "Version", num: true },
      ], g.members),
      el("h2", {}, "Subscriptions"),
      table([{ key: "topic", label: "Topic" }, { key: "expression", label: "Expression" }, { key: "type", label: "Type" }], g.subscriptions),
      el("h2", {}, "Live"), charts,
    ];
  },

  async message(_, params) {
    const topic = el("input", { name: "topic", value: params.get("topic") || "", required: true });
    const id = el("input", { name: "id", value: params.get("id") || "", placeholder: "offsetMsgId or client id" });
    const key = el("input", { name: "key", value: params.get("key") || "", placeholder: "message key" });
    const form = el("form", { class: "lookup", onsubmit: (ev) => {
      ev.preventDefault();
      const q = new URLSearchParams({ topic: topic.value });
      if (id.value) q.set("id", id.value); else q.set("key", key.value);
      location.hash = "#message?" + q.toString();
    } }, el("label", {}, "Topic", topic), el("label", {}, "Message id", id), el("label", {}, "or key", key), el("button", { type: "submit" }, "Look up"));
    const out = [el("h1", {}, "Message"), form];
    if (!params.get("topic") || !(params.get("id") || params.get("key"))) return out;
    const q = new URLSearchParams({ topic: params.get("topic") });
    if (params.get("id")) q.set("id", params.get("id")); else q.set("key", params.get("key"));
    const v = await getJSON("/api/message?" + q.toString());
    out.push(el("p", { class: "muted", "data-field": "count" }, v.messages.length + " message(s)"));
    for (const m of v.messages) out.push(messageView(m));
    return out;
  },
};

function perm(p) {
  return (p & 4 ? "R" : "-") + (p & 2 ? "W" : "-") + (p & 1 ? "X" : "-");
}

function messageView(m) {
  const fields = [
    ["Topic", m.topic], ["Message id", m.msgId], ["Client id", m.uniqKey], ["Tags", m.tags], ["Keys", m.keys],
    ["Queue", m.queueId], ["Queue offset", m.queueOffset], ["Commit log offset", m.commitLogOffset],
    ["Born (UTC)", fmt.time(m.bornTimestamp) + " from " + m.bornHost], ["Stored (UTC)", fmt.time(m.storeTimestamp) + " on " + m.storeHost],
    ["Reconsume times", m.reconsumeTimes], ["Body size", m.bodySize],
  ];
  const props = Object.keys(m.properties).sort().map((k) => ({ name: k, value: m.properties[k] }));
  let body = m.body;
  if (m.bodyEncoding === "") body = "(compressed body, not shown)";
  else if (m.bodyEncoding === "base64") body = "(binary, base64) " + body;
  if (m.bodyTruncated) body += "\n… (first 4 KiB of " + m.bodySize + " bytes)";
  return el("section", { "data-msgid": m.msgId },
    el("h2", {}, "Message " + m.msgId),
    table([{ key: "0", label: "Field" }, { key: "1", label: "Value" }], fields),
    el("h2", {}, "Properties"),
    table([{ key: "name", label: "Name" }, { key: "value", label: "Value" }], props),
    el("h2", {}, "Body"),
    el("pre", { class: "body", "data-field": "body" }, body));
}

async function route() {
  const my = ++seq;
  if (timer) { clearTimeout(timer); timer = null; }
  const h = location.hash.slice(1) || "cluster";
  const qi = h.indexOf("?");
  const path = qi >= 0 ? h.slice(0, qi) : h;
  const params = new URLSearchParams(qi >= 0 ? h.slice(qi + 1) : "");
  const slash = path.indexOf("/");
  const name = slash >= 0 ? path.slice(0, slash) : path;
  let arg = slash >= 0 ? path.slice(slash + 1) : "";
  try { arg = decodeURIComponent(arg); } catch (e) { /* keep it as typed */ }
  const page = pages[name] ? name : "cluster";
  for (const a of document.querySelectorAll("header nav a")) {
    const nav = a.getAttribute("data-nav");
    a.classList.toggle("active", nav === page || nav + "s" === page || nav === page + "s");
  }
  view.setAttribute("data-page", page);
  view.setAttribute("data-loaded", "");
  statusEl.textContent = "loading…";
  let content;
  try {
    content = await pages[page](arg, params);
    statusEl.textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    content = [el("p", { class: "error", "data-field": "error" }, e.message)];
    statusEl.textContent = "error";
  }
  if (my !== seq) return;
  view.replaceChildren(...content.filter(Boolean));
  view.setAttribute("data-loaded", page);
}

window.addEventListener("hashchange", route);
route();
