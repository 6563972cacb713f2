/* The builder page's renderer of a step's view (gmtags/builder/controls.py): the controls
 * the Python builder gives a step, drawn without knowing its kind.
 *
 * `window.gmtagsBuilderView(kit)` gives `render(step, controls)`. Each control names the
 * place in the answers it changes (`path`, from the document's root) and how: `choose`
 * toggles its option's value in the list there (`single`: makes the list that value alone;
 * `clearable`: "None" empties it), `number` and `text` put the typed value there (empty
 * drops it), `press` puts its own `value` there, `fact` is read only. What is checked and
 * typed is read from the answers as they stand, so a click shows before its build answers.
 * Every text goes in with textContent only.
 */
(function () {
  "use strict";

  window.gmtagsBuilderView = function (kit) {
    const { el, slug, change, answers } = kit;
    const UNSAFE = new Set(["__proto__", "prototype", "constructor"]);

    function at(doc, path) {
      let here = doc;
      for (const key of path) {
        if (!here || typeof here !== "object" || Array.isArray(here)) return undefined;
        here = Object.prototype.hasOwnProperty.call(here, key) ? here[key] : undefined;
      }
      return here;
    }

    function put(control, value) {
      // The same edit as `gmtags.builder.controls.change`.
      if (control.path.some((key) => UNSAFE.has(key))) return;
      change((doc) => {
        const path = control.path;
        let holder = doc;
        for (const key of path.slice(0, -1)) {
          if (!holder[key] || typeof holder[key] !== "object" || Array.isArray(holder[key])) holder[key] = {};
          holder = holder[key];
        }
        const last = path[path.length - 1];
        if (control.type === "choose") {
          let chosen = Array.isArray(holder[last]) ? holder[last].filter((v) => typeof v === "string") : [];
          if (value === null) chosen = [];
          else if (chosen.includes(value)) chosen = chosen.filter((v) => v !== value);
          else if (control.single) chosen = [value];
          else chosen.push(value);
          holder[last] = chosen;
          return;
        }
        const next = control.type === "press" ? control.value : value;
        if (next === null || next === undefined) delete holder[last];
        else holder[last] = next;
      });
    }

    function idOf(step, control, more) {
      return "gb-v-" + slug(step.id) + "-" + slug(control.path.join(".") || control.label) + (more ? "-" + slug(more) : "");
    }

    function choose(step, control) {
      const chosen = at(answers(), control.path);
      const now = Array.isArray(chosen) ? chosen : [];
      const name = idOf(step, control);
      const cards = control.options.map((option) => {
        const id = idOf(step, control, option.value);
        const box = el("input", { type: control.single ? "radio" : "checkbox", name, id,
          checked: now.includes(option.value), disabled: option.disabled && !now.includes(option.value),
          onchange: () => put(control, option.value) });
        const parts = [el("label", { for: id, class: "gb-card-label" }, box, " ", option.label)];
        if (option.reason) parts.push(el("p", { class: "gb-warn" }, "Kept, not counted: " + option.reason));
        if (option.summary) parts.push(el("details", {}, el("summary", {}, "Info"), el("p", {}, option.summary)));
        return el("li", { class: "gb-card" + (now.includes(option.value) ? " gb-picked" : "") + (option.reason ? " gb-off" : "") }, parts);
      });
      if (control.single && control.clearable) {
        const id = idOf(step, control, "-none");
        cards.unshift(el("li", { class: "gb-card" }, el("label", { for: id, class: "gb-card-label" },
          el("input", { type: "radio", name, id, checked: !now.length, onchange: () => put(control, null) }), " None")));
      }
      const list = el("ul", { class: "gb-cards", role: "list" }, cards);
      return el("div", { role: control.single ? "radiogroup" : "group", "aria-label": control.label },
        el("p", { class: "gb-ask" }, control.label), list);
    }

    function typed(step, control) {
      const id = idOf(step, control);
      const had = at(answers(), control.path);
      const value = had === undefined ? control.value : had;
      const number = control.type === "number";
      const input = el("input", { id, type: number ? "number" : "text", inputmode: number ? "numeric" : null,
        min: number ? control.low : null, max: number ? control.high : null,
        value: value === null || value === undefined ? "" : String(value),
        onchange: (event) => {
          const text = event.target.value.trim();
          if (!text) return put(control, null);
          if (!number) return put(control, text);
          const whole = Number(text);
          if (Number.isInteger(whole)) put(control, whole);
        } });
      return el("p", { class: "gb-field" }, el("label", { for: id }, control.label), " ", input);
    }

    function press(step, control) {
      return el("p", {}, el("button", { type: "button", id: idOf(step, control, control.label),
        onclick: () => put(control, control.value) }, control.label));
    }

    function fact(control) {
      return el("li", {}, el("span", { class: "gb-target" }, control.label), " ", control.value);
    }

    return function render(step, controls) {
      const wrap = el("div", { class: "gb-view" });
      let facts = null;
      for (const control of controls) {
        if (control.type === "fact") {
          if (!facts) wrap.append(facts = el("ul", { class: "gb-targets", role: "list" }));
          facts.append(fact(control));
          continue;
        }
        facts = null;
        if (control.type === "choose") wrap.append(choose(step, control));
        else if (control.type === "number" || control.type === "text") wrap.append(typed(step, control));
        else if (control.type === "press") wrap.append(press(step, control));
      }
      return wrap;
    };
  };
})();
