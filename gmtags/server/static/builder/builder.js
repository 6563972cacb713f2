/* The guided builder page (SPEC §10, §11; BUILDER §2.7).
 *
 * The page keeps the answers and the card client-side and asks
 * POST /gmtags/api/builder/build for the card on every change (debounced);
 * every result replaces the whole screen, so Back/Next, undo and deselection
 * are exact: nothing here adds or subtracts, the builder recomputes. Every
 * text comes from the ruleset or the player and is written with textContent,
 * never as markup. No build step, no dependencies.
 */
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("gb-data").textContent);
  const model = data.builder;
  const steps = model.steps;
  const sheet = data.sheet;
  const byId = (list) => Object.fromEntries((list || []).map((x) => [x.id, x]));
  const catalogs = byId(data.catalogs);
  const abilities = byId(sheet.abilities);
  const skills = byId(sheet.skills);
  const saves = byId(sheet.saves);
  const fields = byId(sheet.fields);
  const lists = byId(sheet.lists);
  const tiers = byId(data.tiers);
  const DEBOUNCE = 120;
  const MAX_UNDO = 200;

  let answers = withSeed(clone(data.answers || { v: 1 }));
  let card = data.card ? clone(data.card) : null;
  let res = null;
  let at = 0;
  let view = "guided";
  let revision = data.revision;
  const undo = [];
  const redo = [];
  let timer = null;
  let version = 0; // raised by every change: an answer to an older one is not taken
  let building = null;

  // -- small helpers -----------------------------------------------------------

  function clone(value) { return value === undefined ? undefined : JSON.parse(JSON.stringify(value)); }

  function withSeed(doc) {
    // The seed is drawn here once, so a change made before the first build returns rolls
    // the same dice (SPEC §10: every roll from the answers' seed).
    if (typeof doc.seed !== "number") doc.seed = Math.floor(Math.random() * 2 ** 52);
    return doc;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "value") node.value = value;
      else if (key === "checked" || key === "disabled" || key === "hidden") node[key] = true;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  const $ = (id) => document.getElementById(id);
  const slug = (text) => String(text).replace(/[^A-Za-z0-9_-]/g, "_");
  const signed = (n) => (n >= 0 ? "+" + n : String(n));

  function entryLabel(catalogId, id) {
    const catalog = catalogs[catalogId];
    const found = catalog && catalog.entries.find((e) => e.id === id);
    return found ? found.label : null;
  }

  function refLabel(ref) {
    const [catalogId, id] = String(ref).split("/");
    return entryLabel(catalogId, id) || String(ref);
  }

  function modifier(score) {
    const rule = data.modifier || { op: "identity" };
    if (rule.op === "floorHalfMinusTen") return Math.floor((score - 10) / 2);
    if (rule.op === "stepTable" && rule.table) {
      let chosen = rule.table[0][1];
      for (const [threshold, value] of rule.table) {
        if (threshold <= score) chosen = value; else break;
      }
      return chosen;
    }
    return null;
  }

  function tierId(value) { return value && typeof value === "object" ? value.tier : value; }
  function tierLabel(id) { return (tiers[id] && tiers[id].label) || String(id); }
  const untrained = data.tiers.length ? data.tiers[0].id : null;

  function fieldText(id, value) {
    const shape = fields[id];
    if (shape && shape.valueLabels && shape.valueLabels[value] !== undefined) return shape.valueLabels[value];
    if (value === true) return "yes";
    if (value === false) return "no";
    return String(value);
  }

  function resStep(id) { return res ? res.steps.find((s) => s.id === id) : null; }
  function cardOf() { return (res && res.card) || card || {}; }

  function prune(doc) {
    for (const holder of [doc.steps || {}, doc.choices || {}]) {
      for (const [key, value] of Object.entries(holder)) {
        if (value && typeof value === "object" && !Array.isArray(value)) {
          for (const [inner, v] of Object.entries(value)) {
            if (v === undefined || (Array.isArray(v) && !v.length) ||
                (v && typeof v === "object" && !Array.isArray(v) && !Object.keys(v).length)) delete value[inner];
          }
          if (!Object.keys(value).length) delete holder[key];
        } else if (Array.isArray(value) && !value.length) delete holder[key];
      }
    }
    return doc;
  }

  // -- changes, undo and the build ---------------------------------------------

  function remember() {
    undo.push({ answers: clone(answers), card: clone(card) });
    if (undo.length > MAX_UNDO) undo.shift();
    redo.length = 0;
  }

  function change(edit) {
    remember();
    const next = clone(answers);
    edit(next);
    answers = prune(next);
    schedule();
    render();
  }

  function editCard(edit) {
    remember();
    const next = clone(cardOf());
    edit(next);
    card = next;
    schedule();
  }

  function travel(from, to) {
    if (!from.length) return;
    to.push({ answers: clone(answers), card: clone(card) });
    const back = from.pop();
    answers = back.answers;
    card = back.card;
    schedule(0);
  }

  function schedule(wait) {
    version += 1;
    clearTimeout(timer);
    busy(true);
    building = new Promise((done) => {
      timer = setTimeout(() => runBuild().then(done, done), wait === undefined ? DEBOUNCE : wait);
    });
  }

  async function runBuild() {
    const mine = version;
    const body = { answers, card, party: data.party, view: true };
    if (data.chat) body.chat = data.chat;
    let reply;
    let out;
    try {
      reply = await fetch(data.urls.build, {
        method: "POST", headers: { "Content-Type": "application/json" },
        credentials: "same-origin", body: JSON.stringify(body),
      });
      out = await reply.json();
    } catch (error) {
      if (mine === version) {
        busy(false);
        setStatus("gb-error", "The build did not answer: " + error);
      }
      return;
    }
    if (mine !== version) return; // a later change is on its way: its build answers
    busy(false);
    if (!reply.ok) {
      setStatus("gb-error", problemText(out));
      return;
    }
    res = out;
    answers = out.answers;
    card = out.card;
    if ($("gb-status").className === "gb-error") setStatus("", "");
    render();
    announce();
  }

  function busy(on) {
    // Not said aloud (the status is for what happened); the panel is marked busy meanwhile.
    $("gb").dataset.building = on ? "1" : "0";
    $("gb-character").setAttribute("aria-busy", String(on));
  }

  let said = "";
  function announce() {
    // One short sentence for a screen reader when the current step's badge or points change.
    const step = steps[at];
    const spoken = badgeText(step).spoken;
    const text = step.label + ": " + (spoken.length ? spoken.join(", ") : "done");
    if (text !== said) $("gb-announce").textContent = text;
    said = text;
  }

  function problemText(out) {
    const problems = (out && out.problems) || [];
    // The endpoints' own {error, problems}, or the guard's and token gate's {error: {message}}.
    const error = out && out.error;
    const head = (typeof error === "string" ? error : error && error.message) || "refused";
    return [head, ...problems.map((p) => p.path + ": " + p.message)].join("; ");
  }

  function setStatus(kind, text) {
    const status = $("gb-status");
    status.className = kind;
    status.textContent = text;
  }

  // -- navigation ----------------------------------------------------------------

  function shownIndexes() {
    if (!res) return steps.map((_, n) => n);
    return steps.map((s, n) => [s, n]).filter(([s]) => (resStep(s.id) || {}).shown).map(([, n]) => n);
  }

  function go(n) {
    at = n;
    const step = steps[at];
    const next = clone(answers);
    if (res && res.view && VIEW.visit(res.view[step.id] || [], next)) {
      answers = next; // what opening the step writes (a rows step's visited), no undo step
      schedule(0);
    }
    render();
    const heading = $("gb-step-heading");
    if (heading) heading.focus();
  }

  function move(by) {
    const order = shownIndexes();
    const later = order.filter((n) => (by > 0 ? n > at : n < at));
    if (!later.length) {
      setStatus("", by > 0 ? "This is the last step." : "This is the first step.");
      return;
    }
    go(by > 0 ? later[0] : later[later.length - 1]);
  }

  // -- rendering -----------------------------------------------------------------

  function render() {
    const focused = document.activeElement;
    const keep = focused && focused.id ? focused.id : null;
    const order = shownIndexes();
    if (res && !order.includes(at) && order.length) at = order.find((n) => n > at) ?? order[order.length - 1];
    renderStrip(order);
    $("gb-guided").hidden = view !== "guided";
    $("gb-all").hidden = view !== "all";
    $("gb-tab-guided").setAttribute("aria-selected", String(view === "guided"));
    $("gb-tab-all").setAttribute("aria-selected", String(view === "all"));
    $("gb-tab-guided").tabIndex = view === "guided" ? 0 : -1;
    $("gb-tab-all").tabIndex = view === "all" ? 0 : -1;
    if (view === "guided") $("gb-body").replaceChildren(stepView(steps[at]));
    else $("gb-all").replaceChildren(allFields());
    const panel = character();
    if (panel.textContent !== $("gb-character").textContent) $("gb-character").replaceChildren(panel);
    $("gb-undo").disabled = !undo.length;
    $("gb-redo").disabled = !redo.length;
    const fresh = keep ? $(keep) : null;
    if (fresh && fresh !== focused) {
      if (typing(focused)) {
        // The box being typed in stays as it is (its value, its caret); only its place is new.
        fresh.replaceWith(focused);
        focused.focus();
      } else {
        fresh.focus();
      }
    }
  }

  function typing(node) {
    if (!node) return false;
    if (node.tagName === "TEXTAREA" || node.tagName === "SELECT") return true;
    return node.tagName === "INPUT" && !["checkbox", "radio", "button", "submit"].includes(node.type);
  }

  // A step's badge: the count it waits for, then its own budget (a point buy): the points
  // left, or how far over it is (never "-2 left").
  function badgeText(step) {
    const pending = res ? res.pending[step.id] || 0 : 0;
    const pool = res && res.pools[step.id];
    const shown = [];
    const spoken = [];
    if (pending) { shown.push(String(pending)); spoken.push(pending + " pending"); }
    if (pool && pool.remaining > 0) { shown.push(pool.remaining + " left"); spoken.push(points(pool.remaining) + " left"); }
    if (pool && pool.remaining < 0) { shown.push(-pool.remaining + " over"); spoken.push(points(-pool.remaining) + " over budget"); }
    return { shown, spoken };
  }

  function points(count) {
    return count + (count === 1 ? " point" : " points");
  }

  function renderStrip(order) {
    const items = order.map((n) => {
      const step = steps[n];
      const badge = badgeText(step);
      const parts = badge.shown;
      const done = !parts.length;
      const spoken = done ? "done" : badge.spoken.join(", ");
      return el("li", {},
        el("button", {
          type: "button", class: "gb-step" + (n === at ? " gb-current" : ""),
          "aria-current": n === at ? "step" : null, "data-step": step.id,
          onclick: () => go(n),
        }, step.label, " ",
        el("span", { class: "gb-badge" + (done ? " gb-done" : ""), "aria-label": spoken,
          "data-badge": step.id }, done ? "✓" : parts.join(" · "))));
    });
    const strip = $("gb-steps");
    const drawn = order.join() + "|" + at + "|" + items.map((i) => i.textContent).join("|");
    if (strip.dataset.drawn !== drawn) {
      strip.replaceChildren(...items);
      strip.dataset.drawn = drawn;
    }
  }

  function stepView(step) {
    const entry = resStep(step.id);
    const body = el("div", { class: "gb-step-body", "data-kind": step.kind });
    body.append(el("h2", { id: "gb-step-heading", tabindex: "-1" }, step.label));
    if (!res) {
      body.append(el("p", {}, "Building…"));
      return body;
    }
    if (res.answers.described === true) {
      // BUILDER H1–H2: a filled card opens described; Done lets the picks change the sheet.
      body.append(el("div", { class: "gb-described", role: "note" },
        el("p", {}, "This character is described: its sheet is as written, and picks only say what it stands for."),
        el("button", { type: "button", id: "gb-done", onclick: () => change((doc) => { doc.described = false; }) },
          "Done: let picks change the sheet")));
    }
    if (entry && !entry.shown) body.append(el("p", { class: "gb-note" }, "Not shown for this character: its answers are kept, unused."));
    const optional = entry && entry.shown && entry.required === false;
    if (optional) body.append(el("p", { class: "gb-note", "data-required": "no" }, "Not required for this character: what it still asks is not counted."));
    const controls = res.view && Object.prototype.hasOwnProperty.call(res.view, step.id) ? res.view[step.id] : [];
    body.append(VIEW.render(step, controls, optional));
    return body;
  }

  function fieldInput(id, shape, value, set, labelText) {
    const type = (shape && shape.type) || "text";
    let input;
    if (type === "enum") {
      input = el("select", { id, onchange: (e) => set(e.target.value === "" ? null : e.target.value) },
        el("option", { value: "" }, "—"),
        (shape.values || []).map((v) => el("option", { value: String(v), selected: String(v) === String(value) ? "" : null },
          fieldText(shape.id, v))));
      input.value = value === undefined || value === null ? "" : String(value);
    } else if (type === "boolean") {
      input = el("input", { type: "checkbox", id, checked: value === true, onchange: (e) => set(e.target.checked) });
    } else if (type === "number") {
      input = el("input", { type: "number", id, min: shape.min, max: shape.max, step: "any",
        value: value === undefined || value === null ? "" : String(value), inputmode: "numeric",
        oninput: (e) => {
          const text = e.target.value.trim();
          if (text === "") return set(null);
          const number = Number(text);
          if (Number.isFinite(number)) set(number);
        } });
    } else if (type === "longtext") {
      input = el("textarea", { id, rows: "3", maxlength: shape && shape.maxLength, oninput: (e) => set(e.target.value === "" ? null : e.target.value) });
      input.value = value === undefined || value === null ? "" : String(value);
    } else {
      input = el("input", { type: "text", id, maxlength: shape && shape.maxLength,
        value: value === undefined || value === null ? "" : String(value),
        oninput: (e) => set(e.target.value === "" ? null : e.target.value) });
    }
    return el("div", { class: "gb-field" }, el("label", { for: id }, labelText), input);
  }

  // -- All fields ------------------------------------------------------------------

  function allFields() {
    const sheetCard = cardOf();
    const writes = ((sheetCard.builder || {}).writes) || {};
    const wrap = el("div", { class: "gb-form" });
    wrap.append(el("p", { class: "gb-note" }, "Hand edits are the player's: the builder keeps them until its own answer for that value changes."));
    const flag = (path, value) => (path in writes && JSON.stringify(writes[path]) !== JSON.stringify(value))
      ? el("span", { class: "gb-flag" }, "edited by hand") : null;
    if (res && res.dropped && res.dropped.length) {
      wrap.append(el("p", { class: "gb-warn" }, "Hand edits dropped because an answer changed: " + res.dropped.map((d) => d.path).join(", ")));
    }
    const section = (title, items) => items.length ? el("fieldset", { class: "gb-group" }, el("legend", {}, title), items) : null;
    wrap.append(section("Fields", sheet.fields.map((f) => {
      const value = (sheetCard.fields || {})[f.id];
      const box = fieldInput("gb-all-field-" + slug(f.id), f, value, (v) => editCard((c) => {
        c.fields = c.fields || {};
        if (v === null) delete c.fields[f.id]; else c.fields[f.id] = v;
      }), f.label || f.id);
      const mark = flag("fields." + f.id, value);
      if (mark) box.append(mark);
      return box;
    })));
    wrap.append(section("Scores", sheet.abilities.filter((a) => !a.computed).map((a) => {
      const value = (sheetCard.abilities || {})[a.id];
      const box = fieldInput("gb-all-ability-" + slug(a.id), { id: a.id, type: "number", min: a.min, max: a.max }, value, (v) => editCard((c) => {
        c.abilities = c.abilities || {};
        if (v === null) delete c.abilities[a.id]; else c.abilities[a.id] = v;
      }), a.label || a.id);
      const mark = flag("abilities." + a.id, value);
      if (mark) box.append(mark);
      return box;
    })));
    const tierShape = { type: "enum", values: data.tiers.map((t) => t.id), id: "" };
    const tierEditor = (kind, item) => {
      const stored = (sheetCard[kind] || {})[item.id];
      const box = fieldInput("gb-all-" + kind + "-" + slug(item.id), tierShape, tierId(stored), (v) => editCard((c) => {
        c[kind] = c[kind] || {};
        const before = c[kind][item.id];
        if (v === null) delete c[kind][item.id];
        else if (before && typeof before === "object") c[kind][item.id] = { ...before, tier: v };
        else c[kind][item.id] = v;
      }), item.label || item.id);
      box.querySelectorAll("option").forEach((o) => { if (tiers[o.value]) o.textContent = tiers[o.value].label; });
      const mark = flag(kind + "." + item.id, stored);
      if (mark) box.append(mark);
      return box;
    };
    if (data.tiers.length) {
      wrap.append(section("Skills", sheet.skills.map((s) => tierEditor("skills", s))));
      wrap.append(section("Saves", sheet.saves.map((s) => tierEditor("saves", s))));
    }
    sheet.lists.forEach((shape) => wrap.append(listEditor(sheetCard, shape)));
    return wrap;
  }

  function listEditor(sheetCard, shape) {
    // The player's own rows of a list; rows a pick or a step wrote are the builder's, shown.
    const rows = (sheetCard.lists || {})[shape.id] || [];
    const first = (shape.columns[0] || {}).id || "name";
    const box = el("fieldset", { class: "gb-group", "data-list": shape.id }, el("legend", {}, shape.label || shape.id));
    rows.forEach((row, n) => {
      if (row._pick || row._catalog) {
        box.append(el("p", { class: "gb-note" }, String(row[first] ?? ""), " ", el("em", {}, "(from the builder)")));
        return;
      }
      const line = el("div", { class: "gb-row" });
      shape.columns.forEach((c) => {
        const id = "gb-all-row-" + slug(shape.id) + "-" + n + "-" + slug(c.id);
        line.append(fieldInput(id, c, row[c.id], (v) => editCard((card2) => {
          const r = card2.lists[shape.id][n];
          if (v === null) delete r[c.id]; else r[c.id] = v;
        }), (c.label || c.id) + ", row " + (n + 1)));
      });
      line.append(el("button", { type: "button", id: "gb-all-remove-" + slug(shape.id) + "-" + n,
        onclick: () => editCard((card2) => { card2.lists[shape.id].splice(n, 1); }) }, "Remove row " + (n + 1)));
      box.append(line);
    });
    box.append(el("button", { type: "button", id: "gb-all-add-" + slug(shape.id), onclick: () => editCard((card2) => {
      const fresh = {};
      shape.columns.forEach((c) => { if (c.default !== undefined) fresh[c.id] = c.default; });
      card2.lists = card2.lists || {};
      card2.lists[shape.id] = [...(card2.lists[shape.id] || []), fresh];
    }) }, "Add a row to " + (shape.label || shape.id)));
    return box;
  }

  function poolName(id) {
    // A builder pool by its label; a point-buy step's or an allocate group's by theirs.
    const pool = (model.pools || []).find((p) => p.id === id);
    if (pool) return pool.label || id;
    const [stepId, groupId] = id.split("/");
    const step = steps.find((s) => s.id === stepId);
    const group = step && groupId && (step.groups || []).find((g) => g.id === groupId);
    return group ? step.label + " · " + group.label : step ? step.label : id;
  }

  // -- the character so far ----------------------------------------------------------

  function character() {
    const sheetCard = cardOf();
    const box = el("div", {});
    const name = data.party ? (sheet.label || "The party") : ($("gb-name").value.trim() || "Unnamed character");
    box.append(el("h2", {}, name));
    if (!res) return box;
    const fieldRows = Object.entries(sheetCard.fields || {}).filter(([, v]) => v !== "" && v !== null);
    if (fieldRows.length) {
      box.append(el("dl", { class: "gb-facts" }, fieldRows.map(([id, v]) => [el("dt", {}, (fields[id] || {}).label || id), el("dd", {}, fieldText(id, v))])));
    }
    const scores = sheet.abilities.filter((a) => (sheetCard.abilities || {})[a.id] !== undefined);
    const unchosen = held("scores");
    if (unchosen) {
      // No half sheet: a score a pick raised is not shown alone as if the scores were made.
      box.append(el("h3", {}, "Scores"), el("p", { class: "gb-note", "data-scores": "unchosen" },
        unchosen));
    } else if (scores.length) {
      const showMod = (data.modifier || {}).op !== "identity";
      box.append(el("h3", {}, "Scores"), el("table", { class: "gb-scores gb-compact" }, el("tbody", {}, scores.map((a) => {
        const score = sheetCard.abilities[a.id];
        return el("tr", {}, el("th", { scope: "row" }, a.label || a.id), el("td", { "data-score": a.id }, String(score)),
          showMod ? el("td", { "data-mod": a.id }, signed(modifier(score))) : null);
      }))));
    }
    const trainedList = (kind, group) => Object.entries(sheetCard[kind] || {}).filter(([, v]) => tierId(v) !== untrained)
      .map(([id, v]) => el("li", {}, ((group[id] || {}).label || id) + " (" + tierLabel(tierId(v)) + ")"));
    const trainedSkills = trainedList("skills", skills);
    if (trainedSkills.length) box.append(el("h3", {}, "Trained skills"), el("ul", { class: "gb-list" }, trainedSkills));
    const trainedSaves = trainedList("saves", saves);
    if (trainedSaves.length) box.append(el("h3", {}, "Saves"), el("ul", { class: "gb-list" }, trainedSaves));
    if ((sheetCard.picks || []).length) {
      box.append(el("h3", {}, "Picks"), el("ul", { class: "gb-list" }, sheetCard.picks.map((p) => el("li", {}, refLabel(p)))));
    }
    for (const [id, rows] of Object.entries(sheetCard.lists || {})) {
      if (!rows.length) continue;
      const shape = lists[id] || { label: id, columns: [] };
      const first = (shape.columns[0] || {}).id || "name";
      box.append(el("h3", {}, shape.label || id), el("ul", { class: "gb-list" }, rows.map((r) => el("li", {}, String(r[first] ?? r.name ?? "")))));
    }
    if ((sheetCard.items || []).length) {
      box.append(el("h3", {}, "Gear"), el("ul", { class: "gb-list" }, sheetCard.items.map((i) => el("li", {},
        (i.count > 1 ? i.count + " × " : "") + (i.ref ? refLabel(i.ref) : i.name || "")))));
    }
    const pools = Object.entries(res.pools || {});
    if (pools.length) {
      box.append(el("h3", {}, "Pools"), el("ul", { class: "gb-list" }, pools.map(([id, p]) => el("li", {}, poolName(id) + ": " + p.remaining + " of " + p.budget + " left"))));
    }
    if (data.party && data.members.length) box.append(el("p", { class: "gb-note" }, "Members: " + data.members.join(", ")));
    if (res.profile) {
      const profile = (model.profiles || []).find((p) => p.id === res.profile);
      box.append(el("p", { class: "gb-note" }, "Profile: " + ((profile && profile.label) || res.profile)));
    }
    if ((res.problems || []).length) {
      box.append(el("h3", {}, "Answers naming nothing"), el("ul", { class: "gb-list gb-warn" }, res.problems.map((p) => el("li", {}, p.path + ": " + p.message))));
    }
    const waiting = Object.values(res.pending).reduce((a, b) => a + b, 0);
    const still = waiting === 1 ? "1 choice still waits" : waiting + " choices still wait";
    box.append(el("p", { class: "gb-note", "data-waiting": String(waiting) }, waiting ? still + " (Save works anyway)." : "Every step is done."));
    return box;
  }

  function held(part) {
    // What the builder says stands in place of a part of the sheet a step has not made yet.
    const holds = (res && res.holds) || {};
    return Object.prototype.hasOwnProperty.call(holds, part) ? holds[part] : null;
  }


  // -- saving --------------------------------------------------------------------------

  async function save(event) {
    event.preventDefault();
    if (building) await building;
    if (!data.chat) { setStatus("gb-error", "No chat to save into: open this page with ?chat=<chat id>."); return; }
    if (!res) { setStatus("gb-error", "Nothing built yet."); return; }
    const body = data.party
      ? { chat: data.chat, party: true, sheet: res.card, revision }
      : { chat: data.chat, name: $("gb-name").value.trim(), card: res.card };
    if (!data.party && !body.name) { setStatus("gb-error", "Give the character a name first."); $("gb-name").focus(); return; }
    let reply;
    let out;
    try {
      reply = await fetch(data.urls.save, { method: "POST", headers: { "Content-Type": "application/json" },
        credentials: "same-origin", body: JSON.stringify(body) });
      out = await reply.json();
    } catch (error) {
      setStatus("gb-error", "The save did not answer: " + error);
      return;
    }
    const latest = $("gb-latest");
    if (reply.status === 409) {
      revision = out.latest.gamePartySheetRevision || 0;
      $("gb-revision").textContent = "Latest revision " + revision;
      latest.hidden = false;
      latest.replaceChildren(el("h3", {}, "The latest party sheet"), sheetSummary(out.latest.gamePartySheet || {}));
      setStatus("gb-error", "Someone else saved the party sheet: here is the latest; Save again replaces it with yours.");
      return;
    }
    if (!reply.ok) { setStatus("gb-error", problemText(out)); return; }
    latest.hidden = true;
    if (data.party) {
      revision = out.state.gamePartySheetRevision || 0;
      setStatus("gb-saved", "Saved the party sheet (revision " + revision + ").");
      $("gb-revision").textContent = "Opened on revision " + revision;
    } else {
      // Save never blocks (choices may wait), but it says what the saved card still lacks.
      const later = held("scores") ? "Its scores are not chosen yet: open it here again to choose them. " : "";
      setStatus("gb-saved", "Saved " + body.name + " into chat " + data.chat + ". " + later);
    }
    if (data.urls.chat) $("gb-status").append(el("a", { href: data.urls.chat }, "See the chat"));
  }

  function sheetSummary(sheetCard) {
    const rows = Object.entries(sheetCard.fields || {}).map(([id, v]) => [el("dt", {}, (fields[id] || {}).label || id), el("dd", {}, fieldText(id, v))]);
    const listed = Object.entries(sheetCard.lists || {}).map(([id, items]) => [el("dt", {}, (lists[id] || {}).label || id),
      el("dd", {}, items.map((r) => r.name || Object.values(r)[0]).join(", "))]);
    return el("dl", { class: "gb-facts" }, rows, listed);
  }

  const VIEW = window.gmtagsBuilderView({ el, slug, change, answers: () => answers });

  // -- wiring ------------------------------------------------------------------------------

  function setView(next) {
    view = next;
    render();
    $(next === "guided" ? "gb-tab-guided" : "gb-tab-all").focus();
  }

  $("gb-back").addEventListener("click", () => move(-1));
  $("gb-next").addEventListener("click", () => move(1));
  $("gb-undo").addEventListener("click", () => travel(undo, redo));
  $("gb-redo").addEventListener("click", () => travel(redo, undo));
  $("gb-tab-guided").addEventListener("click", () => setView("guided"));
  $("gb-tab-all").addEventListener("click", () => setView("all"));
  for (const tab of [$("gb-tab-guided"), $("gb-tab-all")]) {
    tab.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight" || e.key === "ArrowLeft") setView(view === "guided" ? "all" : "guided");
    });
  }
  $("gb-save").addEventListener("submit", save);
  $("gb-name").value = data.name || "";
  $("gb-name").addEventListener("input", () => $("gb-character").replaceChildren(character()));
  if (data.party) $("gb-name-label").hidden = true;
  $("gb-save-button").textContent = data.party ? "Save the party sheet" : "Save";
  if (data.party) $("gb-revision").textContent = "Opened on revision " + revision;
  render();
  schedule(0);
})();
