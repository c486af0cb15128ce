/* GRACE chat widget. Embed with one tag:
 *   <script src="https://YOUR-GRACE-HOST/static/widget.js" data-goal="real-estate" data-lang="es" defer></script>
 * Optional attributes: data-title (panel title), data-api (API origin; default: where this script came from),
 * data-open="true" (start opened).
 * The company's presentation (name, colours, welcome text, privacy and consent links, consent before the first
 * message) comes from the goal spec's widget section, read from GET /v1/goals/<goal>/widget.
 * Plain JavaScript, no build step, no dependencies. All visitor and server text is inserted as text, never HTML.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  if (!script) { return; }
  var apiBase = (script.getAttribute("data-api") || new URL(script.src, window.location.href).origin).replace(/\/$/, "");
  var goal = script.getAttribute("data-goal") || "";
  var requestedLang = (script.getAttribute("data-lang") || document.documentElement.lang || "en").slice(0, 2).toLowerCase();

  var STRINGS = {
    en: {
      launcher: "Chat with us",
      title: "Questions? Ask us",
      close: "Close chat",
      greeting: "Hello! Ask us anything about our services. Answers come from our company information, with sources.",
      placeholder: "Type your message…",
      send: "Send",
      sources: "Sources",
      seeAlso: "See also",
      choices: "Options",
      conversation: "Conversation",
      thinking: "Thinking…",
      noted: "Thank you, noted.",
      retrying: "Connection problem, retrying…",
      privacy: "Your messages are stored to answer you and to keep an audit trail.",
      privacyLink: "Privacy policy",
      consentLabel: "I agree that my messages are stored and used to answer me, as described in the ",
      consentLink: "consent terms",
      consentNeeded: "Please tick the consent box first.",
      errors: {
        "consent.required": "Please tick the consent box first.",
        "input.empty": "Please type a message first.",
        "input.too_long": "That message is too long. Please shorten it.",
        "input.too_large": "That message is too long. Please shorten it.",
        "input.binary": "That message contains characters we cannot read.",
        "rate.limited": "You are sending messages very quickly. Please wait a moment.",
        "conversation.not_found": "This conversation has expired. Reload the page to start again.",
        "goal.not_found": "This chat is not available right now.",
        "network": "We could not reach the server. Please try again.",
        "default": "Something went wrong. Please try again."
      }
    },
    es: {
      launcher: "Hablemos",
      title: "¿Dudas? Pregúntenos",
      close: "Cerrar chat",
      greeting: "¡Hola! Pregúntenos lo que quiera sobre nuestros servicios. Las respuestas salen de la información de la empresa, con sus fuentes.",
      placeholder: "Escriba su mensaje…",
      send: "Enviar",
      sources: "Fuentes",
      seeAlso: "Vea también",
      choices: "Opciones",
      conversation: "Conversación",
      thinking: "Pensando…",
      noted: "Gracias, tomamos nota.",
      retrying: "Problema de conexión, reintentando…",
      privacy: "Guardamos sus mensajes para responderle y mantener un registro de auditoría.",
      privacyLink: "Política de privacidad",
      consentLabel: "Acepto que se guarden y usen mis mensajes para responderme, según las ",
      consentLink: "condiciones de consentimiento",
      consentNeeded: "Marque primero la casilla de consentimiento.",
      errors: {
        "consent.required": "Marque primero la casilla de consentimiento.",
        "input.empty": "Escriba un mensaje primero.",
        "input.too_long": "El mensaje es demasiado largo. Acórtelo, por favor.",
        "input.too_large": "El mensaje es demasiado largo. Acórtelo, por favor.",
        "input.binary": "El mensaje contiene caracteres que no podemos leer.",
        "rate.limited": "Está enviando mensajes muy rápido. Espere un momento.",
        "conversation.not_found": "Esta conversación ha caducado. Recargue la página para empezar de nuevo.",
        "goal.not_found": "Este chat no está disponible ahora.",
        "network": "No pudimos contactar con el servidor. Inténtelo de nuevo.",
        "default": "Algo ha fallado. Inténtelo de nuevo."
      }
    },
    fr: {
      launcher: "Discutons",
      title: "Des questions ? Écrivez-nous",
      close: "Fermer le chat",
      greeting: "Bonjour ! Posez-nous vos questions sur nos services. Les réponses viennent des informations de l'entreprise, avec leurs sources.",
      placeholder: "Écrivez votre message…",
      send: "Envoyer",
      sources: "Sources",
      seeAlso: "Voir aussi",
      choices: "Options",
      conversation: "Conversation",
      thinking: "Réflexion…",
      noted: "Merci, c'est noté.",
      retrying: "Problème de connexion, nouvel essai…",
      privacy: "Vos messages sont conservés pour vous répondre et tenir un journal d'audit.",
      privacyLink: "Politique de confidentialité",
      consentLabel: "J'accepte que mes messages soient conservés et utilisés pour me répondre, comme décrit dans les ",
      consentLink: "conditions de consentement",
      consentNeeded: "Cochez d'abord la case de consentement.",
      errors: {
        "consent.required": "Cochez d'abord la case de consentement.",
        "input.empty": "Écrivez d'abord un message.",
        "input.too_long": "Ce message est trop long. Raccourcissez-le, s'il vous plaît.",
        "input.too_large": "Ce message est trop long. Raccourcissez-le, s'il vous plaît.",
        "input.binary": "Ce message contient des caractères illisibles.",
        "rate.limited": "Vous envoyez des messages très vite. Patientez un instant.",
        "conversation.not_found": "Cette conversation a expiré. Rechargez la page pour recommencer.",
        "goal.not_found": "Ce chat n'est pas disponible pour le moment.",
        "network": "Impossible de joindre le serveur. Réessayez.",
        "default": "Une erreur s'est produite. Réessayez."
      }
    }
  };
  var lang = STRINGS[requestedLang] ? requestedLang : "en";
  var T = STRINGS[lang];
  var title = script.getAttribute("data-title") || T.title;  // the company name from the config replaces it
  var storageKey = "grace-widget:" + apiBase + ":" + goal + ":" + lang;
  var MAX_ATTEMPTS = 4;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) { return window.crypto.randomUUID(); }
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  // -- DOM ---------------------------------------------------------------------------------------
  var host = el("div", { "id": "grace-widget", "data-goal": goal, "data-lang": lang, "data-state": "" });
  var root = host.attachShadow({ mode: "open" });
  // An external stylesheet, not an inline <style>: host pages with a strict CSP (style-src) still work.
  var style = el("link", { "rel": "stylesheet", "href": apiBase + "/static/widget.css" });
  var wrap = el("div", { "class": "grace", "lang": lang });
  wrap.hidden = true;  // no flash of unstyled widget: shown once the stylesheet has loaded (or failed)
  style.addEventListener("load", function () { wrap.hidden = false; });
  style.addEventListener("error", function () { wrap.hidden = false; });
  var launcher = el("button", { "class": "launcher", "type": "button", "data-testid": "grace-launcher", "aria-haspopup": "dialog" }, T.launcher);
  var panel = el("section", { "class": "panel", "role": "dialog", "aria-label": title, "data-testid": "grace-panel" });
  panel.hidden = true;
  var header = el("header");
  var heading = el("h2", {}, title);
  header.appendChild(heading);
  var closeBtn = el("button", { "type": "button", "aria-label": T.close, "data-testid": "grace-close" }, "×");
  header.appendChild(closeBtn);
  // Focusable: a long conversation scrolls, and keyboard users must be able to scroll it too.
  var log = el("div", { "class": "log", "role": "log", "aria-live": "polite", "aria-label": T.conversation, "tabindex": "0", "data-testid": "grace-log" });
  var form = el("form", { "data-testid": "grace-form" });
  // Shown only when the company requires consent before the first message (widget config).
  var consentBox = el("div", { "class": "consent", "data-testid": "grace-consent" });
  consentBox.hidden = true;
  var consentCheck = el("input", { "type": "checkbox", "id": "grace-consent-check", "data-testid": "grace-consent-check" });
  var consentText = el("label", { "for": "grace-consent-check" });
  consentBox.appendChild(consentCheck);
  consentBox.appendChild(consentText);
  var privacy = el("p", { "class": "privacy", "data-testid": "grace-privacy" }, T.privacy);
  var input = el("textarea", { "rows": "1", "placeholder": T.placeholder, "aria-label": T.placeholder, "data-testid": "grace-input" });
  var sendBtn = el("button", { "type": "submit", "data-testid": "grace-send" }, T.send);
  form.appendChild(input);
  form.appendChild(sendBtn);
  panel.appendChild(header);
  panel.appendChild(log);
  panel.appendChild(consentBox);
  panel.appendChild(form);
  panel.appendChild(privacy);
  wrap.appendChild(launcher);
  wrap.appendChild(panel);
  root.appendChild(style);
  root.appendChild(wrap);

  // -- the company's presentation (goal spec widget section) ------------------------------------------
  var config = null;
  var consentNeeded = false;
  var greetingText = T.greeting;

  function safeLink(url, text) {
    // Approved specs only hold https links; anything else is not shown as a link.
    if (!/^https:\/\//.test(url || "")) { return null; }
    return el("a", { "href": url, "target": "_blank", "rel": "noopener noreferrer", "data-testid": "grace-link" }, text);
  }

  function applyConfig(cfg) {
    config = cfg;
    wrap.style.setProperty("--grace-primary", cfg.primary_color);
    wrap.style.setProperty("--grace-on-primary", cfg.text_color);
    wrap.style.setProperty("--grace-accent", cfg.accent_color);
    if (cfg.company_name && !script.getAttribute("data-title")) {
      title = cfg.company_name;
      heading.textContent = title;
      panel.setAttribute("aria-label", title);
    }
    if (cfg.welcome) {
      greetingText = cfg.welcome;
      var shown = log.querySelector("[data-testid=grace-greeting]");
      if (shown) { shown.textContent = greetingText; }
    }
    var link = safeLink(cfg.privacy_url, T.privacyLink);
    if (link) { privacy.appendChild(document.createTextNode(" ")); privacy.appendChild(link); }
    if (cfg.consent_required) {
      consentText.textContent = T.consentLabel;
      var terms = safeLink(cfg.consent_url || cfg.privacy_url, T.consentLink);
      if (terms) { consentText.appendChild(terms); consentText.appendChild(document.createTextNode(".")); }
      consentNeeded = !conversationStarted();
      consentBox.hidden = !consentNeeded;
    }
    host.setAttribute("data-configured", "true");
  }

  function conversationStarted() {
    return Number(host.getAttribute("data-turn") || "0") > 0;
  }

  api("GET", "/v1/goals/" + encodeURIComponent(goal) + "/widget?lang=" + encodeURIComponent(lang))
    .then(function (res) { if (res.ok) { applyConfig(res.data); } })
    .catch(function () { /* the widget's own defaults stay */ });

  function scrollDown() { log.scrollTop = log.scrollHeight; }

  function addVisitor(text) {
    log.appendChild(el("div", { "class": "msg visitor", "data-testid": "grace-visitor" }, text));
    scrollDown();
  }

  function addNote(text, cls, testid) {
    var node = el("div", { "class": cls || "note", "data-testid": testid || "grace-note" }, text);
    log.appendChild(node);
    scrollDown();
    return node;
  }

  function addBot(reply) {
    var answer = reply.answer || {};
    var kind = answer.text ? (answer.kind || (answer.supported ? "answer" : "none")) : "";
    var box = el("div", { "class": "msg bot", "data-testid": "grace-bot", "data-action": reply.action || "NONE", "data-state": reply.state || "", "data-answer-kind": kind });
    var citations = answer.citations || [];
    if (kind === "related") {
      // A related section: the honest frame, then the section's own sentences quoted verbatim with their source,
      // then other sections that may help. Never phrased as an answer.
      box.appendChild(el("p", { "class": "answer frame", "data-testid": "grace-related-frame" }, answer.frame || ""));
      // One quote block per section (a question in several parts may quote two sections), each with its source.
      var groups = [];
      citations.forEach(function (c) {
        var last = groups[groups.length - 1];
        if (!last || last.label !== (c.label || "")) { last = { label: c.label || "", quotes: [] }; groups.push(last); }
        last.quotes.push(c.quote || "");
      });
      groups.forEach(function (g) {
        var quoted = el("blockquote", { "class": "related", "data-testid": "grace-related" });
        g.quotes.forEach(function (q) { quoted.appendChild(el("p", {}, q)); });
        quoted.appendChild(el("cite", { "class": "src", "data-testid": "grace-citation" }, g.label));
        box.appendChild(quoted);
      });
      var links = answer.links || [];
      if (links.length) {
        var also = el("div", { "class": "see-also", "data-testid": "grace-links" });
        also.appendChild(el("span", {}, T.seeAlso + ": "));
        var listed = el("ul");
        links.forEach(function (l) { listed.appendChild(el("li", { "data-testid": "grace-link" }, l.label || "")); });
        also.appendChild(listed);
        box.appendChild(also);
      }
      // A question in several parts: which parts the documents do not cover (the text of other tiers holds it).
      if (answer.unanswered) { box.appendChild(el("p", { "class": "answer unanswered", "data-testid": "grace-unanswered" }, answer.unanswered)); }
    } else if (answer.text) {
      box.appendChild(el("p", { "class": kind === "none" ? "answer none" : "answer", "data-testid": kind === "none" ? "grace-none" : "grace-answer" }, answer.text));
    }
    if (citations.length && kind !== "related") {
      var details = el("details", { "class": "sources", "data-testid": "grace-sources" });
      details.appendChild(el("summary", {}, T.sources + " (" + citations.length + ")"));
      var list = el("ol");
      citations.forEach(function (c) {
        var item = el("li", { "data-testid": "grace-citation" });
        if (c.quote) { item.appendChild(el("q", {}, c.quote)); }
        item.appendChild(el("span", { "class": "src" }, c.label || ""));
        list.appendChild(item);
      });
      details.appendChild(list);
      box.appendChild(details);
    }
    // After the answer, everything else the visitor is shown, in order: why an answer was not recorded, the one
    // question, and the closing summary (response_text holds them all; the question is marked as such).
    var rest = reply.response_text || "";
    if (answer.text && rest.indexOf(answer.text) === 0) { rest = rest.slice(answer.text.length); }
    var parts = rest.split(/\n\s*\n/).map(function (p) { return p.trim(); }).filter(Boolean);
    var questionShown = false;
    parts.forEach(function (part) {
      if (reply.question && part === reply.question.trim() && !questionShown) {
        questionShown = true;
        box.appendChild(el("p", { "class": "question", "data-testid": "grace-question" }, part));
      } else if (reply.pending && part === reply.pending.trim()) {
        box.appendChild(el("p", { "class": "answer said-more pending", "data-testid": "grace-pending" }, part));
      } else {
        box.appendChild(el("p", { "class": "answer said-more", "data-testid": reply.completed ? "grace-closing" : "grace-notice" }, part));
      }
    });
    if (reply.question && !questionShown) {
      box.appendChild(el("p", { "class": "question", "data-testid": "grace-question" }, reply.question));
    }
    if (reply.question && reply.choices && reply.choices.length) {
      // Quick replies for a question with listed options: a click sends the option as the visitor's own words.
      var chips = el("div", { "class": "chips", "role": "group", "aria-label": T.choices || "Options", "data-testid": "grace-choices" });
      reply.choices.forEach(function (label) {
        var chip = el("button", { "type": "button", "class": "chip", "data-testid": "grace-choice" }, label);
        chip.addEventListener("click", function () {
          if (busy) { return; }
          input.value = label;
          if (typeof form.requestSubmit === "function") { form.requestSubmit(); } else { sendBtn.click(); }
        });
        chips.appendChild(chip);
      });
      box.appendChild(chips);
    }
    if (reply.handoff) {
      // The visitor asked for a person: how the company's people take over, with links to reach them.
      var desk = el("div", { "class": "handoff", "role": "status", "data-testid": "grace-handoff" });
      desk.appendChild(el("p", {}, reply.handoff.text));
      var links = el("p", { "class": "handoff-links" });
      if (reply.handoff.email) { links.appendChild(el("a", { "href": "mailto:" + reply.handoff.email, "data-testid": "grace-handoff-email" }, reply.handoff.email)); }
      if (reply.handoff.phone) { links.appendChild(el("a", { "href": "tel:" + reply.handoff.phone.replace(/[^0-9+]/g, ""), "data-testid": "grace-handoff-phone" }, reply.handoff.phone)); }
      if (links.childNodes.length) { desk.appendChild(links); }
      box.appendChild(desk);
    }
    if (!box.childNodes.length) {
      // Nothing to answer and nothing left to ask: acknowledge instead of showing an empty bubble.
      box.appendChild(el("p", { "class": "answer", "data-testid": "grace-ack" }, T.noted));
    }
    log.appendChild(box);
    host.setAttribute("data-state", reply.state || "");
    host.setAttribute("data-turn", String(reply.turn || 0));
    scrollDown();
  }

  function errorText(code) { return T.errors[code] || T.errors["default"]; }

  // -- API ---------------------------------------------------------------------------------------
  function api(method, path, body, headers) {
    var init = { method: method, headers: Object.assign({ "Accept": "application/json" }, headers || {}) };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(apiBase + path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        return { ok: res.ok, status: res.status, data: data };
      });
    });
  }

  var conversationId = null;
  var visitorToken = null;  // the conversation's secret capability: the id alone grants nothing
  var starting = null;

  function withToken(headers) {
    return Object.assign({ "X-Visitor-Token": visitorToken || "" }, headers || {});
  }

  function restore(saved) {
    var id = saved && saved.id;
    if (!id || !saved.token) { return Promise.resolve(false); }
    visitorToken = saved.token;
    return api("GET", "/v1/conversations/" + encodeURIComponent(id), undefined, withToken()).then(function (res) {
      if (!res.ok) { visitorToken = null; return false; }
      conversationId = id;
      res.data.messages.forEach(function (m) {
        if (m.role === "visitor") { addVisitor(m.text); }
        else { addBot({ response_text: m.text, state: res.data.state, answer: {} }); }
      });
      host.setAttribute("data-state", res.data.state);
      host.setAttribute("data-turn", String(res.data.turn));
      if (res.data.turn > 0) { consentNeeded = false; consentBox.hidden = true; }
      return true;
    }).catch(function () { visitorToken = null; return false; });
  }

  function start() {
    if (conversationId) { return Promise.resolve(conversationId); }
    if (starting) { return starting; }
    var saved = null;
    try { saved = JSON.parse(window.sessionStorage.getItem(storageKey) || "null"); } catch (e) { saved = null; }
    var first = saved ? restore(saved) : Promise.resolve(false);
    starting = first.then(function (restored) {
      if (restored) { return conversationId; }
      return api("POST", "/v1/conversations", { goal: goal, language: lang }).then(function (res) {
        if (!res.ok) {
          var code = res.data && res.data.error ? res.data.error.code : "default";
          throw new Error(code);
        }
        conversationId = res.data.conversation_id;
        visitorToken = res.data.visitor_token;
        host.setAttribute("data-conversation", conversationId);
        host.setAttribute("data-state", res.data.state);
        try {
          window.sessionStorage.setItem(storageKey, JSON.stringify({ id: conversationId, token: visitorToken }));
        } catch (e) { /* private mode */ }
        return conversationId;
      });
    });
    starting.then(function (id) { host.setAttribute("data-conversation", id); }, function () { starting = null; });
    return starting;
  }

  // One message, one Idempotency-Key: retries after a network error or a busy conversation reuse the key,
  // so the server applies the message at most once.
  function sendTurn(text, consent) {
    var key = newKey();
    var body = consent ? { message: text, consent: true } : { message: text };
    var attempt = 0;
    var retryNote = null;
    function tryOnce() {
      attempt += 1;
      return api("POST", "/v1/conversations/" + encodeURIComponent(conversationId) + "/turns",
                 body, withToken({ "Idempotency-Key": key }))
        .catch(function () { return { ok: false, status: 0, data: { error: { code: "network" } } }; })
        .then(function (res) {
          var code = res.data && res.data.error ? res.data.error.code : null;
          var retryable = res.status === 0 || res.status === 503 || code === "conversation.busy" || code === "store.conflict";
          if (!res.ok && retryable && attempt < MAX_ATTEMPTS) {
            if (!retryNote) { retryNote = addNote(T.retrying); }
            return sleep(400 * attempt).then(tryOnce);
          }
          if (retryNote && retryNote.parentNode) { retryNote.parentNode.removeChild(retryNote); }
          return res;
        });
    }
    return tryOnce();
  }

  var busy = false;
  function setBusy(value) {
    busy = value;
    sendBtn.disabled = value;
    log.setAttribute("aria-busy", value ? "true" : "false");
    host.setAttribute("data-busy", value ? "true" : "false");
  }

  // A message the server did not take goes back into the box (unless the visitor already typed something new),
  // so a too-long or failed message is never lost.
  function giveBack(text) {
    if (!input.value) { input.value = text; }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = input.value.trim();
    if (busy) { return; }
    if (!text) { addNote(errorText("input.empty"), "error", "grace-error"); return; }
    if (consentNeeded && !consentCheck.checked) {
      addNote(T.consentNeeded, "error", "grace-error");
      consentCheck.focus();
      return;
    }
    var consent = consentNeeded && consentCheck.checked;
    setBusy(true);
    addVisitor(text);
    input.value = "";
    var thinking = addNote(T.thinking, "note", "grace-thinking");
    start().then(function () { return sendTurn(text, consent); }).then(function (res) {
      thinking.remove();
      if (res.ok) {
        if (consent) { consentNeeded = false; consentBox.hidden = true; }
        addBot(res.data);
        return;
      }
      var code = res.data && res.data.error ? res.data.error.code : "default";
      addNote(errorText(code), "error", "grace-error");
      giveBack(text);
    }).catch(function (err) {
      thinking.remove();
      addNote(errorText(err && err.message ? err.message : "network"), "error", "grace-error");
      giveBack(text);
    }).then(function () { setBusy(false); input.focus(); });
  });

  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      if (typeof form.requestSubmit === "function") { form.requestSubmit(); } else { sendBtn.click(); }
    }
  });

  function open() {
    launcher.hidden = true;
    panel.hidden = false;
    if (!log.childNodes.length) { addNote(greetingText, "note", "grace-greeting"); }
    start().catch(function (err) { addNote(errorText(err.message), "error", "grace-error"); });
    input.focus();
  }
  function close() {
    panel.hidden = true;
    launcher.hidden = false;
    launcher.focus();
  }
  launcher.addEventListener("click", open);
  closeBtn.addEventListener("click", close);
  panel.addEventListener("keydown", function (event) { if (event.key === "Escape") { close(); } });

  function mount() {
    document.body.appendChild(host);
    if (script.getAttribute("data-open") === "true") { open(); }
  }
  if (document.body) { mount(); } else { document.addEventListener("DOMContentLoaded", mount); }
})();
