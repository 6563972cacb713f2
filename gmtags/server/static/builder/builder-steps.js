/* The step kinds of the builder page (SPEC §10, 004): one body per `kind`, looked up by it.
 *
 * `window.gmtagsBuilderSteps(kit)` gives `{bodies, slotView}`; `kit` is what the page
 * (builder.js) shares: its helpers, and `res()` / `answers()` for the last build and the
 * answers as they stand. A body reads the answers at the click (inside `change`), never
 * as they were when it was drawn, so quick clicks each count. Every text goes in with
 * textContent only.
 */
(function () {
  "use strict";

  window.gmtagsBuilderSteps = function (kit) {
    const { el, slug, signed, change, current, stepAnswer, cardOf, anyLabel, refLabel } = kit;
    const { summaryOf, modifier, diceTotal, fieldInput, choiceBox, toggled, targetLabel } = kit;
    const { tierId, tierLabel, untrained, data, sheet, fields, abilities, lists, catalogs } = kit;
    const METHODS = kit.METHODS;

    function loneMethod(step, entry) {
      // A step offering one method, none in force yet: its controls show at once, and the
      // player's first change chooses it (sent with that change). Until then a blank
      // character has no method (004: only `default` starts one); a described one keeps
      // its scores as written.
      const offered = entry.offered || [];
      if (step.kind !== "abilities" || !entry.shown || offered.length !== 1) return null;
      if ((entry.active || []).length || current(step.id).method) return null;
      return kit.res().answers.described === true ? null : offered[0];
    }

    function abilitiesView(step, entry) {
      const answer = current(step.id);
      const lone = loneMethod(step, entry);
      const method = (entry.active || [])[0] || answer.method || lone;
      const methods = step.methods;
      const names = step.abilities || sheet.abilities.filter((a) => !a.computed).map((a) => a.id);
      const scores = answer.scores || {};
      const wrap = el("div", {});
      const group = el("fieldset", { class: "gb-methods" }, el("legend", {}, "Method"));
      (entry.offered || []).forEach((m) => {
        const id = "gb-method-" + slug(m);
        group.append(el("label", { for: id }, el("input", {
          type: "radio", name: "gb-method", id, checked: m === method && !lone,
          onchange: () => change((doc) => {
            const a = stepAnswer(doc, step.id);
            const keep = [m, a.method].every((x) => x === "pointBuy" || x === "manual");
            a.method = m;
            if (!keep) delete a.scores;
            if (m !== "roll" && m !== "rolls") delete a.rolls;
          }),
        }), " ", METHODS[m] || m));
      });
      wrap.append(group);
      if (lone) {
        wrap.append(el("p", { class: "gb-note", "data-lone": lone }, (METHODS[lone] || lone) +
          " is this step's only method: your first change to a score chooses it (or tick it above)."));
      }
      const table = methods.pointBuy ? methods.pointBuy.costs : null;
      const lowest = table ? table[0][0] : null;
      const highest = table ? table[table.length - 1][0] : null;
      const made = ((kit.res().answers.steps || {})[step.id] || {}).rolls || {};
      let set = null;
      if (method === "standardArray") set = [...methods.standardArray];
      if (method === "roll" && methods.roll) {
        set = names.map((_, n) => made[String(n)]).filter((r) => r && r.faces).map((r) => diceTotal(methods.roll, r.faces));
      }
      if (method === "pointBuy" && kit.res().pools[step.id]) {
        const pool = kit.res().pools[step.id];
        wrap.append(el("p", { class: "gb-points" + (pool.remaining < 0 ? " gb-over" : ""), id: "gb-points", "aria-live": "polite" },
          "Points left: ", el("strong", { "data-points": step.id }, String(pool.remaining)), " of " + pool.budget));
      } else if (method === "pointBuy" && lone) {
        wrap.append(el("p", { class: "gb-points" }, "Budget: " + methods.pointBuy.budget + " points; every score starts at " + lowest + "."));
      }
      if (method === "pointBuy") {
        wrap.append(el("p", { class: "gb-note", id: "gb-score-help" }, "Type a score from " + lowest + " to " + highest + ", or use − and +."));
      }
      if (set) {
        const left = [...set];
        names.forEach((a) => { const at2 = left.indexOf(scores[a]); if (a in scores && at2 >= 0) left.splice(at2, 1); });
        wrap.append(el("p", { class: "gb-note" }, (method === "roll" ? "Rolled: " + set.join(", ") + ". " : "") +
          (left.length ? "Left to assign: " + left.join(", ") : "Every value is assigned.")));
      }
      const showMod = (data.modifier || {}).op !== "identity";
      const head = el("tr", {}, ["Ability", "Base", "Bonus", "Total"].map((h) => el("th", { scope: "col" }, h)),
        showMod ? el("th", { scope: "col" }, "Mod") : null, el("th", { scope: "col" }, el("span", { class: "gb-sr" }, "Set")));
      const rows = names.map((a) => {
        const label = (abilities[a] && abilities[a].label) || a;
        const total = (cardOf().abilities || {})[a];
        let base = null;
        let editor = null;
        const write = (v) => change((doc) => {
          const s = stepAnswer(doc, step.id);
          s.method = s.method || method || "manual";
          s.scores = s.scores || {};
          if (v === null || v === undefined) delete s.scores[a]; else s.scores[a] = v;
        });
        if (method === "pointBuy") {
          base = a in scores ? scores[a] : lowest;
          // Read at the click, not at the render: quick clicks each count.
          const bump = (by) => change((doc) => {
            const s = stepAnswer(doc, step.id);
            s.method = "pointBuy";
            s.scores = s.scores || {};
            const now = a in s.scores ? s.scores[a] : lowest;
            s.scores[a] = Math.max(lowest, Math.min(highest, now + by));
          });
          editor = el("span", { class: "gb-stepper" },
            scoreInput(a, label, base, lowest, highest, (v) => change((doc) => {
              const s = stepAnswer(doc, step.id);
              s.method = "pointBuy";
              s.scores = s.scores || {};
              s.scores[a] = v;
            }), () => { const now = current(step.id).scores || {}; return a in now ? now[a] : lowest; }),
            el("button", { type: "button", "aria-label": "Lower " + label, disabled: base <= lowest, onclick: () => bump(-1), id: "gb-lower-" + slug(a) }, "−"),
            el("button", { type: "button", "aria-label": "Raise " + label, disabled: base >= highest, onclick: () => bump(1), id: "gb-raise-" + slug(a) }, "+"));
        } else if (method === "standardArray" || method === "roll") {
          base = a in scores ? scores[a] : null;
          const id = "gb-assign-" + slug(a);
          editor = el("select", { id, "aria-label": label, onchange: (e) => write(e.target.value === "" ? null : Number(e.target.value)) },
            el("option", { value: "" }, "—"),
            [...new Set(set || [])].map((v) => el("option", { value: String(v) }, String(v))));
          editor.value = base === null ? "" : String(base);
        } else if (method === "rolls") {
          const roll = made[a];
          const groupDice = (methods.rolls || []).find((g) => g.abilities.includes(a));
          base = roll && roll.faces && groupDice ? diceTotal(groupDice.dice, roll.faces) : null;
          editor = roll && roll.faces ? el("span", { class: "gb-faces" }, "rolled " + roll.faces.join(" ")) : null;
        } else if (method === "manual") {
          base = a in scores ? scores[a] : null;
          editor = el("input", { type: "number", id: "gb-manual-" + slug(a), "aria-label": label, step: "1",
            value: base === null ? "" : String(base),
            oninput: (e) => { const t = e.target.value.trim(); if (t === "") write(null); else if (Number.isInteger(Number(t))) write(Number(t)); } });
        }
        // Until a method is in force the card's scores are not the method's: no bonus or total.
        const made2 = lone ? undefined : total;
        const bonus = base !== null && typeof made2 === "number" ? made2 - base : null;
        const mod = typeof made2 === "number" ? modifier(made2) : null;
        return el("tr", { "data-ability": a },
          el("th", { scope: "row" }, label),
          el("td", { "data-base": a, "data-label": "Base" }, base === null ? "—" : String(base)),
          el("td", { "data-label": "Bonus" }, bonus === null ? "—" : signed(bonus)),
          el("td", { "data-total": a, "data-label": "Total" }, made2 === undefined ? "—" : String(made2)),
          showMod ? el("td", { "data-label": "Mod" }, mod === null ? "—" : signed(mod)) : null,
          el("td", { class: "gb-set" }, editor));
      });
      // On a phone each row folds in two (the CSS): the ability and its controls, then its numbers.
      wrap.append(el("table", { class: "gb-scores gb-edit" }, el("thead", {}, head), el("tbody", {}, rows)));
      return wrap;
    }

    function scoreInput(ability, label, base, lowest, highest, write, now) {
      // A point-buy score typed in: a whole number on the table, sent to the build as it is
      // typed; anything else is marked and not sent (leaving the box puts the score back).
      const problem = "A score from " + lowest + " to " + highest;
      const valid = (text) => /^-?\d+$/.test(text) && Number(text) >= lowest && Number(text) <= highest;
      const mark = (box, ok) => {
        box.setAttribute("aria-invalid", String(!ok));
        box.setCustomValidity(ok ? "" : problem);
      };
      return el("input", { type: "number", id: "gb-score-" + slug(ability), "aria-label": label,
        min: lowest, max: highest, step: "1", inputmode: "numeric", class: "gb-score",
        "aria-describedby": "gb-score-help", value: String(base),
        oninput: (e) => {
          const text = e.target.value.trim();
          mark(e.target, valid(text));
          if (valid(text)) write(Number(text));
        },
        onchange: (e) => {
          if (valid(e.target.value.trim())) return;
          e.target.value = String(now());
          mark(e.target, true);
        } });
    }

    function slotView(step, slot) {
      const chosen = (kit.answers().choices || {})[slot.key] || [];
      const values = [...slot.offered];
      chosen.forEach((v) => { if (!values.includes(v)) values.push(v); });
      const reasons = Object.fromEntries((slot.inactive || []).map((i) => [i.answer, i.reason]));
      const single = slot.count === 1;
      const full = !single && chosen.length >= slot.count;
      const hint = step.kind === "choices" ? step.catalog : null;
      const legend = slotTitle(slot) + (slot.pending ? " (" + slot.pending + " to go)" : "");
      return el("fieldset", { class: "gb-slot", "data-slot": slot.key },
        el("legend", {}, legend),
        el("ul", { class: "gb-options", role: "list" }, values.map((v) => choiceBox({
          id: "gb-choice-" + slug(slot.key) + "-" + slug(v),
          label: anyLabel(v, hint),
          checked: chosen.includes(v),
          disabled: full && !chosen.includes(v),
          reason: reasons[v],
          toggle: () => change((doc) => {
            doc.choices = doc.choices || {};
            doc.choices[slot.key] = toggled(doc.choices[slot.key], v, single);
          }),
        }))));
    }

    function slotTitle(slot) {
      const parts = slot.key.split("/");
      const source = kit.steps.find((s) => s.id === parts[0]);
      let from = source ? source.label : parts[0];
      if (parts.length >= 3 && parts[1] !== "replacement") from += " · " + anyLabel(parts[1], source && source.catalog);
      else if (parts[1] && !/^choose\.\d+$/.test(parts[1])) from += " · " + parts[1].replace(/_/g, " ");
      if (slot.key.endsWith("/replacement")) from += " (replacement)";
      return from + ": choose " + slot.count;
    }

    const BODIES = { abilities: abilitiesView };

    return { bodies: BODIES, slotView, loneMethod };
  };
})();
