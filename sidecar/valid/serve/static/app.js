// The ask page: plain DOM, no framework. Every server string goes in with textContent, never as HTML.
"use strict";

const state = { generations: [], release: null };

const $ = (id) => document.getElementById(id);

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
  return labels.slice(0, -1).join(", ") + " and " + labels[labels.length - 1];
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
    $("release").textContent = (body && body.error ? body.error.message : "Service unavailable") + " Retrying…";
    setTimeout(loadRelease, Math.max(1, wait) * 1000);
    return;
  }
  state.release = body.release;
  state.generations = body.generations;
  const select = $("generation");
  for (const g of body.generations) {
    if (!select.querySelector(`option[value="${CSS.escape(g.name)}"]`)) {
      select.append(el("option", { value: g.name, text: g.label }));
    }
  }
  $("release").textContent = "Release " + body.release;
  document.body.dataset.ready = "true";
}

function renderSteps(answer, generation) {
  const list = el("ol", { class: "steps" });
  answer.steps.forEach((step, i) => {
    const link = el("a", {
      class: "cite",
      href: sourceHref(step.cite, generation),
      "aria-label": `Source for step ${i + 1}: ${step.cite}`,
    }, el("code", { text: step.cite }));
    list.append(el("li", {}, el("span", { class: "step-text", text: step.text }), " ", link));
  });
  return list;
}

function renderAnswer(data, container) {
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope",
    text: "Answer for " + listOf(data.scope) });
  container.append(heading);
  if (data.matched.length) {
    container.append(el("p", { class: "matched", text: "Scope from your words: " + data.matched.join(", ") }));
  }
  const several = data.answers.length > 1;
  for (const answer of data.answers) {
    const part = el("section", { class: "generation-answer", "data-generation": answer.generation });
    if (several) part.append(el("h3", { text: label(answer.generation) }));
    part.append(el("p", { class: "answer-text", text: answer.answer }));
    if (answer.steps.length) part.append(renderSteps(answer, answer.generation));
    container.append(part);
  }
  if (data.not_used) container.append(el("p", { class: "not-used", text: data.not_used }));
  return heading;
}

function renderAsk(data, container) {
  const heading = el("h2", { id: "result-heading", tabindex: "-1", text: "Which generation do you mean?" });
  container.append(heading,
    el("p", { text: "The answer depends on the generation. Choose one to get its answer:" }));
  const group = el("div", { class: "choices", role: "group", "aria-labelledby": "result-heading" });
  for (const choice of data.choices) {
    group.append(el("button", {
      type: "button",
      class: "choice",
      "data-generation": choice.generation,
      text: choice.label,
      onclick: () => {
        $("generation").value = choice.generation;
        ask();
      },
    }));
  }
  container.append(group);
  return heading;
}

function renderRefusal(data, container) {
  const title = data.scope.length ? "No answer for " + listOf(data.scope) : "No answer";
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope", text: title });
  container.append(heading);
  const refusal = data.refusal || { reason: "", missing: "", gap_issue: null };
  container.append(el("p", { class: "reason", text: refusal.reason }));
  if (refusal.missing) container.append(el("p", { class: "missing", text: "Missing: " + refusal.missing }));
  if (refusal.gap_issue) {
    container.append(el("p", { class: "gap-issue" }, "Gap issue opened for the writers: ",
      el("code", { text: refusal.gap_issue })));
  }
  if (data.not_used) container.append(el("p", { class: "not-used", text: data.not_used }));
  return heading;
}

const KIND_WORDS = { differs: "differs", only: "not in every generation", shared: "the same", availability: "available?" };

function renderComparison(data, container) {
  const comparison = data.comparison;
  const heading = el("h2", { id: "result-heading", tabindex: "-1", class: "scope",
    text: "Comparison of " + listOf(comparison.generations) });
  container.append(heading);
  container.append(el("p", { class: "comparison-summary", text: comparison.summary }));
  const table = el("table", { class: "comparison" });
  const head = el("tr", {}, el("th", { scope: "col", text: "Part" }));
  comparison.generations.forEach((g) => head.append(el("th", { scope: "col", text: label(g) })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const row of comparison.rows) {
    const tr = el("tr", { "data-kind": row.kind },
      el("th", { scope: "row" }, el("span", { text: row.topic }), el("span", { class: "kind", text: KIND_WORDS[row.kind] || row.kind })));
    for (const g of comparison.generations) {
      const cell = row.cells.find((c) => c.generation === g);
      const td = el("td", { "data-generation": g });
      if (cell) {
        if (cell.available !== null && cell.available !== undefined) {
          td.append(el("strong", { class: "available", text: cell.available ? "Yes. " : "No. " }));
        }
        td.append(el("span", { class: "cell-text", text: cell.text }));
        if (cell.values.length) td.append(el("p", { class: "values", text: "Values: " + cell.values.join(", ") }));
        if (cell.cite) {
          td.append(" ", el("a", { class: "cite", href: sourceHref(cell.cite, g),
            "aria-label": `Source for ${label(g)}: ${cell.cite}` }, el("code", { text: cell.cite })));
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

function renderRun(data) {
  const run = data.run;
  const parts = [`release ${data.release}`, `${run.generator}${run.model ? " (" + run.model + ")" : ""}`,
    `${run.calls} model call${run.calls === 1 ? "" : "s"}`, `${Math.round(run.latency_ms)} ms`];
  return el("p", { class: "run", text: parts.join(" · ") });
}

function showError(message) {
  const container = $("result");
  container.replaceChildren(el("p", { class: "error", role: "alert", text: message }));
}

async function ask() {
  const question = $("question").value.trim();
  if (!question) {
    showError("Type a question first.");
    $("question").focus();
    return;
  }
  const generation = $("generation").value || null;
  const button = $("ask-button");
  const container = $("result");
  button.disabled = true;
  container.setAttribute("aria-busy", "true");
  $("status").textContent = "Asking…";
  try {
    const payload = generation ? { question, generation } : { question };
    const { response, body } = await getJSON("/v1/ask", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(payload),
    });
    if (!response.ok) {
      const message = body && body.error ? body.error.message : `HTTP ${response.status}`;
      const wait = response.headers.get("retry-after");
      showError(message + (wait ? ` (try again in ${wait} s)` : ""));
      return;
    }
    container.replaceChildren();
    container.dataset.outcome = body.outcome;
    let heading;
    if (body.outcome === "answer") heading = renderAnswer(body, container);
    else if (body.outcome === "ask") heading = renderAsk(body, container);
    else if (body.outcome === "compare") heading = renderComparison(body, container);
    else heading = renderRefusal(body, container);
    container.append(renderRun(body));
    heading.focus();
  } catch (err) {
    showError("Could not reach the service: " + err.message);
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
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      ask();
    }
  });
  loadRelease();
});
