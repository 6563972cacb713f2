// The state page follows its chat live and lets the reader choose a reply.
//
// The server renders everything; this script only fetches the page again and swaps in its
// parts (the state, the "showing" line, the timeline), so no text from the chat is ever put
// into the page as HTML here. What changed is learnt from the chat's events stream
// (server-sent events); when that is not available or drops, the chat's JSON is polled.
//
// However long the timeline, the current reply is one tap (the "Current reply" link at the
// top) or one key (C) away; a link to a reply's entry (`#reply-<id>`) scrolls to it and
// focuses it. Choosing a reply while the state panel is out of view (one column, on a
// phone) scrolls the panel into view; its "showing" line links back to the reply.
(function () {
  "use strict";
  var body = document.body;
  var api = body.dataset.api;
  if (!api || !window.fetch || !window.DOMParser || !window.gmtagsFollow) {
    return;
  }
  var POLL_MS = 1500;
  var live = document.getElementById("live");
  var signature = null;

  function nodeIds() {
    var ids = {};
    document.querySelectorAll("#timeline-body .node[data-node]").forEach(function (el) {
      ids[el.dataset.node] = true;
    });
    return ids;
  }

  function swap(doc, id) {
    var fresh = doc.getElementById(id);
    var old = document.getElementById(id);
    if (fresh && old) {
      old.replaceWith(document.importNode(fresh, true));
    }
  }

  function openDetails() {
    var open = {};
    document.querySelectorAll("#state-body details[open], #timeline-body details[open]").forEach(
      function (el) {
        var holder = el.closest("[data-node], [data-character]") || el.parentElement;
        var key = holder && (holder.dataset.node || holder.dataset.character || holder.id);
        open[key || ""] = true;
      }
    );
    return open;
  }

  function reopen(open) {
    document.querySelectorAll("#state-body details, #timeline-body details").forEach(function (el) {
      var holder = el.closest("[data-node], [data-character]") || el.parentElement;
      var key = holder && (holder.dataset.node || holder.dataset.character || holder.id);
      if (open[key || ""]) {
        el.open = true;
      }
    });
  }

  // Fetch the page at `url` and put its state, "showing" line and timeline in this one.
  function load(url, announce) {
    return fetch(url, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var before = nodeIds();
        var focused = document.activeElement;
        var focusedNode =
          focused && focused.classList && focused.classList.contains("node-link")
            ? focused.dataset.node
            : null;
        var open = openDetails();
        var timeline = document.getElementById("timeline-body");
        timeline.setAttribute("aria-busy", "true");
        swap(doc, "state-body");
        swap(doc, "viewing");
        swap(doc, "jump");
        swap(doc, "timeline-body");
        reopen(open);
        body.dataset.shown = doc.body.dataset.shown || "current";
        if (focusedNode) {
          var link = findLink(focusedNode);
          if (link) {
            link.focus();
          }
        }
        if (announce) {
          var after = nodeIds();
          var fresh = Object.keys(after).filter(function (id) {
            return !before[id];
          });
          if (fresh.length === 1) {
            live.textContent = "New reply: " + replyName(fresh[0]) + ".";
          } else if (fresh.length > 1) {
            live.textContent = fresh.length + " new replies.";
          }
        }
      });
  }

  // A reply as its timeline entry names it ("Reply 3, swipe 2 of 2 “The gate…”"), as text.
  function replyName(node) {
    var link = findLink(node);
    if (!link) {
      return "a reply";
    }
    var title = link.querySelector(".node-title");
    var words = link.querySelector(".reply-words");
    return (title ? title.textContent : "a reply") + (words ? " “" + words.textContent + "”" : "");
  }

  // Scroll to a reply's entry (`reply-<id>`, `reply-start`) and focus its link.
  function jumpTo(id) {
    var entry = document.getElementById(id);
    var link = entry && entry.querySelector("a.node-link");
    if (!link) {
      return false;
    }
    entry.scrollIntoView({ block: "center" });
    link.focus({ preventScroll: true });
    entry.classList.remove("jumped");
    void entry.offsetWidth; // restart the highlight when the same entry is jumped to again
    entry.classList.add("jumped");
    return true;
  }

  function currentEntry() {
    var jump = document.querySelector("#jump a.jump-link");
    return jump ? jump.getAttribute("href").slice(1) : null;
  }

  // One column (a phone): the state panel is above the timeline, so the reply just chosen
  // changed a panel out of sight. Bring its "showing" line into view, focused; that line
  // links back to the reply. Beside the timeline the panel stays in view on its own.
  function showState() {
    var viewing = document.getElementById("viewing");
    var state = document.getElementById("state");
    var timeline = document.getElementById("timeline");
    if (!viewing || !state || !timeline) {
      return;
    }
    var beside = state.getBoundingClientRect().right <= timeline.getBoundingClientRect().left;
    var box = viewing.getBoundingClientRect();
    if (!beside && (box.top < 0 || box.bottom > window.innerHeight)) {
      state.scrollIntoView({ block: "start" });
      viewing.focus({ preventScroll: true });
    }
  }

  function findLink(node) {
    var links = document.querySelectorAll("#timeline-body .node-link");
    for (var i = 0; i < links.length; i++) {
      if (links[i].dataset.node === node) {
        return links[i];
      }
    }
    return null;
  }

  // The replies and the current one, as the chat's JSON has them and as the page shows them.
  function shape(chat) {
    var ids = chat.nodes.map(function (node) {
      return String(node.id);
    });
    var current = chat.nodes.filter(function (node) {
      return node.current;
    });
    return ids.sort().join(",") + "|" + (current.length ? String(current[0].id) : "start");
  }

  function shown() {
    var ids = [];
    var current = "start";
    document.querySelectorAll("#timeline-body a.node-link").forEach(function (link) {
      if (link.dataset.node !== "start") {
        ids.push(link.dataset.node);
      }
      if (link.querySelector(".badge")) {
        current = link.dataset.node;
      }
    });
    return ids.sort().join(",") + "|" + current;
  }

  // A reading of the chat's JSON (`follow.js`): when it differs from the last reading (on
  // the first, when the replies are not the ones the page was rendered with: one made in
  // between), load the page again.
  function read(text) {
    var changed = signature !== null ? text !== signature : shape(JSON.parse(text)) !== shown();
    signature = text;
    return changed ? load(window.location.href, true) : null;
  }

  // Choosing a reply: show the state after it without leaving the page. A link to a reply's
  // entry jumps to it without a new history entry.
  document.addEventListener("click", function (event) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) {
      return;
    }
    var to = event.target.closest && event.target.closest('a[href^="#reply-"]');
    if (to && jumpTo(to.getAttribute("href").slice(1))) {
      event.preventDefault();
      return;
    }
    var link = event.target.closest && event.target.closest("#timeline-body a.node-link");
    if (!link) {
      return;
    }
    event.preventDefault();
    window.history.pushState({}, "", link.href);
    link.focus();
    load(link.href, false).then(function () {
      var viewing = document.getElementById("viewing");
      live.textContent = viewing ? viewing.textContent : "";
      showState();
    }).catch(function () {
      window.location.href = link.href;
    });
  });

  window.addEventListener("popstate", function () {
    load(window.location.href, false).catch(function () {
      window.location.reload();
    });
  });

  // C: to the current reply, from anywhere on the page but a field being typed in.
  document.addEventListener("keydown", function (event) {
    var here = event.target;
    if (
      (event.key !== "c" && event.key !== "C") ||
      event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented ||
      (here.closest && here.closest("input, textarea, select, [contenteditable]"))
    ) {
      return;
    }
    var entry = currentEntry();
    if (entry && jumpTo(entry)) {
      event.preventDefault();
    }
  });

  // Arrow keys, Home and End move between the timeline's replies.
  document.addEventListener("keydown", function (event) {
    var here = event.target;
    if (!here.classList || !here.classList.contains("node-link")) {
      return;
    }
    var links = Array.prototype.slice.call(document.querySelectorAll("#timeline-body .node-link"));
    var at = links.indexOf(here);
    var to = null;
    if (event.key === "ArrowDown" || event.key === "ArrowRight") {
      to = Math.min(at + 1, links.length - 1);
    } else if (event.key === "ArrowUp" || event.key === "ArrowLeft") {
      to = Math.max(at - 1, 0);
    } else if (event.key === "Home") {
      to = 0;
    } else if (event.key === "End") {
      to = links.length - 1;
    }
    if (to !== null && at >= 0) {
      event.preventDefault();
      links[to].focus();
    }
  });

  window.gmtagsFollow(api, read, { pollMs: POLL_MS });
})();
