/* The builder page's renderer of a step's view (gmtags/builder/controls.py): the controls
 * the Python builder gives a step, drawn without knowing its kind.
 *
 * `window.gmtagsBuilderView(kit)` gives `render(step, controls)`, and `visit(controls, doc)`
 * for what opening a step writes (`visit`: not an undo step of its own). Each control names the
 * place in the answers it changes (`path`, from the document's root; a number is a list's
 * index) and how, as `gmtags.builder.controls.change` does: `choose` toggles its option's
 * value in the list there (`single`: makes the list that value alone; `clearable`: "None"
 * empties it), `number`, `text`, `pick` and `flag` put the value given there (empty drops
 * it), `count` raises or lowers the count there by one (0 drops it), `press` puts its
 * `value` there (or appends it, or removes that index: `op`); `fact`, `note` and `group`
 * change nothing (a note of tone `reason` is listed with the step's other reasons). What is checked and typed is read from the answers as they stand, so a
 * click shows before its build answers, and quick clicks each count. Every text goes in
 * with textContent only.
 */
(function () {
  "use strict";

  const UNSAFE = new Set(["__proto__", "prototype", "constructor"]);

  function at(doc, path) {
    let here = doc;
    for (const key of path) {
      if (typeof key === "number") here = Array.isArray(here) ? here[key] : undefined;
      else if (here && typeof here === "object" && !Array.isArray(here) && Object.prototype.hasOwnProperty.call(here, key)) here = here[key];
      else return undefined;
    }
    return here;
  }

  function holderOf(doc, parents) {
    let holder = doc;
    for (let n = 0; n < parents.length; n += 1) {
      const key = parents[n];
      if (typeof key === "number") {
        if (!Array.isArray(holder) || key < 0 || key >= holder.length) return null;
        holder = holder[key];
        continue;
      }
      if (!holder || typeof holder !== "object" || Array.isArray(holder)) return null;
      const listNext = typeof parents[n + 1] === "number";
      let inner = holder[key];
      if (listNext) {
        if (!Array.isArray(inner)) return null;
      } else if (!inner || typeof inner !== "object" || Array.isArray(inner)) {
        inner = holder[key] = {};
      }
      holder = inner;
    }
    return holder;
  }

  function apply(doc, path, value) {
    // `value` at `path` (null drops it): a press's, a visit's, a control's `also` and `then`.
    if (path.some((key) => UNSAFE.has(key))) return;
    const holder = holderOf(doc, path.slice(0, -1));
    const last = path[path.length - 1];
    if (!holder || typeof holder !== "object" || Array.isArray(holder) || typeof last !== "string") return;
    if (value === null || value === undefined) delete holder[last];
    else holder[last] = value;
  }

  function edit(doc, control, value) {
    // `control` used with `value` on the answers `doc`, in place: the same edit as
    // `gmtags.builder.controls.change` (fixtures/builder/control-edits.json holds both to it).
    if (["fact", "note", "group", "table"].includes(control.type)) return;
    if (control.type === "visit") return apply(doc, control.path, control.value);
    if (control.path.some((key) => UNSAFE.has(key))) return;
    const holder = holderOf(doc, control.path.slice(0, -1));
    const last = control.path[control.path.length - 1];
    if (!holder || typeof holder !== "object" || Array.isArray(holder) || typeof last !== "string") return;
    const had = holder[last];
    let next;
    if (control.type === "choose") {
      let chosen = Array.isArray(had) ? had.filter((v) => typeof v === "string") : [];
      if (value === null) chosen = [];
      else if (chosen.includes(value)) chosen = chosen.filter((v) => v !== value);
      else if (control.single) chosen = [value];
      else chosen.push(value);
      holder[last] = chosen;
      return;
    }
    if (control.type === "count") next = ((Number.isInteger(had) ? had : 0) + (Number.isInteger(value) ? value : 0)) || null;
    else if (control.type === "press" && control.op === "append") next = [...(Array.isArray(had) ? had : []), control.value];
    else if (control.type === "press" && control.op === "remove") {
      next = Array.isArray(had) ? had.filter((_, n) => n !== control.value) : [];
    } else next = control.type === "press" ? control.value : value;
    if (next === null || next === undefined) delete holder[last];
    else holder[last] = next;
    let more = control.also || [];
    if (control.type === "pick") {
      const found = (control.then || []).find(([v]) => v === value);
      if (found) more = more.concat(found[1]);
    }
    more.forEach(([path, extra]) => apply(doc, path, extra));
  }

  window.gmtagsBuilderView = function (kit) {
    const { el, slug, change, answers } = kit;
    function put(control, value) {
      change((doc) => edit(doc, control, value));
    }

    function idOf(step, control, more) {
      const base = control.name ? "gb-" + slug(control.name) : "gb-v-" + slug(step.id) + "-" + slug(control.path.join("."));
      return base + (more === undefined ? "" : "-" + slug(more));
    }

    function choose(step, control) {
      const chosen = at(answers(), control.path);
      const now = Array.isArray(chosen) ? chosen : [];
      const name = idOf(step, control);
      const full = control.most !== null && !control.single && now.length >= control.most;
      const wrap = el("div", { role: control.single ? "radiogroup" : "group", "aria-label": control.about || control.label, "data-path": control.path.join(".") });
      if (control.label) wrap.append(el("p", { class: "gb-ask" }, control.label));
      if (!control.options.length) {
        if (control.empty) wrap.append(el("p", { class: "gb-note" }, control.empty));
        return wrap;
      }
      const cards = control.options.map((option) => {
        const id = idOf(step, control, option.value);
        const on = now.includes(option.value);
        const box = el("input", { type: control.single ? "radio" : "checkbox", name, id, checked: on,
          disabled: (option.disabled || full) && !on, onchange: () => put(control, option.value) });
        const parts = [el("label", { for: id, class: "gb-card-label" }, box, " ", option.label)];
        if (option.reason) parts.push(el("p", { class: "gb-warn" }, "Kept, not counted: " + option.reason));
        if (option.details.length) parts.push(el("ul", { class: "gb-lines" }, option.details.map((line) => el("li", {}, line))));
        if (option.summary) parts.push(el("details", {}, el("summary", {}, "Info"), el("p", {}, option.summary)));
        return el("li", { class: "gb-card" + (on ? " gb-picked" : "") + (option.reason ? " gb-off" : "") }, parts);
      });
      if (control.single && control.clearable) {
        const id = idOf(step, control, "-none");
        cards.unshift(el("li", { class: "gb-card" }, el("label", { for: id, class: "gb-card-label" },
          el("input", { type: "radio", name, id, checked: !now.length, onchange: () => put(control, null) }), " None")));
      }
      wrap.append(el("ul", { class: "gb-cards", role: "list" }, cards));
      return wrap;
    }

    function valueOf(control) {
      const had = at(answers(), control.path);
      return had === undefined ? control.value : had;
    }

    function typed(step, control) {
      const id = idOf(step, control);
      const value = valueOf(control);
      const shown = value === null || value === undefined ? "" : String(value);
      let input;
      if (control.type === "pick" && control.radios) {
        const name = id;
        return el("fieldset", { class: "gb-methods" }, el("legend", {}, control.label),
          control.choices.map(([v, label]) => {
            const one = id + "-" + slug(v);
            return el("label", { for: one }, el("input", { type: "radio", name, id: one, checked: v === value,
              onchange: () => put(control, v) }), " ", label);
          }));
      }
      if (control.type === "number" && control.buttons) return stepped(step, control, id, value);
      if (control.type === "pick") {
        input = el("select", { id, onchange: (e) => {
          const found = control.choices.find(([v]) => String(v) === e.target.value);
          put(control, found ? found[0] : null);
        } }, el("option", { value: "" }, "—"), control.choices.map(([v, label]) => el("option", { value: String(v) }, label)));
        input.value = shown;
      } else if (control.type === "flag") {
        input = el("input", { type: "checkbox", id, checked: value === true, onchange: (e) => put(control, e.target.checked) });
      } else if (control.type === "number") {
        input = el("input", { type: "number", id, min: control.low, max: control.high, step: control.whole ? "1" : "any",
          inputmode: "numeric", value: shown, oninput: (e) => {
            const text = e.target.value.trim();
            if (text === "") return put(control, null);
            const number = Number(text);
            if (Number.isFinite(number) && (!control.whole || Number.isInteger(number))) put(control, number);
          } });
      } else if (control.long) {
        input = el("textarea", { id, rows: "3", maxlength: control.most, oninput: (e) => put(control, e.target.value === "" ? null : e.target.value) });
        input.value = shown;
      } else {
        input = el("input", { type: "text", id, maxlength: control.most, value: shown,
          oninput: (e) => put(control, e.target.value === "" ? null : e.target.value) });
      }
      return el("div", { class: "gb-field" }, el("label", { for: id }, control.label), input);
    }

    function stepped(step, control, id, value) {
      // A number typed or stepped by − and +, within its limits: typed text off the limits
      // is marked and not sent (leaving the box puts the number back); a step reads the
      // answers at the click, so quick clicks each count.
      const low = control.low;
      const high = control.high;
      const valid = (text) => /^-?\d+$/.test(text) && (low === null || Number(text) >= low) && (high === null || Number(text) <= high);
      const mark = (box, ok) => {
        box.setAttribute("aria-invalid", String(!ok));
        box.setCustomValidity(ok ? "" : "A number from " + low + " to " + high);
      };
      const now = () => { const had = at(answers(), control.path); return Number.isInteger(had) ? had : control.value; };
      const bump = (by) => {
        const next = (now() || 0) + by;
        if ((low !== null && next < low) || (high !== null && next > high)) return;
        put(control, next);
      };
      const box = el("input", { type: "number", id, "aria-label": control.label, min: low, max: high, step: "1",
        inputmode: "numeric", class: "gb-score", value: value === null || value === undefined ? "" : String(value),
        oninput: (e) => { const text = e.target.value.trim(); mark(e.target, valid(text)); if (valid(text)) put(control, Number(text)); },
        onchange: (e) => { if (valid(e.target.value.trim())) return; e.target.value = String(now()); mark(e.target, true); } });
      return el("span", { class: "gb-stepper" }, box,
        el("button", { type: "button", "aria-label": "Lower " + control.label, id: id + "-lower",
          disabled: low !== null && value !== null && value <= low, onclick: () => bump(-1) }, "−"),
        el("button", { type: "button", "aria-label": "Raise " + control.label, id: id + "-raise",
          disabled: high !== null && value !== null && value >= high, onclick: () => bump(1) }, "+"));
    }

    function count(step, control) {
      const id = idOf(step, control);
      const now = at(answers(), control.path);
      const n = Number.isInteger(now) ? now : 0;
      return el("li", { "data-count": control.path.join(".") }, el("span", { class: "gb-target" }, control.label), " ",
        control.shown ? el("span", { class: "gb-value" }, control.shown) : null, " ",
        el("span", { class: "gb-stepper" },
          el("button", { type: "button", id: id + "-less", "aria-label": "Less " + control.label, disabled: !control.lower, onclick: () => put(control, -1) }, "−"),
          el("output", { "aria-label": control.label + " count" }, String(n)),
          el("button", { type: "button", id: id + "-more", "aria-label": "More " + control.label, disabled: !control.higher, onclick: () => put(control, 1) }, "+")));
    }

    function press(step, control) {
      return el("button", { type: "button", id: control.name ? idOf(step, control) : idOf(step, control, control.label), disabled: control.disabled,
        onclick: () => put(control, control.value) }, control.label);
    }

    function table(step, control) {
      // Each row's controls in its cells, their labels read by screen readers only.
      const wide = Math.max(0, ...control.rows.map((row) => row.length));
      const head = el("tr", {}, control.columns.map((c) => el("th", { scope: "col" }, c)),
        wide > control.columns.length ? el("th", { scope: "col" }, el("span", { class: "gb-sr" }, "Remove")) : null);
      const body = control.rows.map((row, n) => el("tr", { class: control.off.includes(n) ? "gb-off" : null },
        row.map((cell, place) => {
          if (cell.type === "fact") {
            const attrs = { "data-label": cell.label };
            if (cell.mark) {
              const [key, value] = cell.mark.split(":");
              attrs["data-" + key.replace(/[^a-z-]/g, "")] = value;
            }
            return place === 0 ? el("th", { scope: "row" }, cell.value) : el("td", attrs, cell.value);
          }
          const drawn = cell.type === "press" ? press(step, cell) : typed(step, cell);
          const label = drawn.querySelector && drawn.querySelector("label");
          if (label) label.className = "gb-sr";
          return el("td", { class: "gb-set" }, drawn);
        })));
      // Rows headed by a fact (a score's ability) fold in two on a phone; rows of inputs stack.
      const headed = control.rows.some((row) => row.length && row[0].type === "fact");
      return el("table", { class: headed ? "gb-scores gb-edit" : "gb-rows", "aria-label": control.label },
        el("thead", {}, head), el("tbody", {}, body));
    }

    function note(control) {
      const tone = control.tone === "points" ? "gb-points" : control.tone === "over" ? "gb-points gb-over"
        : control.tone === "warn" ? "gb-warn" : "gb-note";
      return el("p", { class: tone, "data-pool": control.pool || null, "aria-live": control.pool ? "polite" : null }, control.text);
    }

    function draw(step, controls, into, optional) {
      let list = null;
      let reasons = null;
      for (const control of controls) {
        if (control.type === "note" && control.tone === "reason") {
          if (!reasons) {
            into.append(reasons = el("ul", { class: "gb-reasons", "aria-label": optional ? "What this step notes" : "Why this step waits" }));
          }
          reasons.append(el("li", {}, control.text));
          continue;
        }
        reasons = null;
        if (control.type === "fact" || control.type === "count") {
          if (!list) into.append(list = el("ul", { class: "gb-targets", role: "list" }));
          list.append(control.type === "fact"
            ? el("li", {}, el("span", { class: "gb-target" }, control.label), " ", control.value)
            : count(step, control));
          continue;
        }
        list = null;
        if (control.type === "choose") into.append(choose(step, control));
        else if (["number", "text", "pick", "flag"].includes(control.type)) into.append(typed(step, control));
        else if (control.type === "press") into.append(el("p", {}, press(step, control)));
        else if (control.type === "note") into.append(note(control));
        else if (control.type === "table") into.append(table(step, control));
        else if (control.type === "group") {
          const box = el("fieldset", { class: "gb-group" }, el("legend", {}, control.label));
          draw(step, control.controls, box);
          into.append(box);
        }
      }
      return into;
    }

    function visit(controls, doc) {
      // What opening the step writes (`visit` controls); whether it changed `doc`.
      let changed = false;
      for (const control of controls) {
        if (control.type !== "visit" || at(doc, control.path) === control.value) continue;
        apply(doc, control.path, control.value);
        changed = true;
      }
      return changed;
    }

    return {
      render: (step, controls, optional) => draw(step, controls, el("div", { class: "gb-view" }), optional),
      visit,
    };
  };
  window.gmtagsBuilderView.edit = edit;
})();
