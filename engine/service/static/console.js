/* GRACE operator console: reads the operator API and shows, turn by turn, what the engine decided and why.
 * Plain JavaScript, no build step. Every server value is inserted as text (never as HTML).
 * The token lives in sessionStorage only; a "#token=..." fragment (printed by `grace serve --demo`) is
 * consumed once and removed from the address bar.
 */
(function () {
  "use strict";

  var TOKEN_KEY = "grace-console-token";
  var token = null;
  var selected = null;
  var me = null;  // { name, role } of the signed-in operator
  var ROLES = { viewer: 1, sales: 2, auditor: 3, admin: 4 };
  function may(role) { return me !== null && (ROLES[me.role] || 0) >= ROLES[role]; }

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "class") { node.className = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
    });
    (Array.isArray(children) ? children : (children === undefined || children === null ? [] : [children]))
      .forEach(function (child) {
        if (child === null || child === undefined || child === false) { return; }
        node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
      });
    return node;
  }

  // -- token -------------------------------------------------------------------------------------
  // "#conversation=<id>": the transcript link of a handoff opens that conversation once signed in.
  var openOnLoad = (window.location.hash.match(/conversation=([0-9a-f]{8,64})/) || [null, null])[1];

  function readToken() {
    var match = window.location.hash.match(/token=([^&]+)/);
    if (match) {
      try { window.sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1])); } catch (e) { /* ignore */ }
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    try { return window.sessionStorage.getItem(TOKEN_KEY); } catch (e) { return null; }
  }

  function api(path, method) {
    return fetch(path, { method: method || "GET", headers: { "Authorization": "Bearer " + token, "Accept": "application/json" } })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (data) {
          if (res.status === 401) { signOut("The token was not accepted."); throw new Error("auth"); }
          if (!res.ok) {
            var err = new Error(data && data.error ? data.error.code + ": " + data.error.message : "HTTP " + res.status);
            err.status = res.status;
            throw err;
          }
          return data;
        });
      });
  }

  function showSignin(message) {
    $("app").hidden = true;
    $("signout").hidden = true;
    $("signin").hidden = false;
    $("whoami").textContent = "";
    var err = $("signin-error");
    err.hidden = !message;
    err.textContent = message || "";
    $("token").focus();
  }

  function signOut(message) {
    token = null;
    try { window.sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* ignore */ }
    showSignin(message);
  }

  function showApp() {
    $("signin").hidden = true;
    $("app").hidden = false;
    $("signout").hidden = false;
    $("whoami").textContent = "Signed in";
    api("/v1/operator/me").then(function (who) {
      me = who;
      $("whoami").textContent = "Signed in as " + who.name + " (" + who.role + ")";
      $("dead-letters").hidden = !may("auditor");
      $("export-leads").hidden = !may("sales");
      $("analytics").hidden = !may("auditor");
    }).catch(function () { /* the list call reports the problem */ });
    loadList();
  }

  // -- helpers for records of either shape -------------------------------------------------------
  function bitsOf(value) {
    if (typeof value === "string") { return value.split("").map(Number); }
    if (value && Array.isArray(value.bits)) { return value.bits.slice(); }
    return [];
  }
  function actionOf(rec) { return rec.action || rec.chosen_action || "NONE"; }
  function failOf(rec) {
    var f = rec.fail_closed;
    if (!f) { return null; }
    return typeof f === "string" ? { code: f, message: "" } : { code: f.code, message: f.message || "" };
  }
  // The visitor's consent, noted in the first turn's record when the company asks for it (widget config).
  function consentOf(rec) {
    var found = (rec.notes || []).filter(function (n) { return n.indexOf("consent.given") === 0; });
    return found.length ? found[0] : null;
  }
  function field(c, name) {
    if (c[name] !== undefined && c[name] !== null) { return c[name]; }
    return c.command && c.command[name] !== undefined ? c.command[name] : null;
  }
  function witnessOf(c) {
    var w = c.witness || (c.command && c.command.span) || null;
    if (!w || w.start === null || w.start === undefined || w.end === null || w.end === undefined) { return null; }
    return { turn: w.turn, start: Number(w.start), end: Number(w.end) };
  }
  // Offsets are Python string indices (code points); JavaScript strings index UTF-16 units.
  function codepoints(text) { return Array.from(text || ""); }
  function sliceCp(text, start, end) { return codepoints(text).slice(start, end).join(""); }

  function messageOf(state, role, turn) {
    var found = null;
    (state.messages || []).forEach(function (m) { if (m.role === role && m.turn === turn) { found = m; } });
    return found;
  }

  function bitsView(bits, objectives, before) {
    var box = el("span", { "class": "bits" });
    bits.forEach(function (b, i) {
      var obj = objectives[i];
      var changed = before && before[i] !== b;
      box.appendChild(el("span", {
        "class": "bit" + (b ? " on" : "") + (changed ? " changed" : ""),
        "title": (obj ? obj.name + " (" + obj.id + ")" : "objective " + (i + 1)) + ": " + (b ? "complete" : "open")
      }, String(b)));
    });
    return box;
  }

  // Visitor text with witness spans marked: accepted completions green, rejected candidates amber/dashed.
  function highlighted(text, spans) {
    var cps = codepoints(text);
    var cuts = [0, cps.length];
    spans.forEach(function (s) {
      cuts.push(Math.max(0, Math.min(cps.length, s.start)));
      cuts.push(Math.max(0, Math.min(cps.length, s.end)));
    });
    cuts = cuts.filter(function (v, i, a) { return a.indexOf(v) === i; }).sort(function (a, b) { return a - b; });
    var out = el("div", { "class": "text", "data-testid": "console-visitor-text" });
    for (var i = 0; i < cuts.length - 1; i++) {
      var a = cuts[i], b = cuts[i + 1];
      var piece = cps.slice(a, b).join("");
      var covering = spans.filter(function (s) { return s.start <= a && s.end >= b; });
      if (!covering.length) { out.appendChild(document.createTextNode(piece)); continue; }
      var accepted = covering.some(function (s) { return s.accepted; });
      var label = covering.map(function (s) {
        return (s.objective || "?") + " · " + (s.accepted ? "accepted" : "rejected: " + s.reason);
      }).join("; ");
      out.appendChild(el("mark", {
        "class": accepted ? "accepted" : "rejected",
        "title": label,
        "data-testid": accepted ? "console-witness" : "console-witness-rejected",
        "data-objective": covering.map(function (s) { return s.objective; }).join(" ")
      }, piece));
    }
    return out;
  }

  function num(value) {
    if (value === null || value === undefined) { return "—"; }
    if (typeof value === "number") { return (Math.round(value * 1000) / 1000).toString(); }
    var s = String(value);
    if (/^-?\d+\/\d+$/.test(s)) {  // exact fractions are recorded as "p/q"
      var parts = s.split("/");
      return (Math.round(Number(parts[0]) / Number(parts[1]) * 1000) / 1000).toString() + " (" + s + ")";
    }
    return s;
  }

  function rubricOf(u) {
    var out = [];
    ["R", "B", "D", "P"].forEach(function (k) {
      var names = { R: "relevance", B: "burden", D: "repetition", P: "privacy" };
      var level = null, why = null;
      if (u[k] && typeof u[k] === "object") { level = u[k].value; why = u[k].rationale; }
      else if (u.rubric) { level = u.rubric[k]; why = u.rubric.rationale ? (u.rubric.rationale[k] || u.rubric.rationale[names[k]]) : null; }
      if (level !== null && level !== undefined) { out.push({ key: k, name: names[k], level: level, why: why }); }
    });
    return out;
  }

  // A wide table scrolls inside its own focusable region instead of pushing the page wider (narrow screens).
  function scrollable(label, table) {
    return el("div", { "class": "table-wrap", "role": "region", "aria-label": label, "tabindex": "0" }, table);
  }

  // A candidate's value as the console may show it. Audit records keep personal values sealed ("enc:siv:…"): an
  // accepted value is shown from the conversation's stored state (already opened by the server for this role);
  // any other sealed value gets a label, never the ciphertext.
  var SEALED = "enc:siv:";
  function shownValue(c, w, state) {
    var v = field(c, "value");
    if (v === null || v === undefined) {
      return c.value_digest ? "(kept out of the audit record; the witness shows the visitor's words)" : "—";
    }
    if (typeof v !== "string") { return JSON.stringify(v); }
    if (v.indexOf(SEALED) !== 0) { return v; }
    var records = ((state && state.values) || {})[field(c, "objective")] || [];
    var hit = null;
    records.forEach(function (r) {
      if (w && r.turn === w.turn && r.span_start === w.start && r.span_end === w.end) { hit = r; }
    });
    if (hit && typeof hit.value === "string" && hit.value.indexOf(SEALED) !== 0) { return hit.value; }
    return "(encrypted personal value; the witness shows the visitor's words)";
  }

  // -- views -------------------------------------------------------------------------------------
  function candidateTable(rec, state) {
    var cands = rec.candidates || [];
    var malformed = rec.malformed || [];
    if (!cands.length && !malformed.length) { return el("p", { "class": "muted" }, "The proposer suggested no commands this turn."); }
    var body = el("tbody");
    cands.forEach(function (c) {
      var w = witnessOf(c);
      var quote = "";
      if (w) {
        var m = messageOf(state, "visitor", w.turn);
        quote = m ? sliceCp(m.text, w.start, w.end) : "";
      }
      var accepted = !!c.accepted;
      var reason = c.reason_code || (accepted ? "accepted" : "rejected");
      var details = [c.rule_id ? "rule " + c.rule_id : null, c.validator ? "validator " + c.validator : null,
                     c.validator_code ? c.validator_code : null, c.judgement ? "judgement: " + c.judgement : null]
        .filter(Boolean).join(" · ");
      body.appendChild(el("tr", { "data-testid": accepted ? "console-candidate-accepted" : "console-candidate-rejected" }, [
        el("td", {}, String(field(c, "type") || "?")),
        el("td", {}, String(field(c, "objective") || "—")),
        el("td", {}, w ? [el("q", {}, quote || "(span not found)"), el("div", { "class": "muted mono" }, "turn " + w.turn + " [" + w.start + ", " + w.end + ")")] : "—"),
        el("td", { "class": "value" }, shownValue(c, w, state)),
        el("td", {}, [el("span", { "class": "badge " + (accepted ? "ok" : "warn") }, accepted ? "accepted" : "rejected"),
                      el("div", { "class": "mono" }, reason), details ? el("div", { "class": "muted" }, details) : null])
      ]));
    });
    malformed.forEach(function (m) {
      body.appendChild(el("tr", { "data-testid": "console-candidate-rejected" }, [
        el("td", {}, "malformed"), el("td", {}, "—"), el("td", { "class": "mono" }, JSON.stringify(m.item || m).slice(0, 160)),
        el("td", {}, "—"), el("td", {}, [el("span", { "class": "badge warn" }, "rejected"), el("div", { "class": "mono" }, m.reason_code || m.code || "command.malformed")])
      ]));
    });
    return scrollable("Candidate commands", el("table", { "class": "candidates" }, [el("thead", {}, el("tr", {}, ["Command", "Objective", "Witness (visitor's words)", "Value", "Decision"].map(function (h) { return el("th", {}, h); }))), body]));
  }

  function utilityTable(rec, objectives) {
    var utils = rec.utilities || [];
    if (!utils.length) { return el("p", { "class": "muted" }, "No actions were scored (the turn failed closed or nothing was left to ask)."); }
    var chosen = actionOf(rec);
    var names = {};
    objectives.forEach(function (o) { names[o.id] = o.name; });
    var body = el("tbody");
    utils.forEach(function (u) {
      var action = u.action;
      var m = /^ASK\((.+)\)$/.exec(action);
      var objective = m ? m[1] : (action !== "NONE" && names[action] ? action : null);
      var isChosen = action === chosen || (objective && chosen === "ASK(" + objective + ")");
      var rubric = rubricOf(u);
      var rationale = rubric.length
        ? el("ul", { "class": "rationale" }, rubric.map(function (r) { return el("li", {}, r.name + " " + num(r.level) + (r.why ? " — " + r.why : "")); }))
        : el("span", { "class": "muted" }, action === "NONE" ? "Asking nothing is always allowed." : "—");
      var recorded = objective && !u.feasible && !u.vetoed && Number(num(u.U_B).split(" ")[0]) === 0;
      var status = u.vetoed ? el("span", { "class": "badge bad", "title": "refused by the visitor, a stop request, or asked in too many turns in a row" }, "not allowed (vetoed)")
        : recorded ? el("span", { "class": "badge" }, "already recorded")
        : (u.feasible ? el("span", { "class": "badge ok" }, "may be asked") : el("span", { "class": "badge warn", "title": "visitor utility U_V is below the threshold ε" }, "too costly for the visitor (below ε)"));
      if (recorded) { rationale = el("span", { "class": "muted" }, "Recorded earlier: nothing to ask."); }
      body.appendChild(el("tr", { "class": (isChosen ? "chosen " : "") + (u.feasible ? "" : "infeasible"), "data-testid": isChosen ? "console-utility-chosen" : "console-utility" }, [
        el("td", {}, [objective ? (names[objective] || objective) : "No question", el("div", { "class": "muted mono" }, action), isChosen ? el("strong", {}, "✓ chosen") : null]),
        el("td", { "class": "num" }, num(u.U_B)),
        el("td", { "class": "num" }, num(u.U_V)),
        el("td", {}, status),
        el("td", {}, rationale)
      ]));
    });
    return scrollable("Questions considered", el("table", {}, [el("thead", {}, el("tr", {}, ["Question", "Value to the company (U_B)", "Cost–benefit for the visitor (U_V)", "Status", "Why (rubric)"].map(function (h) { return el("th", {}, h); }))), body]));
  }

  // The Z3 check asks for a counterexample to the invariants: "unsat" means none exists (the transition is safe).
  var SAFETY = {
    unsat: ["ok", "✓ safety check passed", "Z3 proved that no invariant (monotonic state, visitor-only evidence, weights, ε-floor, vetoes) can be violated by this transition."],
    sat: ["bad", "✗ safety check found a violation", "Z3 found a counterexample: the transition was refused and the state kept (failed closed)."],
    unknown: ["warn", "? safety check inconclusive", "Z3 could not decide in time: the transition was refused and the state kept (failed closed)."]
  };

  function safetyBadge(status) {
    if (!status) { return el("span", { "class": "badge", "title": "No transition was checked: the turn decided nothing." }, "no transition checked"); }
    var s = SAFETY[status] || ["warn", "safety check: " + status, ""];
    return el("span", { "class": "badge " + s[0], "title": s[2], "data-testid": "console-safety" }, s[1]);
  }

  function turnCard(rec, state, objectives) {
    var turn = rec.turn;
    var before = bitsOf(rec.state_before);
    var after = bitsOf(rec.state_after);
    var fail = failOf(rec);
    var visitor = messageOf(state, "visitor", turn);
    var bot = messageOf(state, "assistant", turn);
    var spans = [];
    (rec.candidates || []).forEach(function (c) {
      var w = witnessOf(c);
      if (w && w.turn === turn) {
        spans.push({ start: w.start, end: w.end, accepted: !!c.accepted, objective: field(c, "objective"), reason: c.reason_code });
      }
    });
    var head = el("div", { "class": "turn-head" }, [
      el("h3", {}, "Turn " + turn),
      el("div", {}, [bitsView(before, objectives), el("span", { "class": "arrow" }, "→"), bitsView(after, objectives, before)]),
      el("div", {}, [
        el("span", { "class": "badge", "data-testid": "console-action" }, actionOf(rec)),
        " ",
        fail ? el("span", { "class": "badge bad", "title": fail.message }, "failed closed: " + fail.code) : null,
        consentOf(rec) ? el("span", { "class": "badge ok", "title": consentOf(rec), "data-testid": "console-consent" }, "consent given") : null,
        " ",
        safetyBadge(rec.invariant_check)
      ])
    ]);
    var citations = (rec.answer && rec.answer.citations) || [];
    var card = el("article", { "class": "turn", "data-testid": "console-turn", "data-turn": String(turn) }, [
      head,
      el("div", { "class": "said" }, [el("div", { "class": "who" }, "Visitor"), visitor ? highlighted(visitor.text, spans) : el("div", { "class": "text muted" }, "(message not stored)")]),
      el("h4", {}, "Candidate commands"),
      candidateTable(rec, state),
      el("h4", {}, "Question choice (utilities)"),
      utilityTable(rec, objectives),
      el("div", { "class": "said bot" }, [el("div", { "class": "who" }, "Assistant's reply (as the visitor saw it)"), el("div", { "class": "text" }, bot && bot.text ? bot.text : (rec.question || "(no reply text: the turn recorded nothing to say)"))]),
      citations.length ? el("ol", { "class": "citations" }, citations.map(function (c) { return el("li", {}, c.label || c.source); })) : null,
      el("div", { "class": "kv" }, [
        rec.seq !== undefined ? el("span", {}, "record seq " + rec.seq) : null,
        rec.hash ? el("span", { "class": "mono", "title": rec.hash }, "hash " + String(rec.hash).slice(0, 19) + "…") : null,
        rec.proposer ? el("span", {}, "proposer " + rec.proposer.name + " " + rec.proposer.version) : null,
        rec.timings_ms && rec.timings_ms.total_ms !== undefined ? el("span", {}, "total " + rec.timings_ms.total_ms + " ms") : null
      ])
    ]);
    return card;
  }

  // The values the conversation recorded, one row per objective in approved order, with the turn and the
  // visitor's own words that support each (corrections listed after the first value).
  function valuesTable(state, objectives) {
    var values = state.values || {};
    var body = el("tbody");
    objectives.forEach(function (o) {
      var history = values[o.id] || [];
      var latest = history.length ? history[history.length - 1] : null;
      var words = "";
      if (latest) {
        var m = messageOf(state, "visitor", latest.turn);
        words = m ? sliceCp(m.text, latest.span_start, latest.span_end) : "";
      }
      body.appendChild(el("tr", { "data-testid": "console-value", "data-objective": o.id }, [
        el("td", {}, o.name),
        el("td", {}, latest ? String(latest.value) : el("span", { "class": "muted" }, "not recorded")),
        el("td", {}, latest ? el("q", {}, words || "(span not found)") : "—"),
        el("td", {}, latest ? "turn " + latest.turn + (history.length > 1 ? " (corrected " + (history.length - 1) + "×)" : "") : "—")
      ]));
    });
    return el("section", { "aria-label": "Recorded values" }, [
      el("h2", {}, "Recorded values"),
      el("table", {}, [el("thead", {}, el("tr", {}, ["Objective", "Value", "Visitor's words", "When"].map(function (h) { return el("th", {}, h); }))), body])
    ]);
  }

  // The audit packet: report + the files `grace audit verify` re-checks offline (fetched with the token).
  function packetButton(id) {
    var button = el("button", { "type": "button", "class": "secondary", "data-testid": "console-packet" }, "Download audit packet");
    button.addEventListener("click", function () {
      fetch("/v1/operator/conversations/" + encodeURIComponent(id) + "/audit/packet", { headers: { "Authorization": "Bearer " + token } })
        .then(function (res) {
          if (!res.ok) { throw new Error("HTTP " + res.status); }
          return res.blob();
        })
        .then(function (blob) {
          var link = el("a", { "href": URL.createObjectURL(blob), "download": "audit-" + id + ".zip" });
          document.body.appendChild(link);
          link.click();
          link.remove();
        })
        .catch(function (err) { button.textContent = "Download failed: " + err.message; });
    });
    return button;
  }

  function chainBanner(status) {
    if (!status) { return el("div", { "class": "chain unknown", "data-testid": "console-chain" }, "Audit chain status unavailable."); }
    if (status.ok) {
      var anchored = status.anchored_seq === null || status.anchored_seq === undefined
        ? "no keyed checkpoint yet" : "head anchored by the keyed checkpoint at seq " + status.anchored_seq;
      return el("div", { "class": "chain ok", "data-testid": "console-chain", "data-ok": "true" }, [
        "✓ Audit chain verified", el("small", {}, status.records + " record(s); " + anchored + ".")]);
    }
    return el("div", { "class": "chain bad", "data-testid": "console-chain", "data-ok": "false" }, [
      "✗ Audit chain check failed: " + status.code,
      el("small", {}, (status.failed_seq !== null && status.failed_seq !== undefined ? "at seq " + status.failed_seq + ": " : "") + (status.message || ""))]);
  }

  function showDetail(id) {
    selected = id;
    Array.prototype.forEach.call(document.querySelectorAll(".conv-item"), function (b) {
      b.setAttribute("aria-current", b.getAttribute("data-id") === id ? "true" : "false");
    });
    var detail = $("detail");
    detail.textContent = "";
    detail.appendChild(el("p", { "class": "muted" }, "Loading…"));
    var base = "/v1/operator/conversations/" + encodeURIComponent(id);
    Promise.all([
      api(base),
      api(base + "/audit"),
      api(base + "/audit/verify").catch(function () { return null; })
    ]).then(function (res) {
      if (selected !== id) { return; }
      var conv = res[0], trail = res[1], status = res[2];
      var state = conv.state;
      var objectives = conv.objectives || [];
      detail.textContent = "";
      detail.appendChild(el("div", { "class": "detail-head" }, [
        el("h1", {}, (conv.goal_title || conv.goal_ref) + " — " + String(state.state_string || (state.bits || []).join(""))),
        el("dl", { "class": "facts" }, [
          el("dt", {}, "Conversation"), el("dd", { "class": "mono", "data-testid": "console-conversation-id" }, conv.conversation_id),
          el("dt", {}, "Goal spec"), el("dd", {}, conv.goal_ref + "  " + state.goal_hash),
          el("dt", {}, "Rule bundle"), el("dd", { "class": "mono" }, state.bundle_hash),
          el("dt", {}, "Language"), el("dd", {}, state.language),
          el("dt", {}, "Turns"), el("dd", {}, String(state.turn) + (state.stopped ? " (visitor asked to stop)" : "")),
          el("dt", {}, "State"), el("dd", { "data-testid": "console-state" }, [bitsView(state.bits || [], objectives), " ", (state.bits || []).join("")])
        ])
      ]));
      detail.appendChild(chainBanner(status));
      detail.appendChild(el("p", {}, packetButton(conv.conversation_id)));
      detail.appendChild(el("ul", { "class": "legend", "aria-label": "Objectives in approved order" }, objectives.map(function (o) {
        return el("li", { "title": o.description }, [el("b", {}, String(o.order)), o.name + " ", el("span", { "class": "muted mono" }, o.id + " · " + o.kind)]);
      })));
      detail.appendChild(valuesTable(state, objectives));
      if (!trail.records.length) { detail.appendChild(el("p", { "class": "muted" }, "No turns yet.")); }
      trail.records.forEach(function (rec) { detail.appendChild(turnCard(rec, state, objectives)); });
    }).catch(function (err) {
      if (err.message === "auth") { return; }
      detail.textContent = "";
      detail.appendChild(el("p", { "class": "error" }, "Could not load the conversation: " + err.message));
    });
  }

  // -- dead letters: completion webhooks that used up their retries -------------------------------
  var DEAD = "#dead-letters";

  function requeueButton(delivery, row) {
    var button = el("button", { "type": "button", "class": "secondary", "data-testid": "console-requeue" }, "Send again");
    button.addEventListener("click", function () {
      button.disabled = true;
      api("/v1/operator/deliveries/" + encodeURIComponent(delivery.delivery_id) + "/requeue", "POST").then(function (out) {
        row.setAttribute("data-status", out.status);
        button.replaceWith(el("span", { "class": "badge ok", "role": "status", "data-testid": "console-requeued" }, "queued again (" + out.status + ")"));
      }).catch(function (err) {
        if (err.message === "auth") { return; }
        button.disabled = false;
        button.replaceWith(el("span", { "class": "error", "role": "alert" }, "Could not send again: " + err.message));
      });
    });
    return button;
  }

  function showDeadLetters() {
    selected = DEAD;
    Array.prototype.forEach.call(document.querySelectorAll(".conv-item"), function (b) { b.setAttribute("aria-current", "false"); });
    var detail = $("detail");
    detail.textContent = "";
    detail.appendChild(el("p", { "class": "muted" }, "Loading…"));
    api("/v1/operator/deliveries/dead").then(function (data) {
      if (selected !== DEAD) { return; }
      detail.textContent = "";
      detail.appendChild(el("h1", {}, "Failed webhook deliveries"));
      detail.appendChild(el("p", { "class": "muted" }, "Completed leads whose webhook delivery used up every retry. The lead itself is kept; " +
        (may("admin") ? "“Send again” queues the same delivery (same delivery id, so the receiver can ignore a duplicate) with a fresh retry budget, and is logged under your name."
                      : "only an admin can send a delivery again.")));
      var rows = data.deliveries || [];
      if (!rows.length) { detail.appendChild(el("p", { "data-testid": "console-dead-letters-empty" }, "No failed deliveries.")); return; }
      var body = el("tbody");
      rows.forEach(function (d) {
        var row = el("tr", { "data-testid": "console-dead-letter", "data-id": d.delivery_id, "data-status": d.status });
        [el("td", { "class": "mono" }, d.delivery_id), el("td", {}, d.goal), el("td", { "class": "num" }, String(d.attempts)),
         el("td", {}, d.last_error || "—"), el("td", {}, new Date(d.updated_at).toLocaleString()),
         el("td", {}, may("admin") ? requeueButton(d, row) : el("span", { "class": "muted" }, "admin only"))
        ].forEach(function (cell) { row.appendChild(cell); });
        body.appendChild(row);
      });
      detail.appendChild(el("table", { "data-testid": "console-dead-letters" }, [
        el("caption", { "class": "muted" }, rows.length + " failed deliver" + (rows.length === 1 ? "y" : "ies")),
        el("thead", {}, el("tr", {}, ["Delivery id", "Goal", "Attempts", "Last error", "Last attempt", "Action"].map(function (h) { return el("th", { "scope": "col" }, h); }))),
        body
      ]));
    }).catch(function (err) {
      if (err.message === "auth") { return; }
      detail.textContent = "";
      detail.appendChild(el("p", { "class": "error" }, "Could not load the failed deliveries: " + err.message));
    });
  }

  // -- leads export: sales staff take the collected values out as CSV or JSON (logged under their name) ----------
  var EXPORT = "#export";

  function labelled(text, control) { return el("label", { "class": "field" }, [el("span", {}, text), control]); }

  function showExport() {
    selected = EXPORT;
    Array.prototype.forEach.call(document.querySelectorAll(".conv-item"), function (b) { b.setAttribute("aria-current", "false"); });
    var detail = $("detail");
    detail.textContent = "";
    var goal = el("select", { "id": "export-goal", "data-testid": "console-export-goal" }, el("option", { "value": "" }, "All goals"));
    Array.from(new Set(loaded.map(function (c) { return c.goal_ref.split("/")[0]; }))).sort().forEach(function (g) {
      goal.appendChild(el("option", { "value": g }, g));
    });
    var since = el("input", { "type": "date", "id": "export-since", "data-testid": "console-export-since" });
    var until = el("input", { "type": "date", "id": "export-until", "data-testid": "console-export-until" });
    var completed = el("input", { "type": "checkbox", "id": "export-completed", "data-testid": "console-export-completed" });
    var format = el("select", { "id": "export-format", "data-testid": "console-export-format" },
                    [el("option", { "value": "csv" }, "CSV (spreadsheet)"), el("option", { "value": "json" }, "JSON")]);
    var status = el("p", { "role": "status", "data-testid": "console-export-status" });
    var button = el("button", { "type": "submit", "data-testid": "console-export-download" }, "Download leads");
    var form = el("form", { "class": "export-form", "aria-label": "Export leads" }, [
      labelled("Goal", goal), labelled("Active since", since), labelled("Active before", until),
      el("label", { "class": "check" }, [completed, " Only conversations where every objective was recorded"]),
      labelled("Format", format), button, status]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var query = ["format=" + format.value];
      if (goal.value) { query.push("goal=" + encodeURIComponent(goal.value)); }
      if (since.value) { query.push("since=" + since.value); }
      if (until.value) { query.push("until=" + until.value); }
      if (completed.checked) { query.push("completed_only=true"); }
      button.disabled = true;
      status.textContent = "Preparing the file…";
      fetch("/v1/operator/leads/export?" + query.join("&"), { headers: { "Authorization": "Bearer " + token } }).then(function (res) {
        if (!res.ok) {
          return res.json().catch(function () { return {}; }).then(function (data) {
            throw new Error(data && data.error ? data.error.code + ": " + data.error.message : "HTTP " + res.status);
          });
        }
        var disposition = res.headers.get("Content-Disposition") || "";
        var name = (/filename="([^"]+)"/.exec(disposition) || [null, "leads." + format.value])[1];
        return res.blob().then(function (blob) {
          var link = el("a", { "href": URL.createObjectURL(blob), "download": name, "data-testid": "console-export-link" }, "Save " + name + " again");
          link.addEventListener("click", function () { /* the browser saves it */ });
          status.textContent = "Downloaded " + name + " (" + blob.size + " bytes). The export is logged under your name. ";
          status.appendChild(link);
          link.click();
        });
      }).catch(function (err) {
        status.textContent = "Could not export: " + err.message;
      }).then(function () { button.disabled = false; });
    });
    detail.appendChild(el("h1", {}, "Export leads"));
    detail.appendChild(el("p", { "class": "muted" }, "The values visitors gave, one row per conversation, for the goal and period you choose. " +
      "Cells that a spreadsheet would run as a formula are written as text. Every export is logged with your name."));
    detail.appendChild(form);
  }

  // -- analytics: how conversations go, per goal and period (counts only; auditors and admins) -------------------
  var ANALYTICS = "#analytics";

  function countTable(label, headers, rows, testid) {
    var body = el("tbody");
    rows.forEach(function (cells) { body.appendChild(el("tr", {}, cells.map(function (c, i) { return el(i ? "td" : "th", i ? { "class": "num" } : { "scope": "row" }, String(c)); }))); });
    return scrollable(label, el("table", { "data-testid": testid }, [
      el("thead", {}, el("tr", {}, headers.map(function (h) { return el("th", { "scope": "col" }, h); }))), body]));
  }

  function showAnalytics() {
    selected = ANALYTICS;
    Array.prototype.forEach.call(document.querySelectorAll(".conv-item"), function (b) { b.setAttribute("aria-current", "false"); });
    var detail = $("detail");
    detail.textContent = "";
    var goal = el("select", { "data-testid": "console-analytics-goal" }, el("option", { "value": "" }, "All goals"));
    Array.from(new Set(loaded.map(function (c) { return c.goal_ref.split("/")[0]; }))).sort().forEach(function (g) {
      goal.appendChild(el("option", { "value": g }, g));
    });
    var since = el("input", { "type": "date", "data-testid": "console-analytics-since" });
    var until = el("input", { "type": "date", "data-testid": "console-analytics-until" });
    var out = el("div", { "data-testid": "console-analytics" });
    var form = el("form", { "class": "export-form", "aria-label": "Analytics period" }, [
      labelled("Goal", goal), labelled("Started on or after", since), labelled("Started before", until),
      el("button", { "type": "submit", "data-testid": "console-analytics-show" }, "Show")]);
    function query(format) {
      var q = ["format=" + format];
      if (goal.value) { q.push("goal=" + encodeURIComponent(goal.value)); }
      if (since.value) { q.push("since=" + since.value); }
      if (until.value) { q.push("until=" + until.value); }
      return "/v1/operator/analytics?" + q.join("&");
    }
    function render() {
      out.textContent = "";
      out.appendChild(el("p", { "class": "muted" }, "Loading…"));
      api(query("json")).then(function (data) {
        if (selected !== ANALYTICS) { return; }
        out.textContent = "";
        var goals = data.goals || [];
        if (!goals.length) { out.appendChild(el("p", { "data-testid": "console-analytics-empty" }, "No conversation started in this period.")); return; }
        goals.forEach(function (g) {
          out.appendChild(el("h2", {}, g.goal));
          out.appendChild(countTable("Conversations of " + g.goal, ["Conversations", "Count"], [
            ["Started", g.started], ["Completed (every objective recorded)", g.completed], ["Stopped by the visitor", g.stopped],
            ["Abandoned (idle for a day)", g.abandoned], ["Still open", g.open], ["Asked for a person", g.handoffs],
            ["Corrections", g.corrections], ["Questions visitors asked the company", g.questions],
            ["Questions the documents could not answer", g.unanswered_questions]], "console-analytics-goal-table"));
          out.appendChild(el("h4", {}, "Per objective"));
          out.appendChild(countTable("Objectives of " + g.goal, ["Objective", "Asked", "Recorded", "Refused", "Rejected answers", "Corrections", "Dropped off here"],
            (g.objectives || []).map(function (o) { return [o.objective, o.asked, o.completed, o.refused, o.rejected, o.corrections, o.dropped]; }),
            "console-analytics-objectives"));
          if ((g.unanswered_refs || []).length) {
            out.appendChild(el("p", { "class": "muted" }, "Turns with an unanswered question (open the conversation to read it): " + g.unanswered_refs.slice(0, 20).join(", ")));
          }
        });
      }).catch(function (err) {
        if (err.message === "auth") { return; }
        out.textContent = "";
        out.appendChild(el("p", { "class": "error", "role": "alert" }, "Could not load the analytics: " + err.message));
      });
    }
    form.addEventListener("submit", function (event) { event.preventDefault(); render(); });
    detail.appendChild(el("h1", {}, "Analytics"));
    detail.appendChild(el("p", { "class": "muted" }, "How conversations go, counted from the stored records without opening any personal value. " +
      "Also on the command line: grace analytics --db URL --format csv."));
    detail.appendChild(form);
    detail.appendChild(out);
    render();
  }

  // The latest conversations (up to 1000), filtered in the browser by text, goal, status, turns and date.
  var loaded = [];

  function loadList() {
    api("/v1/operator/conversations?limit=1000").then(function (data) {
      loaded = data.conversations;
      var goals = $("filter-goal");
      var chosen = goals.value;
      goals.textContent = "";
      goals.appendChild(el("option", { "value": "" }, "All goals"));
      Array.from(new Set(loaded.map(function (c) { return c.goal_ref; }))).sort().forEach(function (g) {
        goals.appendChild(el("option", { "value": g }, g));
      });
      goals.value = chosen;
      renderList();
      if (openOnLoad) { var id = openOnLoad; openOnLoad = null; showDetail(id); }
    }).catch(function (err) {
      if (err.message !== "auth") { $("whoami").textContent = "Could not load conversations: " + err.message; }
    });
  }

  function matches(c) {
    var turns = $("filter-turns").value;
    if (turns === "fail-closed" && !(c.fail_closed_turns > 0)) { return false; }
    if (turns === "rejected" && !(c.rejected_turns > 0)) { return false; }
    var text = $("filter-text").value.trim().toLowerCase();
    var goal = $("filter-goal").value;
    var status = $("filter-status").value;
    var since = $("filter-since").value;
    var complete = c.state.indexOf("0") < 0;
    if (text && (c.conversation_id + " " + c.goal_ref).toLowerCase().indexOf(text) < 0) { return false; }
    if (goal && c.goal_ref !== goal) { return false; }
    if (status === "complete" && !complete) { return false; }
    if (status === "open" && complete) { return false; }
    if (since && new Date(c.updated_at) < new Date(since + "T00:00:00")) { return false; }
    return true;
  }

  function renderList() {
    var list = $("conversations");
    list.textContent = "";
    var shown = loaded.filter(matches);
    $("list-empty").hidden = shown.length > 0;
    $("list-empty").textContent = loaded.length ? "No conversation matches the filters." : "No conversations yet.";
    shown.forEach(function (c) {
      var button = el("button", { "type": "button", "class": "conv-item", "data-id": c.conversation_id, "data-testid": "console-conversation", "aria-current": c.conversation_id === selected ? "true" : "false" }, [
        el("div", { "class": "row" }, [el("span", { "class": "goal" }, c.goal_ref), el("span", { "class": "mono" }, c.state)]),
        el("div", { "class": "row meta" }, [el("span", { "class": "mono" }, c.conversation_id.slice(0, 12) + "…"), el("span", {}, "turn " + c.turn + " · " + c.language)]),
        el("div", { "class": "meta" }, new Date(c.updated_at).toLocaleString()),
        c.fail_closed_turns > 0 ? el("span", { "class": "badge bad", "data-testid": "console-fail-closed-count" }, "failed closed ×" + c.fail_closed_turns) : null,
        c.rejected_turns > 0 ? el("span", { "class": "badge warn" }, "rejected answers ×" + c.rejected_turns) : null
      ]);
      button.addEventListener("click", function () { showDetail(c.conversation_id); });
      list.appendChild(el("li", {}, button));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    // One event per control: a second render on blur would swap the list under the pointer and lose the click.
    $("filter-text").addEventListener("input", renderList);
    ["filter-goal", "filter-status", "filter-turns", "filter-since"].forEach(function (id) { $(id).addEventListener("change", renderList); });
    $("signin-form").addEventListener("submit", function (event) {
      event.preventDefault();
      token = $("token").value.trim();
      try { window.sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* ignore */ }
      $("token").value = "";
      showApp();
    });
    $("signout").addEventListener("click", function () { signOut(""); });
    $("refresh").addEventListener("click", function () {
      loadList();
      if (selected === DEAD) { showDeadLetters(); } else if (selected === EXPORT) { showExport(); } else if (selected === ANALYTICS) { showAnalytics(); } else if (selected) { showDetail(selected); }
    });
    $("dead-letters").addEventListener("click", showDeadLetters);
    $("export-leads").addEventListener("click", showExport);
    $("analytics").addEventListener("click", showAnalytics);
    token = readToken();
    if (token) { showApp(); } else { showSignin(""); }
  });
})();
