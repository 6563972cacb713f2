// Following a chat live, for the state page and its compact form (`?embed=1`).
//
// `gmtagsFollow(api, read, options)` reads the chat's JSON (`api`) once at once, again on
// every event of its events stream (server-sent events), and every `options.pollMs` while
// the stream is unavailable or has dropped (`options.pollOnly()` true: poll only, as for a
// chat not made yet, which has no stream). Each reading's text goes to `read(text)`, which
// returns a promise (or null); one reading runs at a time, and a reading asked for while
// one runs is made once it ends.
(function () {
  "use strict";
  window.gmtagsFollow = function (api, read, options) {
    var checking = false;
    var again = false;
    var poller = null;

    function check() {
      if (checking) {
        again = true;
        return Promise.resolve();
      }
      checking = true;
      return fetch(api, { cache: "no-store" })
        .then(function (response) {
          return response.ok ? response.text() : null;
        })
        .then(function (text) {
          return text === null ? null : read(text);
        })
        .catch(function () {
          return null;
        })
        .then(function () {
          checking = false;
          if (again) {
            again = false;
            return check();
          }
          return null;
        });
    }

    function startPolling() {
      if (poller === null) {
        poller = window.setInterval(check, options.pollMs);
      }
    }

    function stopPolling() {
      if (poller !== null) {
        window.clearInterval(poller);
        poller = null;
      }
    }

    function follow() {
      if (!window.EventSource || (options.pollOnly && options.pollOnly())) {
        startPolling();
        return;
      }
      var source = new EventSource(api + "/events");
      source.addEventListener("open", function () {
        stopPolling();
        check(); // anything that happened while the stream was closed
      });
      ["node", "current", "changed"].forEach(function (kind) {
        source.addEventListener(kind, function () {
          check();
        });
      });
      source.addEventListener("error", function () {
        startPolling();
        if (source.readyState === EventSource.CLOSED) {
          window.setTimeout(follow, 2000);
        }
      });
    }

    check(); // the first reading, which later ones are compared with
    follow();
  };
})();
