// The compact state (`?embed=1`) follows its chat live.
//
// The server renders everything; this script fetches the page again and swaps in the state
// and its one-line note, so no text from the chat is put into the page as HTML here. What
// changed is learnt from the chat's events stream (server-sent events), else by polling the
// chat's JSON. A page waiting for a chat's first reply loads itself once the chat exists.
(function () {
  "use strict";
  var body = document.body;
  var api = body.dataset.api;
  if (!api || !window.fetch || !window.DOMParser || !window.gmtagsFollow) {
    return;
  }
  var POLL_MS = 1000;
  var live = document.getElementById("live");
  var signature = null;
  var quiet = null;
  var QUIET_MS = 6000; // how long "Updated: …" stays (the compact panel has little room)

  function swap(doc, id) {
    var fresh = doc.getElementById(id);
    var old = document.getElementById(id);
    if (fresh && old) {
      old.replaceWith(document.importNode(fresh, true));
    }
  }

  // The replies and the current one, as the server writes them in `data-version`.
  function version(chat) {
    var current = chat.nodes.filter(function (node) {
      return node.current;
    });
    return chat.nodes.length + "|" + (current.length ? String(current[0].id) : "start");
  }

  function load() {
    return fetch(window.location.href, { headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var before = document.getElementById("viewing").textContent;
        swap(doc, "state-body");
        swap(doc, "viewing");
        body.dataset.version = doc.body.dataset.version || "";
        var after = document.getElementById("viewing").textContent;
        if (after !== before) {
          live.textContent = "Updated: " + after.replace(/^(Live|Pinned) \u00b7 /, "");
          window.clearTimeout(quiet);
          quiet = window.setTimeout(function () {
            live.textContent = "";
          }, QUIET_MS);
        }
      });
  }

  // A reading of the chat's JSON (`follow.js`): load the state again when it changed.
  function read(text) {
    if (body.dataset.mode === "waiting") {
      window.location.reload(); // the chat's first reply: the whole page, with the state
      return null;
    }
    var changed =
      signature !== null ? text !== signature : version(JSON.parse(text)) !== body.dataset.version;
    signature = text;
    return changed ? load() : null;
  }

  window.gmtagsFollow(api, read, {
    pollMs: POLL_MS,
    pollOnly: function () {
      return body.dataset.mode === "waiting"; // a chat not made yet has no events stream
    },
  });
})();
