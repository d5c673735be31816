"use strict";
// The run viewer. Everything shown comes from /runs/api and is put in the
// page as text (textContent), never as HTML: code, logs, arguments and
// results are an agent's data.
(function () {
  const api = "/runs/api/runs";
  const list = document.getElementById("list");
  const detail = document.getElementById("detail");
  const status = document.getElementById("status");
  let selected = null;   // run id
  let open = new Set();  // call ids whose details are shown
  let timer = null;

  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") n.className = v; else if (k === "style") n.style.cssText = v; else if (k.startsWith("on")) n.addEventListener(k.slice(2), v); else n.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) n.append(k instanceof Node ? k : String(k));
    return n;
  }
  const ms = (v) => v >= 1000 ? (v / 1000).toFixed(2) + " s" : v >= 10 ? v.toFixed(0) + " ms" : v.toFixed(1) + " ms";
  const time = (iso) => new Date(iso).toTimeString().slice(0, 8); // 24-hour, local
  const statusText = (r) => r.status === "error" ? (r.error ? r.error.code : "error") : r.status;
  const cls = (s) => s === "ok" ? "ok" : s === "running" ? "running" : "error";

  async function getJSON(url) {
    const res = await fetch(url, { cache: "no-store" });
    if (!res.ok) throw new Error(res.status + " " + res.statusText);
    return res.json();
  }

  function renderList(runs) {
    list.replaceChildren();
    if (runs.length === 0) {
      list.append(el("p", { class: "empty" }, "No runs yet. Call ", el("code", {}, "code_run"), " and it shows up here."));
      return;
    }
    for (const r of runs) {
      list.append(el("button", { class: "run", "data-id": r.id, "data-status": r.status, "aria-current": String(r.id === selected), onclick: () => select(r.id) },
        el("div", { class: "top" },
          el("span", {}, el("span", { class: "pill " + cls(r.status) }, statusText(r)), " #" + r.id + " · " + time(r.start)),
          el("span", {}, ms(r.ms) + " · " + r.callCount + (r.callCount === 1 ? " call" : " calls"))),
        el("div", { class: "title" }, r.title || "(empty program)")));
    }
  }

  function codePanel(r) {
    const pre = el("pre", { class: "code" });
    const lines = r.code.split("\n");
    const failLine = r.error && r.error.line;
    lines.forEach((text, i) => {
      const no = i + 1;
      pre.append(el("div", { class: "line" + (no === failLine ? " fail" : ""), "data-line": no }, el("span", { class: "no" }, no), el("span", {}, text || " ")));
      if (no === failLine) {
        const col = r.error.column ? " (column " + r.error.column + ")" : "";
        pre.append(el("div", { class: "line note" }, el("span", { class: "no" }), el("span", {}, r.error.code + ": " + r.error.message + col)));
      }
    });
    if (r.codeCut) pre.append(el("div", { class: "line note" }, el("span", { class: "no" }), el("span", {}, "… the rest of the program is not kept")));
    return el("div", { class: "panel" }, el("h3", {}, "Program"), pre);
  }

  function logsPanel(r) {
    const box = el("div", { class: "logs" });
    for (const l of r.logs) box.append(el("div", { class: "log " + l.level }, el("span", { class: "at" }, "+" + ms(l.ms)), el("span", { class: "lv" }, l.level), el("span", { class: "tx" }, l.text)));
    if (r.logsDropped) box.append(el("div", { class: "k" }, r.logsDropped + " more lines not kept"));
    return el("div", { class: "panel" }, el("h3", {}, "Console (" + r.logs.length + ")"), box);
  }

  function waterfall(r) {
    const total = Math.max(r.ms, ...r.calls.map((c) => c.startMs + c.ms), 0.001);
    const body = el("tbody");
    r.calls.forEach((c, i) => {
      const left = (c.startMs / total) * 100, width = Math.max((c.ms / total) * 100, 0.4);
      const row = el("tr", { class: "call", "data-status": c.status, "data-id": c.id, onclick: () => { open.has(c.id) ? open.delete(c.id) : open.add(c.id); refresh(); } },
        el("td", { class: "num" }, i + 1),
        el("td", { class: "tool", title: c.name }, c.name),
        el("td", { class: "num" }, "+" + ms(c.startMs)),
        el("td", { class: "num" }, ms(c.ms)),
        el("td", {}, el("span", { class: "st " + cls(c.status) }, c.status)),
        el("td", {}, el("div", { class: "track" }, el("div", { class: "bar " + cls(c.status), style: "left:" + left.toFixed(2) + "%;width:" + Math.min(width, 100 - left).toFixed(2) + "%" }))));
      body.append(row);
      if (open.has(c.id)) {
        body.append(el("tr", { class: "more" }, el("td", {}), el("td", { colspan: "5" },
          el("div", { class: "k" }, c.id),
          el("div", { class: "k" }, "arguments"), el("pre", {}, c.arguments || "{}"),
          c.error ? [el("div", { class: "k" }, "error"), el("pre", {}, c.error)] : [el("div", { class: "k" }, "result"), el("pre", {}, c.result || "")])));
      }
    });
    const table = el("table", { class: "calls" },
      el("colgroup", {}, el("col", { style: "width:34px" }), el("col", { style: "width:30%" }), el("col", { style: "width:80px" }), el("col", { style: "width:80px" }), el("col", { style: "width:120px" }), el("col", {})),
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "tool"), el("th", {}, "start"), el("th", {}, "duration"), el("th", {}, "outcome"), el("th", {}, "0 – " + ms(total)))),
      body);
    const more = r.callsDropped ? el("div", { class: "k", style: "padding:6px 12px" }, r.callsDropped + " more calls not kept") : null;
    return el("div", { class: "panel" }, el("h3", {}, "Nested calls (" + r.callCount + ") — click a row for its arguments and result"), r.calls.length ? table : el("p", { class: "empty" }, "No nested calls."), more);
  }

  function renderDetail(r) {
    const env = r.status === "running" ? "" : (r.fresh ? "fresh environment" : "reused environment");
    const parts = [
      el("h2", {}, "Run #" + r.id, el("span", { class: "pill " + cls(r.status) }, statusText(r))),
      el("div", { class: "meta" }, el("b", {}, r.engine), " · " + r.mode + (env ? " · " + env : "") + " · ", el("b", {}, ms(r.ms)),
        " · started " + time(r.start) + " · call " + r.callId + (r.agent ? " · " + r.agent : "")),
    ];
    if (r.error) parts.push(el("div", { class: "errbox", role: "alert" }, el("code", {}, r.error.code), " " + r.error.message + (r.error.line ? " — line " + r.error.line : "")));
    parts.push(codePanel(r), waterfall(r));
    if (r.logs && r.logs.length) parts.push(logsPanel(r));
    if (r.value) parts.push(el("div", { class: "panel" }, el("h3", {}, "Return value"), el("pre", { class: "value" }, r.value)));
    detail.replaceChildren(...parts);
  }

  function select(id) {
    if (selected !== id) open = new Set();
    selected = id;
    history.replaceState(null, "", "#run-" + id);
    refresh();
  }

  async function refresh() {
    clearTimeout(timer);
    let live = false;
    try {
      const { runs } = await getJSON(api);
      if (selected === null && runs.length) selected = runs[0].id;
      renderList(runs);
      live = runs.some((r) => r.status === "running");
      if (selected !== null) {
        try {
          const r = await getJSON(api + "/" + encodeURIComponent(selected));
          renderDetail(r);
          live = live || r.status === "running";
        } catch (e) {
          detail.replaceChildren(el("p", { class: "empty" }, "Run #" + selected + " is no longer kept."));
        }
      }
      status.textContent = runs.length + (runs.length === 1 ? " run kept" : " runs kept") + (live ? " · live" : "") + " · updated " + time(new Date().toISOString());
    } catch (e) {
      status.textContent = "cannot reach the server: " + e.message;
    }
    timer = setTimeout(refresh, live ? 500 : 2000);
  }

  const m = /^#run-(\d+)$/.exec(location.hash);
  if (m) selected = m[1];
  refresh();
})();
