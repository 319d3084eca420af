// The ask page: plain DOM, no framework. Every server string goes in with textContent, never as HTML.
// Every word the page shows comes from the service (valid.wording, in the doc set's own words):
// W holds them once /v1/releases/active has answered; until then the HTML's own words stand.
"use strict";

const state = { generations: [], release: null, conversation: null, answerId: null, asked: null };
const W = {};
const STAGES = ["scope", "retrieved", "generating", "checking"];  // progress events, as the status line says them
const REASONS = ["inaccurate", "wrong_version", "irrelevant_sources", "missing_content", "unclear", "other"];

const $ = (id) => document.getElementById(id);

// A string of the catalogue with an answer's values put in ({names}, {n} ...), as text.
function t(key, values) {
  const template = W[key] !== undefined ? W[key] : key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
}

// The you_asked label and the question, each in its own element (the question alone is .you).
const youAsked = (question) => [el("span", { class: "you-label", text: t("you_asked") }),
  el("span", { class: "you", text: question })];

function applyWording(wording) {
  Object.assign(W, wording);
  for (const node of document.querySelectorAll("[data-w]")) {
    if (W[node.dataset.w] !== undefined) node.textContent = W[node.dataset.w];
  }
  document.title = W.title || document.title;
  $("result").setAttribute("aria-label", t("answer_region"));
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function label(name) {
  const g = state.generations.find((x) => x.name === name);
  return g ? g.label : name;
}

function listOf(names) {
  const labels = names.map(label);
  if (labels.length <= 1) return labels.join("");
  return labels.slice(0, -1).join(t("list_comma")) + t("list_and") + labels[labels.length - 1];
}

// A chunk id is <path>#<topic id>/<element>; its source page shows that path, scrolled to the element.
function sourceHref(chunkId, generation) {
  const hash = chunkId.indexOf("#");
  const path = hash < 0 ? chunkId : chunkId.slice(0, hash);
  const anchor = hash < 0 ? "" : chunkId.slice(hash + 1);
  const encodedPath = path.split("/").map(encodeURIComponent).join("/");
  const query = generation ? "?generation=" + encodeURIComponent(generation) : "";
  const fragment = anchor.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]/g, encodeURIComponent);
  return "/sources/" + encodedPath + query + (anchor ? "#" + fragment : "");
}

async function getJSON(url, options) {
  const response = await fetch(url, options);
  let body = null;
  try {
    body = await response.json();
  } catch (_) {
    body = null;
  }
  return { response, body };
}

async function loadRelease() {
  const { response, body } = await getJSON("/v1/releases/active");
  if (!response.ok) {
    const wait = Number(response.headers.get("retry-after") || "1");
    $("release").textContent = t("retrying", { message: body && body.error ? body.error.message : t("unavailable") });
    setTimeout(loadRelease, Math.max(1, wait) * 1000);
    return;
  }
  state.release = body.release;
  state.generations = body.generations;
  applyWording(body.wording || {});
  const select = $("generation");
  for (const g of body.generations) {
    if (!select.querySelector(`option[value="${CSS.escape(g.name)}"]`)) {
      select.append(el("option", { value: g.name, text: g.label }));
    }
  }
  // The release id is for whoever reports a problem, not in the reader's way.
  $("release").replaceChildren(el("details", { class: "about" }, el("summary", { text: t("about_service") }),
    t("run_release", { release: "" }), el("code", { text: body.release })));
  applyPageGeneration();
  await restoreConversation();
  document.body.dataset.ready = "true";
}

// The conversation id lives in the page's URL (?conversation=ID), so a reload, or going back from a
// cited source, finds the thread again; a new conversation or an ended one drops it.
function keepConversationInUrl(id) {
  const url = new URL(window.location.href);
  if (id) url.searchParams.set("conversation", id);
  else url.searchParams.delete("conversation");
  if (url.href !== window.location.href) history.replaceState(null, "", url.href);
}

const TURN_TITLES = {
  answer: (turn) => t("answer_for", { names: listOf(turn.scope) }),
  compare: (turn) => t("comparison_of", { names: listOf(turn.scope) }),
  versions: () => t("versions_heading"),
  ask: () => t("ask_heading"),
  refuse: (turn) => (turn.scope.length ? t("no_answer_for", { names: listOf(turn.scope) }) : t("no_answer")),
};

// After a reload: the turns so far come back as the thread (question and outcome; the answers
// themselves are not kept), and the next question follows up on the last turn.
async function restoreConversation() {
  const id = new URLSearchParams(window.location.search).get("conversation");
  if (!id) return;
  const { response, body } = await getJSON("/v1/conversations/" + encodeURIComponent(id));
  if (!response.ok || !body.turns.length) {
    keepConversationInUrl(null);
    $("status").textContent = t("conversation_gone");
    return;
  }
  for (const turn of body.turns) {
    $("thread").append(el("li", { class: "turn restored", "data-outcome": turn.outcome, "data-answer-id": turn.answer_id },
      el("p", { class: "turn-question" }, ...youAsked(turn.question)), el("h2", { class: "scope", text: TURN_TITLES[turn.outcome](turn) })));
  }
  $("thread-section").hidden = false;
  $("new-conversation").hidden = false;
  if (body.ended) {
    keepConversationInUrl(null);
    $("status").textContent = t("conversation_over");
  } else {
    state.conversation = body.conversation_id;
  }
}

// A portal page about one build opens the ask page with ?generation=NAME (any name readers use).
function applyPageGeneration() {
  const wanted = new URLSearchParams(window.location.search).get("generation");
  if (!wanted) return;
  const key = (text) => text.toLowerCase().replace(/[^0-9a-z]/g, "");
  const g = state.generations.find((x) => [x.name, x.label, ...x.labels].some((n) => key(n) === key(wanted)));
  const note = $("page-scope");
  note.hidden = false;
  if (!g) {
    note.textContent = t("page_scope_unknown", { name: wanted });
    return;
  }
  $("generation").value = g.name;
  note.textContent = t("page_scope", { name: g.label });
  document.body.dataset.pageGeneration = g.name;
}

// The generations one answer is shown for (several when their builds agree), oldest servers: one.
const generationsOf = (answer) => (answer.generations && answer.generations.length ? answer.generations : [answer.generation]);

// A citation reads as the cited topic's title path and goes to the page the team publishes for the
// reader's build (the picked one, when the answer is for it), else to the source view.
function citation(step, generations, index) {
  const picked = $("generation").value;
  const build = generations.includes(picked) ? picked : generations[0];
  const pages = step.pages || {};
  const where = (step.title_path || []).join(" › ") || step.cite;
  const link = el("a", {
    class: "cite", href: pages[build] || sourceHref(step.cite, build), "data-cite": step.cite,
    "data-build": build, "aria-label": t("source_for_step", { n: index + 1, where }),
  }, where);
  const others = generations.filter((g) => g !== build && pages[g]);
  if (!others.length) return [link];
  const also = el("span", { class: "also" }, t("also_published"));
  others.forEach((g, i) => also.append(i ? t("list_comma") : "",
    el("a", { class: "published", href: pages[g], "data-build": g, text: label(g) })));
  return [link, " ", also];
}

function renderSteps(answer) {
  const list = el("ol", { class: "steps" });
  answer.steps.forEach((step, i) => {
    list.append(el("li", {}, el("span", { class: "step-text", text: step.text }), " ",
      ...citation(step, generationsOf(answer), i)));
  });
  return list;
}

function renderAnswer(data, container) {
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope",
    text: t("answer_for", { names: listOf(data.scope) }) });
  container.append(heading);
  if (data.matched.length) {
    container.append(el("p", { class: "matched", text: t("matched", { words: data.matched.join(t("list_comma")) }) }));
  }
  // One part per distinct answer; builds that agree are one part naming them all.
  const several = data.scope.length > 1;
  for (const answer of data.answers) {
    const generations = generationsOf(answer);
    const part = el("section", { class: "generation-answer", "data-generation": answer.generation,
      "data-generations": generations.join(" ") });
    if (several) part.append(el("h3", { text: t("answer_part", { names: listOf(generations) }) }));
    part.append(el("p", { class: "answer-text", text: answer.answer }));
    if (answer.steps.length) part.append(renderSteps(answer));
    container.append(part);
  }
  if (data.not_used) container.append(el("p", { class: "not-used", text: data.not_used }));
  return heading;
}

function renderAsk(data, container) {
  const heading = el("h2", { id: "result-heading", tabindex: "-1", text: t("ask_heading") });
  container.append(heading, el("p", { text: t("ask_intro") }));
  const group = el("div", { class: "choices", role: "group", "aria-labelledby": "result-heading" });
  for (const choice of data.choices) {
    group.append(el("button", {
      type: "button",
      class: "choice",
      "data-generation": choice.generation,
      text: choice.label,
      onclick: () => {
        $("generation").value = choice.generation;
        ask(state.asked);
      },
    }));
  }
  container.append(group);
  return heading;
}

function renderRefusal(data, container) {
  const title = data.scope.length ? t("no_answer_for", { names: listOf(data.scope) }) : t("no_answer");
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope", text: title });
  container.append(heading);
  const refusal = data.refusal || { reason: "", missing: "", gap_issue: null };
  container.append(el("p", { class: "reason", text: refusal.reason }));
  if (refusal.missing) container.append(el("p", { class: "missing", text: t("missing", { what: refusal.missing }) }));
  if (refusal.gap_issue) {
    container.append(el("p", { class: "gap-issue" }, t("gap_issue"),
      el("code", { text: refusal.gap_issue })));
  }
  if (data.not_used) container.append(el("p", { class: "not-used", text: data.not_used }));
  return heading;
}

function renderComparison(data, container) {
  const comparison = data.comparison;
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope",
    text: t("comparison_of", { names: listOf(comparison.generations) }) });
  container.append(heading);
  container.append(el("p", { class: "comparison-summary", text: comparison.summary }));
  const table = el("table", { class: "comparison" });
  const head = el("tr", {}, el("th", { scope: "col", text: t("comparison_part") }));
  comparison.generations.forEach((g) => head.append(el("th", { scope: "col", text: label(g) })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const row of comparison.rows) {
    const tr = el("tr", { "data-kind": row.kind },
      el("th", { scope: "row" }, el("span", { text: row.topic }), el("span", { class: "kind", text: t("kind_" + row.kind) })));
    for (const g of comparison.generations) {
      const cell = row.cells.find((c) => c.generation === g);
      const td = el("td", { "data-generation": g });
      if (cell) {
        if (cell.available !== null && cell.available !== undefined) {
          td.append(el("strong", { class: "available", text: cell.available ? t("available_yes") : t("available_no") }));
        }
        td.append(el("span", { class: "cell-text", text: cell.text }));
        if (cell.values.length) td.append(el("p", { class: "values", text: t("values", { values: cell.values.join(t("list_comma")) }) }));
        if (cell.cite) {
          td.append(" ", el("a", { class: "cite", href: cell.page || sourceHref(cell.cite, g), "data-cite": cell.cite,
            "aria-label": t("source_for", { name: label(g), where: row.topic }) }, row.topic));
        }
      }
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  container.append(table);
  if (data.refusal) container.append(el("p", { class: "reason", text: data.refusal.reason }));
  if (data.not_used) container.append(el("p", { class: "not-used", text: data.not_used }));
  return heading;
}


// A versions answer: its kind, the summary, the versions it names, then every piece of evidence cited.
function renderVersions(data, container) {
  const v = data.versions;
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope versions-kind", "data-kind": v.kind,
    text: t("versions_" + v.kind) + (v.product ? " — " + v.product : "") });
  container.append(heading);
  if (v.verdict !== null && v.verdict !== undefined) {
    container.append(el("p", { class: "verdict", text: t(v.verdict ? "verdict_yes" : "verdict_no") }));
  }
  container.append(el("p", { class: "versions-summary", text: v.summary }));
  if (v.labels.length) {
    const named = el("ul", { class: "versions-named" });
    v.versions.forEach((g, i) => named.append(el("li", { "data-generation": g, text: v.labels[i] })));
    container.append(named);
  }
  if (v.gaps && v.gaps.length) container.append(el("p", { class: "gaps", text: t("versions_gaps", { names: listOf(v.gaps) }) }));
  const list = el("ol", { class: "versions-evidence" });
  for (const e of v.evidence) {
    const item = el("li", { "data-generation": e.generation, "data-role": e.role },
      el("strong", { text: label(e.generation) + ": " }), el("span", { class: "step-text", text: e.text }));
    if (e.cite) {
      item.append(" ", el("a", { class: "cite", href: sourceHref(e.cite, e.generation),
        "aria-label": t("source_for", { name: label(e.generation), where: e.cite }) }, el("code", { text: e.cite })));
    } else {
      item.append(" ", el("span", { class: "cite scheme", text: t("versions_from_scheme") }));
    }
    list.append(item);
  }
  container.append(list);
  if (data.not_used) container.append(el("p", { class: "not-used", text: data.not_used }));
  return heading;
}

// How the answer was made, for whoever reports a problem: folded away, not in the reader's way.
function renderRun(data) {
  const run = data.run;
  const parts = [t("run_release", { release: data.release }), `${run.generator}${run.model ? " (" + run.model + ")" : ""}`,
    t(run.calls === 1 ? "run_calls_one" : "run_calls_many", { n: run.calls }), t("run_ms", { ms: Math.round(run.latency_ms) })];
  return el("details", { class: "run" }, el("summary", { text: t("details") }), el("p", { text: parts.join(" · ") }));
}

// The answer shown now becomes a turn of the thread above the form (ids dropped, feedback kept out).
function archiveCurrent() {
  const container = $("result");
  if (!container.firstChild || !state.asked) return;
  const turn = el("li", { class: "turn", "data-outcome": container.dataset.outcome || "" },
    el("p", { class: "turn-question" }, ...youAsked(state.asked)));
  for (const child of container.children) {
    if (child.classList.contains("feedback")) continue;
    const copy = child.cloneNode(true);
    copy.removeAttribute("id");
    copy.removeAttribute("tabindex");
    copy.querySelectorAll("[id]").forEach((node) => node.removeAttribute("id"));
    copy.querySelectorAll("button").forEach((node) => { node.disabled = true; });  // copies carry no handlers
    turn.append(copy);
  }
  $("thread").append(turn);
  $("thread-section").hidden = false;
}

function newConversation() {
  state.conversation = null;
  keepConversationInUrl(null);
  state.asked = null;
  state.sentGeneration = null;
  $("thread").replaceChildren();
  $("thread-section").hidden = true;
  $("result").replaceChildren();
  $("asked").hidden = true;
  $("new-conversation").hidden = true;
  $("question").focus();
}

function renderFeedback(answerId) {
  const form = el("form", { class: "feedback", "aria-label": t("feedback_region") });
  const status = el("p", { class: "feedback-status", role: "status" });
  const reasons = el("fieldset", { class: "reasons", hidden: "" }, el("legend", { text: t("feedback_reasons") }));
  for (const value of REASONS) {
    const id = "reason-" + value;
    reasons.append(el("label", { for: id }, el("input", { type: "checkbox", id, name: "reason", value }),
      " " + t("reason_" + value)));
  }
  const comment = el("textarea", { id: "feedback-comment", rows: "2", maxlength: "1000" });
  const commentField = el("div", { class: "comment", hidden: "" },
    el("label", { for: "feedback-comment", text: t("feedback_comment") }), comment);
  const send = el("button", { type: "submit", id: "send-feedback", hidden: "", text: t("feedback_send") });
  let rating = null;
  const thumb = (value, text, label) => el("button", {
    type: "button", class: "thumb", "data-rating": value, "aria-pressed": "false", "aria-label": label, text,
    onclick: (event) => {
      rating = value;
      form.querySelectorAll(".thumb").forEach((b) => b.setAttribute("aria-pressed", String(b === event.currentTarget)));
      reasons.hidden = value !== "down";
      commentField.hidden = false;
      send.hidden = false;
    },
  });
  form.append(el("p", { class: "question", text: t("feedback_question") }),
    thumb("up", t("feedback_yes"), t("feedback_helpful")), thumb("down", t("feedback_no"), t("feedback_not_helpful")),
    reasons, commentField, send, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!rating) return;
    const chosen = rating === "down" ? [...reasons.querySelectorAll("input:checked")].map((i) => i.value) : [];
    const payload = { answer_id: answerId, rating, reasons: chosen };
    if (comment.value.trim()) payload.comment = comment.value.trim();
    send.disabled = true;
    try {
      const { response, body } = await getJSON("/v1/feedback", {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload),
      });
      status.textContent = response.ok ? t("feedback_thanks")
        : (body && body.error ? body.error.message : `HTTP ${response.status}`);
      form.dataset.sent = response.ok ? "true" : "false";
    } catch (err) {
      status.textContent = t("feedback_failed", { error: err.message });
    } finally {
      send.disabled = false;
    }
  });
  return form;
}

// POST /v1/ask as server-sent events: stage events go to the status line, the last event is the
// checked answer (or an error). Returns { response, body } like getJSON.
async function askWithProgress(payload) {
  const response = await fetch("/v1/ask", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(payload),
  });
  if (!(response.headers.get("content-type") || "").startsWith("text/event-stream")) {
    let body = null;
    try { body = await response.json(); } catch (_) { body = null; }
    return { response, body, failed: !response.ok };
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let final = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = (block.match(/^event: (.*)$/m) || [])[1];
      const data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "null");
      if (kind === "stage") $("status").textContent = STAGES.includes(data.stage) ? t("stage_" + data.stage) : "";
      else if (kind === "answer" || kind === "error") final = { kind, data };
    }
    if (done) break;
  }
  if (!final) return { response, body: { error: { message: t("stream_ended") } }, failed: true };
  return { response, body: final.data, failed: final.kind === "error" };
}

function showError(message) {
  const container = $("result");
  container.replaceChildren(el("p", { class: "error", role: "alert", text: message }));
}

async function ask(again) {
  const question = (again || $("question").value).trim();
  if (!question) {
    showError(t("type_first"));
    $("question").focus();
    return;
  }
  const generation = $("generation").value || null;
  const button = $("ask-button");
  const container = $("result");
  button.disabled = true;
  container.setAttribute("aria-busy", "true");
  $("status").textContent = t("asking");
  try {
    // In a conversation the picker is sent only when changed: otherwise the follow-up's own words
    // (or the conversation) decide, and "and on v6e?" is not widened by the previous choice.
    const send = generation && (!state.conversation || generation !== state.sentGeneration);
    const payload = send ? { question, generation } : { question };
    if (state.conversation) payload.conversation_id = state.conversation;
    const { response, body, failed } = await askWithProgress(payload);
    if (failed) {
      const message = body && body.error ? body.error.message : `HTTP ${response.status}`;
      const wait = response.headers.get("retry-after");
      if (response.status === 404 || response.status === 409) {  // ended: the next ask starts anew
        state.conversation = null;
        keepConversationInUrl(null);
      }
      showError(message + (wait ? t("try_again_in", { seconds: wait }) : ""));
      return;
    }
    archiveCurrent();
    state.conversation = response.headers.get("x-valid-conversation-id");
    keepConversationInUrl(state.conversation);
    state.answerId = response.headers.get("x-valid-answer-id");
    state.asked = question;
    state.sentGeneration = generation;
    $("asked").replaceChildren(...youAsked(question));
    $("asked").hidden = false;
    $("new-conversation").hidden = false;
    $("question").value = "";
    container.replaceChildren();
    container.dataset.outcome = body.outcome;
    let heading;
    if (body.outcome === "answer") heading = renderAnswer(body, container);
    else if (body.outcome === "ask") heading = renderAsk(body, container);
    else if (body.outcome === "compare") heading = renderComparison(body, container);
    else if (body.outcome === "versions") heading = renderVersions(body, container);
    else heading = renderRefusal(body, container);
    container.append(renderRun(body));
    if (state.answerId) container.append(renderFeedback(state.answerId));
    heading.focus();
  } catch (err) {
    showError(t("unreachable", { error: err.message }));
  } finally {
    button.disabled = false;
    container.setAttribute("aria-busy", "false");
    $("status").textContent = "";
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    ask();
  });
  $("new-conversation").addEventListener("click", newConversation);
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      ask();
    }
  });
  loadRelease();
});
